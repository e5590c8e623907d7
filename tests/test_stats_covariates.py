"""Covariate adjustment (fsviz.stats.covariates, fsviz.compute.covariates): the design, the
residuals against lstsq, the errors, the confounding check, and adjusted selection on a planted
batch effect through the library, the run layer and the CLI."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import fsviz.compute as fc
from fsviz import cli
from fsviz.compute.commands import command_line
from fsviz.data import Dataset
from fsviz.evaluate import permutation_pvalues, stability_selection
from fsviz.select import FScore
from fsviz.stats.covariates import check_confounding, covariate_design, residualize

TRUE, BATCH_ONLY = set(range(5)), set(range(5, 15))


def _batch_data(seed=0, n=160, m=60):
    """y depends on 5 features; 10 features depend on the batch only; the batch and y are
    associated (P(y = 1 | batch 1) = 0.75), so the batch-only features look informative."""
    rng = np.random.default_rng(seed)
    batch = rng.integers(0, 2, size=n)
    y = (rng.uniform(size=n) < np.where(batch == 1, 0.75, 0.25)).astype(int)
    X = rng.normal(size=(n, m))
    X[:, :5] += 1.0 * y[:, None]
    X[:, 5:15] += 3.0 * batch[:, None]
    return X, y, batch


def test_design_and_residuals_against_lstsq():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"site": rng.choice(["a", "b", "c"], 30), "age": rng.normal(50, 10, 30)})
    cov = covariate_design(frame, 30)
    assert cov.design.shape == (30, 1 + 2 + 1) and np.all(cov.design[:, 0] == 1)
    assert cov.names == ("site", "age") and set(np.unique(cov.strata)) == {0, 1, 2}
    X = rng.normal(size=(30, 4))
    R = residualize(X, cov)
    beta = np.linalg.lstsq(cov.design, X, rcond=None)[0]
    np.testing.assert_allclose(R, X - cov.design @ beta, atol=1e-12)
    np.testing.assert_allclose(cov.design.T @ R, 0, atol=1e-9)  # orthogonal to every covariate
    rows = np.arange(20)
    beta_train = np.linalg.lstsq(cov.design[rows], X[rows], rcond=None)[0]
    np.testing.assert_allclose(residualize(X, cov, rows=rows), X - cov.design @ beta_train, atol=1e-12)


def test_errors():
    y = np.repeat([0, 1], 10)
    with pytest.raises(ValueError, match="'batch' has one value"):
        covariate_design({"batch": ["a"] * 20}, 20)
    with pytest.raises(ValueError, match="'dx' equals the target"):
        covariate_design({"dx": y}, 20, y=y)
    with pytest.raises(ValueError, match="design columns .* for 20 samples"):
        covariate_design({"id": [str(i) for i in range(20)]}, 20)
    with pytest.raises(ValueError, match="missing values"):
        covariate_design({"age": [1.0] * 19 + [np.nan]}, 20)
    with pytest.raises(ValueError, match="confounded with batch: each batch holds a single class"):
        check_confounding(y, covariate_design({"batch": np.where(y == 1, "x", "z")}, 20))
    check_confounding(y, covariate_design({"batch": np.tile(["x", "z"], 10)}, 20))  # balanced: fine


def test_permutation_with_covariates_drops_batch_features():
    X, y, batch = _batch_data()
    raw = permutation_pvalues(FScore(), X, y, n_permutations=199, random_state=0)
    adj = permutation_pvalues(
        FScore(), X, y, n_permutations=199, random_state=0, covariates={"batch": batch.astype(str)}
    )
    assert len(BATCH_ONLY & set(raw.selected(0.1).tolist())) >= 8  # confounded before
    assert not BATCH_ONLY & set(adj.selected(0.1).tolist())
    assert TRUE <= set(adj.selected(0.1).tolist()) and "within each stratum" in adj.null


def test_stability_with_covariates_adjusts_each_half():
    X, y, batch = _batch_data(seed=1)
    res = stability_selection(
        FScore(), X, y, k=8, n_pairs=5, random_state=0, covariates={"b": batch.astype(str)}
    )
    top = set(res.selected(0.7).tolist())
    assert not top & BATCH_ONLY and len(top & TRUE) >= 4


def _dataset(seed=0):
    X, y, batch = _batch_data(seed)
    names = np.array([f"s{i}" for i in range(X.shape[0])])
    meta = {"sample_annotations": {"batch": {s: f"b{v}" for s, v in zip(names, batch, strict=True)}}}
    return Dataset(X, y, name="batchy", sample_names=names, meta=meta), batch


def test_run_layer_adjusts_scores_and_keeps_keys():
    ds, batch = _dataset()
    assert fc.Run("fisher", {}, 0).key == fc.Run("fisher", {"covariates": None}, 0).key
    plain = fc.Run("fisher", {}, 0).execute(ds).selection(15)
    adj = fc.Run("fisher", {"covariates": ("batch",)}, 0).execute(ds).selection(15)
    assert len(set(plain.indices.tolist()) & BATCH_ONLY) >= 8
    assert not set(adj.indices[:5].tolist()) & BATCH_ONLY and TRUE <= set(adj.indices[:6].tolist())
    sel = fc.cut_selection(
        fc.Run("f", {"covariates": ("batch",)}, 0), fc.parse_cut("fdr:0.1"), ds, n_permutations=199
    )
    assert not set(sel.indices.tolist()) & BATCH_ONLY and TRUE <= set(sel.indices.tolist())
    with pytest.raises(ValueError, match="'age' is neither a sample annotation"):
        fc.Run("fisher", {"covariates": ("age",)}, 0).execute(ds)


def test_cli_covariates_from_a_column(tmp_path, capsys):
    X, y, batch = _batch_data()
    df = pd.DataFrame(X, columns=[f"g{j}" for j in range(X.shape[1])])
    df["batch"] = batch
    df["label"] = y
    p = tmp_path / "d.csv"
    df.to_csv(p, index=False)
    out = tmp_path / "o.csv"
    code = cli.main(
        [
            "select",
            "--method",
            "f",
            "-k",
            "12",
            "--covariates",
            "batch",
            str(p),
            "--label",
            "label",
            "-o",
            str(out),
        ]
    )
    err = capsys.readouterr().err
    assert code == 0, err
    names = set(fc.read_selection_csv(out.read_bytes())["name"])
    assert not names & {f"g{j}" for j in BATCH_ONLY} and "batch" not in names
    assert {f"g{j}" for j in TRUE} <= names
    code = cli.main(["select", "--method", "f", "--covariates", "nope", str(p), "--label", "label"])
    assert code == 1 and "'nope' is neither" in capsys.readouterr().err


def test_command_line_carries_the_covariates():
    run = fc.Run("fisher", {"covariates": ("batch", "age")}, 3)
    line = command_line(run, k=10)
    assert line is not None and line[line.index("--covariates") + 1] == "batch,age"
    assert "--covariates" not in command_line(fc.Run("fisher", {}, 3), k=10)


def test_benchmark_adjusts_inside_each_training_fold():
    from fsviz.evaluate import benchmark, cv_curve

    X, y, batch = _batch_data(n=90, m=20)
    seen = []

    def rank(Xtr, ytr, k):  # residuals of a fit on these very rows: mean 0 in every batch
        seen.append(np.abs(Xtr.mean(axis=0)).max())
        return np.argsort(-FScore().fit(Xtr, ytr).scores_)[:k]

    benchmark(
        X, y, [rank], ks=[3], classifiers=["naive_bayes"], cv=3, covariates={"batch": batch.astype(str)}
    )
    assert len(seen) == 3 and max(seen) < 1e-10  # fitted on the training rows, not on all samples
    plain = cv_curve(X, y, FScore(), [5, 10], cv=3)
    adj = cv_curve(X, y, FScore(), [5, 10], cv=3, covariates={"batch": batch.astype(str)})
    assert adj.mean.tolist() != plain.mean.tolist()
    with pytest.raises(ValueError, match="select_in_fold=True"):
        benchmark(X, y, [FScore()], ks=[3], cv=3, select_in_fold=False, covariates={"b": batch.astype(str)})


def test_cv_curve_run_adjusts_and_evaluation_adjusts_in_each_fold():
    from fsviz.evaluate import cv_accuracy

    ds, batch = _dataset()
    of = fc.Run("f", {"covariates": ("batch",)}, 0)
    curve = fc.cut_run(of, fc.parse_cut("cv-1se"), ks=(5, 10), cv=3).execute(ds)
    assert curve.k_1se in (5, 10)
    ev = fc.Run("evaluation", {"of": of, "k": 5}, 0).execute(ds)
    # the run layer's evaluation is cv_accuracy adjusting inside each training fold, refitting F
    select = lambda X, y: np.argsort(-FScore().fit(X, y).scores_, kind="stable")[:5]  # noqa: E731
    ref = cv_accuracy(ds.X, ds.y, select, k=5, n_splits=ev.n_folds, covariates={"b": batch.astype(str)})
    assert ev.cv_accuracy == pytest.approx(ref.mean)
    plain = fc.Run("evaluation", {"of": fc.Run("f", {}, 0), "k": 5}, 0).execute(ds)
    assert ev.cv_accuracy != plain.cv_accuracy
    with pytest.raises(ValueError, match="bootstrap resamples do not carry the covariates"):
        fc.Run("stability", {"of": of, "k": 5, "n_boot": 5}, 0).execute(ds)


def test_cv_accuracy_fold_adjustment_never_sees_the_test_rows():
    from sklearn.model_selection import StratifiedKFold

    from fsviz.evaluate import cv_accuracy, cv_regression

    X, y, batch = _batch_data(n=90, m=20)
    cov = {"batch": batch.astype(str)}
    seen: list[np.ndarray] = []

    def record(Xtr, ytr):
        seen.append(np.array(Xtr))
        return np.arange(3)

    cv_accuracy(X, y, record, k=3, n_splits=3, random_state=0, covariates=cov)
    train, test = next(StratifiedKFold(3, shuffle=True, random_state=0).split(X, y))
    # the training rows' residuals are those of a fit on the training rows alone
    design = covariate_design(cov, 90).design
    np.testing.assert_allclose(seen[0], residualize(X, design, rows=train)[train], atol=1e-10)
    moved = X.copy()
    moved[test] += 100.0 * np.random.default_rng(1).normal(size=(test.size, X.shape[1]))
    seen.clear()
    cv_accuracy(moved, y, record, k=3, n_splits=3, random_state=0, covariates=cov)
    np.testing.assert_allclose(seen[0], residualize(X, design, rows=train)[train], atol=1e-10)
    # a fit on all samples would have moved with the test rows
    assert np.abs(residualize(moved, design)[train] - seen[0]).max() > 1.0
    yc = X[:, 0] + 2.0 * batch + np.random.default_rng(2).normal(size=90)
    seen.clear()
    cv_regression(X, yc, record, k=3, n_splits=3, random_state=0, covariates=cov)
    assert len(seen) == 3 and np.abs(seen[0].mean(axis=0)).max() < 1e-10  # centred on its own rows


def test_benchmark_run_adjusts_in_folds_and_refuses_mixed_covariates():
    ds, _ = _dataset()
    adj = fc.Run("f", {"covariates": ("batch",)}, 0)
    params = {"ks": (5,), "classifiers": ("naive_bayes",), "cv": 3}
    res = fc.Run("benchmark", {"methods": (adj,), **params}, 0).execute(ds)
    same = fc.Run("benchmark", {"methods": ("f",), "covariates": ("batch",), **params}, 0).execute(ds)
    plain = fc.Run("benchmark", {"methods": ("f",), **params}, 0).execute(ds)
    assert res.table["accuracy"].tolist() == same.table["accuracy"].tolist()
    assert res.table["accuracy"].tolist() != plain.table["accuracy"].tolist()
    with pytest.raises(ValueError, match="adjusted for different covariates"):
        fc.Run("benchmark", {"methods": (adj, "f"), "covariates": ("other",), **params}, 0).execute(ds)
    with pytest.raises(ValueError, match="adjusted for different covariates"):  # one adjusted, one not
        fc.Run("benchmark", {"methods": (adj, "fisher"), **params}, 0).execute(ds)


def test_cli_covariates_from_sample_annotations(tmp_path, capsys):
    X, y, batch = _batch_data()
    ids = [f"s{i}" for i in range(X.shape[0])]
    df = pd.DataFrame(X, columns=[f"g{j}" for j in range(X.shape[1])])
    df.insert(0, "sample", ids)
    df["label"] = y
    data, ann = tmp_path / "d.csv", tmp_path / "pheno.csv"
    df.to_csv(data, index=False)
    pd.DataFrame({"sample": ids[::-1], "site": [f"site{b}" for b in batch[::-1]]}).to_csv(ann, index=False)
    out = tmp_path / "o.csv"
    argv = ["select", "--method", "f", "-k", "fdr:0.1", "--permutations", "199", "--covariates", "site"]
    code = cli.main([*argv, str(data), "--label", "label", "--sample-annotations", str(ann), "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 0, err
    names = set(fc.read_selection_csv(out.read_bytes())["name"])
    assert not names & {f"g{j}" for j in BATCH_ONLY} and {f"g{j}" for j in TRUE} <= names


def test_features_confounded_with_the_batch_are_named():
    from fsviz.stats.covariates import confounded_features

    ds, batch = _dataset()
    X = np.array(ds.X)
    X[:, 20] = 5.0 * batch  # a pure batch marker
    X[:, 21] = 1.0  # constant: left out
    cov = covariate_design({"batch": batch.astype(str)}, X.shape[0])
    assert confounded_features(X, residualize(X, cov)).tolist() == [20]
    marked = Dataset(X, ds.y, name="m", sample_names=ds.sample_names, meta=ds.meta)
    with pytest.warns(UserWarning, match="1 feature\\(s\\) are explained by batch .*'f20'"):
        fc.Run("f", {"covariates": ("batch",)}, 0).execute(marked)


def _bad_files(tmp_path):
    rng = np.random.default_rng(0)
    n = 40
    ids = [f"s{i}" for i in range(n)]
    y = np.where(np.arange(n) % 2 == 1, "tumour", "normal")
    df = pd.DataFrame(rng.normal(size=(n, 8)), columns=[f"g{j}" for j in range(8)])
    df.insert(0, "sample", ids)
    df["label"] = y
    ann = pd.DataFrame(
        {"sample": ids, "const": ["x"] * n, "dx": y, "uid": ids, "site": [f"b{i % 3}" for i in range(n)]}
    )
    data, pheno = tmp_path / "b.csv", tmp_path / "pheno.csv"
    df.to_csv(data, index=False)
    ann.to_csv(pheno, index=False)
    return data, pheno


BAD_COVARIATES = [
    # the loader's check (--covariates names are read with the covariate role) or the run's
    ("const", r"'const' (has|holds) one value \('x'\) (in|for) every sample"),
    ("dx", "'dx' equals the target"),
    ("uid", "40 design columns .* for 40 samples"),
]


@pytest.mark.parametrize("name,msg", BAD_COVARIATES)
def test_bad_covariates_at_the_cli(tmp_path, capsys, name, msg):
    data, pheno = _bad_files(tmp_path)
    argv = ["select", "--method", "f", "-k", "fdr:0.1", "--permutations", "99", "--covariates", name]
    code = cli.main([*argv, str(data), "--label", "label", "--sample-annotations", str(pheno)])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert re.search(msg, err), err


def test_bad_inputs_in_the_library():
    y = np.repeat([0, 1], 10)
    with pytest.raises(ValueError, match="'dx' equals the target"):  # the classes under other names
        covariate_design({"dx": np.where(y == 1, "tumour", "normal")}, 20, y=y)
    covariate_design({"site": np.where(np.arange(20) % 3 == 0, "a", "b")}, 20, y=y)  # not the target
    from fsviz.select import LaplacianScore

    with pytest.raises(ValueError, match="LaplacianScore is unsupervised"):
        permutation_pvalues(LaplacianScore(), np.random.default_rng(0).normal(size=(20, 4)), y)


def _bad_cut_script():
    import numpy as np
    import streamlit as st

    import fsviz.compute as fc
    import fsviz_app.appkit as appkit
    from fsviz.data import Dataset

    n = 40
    names = np.array([f"s{i}" for i in range(n)])
    y = np.arange(n) % 2
    ann = {
        "const": {s: "x" for s in names},
        "dx": {s: ("tumour" if v else "normal") for s, v in zip(names, y, strict=True)},
        "uid": {s: s for s in names},
    }
    X = np.random.default_rng(0).normal(size=(n, 6))
    ds = Dataset(X, y, name="bad", sample_names=names, meta={"sample_annotations": ann})
    method = st.session_state.get("method", "f")
    sel = appkit.cut_control(ds, fc.Run(method, {}, 0), key="t")
    if sel is not None:
        st.write(sel.n_features)


@pytest.mark.parametrize("name,msg", BAD_COVARIATES)
def test_bad_covariates_in_the_app_are_an_error_message(name, msg):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_bad_cut_script, default_timeout=120).run()
    at.radio(key="t_rule").set_value("fdr").run()
    at.multiselect(key="t_cov").set_value([name]).run()
    next(b for b in at.button if b.label.startswith("Compute")).click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(re.search(msg, e.value) for e in at.error), [e.value for e in at.error]


def test_the_app_offers_no_permutations_for_an_unsupervised_score():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_bad_cut_script, default_timeout=120)
    at.session_state["method"] = "laplacian"
    at.run()
    assert not at.exception
    assert "FDR: permutation q-values (BH)" not in at.radio(key="t_rule").options


def test_cli_adjusts_for_the_import_plans_covariates_by_default():
    import argparse

    ds, _ = _dataset()
    ds = Dataset(ds.X, ds.y, name="d", sample_names=ds.sample_names, meta=ds.meta | {"covariates": ["batch"]})
    run = fc.Run("fisher", {}, 0)
    quiet = {"quiet": True}
    assert cli._plan_covariates(argparse.Namespace(covariates=None, **quiet), run, ds).get("covariates") == (
        "batch",
    )
    assert cli._plan_covariates(argparse.Namespace(covariates="none", **quiet), run, ds) == run
    assert fc.parse_covariates("none") is None and fc.default_covariates(ds) == ("batch",)


def test_cli_benchmark_adjusts_for_covariates_and_writes_them_back(tmp_path, capsys):
    data, pheno = _bad_files(tmp_path)
    out = tmp_path / "bench.csv"
    argv = ["benchmark", "--methods", "fisher,f", "--ks", "1,3", "--cv", "3", "--covariates", "site"]
    code = cli.main(
        [*argv, str(data), "--label", "label", "--sample-annotations", str(pheno), "-o", str(out)]
    )
    assert code == 0, capsys.readouterr().err
    frame = pd.read_csv(out)
    run = fc.Run("benchmark", {"methods": ("fisher", "f"), "ks": (1, 3), "cv": 3, "covariates": ("site",)}, 0)
    line = command_line(run)
    assert line is not None and line[line.index("--covariates") + 1] == "site"
    assert set(frame["method"]) == {"fisher", "f"} and frame["accuracy"].notna().all()
    code = cli.main([*argv[:2], "fisher,variance", *argv[3:], str(data), "--label", "label",
                     "--sample-annotations", str(pheno)])  # fmt: skip
    assert code == 1 and "supervised methods only" in capsys.readouterr().err
