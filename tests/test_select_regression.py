"""Selectors with a continuous target: F-regression, binned MI, RReliefF, |Pearson|/|Spearman|,
SAOLA's Fisher Z path, and the clear error of every score without a regression form."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import norm, spearmanr
from sklearn.feature_selection import f_classif, f_regression, mutual_info_regression, r_regression
from sklearn.metrics import mutual_info_score as sk_mi
from sklearn.utils.estimator_checks import parametrize_with_checks

from fsviz._targets import check_class_target, target_kind
from fsviz.select import (
    CFS,
    FCBF,
    GDM,
    JMI,
    MRMR,
    SAOLA,
    ChiSquare,
    FisherScore,
    FScore,
    GiniIndex,
    GroupSAOLA,
    MutualInfo,
    PearsonScore,
    ReliefF,
    SpearmanScore,
    TScore,
    correlation_score,
    f_regression_score,
    mutual_info_score,
    relieff_score,
)
from fsviz.select.scores import bin_target
from fsviz.stats.information import discretize

PLANTED = (3, 7, 11)


def planted(n=300, m=40, noise=0.5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, m))
    y = 2.0 * X[:, 3] - 1.5 * X[:, 7] + 1.0 * X[:, 11] + noise * rng.normal(size=n)
    return X, y


# ------------------------------------------------------------------ the target rule
def test_target_kind_follows_type_of_target():
    assert target_kind(np.array([0.0, 1.0, 2.0, 1.0])) == "classes"  # whole-number floats: classes
    assert target_kind(np.array(["a", "b"])) == "classes"
    assert target_kind(np.array([0.5, 1.0, 2.0])) == "continuous"
    assert target_kind(None) is None
    with pytest.raises(ValueError, match="multilabel-indicator"):
        target_kind(np.array([[0, 1], [1, 0]]))
    with pytest.raises(ValueError, match="needs class labels; y looks continuous"):
        check_class_target("X", np.array([0.5, 1.5]))


def test_float_labels_with_few_values_stay_classes():
    X, y = planted()
    yc = np.digitize(y, [-1.0, 1.0]).astype(np.float64)  # 0., 1., 2.: three classes
    np.testing.assert_allclose(FScore(n_features=None).fit(X, yc).scores_, f_classif(X, yc)[0], rtol=1e-9)


# ------------------------------------------------------------------ F-regression
@pytest.mark.parametrize("sparse", [False, True])
def test_fscore_equals_sklearn_f_regression(sparse):
    X, y = planted()
    X[:, 5] = 0.0  # constant -> 0 (scikit-learn: force_finite gives 0 too)
    Xin = sp.csr_matrix(np.where(np.abs(X) > 0.8, X, 0.0)) if sparse else X
    ref = f_regression(Xin, y)[0]
    got = FScore(n_features=None).fit(Xin, y).scores_
    np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(f_regression_score(Xin, y), ref, rtol=1e-9, atol=1e-12)


def test_fscore_regression_needs_three_samples_and_a_varying_target():
    with pytest.raises(ValueError, match="at least 3 samples"):
        f_regression_score(np.array([[0.0], [1.0]]), np.array([0.5, 1.5]))
    with pytest.raises(ValueError, match="constant"):
        correlation_score(np.eye(3), np.array([0.5, 0.5, 0.5]))


# ------------------------------------------------------------------ correlations
@pytest.mark.parametrize("sparse", [False, True])
def test_pearson_and_spearman_against_references(sparse):
    X, y = planted(n=120, m=12)
    X[:, 4] = np.round(X[:, 4])  # ties in a feature
    X[:, 9] = 1.0
    Xin = sp.csc_matrix(np.where(np.abs(X) > 0.5, X, 0.0)) if sparse else X
    Xd = Xin.toarray() if sparse else Xin
    pear = PearsonScore(n_features=None).fit(Xin, y).scores_
    ref = np.where(np.ptp(Xd, axis=0) > 0, np.abs(r_regression(Xd, y, force_finite=False)), 0.0)
    np.testing.assert_allclose(pear, ref, atol=1e-12)
    spear = SpearmanScore(n_features=None).fit(Xin, y).scores_
    ref = [abs(spearmanr(Xd[:, j], y).statistic) if np.ptp(Xd[:, j]) > 0 else 0.0 for j in range(Xd.shape[1])]
    np.testing.assert_allclose(spear, ref, atol=1e-12)


def test_correlation_scores_binary_ok_multiclass_refused():
    X, y = planted()
    yb = (y > 0).astype(int)
    pb = PearsonScore(n_features=None).fit(X, yb).scores_
    ref = [abs(np.corrcoef(X[:, j], yb)[0, 1]) for j in range(X.shape[1])]
    np.testing.assert_allclose(pb, ref, atol=1e-12)
    with pytest.raises(ValueError, match="ordered target .* got 3 classes"):
        SpearmanScore().fit(X, np.digitize(y, [-1.0, 1.0]))
    with pytest.raises(ValueError, match="'method' must be 'pearson' or 'spearman'"):
        correlation_score(X, y, method="kendall")


# ------------------------------------------------------------------ MI (binned)
def test_mi_regression_is_the_plugin_mi_of_the_binned_pair():
    X, y = planted(n=200, m=12)
    X = X[:, 2:8]
    got = mutual_info_score(X, y, n_bins=8)
    xc = discretize(X, 8, "uniform").codes
    yc = bin_target(y, 8)
    assert np.bincount(yc).tolist() == [25] * 8  # equal-frequency bins
    np.testing.assert_allclose(got, [sk_mi(xc[:, j], yc) for j in range(6)], atol=1e-12)
    np.testing.assert_allclose(MutualInfo(n_bins=8, n_features=None).fit(X, y).scores_, got)


def test_mi_regression_ranks_like_sklearn_kraskov_on_planted_signal():
    X, y = planted(n=400, m=30)
    ours = MutualInfo(n_features=3).fit(X, y)
    ref = mutual_info_regression(X, y, random_state=0)
    assert set(ours.get_support(indices=True)) == set(np.argsort(-ref)[:3]) == set(PLANTED)
    assert spearmanr(ours.scores_, ref).statistic > 0.5


# ------------------------------------------------------------------ RReliefF
def rrelieff_reference(X, y, k):
    """Robnik-Sikonja & Kononenko (2003), Fig. 6, line by line, d(i, j) = 1/k, all instances."""
    n, m = X.shape
    rng_ = X.max(0) - X.min(0)
    diffA = lambda a, i, j: 0.0 if rng_[a] == 0 else abs(X[i, a] - X[j, a]) / rng_[a]  # noqa: E731
    diffC = lambda i, j: abs(y[i] - y[j]) / (y.max() - y.min())  # noqa: E731
    n_dc, n_da, n_dcda = 0.0, np.zeros(m), np.zeros(m)
    for i in range(n):
        dist = [sum(diffA(a, i, j) for a in range(m)) for j in range(n)]
        order = [j for j in np.argsort(np.round(dist, 9), kind="stable") if j != i][:k]
        for j in order:
            d = 1.0 / k
            n_dc += diffC(i, j) * d
            for a in range(m):
                n_da[a] += diffA(a, i, j) * d
                n_dcda[a] += diffC(i, j) * diffA(a, i, j) * d
    return n_dcda / n_dc - (n_da - n_dcda) / (n - n_dc)


@pytest.mark.parametrize("seed", [0, 1])
def test_rrelieff_equals_plain_transcription(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(30, 5))
    X[:, 2] = np.round(X[:, 2])  # ties
    X[:, 4] = 3.0  # constant
    y = X[:, 0] - X[:, 1] ** 2 + 0.1 * rng.normal(size=30)
    ref = rrelieff_reference(X, y, k=4)
    np.testing.assert_allclose(relieff_score(X, y, n_neighbors=4), ref, atol=1e-12)
    np.testing.assert_allclose(relieff_score(sp.csr_matrix(X), y, n_neighbors=4), ref, atol=1e-12)
    assert ReliefF(n_neighbors=4, n_features=None).fit(X, y).scores_[4] == 0.0


def test_rrelieff_sampled_instances_are_seeded():
    X, y = planted(n=200, m=12)
    a = ReliefF(n_iterations=50, random_state=3, n_features=None).fit(X, y).scores_
    b = ReliefF(n_iterations=50, random_state=3, n_features=None).fit(X, y).scores_
    np.testing.assert_array_equal(a, b)


# ------------------------------------------------------------------ planted signal
@pytest.mark.parametrize(
    "est",
    [FScore(n_features=3), MutualInfo(n_features=3), ReliefF(n_features=3), PearsonScore(n_features=3)]
    + [SpearmanScore(n_features=3)],
    ids=lambda e: type(e).__name__,
)
def test_planted_signal_recovered(est):
    X, y = planted()
    assert set(est.fit(X, y).get_support(indices=True)) == set(PLANTED)


def test_spearman_sees_a_monotone_signal_pearson_underrates():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 10))
    y = np.exp(3 * X[:, 6]) + 0.01 * rng.normal(size=300)
    s = SpearmanScore(n_features=None).fit(X, y).scores_
    p = PearsonScore(n_features=None).fit(X, y).scores_
    assert np.argmax(s) == 6 and s[6] > 0.99 and p[6] < 0.8


# ------------------------------------------------------------------ scores without a regression form
@pytest.mark.parametrize(
    "est",
    [
        FisherScore(),
        ChiSquare(),
        TScore(),
        GiniIndex(),
        MRMR(n_features=2),
        JMI(n_features=2),
        FCBF(),
        CFS(),
    ],
    ids=lambda e: type(e).__name__,
)
def test_scores_without_regression_form_say_so(est):
    X, y = planted(n=60, m=12)
    msg = r"needs class labels; y looks continuous \(type_of_target='continuous'\)"
    with pytest.raises(ValueError, match=msg):
        est.fit(np.abs(X), y)


# ------------------------------------------------------------------ SAOLA: Fisher's Z, continuous target
def saola_reference(X, y, alpha):
    """SAOLA Alg. 1 with Fisher's Z relevance test and |rho| (section 3.4.2), line by line."""
    n, m = X.shape
    rel, relevant = np.zeros(m), np.zeros(m, bool)
    for j in range(m):
        if np.ptp(X[:, j]) > 0:
            r = np.corrcoef(X[:, j], y)[0, 1]
            rel[j] = abs(r)
            relevant[j] = 2 * norm.sf(np.arctanh(min(abs(r), 1 - 1e-15)) * np.sqrt(n - 3)) <= alpha
    S = []
    for i in range(m):
        if not relevant[i]:
            continue
        redundant = False
        for Y in list(S):
            c = abs(np.corrcoef(X[:, i], X[:, Y])[0, 1])
            if rel[Y] >= rel[i] and c >= rel[i]:  # an earlier equal feature is the stronger one
                redundant = True
                break
            if rel[i] > rel[Y] and c >= rel[Y]:
                S.remove(Y)
        if not redundant:
            S.append(i)
    return S, rel


@pytest.mark.parametrize("discrete_features", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_saola_fisher_z_matches_transcription(seed, discrete_features):
    rng = np.random.default_rng(seed)
    n = 150
    base = rng.normal(size=(n, 6))
    X = np.column_stack([base + 0.4 * rng.normal(size=(n, 6)) for _ in range(3)] + [rng.normal(size=(n, 10))])
    X = X[:, rng.permutation(X.shape[1])]
    if discrete_features:  # integer features: "auto" would take SU; a continuous target forces Fisher's Z
        X = np.round(2 * X)
    y = base @ rng.normal(size=6) + 0.3 * rng.normal(size=n)
    sel = SAOLA(alpha=0.01).fit(X, y)
    ref, rel = saola_reference(X, y, 0.01)
    assert sel.data_ == "continuous"
    assert sel.selected_.tolist() == ref
    np.testing.assert_allclose(sel.scores_, rel, atol=1e-12)


def test_saola_discrete_mode_refuses_a_continuous_target():
    X, y = planted(n=80, m=12)
    X = X[:, :5]
    with pytest.raises(ValueError, match="data='discrete'.*needs class labels; y looks continuous"):
        SAOLA(data="discrete").fit(X, y)
    with pytest.raises(ValueError, match="needs class labels"):
        GroupSAOLA(data="discrete").fit(X, y, [[0, 1], [2, 3, 4]])


def test_saola_and_group_saola_recover_planted_signal():
    X, y = planted()
    assert set(SAOLA().fit(X, y).selected_) == set(PLANTED)
    g = GroupSAOLA().fit(X, y, [np.arange(s, min(s + 4, 40)) for s in range(0, 40, 4)])
    assert g.data_ == "continuous" and set(PLANTED) <= set(np.flatnonzero(g.get_support()))


def test_gdm_continuous_target_is_a_value_error():
    # GDM's regression form is another change; until it lands, a clear ValueError, never a crash
    X, y = planted(n=60, m=12)
    try:
        GDM(max_iter=2).fit(X, y)
    except ValueError as e:
        assert "continuous" in str(e)


@parametrize_with_checks([PearsonScore(n_features=2), SpearmanScore(n_features=2)])
def test_sklearn_conventions(estimator, check):
    check(estimator)
