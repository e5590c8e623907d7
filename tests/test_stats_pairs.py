"""top_pairs and correlations_with against np.corrcoef / scipy.stats.spearmanr."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import spearmanr

from fsviz.stats import correlations_with, top_pairs

# np.corrcoef / spearmanr warn on the planted constant column (the reference sets its NaNs to 0)
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")


@pytest.fixture
def X():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(70, 130))
    X[:, 10] = 2 * X[:, 3] + 0.1 * rng.normal(size=70)  # a planted strong pair
    X[:, 100] = -X[:, 50] + 0.3 * rng.normal(size=70)  # a planted negative pair
    X[:, 7] = 4.0  # constant
    X[:, 20] = np.round(X[:, 20])  # ties for the ranks
    return X


def reference(X, method):
    R = np.corrcoef(X.T) if method == "pearson" else spearmanr(X).statistic
    with np.errstate(invalid="ignore"):
        return np.nan_to_num(R)


def brute_top(R, k):
    iu = np.triu_indices(R.shape[0], 1)
    r = R[iu]
    o = np.lexsort((iu[1], iu[0], -np.round(np.abs(r), 12)))[:k]
    return iu[0][o], iu[1][o], r[o]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("method", ["pearson", "spearman"])
@pytest.mark.parametrize("block_size", [16, 37, 2048])
@pytest.mark.parametrize("k", [1, 25, 300])
def test_top_pairs_matches_brute_force(X, method, block_size, k):
    i, j, r = brute_top(reference(X, method), k)
    df = top_pairs(X, k, method=method, block_size=block_size)
    assert list(df.columns) == ["i", "j", "rho"] and len(df) == k
    np.testing.assert_array_equal(df.i.values, i)
    np.testing.assert_array_equal(df.j.values, j)
    np.testing.assert_allclose(df.rho.values, r, atol=1e-12)
    assert 7 not in set(df.i) | set(df.j)  # constant feature never listed


def test_top_pairs_planted_pairs_first(X):
    df = top_pairs(X, 2)
    assert df[["i", "j"]].values.tolist() == [[3, 10], [50, 100]]
    assert df.rho.iloc[0] > 0.99 and df.rho.iloc[1] < -0.9


def test_top_pairs_sparse_pearson_equals_dense(X):
    Xs = X.copy()
    Xs[np.abs(Xs) < 0.8] = 0
    dense = top_pairs(Xs, 40, block_size=50)
    sparse = top_pairs(sp.csr_matrix(Xs), 40, block_size=50)
    np.testing.assert_array_equal(dense[["i", "j"]].values, sparse[["i", "j"]].values)
    np.testing.assert_allclose(dense.rho.values, sparse.rho.values, atol=1e-12)


def test_top_pairs_fewer_pairs_than_k():
    X = np.random.default_rng(1).normal(size=(10, 4))
    assert len(top_pairs(X, 100)) == 6


def test_top_pairs_errors(X):
    with pytest.raises(ValueError, match="'k' must be a positive int; got 0"):
        top_pairs(X, 0)
    with pytest.raises(ValueError, match="'method' must be 'pearson' or 'spearman'; got 'kendall'"):
        top_pairs(X, 5, method="kendall")
    with pytest.raises(ValueError, match="method='spearman' ranks every column"):
        top_pairs(sp.csr_matrix(X), 5, method="spearman")


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("method", ["pearson", "spearman"])
def test_correlations_with_a_feature(X, method):
    R = reference(X, method)
    np.testing.assert_allclose(correlations_with(X, 3, method=method, block_size=17), R[3], atol=1e-12)
    assert correlations_with(X, 3, method=method)[7] == 0.0


@pytest.mark.parametrize("method", ["pearson", "spearman"])
def test_correlations_with_a_target_vector(X, method):
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    ref = reference(np.column_stack([X, y]), method)[-1, :-1]
    np.testing.assert_allclose(correlations_with(X, y, method=method), ref, atol=1e-12)
    labels = np.where(y == 1, "tumour", "normal")  # string labels: point-biserial on 0/1 codes
    np.testing.assert_allclose(np.abs(correlations_with(X, labels, method=method)), np.abs(ref), atol=1e-12)


def test_correlations_with_sparse_equals_dense(X):
    Xs = X.copy()
    Xs[np.abs(Xs) < 0.8] = 0
    y = np.arange(70.0)
    np.testing.assert_allclose(correlations_with(sp.csc_matrix(Xs), y), correlations_with(Xs, y), atol=1e-12)


def test_correlations_with_errors(X):
    with pytest.raises(ValueError, match=r"feature index 'target' must lie in \[0, 130\); got 130"):
        correlations_with(X, 130)
    with pytest.raises(ValueError, match="length n_samples=70; got shape"):
        correlations_with(X, np.zeros(5))
    with pytest.raises(ValueError, match="needs exactly 2 classes"):
        correlations_with(X, np.array(list("abc") * 23 + ["a"]))
    with pytest.raises(ValueError, match="the target is constant"):
        correlations_with(X, 7)
    with pytest.raises(ValueError, match="method='spearman' ranks every column"):
        correlations_with(sp.csr_matrix(X), 0, method="spearman")
