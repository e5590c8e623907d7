"""MIFS, CIFE, JMI, CMIM, ICAP, DISR against textbook transcriptions that recompute every term.

The reference computes each Shannon term from its definition on the empirical
distribution (conditional MI as the class-weighted MI within each class, I(f, s; Y) as
the MI of the pair's joint code with Y, ...) from a plug-in MI checked against
scikit-learn's ``mutual_info_score``, and re-evaluates the survey's criterion for every
candidate from the full selected set at every step. The engine instead accumulates joint
entropies incrementally.
"""

from functools import cache

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import mutual_info_score as sk_mutual_info_score
from sklearn.utils.estimator_checks import parametrize_with_checks

from fsviz.select import CIFE, CMIM, DISR, ICAP, JMI, MIFS, MRMR, info_select
from fsviz.stats.information import code_rows, discretize

SELECTORS = {"mifs": MIFS, "cife": CIFE, "jmi": JMI, "cmim": CMIM, "icap": ICAP, "disr": DISR}
TIE = 1e-10


def data(seed, discrete, n=150):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, 4))
    X = np.column_stack(
        [Z[:, i % 4] + rng.uniform(0.2, 1.5) * rng.normal(size=n) for i in range(18)]
        + [rng.normal(size=n) for _ in range(6)]
    )
    y = (Z[:, 0] - Z[:, 1] + 0.5 * Z[:, 2] > 0).astype(int) + (Z[:, 3] > 1)
    if discrete:
        X = np.clip(np.round(X), -2, 2)
    return X, y


def _ranks(a):
    """``np.unique(a, return_inverse=True)[1]``: the rank of each value among the distinct ones
    (by a lookup table for small non-negative integers, the codes here: a fraction of the cost)."""
    a = np.asarray(a).ravel()
    if a.dtype.kind in "iu" and a.size and a.min() >= 0 and a.max() < 1 << 16:
        present = np.bincount(a) > 0
        return (np.cumsum(present) - 1)[a]
    return np.unique(a, return_inverse=True)[1].ravel()


def mutual_info_score(a, b):
    """Plug-in MI (nats) from the joint histogram, sum p(a,b) log(p(a,b) / (p(a) p(b)))."""
    a, b = _ranks(a), _ranks(b)
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
        assert mutual_info_score(a * 0.5 - 3, b) == pytest.approx(sk_mutual_info_score(a, b), abs=1e-12)


def _joint(*cols):
    """One integer per row for the row's combination of values, in the rows' lexicographic order."""
    code = np.zeros(len(cols[0]), dtype=np.int64)
    for c in cols:
        r = _ranks(c)
        code = code * (int(r.max()) + 1) + r
    return code


def entropy(*cols):
    """Plug-in joint entropy (nats) of the given discrete columns."""
    c = np.bincount(_joint(*cols))
    c = c[c > 0]
    p = c / c.sum()
    return float(-(p * np.log(p)).sum())


def pair_code(a, b):
    return np.unique(_joint(a, b), return_inverse=True)[1].ravel()


def cond_mi_by_definition(a, b, c):
    """I(a; b | c) = sum_v p(c=v) I(a; b | c=v)."""
    return sum((c == v).mean() * sk_mutual_info_score(a[c == v], b[c == v]) for v in np.unique(c))


def cond_mi(a, b, c):
    """I(a; b | c) = H(a, c) + H(b, c) - H(a, b, c) - H(c): the definition's value (checked
    below) at a fraction of its cost, for the thousands of terms the criteria need."""
    return entropy(a, c) + entropy(b, c) - entropy(a, b, c) - entropy(c)


def test_conditional_mi_identity_equals_the_definition():
    rng = np.random.default_rng(3)
    for _ in range(20):
        a, b, c = rng.integers(0, 5, 120), rng.integers(0, 4, 120), rng.integers(0, 3, 120)
        b = np.where(rng.random(120) < 0.5, a % 4, b)  # dependent, so the value is not ~0
        assert cond_mi(a, b, c) == pytest.approx(cond_mi_by_definition(a, b, c), abs=1e-12)


@cache
def terms(seed, discrete):
    """Every pairwise Shannon term the criteria use, from the definitions."""
    X, y = data(seed, discrete)
    C = discretize(X, n_bins=10).codes
    m = C.shape[1]
    rel = np.array([mutual_info_score(C[:, f], y) for f in range(m)])
    red, cred, joint, hjoint, cmi_y = (np.zeros((m, m)) for _ in range(5))
    for f in range(m):
        for s in range(m):
            if f != s:
                cmi_y[f, s] = cond_mi(C[:, f], y, C[:, s])  # I(f; Y | s)
            if f < s:  # symmetric terms
                red[f, s] = red[s, f] = mutual_info_score(C[:, f], C[:, s])  # I(f; s)
                cred[f, s] = cred[s, f] = cond_mi(C[:, f], C[:, s], y)  # I(f; s | Y)
                joint[f, s] = joint[s, f] = mutual_info_score(pair_code(C[:, f], C[:, s]), y)  # I(f, s; Y)
                hjoint[f, s] = hjoint[s, f] = entropy(C[:, f], C[:, s], y)  # H(f, s, Y)
    return C, y, rel, red, cred, joint, hjoint, cmi_y


def textbook(seed, discrete, criterion, k, beta=1.0):
    """The survey's criterion re-evaluated for every candidate from the whole S at every step."""
    _, _, rel, red, cred, joint, hjoint, cmi_y = terms(seed, discrete)
    m = rel.shape[0]
    S = [int(np.flatnonzero(rel >= rel.max() - TIE)[0])]
    crit = [rel[S[0]]]
    while len(S) < k:
        cands = [f for f in range(m) if f not in S]
        J = []
        for f in cands:
            if criterion == "mifs":  # eq. (38)
                J.append(rel[f] - beta * sum(red[f, s] for s in S))
            elif criterion == "cife":  # eq. (42)
                J.append(rel[f] - sum(red[f, s] for s in S) + sum(cred[f, s] for s in S))
            elif criterion == "jmi":  # eq. (44)
                J.append(sum(joint[f, s] for s in S))
            elif criterion == "jmi45":  # eq. (45), Brown et al.'s form
                J.append(rel[f] - np.mean([red[f, s] for s in S]) + np.mean([cred[f, s] for s in S]))
            elif criterion == "cmim":  # eq. (46)
                J.append(min(cmi_y[f, s] for s in S))
            elif criterion == "cmim47":  # eq. (47)
                J.append(rel[f] - max(red[f, s] - cred[f, s] for s in S))
            elif criterion == "icap":  # eq. (50)
                J.append(rel[f] - sum(max(0.0, red[f, s] - cred[f, s]) for s in S))
            elif criterion == "disr":  # eq. (51)
                J.append(sum(joint[f, s] / hjoint[f, s] for s in S))
        J = np.array(J)
        i = int(np.flatnonzero(J >= J.max() - TIE)[0])
        S.append(cands[i])
        crit.append(J[i])
    return S, np.array(crit), rel


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("discrete", [True, False])
@pytest.mark.parametrize("criterion", list(SELECTORS))
def test_matches_textbook(criterion, seed, discrete):
    X, y = data(seed, discrete)
    est = SELECTORS[criterion](n_features=7).fit(X, y)
    S, crit, rel = textbook(seed, discrete, criterion, 7)
    assert est.selected_.tolist() == S
    np.testing.assert_allclose(est.criterion_, crit, atol=1e-10)
    np.testing.assert_allclose(est.relevance_, rel, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize(("criterion", "other_form"), [("jmi", "jmi45"), ("cmim", "cmim47")])
def test_equivalent_forms_select_the_same(criterion, other_form, seed):
    """Survey: JMI eq. (44) == eq. (45) and CMIM eq. (46) == eq. (47) up to constants."""
    X, y = data(seed, False)
    est = SELECTORS[criterion](n_features=7).fit(X, y)
    assert est.selected_.tolist() == textbook(seed, False, other_form, 7)[0]


@pytest.mark.parametrize("beta", [0.0, 0.3, 2.0])
def test_mifs_beta(beta):
    X, y = data(3, False)
    codes = discretize(X)
    est = MIFS(beta=beta, n_features=6).fit(X, y)
    assert est.selected_.tolist() == info_select(codes, y, 6, "mifs", beta=beta)[0].tolist()
    if beta == 0.0:  # MIM: decreasing relevance
        assert est.selected_.tolist() == np.argsort(-est.relevance_, kind="stable")[:6].tolist()


def test_documented_relations():
    """MIFS(beta=1) and mRMR agree while |S| = 1; CIFE, JMI and CMIM all maximise I(f; Y | s1) at step 2."""
    for seed in range(4):
        X, y = data(seed, False)
        mifs, mrmr = MIFS(n_features=2).fit(X, y), MRMR(n_features=2).fit(X, y)
        assert mifs.selected_.tolist() == mrmr.selected_.tolist()
        second = {SELECTORS[c](n_features=2).fit(X, y).selected_[1] for c in ("cife", "jmi", "cmim")}
        assert len(second) == 1


@pytest.mark.parametrize("criterion", list(SELECTORS))
def test_ranking_scores_sparse(criterion):
    X, y = data(4, True)
    est = SELECTORS[criterion](n_features=5).fit(X, y)
    assert np.array_equal(np.argsort(est.ranking_)[:5], est.selected_)
    assert sorted(est.ranking_) == list(range(1, X.shape[1] + 1))
    assert np.array_equal(np.argsort(-est.scores_, kind="stable")[:5], est.selected_)
    assert np.all(est.scores_ > 0) and np.all(np.isfinite(est.scores_))
    assert est.transform(X).shape == (X.shape[0], 5)
    assert est.get_support(indices=True).tolist() == sorted(est.selected_.tolist())
    b = SELECTORS[criterion](n_features=5).fit(sp.csr_matrix(X), y)
    assert b.selected_.tolist() == est.selected_.tolist()
    np.testing.assert_allclose(b.criterion_, est.criterion_, atol=1e-12)


@pytest.mark.parametrize("criterion", list(SELECTORS))
def test_duplicate_not_selected_twice(criterion):
    rng = np.random.default_rng(5)
    X = rng.integers(0, 4, size=(300, 10)).astype(float)
    X[:, 9] = X[:, 0]
    y = (X[:, 0] + X[:, 5] > 3).astype(int)
    sel = set(SELECTORS[criterion](n_features=2).fit(X, y).selected_.tolist())
    assert not {0, 9} <= sel


@pytest.mark.parametrize("criterion", list(SELECTORS))
def test_errors(criterion):
    cls = SELECTORS[criterion]
    X, y = data(0, True)
    with pytest.raises(ValueError, match=rf"{cls.__name__}: 'n_features' must be an int in \[1, 24\]"):
        cls(n_features=25).fit(X, y)
    with pytest.raises(
        ValueError, match=rf"The 'n_features' parameter of {cls.__name__} must be an int in the range"
    ):
        cls(n_features=0).fit(X, y)
    with pytest.raises(
        ValueError, match=rf"The 'n_bins' parameter of {cls.__name__} must be an int in the range \[2"
    ):
        cls(n_bins=1).fit(X, y)
    with pytest.raises(ValueError, match=rf"{cls.__name__}: 'y' must contain at least 2 classes"):
        cls().fit(X, np.zeros(X.shape[0]))
    Xn = X.copy()
    Xn[3, 2] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        cls().fit(Xn, y)
    with pytest.raises(ValueError, match="needs class labels; y looks continuous"):
        cls().fit(X, np.linspace(0, 1, X.shape[0]))


def test_mifs_beta_error():
    X, y = data(0, True)
    for bad in (-0.5, np.nan, "1"):
        with pytest.raises(
            ValueError, match=r"The 'beta' parameter of MIFS must be a float in the range \[0.0, inf\)"
        ):
            MIFS(beta=bad).fit(X, y)


def test_info_select_unknown_criterion():
    X, y = data(0, True)
    with pytest.raises(ValueError, match="'criterion' must be one of"):
        info_select(discretize(X), y, 3, "mim")


@parametrize_with_checks([cls(n_features=1) for cls in SELECTORS.values()])
def test_sklearn_conventions(estimator, check):
    check(estimator)


def test_kernel_equals_python_body_and_definition():
    from fsviz.select._mi_kernels import joint_entropies_with

    X, y = data(6, False, n=200)
    c = discretize(X)
    cands = np.arange(1, X.shape[1])
    a2 = c.codes[:, 0].astype(np.int64)  # 10 x 10 table <= n: table sweep
    a3 = a2 * 3 + y  # 30 x 10 table > n: emptied through the samples
    for a, ka in ((a2, 10), (a3, 30)):
        got = joint_entropies_with(a, ka, c.rows, c.k, cands)
        np.testing.assert_allclose(got, joint_entropies_with.py_func(a, ka, c.rows, c.k, cands), atol=1e-12)
        want = [entropy(a, c.codes[:, j]) for j in cands]
        np.testing.assert_allclose(got, want, atol=1e-12)
    # a table beyond 2**22 cells: the sort-based fallback
    rng = np.random.default_rng(0)
    codes = np.asfortranarray(rng.integers(0, 3000, size=(500, 2)).astype(np.int32))
    k = np.array([3000, 3000], dtype=np.int64)
    a = rng.integers(0, 2000, size=500).astype(np.int64)
    got = joint_entropies_with(a, 2000, code_rows(codes), k, np.arange(2))
    np.testing.assert_allclose(got, [entropy(a, codes[:, j]) for j in range(2)], atol=1e-12)
    want = joint_entropies_with.py_func(a, 2000, code_rows(codes), k, np.arange(2))
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_coil20_all_criteria(skfeature_path):
    """Real data: 20 features of each criterion on COIL20 (1440 x 1024, 20 classes)."""
    from fsviz.data import load_dataset

    ds = load_dataset(skfeature_path("COIL20"))
    runs = {c: cls(n_features=20).fit(ds.X, ds.y) for c, cls in SELECTORS.items()}
    first = {int(r.selected_[0]) for r in runs.values()}
    assert first == {int(np.argmax(runs["mifs"].relevance_))}
    assert len({int(runs[c].selected_[1]) for c in ("cife", "jmi", "cmim")}) == 1
    for r in runs.values():
        assert len(set(r.selected_.tolist())) == 20 and np.all(np.isfinite(r.criterion_))


@pytest.mark.parametrize("criterion", list(SELECTORS))
def test_constant_feature_selected_only_last(criterion):
    """MIFS/CIFE/ICAP would give a constant feature J = 0 > the negative J of redundant ones,
    and DISR would favour it through its normalisation; it comes after every other feature."""
    X, y = data(1, True)
    X = np.c_[np.full(X.shape[0], 2.0), X]  # feature 0 constant
    m = X.shape[1]
    assert SELECTORS[criterion](n_features=m).fit(X, y).selected_[-1] == 0
    assert 0 not in MIFS(n_features=m - 1).fit(X, y).selected_
