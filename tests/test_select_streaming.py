"""Streaming baselines: alpha-investing, OSFS, Fast-OSFS, Grafting, OFS."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import chi2, norm
from sklearn.utils.estimator_checks import parametrize_with_checks

from fsviz.select import OFS, OSFS, AlphaInvesting, FastOSFS, Grafting
from fsviz.select import _streaming_kernels as K
from fsviz.select._base import readonly
from fsviz.select.streaming import StreamHistory


# ----------------------------------------------------------------------------- data
def clustered(n=200, n_clusters=5, per=4, n_noise=12, seed=0, discrete=False):
    """Correlated copies of latent factors + noise; label from three factors; shuffled columns."""
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, n_clusters))
    cols = [
        Z[:, k] + rng.uniform(0.1, 1.0) * rng.normal(size=n) for k in range(n_clusters) for _ in range(per)
    ]
    cols += [rng.normal(size=n) for _ in range(n_noise)]
    X = np.column_stack(cols)[:, rng.permutation(n_clusters * per + n_noise)]
    y = (Z[:, 0] + 0.8 * Z[:, 1] - 0.6 * Z[:, 2] + 0.3 * rng.normal(size=n) > 0).astype(int)
    if discrete:
        X = np.clip(np.round(X), -2, 2).astype(float)
    return X, y


# ----------------------------------------------------------------------------- references
def alpha_investing_ref(X, y, w0=0.5, dw=0.5):
    """Zhou et al.'s loop, transcribed with least squares refits (scikit-feature's p-value)."""
    n, m = X.shape
    w, F = w0, []
    for i in range(m):
        alpha = w / 2 / (i + 1)
        A = np.column_stack([np.ones(n), X[:, F]])
        rss_old = np.sum((y - A @ np.linalg.lstsq(A, y, rcond=None)[0]) ** 2)
        B = np.column_stack([A, X[:, i]])
        rss_new = np.sum((y - B @ np.linalg.lstsq(B, y, rcond=None)[0]) ** 2)
        p = np.exp((rss_new - rss_old) / (2 * rss_old / n))
        if p < alpha:
            F.append(i)
            w += dw - alpha
        else:
            w -= alpha
    return F


def pcorr_p(D, a, b, S):
    idx = [a, b, *S]
    P = np.linalg.inv(np.corrcoef(D[:, idx], rowvar=False))
    r = np.clip(-P[0, 1] / np.sqrt(P[0, 0] * P[1, 1]), -1 + 1e-15, 1 - 1e-15)
    return 2 * norm.sf(abs(np.arctanh(r)) * np.sqrt(D.shape[0] - len(S) - 3))


def g2_p(D, a, b, S):
    """Textbook G^2 with per-stratum (rows-1)(cols-1) degrees of freedom."""
    g2, dof = 0.0, 0
    keys = np.unique(D[:, list(S)], axis=0, return_inverse=True)[1].ravel() if S else np.zeros(len(D), int)
    for key in np.unique(keys):
        rows = keys == key
        _, xa = np.unique(D[rows, a], return_inverse=True)
        _, xb = np.unique(D[rows, b], return_inverse=True)
        T = np.zeros((xa.max() + 1, xb.max() + 1))
        np.add.at(T, (xa, xb), 1)
        E = np.outer(T.sum(1), T.sum(0)) / T.sum()
        dof += (T.shape[0] - 1) * (T.shape[1] - 1)
        g2 += 2 * np.sum(T[T > 0] * np.log(T[T > 0] / E[T > 0]))
    return chi2.sf(g2, dof) if dof > 0 else 1.0


def osfs_ref(X, y, alpha=0.01, max_k=3, fast=False, discrete=False):
    """Wu et al.'s OSFS / Fast-OSFS, transcribed with itertools subsets (column 0 = target)."""
    D = np.column_stack([y, X]).astype(float)
    test = g2_p if discrete else pcorr_p
    bcf = []

    def separated(Y, pool, must=()):
        sizes = range(0, max_k - len(must) + 1)
        return any(test(D, 0, Y, [*must, *S]) > alpha for t in sizes for S in combinations(pool, t))

    for x in range(1, D.shape[1]):
        if test(D, 0, x, []) > alpha:
            continue
        if fast:
            if separated(x, list(bcf)):
                continue
            bcf.append(x)
            for Y in list(bcf[:-1]):
                if separated(Y, [z for z in bcf if z not in (Y, x)], must=(x,)):
                    bcf.remove(Y)
        else:
            bcf.append(x)
            for Y in list(bcf):
                if separated(Y, [z for z in bcf if z != Y]):
                    bcf.remove(Y)
    return [b - 1 for b in bcf]


def ofs_ref(X, y, B, eta=0.2, lam=0.01):
    w = np.zeros(X.shape[1])
    for x, t in zip(X, y, strict=True):
        if t * (w @ x) <= 1:
            w = w + eta * t * x
            w = min(1.0, 1.0 / (np.sqrt(lam) * np.linalg.norm(w))) * w
            if np.count_nonzero(w) > B:
                keep = np.argsort(-np.abs(w), kind="stable")[:B]
                w2 = np.zeros_like(w)
                w2[keep] = w[keep]
                w = w2
    return w


# ----------------------------------------------------------------------------- alpha-investing
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_alpha_investing_equals_textbook_loop(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(120, 60))
    y = X[:, 3] - 0.7 * X[:, 20] + 0.5 * X[:, 41] + 0.8 * rng.normal(size=120)
    est = AlphaInvesting().fit(X, y)
    ref = alpha_investing_ref(X, y)
    assert est.selected_.tolist() == ref and len(ref) >= 2
    h = est.history_
    assert h.set_sizes()[-1] == len(ref) and h.counts()["admitted"] == len(ref)
    # wealth bookkeeping: w = w0 + dw * |F| - sum(alpha_i)
    assert est.wealth_ == pytest.approx(0.5 + 0.5 * len(ref) - h.threshold.sum())


def test_alpha_investing_equals_scikit_feature_on_a_class_label():
    skf = pytest.importorskip("skfeature.function.streaming.alpha_investing")
    X, y = clustered(seed=3)
    got = AlphaInvesting(w0=0.5, dw=0.5).fit(X, y).selected_.tolist()
    assert got == skf.alpha_investing(X, y.astype(float), 0.5, 0.5).tolist()


def test_alpha_investing_stops_on_an_exact_fit():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 6))
    y = X[:, 0] + X[:, 1]
    est = AlphaInvesting().fit(X, y)
    assert est.selected_.tolist() == [0, 1] and np.all(np.isfinite(est.scores_))


# ----------------------------------------------------------------------------- OSFS / Fast-OSFS
@pytest.mark.parametrize("cls,fast", [(OSFS, False), (FastOSFS, True)])
@pytest.mark.parametrize("seed", [0, 1])
def test_osfs_continuous_equals_textbook(cls, fast, seed):
    X, y = clustered(seed=seed)
    est = cls(alpha=0.05, max_k=2).fit(X, y)
    assert est.data_ == "continuous"
    assert est.selected_.tolist() == osfs_ref(X, y, alpha=0.05, max_k=2, fast=fast)


@pytest.mark.parametrize("cls,fast", [(OSFS, False), (FastOSFS, True)])
def test_osfs_discrete_equals_textbook_g2(cls, fast):
    X, y = clustered(n=150, n_clusters=3, per=3, n_noise=5, seed=4, discrete=True)
    est = cls(alpha=0.05, max_k=2).fit(X, y)
    assert est.data_ == "discrete"
    ref = osfs_ref(X, y, alpha=0.05, max_k=2, fast=fast, discrete=True)
    assert est.selected_.tolist() == ref and len(ref) >= 1


def test_osfs_history_records_separating_sets():
    X, y = clustered(seed=0)
    est = FastOSFS(alpha=0.05, max_k=2).fit(X, y)
    h = est.history_
    red = np.flatnonzero(h.decision == "redundant")
    assert red.size and all(1 <= len(h[i].given) <= 2 for i in red)
    for i in red:  # each given set is made of features that had arrived before
        assert max(h[i].given) < i and "independent of the target given" in h.explain(i)
    out = h.outcomes()
    assert (out == "selected").sum() == len(est.selected_) and h.set_sizes()[-1] == len(est.selected_)
    assert set(np.unique(out)) <= {"selected", "removed", "irrelevant", "redundant"}
    assert h.to_frame().shape == (X.shape[1], 7)


def test_osfs_removal_is_explained_and_counted():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 20))
    y = X[:, 1] + X[:, 4] + 0.3 * rng.normal(size=300)
    X[:, 15] = X[:, 1] + 0.05 * rng.normal(size=300)  # a later, near-identical copy of feature 1
    h = OSFS().fit(X, y).history_
    assert h.removed_by[1] == 15 and h[1].given == (15,) and h.outcomes()[1] == "removed"
    assert h.explain(1).endswith(
        "later removed by the arrival of feature 15 (independent of the target given [15])."
    )
    assert h.explain(0).startswith("feature 0: dropped (irrelevant: p = ")
    sizes = h.set_sizes()
    assert sizes[14] - sizes[15] == 0  # feature 15 admitted (+1) and removed feature 1 (-1) on arrival


def test_fast_osfs_and_osfs_agree_on_a_clean_problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 15))
    y = X[:, 2] + X[:, 9] + 0.3 * rng.normal(size=400)
    X[:, 12] = X[:, 2] + X[:, 9] + 0.5 * rng.normal(size=400)  # explained by 2 and 9
    for cls in (OSFS, FastOSFS):
        assert cls().fit(X, y).selected_.tolist() == [2, 9]


# ----------------------------------------------------------------------------- Grafting
def _grad_and_kkt(est, X, y):
    Xs = X / X.std(axis=0)
    W = est.coef_.T
    z = Xs[:, est.selected_] @ W + est.intercept_
    p = 1 / (1 + np.exp(-z))
    R = (p - y[:, None]) / len(y)
    g = Xs.T @ R
    return g, np.abs(R.sum())


@pytest.mark.parametrize("seed", [0, 1])
def test_grafting_solution_satisfies_kkt(seed):
    X, y = clustered(seed=seed)
    lam = 0.03
    est = Grafting(lam=lam, tol=1e-8, max_iter=20000).fit(X, y)
    g, gb = _grad_and_kkt(est, X, y)
    sel = est.selected_
    w = est.coef_[0]
    assert sel.size >= 2 and np.all(w != 0)
    np.testing.assert_allclose(g[sel, 0], -lam * np.sign(w), atol=1e-6)  # selected: grad = -lam sign(w)
    assert gb < 1e-6  # free intercept
    # every feature seen after the last change of the model passes its own test (|grad| <= lam at arrival)
    h = est.history_
    dropped = np.flatnonzero(h.decision == "irrelevant")
    assert np.all(h.statistic[dropped] <= lam)


def test_grafting_matches_sklearn_l1_logistic_on_its_selection():
    from sklearn.linear_model import LogisticRegression

    X, y = clustered(seed=2)
    lam = 0.03
    est = Grafting(lam=lam, tol=1e-9, max_iter=50000).fit(X, y)
    Xs = (X / X.std(axis=0))[:, est.selected_]
    lr = LogisticRegression(l1_ratio=1.0, C=1 / (len(y) * lam), solver="saga", tol=1e-12, max_iter=200000)
    lr.fit(Xs, y)
    np.testing.assert_allclose(lr.coef_, est.coef_, atol=1e-4)


def test_grafting_multiclass_gradient_test():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 25))
    y = np.argmax(np.column_stack([X[:, 1], X[:, 7], X[:, 18]]), axis=1)
    est = Grafting(lam=0.05).fit(X, y)
    assert {1, 7, 18} <= set(est.selected_.tolist()) and est.coef_.shape == (3, len(est.selected_))


# ----------------------------------------------------------------------------- stream semantics
STREAMERS = [
    AlphaInvesting(),
    OSFS(alpha=0.05, max_k=2),
    FastOSFS(alpha=0.05, max_k=2),
    Grafting(lam=0.03, tol=1e-9, max_iter=20000),
]


@pytest.mark.parametrize("est", STREAMERS, ids=lambda e: type(e).__name__)
def test_partial_fit_in_chunks_equals_fit(est):
    X, y = clustered(seed=5)
    full = est.fit(X, y)
    sel, hist = full.selected_.copy(), full.history_
    parts = type(est)(**est.get_params())
    for a, b in [(0, 1), (1, 7), (7, 20), (20, X.shape[1])]:
        parts.partial_fit(X[:, a:b], y)
    assert parts.selected_.tolist() == sel.tolist()
    assert parts.history_.decision.tolist() == hist.decision.tolist()
    assert parts.n_features_in_ == X.shape[1]
    with pytest.raises(ValueError, match="same samples and the same y"):
        parts.partial_fit(X[:-1, :2], y[:-1])


@pytest.mark.parametrize("est", STREAMERS, ids=lambda e: type(e).__name__)
def test_sparse_equals_dense(est):
    X, y = clustered(seed=6)
    X[np.abs(X) < 0.5] = 0.0
    dense = est.fit(X, y).selected_.tolist()
    assert type(est)(**est.get_params()).fit(sp.csr_matrix(X), y).selected_.tolist() == dense


# ----------------------------------------------------------------------------- OFS
@pytest.mark.parametrize("B", [3, 8])
def test_ofs_equals_textbook_loop(B):
    rng = np.random.default_rng(B)
    X = rng.normal(size=(300, 40))
    y = np.where(X[:, 5] - X[:, 22] + 0.3 * rng.normal(size=300) > 0, 1, -1)
    est = OFS(n_features=B).fit(X, y)
    w = ofs_ref(X, y, B)
    np.testing.assert_allclose(est.coef_[0], w, rtol=1e-12, atol=1e-14)
    assert set(est.selected_.tolist()) == set(np.flatnonzero(w).tolist()) and len(est.selected_) <= B
    assert est.selected_[0] in (5, 22)


def test_ofs_partial_fit_streams_samples_and_sparse_equals_dense():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 30))
    X[np.abs(X) < 0.7] = 0
    y = np.where(X[:, 3] + X[:, 4] > 0, "yes", "no")
    full = OFS(n_features=5).fit(X, y)
    part = OFS(n_features=5)
    for a, b in [(0, 50), (50, 51), (51, 200)]:
        part.partial_fit(X[a:b], y[a:b], classes=["no", "yes"])
    np.testing.assert_allclose(part.coef_, full.coef_, rtol=1e-12)
    assert part.n_samples_seen_ == 200 and part.n_updates_ == full.n_updates_
    np.testing.assert_allclose(OFS(n_features=5).fit(sp.csr_matrix(X), y).coef_, full.coef_, rtol=1e-12)
    with pytest.raises(ValueError, match="not in classes"):
        part.partial_fit(X[:3], np.array(["no", "yes", "maybe"]))


def test_ofs_multiclass_keeps_B_features():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 30))
    y = np.argmax(X[:, [2, 9, 17]], axis=1)
    est = OFS(n_features=6).fit(X, y)
    assert est.coef_.shape == (3, 30) and np.count_nonzero(np.any(est.coef_ != 0, axis=0)) <= 6
    assert {2, 9, 17} <= set(est.selected_.tolist())


# ----------------------------------------------------------------------------- kernels
def test_kernels_equal_their_python_bodies():
    rng = np.random.default_rng(0)
    n, b = 40, 6
    X = np.asfortranarray(rng.normal(size=(n, b)))
    y = X[:, 1] + 0.1 * rng.normal(size=n)
    outs = []
    for f in (K.alpha_investing_block, K.alpha_investing_block.py_func):
        Q = np.zeros((n, 8), order="F")
        Q[:, 0] = 1 / np.sqrt(n)
        r = y - y.mean()
        p, a, acc = np.empty(b), np.empty(b), np.zeros(b, dtype=np.bool_)
        k, rss, w = f(X.T, Q, 1, r, float(r @ r), 0.5, 0, 0.5, 1e-10, p, a, acc)
        outs.append((k, rss, w, p.copy(), acc.copy()))
    assert (
        outs[0][0] == outs[1][0]
        and np.allclose(outs[0][3], outs[1][3])
        and outs[0][4].tolist() == outs[1][4].tolist()
    )
    R = np.corrcoef(np.column_stack([y, X]), rowvar=False)
    codes = np.asfortranarray(rng.integers(0, 3, size=(n, 5)).astype(np.int32))
    lv = np.full(5, 3, dtype=np.int64)
    cand = np.array([2, 3, 4], dtype=np.int64)
    for mode, RR, cc in [(0, R, codes), (1, R, codes)]:
        s1, s2 = np.empty(4, dtype=np.int64), np.empty(4, dtype=np.int64)
        a = K.find_sepset(mode, RR, cc, lv, n, 0, 1, cand, 3, -1, 2, 0.05, s1)
        bb = K.find_sepset.py_func(mode, RR, cc, lv, n, 0, 1, cand, 3, -1, 2, 0.05, s2)
        assert a[0] == bb[0] and a[1] == pytest.approx(bb[1])
    wk, wo = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    S = np.array([2, 3], dtype=np.int64)
    assert K.g2_test(codes, lv, 0, 1, S, 2, wk, wo)[0] == pytest.approx(
        K.g2_test.py_func(codes, lv, 0, 1, S, 2, wk, wo)[0]
    )
    W1, W2 = np.zeros((1, b)), np.zeros((1, b))
    Y = np.where(y > 0, 1.0, -1.0)[:, None]
    K.ofs_dense(readonly(np.ascontiguousarray(X)), Y, W1, 0.2, 0.01, 2)
    K.ofs_dense.py_func(np.ascontiguousarray(X), Y, W2, 0.2, 0.01, 2)
    np.testing.assert_allclose(W1, W2)
    A = sp.csr_matrix(X)
    W3 = np.zeros((1, b))
    K.ofs_csr.py_func(A.data, A.indices.astype(np.int64), A.indptr.astype(np.int64), Y, W3, 0.2, 0.01, 2)
    np.testing.assert_allclose(W1, W3)


@pytest.mark.parametrize("binary", [True, False])
def test_fista_kernel_equals_its_python_body(binary):
    rng = np.random.default_rng(1)
    XA = rng.normal(size=(30, 4))
    k = 1 if binary else 3
    lab = rng.integers(0, 2 if binary else 3, size=30)
    Y = lab[:, None].astype(float) if binary else np.eye(3)[lab]
    out = []
    for f in (K.fista_l1_logistic, K.fista_l1_logistic.py_func):
        W, b = np.zeros((4, k)), np.zeros(k)
        it, viol = f(XA, Y, W, b, 0.02, 0.5, 1e-9, 3000, binary)
        out.append((W, b, it, viol))
    np.testing.assert_allclose(out[0][0], out[1][0], atol=1e-12)
    assert out[0][2] == out[1][2] and out[0][3] <= 1e-9


@pytest.mark.parametrize("dof", [1, 2, 5, 30, 200])
def test_chi2_sf_and_g2_match_scipy(dof):
    xs = chi2.isf([0.9, 0.5, 0.05, 1e-6], dof)
    for x in xs:
        assert K.chi2_sf(x, dof) == pytest.approx(chi2.sf(x, dof), rel=1e-9, abs=1e-15)
        assert K.chi2_sf.py_func(x, dof) == pytest.approx(chi2.sf(x, dof), rel=1e-9, abs=1e-15)
    rng = np.random.default_rng(dof)
    D = rng.integers(0, 3, size=(80, 4))
    D[:, 1] = (D[:, 0] + rng.integers(0, 2, size=80)) % 3
    codes, lv = np.asfortranarray(D.astype(np.int32)), np.full(4, 3, dtype=np.int64)
    wk, wo = np.empty(80, dtype=np.int64), np.empty(80, dtype=np.int64)
    for S in ([], [2], [2, 3]):
        got = K.g2_test(codes, lv, 0, 1, np.array(S + [0], dtype=np.int64), len(S), wk, wo)[0]
        assert got == pytest.approx(g2_p(D, 0, 1, S), rel=1e-9)


# ----------------------------------------------------------------------------- errors & conventions
@pytest.mark.parametrize(
    "est,match",
    [
        (
            AlphaInvesting(w0=0),
            r"The 'w0' parameter of AlphaInvesting must be a float in the range \(0.0, inf\)\. Got 0",
        ),
        (
            AlphaInvesting(dw=-1.0),
            r"The 'dw' parameter of AlphaInvesting must be a float in the range \[0.0, inf\)\. Got -1.0",
        ),
        (
            OSFS(alpha=1.5),
            r"The 'alpha' parameter of OSFS must be a float in the range \(0.0, 1.0\)\. Got 1.5",
        ),
        (
            FastOSFS(max_k=-1),
            r"The 'max_k' parameter of FastOSFS must be an int in the range \[0, inf\)\. Got -1",
        ),
        (
            OSFS(data="text"),
            r"The 'data' parameter of OSFS must be a str among \{.*'auto'.*\}\. Got 'text' instead",
        ),
        (
            Grafting(lam=0.0),
            r"The 'lam' parameter of Grafting must be a float in the range \(0.0, inf\)\. Got 0.0",
        ),
        (
            OFS(n_features=0),
            r"The 'n_features' parameter of OFS must be an int in the range \[1, inf\)\. Got 0",
        ),
        (OFS(eta=-1), r"The 'eta' parameter of OFS must be a float in the range \(0.0, inf\)\. Got -1"),
    ],
)
def test_errors_name_the_parameter_and_value(est, match):
    X, y = clustered(seed=0)
    with pytest.raises(ValueError, match=match):
        est.fit(X, y)


def test_discrete_max_k_guard():
    X, y = clustered(n=60, discrete=True)
    with pytest.raises(ValueError, match="'max_k' is too large for the G\\^2 test's stratum keys"):
        OSFS(max_k=20).fit(X, y)


def test_single_class_and_history_order_errors():
    X, y = clustered(seed=0)
    with pytest.raises(ValueError, match="single value \\(1 class\\)"):
        OSFS().fit(X, np.zeros(len(y)))
    h = AlphaInvesting().fit(X, y).history_
    assert isinstance(h, StreamHistory) and len(h) == X.shape[1]
    with pytest.raises(ValueError, match="must be a permutation of all"):
        h.set_sizes([0, 1])
    with pytest.raises(ValueError, match="'order' must be a 1-D array of feature indices"):
        h.outcomes([99])


@parametrize_with_checks(
    [AlphaInvesting(), OSFS(), FastOSFS(), Grafting(max_iter=300), OFS()],  # fewer FISTA steps: speed only
    expected_failed_checks=lambda est: (
        {}
        if isinstance(est, OFS)
        else {
            # partial_fit consumes NEW feature columns (like SAOLA): a different number of
            # columns on the next call is the intended use, not an error
            "check_n_features_in_after_fitting": "partial_fit takes newly arriving feature columns",
        }
    ),
)
def test_sklearn_conventions(estimator, check):
    check(estimator)
