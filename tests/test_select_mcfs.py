"""MCFS: spectral embedding against a dense generalized eigensolver, scores against a direct reference."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sla
import scipy.sparse as sp
from sklearn.linear_model import Lars
from sklearn.utils.estimator_checks import parametrize_with_checks

from fsviz.select import MCFS, mcfs_score
from fsviz.select._graph import knn_affinity
from fsviz.select.mcfs import spectral_embedding


@pytest.fixture
def clustered():
    rng = np.random.default_rng(0)
    n = 90
    lab = np.repeat([0, 1, 2], n // 3)
    X = rng.standard_normal((n, 40))
    X[:, 0] += 4 * (lab == 0)
    X[:, 1] += 4 * (lab == 1)
    X[:, 2] += 4 * (lab == 2)
    return X, lab


def test_embedding_solves_generalized_eigenproblem(clustered):
    X, _ = clustered
    W = knn_affinity("test", X, 5, "heat", None).toarray()
    D = np.diag(W.sum(1))
    L = D - W
    E = spectral_embedding(sp.csr_matrix(W), 3)
    vals = sla.eigh(L, D, eigvals_only=True)  # reference: L e = lambda D e, smallest first
    for i in range(3):
        e = E[:, i]
        lam = (e @ L @ e) / (e @ D @ e)
        assert lam == pytest.approx(vals[i + 1], rel=1e-8, abs=1e-10)
        np.testing.assert_allclose(L @ e, lam * D @ e, atol=1e-8 * np.abs(D @ e).max())


def test_scores_equal_direct_reference(clustered):
    X, _ = clustered
    W = knn_affinity("test", X, 5, "heat", None).toarray()
    D = np.diag(W.sum(1))
    V = sla.eigh(D - W, D)[1]
    ref = np.zeros(X.shape[1])
    for i in range(1, 4):
        ref = np.maximum(ref, np.abs(Lars(n_nonzero_coefs=10).fit(X, V[:, i]).coef_))
    got = mcfs_score(X, n_clusters=3, n_nonzero=10)
    # eigenvectors are defined up to sign and D-normalisation: compare |coef| up to a per-vector scale
    # by checking the selected support and the order of the top features
    assert set(np.flatnonzero(got > 1e-12)) == set(np.flatnonzero(ref > 1e-12))
    np.testing.assert_array_equal(np.argsort(-got)[:3], np.argsort(-ref)[:3])


def test_cluster_features_found_dense_and_sparse(clustered):
    X, _ = clustered
    for Xin in (X, sp.csr_matrix(X)):
        s = MCFS(n_clusters=2, n_features=3).fit(Xin).scores_
        assert set(np.argsort(-s)[:3]) == {0, 1, 2}
        assert np.all(s >= 0) and np.all(np.isfinite(s))


def test_errors(clustered):
    X, _ = clustered
    with pytest.raises(ValueError, match="'n_clusters' must be an int in"):
        mcfs_score(X, n_clusters=0)
    with pytest.raises(ValueError, match="'n_neighbors' must be an int in"):
        mcfs_score(X, n_neighbors=500)


@parametrize_with_checks([MCFS(n_clusters=1, n_neighbors=2)], expected_failed_checks=lambda est: {})
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.fixture
def disconnected():
    """Four far-apart clusters: the 5-NN graph has four components (eigenvalue 0 four times)."""
    rng = np.random.default_rng(1)
    lab = np.repeat(np.arange(4), 25)
    X = rng.standard_normal((100, 30))
    X[:, :4] += 50.0 * (lab[:, None] == np.arange(4)[None, :])
    return X, lab


def test_disconnected_graph_gets_the_component_basis(disconnected):
    X, lab = disconnected
    W = knn_affinity("test", X, 5, "heat", None)
    Wd = W.toarray()
    D = np.diag(Wd.sum(1))
    L = D - Wd
    E = spectral_embedding(W, 5)
    assert E.shape == (100, 5)
    np.testing.assert_allclose(E.T @ D @ E, np.eye(5), atol=1e-10)  # D-orthonormal
    np.testing.assert_allclose(E.T @ D @ np.ones(100), 0.0, atol=1e-10)  # the constant is dropped
    # the first three span exactly the component indicators (minus the constant): L e = 0
    np.testing.assert_allclose(L @ E[:, :3], 0.0, atol=1e-9)
    ind = (lab[:, None] == np.arange(4)[None, :]).astype(float)
    coef = np.linalg.lstsq(np.hstack([ind]), E[:, :3], rcond=None)[0]
    np.testing.assert_allclose(ind @ coef, E[:, :3], atol=1e-10)
    # the other two are the next generalized eigenvectors
    vals = sla.eigh(L, D, eigvals_only=True)
    for i, e in enumerate(E[:, 3:].T):
        assert (e @ L @ e) / (e @ D @ e) == pytest.approx(vals[4 + i], rel=1e-8)


def test_scores_do_not_depend_on_the_blas_thread_count(disconnected):
    """Regression: on COIL20 (9 components) the top 20 changed with the BLAS thread count."""
    from threadpoolctl import threadpool_limits

    X, _ = disconnected
    with threadpool_limits(1):
        one = mcfs_score(X, n_clusters=6, n_nonzero=8)
    with threadpool_limits(2):
        two = mcfs_score(X, n_clusters=6, n_nonzero=8)
    np.testing.assert_array_equal(one, two)
    # each component's own feature enters the regressions on the component basis
    assert {0, 1, 2, 3} <= set(np.flatnonzero(one))
