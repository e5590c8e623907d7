import json
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import roc_auc_score
from sklearn.utils.estimator_checks import parametrize_with_checks

from fsviz.data import make_grouped_classification
from fsviz.select import GDM
from fsviz.select.gdm import _complete, _scan, _walk
from fsviz.select.gdm._state import theorem1_window
from fsviz.stats.information import discretize, su_cross


# ----------------------------------------------------------------------------- helpers
def _jaccard(a, b):
    a, b = set(np.asarray(a).tolist()), set(np.asarray(b).tolist())
    return len(a & b) / max(len(a | b), 1)


def _abs_corr(X):
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    Z = X - X.mean(axis=0)
    nrm = np.linalg.norm(Z, axis=0)
    safe = np.where(nrm > 0, nrm, 1.0)
    Z = Z / safe
    C = np.abs(Z.T @ Z)
    C[:, nrm == 0] = 0.0
    C[nrm == 0, :] = 0.0
    return C, nrm == 0


def _brute_groups(X, support, tau):
    """Every correlation computed: each non-SF feature joins its most correlated SF if >= 1 - tau."""
    C, const = _abs_corr(X)
    m = C.shape[0]
    groups = {int(s): [] for s in support}
    if tau == 0 or len(support) == 0:
        return {k: np.array(v, dtype=int) for k, v in groups.items()}
    sub = C[:, support]  # (m, p), columns in support_ order
    for k in range(m):
        if const[k] or k in groups:
            continue
        j = int(np.argmax(sub[k]))  # first maximum = SF found first
        if sub[k, j] >= 1 - tau:
            groups[int(support[j])].append((k, sub[k, j]))
    out = {}
    for s, lst in groups.items():
        lst.sort(key=lambda kv: (-kv[1], kv[0]))
        out[s] = np.array([k for k, _ in lst], dtype=int)
    return out


def _brute_walk(X, s_abs, eligible, existing, tau, need):
    """Alg. 2 with every correlation computed (no window): delta, new SFs, AF -> SF."""
    C, _ = _abs_corr(X)
    order = sorted(np.flatnonzero(eligible), key=lambda j: (-s_abs[j], j))
    sf = list(existing)
    delta, new, af = [], [], {}
    for z in order:
        if len(delta) >= need:
            break
        if z in sf:
            delta.append(z)
            continue
        if sf:
            r = C[z, sf]
            j = int(np.argmax(r))
            if r[j] >= 1 - tau:
                af[z] = sf[j]
                continue
        sf.append(z)
        new.append(z)
        delta.append(z)
    return delta, new, af


def _planted(n=150, m=120, seed=0, near=0.995):
    """Dense data with tight groups (|rho| ~ near) and looser ones, for window tests."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, m))
    for base in range(0, 60, 6):
        for k in range(1, 4):
            sign = -1.0 if k == 2 else 1.0
            X[:, base + k] = sign * (near * X[:, base] + np.sqrt(1 - near**2) * rng.standard_normal(n))
        X[:, base + 4] = 0.8 * X[:, base] + 0.6 * rng.standard_normal(n)
    X[:, 100] = 5.0  # constant
    y = (X[:, [0, 6, 12, 18]] @ np.array([1.0, -1.0, 0.8, 0.6]) + 0.3 * rng.standard_normal(n) > 0).astype(
        int
    )
    return X, y


@pytest.fixture(scope="module")
def synthetic():
    return make_grouped_classification()


# ----------------------------------------------------------------------------- CRM vs brute force
@pytest.mark.parametrize("tau", [0.05, 0.3, 0.5])
@pytest.mark.parametrize("sparse", [False, True])
def test_crm_walk_matches_brute_force(tau, sparse):
    X, _ = _planted()
    if sparse:
        X = X.copy()
        X[np.abs(X) < 0.3] = 0.0
        X = sp.csc_matrix(X)
    from fsviz.stats.moments import column_moments

    mean, norm = column_moments(X)
    const = norm == 0
    safe = np.where(const, 1.0, norm)
    rng = np.random.default_rng(1)
    v = rng.random(X.shape[0]) * rng.choice([-1.0, 1.0], X.shape[0])
    u = np.asarray(X.T @ v).ravel()
    t = np.where(const, 0.0, (u - mean * v.sum()) / safe)
    eligible = ~const
    state = _walk._SFState(X.shape[0], 40, "pearson")
    window = np.sqrt(2 * tau) * np.linalg.norm(v - v.mean()) * (1 + 1e-9)
    # two CRM calls: the second meets the SFs of the first again
    d1, n1, af1, own1, _, nc1 = _walk._crm_walk(
        X, None, mean, safe, np.abs(t), t, eligible, state, window, 1 - tau, 8
    )
    bd1, bn1, baf1 = _brute_walk(X, np.abs(t), eligible, [], tau, 8)
    assert d1 == bd1 and n1 == bn1
    got = {int(f): state.idx[o] for f, o in zip(af1, own1, strict=False)}
    assert got == baf1
    v2 = rng.standard_normal(X.shape[0])
    u2 = np.asarray(X.T @ v2).ravel()
    t2 = np.where(const, 0.0, (u2 - mean * v2.sum()) / safe)
    elig2 = eligible.copy()
    elig2[list(got)] = False
    existing = list(state.idx)
    window2 = np.sqrt(2 * tau) * np.linalg.norm(v2 - v2.mean()) * (1 + 1e-9)
    d2, n2, af2, own2, _, nc2 = _walk._crm_walk(
        X, None, mean, safe, np.abs(t2), t2, elig2, state, window2, 1 - tau, 8
    )
    bd2, bn2, baf2 = _brute_walk(X, np.abs(t2), elig2, existing, tau, 8)
    assert d2 == bd2 and n2 == bn2
    assert {int(f): state.idx[o] for f, o in zip(af2, own2, strict=False)} == baf2
    # the window prunes: fewer correlations than candidates x SFs would need
    assert nc1 + nc2 > 0


@pytest.mark.parametrize("tau", [0.02, 0.1, 0.3, 0.5])
@pytest.mark.parametrize("sparse", [False, True])
def test_groups_match_brute_force(tau, sparse):
    X, y = _planted(seed=2)
    if sparse:
        X = X.copy()
        X[np.abs(X) < 0.3] = 0.0
        X = sp.csr_matrix(X)
    g = GDM(tau=tau, n_per_iter=4, max_iter=4, block_size=37).fit(X, y)
    ref = _brute_groups(X, g.support_, tau)
    assert set(g.groups_) == set(ref)
    for s in ref:
        assert np.array_equal(g.groups_[s], ref[s]), (s, g.groups_[s], ref[s])
        assert np.all(g.group_corr_[s] >= 1 - tau)
    m = X.shape[1]
    # support features are mutually below the threshold (constraint (3))
    C, _ = _abs_corr(X)
    sub = C[np.ix_(g.support_, g.support_)]
    np.fill_diagonal(sub, 0)
    assert sub.max() < 1 - tau
    assert 0 < g.n_correlations_ < m * (m - 1) / 2


@pytest.mark.parametrize("sparse", [False, True])
def test_group_corr_is_abs_pearson_in_group_order(sparse):
    X, y = _planted(seed=4)
    if sparse:
        X = X.copy()
        X[np.abs(X) < 0.3] = 0.0
        X = sp.csr_matrix(X)
    g = GDM(tau=0.3, n_per_iter=4, max_iter=4, block_size=37).fit(X, y)
    Xd = X.toarray() if sp.issparse(X) else X
    assert g.group_corr_.keys() == g.groups_.keys()
    n_af, n_neg = 0, 0
    for s, afs in g.groups_.items():
        assert g.group_corr_[s].shape == afs.shape
        for af, val in zip(afs, g.group_corr_[s], strict=True):
            rho = np.corrcoef(Xd[:, af], Xd[:, s])[0, 1]
            assert val == pytest.approx(abs(rho), rel=1e-10, abs=1e-12), (s, af)
            n_af += 1
            n_neg += rho < 0
        assert np.all(np.diff(g.group_corr_[s]) <= 0)  # decreasing, like groups_[s]
    assert n_af > 0 and n_neg > 0  # anti-correlated AFs are reported by |rho|


def test_window_prunes_when_tau_is_small():
    rng = np.random.default_rng(0)
    n, m = 400, 4000
    X = rng.standard_normal((n, m))
    for b in range(0, 40, 4):
        X[:, b + 1] = 0.999 * X[:, b] + np.sqrt(1 - 0.999**2) * rng.standard_normal(n)
    y = (X[:, [0, 4, 8, 12, 16]].sum(axis=1) > 0).astype(int)
    g = GDM(tau=0.002, n_per_iter=5, max_iter=2).fit(X, y)
    assert g.n_correlations_ < 0.6 * len(g.support_) * m  # the window skipped most pairs
    ref = _brute_groups(X, g.support_, 0.002)
    assert sum(v.size for v in ref.values()) >= 5
    for s in ref:
        assert np.array_equal(g.groups_[s], ref[s])


# ----------------------------------------------------------------------------- the paper's benchmark
def test_synthetic_benchmark_recovers_groups(synthetic):
    X, y, truth = synthetic
    g = GDM(tau=0.3).fit(X, y)
    support = set(g.support_.tolist())
    assert set(truth.support.tolist()) <= support
    hits = sum(
        len(set(truth.groups[int(s)].tolist()) & set(g.groups_[int(s)].tolist())) for s in truth.support
    )
    assert hits >= 0.8 * truth.n_affiliated
    m = X.shape[1]
    assert g.n_correlations_ <= 1.1 * (len(g.support_) * m + 100 * len(g.support_))
    assert g.n_correlations_ < 0.05 * m * (m - 1) / 2
    assert g.scores_.shape == (m,) and np.all(np.isfinite(g.scores_)) and np.all(g.scores_ >= 0)
    # the learned sparse SVM predicts its training labels well
    assert np.mean(g.predict(X) == y) > 0.9


def test_tau_zero_forms_no_groups(synthetic):
    X, y, truth = synthetic
    g = GDM(tau=0.0, n_per_iter=6, max_iter=2).fit(X, y)
    assert all(v.size == 0 for v in g.groups_.values())
    assert g.n_correlations_ == 0
    # without the constraint the top scores win, affiliated copies included
    assert len(g.support_) >= 6


def test_objective_history_monotone_and_converges():
    X, y = _planted(seed=4)
    g = GDM(tau=0.3, n_per_iter=2, max_iter=40, C=0.05, tol=1e-3).fit(X, y)
    h = g.objective_history_
    assert h.size == g.n_iter_ >= 2
    assert np.all(np.diff(h) >= -1e-6 * h[1:])  # Theorem 2: lower bounds increase
    assert g.n_iter_ < 40  # stopped by convergence ...
    assert (h[-1] - h[-2]) <= 1e-3 * h[-1]  # ... at the stated tolerance
    assert np.all(g.gap_history_ <= 1e-6 * h + 1e-15)  # every master solved to mkl_tol


# ----------------------------------------------------------------------------- sparse == dense
def test_sparse_equals_dense():
    X, y, _ = make_grouped_classification(n_samples=300, n_features=600, random_state=1)
    X[np.abs(X) < 0.8] = 0.0
    a = GDM(n_per_iter=5, max_iter=4).fit(X, y)
    for fmt in (sp.csr_matrix, sp.csc_matrix):
        b = GDM(n_per_iter=5, max_iter=4).fit(fmt(X), y)
        assert np.array_equal(a.support_, b.support_)
        assert all(np.array_equal(a.groups_[k], b.groups_[k]) for k in a.groups_)
        assert np.allclose(a.scores_, b.scores_, rtol=1e-9, atol=1e-12)
        assert np.allclose(a.coef_, b.coef_, rtol=1e-7, atol=1e-12)
        assert a.n_correlations_ == b.n_correlations_
        assert np.allclose(a.decision_function(X), b.decision_function(fmt(X)), atol=1e-9)


# ----------------------------------------------------------------------------- GDM-SU
def test_su_groups_match_brute_force():
    rng = np.random.default_rng(0)
    n = 300
    base = rng.standard_normal((n, 8))
    X = np.column_stack(
        [base, np.exp(base[:, 0]), base[:, 1] ** 3, -base[:, 2], rng.standard_normal((n, 30))]
    )
    y = (base[:, 0] + base[:, 1] - base[:, 2] > 0).astype(int)
    tau = 0.5
    g = GDM(corr="su", tau=tau, n_per_iter=3, max_iter=3).fit(X, y)
    codes = discretize(X, n_bins=10, strategy="uniform")
    S = su_cross(codes, g.support_, np.arange(X.shape[1]))
    for j, s in enumerate(g.support_):
        members = [
            k
            for k in range(X.shape[1])
            if k not in set(g.support_.tolist()) and np.argmax(S[:, k]) == j and S[j, k] >= 1 - tau
        ]
        assert sorted(g.groups_[int(s)].tolist()) == sorted(members)
    # the monotone transforms of the relevant features are found as affiliated features
    grouped = set(np.concatenate(list(g.groups_.values())).tolist())
    assert {8, 10} <= grouped


# ----------------------------------------------------------------------------- GDM-OC
def test_one_class_separates_outliers():
    rng = np.random.default_rng(0)
    n, m = 300, 400
    Xin = rng.standard_normal((n, m))
    Xin[:, :5] += 3.0
    Xte = rng.standard_normal((200, m))
    Xte[:100, :5] += 3.0
    inlier = np.r_[np.ones(100), np.zeros(100)]
    g = GDM(one_class=True, n_per_iter=5, max_iter=4).fit(Xin)
    assert set(range(5)) <= set(g.support_.tolist())
    assert roc_auc_score(inlier, g.decision_function(Xte)) > 0.9
    assert set(np.unique(g.predict(Xte))) <= {-1, 1}
    # scikit-learn's outlier-detector convention: score_samples higher for more normal samples,
    # decision_function = score_samples - offset_, predict = +1 where decision_function >= 0
    ss = g.score_samples(Xte)
    assert roc_auc_score(inlier, ss) > 0.9
    assert np.allclose(g.decision_function(Xte), ss - g.offset_)
    assert np.array_equal(g.predict(Xte), np.where(ss - g.offset_ >= 0, 1, -1))
    assert not hasattr(GDM(n_per_iter=2, max_iter=2), "score_samples")  # classifiers have none
    # threshold from the KKT conditions: f(x_i) - gamma = -alpha_i / C where alpha_i > 0, >= 0 elsewhere
    d = g.decision_function(Xin)
    on = g.alpha_ > 1e-9
    assert np.allclose(d[on], -g.alpha_[on] / g.C, atol=1e-6)
    assert np.all(d[~on] >= -1e-6)
    # y is ignored in one-class mode
    g2 = GDM(one_class=True, n_per_iter=5, max_iter=4).fit(Xin, rng.integers(0, 3, n))
    assert np.array_equal(g.support_, g2.support_)


# ----------------------------------------------------------------------------- ECV
def test_ecv_single_set_and_more_stable():
    # high dimension, small sample, heavy-tailed noise: features carried by a few extreme
    # samples look informative on one resample and not on the next (the setting ECV targets)
    n, m = 200, 2000
    X, y, truth = make_grouped_classification(n_samples=n, n_features=m, noise=0.3, random_state=3)
    noise = np.setdiff1d(np.arange(m), truth.informative)
    X[:, noise] = np.random.default_rng(9).standard_t(1.5, size=(n, noise.size))
    sups = {"gdm": [], "ecv": []}
    for r in range(8):
        idx = np.random.default_rng(r).choice(n, int(0.8 * n), replace=False)
        sups["gdm"].append(GDM(n_per_iter=4, max_iter=3).fit(X[idx], y[idx]).support_)
        e = GDM(n_per_iter=4, max_iter=3, cv_folds=5, random_state=0).fit(X[idx], y[idx])
        assert e.support_.ndim == 1 and len(set(e.support_.tolist())) == e.support_.size  # one set
        sups["ecv"].append(e.support_)
    stab = {
        k: np.mean([_jaccard(v[i], v[j]) for i in range(8) for j in range(i + 1, 8)]) for k, v in sups.items()
    }
    assert stab["ecv"] > stab["gdm"] + 0.03, stab


def test_ecv_deterministic_and_valid():
    X, y = _planted(seed=5)
    a = GDM(cv_folds=3, random_state=0, n_per_iter=3, max_iter=3).fit(X, y)
    b = GDM(cv_folds=3, random_state=0, n_per_iter=3, max_iter=3).fit(X, y)
    assert np.array_equal(a.support_, b.support_)
    ref = _brute_groups(X, a.support_, 0.3)
    for s in ref:
        assert np.array_equal(a.groups_[s], ref[s])


def test_ecv_stops_when_no_split_proposes_a_feature():
    # every feature is constant on each training split (cv_folds=2: a split is one fold),
    # so no split votes for anything: the cutting plane stops like on an empty delta^t
    n = 20
    fold = np.empty(n, dtype=int)
    fold[np.random.RandomState(0).permutation(n)] = np.arange(n) % 2  # GDM's split for seed 0
    X = np.column_stack([fold * 1.0, 2.0 * fold + 1.0, 3.0 - fold])
    g = GDM(cv_folds=2, random_state=0).fit(X, np.arange(n) % 2)
    assert g.support_.size == 0 and g.n_iter_ == 0 and g.objective_history_.size == 0


# ----------------------------------------------------------------------------- selector API
def test_selector_api_and_affiliated_option():
    X, y = _planted(seed=6)
    g = GDM(n_per_iter=3, max_iter=2).fit(X, y)
    mask = g.get_support()
    assert mask.sum() == len(g.support_) and np.array_equal(np.flatnonzero(mask), np.sort(g.support_))
    assert g.transform(X).shape == (X.shape[0], len(g.support_))
    ga = GDM(n_per_iter=3, max_iter=2, include_affiliated=True).fit(X, y)
    n_af = sum(v.size for v in ga.groups_.values())
    assert n_af > 0 and ga.get_support().sum() == len(ga.support_) + n_af
    assert g.coef_.shape == (X.shape[1],) and np.count_nonzero(g.coef_) <= len(g.support_)
    assert g.scores_[100] == 0.0  # the constant feature


# ----------------------------------------------------------------------------- positive
def _three_classes(seed=7):
    X, y = _planted(seed=seed)
    rng = np.random.default_rng(seed)
    y3 = np.where(y == 1, np.where(X[:, 24] > 0, "b", "c"), "a")  # 3 string labels
    y3[rng.choice(y3.size, 10, replace=False)] = "c"
    return X, y3


def _same_fit(a, b):
    assert np.array_equal(a.support_, b.support_)
    assert a.groups_.keys() == b.groups_.keys()
    assert all(np.array_equal(a.groups_[k], b.groups_[k]) for k in a.groups_)
    assert all(np.array_equal(a.group_corr_[k], b.group_corr_[k]) for k in a.groups_)
    for attr in ("scores_", "coef_", "alpha_", "objective_history_"):
        assert np.array_equal(getattr(a, attr), getattr(b, attr)), attr
    assert a.n_correlations_ == b.n_correlations_


@pytest.mark.parametrize("cv_folds", [None, 3])
@pytest.mark.parametrize("positive", ["a", "b", "c"])
def test_positive_one_vs_rest_equals_mapped_labels(positive, cv_folds):
    X, y3 = _three_classes()
    params = dict(n_per_iter=3, max_iter=3, cv_folds=cv_folds, random_state=0)
    ovr = GDM(positive=positive, **params).fit(X, y3)
    by_hand = GDM(**params).fit(X, np.where(y3 == positive, 1, -1))
    _same_fit(ovr, by_hand)
    assert ovr.classes_.tolist() == [False, True]
    assert np.array_equal(ovr.predict(X), by_hand.predict(X) == 1)
    assert np.array_equal(ovr.decision_function(X), by_hand.decision_function(X))


def test_positive_picks_the_plus_one_class_of_binary_labels():
    X, y = _planted(seed=8)
    default = GDM(n_per_iter=3, max_iter=3).fit(X, y)
    _same_fit(GDM(n_per_iter=3, max_iter=3, positive=1).fit(X, y), default)
    flipped = GDM(n_per_iter=3, max_iter=3, positive=0).fit(X, y)
    _same_fit(flipped, GDM(n_per_iter=3, max_iter=3).fit(X, 1 - y))
    assert flipped.classes_.tolist() == [1, 0]
    assert set(np.unique(flipped.predict(X)).tolist()) <= {0, 1}
    assert np.mean(flipped.predict(X) == y) > 0.8
    # one-class ignores y and positive alike
    oc = GDM(one_class=True, n_per_iter=3, max_iter=3)
    _same_fit(oc.fit(X), GDM(one_class=True, n_per_iter=3, max_iter=3, positive="zzz").fit(X, y))


def test_positive_errors():
    X, y3 = _three_classes()
    with pytest.raises(
        ValueError, match=r"'positive' must be one of the labels of y \['a', 'b', 'c'\]; got 'd'"
    ):
        GDM(positive="d").fit(X, y3)
    assert GDM().fit(X, y3).target_type_ == "multiclass"  # no positive: all classes at once
    with pytest.raises(ValueError, match=r"'positive' applies to class labels, but y is continuous"):
        GDM(positive=1).fit(X, np.linspace(0.0, 1.0, X.shape[0]))
    X, y = _planted()
    with pytest.raises(ValueError, match=r"'positive' must be one of the labels of y \[0, 1\]; got '1'"):
        GDM(positive="1").fit(X, y)  # compared with the values of y as given: 1 != '1'


def test_parameters_are_keyword_only():
    with pytest.raises(TypeError):
        GDM(0.3)


@parametrize_with_checks([GDM(n_per_iter=2, max_iter=2), GDM(one_class=True, n_per_iter=2, max_iter=2)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


# ----------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "params, match",
    [
        (dict(tau=1.0), r"'tau' parameter of GDM must be a float in the range \[0.0, 1.0\). Got 1.0"),
        (dict(tau=-0.1), r"'tau' parameter of GDM must be a float in the range \[0.0, 1.0\). Got -0.1"),
        (dict(n_per_iter=0), r"'n_per_iter' parameter of GDM must be an int in the range \[1, inf\). Got 0"),
        (dict(max_iter=2.5), r"'max_iter' parameter of GDM must be an int in the range \[1, inf\). Got 2.5"),
        (dict(C=0), r"'C' parameter of GDM must be a float in the range \(0.0, inf\). Got 0"),
        (
            dict(corr="kendall"),
            r"'corr' parameter of GDM must be a str among \{.*'pearson'.*\}. Got 'kendall'",
        ),
        (
            dict(cv_folds=1),
            r"'cv_folds' parameter of GDM must be an int in the range \[2, inf\) or None. Got 1",
        ),
        (dict(cv_folds=500), r"'cv_folds' must be at most n_samples \(150\)"),
        (dict(one_class="yes"), r"'one_class' parameter of GDM must be an instance of 'bool'"),
        (dict(mkl_tol=0), r"'mkl_tol' parameter of GDM must be a float in the range \(0.0, inf\)"),
        (
            dict(block_size=0),
            r"'block_size' parameter of GDM must be an int in the range \[1, inf\) or None. Got 0",
        ),
    ],
)
def test_bad_params(params, match):
    X, y = _planted()
    with pytest.raises(ValueError, match=match):
        GDM(**params).fit(X, y)


def test_bad_inputs():
    X, y = _planted()
    with pytest.raises(ValueError, match=r"GDM requires y to be passed, but the target y is None"):
        GDM().fit(X)
    with pytest.raises(ValueError, match=r"y should be a 1d array"):
        GDM().fit(X, np.eye(X.shape[0], 3, dtype=int))  # multilabel indicator: not supported
    with pytest.raises(ValueError, match=r"exactly 2 classes for binary GDM; got 1"):
        GDM().fit(X, np.zeros(X.shape[0]))
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        GDM().fit(Xn, y)


# ----------------------------------------------------------------------------- Dask
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize(
    "params",
    [dict(), dict(corr="su", tau=0.5), dict(cv_folds=3, random_state=0), dict(one_class=True)],
    ids=["pcc", "su", "ecv", "oc"],
)
def test_dask_identical_to_local(dask_client, sparse, params):
    X, y, _ = make_grouped_classification(n_samples=300, n_features=900, random_state=2)
    if sparse:
        X[np.abs(X) < 0.7] = 0.0
        X = sp.csc_matrix(X)
    local = GDM(n_per_iter=4, max_iter=3, block_size=200, **params).fit(X, y)
    remote = GDM(n_per_iter=4, max_iter=3, block_size=200, **params).fit(X, y, client=dask_client)
    assert np.array_equal(local.support_, remote.support_)
    assert local.groups_.keys() == remote.groups_.keys()
    assert all(np.array_equal(local.groups_[k], remote.groups_[k]) for k in local.groups_)
    assert local.n_correlations_ == remote.n_correlations_
    assert np.allclose(local.scores_, remote.scores_, rtol=1e-12, atol=1e-15)
    assert np.allclose(local.objective_history_, remote.objective_history_, rtol=1e-10)


def test_rows_dot_kernel_matches_numpy_and_python_body():
    from fsviz.select.gdm import _kernels as GK

    rng = np.random.default_rng(0)
    X = rng.standard_normal((50, 5000))
    rows = np.sort(rng.choice(50, 12, replace=False))
    w = rng.standard_normal(12)
    ref = X[rows].T @ w
    assert np.allclose(GK.rows_dot(X, rows, w), ref, rtol=1e-12, atol=1e-12)
    assert np.allclose(GK.rows_dot.py_func(X, rows, w), ref, rtol=1e-12, atol=1e-12)


def test_rows_dot_kernel_row_remainder_and_one_thread(monkeypatch):
    # 13 rows: three groups of four plus a remainder; bit-identical to one row at a time
    from fsviz.select.gdm import _kernels as GK

    rng = np.random.default_rng(1)
    X = rng.standard_normal((40, 3000))
    rows = np.sort(rng.choice(40, 13, replace=False))
    w = rng.standard_normal(13)
    ref = np.zeros(3000)
    for k, i in enumerate(rows):
        ref += w[k] * X[i]
    assert np.array_equal(GK.rows_dot(X, rows, w), ref)
    assert np.array_equal(GK.rows_dot.py_func(X, rows, w), ref)
    import numba

    before = numba.get_num_threads()
    monkeypatch.setattr(_scan.os, "getloadavg", lambda: (1e9, 1e9, 1e9))  # "busy": one thread
    with _scan._numba_threads():
        assert numba.get_num_threads() == 1
        assert np.array_equal(GK.rows_dot(X, rows, w), ref)
    assert numba.get_num_threads() == before


# ------------------------------------------------------------------------ float32 pre-screen of completion
def _f32_rho(X, Zs, mean, norm):
    """The pre-screen's float32 estimate of |rho| (the formula of _block_complete_pcc)."""
    P32 = (X.astype(np.float32).T @ Zs.astype(np.float32)).astype(np.float64)
    s32 = Zs.astype(np.float32).sum(axis=0, dtype=np.float64)
    return np.abs(P32 - mean[:, None] * s32[None, :]) / norm[:, None]


@pytest.mark.parametrize(
    "n, loc, scale", [(2048, 0.0, 1.0), (300, 5.0, 1e-3), (700, -40.0, 1e20), (50, 1.0, 1e-30)]
)
def test_f32_bound_holds(n, loc, scale):
    # |rho32 - rho64| <= _f32_bound on random, shifted, badly scaled and strongly
    # correlated columns; and the bound is tight enough to recheck only a few features
    rng = np.random.default_rng(n)
    base = rng.standard_normal((n, 1))
    X = (loc + rng.standard_normal((n, 400)) + rng.uniform(0, 30, 400) * base) * scale
    X[:, :50] = loc * scale + scale * rng.standard_normal((n, 50))  # uncorrelated block
    mean = X.mean(axis=0)
    norm = np.linalg.norm(X - mean, axis=0)
    sf = np.arange(0, 400, 40)
    Zs = np.ascontiguousarray((X[:, sf] - mean[sf]) / norm[sf])
    rho64 = np.abs(X.T @ Zs - mean[:, None] * Zs.sum(axis=0)[None, :]) / norm[:, None]
    rho32 = _f32_rho(X, Zs, mean, norm)
    z_nrm = float(np.sqrt(np.max(np.einsum("ij,ij->j", Zs, Zs))))
    bound = _complete._f32_bound(n, z_nrm, mean, norm)
    err = np.abs(rho32 - rho64).max(axis=1)
    assert np.all(err <= bound)
    assert np.all(bound < 20 * _complete._gamma(n + 2, 2.0**-24) * np.sqrt(1 + n * (mean / norm) ** 2))
    assert err.max() > 0  # float32 really differs (the test can fail)


@pytest.mark.parametrize("loc", [0.0, 3.0])
def test_f32_prescreen_exact_right_at_the_threshold(loc):
    # features planted at |rho| = thr +- delta (delta from 1e-9 to 1e-4, below and around
    # float32's resolution) against three SFs: completion must match float64 brute force,
    # although float32 alone misjudges some of them
    rng = np.random.default_rng(7)
    n, thr = 2048, 0.7
    S = rng.standard_normal((n, 3))
    S -= S.mean(axis=0)
    Q, _ = np.linalg.qr(np.column_stack([np.ones(n), S, rng.standard_normal((n, 120))]))
    Zs = np.ascontiguousarray(Q[:, 1:4])  # centred (orthogonal to 1), unit norm
    E = Q[:, 4:]  # centred, unit norm, orthogonal to the SFs
    deltas = np.concatenate([s * 10.0 ** -np.arange(4, 10) for s in (1, -1)])
    deltas = np.concatenate([deltas, rng.uniform(-2e-4, 2e-4, 120 - deltas.size)])
    c = thr + deltas
    owner = np.arange(120) % 3
    X = Zs[:, owner] * (c * (1 - 2 * (np.arange(120) % 2))) + E * np.sqrt(1 - c**2)
    X = loc + np.column_stack([X, Zs])  # SFs last
    m = X.shape[1]
    mean = X.mean(axis=0)
    norm = np.linalg.norm(X - mean, axis=0)
    sf = np.arange(120, 123)
    Zsf = np.ascontiguousarray((X[:, sf] - mean[sf]) / norm[sf])
    elig = np.ones(m, bool)
    elig[sf] = False
    feats, owners, vals, nc = _complete._block_complete_pcc(
        X, 0, mean, norm, np.zeros(m), elig, Zsf, np.zeros(3), np.arange(3), Zsf.sum(axis=0), np.inf, thr
    )
    assert nc == m * 3  # counted like the float64 scan: the whole slice against every SF
    C, _ = _abs_corr(X)
    truth = np.flatnonzero(C[:120, sf].max(axis=1) >= thr)
    assert np.array_equal(truth, np.flatnonzero(deltas >= 0))  # the planted values hold in float64
    assert np.array_equal(np.sort(feats), truth)
    assert np.array_equal(owners[np.argsort(feats)], owner[truth])
    assert np.allclose(np.sort(vals), np.sort(C[truth][:, sf].max(axis=1)), rtol=0, atol=1e-14)
    best32 = _f32_rho(X[:, :120], Zsf, mean[:120], norm[:120]).max(axis=1)
    assert np.any((best32 >= thr) != (deltas >= 0))  # float32 alone would be wrong


def test_f32_prescreen_float32_overflow_is_rechecked():
    # values beyond float32's range (1e60, not rescaled: below EXTREME) become inf in the
    # float32 product; those features are recomputed in float64, the groups stay exact
    X, y = _planted(seed=2)
    g = GDM(tau=0.3, n_per_iter=4, max_iter=4).fit(X * 1e60, y)
    ref = _brute_groups(X * 1e60, g.support_, 0.3)
    assert sum(v.size for v in ref.values()) > 0
    for s in ref:
        assert np.array_equal(g.groups_[s], ref[s])


# ------------------------------------------------------------------------ results recorded before the rewrite
_REFERENCE = json.loads((Path(__file__).parent / "data" / "gdm_reference.json").read_text())


def _same_as_reference(name, g):
    ref = _REFERENCE[name]
    assert g.support_.tolist() == ref["support"]
    assert {str(k): v.tolist() for k, v in g.groups_.items()} == ref["groups"]
    assert g.n_correlations_ == ref["n_corr"]
    assert np.allclose(g.objective_history_, ref["hist"], rtol=1e-5)


@pytest.mark.parametrize(
    "name, params",
    [
        ("synth_default", {}),
        ("synth_4x5", dict(n_per_iter=4, max_iter=5)),
        ("synth_C10", dict(C=10.0, n_per_iter=5, max_iter=6)),
        ("synth_oc", dict(one_class=True, n_per_iter=5, max_iter=4)),
        ("synth_ecv", dict(cv_folds=3, random_state=0, n_per_iter=4, max_iter=4)),
    ],
)
def test_same_results_as_before_master_rewrite_synthetic(synthetic, name, params):
    # support_, groups_, n_correlations_ of the mu-Newton solver (recorded in
    # tests/data/gdm_reference.json before GDM switched to the primal solver)
    X, y, _ = synthetic
    _same_as_reference(name, GDM(**params).fit(X, y))


def test_same_results_as_before_master_rewrite_digits():
    from fsviz.data import load_sample

    ds = load_sample("digits-0-vs-1")
    _same_as_reference("digits", GDM(tau=0.3).fit(np.asarray(ds.X, float), np.asarray(ds.y)))


@pytest.mark.parametrize(
    "name",
    ["colon", "leukemia", "ALLAML", "GLIOMA", "COIL20", pytest.param("Prostate-GE", marks=pytest.mark.slow)],
)
def test_same_results_as_before_master_rewrite_real(skfeature_path, name):
    from scipy.io import loadmat

    d = loadmat(skfeature_path(name))
    X, y = np.asarray(d["X"], dtype=float), np.asarray(d["Y"]).ravel()
    _same_as_reference("real_" + name, GDM(**_REFERENCE["real_" + name]["kw"]).fit(X, y))


# ------------------------------------------------------------------------ multiclass and regression


def _multiclass_planted(n=600, m=400, seed=0):
    """Three classes, each carried by its own planted SF (with correlated copies)."""
    X, _, truth = make_grouped_classification(
        n_samples=n, n_features=m, n_groups=6, max_affiliates=3, random_state=seed
    )
    S = X[:, truth.support[:3]]
    rng = np.random.default_rng(seed)
    y = np.argmax(S + 0.3 * rng.standard_normal(S.shape), axis=1)
    return X, y, truth


def test_multiclass_scores_window_and_groups():
    X, y, truth = _multiclass_planted()
    tau = 0.3
    g = GDM(tau=tau, n_per_iter=3, max_iter=4).fit(X, y)
    assert g.target_type_ == "multiclass"
    assert list(g.classes_) == [0, 1, 2]
    assert g.coef_.shape == (3, X.shape[1])
    assert g.alpha_.shape == (X.shape[0], 3)
    assert set(truth.support[:3].tolist()) <= set(g.support_.tolist())  # the class-carrying SFs
    # scores_ = sqrt(n) ||z_j' A~|| over the classes (brute force, standardised columns)
    Zs = (X - X.mean(axis=0)) / np.linalg.norm(X - X.mean(axis=0), axis=0)
    At = g.alpha_ * np.where(y[:, None] == g.classes_[None, :], 1.0, -1.0)
    t = np.linalg.norm(Zs.T @ At, axis=1)
    assert np.allclose(g.scores_, np.sqrt(X.shape[0]) * t, rtol=1e-9, atol=1e-12)
    # Theorem 1 window for vector scores holds on every correlated pair
    C_ = np.abs(Zs.T @ Zs)
    i, j = np.nonzero(np.triu(C_ >= 1 - tau, 1))
    w = theorem1_window(At, tau)
    assert i.size > 0 and np.all(np.abs(t[i] - t[j]) <= w)
    # the window is the spectral norm bound: never below the largest such gap, and exact groups
    brute = _brute_groups(X, g.support_, tau)
    assert {k: v.tolist() for k, v in g.groups_.items()} == {k: v.tolist() for k, v in brute.items()}
    # class_support_: per class, SFs by decreasing |weight| for that class (all non-zero)
    for k, cls in enumerate(g.classes_):
        cs = g.class_support_[cls]
        wk = np.abs(g.coef_[k, cs])
        assert np.all(wk > 0) and np.all(np.diff(wk) <= 0)
        assert set(cs.tolist()) <= set(g.support_.tolist())
    assert g.predict(X).shape == (X.shape[0],) and (g.predict(X) == y).mean() > 0.8
    assert g.decision_function(X).shape == (X.shape[0], 3)
    h = g.objective_history_
    assert np.all(np.diff(h) >= -1e-6 * h[1:]) and np.all(g.gap_history_ <= 1e-6 * h + 1e-15)


def test_multiclass_positive_keeps_one_vs_rest_and_ecv_runs():
    X, y, _ = _multiclass_planted(n=300, m=200, seed=1)
    a = GDM(n_per_iter=3, max_iter=3, positive=1).fit(X, y)
    b = GDM(n_per_iter=3, max_iter=3).fit(X, np.where(y == 1, 1, -1))
    assert a.target_type_ == "binary" and np.array_equal(a.support_, b.support_)
    e = GDM(n_per_iter=3, max_iter=3, cv_folds=3, random_state=0).fit(X, y)
    assert e.target_type_ == "multiclass" and e.support_.size > 0 and e.coef_.shape == (3, X.shape[1])


def test_multiclass_support_beats_one_vs_rest_support_of_same_size(skfeature_path):
    # ORL (40 faces): the multiclass support against today's one-vs-rest support (positive =
    # the first class) of the same size, 5-fold CV accuracy of a linear SVM on the selected pixels
    from scipy.io import loadmat
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC

    d = loadmat(skfeature_path("ORL"))
    X, y = np.asarray(d["X"], dtype=float), np.asarray(d["Y"]).ravel()
    multi = GDM(n_per_iter=5, max_iter=4).fit(X, y)
    k = multi.support_.size
    ovr = GDM(n_per_iter=5, max_iter=4, positive=y.min()).fit(X, y).support_[:k]
    assert ovr.size == k

    def acc(cols):
        model = make_pipeline(StandardScaler(), LinearSVC(max_iter=5000))
        cv = StratifiedKFold(5, shuffle=True, random_state=0)
        return cross_val_score(model, X[:, cols], y, cv=cv).mean()

    a_multi, a_ovr = acc(multi.support_), acc(ovr)
    assert a_multi >= a_ovr + 0.08, (a_multi, a_ovr)  # measured 0.88 vs 0.72


def test_regression_recovers_planted_groups():
    from fsviz.data import make_grouped_regression

    X, y, truth = make_grouped_regression(n_samples=500, n_features=2000, random_state=3)
    g = GDM(tau=0.3, n_per_iter=4, max_iter=5).fit(X, y)
    assert g.target_type_ == "continuous" and not hasattr(g, "classes_")
    assert set(truth.support.tolist()) <= set(g.support_.tolist())
    for s in truth.support:
        assert set(truth.groups[int(s)].tolist()) <= set(g.groups_[int(s)].tolist())
    r2 = 1 - np.mean((g.predict(X) - y) ** 2) / np.var(y)
    assert r2 > 0.95
    h = g.objective_history_
    assert np.all(np.diff(h) >= -1e-6 * np.abs(h[1:]))  # theta = -P* rises as kernels are added
    assert np.all(g.gap_history_ <= 1e-6 * np.abs(h) + 1e-12)
    # the master problem at the end: KKT of the primal over the selected columns
    Zs = (X - X.mean(axis=0)) / X.std(axis=0)
    cols = np.flatnonzero(g.coef_)
    f = Zs[:, cols] @ g.coef_[cols] + g.intercept_
    assert np.allclose(f, g.predict(X))


def test_gdm_run_is_multiclass_by_default_on_more_than_two_classes():
    # the run layer (registry, image masks, groups page) describes all classes unless a
    # positive class is chosen
    from fsviz.compute import Run
    from fsviz.data import Dataset

    rng = np.random.default_rng(1)
    X = rng.normal(size=(90, 30))
    y = np.repeat(["ant", "bee", "cat"], 30)
    X[y == "bee", :3] += 2.0
    X[y == "cat", 5:7] -= 2.0
    ds = Dataset(X, y=y, name="three")
    res = Run("gdm", {"max_iter": 3}, 0).execute(ds)
    est = GDM(max_iter=3).fit(ds.X, ds.y)
    assert est.target_type_ == "multiclass"
    np.testing.assert_array_equal(res.support, est.support_)
    assert {0, 1, 2, 5, 6} & set(res.support.tolist())
