"""CFS against a transcription that recomputes Hall's merit of every candidate subset from scratch."""

from functools import cache

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import mutual_info_score as sk_mutual_info_score
from sklearn.utils.estimator_checks import parametrize_with_checks

from fsviz.select import CFS, FCBF
from fsviz.stats.information import discretize


def mutual_info_score(a, b):
    """Plug-in MI (nats) from the joint histogram, sum p(a,b) log(p(a,b) / (p(a) p(b))) (checked
    against scikit-learn's below; a tenth of its cost, for the 250 pairs of each table)."""
    a = np.unique(a, return_inverse=True)[1].ravel()
    b = np.unique(b, return_inverse=True)[1].ravel()
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
        assert mutual_info_score(a, a) == pytest.approx(sk_mutual_info_score(a, a), abs=1e-12)


def su(a, b):
    """Symmetrical uncertainty 2 I(a;b) / (H(a) + H(b)) from the plug-in MI (H(a) = I(a;a))."""
    ha, hb = mutual_info_score(a, a), mutual_info_score(b, b)
    return 0.0 if ha + hb == 0 else 2.0 * mutual_info_score(a, b) / (ha + hb)


def merit(F, rcf, rff):
    """Survey eq. (84): k r_cf / sqrt(k + k (k-1) r_ff), with means over features and pairs."""
    k = len(F)
    r_cf = np.mean(rcf[F])
    r_ff = np.mean([rff[a, b] for i, a in enumerate(F) for b in F[i + 1 :]]) if k > 1 else 0.0
    return k * r_cf / np.sqrt(k + k * (k - 1) * r_ff)


@cache
def su_tables(seed, discrete):
    X, y = data(seed, discrete)
    codes = discretize(X).codes
    m = codes.shape[1]
    rcf = np.array([su(codes[:, j], y) for j in range(m)])
    rff = np.zeros((m, m))
    for a in range(m):
        for b in range(a + 1, m):
            rff[a, b] = rff[b, a] = su(codes[:, a], codes[:, b])
    return rcf, rff


def textbook_cfs(seed, discrete, n_features=None, patience=5):
    rcf, rff = su_tables(seed, discrete)
    m = rcf.shape[0]
    S, path = [], []
    best, best_len, stale = -np.inf, 0, 0
    for _ in range(m if n_features is None else n_features):
        cands = [f for f in range(m) if f not in S]
        M = np.array([merit([*S, f], rcf, rff) for f in cands])
        i = int(np.flatnonzero(M >= M.max() - 1e-12)[0])
        S.append(cands[i])
        path.append(M[i])
        if n_features is None:
            if M[i] > best + 1e-12:
                best, best_len, stale = M[i], len(S), 0
            else:
                stale += 1
                if stale >= patience:
                    break
    if n_features is None:
        S, path = S[:best_len], path[:best_len]
    return S, np.array(path), rcf


def data(seed, discrete, n=150):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, 4))
    X = np.column_stack(
        [Z[:, i % 4] + rng.uniform(0.2, 1.5) * rng.normal(size=n) for i in range(16)]
        + [rng.normal(size=n) for _ in range(6)]
    )
    y = (Z[:, 0] - Z[:, 1] + 0.5 * Z[:, 2] > 0).astype(int) + (Z[:, 3] > 1)
    if discrete:
        X = np.clip(np.round(X), -2, 2)
    return X, y


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("discrete", [True, False])
@pytest.mark.parametrize(("n_features", "patience"), [(None, 5), (None, 2), (8, 5)])
def test_matches_textbook(seed, discrete, n_features, patience):
    X, y = data(seed, discrete)
    est = CFS(n_features=n_features, patience=patience).fit(X, y)
    S, path, rcf = textbook_cfs(seed, discrete, n_features, patience)
    assert est.selected_.tolist() == S
    np.testing.assert_allclose(est.merit_, path, atol=1e-12)
    np.testing.assert_allclose(est.relevance_, rcf, atol=1e-12)
    if n_features is None:
        assert est.merit_[-1] == est.merit_.max()  # the best prefix is kept


def test_redundant_copy_and_noise_left_out():
    rng = np.random.default_rng(5)
    X = rng.integers(0, 4, size=(400, 12)).astype(float)
    X[:, 11] = X[:, 0]
    y = (X[:, 0] + X[:, 5] > 3).astype(int)
    sel = CFS().fit(X, y).selected_.tolist()
    assert sel[:2] in ([0, 5], [5, 0]) and 11 not in sel


def test_ranking_scores_sparse_and_fcbf_first_pick():
    X, y = data(4, True)
    est = CFS(n_features=5).fit(X, y)
    assert np.array_equal(np.argsort(est.ranking_)[:5], est.selected_)
    assert np.array_equal(np.argsort(-est.scores_, kind="stable")[:5], est.selected_)
    assert np.all(est.scores_ > 0) and est.transform(X).shape == (X.shape[0], 5)
    assert CFS(n_features=5).fit(sp.csr_matrix(X), y).selected_.tolist() == est.selected_.tolist()
    # both start from the feature of highest SU with the class
    assert est.selected_[0] == FCBF().fit(X, y).selected_[0]


def test_errors():
    X, y = data(0, True)
    with pytest.raises(ValueError, match=r"CFS: 'n_features' must be None or an int in \[1, 22\] .*got 23"):
        CFS(n_features=23).fit(X, y)  # the bound the data sets
    with pytest.raises(
        ValueError, match=r"'n_features' parameter of CFS must be an int in the range \[1, inf\) or None"
    ):
        CFS(n_features=0).fit(X, y)
    with pytest.raises(
        ValueError, match=r"The 'patience' parameter of CFS must be an int in the range \[1, inf\)"
    ):
        CFS(patience=0).fit(X, y)
    with pytest.raises(
        ValueError, match=r"The 'n_bins' parameter of CFS must be an int in the range \[2, inf\)"
    ):
        CFS(n_bins=1).fit(X, y)
    with pytest.raises(ValueError, match="CFS: 'y' must contain at least 2 classes"):
        CFS().fit(X, np.ones(X.shape[0]))
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        CFS().fit(Xn, y)


@parametrize_with_checks([CFS(), CFS(n_features=1)])
def test_sklearn_conventions(estimator, check):
    check(estimator)
