"""fsviz.compute: Runs and their keys, the registry, results, tables and exports.

Every registered method is executed on real data and checked against its estimator; the
fold refits of cross-validation are checked to reproduce the selection on all samples.
"""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import fsviz
import fsviz.compute as fc
import fsviz.select as S
from fsviz.compute import Run
from fsviz.data import Dataset, load_dataset

ROOT = Path(__file__).resolve().parents[1]


def toy_dataset(n=40, m=12, seed=0, sparse=False, image_shape=None, names=None):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, m))
    X[:, 1] = X[:, 0] + 0.05 * rng.normal(size=n)  # a near copy of feature 0
    X[:, 5] = 3.0  # constant
    y = np.where(X[:, 0] > 0, "pos", "neg")
    if sparse:
        X[np.abs(X) < 0.8] = 0.0
        X = sp.csr_matrix(X)
    names = names or [f"g{i}" for i in range(m)]
    return Dataset(X, y=y, feature_names=names, image_shape=image_shape, name="toy")


def group_result(m=12):
    support = np.array([0, 7])
    scores = np.linspace(1, 0.1, m)
    return fc.GroupResult(
        run=Run("gdm", {"tau": 0.3}),
        fingerprint="fp",
        support=support,
        sf_scores=scores[support],
        af=np.array([1, 2, 8]),
        af_sf=np.array([0, 0, 7]),
        af_rho=np.array([0.99, 0.8, 0.9]),
        scores=scores,
        n_correlations=30,
        n_features=m,
        objective_history=np.array([2.0, 1.0]),
        seconds=0.1,
    )


@pytest.fixture(scope="module")
def digits():
    from fsviz.data import list_samples, load_sample

    return load_sample(next(n for n in list_samples() if "digit" in n))


# ---------------------------------------------------------------------------- Run values
def test_run_is_an_order_free_hashable_value_with_named_fields():
    a = Run("gdm", {"tau": 0.3, "C": 1.0}, 0)
    b = Run("gdm", {"C": 1.0, "tau": np.float64(0.3)}, np.int64(0))
    assert a == b and hash(a) == hash(b) and a.key == b.key
    assert (a.method, a.seed, a.get("tau"), a.get("missing", 7)) == ("gdm", 0, 0.3, 7)
    assert a.key.endswith(f"fsviz={fsviz.__version__}") and "seed=0" in a.key
    assert Run("gdm", {"tau": 0.31}).key != a.key and Run("gdm", {"tau": 0.3, "C": 1.0}, 1).key != a.key
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.seed = 3
    # nested lists become tuples; nested Runs stay Runs and enter the key by their own key
    grm = Run("grm", {"prior_groups": [[1, 2], [3, 4]], "base": Run("lgd", {"n_neighbors": 5})})
    assert grm.get("prior_groups") == ((1, 2), (3, 4))
    assert grm.get("base") == Run("lgd", {"n_neighbors": 5}) and Run("lgd", {"n_neighbors": 5}).key in grm.key
    assert grm.replace(gamma=2.0).get("gamma") == 2.0 and grm.replace(gamma=None).get("gamma") == 1.0
    long = Run("projection", {"features": list(range(500))})
    assert len(long.key) < 100 and long.key != Run("projection", {"features": list(range(501))}).key
    # labels name the parameters off their declared defaults (GDM's tau=0.3 and C=1 are defaults)
    assert fc.params_label(a) == "" and a.label == "GDM"
    off = Run("gdm", {"tau": 0.2, "C": 2})
    assert fc.params_label(off) == "C=2, tau=0.2" and off.label == "GDM [C=2, tau=0.2]"
    assert fc.params_label(grm) == "base=LGD, prior_groups=2 groups of 4 features"


def test_registry_names_the_estimators_and_refuses_bad_runs():
    for name in fc.selection_methods():
        spec = fc.method(name)
        assert spec.estimator is getattr(S, spec.estimator.__name__), name
        assert spec.selects and spec.label and spec.help
    assert set(fc.score_methods()) <= set(fc.selection_methods())
    with pytest.raises(ValueError, match="unknown method 'nope'"):
        Run("nope").execute(toy_dataset())
    with pytest.raises(ValueError, match=r"Fisher score: unknown parameter\(s\) \['bogus'\]"):
        Run("fisher", {"bogus": 1}).execute(toy_dataset())
    unlabelled = Dataset(np.random.default_rng(0).normal(size=(20, 5)), name="raw")
    with pytest.raises(ValueError, match="Fisher score needs class labels; dataset 'raw' has none"):
        Run("fisher").execute(unlabelled)
    assert Run("variance").execute(unlabelled).scores.shape == (5,)
    assert fc.score_params("lgd", 7) == {"n_neighbors": 7} and fc.score_params("fisher", 7) == {}
    assert fc.score_params("mi", 7) == {"strategy": "mdl"}  # GRM's IG base: MDL cuts, 0 = no evidence
    assert fc.grm_base_params("mi") == {"strategy": "mdl"} and fc.grm_base_params("relieff") == {}


# ---------------------------------------------------------------------------- results and tables
def test_group_result_selection_tables_and_partition():
    r = group_result()
    assert list(r.group_sizes()) == [2, 1]
    sel = r.selection()
    assert list(sel.indices) == [0, 7, 1, 2, 8]
    assert sel.roles == ("SF", "SF", "AF", "AF", "AF")
    assert list(sel.groups) == [1, 2, 1, 1, 2]  # group numbers 1..K, in the order GDM found the SFs
    assert list(r.selection(3).indices) == [0, 7, 1]
    frame = fc.groups_frame(r, [f"g{i}" for i in range(12)])
    assert len(frame) == 5 and set(frame["role"]) == {"SF", "AF"}
    assert frame.loc[frame["index"] == 8, "|rho| to SF"].item() == pytest.approx(0.9)
    assert frame.loc[frame["index"] == 8, "support feature"].item() == "g7"
    assert r.n_pairs == 66
    parts = [g.tolist() for g in r.partition()]
    assert sorted(sum(parts, [])) == list(range(12)) and [0, 1, 2] in parts and [7, 8] in parts
    choices = fc.group_choices(r, (3, 4))
    assert choices[7] == "group of feature 7 (row 1, col 3): 1 affiliated"
    r2 = dataclasses.replace(r, af_sf=np.array([0, 7, 7]))  # group of 7 is now the larger
    assert list(fc.group_choices(r2)) == [-1, 7, 0]
    assert fc.mask_opacity(r) == 0.35  # 5 of 12 pixels tinted: lighter overlay
    assert fc.mask_opacity(dataclasses.replace(r, n_features=100)) == 0.6


def test_dataset_tables():
    ds = toy_dataset()
    s = ds.summary()
    frame = fc.summary_frame(s).set_index("quantity")["value"]
    assert frame["constant features"] == "1" and frame["samples"] == "40"
    classes = fc.classes_frame(s)
    assert classes["class"].tolist() == ["neg", "pos"] and classes["samples"].sum() == 40
    preview = fc.preview_frame(ds, 3, 4)
    assert list(preview.columns) == ["g0", "g1", "g2", "g3", "label"]
    assert set(preview["label"]) <= {"neg", "pos"}  # class names, not codes
    assert fc.preview_frame(toy_dataset(sparse=True), 3, 4).shape == (3, 5)
    assert fc.names_preview(ds.feature_names, np.arange(12), limit=2) == "g0, g1 … (+10 more)"


def test_selection_csv_round_trips_exactly():
    sel = group_result().selection()
    names = [f"name,{i}" for i in range(12)]  # commas must be quoted
    data = fc.selection_csv(sel, names)
    assert data.splitlines()[0] == b"rank,index,name,score,role,group"
    back = fc.read_selection_csv(data)
    pd.testing.assert_frame_equal(back, fc.selection_frame(sel, names))
    assert back["score"].to_numpy().tobytes() == np.asarray(sel.scores, dtype=float).tobytes()


@pytest.mark.parametrize("sparse", [False, True])
def test_reduced_csv_keeps_class_names_and_a_feature_called_label(sparse):
    """Regression: the reduced CSV wrote integer codes under 'label', overwriting a feature
    of that name; it is now Dataset.subset(...).to_csv()."""
    names = [f"g{i}" for i in range(11)] + ["label"]
    ds = toy_dataset(sparse=sparse, names=names)
    data = fc.reduced_csv(ds, [11, 3, 0])
    header = data.splitlines()[0].decode().split(",")
    assert header[:3] == ["label", "g3", "g0"] and header[3] not in names
    back = load_dataset(io.BytesIO(data), label=header[3], fmt="csv")
    dense = ds.X.toarray() if sparse else ds.X
    assert back.X.tobytes() == np.ascontiguousarray(dense[:, [11, 3, 0]]).tobytes()
    assert back.labels.tolist() == ds.labels.tolist()  # "neg"/"pos", not 0/1


def test_compare_frame():
    sel = group_result().selection()
    run = Run("evaluation", {"of": sel.run, "k": 5})
    honest = fc.Evaluation(run, "fp", 5, 0.8, 0.2, True, 0.0)
    biased = fc.Evaluation(run, "fp", 5, 0.9, 0.2, False, 0.0)
    frame = fc.compare_frame([(sel, honest, biased), (sel, None, None)])
    assert list(frame["n features"]) == [5, 5] and frame["parameters"].tolist()[0] == "defaults"
    assert frame[fc.CV_HONEST].tolist()[0] == 0.8 and frame[fc.CV_BIASED].tolist()[0] == 0.9
    assert frame[fc.CV_HONEST].isna().tolist() == [False, True]


# ---------------------------------------------------------------------------- every method, executed
SCORES = {"lgd": {"n_neighbors": 5}, "laplacian": {"n_neighbors": 5}, "relieff": {"n_neighbors": 5}}


@pytest.mark.parametrize(
    "name", [n for n in fc.selection_methods() if fc.method(n).kind in ("score", "subset")]
)
def test_scores_and_subsets_equal_their_estimators(digits, name):
    run = Run(name, SCORES.get(name, {}), 0)
    res = run.execute(digits)
    est = run.spec.make(run).fit(digits.X, digits.y)
    np.testing.assert_array_equal(res.scores, est.scores_)
    sel = res.selection(10)
    expect = np.argsort(est.ranking_, kind="stable")[:10] if hasattr(res, "ranking") else est.selected_[:10]
    np.testing.assert_array_equal(sel.indices, expect)
    assert res.fingerprint == digits.fingerprint and res.run == run


def test_gdm_run_uses_the_estimator_and_its_group_correlations(digits):
    run = Run("gdm", {"tau": 0.3, "max_iter": 5}, 0)
    res = run.execute(digits)
    est = S.GDM(tau=0.3, max_iter=5, random_state=0).fit(digits.X, digits.y)
    np.testing.assert_array_equal(res.support, est.support_)
    assert res.n_correlations == est.n_correlations_ and len(res.af) > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        C = np.corrcoef(digits.X, rowvar=False)
    np.testing.assert_allclose(res.af_rho, np.abs(C[res.af, res.af_sf]), atol=1e-10)
    assert np.all(res.af_rho >= 0.7 - 1e-12)


def test_gdm_one_vs_rest_by_class_name():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(90, 30))
    y = np.repeat(["ant", "bee", "cat"], 30)
    X[y == "bee", :3] += 2.0
    ds = Dataset(X, y=y, name="three")
    res = Run("gdm", {"positive": "bee", "max_iter": 3}, 0).execute(ds)
    est = S.GDM(max_iter=3, random_state=0).fit(X, np.where(y == "bee", 1, -1))
    np.testing.assert_array_equal(res.support, est.support_)
    with pytest.raises(ValueError, match="'positive' class 'dog' is not one of the labels"):
        Run("gdm", {"positive": "dog"}).execute(ds)


def test_grm_run_refines_its_base_and_keeps_constant_pixels_out(digits):
    """Regression: the CLI's GRM on LGD put the 12 constant pixels of digits in its top 20."""
    base = Run("lgd", {"n_neighbors": 5}, 0)
    run = Run("grm", {"base": base, "gamma": 1.0}, 0)  # n_top=1000 > 64: every pixel is a candidate
    res = run.execute(digits)
    np.testing.assert_array_equal(res.base, base.execute(digits).scores[res.candidates])
    top = res.selection(20).indices
    assert not set(top) & set(digits.constant_features.tolist())
    assert res.base_run == base
    frame = fc.grm_frame(res, digits.feature_names)
    assert frame["GRM rank"].tolist() == list(range(1, len(res.candidates) + 1))
    with pytest.raises(ValueError, match="'base' must be a Run of a scoring method"):
        Run("grm", {"base": Run("gdm")}).execute(digits)


def test_saola_streams_in_chunks_with_progress(digits):
    seen, live = [], []
    run = Run("saola", {"alpha": 0.05, "chunk": 16}, 0)
    res = run.execute(digits, lambda f, t, **info: (seen.append(f), live.append(info)))
    est = S.SAOLA(alpha=0.05).fit(digits.X, digits.y)
    np.testing.assert_array_equal(np.sort(res.selected), np.sort(est.selected_))
    assert seen == [0.25, 0.5, 0.75, 1.0]
    assert [i["arrived"] for i in live] == [16, 32, 48, 64] and live[-1]["selected"] == len(res.selected)
    assert res.set_size[-1] == len(res.selected)
    assert res.counts()["selected"] == len(res.selected) and all(res.reason)
    assert res.reason[0] == est.history_.explain(0)  # SAOLA's own words


def test_group_saola_streams_gdm_groups_or_random_ones(digits):
    gdm = Run("gdm", {"max_iter": 3}, 0)
    by_gdm = Run("group-saola", {"alpha": 0.05, "groups": gdm}, 0).execute(digits)
    parts = gdm.execute(digits).partition()
    assert len(by_gdm.arrival) == 64 and by_gdm.arrival[: len(parts[0])].tolist() == parts[0].tolist()
    rand = Run("group-saola", {"alpha": 0.05, "groups": 8}, 0).execute(digits)
    assert set(rand.selected) <= set(range(64)) and len(rand.arrival) == 64
    with pytest.raises(ValueError, match=r"'groups' must be a GDM Run \(its groups\) or the number"):
        Run("group-saola", {"groups": "many"}).execute(digits)


def test_histogram_run_matches_the_library(digits):
    from fsviz.stats import correlation_histogram

    res = Run("histogram", {"bins": 20}).execute(digits)
    ref = correlation_histogram(digits.X, bins=20)
    np.testing.assert_array_equal(res.counts, ref.counts)
    assert res.exact and res.n_pairs == res.n_pairs_total == ref.n_pairs
    assert not Run("histogram", {"bins": 20, "max_features": 10}).execute(digits).exact


def test_projection_and_image_runs():
    ds = toy_dataset(m=16, image_shape=(4, 4))
    p = Run("projection", {"features": [0, 2, 3]}).execute(ds)
    assert p.coords.shape == (40, 2) and 0 < p.explained.sum() <= 1 + 1e-9
    assert np.all(Run("projection", {"features": [2]}).execute(ds).coords[:, 1] == 0)
    with pytest.raises(ValueError, match="'features' is empty"):
        Run("projection", {"features": []}).execute(ds)
    panels = Run("images", {"shape": (4, 4), "n_examples": 3}).execute(ds)
    assert panels.examples.shape == (3, 4, 4) and panels.means.shape == (2, 4, 4)
    np.testing.assert_allclose(panels.means[1].ravel(), ds.X[ds.y == 1].mean(0))
    assert set(panels.example_labels) == {"neg", "pos"}
    with pytest.raises(ValueError, match="has no image shape"):
        Run("images", {"shape": None}).execute(ds)


# ---------------------------------------------------------------------------- evaluation and fold refits
def test_evaluation_refits_the_run_in_each_fold():
    """On pure noise with many features, selection on all samples looks good; redone in the
    folds it is at chance (the selection bias the honest evaluation removes)."""
    from fsviz.evaluate import cv_accuracy

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2000))
    y = np.repeat([0, 1], 30)
    ds = Dataset(X, y=y, name="noise")
    fisher = Run("fisher", {}, 0)
    honest = Run("evaluation", {"of": fisher, "k": 10}).execute(ds)
    biased = Run("evaluation", {"of": fisher, "k": 10, "reselect": False}).execute(ds)
    assert honest.reselected and not biased.reselected and honest.redundancy == biased.redundancy
    assert biased.cv_accuracy >= 0.7 and honest.cv_accuracy <= biased.cv_accuracy - 0.15, (biased, honest)
    f = fc.fold_selector(fisher, 10, ds)
    np.testing.assert_array_equal(f(X, y), fisher.execute(ds).selection(10).indices)
    folds = cv_accuracy(X, y, f, k=10, reselect=True).selected
    assert len({tuple(u) for u in folds}) == 5  # a different selection in every training fold


def test_fold_refits_reproduce_every_method_on_all_samples(digits):
    """Executed on the full data through the fold path, each Run gives back its selection."""
    gdm = Run("gdm", {"tau": 0.3, "max_iter": 5}, 0)
    runs = [gdm, Run("saola", {"chunk": 20}, 0), Run("group-saola", {"groups": gdm}, 0)]
    runs += [
        Run(n, SCORES.get(n, {}), 0)
        for n in fc.selection_methods()
        if fc.method(n).kind in ("score", "subset")
    ]
    runs.append(Run("grm", {"base": Run("lgd", {"n_neighbors": 5}, 0), "n_top": 30}, 0))
    for run in runs:
        sel = run.execute(digits).selection(10)
        again = fc.fold_selector(run, 10, digits)(digits.X, digits.y)
        np.testing.assert_array_equal(again, sel.indices, err_msg=run.key)


def test_run_dicts_and_provenance_round_trip(digits):
    import json

    run = Run("grm", {"base": Run("lgd", {"n_neighbors": 5}, 2), "prior_groups": [[1, 2]], "n_top": 20}, 2)
    again = Run.from_dict(json.loads(json.dumps(run.to_dict())))
    assert again == run and again.key == run.key
    with pytest.raises(ValueError, match="Run.from_dict: expected"):
        Run.from_dict({"params": {}})
    sel = run.execute(digits).selection(5)
    prov = json.loads(fc.provenance_json(sel, digits))
    assert prov["dataset"]["fingerprint"] == digits.fingerprint and prov["fsviz_version"] == fsviz.__version__
    assert (
        prov["run"]["seed"] == 2 and prov["k"] == 5 and prov["n_selected"] == 5 and prov["run_key"] == run.key
    )
    assert Run.from_dict(prov["run"]).execute(digits).selection(5).indices.tolist() == sel.indices.tolist()
    assert set(prov["columns"]) == set(fc.SELECTION_COLUMNS) - {"name"}


def test_evaluation_reports_the_fold_spread(digits):
    ev = Run("evaluation", {"of": Run("fisher"), "k": 5}).execute(digits)
    assert ev.n_folds == 5 and 0 <= ev.cv_std < 0.2 and np.isfinite(ev.cv_accuracy)


def test_prior_groups_from_names_refuse_unknown_and_overlapping():
    names = ["pixel_3_4", "pixel_3_5", "pixel_2_2", "34", "a"]
    assert fc.parse_prior_groups("pixel_3_4, pixel_3_5\n\n34, a", names) == [[0, 1], [3, 4]]
    with pytest.raises(
        ValueError, match=r"unknown feature name\(s\) 'pixel_3_44' \(did you mean 'pixel_3_4', "
    ):
        fc.parse_prior_groups("pixel_3_44, a", names)
    with pytest.raises(ValueError, match="'a' is in line 1 and line 2"):
        fc.parse_prior_groups("a, 34\na, pixel_2_2", names)
    with pytest.raises(ValueError, match="line 1 names one feature"):
        fc.parse_prior_groups("a, a", names)
    frame = fc.prior_groups_frame([[0, 1], [3, 4]], names)
    assert frame["features"].tolist() == ["pixel_3_4, pixel_3_5", "34, a"]
    ranking = np.array([1, 5, 2, 3, 4])
    assert fc.prior_group_spread(ranking, [[0, 1], [3, 4]]) == pytest.approx((4 + 1) / 2)
    assert np.isnan(fc.prior_group_spread(ranking, []))
    assert fc.gdm_prior_groups(group_result()) == [[0, 1, 2], [7, 8]]


def test_gdm_one_class_runs_without_labels():
    X = np.random.default_rng(0).normal(size=(40, 6))
    ds = Dataset(X, name="raw")
    with pytest.raises(ValueError, match="GDM needs class labels"):
        Run("gdm").execute(ds)
    res = Run("gdm", {"one_class": True, "max_iter": 2}).execute(ds)
    assert len(res.support) >= 1


def test_a_memory_error_in_a_run_becomes_a_clear_value_error(digits, monkeypatch):
    from fsviz.data import MemoryBudgetError

    def boom(self, X, y=None):
        raise MemoryError()

    monkeypatch.setattr(S.FisherScore, "fit", boom)
    with pytest.raises(MemoryBudgetError, match="Fisher score: ran out of memory"):
        Run("fisher").execute(digits)


def test_gdm_run_from_form_values_and_the_which_group_sentence():
    from fsviz.data import make_grouped_classification

    run = fc.gdm_run({"tau": 0.3, "n_per_iter": 10, "C": 1, "cv_folds": 0, "positive": None}, seed=7)
    assert run.method == "gdm" and run.seed == 7 and run == Run("gdm", {}, 7)
    assert run.get("cv_folds") is None and run.get("positive") is None and run.get("C") == 1.0
    assert fc.gdm_run({"cv_folds": 3, "positive": 2}).get("positive") == 2
    X, y, _ = make_grouped_classification(n_samples=200, n_features=300, n_groups=3, random_state=0)
    ds = Dataset(X, y, name="toy")
    res = fc.Run("gdm", {"tau": 0.3}, 0).execute(ds)
    sf = int(res.support[0])
    found, text = fc.feature_group_text(res, sf, ds.feature_names)
    assert found and text.startswith(f"{ds.feature_names[sf]} is the support feature")
    outside = next(j for j in range(ds.n_features) if j not in set(res.support) | set(res.af))
    found, text = fc.feature_group_text(res, outside, ds.feature_names)
    assert not found and "is in no group" in text


def test_the_recorded_kernel_signatures_name_real_kernels_and_share_by_cost():
    """The warm-up's record (fsviz/compute/_kernel_signatures.py): each entry a numba kernel
    of fsviz with as many arguments as its function takes, each type read back as written;
    the shares of n processes partition the record, the costliest first, evenly."""
    import importlib
    import inspect

    from numba.core.registry import CPUDispatcher

    from fsviz.compute import warm
    from fsviz.compute._kernel_signatures import SIGNATURES

    assert len({e[:3] for e in SIGNATURES}) == len(SIGNATURES) > 50
    for module, name, args, cost in SIGNATURES:
        kernel = getattr(importlib.import_module(module), name)
        assert isinstance(kernel, CPUDispatcher) and cost >= 0
        assert len(inspect.signature(kernel.py_func).parameters) == len(args), (module, name)
        assert [warm._type_text(warm._numba_type(a)) for a in args] == list(args)
    for n in (1, 2, 3):
        shares = [warm._signature_share(i, n) for i in range(n)]
        assert sorted(e for s in shares for e in s) == sorted(SIGNATURES)
        loads = [sum(e[3] for e in s) for s in shares]
        assert max(loads) - min(loads) <= max(e[3] for e in SIGNATURES)
        assert all([e[3] for e in s] == sorted((e[3] for e in s), reverse=True) for s in shares)
    # two processes: GDM's kernels go with the modules they call (and the ones calling them)
    together = {"fsviz.select.gdm._kernels", "fsviz.select.gdm._crm_kernels", "fsviz.stats._info_kernels"}
    assert [together <= {e[0] for e in s} for s in shares_of(2)].count(True) == 1
    with pytest.raises(ValueError, match="not a recorded kernel argument type"):
        warm._numba_type("pyobject")
    with pytest.raises(ValueError, match="not a recorded kernel argument type"):
        warm._numba_type("no_such_type[2C]")
    stale = [("fsviz.select._grm_kernels", "no_such_kernel", ("float64[1C]",), 1.0)]
    assert warm._compile(stale) == (0, 1)  # skipped: compiled on first use instead


def shares_of(n: int, entries=None) -> list[list[tuple]]:
    from fsviz.compute import warm

    return [warm._signature_share(i, n, entries) for i in range(n)]


def test_the_warm_up_shares_whole_modules_and_splits_what_is_too_large():
    """A kernel module and the modules whose kernels it calls (``_crm_kernels`` calls those of
    ``gdm._kernels``) compile in one process while they fit its fair share; a cluster larger
    than that is split into modules, the costliest first, each to the least loaded process."""
    gdm, crm = "fsviz.select.gdm._kernels", "fsviz.select.gdm._crm_kernels"
    grm, moments = "fsviz.select._grm_kernels", "fsviz.stats._moments_kernels"
    entries = [(gdm, "a", (), 50.0), (crm, "b", (), 40.0), (grm, "c", (), 10.0), (moments, "d", (), 80.0)]
    names = [[e[1] for e in s] for s in shares_of(2, entries)]
    assert names == [["a", "b"], ["d", "c"]]  # 90 and 90: the cluster whole
    names = [[e[1] for e in s] for s in shares_of(3, entries)]
    assert names == [["d"], ["a"], ["b", "c"]]  # a fair share is 60: the cluster split
    assert [[e[1] for e in s] for s in shares_of(1, entries)] == [["d", "a", "b", "c"]]
    big = [(moments, f"k{i}", (), 30.0) for i in range(4)]  # one module larger than a share
    assert [len(s) for s in shares_of(2, big)] == [2, 2]


def test_recording_compiles_writes_a_record_the_warm_up_reads(tmp_path):
    """FSVIZ_RECORD_KERNELS's listener notes a kernel compiled from Python (not its callees,
    nor anything after it stops), and --write-signatures turns the notes into the module. A
    new dispatcher of a kernel's Python function has no cache: calling it compiles."""
    import numba

    from fsviz.compute import warm
    from fsviz.select import _grm_kernels as K

    stop = warm.record_compiles(tmp_path / "notes")
    try:
        numba.njit(K.simplex_project.py_func)(np.array([0.5, 0.2, 0.9]))
    finally:
        stop()
    numba.njit(K.simplex_project.py_func)(np.array([[0.5, 0.2]])[0])  # after stop(): not noted
    (note,) = [json.loads(line) for f in (tmp_path / "notes").glob("*.jsonl") for line in f.open()]
    assert note["test"].startswith("tests/test_compute.py::test_recording_compiles")  # who reached it
    assert warm.write_signatures(tmp_path / "notes", tmp_path / "sigs.py") == 1
    space: dict = {}
    exec((tmp_path / "sigs.py").read_text(), space)
    ((module, name, args, cost),) = space["SIGNATURES"]
    assert (module, name, args) == ("fsviz.select._grm_kernels", "simplex_project", ("float64[1C]",))
    assert cost > 0


def test_the_warm_up_shares_every_method_once_and_its_runs_are_valid():
    """``python -m fsviz.compute.warm --jobs n`` (run first by ``make test``): the n shares cover
    the registry exactly once, and every run it makes passes the declarations."""
    from fsviz.compute import warm
    from fsviz.compute.registry import METHODS

    for n in (1, 2, 3):
        shares = [warm._share(i, n) for i in range(n)]
        assert sorted(m for s in shares for m in s) == sorted(METHODS)
    runs = list(warm._runs(list(METHODS)))
    assert {r.method for r in runs} == set(METHODS) - {
        "stability",
        "projection",
        "images",
        "benchmark",
        "evaluation",
    }
    assert any(r.method == "gdm" and dict(r.params).get("corr") == "su" for r in runs)


def test_counts_fit_a_metric_tile_and_whole_table_selections_say_so():
    """Issue 45's newcomer: "4,999,950…" cut off in a metric; GDM keeping 13 of 13 and a top 20
    of 13 features shown as if they were selections."""
    assert fc.compact_count(2016) == "2,016" and fc.compact_count(9_999_999) == "9,999,999"
    assert fc.compact_count(4_999_950_000) == "5 billion" and fc.compact_count(12_345_678) == "12.3 million"
    assert fc.compact_count(918_000_000_000) == "918 billion" and fc.compact_count(2 * 10**12) == "2 trillion"
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 13))
    ds = Dataset(X, y=(X[:, 0] > 0).astype(int), name="thirteen")
    res = Run("gdm", {}).execute(ds)
    assert len(res.support) == 13  # 10 per iteration x 10 iterations: more than the table has
    note = fc.gdm_all_kept_note(res, ds.n_features)
    assert note and "all 13 features" in note and "not a selection" in note
    wide = Dataset(rng.normal(size=(40, 300)), y=np.arange(40) % 2, name="wide")
    assert fc.gdm_all_kept_note(Run("gdm", {}).execute(wide), 300) is None
    assert (
        fc.top_k_in_table(20, 13)[0] == 13
        and "the top 20 asked covers all of them" in fc.top_k_in_table(20, 13)[1]
    )
    assert fc.top_k_in_table(10, 13) == (10, None)


def test_pima_style_zeros_in_physiological_columns_are_flagged():
    rng = np.random.default_rng(0)
    n = 50
    cols = {
        "Pregnancies": rng.integers(0, 6, n).astype(float),  # zeros are real counts: not physiological
        "Glucose": rng.uniform(60, 180, n),
        "BloodPressure": rng.uniform(40, 110, n),
        "Age": rng.uniform(21, 80, n),
        "bp": rng.normal(size=n),  # standardised (negatives): a 0 is an ordinary value
    }
    cols["Glucose"][:2] = 0.0
    cols["BloodPressure"][5:12] = 0.0
    cols["bp"][3] = 0.0
    X = np.column_stack(list(cols.values()))
    note = fc.zeros_as_missing_note(X, list(cols))
    assert note and "Glucose (2)" in note and "BloodPressure (7)" in note
    assert "Pregnancies" not in note and "Age" not in note and "bp (" not in note
    assert "Missing-value markers" in note
    assert fc.zeros_as_missing_note(np.abs(X[:, [0, 3]]) + 1, ["Pregnancies", "Age"]) is None
    assert fc.zeros_as_missing_note(X[:, 1:3] + 1, ["Glucose", "BloodPressure"]) is None
