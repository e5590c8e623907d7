"""fsviz.select.sparse_learning: LSL21, LLL21, RFS, UDFS, NDFS against independent references."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.optimize as so
import scipy.sparse as sp
from sklearn.linear_model import MultiTaskLasso
from sklearn.utils.estimator_checks import parametrize_with_checks

from fsviz.select import LLL21, LSL21, NDFS, RFS, UDFS
from fsviz.select import sparse_solvers as SL


def planted(n=90, d=12, c=3, seed=0, shift=2.5):
    """Classes differ only in features 2, 5 and 7."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(c), n // c)
    X = rng.normal(size=(n, d))
    X[:, 2] += shift * (y == 1)
    X[:, 5] += shift * (y == 2)
    X[:, 7] -= shift * (y == 0)
    return X, y


def clustered(n=80, d=10, seed=0):
    """Two clusters separated along features 1 and 6 only."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    side = np.where(np.arange(n) < n // 2, 1.0, -1.0)
    X[:, 1] = 2.0 * side + 0.3 * rng.normal(size=n)
    X[:, 6] = -2.0 * side + 0.3 * rng.normal(size=n)
    return X


def monotone(h, rel=1e-10):
    h = np.asarray(h)
    return bool(np.all(np.diff(h) <= rel * np.abs(h[:-1]) + 1e-14))


# ---------------------------------------------------------------------------- prox
def test_prox_l21_is_the_exact_minimiser_row_by_row():
    rng = np.random.default_rng(0)
    V = rng.normal(size=(6, 3))
    V[2] *= 0.1  # below the threshold: shrunk to 0
    t = 0.5
    P = SL.prox_l21(V, t)
    assert np.all(P[2] == 0)
    for j in range(6):
        f = lambda w, v=V[j]: 0.5 * np.sum((w - v) ** 2) + t * np.sqrt(np.sum(w * w) + 1e-16)  # noqa: E731
        ref = so.minimize(f, V[j], method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-14}).x
        np.testing.assert_allclose(P[j], ref, atol=1e-4)


# ---------------------------------------------------------------------------- LSL21
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("sparse", [False, True])
def test_lsl21_equals_sklearn_multitask_lasso(fit_intercept, sparse):
    """Same problem as MultiTaskLasso: 1/(2n)||Y - XW||^2 + alpha ||W||_21 (coordinate descent there)."""
    X, y = planted()
    Y = SL.one_hot(y)
    alpha = 0.05
    ref = MultiTaskLasso(alpha=alpha, fit_intercept=fit_intercept, tol=1e-12, max_iter=100000).fit(X, Y)
    est = LSL21(alpha=alpha, fit_intercept=fit_intercept, tol=1e-8, max_iter=20000)
    est.fit(sp.csr_matrix(X) if sparse else X, y)
    np.testing.assert_allclose(est.coef_, ref.coef_.T, atol=1e-7)
    np.testing.assert_allclose(est.intercept_, ref.intercept_, atol=1e-7)
    assert est.n_iter_ < 20000  # stopped on the gap, which is <= tol * P(0)
    assert est.duality_gap_ <= 1e-8 * 0.5 * np.sum((Y - Y.mean(0) * fit_intercept) ** 2) / len(y)
    assert monotone(est.objective_history_)
    assert len(est.objective_history_) == est.n_iter_


def test_lsl21_recovers_the_planted_features_and_drops_the_rest():
    X, y = planted()
    est = LSL21(alpha=0.1, n_features=3).fit(X, y)
    assert set(est.get_support(indices=True)) == {2, 5, 7}
    assert np.sum(est.scores_ > 0) < X.shape[1]  # exact zeros from the prox
    np.testing.assert_array_equal(est.ranking_[[2, 5, 7]] <= 3, True)


def test_lsl21_warns_when_alpha_zeroes_every_feature():
    X, y = planted()
    with pytest.warns(UserWarning, match="every row of W is zero"):
        est = LSL21(alpha=100.0).fit(X, y)
    assert np.all(est.scores_ == 0) and est.ranking_.tolist() == list(range(1, X.shape[1] + 1))


# ---------------------------------------------------------------------------- LLL21
def _lll21_objective(X, Y, alpha, eps=0.0):
    """The objective written out (cross-entropy via log-sum-exp) and its gradient."""
    n, d = X.shape
    c = Y.shape[1]

    def f(v):
        W, b = v[: d * c].reshape(d, c), v[d * c :]
        Z = X @ W + b
        Z = Z - Z.max(axis=1, keepdims=True)
        lse = np.log(np.exp(Z).sum(1))
        P = np.exp(Z - lse[:, None])
        w = np.sqrt(np.sum(W * W, axis=1) + eps)
        value = np.mean(lse - np.sum(Z * Y, axis=1)) + alpha * w.sum()
        gW = X.T @ (P - Y) / n + alpha * W / np.maximum(w, 1e-300)[:, None]
        return value, np.r_[gW.ravel(), (P - Y).mean(0)]

    return f


@pytest.mark.parametrize("sparse", [False, True])
def test_lll21_satisfies_kkt_and_beats_a_generic_solver(sparse):
    X, y = planted(n=60, d=8, seed=1)
    Y = SL.one_hot(y)
    alpha = 0.05
    est = LLL21(alpha=alpha, tol=1e-8, max_iter=50000).fit(sp.csc_matrix(X) if sparse else X, y)
    assert est.kkt_residual_ <= 1e-8
    assert monotone(est.objective_history_)
    # independent check: BFGS on the smoothed objective, from zero
    f = _lll21_objective(X, Y, alpha, eps=1e-12)
    ref = so.minimize(f, np.zeros(X.shape[1] * 3 + 3), jac=True, method="BFGS", options={"maxiter": 20000})
    ours = _lll21_objective(X, Y, alpha)(np.r_[est.coef_.ravel(), est.intercept_])[0]
    assert ours <= ref.fun + 1e-8
    np.testing.assert_allclose(est.objective_history_[-1], ours, rtol=1e-12)
    assert ours >= ref.fun - 1e-3  # both near the same optimum (BFGS stalls on the kinks)
    ref_norms = np.linalg.norm(ref.x[:24].reshape(8, 3), axis=1)
    np.testing.assert_array_equal(np.flatnonzero(est.scores_ > 0), np.flatnonzero(ref_norms > 1e-3))


def test_lll21_recovers_the_planted_features():
    X, y = planted()
    est = LLL21(alpha=0.05, n_features=3).fit(X, y)
    assert set(est.get_support(indices=True)) == {2, 5, 7}


# ---------------------------------------------------------------------------- RFS
def _rfs_objective(X, Y, gamma, eps=0.0):
    d, c = X.shape[1], Y.shape[1]

    def f(v):
        W = v.reshape(d, c)
        R = X @ W - Y
        return np.sqrt(np.sum(R * R, 1) + eps).sum() + gamma * np.sqrt(np.sum(W * W, 1) + eps).sum()

    return f


@pytest.mark.parametrize("shape", [(42, 8), (12, 20)])  # d < n: d x d system; d >= n: Woodbury (n x n)
def test_rfs_is_optimal_against_a_generic_solver(shape):
    n, d = shape
    X, y = planted(n=n - n % 3, d=d, seed=2)
    Y = SL.one_hot(y)
    gamma = 0.5
    est = RFS(gamma=gamma, tol=1e-12, max_iter=500).fit(X, y)
    assert monotone(est.objective_history_)
    obj = _rfs_objective(X, Y, gamma)
    ours = obj(est.coef_.ravel())
    np.testing.assert_allclose(est.objective_history_[-1], ours, rtol=1e-10)

    def smoothed(v, eps=1e-6):  # the objective with sqrt(||.||^2 + eps) rows, and its gradient
        W = v.reshape(d, 3)
        R = X @ W - Y
        r, w = np.sqrt(np.sum(R * R, 1) + eps), np.sqrt(np.sum(W * W, 1) + eps)
        return r.sum() + gamma * w.sum(), (X.T @ (R / r[:, None]) + gamma * W / w[:, None]).ravel()

    smooth = so.minimize(smoothed, np.zeros(d * 3), jac=True, method="BFGS", options={"maxiter": 5000})
    assert obj(smooth.x) - 0.05 * ours <= ours <= obj(smooth.x) + 1e-9  # smoothing costs <= (n+d)*1e-3
    # no direction improves (convexity: local = global), the subgradient inequality in 40 random directions
    rng = np.random.default_rng(0)
    for _ in range(40):
        step = rng.normal(size=ours.size if np.ndim(ours) else d * 3) * 1e-4
        assert obj(est.coef_.ravel() + step) >= ours - 1e-9


def test_rfs_reweighted_step_both_sides_agree():
    """The d x d normal equations and the n x n Woodbury form are the same step."""
    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(15, 9)), rng.normal(size=(15, 2))
    w, r = rng.uniform(0.1, 2, 9), rng.uniform(0.1, 2, 15)
    direct = np.linalg.solve(
        X.T @ (X / (2 * r[:, None])) + 0.7 * np.diag(1 / (2 * w)), X.T @ (Y / (2 * r[:, None]))
    )
    np.testing.assert_allclose(SL._reweighted_ls(X, Y, 0.7, w, r), direct, rtol=1e-9)  # d < n
    np.testing.assert_allclose(
        SL._reweighted_ls(X[:8], Y[:8], 0.7, w, r[:8]),
        np.linalg.solve(
            X[:8].T @ (X[:8] / (2 * r[:8, None])) + 0.7 * np.diag(1 / (2 * w)),
            X[:8].T @ (Y[:8] / (2 * r[:8, None])),
        ),
        rtol=1e-8,
    )  # d >= n


@pytest.mark.parametrize("cls", [RFS, LSL21, LLL21])
def test_supervised_sparse_equals_dense_and_recovers_planted(cls):
    X, y = planted()
    # LSL21 solves dense X by BCD, sparse X by FISTA: the same minimiser, compared at a tight gap
    kw = dict(tol=1e-11, max_iter=1000) if cls is LSL21 else {}  # FISTA reaches its floor by 1,000
    dense = cls(n_features=3, **kw).fit(X, y)
    sparse = cls(n_features=3, **kw).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, atol=1e-8)
    assert set(dense.get_support(indices=True)) == {2, 5, 7}


def test_rfs_is_robust_to_an_outlier_sample():
    X, y = planted()
    Xo = X.copy()
    Xo[0] += 50.0  # one grossly corrupted sample
    assert set(RFS(n_features=3).fit(Xo, y).get_support(indices=True)) == {2, 5, 7}


# ---------------------------------------------------------------------------- UDFS
def _udfs_M_textbook(X, k, lam):
    """Survey eq. (71), one sample at a time (scikit-feature's loop with its S_i indexing corrected)."""
    n = X.shape[0]
    D = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    idx = np.argsort(D + np.diag(-np.ones(n)), axis=1, kind="stable")[:, : k + 1]  # self first
    H = np.eye(k + 1) - 1 / (k + 1)
    Lm = np.zeros((n, n))
    for i in range(n):
        Xi = X[idx[i]].T  # d x (k+1)
        Xt = Xi @ H
        B = np.linalg.inv(Xt.T @ Xt + lam * np.eye(k + 1))
        S = np.zeros((n, k + 1))
        S[idx[i], np.arange(k + 1)] = 1
        Lm += S @ H @ B @ H @ S.T
    return X.T @ Lm @ X


@pytest.mark.parametrize("sparse", [False, True])
def test_udfs_matrix_equals_the_textbook_transcription(sparse):
    X = clustered(n=30, d=8)
    Lm = SL.udfs_local_matrix(sp.csr_matrix(X) if sparse else X, 4, 0.3)
    np.testing.assert_allclose(X.T @ Lm.toarray() @ X, _udfs_M_textbook(X, 4, 0.3), rtol=1e-9, atol=1e-9)


def test_udfs_fixed_point_orthonormal_monotone_and_planted():
    X = clustered()
    est = UDFS(n_clusters=2, alpha=0.1, tol=1e-12, max_iter=300, n_features=2).fit(X)
    W = est.coef_
    np.testing.assert_allclose(W.T @ W, np.eye(2), atol=1e-10)
    assert monotone(est.objective_history_, rel=1e-9)
    assert set(est.get_support(indices=True)) == {1, 6}
    # at convergence W spans the 2 smallest eigenvectors of M + alpha D(W)
    M = X.T @ SL.udfs_local_matrix(X, 5, 0.1).toarray() @ X
    P = M + 0.1 * np.diag(1 / (2 * np.linalg.norm(W, axis=1)))
    vals, vecs = np.linalg.eigh(P)
    proj = vecs[:, :2] @ vecs[:, :2].T
    np.testing.assert_allclose(proj @ W, W, atol=1e-5)


def test_udfs_leaves_constant_features_out_and_sparse_equals_dense():
    X = clustered()
    X[:, 3] = 7.0
    dense = UDFS(n_clusters=2).fit(X)
    assert dense.scores_[3] == 0
    sparse = UDFS(n_clusters=2).fit(sp.csr_matrix(X))
    np.testing.assert_allclose(sparse.scores_, dense.scores_, atol=1e-8)


# ---------------------------------------------------------------------------- NDFS
def test_ndfs_recovers_clusters_monotone_nonnegative_and_seeded():
    X = clustered()
    est = NDFS(n_clusters=2, random_state=0, n_features=2, tol=1e-10, max_iter=300).fit(X)
    assert set(est.get_support(indices=True)) == {1, 6}
    F = est.pseudo_labels_
    assert np.all(F >= 0)
    assert np.all(np.argmax(F[:40], 1) == np.argmax(F[0])) and np.all(np.argmax(F[40:], 1) != np.argmax(F[0]))
    assert monotone(est.objective_history_, rel=1e-9)
    again = NDFS(n_clusters=2, random_state=0, n_features=2, tol=1e-10, max_iter=300).fit(X)
    np.testing.assert_array_equal(again.coef_, est.coef_)
    sparse = NDFS(n_clusters=2, random_state=0, tol=1e-10, max_iter=300).fit(sp.csr_matrix(X))
    np.testing.assert_allclose(sparse.coef_, est.coef_, atol=1e-6)


def test_ndfs_w_step_is_the_regularised_least_squares_solution():
    rng = np.random.default_rng(4)
    X, F = rng.normal(size=(20, 7)), rng.uniform(size=(20, 3))
    w = rng.uniform(0.2, 1.0, 7)
    direct = np.linalg.solve(X.T @ X + 0.5 * np.diag(1 / (2 * w)), X.T @ F)
    np.testing.assert_allclose(SL._reweighted_ls(X, F, 0.5, w), direct, rtol=1e-9)
    np.testing.assert_allclose(
        SL._reweighted_ls(X[:6], F[:6], 0.5, w),
        np.linalg.solve(X[:6].T @ X[:6] + 0.5 * np.diag(1 / (2 * w)), X[:6].T @ F[:6]),
        rtol=1e-8,
    )


# ---------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "est, message",
    [
        (
            LSL21(alpha=-1.0),
            r"The 'alpha' parameter of LSL21 must be a float in the range \[0.0, inf\) or None\. Got -1.0",
        ),
        (
            LLL21(max_iter=0),
            r"The 'max_iter' parameter of LLL21 must be an int in the range \[1, inf\)\. Got 0",
        ),
        (RFS(gamma=0.0), r"The 'gamma' parameter of RFS must be a float in the range \(0.0, inf\)\. Got 0.0"),
        (RFS(tol=0), r"The 'tol' parameter of RFS must be a float in the range \(0.0, inf\)\. Got 0"),
        (
            UDFS(n_neighbors=200),
            r"UDFS: 'n_neighbors' must be an int in the range \[1, 89\] \(X has 90 samples\); got 200",
        ),
        (
            UDFS(n_clusters=0),
            r"The 'n_clusters' parameter of UDFS must be an int in the range \[1, inf\)\. Got 0",
        ),
        (
            NDFS(n_clusters=91),
            r"NDFS: 'n_clusters' must be an int in the range \[1, 90\] \(X has 90 samples\); got 91",
        ),
        (
            NDFS(kernel="cosine"),
            r"The 'kernel' parameter of NDFS must be a str among \{'(heat|binary)', '(heat|binary)'\}\. "
            r"Got 'cosine' instead",
        ),
    ],
)
def test_errors_name_input_rule_and_value(est, message):
    X, y = planted()
    with pytest.raises(ValueError, match=message):
        est.fit(X, y)


def test_supervised_ones_need_y():
    X, _ = planted()
    for cls in (LSL21, LLL21, RFS):
        with pytest.raises(ValueError, match="requires y to be passed"):
            cls().fit(X)


# ---------------------------------------------------------------------------- scikit-learn
@parametrize_with_checks(
    [
        LSL21(n_features=1),
        LLL21(n_features=1, max_iter=50),
        RFS(n_features=1, max_iter=20),
        UDFS(n_clusters=1, n_neighbors=2, max_iter=10, n_features=1),
        NDFS(n_clusters=1, n_neighbors=2, max_iter=10, random_state=0, n_features=1),
    ],
    expected_failed_checks=lambda est: {},  # none: every check applies and passes
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# ---------------------------------------------------------------------------- benchmark cases
def test_peer_cases_are_well_formed_and_the_fsviz_side_runs():
    """benchmarks/catalogue_peers/sparse_learning.py: the keys bench_catalogue reads; fsviz side
    returns k distinct indices (the scikit-feature side is only run by the benchmark)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "catalogue_peers" / "sparse_learning.py"
    spec = importlib.util.spec_from_file_location("sparse_learning_cases", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    cases = mod.cases()
    assert {c["method"] for c in cases} >= {"RFS", "LS-l2,1", "LL-l2,1", "UDFS", "NDFS"}
    X, y = planted(n=60, d=30)
    for c in cases:
        assert {"method", "dataset", "k", "fsviz", "peer"} <= set(c) and c["k"] == 20
        assert callable(c["peer"])
    for c in cases[:7]:  # one dataset's worth: every fsviz callable once
        top = np.asarray(c["fsviz"](X, y))
        assert top.shape == (20,) and len(set(top.tolist())) == 20


@pytest.mark.parametrize("shape", [(40, 30), (30, 40), (20, 400), (400, 20)])
@pytest.mark.parametrize("sparse", [False, True])
def test_lipschitz_constant_is_the_centred_spectral_norm(shape, sparse):
    """FISTA's step: sigma_max(X - 1 mu')^2, from the smaller Gram matrix or svds, X never densified."""
    X = sp.random(*shape, density=0.2, format="csr", random_state=1)
    dense = X.toarray()
    expect = np.linalg.norm(dense - dense.mean(0), 2) ** 2
    got = SL._Centred(X if sparse else dense, True).sq_norm2()
    assert expect <= got <= expect * (1 + 1e-4)


def test_udfs_first_step_does_not_depend_on_the_null_space_basis():
    # more features than samples: X'LX has a null space far larger than n_clusters, and the
    # first step's eigenvectors are any frame of it; their row norms weight every later step
    rng = np.random.default_rng(2)
    X = rng.random((25, 120))
    X[X < 0.4] = 0.0
    dense = UDFS(n_clusters=3, max_iter=5).fit(X)
    sparse = UDFS(n_clusters=3, max_iter=5).fit(sp.csc_matrix(X))
    assert np.allclose(dense.objective_history_, sparse.objective_history_, rtol=1e-8)
    assert np.allclose(dense.scores_, sparse.scores_, rtol=1e-6, atol=1e-10)
    assert np.array_equal(np.argsort(dense.ranking_)[:20], np.argsort(sparse.ranking_)[:20])
