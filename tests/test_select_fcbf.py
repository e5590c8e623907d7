"""FCBF against a literal transcription of Yu & Liu (2003), Fig. 1."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import entropy
from sklearn.metrics import mutual_info_score as sk_mutual_info_score
from sklearn.utils.estimator_checks import parametrize_with_checks

from fsviz.select import FCBF
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


def su(a, b):
    ha, hb = entropy(np.bincount(a)), entropy(np.bincount(np.unique(b, return_inverse=True)[1]))
    return 0.0 if ha + hb == 0 else 2 * mutual_info_score(a, b) / (ha + hb)


def brute_fcbf(codes, y, delta):
    m = codes.shape[1]
    suc = np.array([su(codes[:, j], y) for j in range(m)])
    lst = [j for j in sorted(range(m), key=lambda j: (-suc[j], j)) if suc[j] >= delta]
    p_i = 0
    while p_i < len(lst):
        p = lst[p_i]
        q_i = p_i + 1
        while q_i < len(lst):
            q = lst[q_i]
            if su(codes[:, p], codes[:, q]) >= suc[q]:
                lst.pop(q_i)
            else:
                q_i += 1
        p_i += 1
    return lst, suc


def data(seed, discrete):
    rng = np.random.default_rng(seed)
    n = 200
    Z = rng.normal(size=(n, 5))
    X = np.column_stack(
        [Z[:, i % 5] + rng.uniform(0.1, 1.2) * rng.normal(size=n) for i in range(30)]
        + [rng.normal(size=n) for _ in range(10)]
    )
    y = (Z[:, 0] + Z[:, 1] - Z[:, 2] > 0).astype(int)
    if discrete:
        X = np.clip(np.round(X), -2, 2)
    return X, y


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("discrete", [True, False])
@pytest.mark.parametrize("delta", [0.0, 0.05])
def test_matches_yu_liu_pseudocode(seed, discrete, delta):
    X, y = data(seed, discrete)
    est = FCBF(delta=delta).fit(X, y)
    codes = discretize(X, n_bins=10).codes
    want, suc = brute_fcbf(codes, y, delta)
    assert est.selected_.tolist() == want
    np.testing.assert_allclose(est.relevance_, suc, atol=1e-12)


def test_redundant_with_is_consistent():
    X, y = data(3, False)
    est = FCBF().fit(X, y)
    codes = discretize(X).codes
    for q in np.flatnonzero(est.redundant_with_ >= 0):
        p = est.redundant_with_[q]
        assert p in est.selected_
        assert est.relevance_[p] >= est.relevance_[q]
        assert su(codes[:, p], codes[:, q]) >= est.relevance_[q] - 1e-12
    assert np.all(est.redundant_with_[est.selected_] == -1)


def test_duplicate_removed_and_threshold():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(300, 20)).astype(float)
    X[:, 15] = X[:, 2]
    y = (X[:, 2] + X[:, 7] > 2).astype(int)
    est = FCBF().fit(X, y)
    assert 2 in est.selected_ and 15 not in est.selected_ and est.redundant_with_[15] == 2
    hi = FCBF(delta=0.5).fit(X, y)
    assert np.all(hi.relevance_[hi.selected_] >= 0.5)


def test_ranking_scores_sparse():
    X, y = data(4, True)
    est = FCBF().fit(X, y)
    k = est.selected_.shape[0]
    assert np.array_equal(np.argsort(est.ranking_)[:k], est.selected_)
    assert np.all(np.diff(est.relevance_[est.selected_]) <= 0)
    assert np.all(np.isfinite(est.scores_)) and np.all(est.scores_ > 0)
    b = FCBF().fit(sp.csc_matrix(X), y)
    assert b.selected_.tolist() == est.selected_.tolist()


def test_errors():
    X, y = data(0, True)
    with pytest.raises(
        ValueError, match=r"The 'delta' parameter of FCBF must be a float in the range \[0.0, 1.0\)"
    ):
        FCBF(delta=1.0).fit(X, y)
    with pytest.raises(
        ValueError, match=r"The 'n_bins' parameter of FCBF must be an int in the range \[2, inf\)"
    ):
        FCBF(n_bins=0).fit(X, y)


@parametrize_with_checks([FCBF()])
def test_sklearn_conventions(estimator, check):
    check(estimator)
