"""mRMR (MID) against a brute-force transcription that recomputes every MI from scratch."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import mutual_info_score as sk_mutual_info_score
from sklearn.utils.estimator_checks import parametrize_with_checks

from fsviz.select import MRMR
from fsviz.stats.information import discretize


def mutual_info_score(a, b):
    """Textbook plug-in MI (nats) from the joint histogram; equals scikit-learn's (checked below)."""
    a = np.unique(a, return_inverse=True)[1]
    b = np.unique(b, return_inverse=True)[1]
    P = np.bincount(a * (b.max() + 1) + b, minlength=(a.max() + 1) * (b.max() + 1)).reshape(a.max() + 1, -1)
    P = P / P.sum()
    pa, pb = P.sum(1, keepdims=True), P.sum(0, keepdims=True)
    nz = P > 0
    return float(np.sum(P[nz] * np.log(P[nz] / (pa @ pb)[nz])))


def test_reference_mi_equals_sklearn():
    rng = np.random.default_rng(0)
    for _ in range(5):
        a, b = rng.integers(0, 5, 100), rng.integers(0, 3, 100)
        assert mutual_info_score(a, b) == pytest.approx(sk_mutual_info_score(a, b), abs=1e-12)


def brute_mrmr(codes, y, k):
    """Every step recomputes J(f) = I(f;y) - mean_{s in S} I(f;s) for every candidate from a table
    of all pairwise MI values (scikit-learn's mutual_info_score)."""
    m = codes.shape[1]
    rel = np.array([mutual_info_score(codes[:, j], y) for j in range(m)])
    P = np.zeros((m, m))
    for a in range(m):
        for b in range(a + 1, m):
            P[a, b] = P[b, a] = mutual_info_score(codes[:, a], codes[:, b])
    S = [int(np.argmax(rel))]
    crit = [rel[S[0]]]
    while len(S) < k:
        best, bj = -np.inf, -1
        for j in range(m):
            if j in S:
                continue
            J = rel[j] - np.mean([P[j, s] for s in S])
            if J > best + 1e-12:
                best, bj = J, j
        S.append(bj)
        crit.append(best)
    return S, np.array(crit), rel


def data(seed, discrete):
    rng = np.random.default_rng(seed)
    n = 150
    Z = rng.normal(size=(n, 4))
    X = np.column_stack(
        [Z[:, i % 4] + rng.uniform(0.2, 1.5) * rng.normal(size=n) for i in range(24)]
        + [rng.normal(size=n) for _ in range(6)]
    )
    y = (Z[:, 0] - Z[:, 1] + 0.5 * Z[:, 2] > 0).astype(int) + (Z[:, 3] > 1)
    if discrete:
        X = np.clip(np.round(X), -2, 2)
    return X, y


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("discrete", [True, False])
def test_matches_brute_force(seed, discrete):
    X, y = data(seed, discrete)
    est = MRMR(n_features=8).fit(X, y)
    codes = discretize(X, n_bins=10).codes
    S, crit, rel = brute_mrmr(codes, y, 8)
    assert est.selected_.tolist() == S
    np.testing.assert_allclose(est.criterion_, crit, atol=1e-10)
    np.testing.assert_allclose(est.relevance_, rel, atol=1e-12)


def test_ranking_and_scores_follow_selection(rng):
    X, y = data(3, False)
    est = MRMR(n_features=5).fit(X, y)
    assert np.array_equal(np.argsort(est.ranking_)[:5], est.selected_)
    assert sorted(est.ranking_) == list(range(1, X.shape[1] + 1))
    assert np.array_equal(np.argsort(-est.scores_, kind="stable")[:5], est.selected_)
    assert np.all(est.scores_ > 0) and np.all(np.isfinite(est.scores_))
    rest = np.argsort(est.ranking_)[5:]
    assert np.all(np.diff(est.relevance_[rest]) <= 0)
    assert est.transform(X).shape == (X.shape[0], 5)


def test_redundant_copy_not_selected_twice():
    rng = np.random.default_rng(5)
    X = rng.integers(0, 4, size=(300, 10)).astype(float)
    X[:, 9] = X[:, 0]
    y = (X[:, 0] + X[:, 5] > 3).astype(int)
    sel = MRMR(n_features=2).fit(X, y).selected_
    assert set(sel.tolist()) in ({0, 5}, {9, 5}) and not {0, 9} <= set(sel.tolist())


def test_sparse_equals_dense():
    X, y = data(4, True)
    a = MRMR(n_features=6).fit(X, y)
    b = MRMR(n_features=6).fit(sp.csr_matrix(X), y)
    assert a.selected_.tolist() == b.selected_.tolist()


def test_errors():
    X, y = data(0, True)
    with pytest.raises(ValueError, match=r"'n_features' must be an int in \[1, 30\]"):
        MRMR(n_features=31).fit(X, y)
    with pytest.raises(
        ValueError, match=r"The 'n_features' parameter of MRMR must be an int in the range \[1, inf\)"
    ):
        MRMR(n_features=0).fit(X, y)
    with pytest.raises(
        ValueError, match=r"The 'n_bins' parameter of MRMR must be an int in the range \[2, inf\)"
    ):
        MRMR(n_bins=1).fit(X, y)
    with pytest.raises(ValueError, match="needs class labels; y looks continuous"):
        MRMR().fit(X, np.linspace(0, 1, X.shape[0]))


@parametrize_with_checks([MRMR(n_features=1)])
def test_sklearn_conventions(estimator, check):
    check(estimator)


def test_kernel_equals_python_body():
    from fsviz.select._mi_kernels import mi_su_one_vs_many

    X, _y = data(6, False)
    c = discretize(X)
    h = c.entropies()
    cands = np.arange(1, X.shape[1])
    for su_flag in (False, True):
        np.testing.assert_allclose(
            mi_su_one_vs_many(c.codes, c.k, h, 0, cands, su_flag),
            mi_su_one_vs_many.py_func(c.codes, c.k, h, 0, cands, su_flag),
            atol=1e-12,
        )
