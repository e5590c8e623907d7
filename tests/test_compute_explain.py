"""The "explain" view: every catalogue method's stand-in table covers every unselected feature
with the correlation of a brute-force computation; the reasons in each method's own terms; the
explained selection CSV; the "why not this feature?" lookup."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import scipy.sparse as sp

import fsviz.compute as fc
import fsviz.select as S
from fsviz.compute import Run
from fsviz.data import Dataset, make_grouped_classification
from fsviz.stats import discretize, symmetrical_uncertainty


@pytest.fixture(scope="module")
def planted():
    """60 x 40, three planted groups; shifted to be non-negative (chi-square takes counts)."""
    X, y, truth = make_grouped_classification(n_samples=60, n_features=40, n_groups=3, random_state=0)
    ds = Dataset(X - X.min(), y=y, feature_names=[f"g{i}" for i in range(40)], name="planted")
    return ds, truth


def catalogue_run(name: str) -> Run:
    params = {}
    if name == "grm":
        params = {"base": Run("fisher", {}, 0), "n_top": 20, "prior_groups": [[0, 1, 2, 3]]}
    if name == "group-saola":
        params = {"groups": Run("gdm", {}, 0)}
    return Run(name, params, 0)


def brute_corr(X: np.ndarray, j: int, s: int, measure: str) -> float:
    if measure == "su":
        codes = discretize(X, n_bins=10).codes
        return symmetrical_uncertainty(codes[:, j], codes[:, s])
    return float(np.corrcoef(X[:, j], X[:, s])[0, 1])


#: model-X knockoffs need n >= 2m (``planted`` has fewer samples); their --explain runs in
#: tests/test_cli_cuts.py on a tall table
@pytest.mark.parametrize("name", [n for n in fc.selection_methods() if n != "knockoffs"])
def test_every_method_explains_every_unselected_feature_with_brute_force_correlations(planted, name):
    ds, _ = planted
    run = catalogue_run(name)
    k = 5 if run.spec.kind in ("score", "grm") else None
    ex = fc.explain_run(run, k).execute(ds)
    sel = run.execute(ds).selection(k)
    np.testing.assert_array_equal(ex.selected, sel.indices)
    left = np.setdiff1d(np.arange(40), ex.pool)
    np.testing.assert_array_equal(np.sort(ex.frame(ds.feature_names, left)["index"]), left)
    assert (ex.stand_in[left] >= 0).all() and np.isin(ex.stand_in[left], ex.pool).all()
    assert all(str(r) for r in ex.reason)
    np.testing.assert_array_equal(np.sort(ex.rank), np.arange(1, 41))
    np.testing.assert_array_equal(ex.rank[sel.indices], np.arange(1, len(sel.indices) + 1))
    X = np.asarray(ds.X)
    for j in left[:: max(1, len(left) // 6)]:  # brute force: the best pool feature, pair by pair
        corr = [brute_corr(X, int(j), int(s), ex.measure) for s in ex.pool]
        t = int(np.argmax(np.abs(corr)))
        assert ex.stand_in[j] == ex.pool[t]
        assert ex.stand_in_corr[j] == pytest.approx(corr[t], abs=1e-10)


def test_gdm_affiliated_features_stand_in_is_their_support_feature():
    X, y, truth = make_grouped_classification(n_samples=300, n_features=600, n_groups=6, random_state=0)
    ds = Dataset(X, y=y, name="planted")
    run = Run("gdm", {}, 0)
    res = run.execute(ds)
    ex = fc.explain_run(run).execute(ds)
    assert res.af.size
    np.testing.assert_array_equal(ex.stand_in[res.af], res.af_sf)
    np.testing.assert_allclose(np.abs(ex.stand_in_corr[res.af]), res.af_rho, atol=1e-10)
    af = int(res.af[0])
    assert ex.reason[af] == f"affiliated to SF f{res.af_sf[0]} (|ρ| = {res.af_rho[0]:.2f})"
    why = ex.lookup(af, ds.feature_names)
    assert not why.selected and why.stand_in == res.af_sf[0] and "affiliated to SF" in why.text
    ungrouped = np.setdiff1d(np.arange(600), np.concatenate([res.support, res.af]))
    assert str(ex.reason[ungrouped[0]]).startswith("in no group: |ρ| < 1 − τ = 0.70")
    assert ex.lookup(int(res.support[0]), ds.feature_names).selected


def test_saola_reasons_name_the_feature_its_test_found_redundant(planted):
    ds, _ = planted
    run = Run("saola", {"alpha": 0.05}, 0)
    ex = fc.explain_run(run).execute(ds)
    est = S.SAOLA(alpha=0.05).fit(ds.X, ds.y)
    hist = est.history_
    red = [j for j in range(40) if str(hist.decision[j]) == "redundant"]
    assert red
    for j in red:
        want = f"dropped at arrival: redundant with g{hist.redundant_with[j]} (test: "
        assert str(ex.reason[j]).startswith(want), ex.reason[j]
    irr = [j for j in range(40) if str(hist.decision[j]) == "irrelevant"]
    assert all(str(ex.reason[j]).startswith("dropped at arrival: irrelevant to the target") for j in irr)


def test_grm_reasons_prior_group_and_working_set(planted):
    ds, _ = planted
    order = Run("fisher", {}, 0).execute(ds).order
    group = [int(order[0]), *order[-3:].tolist()]  # Fisher's best with three of its worst
    run = Run("grm", {"base": Run("fisher", {}, 0), "n_top": 20, "prior_groups": [group]}, 0)
    res = run.execute(ds)
    ex = fc.explain_run(run, 5).execute(ds)
    top = set(res.selection(5).indices.tolist())
    chosen, left = [g for g in group if g in top], [g for g in group if g not in top]
    assert chosen and left
    rep = min(chosen, key=lambda g: ex.rank[g])
    for g in left:
        assert ex.reason[g] == f"redundant with g{rep}; its prior group already represented"
    outside = np.setdiff1d(np.setdiff1d(np.arange(40), res.candidates), group)
    assert str(ex.reason[outside[0]]) == "outside GRM's working set: not in the top 20 of Fisher score"
    inside = [c for c in res.candidates.tolist() if c not in top and c not in group]
    assert str(ex.reason[inside[0]]).startswith("GRM's refined score below the k-th (Fisher score rank ")


def test_ranker_reason_and_rank_follow_the_scores(planted):
    ds, _ = planted
    run = Run("fisher", {}, 0)
    res = run.execute(ds)
    ex = fc.explain_run(run, 5).execute(ds)
    np.testing.assert_array_equal(ex.rank, res.ranking)
    kth = res.scores[res.order[4]]
    j = int(res.order[10])
    assert ex.reason[j] == f"score below the k-th ({res.scores[j]:.4g} < {kth:.4g})"
    frame = ex.dropped_frame(ds.feature_names, top=3)
    assert frame["rank"].tolist() == [6, 7, 8]


def test_explained_selection_csv_appends_every_unselected_feature(planted):
    ds, _ = planted
    run = Run("mrmr", {"n_features": 6}, 0)
    sel = run.execute(ds).selection()
    ex = fc.explain_run(run).execute(ds)
    frame = fc.read_selection_csv(fc.selection_csv(sel, ds.feature_names, ex))
    assert list(frame.columns) == [*fc.SELECTION_COLUMNS, *fc.EXPLAIN_COLUMNS]
    assert len(frame) == 40 and frame["index"].is_unique
    assert frame["role"].tolist() == ["selected"] * 6 + ["unselected"] * 34
    assert frame["rank"].tolist() == list(range(1, 41))
    tail = frame.iloc[6:]
    assert tail["stand_in"].isin([f"g{i}" for i in sel.indices]).all()
    np.testing.assert_allclose(tail["stand_in_corr"], ex.stand_in_corr[tail["index"]], rtol=0, atol=0)
    assert frame.iloc[:6]["stand_in_corr"].isna().all() and (frame.iloc[:6]["stand_in"] == "").all()
    plain = fc.read_selection_csv(fc.selection_csv(sel, ds.feature_names))
    pd_equal = plain.equals(frame.iloc[:6][list(fc.SELECTION_COLUMNS)].reset_index(drop=True))
    assert pd_equal  # the selection's own rows are unchanged
    other = Run("fisher", {}, 0).execute(ds).selection(6)
    with pytest.raises(ValueError, match="does not match the selection"):
        fc.selection_csv(other, ds.feature_names, ex)


def test_lookup_by_name_and_errors(planted):
    ds, _ = planted
    ex = fc.explain_run(Run("fisher", {}, 0), 3).execute(ds)
    why = ex.find("g12", ds.feature_names)
    assert why.feature == 12 and why.rank == ex.rank[12]
    assert why.text.startswith(f"g12: rank {why.rank} of 40") and "Stand-in: g" in why.text
    with pytest.raises(ValueError, match=r"No feature is named 'g99'\. Names containing it"):
        ex.find("g99", [*ds.feature_names[:-1], "g990"])
    with pytest.raises(ValueError, match=r"feature index must lie in \[0, 40\)"):
        ex.lookup(40, ds.feature_names)
    with pytest.raises(ValueError, match="'of' must be the Run of a feature selection"):
        Run("explain", {"of": Run("histogram", {})}).execute(ds)


def test_a_constant_feature_has_no_stand_in():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 6))
    X[:, 4] = 2.0
    ds = Dataset(X, y=(X[:, 0] > 0).astype(int), name="toy")
    ex = fc.explain_run(Run("fisher", {}, 0), 2).execute(ds)
    why = ex.lookup(4, ds.feature_names)
    assert why.stand_in == -1 and np.isnan(why.stand_in_corr) and "No stand-in: it is constant" in why.text


def test_explained_csv_neutralises_formula_like_names_unless_raw():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 4))
    X[:, 2] = X[:, 0] + 0.01 * rng.normal(size=40)
    names = ["=HYPERLINK(1)", "b", "c", "d"]
    ds = Dataset(X, y=(X[:, 0] > 0).astype(int), feature_names=names, name="toy")
    run = Run("fisher", {}, 0)
    sel, ex = run.execute(ds).selection(1), fc.explain_run(run, 1).execute(ds)
    assert sel.indices.tolist() == [0] or sel.indices.tolist() == [2]
    safe = fc.read_selection_csv(fc.selection_csv(sel, names, ex))
    exact = fc.read_selection_csv(fc.selection_csv(sel, names, ex, raw=True))
    stand = "=HYPERLINK(1)" if sel.indices[0] == 0 else "c"
    copy = "c" if stand == "=HYPERLINK(1)" else "=HYPERLINK(1)"
    assert exact.set_index("name").loc[copy, "stand_in"] == stand
    quoted = {n: ("'" + n if n.startswith("=") else n) for n in names}
    assert safe.set_index("name").loc[quoted[copy], "stand_in"] == quoted[stand]
    assert not any(str(v).startswith("=") for v in safe[["name", "stand_in"]].to_numpy().ravel())


def test_a_selection_of_constant_features_names_no_stand_in():
    """A ranking whose top 2 are a constant and an all-zero feature: "Why not this feature?"
    names no stand-in (the correlation is undefined), never one with rho = 0."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 5))
    X[:, 0], X[:, 1] = 7.0, 0.0
    ds = Dataset(X, y=(X[:, 2] > 0).astype(int), name="constant-top")
    of = Run("fisher", {}, 0)
    top = fc.ScoreResult(of, ds.fingerprint, np.array([5.0, 4, 3, 2, 1]), np.arange(1, 6), 0.0)
    ex = fc.explain_run(of, 2).execute(ds, results=lambda r: top if r == of else r.execute(ds))
    for j in (2, 3, 4):
        why = ex.lookup(j, ds.feature_names)
        assert why.stand_in == -1 and np.isnan(why.stand_in_corr)
        assert "every selected feature is constant (correlation undefined)" in why.text
    frame = ex.frame(ds.feature_names)
    assert (frame["stand_in"] == "").all() and frame["stand_in_corr"].isna().all()
    big = Dataset(X * 1e300, y=ds.y, name="huge")  # finite, near the largest float
    top = fc.ScoreResult(of, big.fingerprint, np.array([1.0, 2, 5, 4, 3]), np.array([5, 4, 1, 2, 3]), 0.0)
    ex = fc.explain_run(of, 2).execute(big, results=lambda r: top if r == of else r.execute(big))
    assert ex.stand_in[4] in (2, 3) and np.isfinite(ex.stand_in_corr[4])  # a real rho
    brute = [np.corrcoef(X[:, 4], X[:, j])[0, 1] for j in (2, 3)]
    np.testing.assert_allclose(ex.stand_in_corr[4], max(brute, key=abs), rtol=1e-9)
    const = ex.lookup(0, big.feature_names)
    assert const.stand_in == -1 and const.constant and "it is constant" in const.text


def _same_why(a: fc.WhyNot, b: fc.WhyNot) -> None:
    """Field for field; the correlation to float rounding (a k x 1 block is summed in another
    order than the k x m one: ~1e-16 apart), NaN equal to NaN."""
    for field in dataclasses.fields(fc.WhyNot):
        u, v = getattr(a, field.name), getattr(b, field.name)
        if field.name == "stand_in_corr":
            assert (np.isnan(u) and np.isnan(v)) or u == pytest.approx(v, rel=1e-12, abs=1e-14), (a, b)
        else:
            assert u == v, (field.name, a, b)


@pytest.fixture(scope="module")
def tables():
    """Dense with a constant column, sparse CSR with an all-zero column, small integers."""
    X, y, _ = make_grouped_classification(n_samples=80, n_features=120, n_groups=3, random_state=0)
    X[:, 7] = 1.0
    Xs = sp.random(80, 120, density=0.15, random_state=1, format="lil")
    Xs[:, 5] = 0
    return {
        "dense": Dataset(X - X.min(), y=y, name="dense"),
        "sparse": Dataset(Xs.tocsr(), y=y, name="sparse"),
        "integer": Dataset(np.round(2 * X).clip(-8, 8), y=y, name="integer"),
    }


@pytest.mark.parametrize("data", ["dense", "sparse", "integer"])
@pytest.mark.parametrize(
    ("of", "k", "measure"),
    [
        (Run("gdm", {}, 0), None, None),
        (Run("gdm", {"corr": "su"}, 0), None, None),
        (Run("grm", {"base": Run("fisher", {}, 0), "n_top": 20, "prior_groups": [[0, 1, 2, 3]]}, 0), 5, None),
        (Run("fisher", {}, 0), 8, None),
        (Run("f", {}, 0), 8, "spearman"),
        (Run("fisher", {}, 0), 8, "su"),
        (Run("saola", {}, 0), None, None),
        (Run("mrmr", {"n_features": 6}, 0), 4, None),
    ],
    ids=["gdm", "gdm-su", "grm", "fisher", "f-spearman", "fisher-su", "saola", "mrmr-k4"],
)
def test_explain_feature_equals_the_full_explanations_lookup(tables, data, of, k, measure):
    ds = tables[data]
    res = of.execute(ds)
    full = fc.explain_run(of, k, measure).execute(ds, results=lambda r: res if r == of else r.execute(ds))
    kinds = set()
    for j in range(ds.n_features):  # selected, affiliated, ungrouped, constant, cut by k: all of them
        why = fc.explain_feature(ds, of, res, j, k, measure)
        _same_why(why, full.lookup(j, ds.feature_labels))
        kinds.add("pool" if why.selected else "constant" if why.constant else "stand-in")
    assert kinds == {"pool", "constant", "stand-in"}


def test_explain_feature_codes_su_as_the_whole_matrix_does():
    """Integers of few levels in the pool and the feature, one wide column elsewhere: the whole
    matrix is binned (not coded by levels), and so are the columns of one feature's stand-in."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 20, size=(60, 12)).astype(float)  # 20 levels: 10 bins merge them
    X[:, 11] = rng.integers(0, 200, size=60)  # 200 levels: the matrix is not discrete
    ds = Dataset(X, y=(X[:, 0] > 9).astype(int), name="levels")
    of = Run("fisher", {}, 0)
    res = of.execute(ds)
    full = fc.explain_run(of, 3, "su").execute(ds, results=lambda r: res)
    pool = full.pool.tolist()
    for j in (j for j in range(11) if j not in pool):
        _same_why(fc.explain_feature(ds, of, res, j, 3, "su"), full.lookup(j, ds.feature_labels))


def test_explain_feature_errors_and_an_empty_pool(planted):
    ds, _ = planted
    of = Run("fisher", {}, 0)
    res = of.execute(ds)
    for bad in (40, -1):
        with pytest.raises(ValueError, match=r"feature index must lie in \[0, 40\)"):
            fc.explain_feature(ds, of, res, bad, 3)
    with pytest.raises(ValueError, match="'of' must be the Run of a feature selection"):
        fc.explain_feature(ds, Run("histogram", {}), res, 0)
    sub = Run("mrmr", {"n_features": 3}, 0)
    empty = fc.SubsetResult(sub, ds.fingerprint, np.array([], dtype=np.int64), np.zeros(40), 0.0)
    full = fc.explain_run(sub).execute(ds, results=lambda r: empty)
    why = fc.explain_feature(ds, sub, empty, 4)
    _same_why(why, full.lookup(4, ds.feature_names))
    assert why.n_pool == 0 and "nothing is selected" in why.text
