"""SAOLA / group-SAOLA against plain-Python transcriptions of Alg. 1 and Alg. 2."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import entropy as sp_entropy
from scipy.stats import norm
from sklearn.metrics import mutual_info_score
from sklearn.utils.estimator_checks import parametrize_with_checks

from fsviz.select import SAOLA, GroupSAOLA
from fsviz.select.saola import OUTCOMES, SelectionHistory, random_feature_groups


# ----------------------------------------------------------------------------- data
def clustered(n=200, n_clusters=6, per=5, n_noise=20, seed=0, discrete=False):
    """Features in correlated clusters (copies of latent factors with varying noise), noise features,
    a label driven by a few factors; columns shuffled so copies arrive in mixed order."""
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, n_clusters))
    cols = []
    for k in range(n_clusters):
        for _ in range(per):
            cols.append(Z[:, k] + rng.uniform(0.05, 1.0) * rng.normal(size=n))
    for _ in range(n_noise):
        cols.append(rng.normal(size=n))
    X = np.column_stack(cols)
    X = X[:, rng.permutation(X.shape[1])]
    y = (Z[:, 0] + 0.8 * Z[:, 1] - 0.6 * Z[:, 2] + 0.3 * rng.normal(size=n) > 0).astype(int)
    if discrete:
        X = np.clip(np.round(X), -2, 2).astype(float)
    return X, y


# ----------------------------------------------------------------------------- references
def _codes_ref(x, n_bins=10):
    if np.all(x == np.round(x)) and x.max() - x.min() < 32:
        return np.unique(x, return_inverse=True)[1]
    lo, hi = x.min(), x.max()
    if hi <= lo:
        return np.zeros(len(x), dtype=int)
    return np.clip(np.floor((x - lo) / (hi - lo) * n_bins), 0, n_bins - 1).astype(int)


def _su_ref(a, b):
    ha = sp_entropy(np.bincount(a))
    hb = sp_entropy(np.bincount(b))
    if ha + hb <= 0:
        return 0.0
    return 2.0 * mutual_info_score(a, b) / (ha + hb)


class RefMeasures:
    def __init__(self, X, y, mode, alpha=0.01, delta=0.0):
        n, m = X.shape
        self.mode = mode
        if mode == "continuous":
            self.X = X
            rel = np.zeros(m)
            p = np.ones(m)
            for j in range(m):
                if X[:, j].std() > 0:
                    r = np.corrcoef(X[:, j], y)[0, 1]
                    rel[j] = abs(r)
                    z = np.arctanh(min(abs(r), 1 - 1e-15)) * np.sqrt(n - 3)
                    p[j] = 2 * norm.sf(z)
            self.rel, self.relevant = rel, p <= alpha
        else:
            self.codes = [_codes_ref(X[:, j]) for j in range(m)]
            yc = np.unique(y, return_inverse=True)[1]
            self.rel = np.array([_su_ref(c, yc) for c in self.codes])
            self.relevant = self.rel > delta

    def dep(self, a, b):
        if self.mode == "continuous":
            return abs(np.corrcoef(self.X[:, a], self.X[:, b])[0, 1])
        return _su_ref(self.codes[a], self.codes[b])


def ref_saola(X, y, mode, alpha=0.01, delta=0.0):
    """Alg. 1 line by line (ties: the earlier feature is the stronger one)."""
    M = RefMeasures(X, y, mode, alpha, delta)
    S = []
    decision, red_with, removed_by = {}, {}, {}
    for i in range(X.shape[1]):
        if not M.relevant[i]:
            decision[i] = "irrelevant"
            continue
        rF = M.rel[i]
        dropped = False
        for Y in list(S):
            if Y not in S:
                continue
            c = M.dep(i, Y)
            if M.rel[Y] >= rF and c >= rF:
                decision[i], red_with[i], dropped = "redundant", Y, True
                break
            if rF > M.rel[Y] and c >= M.rel[Y]:
                S.remove(Y)
                removed_by[Y] = i
        if not dropped:
            S.append(i)
            decision[i] = "admitted"
    return S, decision, red_with, removed_by


def _stronger(rel, a, b):
    return rel[a] > rel[b] or (rel[a] == rel[b] and a < b)


def ref_group_saola(X, y, groups, mode, alpha=0.01, delta=0.0):
    """Alg. 2 line by line, with individually irrelevant features dropped first."""
    M = RefMeasures(X, y, mode, alpha, delta)
    rel = M.rel
    psi = []  # list of (gid, list of features)
    for gid, g in enumerate(groups):
        G = [f for f in g if M.relevant[f]]
        if not G:
            continue
        for Fj in list(G):
            if Fj not in G:
                continue
            if any(Y != Fj and _stronger(rel, Y, Fj) and M.dep(Y, Fj) >= rel[Fj] for Y in G):
                G.remove(Fj)
                continue
            for Y in list(G):
                if Y != Fj and Y in G and _stronger(rel, Fj, Y) and M.dep(Fj, Y) >= rel[Y]:
                    G.remove(Y)
        for _, Gj in psi:
            if not G:
                break
            for Fk in list(Gj):
                for Fi in list(G):
                    if Fi not in G:
                        continue
                    c = M.dep(Fi, Fk)
                    if _stronger(rel, Fi, Fk) and c >= rel[Fk]:
                        Gj.remove(Fk)
                        break
                    if _stronger(rel, Fk, Fi) and c >= rel[Fi]:
                        G.remove(Fi)
        psi = [(k, Gj) for k, Gj in psi if Gj]
        if G:
            psi.append((gid, G))
    return psi


# ----------------------------------------------------------------------------- SAOLA
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("mode", ["continuous", "discrete"])
def test_matches_line_by_line_alg1(seed, mode):
    X, y = clustered(seed=seed, discrete=(mode == "discrete"))
    est = SAOLA(data=mode).fit(X, y)
    S, decision, red_with, removed_by = ref_saola(X, y, mode)
    np.testing.assert_array_equal(est.selected_, S)
    h = est.history_
    assert [d.decision for d in h] == [decision[i] for i in range(X.shape[1])]
    for i, Y in red_with.items():
        assert h[i].redundant_with == Y
    for Y, i in removed_by.items():
        assert h[Y].removed_by == i
        assert Y in h[i].removed


def test_auto_mode_picks_by_data():
    X, y = clustered(discrete=True)
    assert SAOLA().fit(X, y).data_ == "discrete"
    X, y = clustered()
    assert SAOLA().fit(X, y).data_ == "continuous"


@pytest.mark.parametrize("mode", ["continuous", "discrete"])
def test_later_weaker_near_copy_is_dropped(mode):
    rng = np.random.default_rng(3)
    n = 400
    X = rng.normal(size=(n, 12))
    y = (X[:, 2] + 0.4 * X[:, 5] + 0.2 * rng.normal(size=n) > 0).astype(int)
    X[:, 9] = X[:, 2] + 0.3 * rng.normal(size=n)  # weaker copy, arrives later
    if mode == "discrete":
        X = np.clip(np.round(X), -2, 2)
    est = SAOLA(data=mode).fit(X, y)
    assert 2 in est.selected_ and 9 not in est.selected_
    rec = est.history_[9]
    assert rec.decision == "redundant" and rec.redundant_with == 2
    assert rec.pair_value >= rec.relevance
    assert "redundant with feature 2" in est.history_.explain(9)


@pytest.mark.parametrize("mode", ["continuous", "discrete"])
def test_later_stronger_copy_replaces_weaker(mode):
    rng = np.random.default_rng(4)
    n = 400
    z = rng.normal(size=n)
    X = rng.normal(size=(n, 10))
    y = (z + 0.2 * rng.normal(size=n) > 0).astype(int)
    X[:, 1] = z + 0.8 * rng.normal(size=n)  # weak copy first
    X[:, 7] = z + 0.05 * rng.normal(size=n)  # strong copy later
    if mode == "discrete":
        X = np.clip(np.round(X * 1.5), -3, 3)
    est = SAOLA(data=mode).fit(X, y)
    assert 7 in est.selected_ and 1 not in est.selected_
    h = est.history_
    assert h[1].decision == "admitted" and h[1].removed_by == 7
    assert 1 in h[7].removed


def test_exact_duplicate_keeps_the_first():
    X, y = clustered(seed=5)
    j = int(SAOLA().fit(X, y).selected_[0])
    X2 = np.column_stack([X, X[:, j]])
    est = SAOLA().fit(X2, y)
    assert j in est.selected_ and X.shape[1] not in est.selected_
    assert est.history_[X.shape[1]].redundant_with == j


@settings(max_examples=15, deadline=None)
@given(
    cuts=st.lists(st.integers(1, 49), max_size=8),
    seed=st.integers(0, 3),
    mode=st.sampled_from(["continuous", "discrete"]),
)
def test_partial_fit_chunking_does_not_matter(cuts, seed, mode):
    X, y = clustered(seed=seed, discrete=(mode == "discrete"))
    whole = SAOLA(data=mode).fit(X, y)
    edges = [0] + sorted(set(cuts)) + [X.shape[1]]
    est = SAOLA(data=mode)
    for a, b in zip(edges[:-1], edges[1:], strict=False):
        est.partial_fit(X[:, a:b], y)
    np.testing.assert_array_equal(est.selected_, whole.selected_)
    assert est.n_features_in_ == X.shape[1]
    fa, fb = est.history_.to_frame(), whole.history_.to_frame()
    for col in ["decision", "redundant_with", "removed_by", "selected"]:
        np.testing.assert_array_equal(fa[col].to_numpy(), fb[col].to_numpy())
    np.testing.assert_allclose(est.scores_, whole.scores_, rtol=0, atol=0)


def test_history_is_complete_and_consistent():
    X, y = clustered(seed=7, n_noise=60)
    est = SAOLA(alpha=0.05).fit(X, y)
    h = est.history_
    assert len(h) == X.shape[1]
    df = h.to_frame()
    assert list(df["feature"]) == list(range(X.shape[1]))
    assert set(df["decision"]) <= {"irrelevant", "redundant", "admitted"}
    sel = df[df.selected]
    assert (sel.decision == "admitted").all() and (sel.removed_by == -1).all()
    assert sorted(sel.feature) == sorted(est.selected_)
    irr = df[df.decision == "irrelevant"]
    assert (irr.p_value > 0.05).all()
    rel_ = df[df.decision != "irrelevant"]
    assert (rel_.p_value <= 0.05).all()
    red = df[df.decision == "redundant"]
    assert (red.redundant_with < red.feature).all() and (red.redundant_with >= 0).all()
    assert (red.pair_value >= red.relevance).all()
    assert (est.scores_[red.redundant_with.to_numpy()] >= red.relevance.to_numpy()).all()
    gone = df[(df.decision == "admitted") & ~df.selected]
    assert (gone.removed_by > gone.feature).all()
    for j in range(len(h)):
        assert h.explain(j).startswith(f"feature {j}:")


def test_sparse_equals_dense():
    X, y = clustered(seed=8)
    X[np.abs(X) < 0.5] = 0.0
    a = SAOLA().fit(X, y)
    b = SAOLA().fit(sp.csr_matrix(X), y)
    np.testing.assert_array_equal(a.selected_, b.selected_)
    np.testing.assert_allclose(a.scores_, b.scores_, atol=1e-12)


def test_transform_and_support():
    X, y = clustered(seed=9)
    est = SAOLA().fit(X, y)
    np.testing.assert_array_equal(est.get_support(indices=True), np.sort(est.selected_))
    assert est.transform(X).shape == (X.shape[0], est.selected_.shape[0])


def test_constant_features_are_irrelevant_not_nan():
    X, y = clustered(seed=10)
    X[:, 4] = 3.0
    est = SAOLA().fit(X, y)
    assert est.history_[4].decision == "irrelevant"
    assert np.all(np.isfinite(est.scores_)) and est.scores_[4] == 0.0


@pytest.mark.parametrize(
    "kw, msg",
    [
        ({"alpha": 0.0}, "'alpha' parameter of .*SAOLA must be"),
        ({"alpha": 1.5}, "'alpha' parameter of .*SAOLA must be"),
        ({"delta": -0.1}, "'delta' parameter of .*SAOLA must be"),
        ({"data": "text"}, "'data' parameter of .*SAOLA must be"),
        ({"n_bins": 1}, "'n_bins' parameter of .*SAOLA must be"),
    ],
)
def test_bad_parameters(kw, msg):
    X, y = clustered()
    with pytest.raises(ValueError, match=msg):
        SAOLA(**kw).fit(X, y)


def test_partial_fit_rejects_other_samples():
    X, y = clustered()
    est = SAOLA().partial_fit(X[:, :10], y)
    with pytest.raises(ValueError, match="same samples"):
        est.partial_fit(X[:, 10:20], y[::-1])
    with pytest.raises(ValueError, match="same samples"):
        est.partial_fit(X[:50, 10:20], y[:50])


def test_single_class_rejected():
    X, _ = clustered()
    with pytest.raises(ValueError, match="single value"):
        SAOLA().fit(X, np.zeros(X.shape[0]))


def test_dask_relevance_pass_identical(dask_client):
    client = dask_client  # worker processes: the checkout is on their PYTHONPATH (tests/conftest.py)
    rng = np.random.default_rng(11)
    X = rng.normal(size=(150, 9000))
    y = (X[:, 10] + X[:, 5000] > 0).astype(int)
    X[:, 8000] = X[:, 10] + 0.05 * rng.normal(size=150)
    local = SAOLA().fit(X, y)
    remote = SAOLA().fit(X, y, client=client)
    Xd = np.clip(np.round(X), -2, 2)
    dl = SAOLA().fit(Xd, y)
    dr = SAOLA().fit(Xd, y, client=client)
    np.testing.assert_array_equal(local.scores_, remote.scores_)
    np.testing.assert_array_equal(local.selected_, remote.selected_)
    np.testing.assert_array_equal(dl.scores_, dr.scores_)
    np.testing.assert_array_equal(dl.selected_, dr.selected_)


# ----------------------------------------------------------------------------- group-SAOLA
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("mode", ["continuous", "discrete"])
def test_group_saola_matches_line_by_line_alg2(seed, mode):
    X, y = clustered(seed=seed, discrete=(mode == "discrete"))
    groups = random_feature_groups(X.shape[1], 8, random_state=seed)
    est = GroupSAOLA(data=mode).fit(X, y, groups)
    ref = ref_group_saola(X, y, [list(g) for g in groups], mode)
    assert est.selected_group_ids_ == [k for k, _ in ref]
    for got, (_, want) in zip(est.selected_groups_, ref, strict=False):
        np.testing.assert_array_equal(got, want)


def test_group_saola_keeps_at_most_one_of_identical_groups():
    rng = np.random.default_rng(12)
    n = 300
    base = rng.normal(size=(n, 6))
    y = (base[:, 0] + base[:, 3] > 0).astype(int)
    noise = rng.normal(size=(n, 6))
    X = np.column_stack([noise, base, base, rng.normal(size=(n, 4)), base])
    groups = [np.arange(0, 6), np.arange(6, 12), np.arange(12, 18), np.arange(18, 22), np.arange(22, 28)]
    est = GroupSAOLA().fit(X, y, groups)
    copies = {1, 2, 4}
    kept = [g for g in est.selected_group_ids_ if g in copies]
    assert len(kept) == 1 and kept[0] == 1
    assert len(est.history_) == X.shape[1]
    for g in (2, 4):
        assert all(est.history_[j].decision in ("inter_redundant", "irrelevant") for j in groups[g])


def test_group_labels_equal_group_lists():
    X, y = clustered(seed=3)
    labels = np.random.default_rng(0).integers(0, 5, size=X.shape[1])
    a = GroupSAOLA().fit(X, y, labels)
    order = list(dict.fromkeys(labels.tolist()))
    b = GroupSAOLA().fit(X, y, [np.flatnonzero(labels == g) for g in order])
    assert a.selected_group_ids_ == [order[i] for i in b.selected_group_ids_]
    for u, v in zip(a.selected_groups_, b.selected_groups_, strict=False):
        np.testing.assert_array_equal(u, v)
    h = a.history_
    assert len(h) == X.shape[1] and (h.group >= 0).all()


def test_group_saola_ungrouped_and_errors():
    X, y = clustered(seed=4)
    est = GroupSAOLA().fit(X, y, [np.arange(0, 10), np.arange(10, 20)])
    assert len(est.history_) == X.shape[1]
    assert est.history_[X.shape[1] - 1].decision == "ungrouped"
    with pytest.raises(ValueError, match="must not overlap"):
        GroupSAOLA().fit(X, y, [np.arange(0, 10), np.arange(5, 15)])
    with pytest.raises(ValueError, match="outside"):
        GroupSAOLA().fit(X, y, [np.arange(0, X.shape[1] + 1)])
    with pytest.raises(ValueError, match="one label per feature"):
        GroupSAOLA().fit(X, y, np.zeros(X.shape[1] - 1, dtype=int))
    with pytest.raises(ValueError, match="'groups' is required"):
        GroupSAOLA().fit(X, y)


def test_random_feature_groups_is_a_partition():
    g = random_feature_groups(103, 10, random_state=0)
    assert len(g) == 10
    allf = np.concatenate(g)
    np.testing.assert_array_equal(np.sort(allf), np.arange(103))
    assert max(map(len, g)) - min(map(len, g)) <= 1
    g2 = random_feature_groups(103, 10, random_state=0)
    assert all(np.array_equal(a, b) for a, b in zip(g, g2, strict=False))
    with pytest.raises(ValueError, match="'n_groups' must be"):
        random_feature_groups(5, 6)


@parametrize_with_checks(
    [SAOLA()],
    expected_failed_checks=lambda est: {
        "check_n_features_in_after_fitting": "partial_fit consumes NEW feature columns, so a call with a "
        "different number of columns is the intended use, not an error",
    },
)
def test_sklearn_conventions(estimator, check):
    check(estimator)


def test_kernels_equal_their_python_bodies():
    from fsviz.select import _saola_kernels as K

    rng = np.random.default_rng(13)
    for _ in range(5):
        s, b = 6, 9
        relS, relC = rng.uniform(0.1, 0.6, s), rng.uniform(0.1, 0.6, b)
        relC[3] = relS[2]  # a tie
        C1, C2 = rng.uniform(0, 0.7, (s, b)), rng.uniform(0, 0.7, (b, b))
        outs = []
        for f in (K.saola_block_dense, K.saola_block_dense.py_func):
            args = [
                np.ones(s, dtype=bool),
                np.zeros(b, dtype=np.int8),
                np.full(b, -1),
                np.full(b, np.nan),
                np.full(s, -1),
                np.full(b, -1),
            ]
            aliveC = f(relS, args[0], relC, C1, C2, *args[1:])
            outs.append([aliveC] + args)
        for u, v in zip(*outs, strict=False):
            np.testing.assert_array_equal(u, v)
        g = 7
        rel, idx = rng.uniform(0.1, 0.6, g), np.arange(g) * 3
        D = rng.uniform(0, 0.7, (g, g))
        D = (D + D.T) / 2
        outs = []
        for f in (K.group_intra, K.group_intra.py_func):
            a = [np.ones(g, dtype=bool), np.zeros(g, dtype=np.int8), np.full(g, -1), np.full(g, np.nan)]
            f(rel, idx, D, *a)
            outs.append(a)
        for u, v in zip(*outs, strict=False):
            np.testing.assert_array_equal(u, v)
        C = rng.uniform(0, 0.7, (s, g))
        outs = []
        for f in (K.group_inter, K.group_inter.py_func):
            a = [
                np.ones(s, dtype=bool),
                np.ones(g, dtype=bool),
                np.zeros(g, dtype=np.int8),
                np.full(g, -1),
                np.full(g, np.nan),
                np.full(s, -1),
            ]
            f(relS, np.arange(s), a[0], rel, idx + 100, a[1], C, *a[2:])
            outs.append(a)
        for u, v in zip(*outs, strict=False):
            np.testing.assert_array_equal(u, v)


# ----------------------------------------------------------------------------- history tables
def _explain_ref(h, j):
    """The sentence rule written out per feature in plain Python (the pre-vectorised code)."""
    m = h.measure
    f, r, p = int(h.feature[j]), float(h.relevance[j]), float(h.p_value[j])
    d = str(h.decision[j])
    if d == "irrelevant":
        extra = f", p = {p:.3g}" if np.isfinite(p) else ""
        return f"feature {f}: dropped as irrelevant to the target ({m}(F, C) = {r:.4g}{extra})."
    if d == "ungrouped":
        return f"feature {f}: not in any group, never streamed."
    if d in ("redundant", "intra_redundant", "inter_redundant"):
        where = {"redundant": "", "intra_redundant": " within its group"}.get(
            d, " to a previously selected group"
        )
        return (
            f"feature {f}: dropped as redundant{where} with feature {int(h.redundant_with[j])} "
            f"({m}(F, Y) = {float(h.pair_value[j]):.4g} >= {m}(F, C) = {r:.4g}, "
            "and Y is at least as relevant)."
        )
    out = f"feature {f}: admitted ({m}(F, C) = {r:.4g})"
    gone = [int(k) for k in np.flatnonzero(h.removed_by == f)]
    if gone:
        out += f", removing {gone}"
    if h.removed_by[j] >= 0:
        out += f"; later removed as redundant by feature {int(h.removed_by[j])}"
    return out + "."


def _set_sizes_ref(h, order):
    size, out, pos = 0, [], {int(f): k for k, f in enumerate(order)}
    removals = {}
    for j in np.flatnonzero(h.removed_by >= 0):
        removals[pos[int(h.removed_by[j])]] = removals.get(pos[int(h.removed_by[j])], 0) + 1
    for k, f in enumerate(order):
        size += int(h.decision[f] == "admitted") - removals.get(k, 0)
        out.append(size)
    return np.array(out)


def _runs():
    X, y = clustered(seed=7, n_noise=60)
    Xd, yd = clustered(seed=3, discrete=True)
    perm = np.random.default_rng(3).permutation(X.shape[1])
    groups = np.split(perm[: X.shape[1] - 9], 9)  # unsorted groups of 9; the last 9 features ungrouped
    return {
        "saola": SAOLA(alpha=0.05).fit(X, y),
        "saola-discrete": SAOLA().fit(Xd, yd),
        "group-saola": GroupSAOLA(alpha=0.05).fit(X, y, groups),
    }, groups


@pytest.mark.parametrize("kind", ["saola", "saola-discrete", "group-saola"])
def test_history_explanations_equal_explain_and_reference(kind):
    runs, _ = _runs()
    h = runs[kind].history_
    n = len(h)
    rows = np.arange(n)
    texts = h.explanations(rows)
    assert texts.shape == (n,)
    assert list(texts) == [h.explain(i) for i in range(n)]
    assert list(texts) == [_explain_ref(h, i) for i in range(n)]
    assert list(texts) == [d.explain(h.measure) for d in h]  # SaolaDecision: the same rule
    # any order / subset, default = stream order
    sub = np.array([5, 0, 5, n - 1])
    assert list(h.explanations(sub)) == [h.explain(i) for i in sub]
    assert list(h.explanations()) == [h.explain(i) for i in h.arrival]
    assert h.explain(-1) == h.explain(n - 1)
    assert (h.removed_by >= 0).any()  # the run exercises removals (", removing [...]")


@pytest.mark.parametrize("kind", ["saola", "saola-discrete", "group-saola"])
def test_history_outcomes_and_set_sizes(kind):
    runs, groups = _runs()
    est = runs[kind]
    h = est.history_
    n = len(h)
    out = h.outcomes(np.arange(n))
    sel = np.zeros(n, dtype=bool)
    sel[est.selected_] = True
    np.testing.assert_array_equal(out == "selected", sel)
    np.testing.assert_array_equal(out == "removed", (h.decision == "admitted") & ~sel)
    assert set(out) <= set(OUTCOMES)
    if kind == "group-saola":
        expected = np.concatenate(groups + [np.setdiff1d(np.arange(n), np.concatenate(groups))])
        np.testing.assert_array_equal(h.arrival, expected)
        assert set(h.outcomes()[-9:]) == {"ungrouped"}
    else:
        np.testing.assert_array_equal(h.arrival, np.arange(n))
    sizes = h.set_sizes()
    np.testing.assert_array_equal(sizes, _set_sizes_ref(h, h.arrival))
    assert sizes[-1] == len(est.selected_) and sizes.min() >= 0
    order = np.random.default_rng(1).permutation(n)
    np.testing.assert_array_equal(h.set_sizes(order), _set_sizes_ref(h, order))
    with pytest.raises(ValueError, match="permutation of all"):
        h.set_sizes(np.arange(n - 1))
    with pytest.raises(ValueError, match="feature indices in"):
        h.explanations([n])


def test_set_sizes_after_partial_fit_chunks():
    X, y = clustered(seed=7, n_noise=60)
    est = SAOLA(alpha=0.05)
    for a in range(0, X.shape[1], 25):
        est.partial_fit(X[:, a : a + 25], y)
    h = est.history_
    np.testing.assert_array_equal(h.set_sizes(), _set_sizes_ref(h, np.arange(len(h))))
    assert h.set_sizes()[-1] == len(est.selected_)


def test_history_tables_on_a_hand_made_history():
    """The app's former decode_history cases, now answered by the library."""
    h = SelectionHistory(
        feature=np.arange(6),
        decision=np.array(
            ["admitted", "irrelevant", "redundant", "admitted", "admitted", "intra_redundant"], dtype=object
        ),
        relevance=np.array([0.5, 0.01, 0.4, 0.6, 0.3, 0.2]),
        p_value=np.array([1e-3, 0.5, 0.01, 1e-4, 0.01, 0.02]),
        redundant_with=np.array([-1, -1, 0, -1, -1, 4]),
        pair_value=np.array([np.nan, np.nan, 0.9, np.nan, np.nan, 0.7]),
        removed_by=np.array([3, -1, -1, -1, -1, -1]),
        selected=np.array([0, 0, 0, 1, 1, 0], bool),
        group=np.full(6, -1),
        measure="|rho|",
    )
    assert list(h.outcomes()) == ["removed", "irrelevant", "redundant", "selected", "selected", "redundant"]
    assert list(h.set_sizes()) == [1, 1, 1, 1, 2, 2]
    order = np.array([4, 0, 1, 2, 3, 5])
    assert h.outcomes(order)[1] == "removed" and list(h.set_sizes(order)) == [1, 2, 2, 2, 2, 2]
    why = h.explanations()
    assert why[0] == "feature 0: admitted (|rho|(F, C) = 0.5); later removed as redundant by feature 3."
    assert why[3] == "feature 3: admitted (|rho|(F, C) = 0.6), removing [0]."
    assert why[1] == "feature 1: dropped as irrelevant to the target (|rho|(F, C) = 0.01, p = 0.5)."
    assert "redundant within its group with feature 4 (|rho|(F, Y) = 0.7 >= |rho|(F, C) = 0.2" in why[5]
    assert list(why) == [_explain_ref(h, i) for i in range(6)]
