"""fsviz.compute: cache keys, pure computations and exports, on small hand-made data.

Library-backed runs (GDM, scores, GRM, SAOLA, histogram) are checked against the library's
own estimators at the end of this file.
"""

from __future__ import annotations

import dataclasses
import hashlib
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import fsviz
import fsviz.compute as fc


def toy_dataset(n=40, m=12, seed=0, sparse=False, image_shape=None):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, m))
    X[:, 1] = X[:, 0] + 0.05 * rng.normal(size=n)  # a near copy of feature 0
    X[:, 5] = 3.0  # constant
    y = (X[:, 0] > 0).astype(int)
    if sparse:
        X[np.abs(X) < 0.8] = 0.0
        X = sp.csc_matrix(X)
    names = [f"g{i}" for i in range(m)]
    fp = hashlib.sha256((X.toarray() if sparse else X).tobytes()).hexdigest()
    return SimpleNamespace(X=X, y=y, feature_names=names, image_shape=image_shape, name="toy", fingerprint=fp)


def group_result(m=12):
    support = np.array([0, 7])
    af = np.array([1, 2, 8])
    af_sf = np.array([0, 0, 7])
    scores = np.linspace(1, 0.1, m)
    return fc.GroupResult(
        key=fc.cache_key("fp", "gdm", {"tau": 0.3}),
        support=support,
        sf_scores=scores[support],
        af=af,
        af_sf=af_sf,
        af_rho=np.array([0.99, 0.8, 0.9]),
        scores=scores,
        n_correlations=30,
        n_features=m,
        objective_history=np.array([2.0, 1.0]),
        seconds=0.1,
    )


def test_cache_key_is_order_free_and_versioned():
    a = fc.cache_key("fp", "gdm", {"tau": 0.3, "C": 1.0}, 0)
    b = fc.cache_key("fp", "gdm", {"C": 1.0, "tau": np.float64(0.3)}, np.int64(0))
    assert a == b and hash(a) == hash(b)
    assert a[-1] == fsviz.__version__
    assert fc.cache_key("fp", "gdm", {"tau": 0.31}) != a
    assert fc.cache_key("fp", "gdm", {"tau": 0.3, "C": 1.0}, 1) != a
    assert fc.cache_key("fp2", "gdm", {"tau": 0.3, "C": 1.0}) != a
    # nested lists (prior groups) become hashable tuples
    k = fc.cache_key("fp", "grm", {"prior_groups": [[1, 2], [3, 4]]})
    assert k[2] == (("prior_groups", ((1, 2), (3, 4))),)
    assert fc.params_label(a[2]) == "C=1, tau=0.3"
    assert fc.params_label(k[2]) == "prior_groups=(1, 2),(3, 4)"
    assert (
        fc.params_label({"base": "score:lgd", "base_params": (("n_neighbors", 5),), "gamma": 1.0})
        == "n_neighbors=5, gamma=1"
    )


@pytest.mark.parametrize("sparse", [False, True])
def test_pair_correlations_match_numpy(sparse):
    ds = toy_dataset(sparse=sparse)
    dense = ds.X.toarray() if sparse else ds.X
    a = np.array([0, 0, 3, 7, 5])
    b = np.array([1, 4, 9, 2, 0])
    r = fc.pair_correlations(ds, a, b)
    with np.errstate(invalid="ignore", divide="ignore"):
        C = np.corrcoef(dense, rowvar=False)
    expect = np.nan_to_num(C[a, b])
    np.testing.assert_allclose(r, expect, atol=1e-12)
    assert r[-1] == 0.0  # constant feature


def test_summary_counts_everything():
    ds = toy_dataset()
    s = fc.summarize(ds)
    assert (s.n_samples, s.n_features) == (40, 12)
    assert list(s.constant) == [5]
    assert sum(c for _, c in s.classes) == 40
    assert s.n_missing == 0 and not s.sparse
    frame = fc.summary_frame(s)
    assert frame.set_index("quantity").loc["constant features", "value"] == "1"
    assert fc.classes_frame(s)["samples"].sum() == 40
    assert list(fc.preview_frame(ds, 3, 4).columns) == ["label", "g0", "g1", "g2", "g3"]
    assert fc.names_preview(ds.feature_names, np.arange(12), limit=2) == "g0, g1 … (+10 more)"


def test_group_result_selection_and_tables():
    r = group_result()
    assert list(r.group_sizes()) == [2, 1]
    sel = r.to_selection()
    assert list(sel.indices) == [0, 7, 1, 2, 8]
    assert sel.roles == ("SF", "SF", "AF", "AF", "AF")
    assert list(sel.groups) == [0, 7, 0, 0, 7]
    frame = fc.groups_frame(r, [f"g{i}" for i in range(12)])
    assert len(frame) == 5 and set(frame["role"]) == {"SF", "AF"}
    assert frame.loc[frame["index"] == 8, "|rho| to SF"].item() == pytest.approx(0.9)
    assert r.n_pairs == 66
    rows = fc.gdm_prior_rows(r)
    assert sorted(rows["feature"]) == [0, 1, 2, 7, 8]
    assert fc.validate_prior_groups(rows, 12) == [[0, 1, 2], [7, 8]]
    parts = fc.gdm_partition(r, 12)
    assert sorted(sum(parts, [])) == list(range(12))
    assert [0, 1, 2] in parts and [7, 8] in parts
    choices = fc.group_choices(r, (3, 4))
    assert choices[7] == "group of feature 7 (row 1, col 3): 1 affiliated"
    r2 = dataclasses.replace(r, af_sf=np.array([0, 7, 7]))  # group of 7 is now the larger
    assert list(fc.group_choices(r2)) == [-1, 7, 0]
    assert fc.mask_opacity(r) == 0.35  # 5 of 12 pixels tinted: lighter overlay
    assert fc.mask_opacity(dataclasses.replace(r, n_features=100)) == 0.6


def test_selection_csv_round_trips_exactly():
    r = group_result()
    sel = r.to_selection()
    names = [f"name,{i}" for i in range(12)]  # commas must be quoted
    back = fc.read_selection_csv(fc.selection_csv(sel, names))
    pd.testing.assert_frame_equal(back, fc.selection_frame(sel, names))
    assert back["score"].to_numpy().tobytes() == np.asarray(sel.scores, dtype=float).tobytes()


@pytest.mark.parametrize("sparse", [False, True])
def test_reduced_csv_round_trips_exactly(sparse):
    ds = toy_dataset(sparse=sparse)
    idx = [9, 0, 3]
    back = pd.read_csv(__import__("io").BytesIO(fc.reduced_csv(ds, idx)))
    dense = ds.X.toarray() if sparse else ds.X
    assert list(back.columns) == ["g9", "g0", "g3", "label"]
    assert back[["g9", "g0", "g3"]].to_numpy().tobytes() == np.ascontiguousarray(dense[:, idx]).tobytes()
    np.testing.assert_array_equal(back["label"], ds.y)


def test_validate_prior_groups_errors_name_the_row():
    ok = pd.DataFrame({"feature": [3, 4, 5, 9], "group": ["a", "a", "b", " b "]})
    assert fc.validate_prior_groups(ok, 10) == [[3, 4], [5, 9]]
    assert fc.validate_prior_groups(pd.DataFrame({"feature": [1], "group": ["x"]}), 10) == []
    with pytest.raises(ValueError, match=r"row 1: 'feature' must be an integer index in \[0, 10\); got 10"):
        fc.validate_prior_groups(pd.DataFrame({"feature": [1, 10], "group": ["a", "a"]}), 10)
    with pytest.raises(ValueError, match="row 0: 'feature' must be an integer"):
        fc.validate_prior_groups(pd.DataFrame({"feature": [1.5], "group": ["a"]}), 10)
    with pytest.raises(ValueError, match="row 1: 'group' is empty"):
        fc.validate_prior_groups(pd.DataFrame({"feature": [1, 2], "group": ["a", None]}), 10)
    with pytest.raises(ValueError, match="feature 2 appears in more than one row"):
        fc.validate_prior_groups(pd.DataFrame({"feature": [2, 2], "group": ["a", "b"]}), 10)


def test_positive_scores_keeps_order():
    s = np.array([-3.0, 0.0, 2.0, 2.0])
    p = fc.positive_scores(s)
    assert (p > 0).all() and list(np.argsort(-p, kind="stable")) == list(np.argsort(-s, kind="stable"))
    q = np.array([0.5, 0.0])
    assert fc.positive_scores(q) is not None and np.array_equal(fc.positive_scores(q), q)


def test_decode_history_reasons_and_set_size():
    h = SimpleNamespace(
        feature=np.arange(6),
        measure="|rho|",
        decision=np.array(
            ["admitted", "irrelevant", "redundant", "admitted", "admitted", "intra_redundant"], dtype=object
        ),
        relevance=np.array([0.5, 0.01, 0.4, 0.6, 0.3, 0.2]),
        p_value=np.array([1e-3, 0.5, 0.01, 1e-4, 0.01, 0.02]),
        redundant_with=np.array([-1, -1, 0, -1, -1, 4]),
        pair_value=np.array([np.nan, np.nan, 0.9, np.nan, np.nan, 0.7]),
        removed_by=np.array([3, -1, -1, -1, -1, -1]),
        selected=np.array([0, 0, 0, 1, 1, 0], bool),
    )
    dec, why, size = fc.decode_history(h, np.arange(6))
    assert dec == ("removed", "irrelevant", "redundant", "selected", "selected", "redundant")
    assert "later removed as redundant by feature 3" in why[0]
    assert why[1].startswith("irrelevant to the label") and "p = 0.5" in why[1]
    assert "redundant with feature 0" in why[2] and "0.9 >= " in why[2]
    assert "within its group with feature 4" in why[5]
    assert list(size) == [1, 1, 1, 1, 2, 2]
    # another arrival order (group-SAOLA streams groups): the set size follows arrivals
    dec2, _, size2 = fc.decode_history(h, np.array([4, 0, 1, 2, 3, 5]))
    assert dec2[1] == "removed" and list(size2) == [1, 2, 2, 2, 2, 2]


def test_project_and_image_panels():
    ds = toy_dataset(m=16, image_shape=(4, 4))
    p = fc.project(ds, [0, 2, 3])
    assert p.coords.shape == (40, 2) and 0 < p.explained.sum() <= 1 + 1e-9
    one = fc.project(ds, [2])
    assert np.all(one.coords[:, 1] == 0)
    with pytest.raises(ValueError, match="'indices' is empty"):
        fc.project(ds, [])
    panels = fc.image_panels(ds, n_examples=3)
    assert panels.examples.shape == (3, 4, 4) and panels.means.shape == (2, 4, 4)
    np.testing.assert_allclose(panels.means[1].ravel(), ds.X[ds.y == 1].mean(0))
    assert set(panels.example_labels) == {"0", "1"}
    with pytest.raises(ValueError, match="has no image_shape"):
        fc.image_panels(toy_dataset())


def test_compare_frame_and_random_partition():
    r = group_result()
    honest, biased = fc.Evaluation(5, 0.8, 0.2, reselected=True), fc.Evaluation(5, 0.9, 0.2)
    frame = fc.compare_frame([(r.to_selection(), honest, biased), (r.to_selection(), None)])
    assert list(frame["n features"]) == [5, 5]
    assert frame[fc.CV_HONEST].tolist()[0] == 0.8 and frame[fc.CV_BIASED].tolist()[0] == 0.9
    assert frame[fc.CV_HONEST].isna().tolist() == [False, True]
    parts = fc.random_partition(10, 3, seed=1)
    assert len(parts) == 3 and sorted(sum(parts, [])) == list(range(10))
    assert fc.score_params("lgd", 7) == {"n_neighbors": 7} and fc.score_params("fisher", 7) == {}


# ---------------------------------------------------------------------------- library-backed runs
@pytest.fixture(scope="module")
def digits():
    from fsviz.data import list_samples, load_sample

    return load_sample(next(n for n in list_samples() if "digit" in n))


def test_run_gdm_flattens_the_estimator(digits):
    from fsviz.select import GDM

    params = dict(tau=0.3, n_per_iter=10, max_iter=10, C=1.0, corr="pearson", one_class=False, cv_folds=None)
    res = fc.run_gdm(digits, params, seed=0)
    est = GDM(**params, random_state=0).fit(digits.X, digits.y)
    np.testing.assert_array_equal(res.support, est.support_)
    for s, afs in est.groups_.items():
        np.testing.assert_array_equal(np.sort(res.af[res.af_sf == s]), np.sort(afs))
    assert res.n_correlations == est.n_correlations_
    assert res.key == fc.cache_key(digits.fingerprint, "gdm", params, 0)
    assert (res.af_rho >= 1 - 0.3 - 1e-9).all()  # affiliated means |rho| >= 1 - tau
    # a new tau gives another key and (here) other groups; moments are reused by passing them
    mom = fc.feature_moments(digits)
    other = fc.run_gdm(digits, dict(params, tau=0.6), seed=0, moments=mom)
    assert other.key != res.key and len(other.af) >= len(res.af)


def test_run_gdm_one_vs_rest_on_multiclass():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 10))
    y = np.repeat([0, 1, 2], 30)
    X[:, 0] += 3 * (y == 2)
    X[:, 1] = X[:, 0] + 0.01 * rng.normal(size=90)
    ds = SimpleNamespace(X=X, y=y, feature_names=[f"f{i}" for i in range(10)], name="three", fingerprint="t")
    base = dict(tau=0.3, n_per_iter=2, max_iter=3, C=1.0, corr="pearson", one_class=False, cv_folds=None)
    with pytest.raises(ValueError, match="2 classes"):
        fc.run_gdm(ds, base)
    res = fc.run_gdm(ds, dict(base, positive="2"))
    assert 0 in res.support or 1 in res.support
    assert dict(res.key[2])["positive"] == "2"
    with pytest.raises(ValueError, match="'positive' class"):
        fc.run_gdm(ds, dict(base, positive="7"))


@pytest.mark.parametrize("method", sorted(fc.SCORE_METHODS))
def test_run_score_matches_the_selector(digits, method):
    from fsviz import select

    params = fc.score_params(method, 5)
    res = fc.run_score(digits, method, params, seed=0)
    cls = getattr(select, fc.SCORE_METHODS[method][0])
    est = cls(**params)
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    est.fit(digits.X, digits.y)
    np.testing.assert_allclose(res.scores, np.nan_to_num(est.scores_))
    assert np.isfinite(res.scores).all()


def test_run_grm_refines_the_base_score(digits):
    from fsviz.select import GRM

    base = fc.run_score(digits, "fisher", {}, seed=0)
    res = fc.run_grm(digits, base, n_top=30, prior_groups=[[1, 2, 3]], gamma=2.0)
    est = GRM(n_top=30, prior_groups=[[1, 2, 3]], gamma=2.0).fit(digits.X, base.scores)
    np.testing.assert_array_equal(res.candidates, est.top_)
    np.testing.assert_allclose(res.refined, est.scores_[est.top_])
    top = np.argsort(est.ranking_, kind="stable")[:30]
    np.testing.assert_array_equal(res.refined_order, top)
    again = fc.run_grm(digits, base, n_top=30, prior_groups=[], gamma=2.0)
    assert again.key != res.key
    ev_b = fc.evaluate_top(digits, res.base_order, 10)
    ev_a = fc.evaluate_top(digits, res.refined_order, 10)
    assert 0 <= ev_a.redundancy <= 1 and 0.5 <= ev_b.cv_accuracy <= 1


def test_run_stream_is_saola_in_chunks(digits):
    from fsviz.select import SAOLA

    seen, live = [], []
    res = fc.run_stream(
        digits,
        "saola",
        dict(alpha=0.05, delta=0.0, data="auto"),
        chunk=16,
        progress=lambda f, t, **info: (seen.append(f), live.append(info)),
    )
    est = SAOLA(alpha=0.05, delta=0.0, data="auto").fit(digits.X, digits.y)
    np.testing.assert_array_equal(np.sort(res.selected), np.sort(est.selected_))
    assert seen == [0.25, 0.5, 0.75, 1.0]
    assert [i["arrived"] for i in live] == [16, 32, 48, 64] and live[-1]["selected"] == len(res.selected)
    assert res.set_size[-1] == len(res.selected)
    assert sum(d == "selected" for d in res.decision) == len(res.selected)
    assert all(r for r in res.reason)
    groups = fc.random_partition(64, 8, seed=0)
    g = fc.run_stream(digits, "group-saola", dict(alpha=0.05, delta=0.0, data="auto"), groups=groups)
    assert len(g.arrival) == 64 and set(g.selected) <= set(range(64))


def test_run_histogram_matches_the_library(digits):
    from fsviz.stats import correlation_histogram

    res = fc.run_histogram(digits, n_bins=20)
    ref = correlation_histogram(digits.X, bins=20)
    np.testing.assert_array_equal(res.counts, ref.counts)
    assert res.exact and res.n_pairs == res.n_pairs_total == ref.n_pairs
    est = fc.run_histogram(digits, n_bins=20, max_features=10)
    assert not est.exact


def test_reselector_refits_the_method_in_each_fold():
    """On pure noise with many features, selection on all samples looks good; redone in the
    folds it is at chance (the selection bias the honest column removes)."""
    from types import SimpleNamespace

    from fsviz.evaluate import cv_accuracy

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2000))
    y = np.repeat([0, 1], 30)
    ds = SimpleNamespace(X=X, y=y, name="noise", fingerprint="noise")
    sel = fc.run_score(ds, "fisher", {}, 0).to_selection(10)
    f = fc.reselector(sel, 0)
    np.testing.assert_array_equal(f(X, y)[:10], sel.indices)  # same method, same parameters
    biased = fc.evaluate_top(ds, sel.indices, 10)
    honest = fc.evaluate_top(ds, sel.indices, 10, selector=f)
    assert honest.reselected and not biased.reselected and honest.redundancy == biased.redundancy
    assert biased.cv_accuracy >= 0.7 and honest.cv_accuracy <= biased.cv_accuracy - 0.15, (biased, honest)
    folds = cv_accuracy(X, y, f, k=10, reselect=True).selected
    assert len({tuple(u) for u in folds}) == 5  # a different selection in every training fold
    base = fc.run_score(ds, "fisher", {}, 0)
    grm = fc.run_grm(ds, base, 30, [], 1.0, 0).to_selection(10)
    np.testing.assert_array_equal(fc.reselector(grm, 0)(X, y)[:10], grm.indices)
    with pytest.raises(ValueError, match="cannot be refitted"):
        other = fc.Selection(("f", "other", (), 0, ""), "x", (), sel.indices, sel.scores, (), sel.groups, 0.0)
        fc.reselector(other)(X, y)


def test_reselector_reproduces_every_method_on_all_samples(digits):
    """Refitted on the full data, each method's reselector gives back the selection itself."""
    ds = digits
    gdm = fc.run_gdm(ds, {"tau": 0.3, "max_iter": 5}, 0)
    sels = [gdm.to_selection(), fc.run_score(ds, "lgd", {"n_neighbors": 5}, 0).to_selection(10)]
    saola = {"alpha": 0.01, "delta": 0.0, "data": "auto"}
    sels.append(fc.run_stream(ds, "saola", saola, 20, 0).to_selection())
    parts = fc.gdm_partition(gdm, ds.X.shape[1])
    sels.append(fc.run_stream(ds, "group-saola", saola, seed=0, groups=parts).to_selection())
    for sel in sels:
        again = fc.reselector(sel, 0)(ds.X, ds.y)
        np.testing.assert_array_equal(again[: sel.n_features], sel.indices, err_msg=sel.method)
