"""The cut of a selection by a rule: ``Run`` + ``cut_selection`` and ``fsviz select -k fdr:Q``."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import fsviz.compute as fc
from fsviz import cli
from fsviz.data import Dataset
from fsviz.evaluate import permutation_pvalues
from fsviz.select import FisherScore

PLANTED = {"a0", "a1", "a2"}


def _frame(seed=0, n=60, m=40):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, m))
    y = np.repeat([0, 1], n // 2)
    X[y == 1, :3] += 2.0
    return X, y


@pytest.fixture
def csv_path(tmp_path):
    X, y = _frame()
    df = pd.DataFrame(X, columns=[f"a{j}" for j in range(X.shape[1])])
    df["label"] = y
    p = tmp_path / "d.csv"
    df.to_csv(p, index=False)
    return p


def run(argv, capsys):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def test_cut_selection_through_run_equals_the_library():
    X, y = _frame()
    ds = Dataset(X, y, name="d")
    run = fc.Run("fisher", {}, seed=3)
    sel = fc.cut_selection(run, fc.parse_cut("fdr:0.1"), ds, n_permutations=199)
    lib = permutation_pvalues(FisherScore(), X, y, n_permutations=199, random_state=3)
    np.testing.assert_array_equal(sel.indices, lib.selected(0.1))
    cols = dict(sel.columns)
    np.testing.assert_array_equal(cols["p"], lib.pvalues[sel.indices])
    np.testing.assert_array_equal(cols["q"], lib.qvalues[sel.indices])
    assert sel.rule.startswith("fdr:0.1 (Benjamini-Hochberg") and sel.run == run
    assert set(sel.indices.tolist()) >= {0, 1, 2}


def test_significance_run_is_keyed_and_canonical():
    of = fc.Run("fisher", {}, 0)
    a = fc.Run("significance", {"of": of}, 0)
    b = fc.Run("significance", {"of": of, "n_permutations": 1000, "null": "feature"}, 0)
    assert a.key == b.key
    assert fc.cut_run(of, fc.parse_cut("fdr:0.05")) == a


def test_parse_k():
    assert fc.parse_k("20") == 20
    assert fc.parse_k("fdr:0.05") == fc.Cut("fdr", 0.05)
    assert fc.parse_cut("FDR:0.1").text == "fdr:0.1"
    for bad, msg in [("fdr:0", "in \\(0, 1\\]"), ("fdr:x", "must be a number"), ("top:3", "unknown rule")]:
        with pytest.raises(ValueError, match=msg):
            fc.parse_cut(bad)


def test_cli_fdr_writes_p_q_and_rule(csv_path, tmp_path, capsys):
    out, prov = tmp_path / "sel.csv", tmp_path / "prov.json"
    code, _, err = run(
        ["select", "--method", "fisher", "-k", "fdr:0.05", csv_path, "--label", "label"]
        + ["--permutations", "499", "-o", out, "--provenance", prov],
        capsys,
    )
    assert code == 0, err
    frame = fc.read_selection_csv(out.read_bytes())
    assert list(frame.columns) == [*fc.SELECTION_COLUMNS, "p", "q", "rule"]
    assert set(frame["name"]) >= PLANTED and (frame["q"] <= 0.05).all()
    assert (frame["p"] <= frame["q"]).all() and frame["rule"].str.startswith("fdr:0.05").all()
    assert json.loads(prov.read_text())["rule"].startswith("fdr:0.05")


def test_cli_pooled_null(csv_path, tmp_path, capsys):
    out = tmp_path / "sel.csv"
    code, _, err = run(
        ["select", "--method", "f", "-k", "fdr:0.05", csv_path, "--label", "label"]
        + ["--permutations", "50", "--permutation-null", "pooled", "-o", out],
        capsys,
    )
    assert code == 0, err
    frame = fc.read_selection_csv(out.read_bytes())
    assert set(frame["name"]) >= PLANTED and "pooled" in frame["rule"][0]
    assert frame["p"].min() == pytest.approx(1 / (1 + 50 * 40))


def test_cli_plain_k_unchanged(csv_path, tmp_path, capsys):
    out = tmp_path / "sel.csv"
    code, _, err = run(
        ["select", "--method", "fisher", "-k", "5", csv_path, "--label", "label", "-o", out], capsys
    )
    assert code == 0, err
    frame = fc.read_selection_csv(out.read_bytes())
    assert list(frame.columns) == list(fc.SELECTION_COLUMNS) and len(frame) == 5


@pytest.mark.parametrize(
    "method,k,msg",
    [
        ("mrmr", "fdr:0.05", "not a score"),
        ("laplacian", "fdr:0.05", "unsupervised"),
    ],
)
def test_cli_fdr_errors(csv_path, capsys, method, k, msg):
    code, _, err = run(["select", "--method", method, "-k", k, csv_path, "--label", "label"], capsys)
    assert code == 1 and msg in err


def test_cli_bad_rule_is_a_usage_error(csv_path, capsys):
    code, _, err = run(["select", "--method", "fisher", "-k", "fdr:7", csv_path], capsys)
    assert code == 2 and "(0, 1]" in err


def test_resolution_warning(capsys):
    X, y = _frame(m=400)
    ds = Dataset(X, y, name="d")
    with pytest.warns(UserWarning, match="smallest p-value the 19 permutations"):
        sel = fc.cut_selection(fc.Run("fisher", {}, 0), fc.parse_cut("fdr:0.05"), ds, n_permutations=19)
    assert sel.n_features == 0 and sel.columns[0][0] == "p"


def test_stability_cut_through_run_equals_the_library():
    from fsviz.evaluate import stability_selection

    X, y = _frame()
    ds = Dataset(X, y, name="d")
    of = fc.Run("fisher", {}, seed=1)
    numbers = fc.cut_run(of, fc.parse_cut("stability:0.7"), n_pairs=5, per_half=4)
    res = numbers.replace(groups="none").execute(ds)
    lib = stability_selection(FisherScore(), X, y, k=4, n_pairs=5, random_state=1)
    np.testing.assert_array_equal(res.probabilities, lib.probabilities)
    sel = res.selection(0.7)
    np.testing.assert_array_equal(sel.indices, lib.selected(0.7))
    assert sel.rule.startswith("stability:0.7") and f"PFER <= {lib.pfer(0.7):.3g}" in sel.rule
    assert dict(sel.columns)["probability"].min() >= 0.7


def test_stability_groups_are_gdms():
    X, y = _frame()
    X[:, 5] = X[:, 0] + 0.01 * np.random.default_rng(0).normal(size=X.shape[0])  # a copy of a0
    ds = Dataset(X, y, name="d")
    res = fc.cut_run(fc.Run("fisher", {}, 0), fc.parse_cut("stability:0.8"), n_pairs=3, per_half=3).execute(
        ds
    )
    assert any({0, 5} <= set(g.tolist()) for g in res.groups)
    g = next(i for i, g in enumerate(res.groups) if 0 in set(g.tolist()))
    assert res.group_probabilities[g] >= max(res.probabilities[0], res.probabilities[5])
    assert res.group_pfer(0.8) == pytest.approx(res.q_groups**2 / (0.6 * len(res.groups)))


def test_cli_stability(csv_path, tmp_path, capsys):
    out = tmp_path / "st.csv"
    code, _, err = run(
        ["select", "--method", "f", "-k", "stability:0.8", csv_path, "--label", "label"]
        + ["--pairs", "5", "--per-half", "3", "-o", out],
        capsys,
    )
    assert code == 0, err
    frame = fc.read_selection_csv(out.read_bytes())
    assert list(frame.columns) == [*fc.SELECTION_COLUMNS, "probability", "group_probability", "rule"]
    assert len(frame) >= 1 and (frame["probability"] >= 0.8).all()
    assert "PFER <=" in frame["rule"][0]
    code, _, err = run(["select", "--method", "f", "-k", "stability:0.4", csv_path], capsys)
    assert code == 2 and "(0.5, 1]" in err


def test_cv_1se_cut(csv_path, tmp_path, capsys):
    X, y = _frame()
    ds = Dataset(X, y, name="d")
    of = fc.Run("fisher", {}, 0)
    numbers = fc.cut_run(of, fc.parse_cut("cv-1se"), ks=(1, 2, 3, 5, 10), cv=3)
    curve = numbers.execute(ds)
    sel = fc.cut_selection(of, fc.parse_cut("cv-1se"), ds, ks=(1, 2, 3, 5, 10), cv=3)
    np.testing.assert_array_equal(sel.indices, of.execute(ds).selection(curve.k_1se).indices)
    assert sel.rule.startswith(f"cv-1se: k = {curve.k_1se}") and "SE" in sel.rule
    out = tmp_path / "cv.csv"
    code, _, err = run(
        [
            "select",
            "--method",
            "fisher",
            "-k",
            "cv-1se",
            "--cv-folds",
            "3",
            csv_path,
            "--label",
            "label",
            "-o",
            out,
        ],
        capsys,
    )
    assert code == 0, err
    frame = fc.read_selection_csv(out.read_bytes())
    assert list(frame.columns) == [*fc.SELECTION_COLUMNS, "rule"] and frame["rule"][0].startswith("cv-1se")
    assert fc.parse_k("cv-1se") == fc.Cut("cv-1se")
    with pytest.raises(ValueError, match="takes no level"):
        fc.parse_cut("cv-1se:3")


def test_cv_1se_of_a_fixed_size_subset_selects_k(tmp_path, capsys):
    X, y = _frame()
    ds = Dataset(X, y, name="d")
    of = fc.Run("mrmr", {"n_features": 2}, 0)
    sel = fc.cut_selection(of, fc.parse_cut("cv-1se"), ds, ks=(1, 3, 6), cv=3)
    k = int(sel.rule.split("k = ")[1].split(",")[0])
    assert k > 2 and sel.n_features == k  # more than the Run's own n_features


def test_cli_knockoffs_write_w_threshold_and_rule(tmp_path, capsys):
    """``--method knockoffs -k fdr:Q``: knockoff+ at FDR Q through the registry, as the library."""
    from fsviz.select import Knockoffs

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 20))
    y = (X[:, :8] @ np.full(8, 0.8) + rng.normal(size=300) > 0).astype(int)
    df = pd.DataFrame(X, columns=[f"a{j}" for j in range(20)])
    df["label"] = y
    data, out = tmp_path / "tall.csv", tmp_path / "sel.csv"
    df.to_csv(data, index=False)
    argv = ["select", "--method", "knockoffs", "--param", "statistic=score", "-k", "fdr:0.2", "--seed", "4"]
    code, _, err = run([*argv, data, "--label", "label", "-o", out, "--explain"], capsys)
    assert code == 0, err
    frame = fc.read_selection_csv(out.read_bytes())
    assert {"W", "threshold", "rule", "stand_in", "reason"} <= set(frame.columns)
    kept = frame[frame["role"] == "selected"]
    lib = Knockoffs(fdr=0.2, statistic="score", random_state=4).fit(X, y)
    assert kept["index"].tolist() == lib.selected_.tolist() and len(kept) >= 6
    W, T = kept["W"].astype(float), kept["threshold"].astype(float)
    np.testing.assert_allclose(W, lib.W_[lib.selected_])
    assert (W >= T).all() and T.nunique() == 1 and T.iloc[0] == pytest.approx(lib.threshold_)
    assert kept["rule"].iloc[0].startswith("knockoffs:0.2 (model-X knockoffs, knockoff+ threshold W >= ")
    assert (frame["role"] == "unselected").sum() == 20 - len(kept)  # --explain works for knockoffs
    ds = Dataset(X, y, name="tall")
    sel = fc.cut_selection(fc.Run("knockoffs", {"statistic": "score"}, 4), fc.parse_cut("fdr:0.2"), ds)
    np.testing.assert_array_equal(sel.indices, lib.selected_)  # the Run's cut: the same knockoff+ set
    np.testing.assert_allclose(dict(sel.columns)["W"], W)
    assert sel.rule == kept["rule"].iloc[0]


def test_knockoffs_as_a_k_rule_points_to_the_method():
    with pytest.raises(ValueError, match="give --method knockoffs -k fdr:0.1"):
        fc.parse_cut("knockoffs:0.1")


def test_cli_knockoffs_refuse_too_few_samples(csv_path, capsys):
    argv = ["select", "--method", "knockoffs", "-k", "fdr:0.1", csv_path, "--label", "label"]
    code, _, err = run(argv, capsys)
    assert code == 1
    assert "need n >= 2 m samples; got n = 60, m = 40" in err and "--method f -k fdr:Q" in err


def test_cli_adjusts_for_the_import_plans_covariate_role_by_default(tmp_path, capsys):
    """A column with the role "covariate" in the import plan (``--plan``) leaves the features and
    is adjusted for without ``--covariates``; ``--covariates none`` turns that off."""
    import dataclasses

    from fsviz.data.plan import ImportPlan

    if "covariates" not in {f.name for f in dataclasses.fields(ImportPlan)}:
        pytest.skip("the import plan's covariate role (branch s2-data) is not merged yet")
    rng = np.random.default_rng(0)
    n = 120
    site = rng.integers(0, 2, n)
    y = (rng.uniform(size=n) < np.where(site == 1, 0.8, 0.2)).astype(int)
    X = rng.normal(size=(n, 20))
    X[:, 0] += 1.5 * y
    X[:, 1:5] += 3.0 * site[:, None]  # batch-only features
    df = pd.DataFrame(X, columns=[f"g{j}" for j in range(20)])
    df.insert(0, "sample", [f"s{i}" for i in range(n)])
    df["site"] = [f"site{s}" for s in site]
    df["label"] = y
    data, out = tmp_path / "cohort.csv", tmp_path / "sel.csv"
    df.to_csv(data, index=False)
    plan = json.dumps({"covariates": ["site"], "label": "label"})
    argv = ["select", "--method", "f", "-k", "fdr:0.1", "--permutations", "199", data, "--plan", plan]
    code, _, err = run([*argv, "-o", out], capsys)
    assert code == 0 and "adjusting for the import plan's covariates site" in err, err
    adjusted = set(fc.read_selection_csv(out.read_bytes())["name"])
    assert "g0" in adjusted and not adjusted & {"g1", "g2", "g3", "g4"}
    code, _, err = run([*argv, "--covariates", "none", "-o", out], capsys)
    assert code == 0 and "adjusting" not in err
    assert {"g1", "g2", "g3", "g4"} <= set(fc.read_selection_csv(out.read_bytes())["name"])


def test_cli_covariates_naming_a_text_column_read_it_as_a_covariate(tmp_path, capsys):
    """``--covariates site`` on a table whose ``site`` column is text: read with the role
    "covariate" (not refused as a non-numeric feature), left out of the features, adjusted for;
    a name that is no column (an .npz file's feature) is still found among the features."""
    rng = np.random.default_rng(1)
    n = 120
    site = rng.integers(0, 2, n)
    y = (rng.uniform(size=n) < np.where(site == 1, 0.8, 0.2)).astype(int)
    X = rng.normal(size=(n, 12))
    X[:, 0] += 1.5 * y
    X[:, 1:4] += 3.0 * site[:, None]
    df = pd.DataFrame(X, columns=[f"g{j}" for j in range(12)])
    df["site"] = [f"site{s}" for s in site]
    df["label"] = y
    data, out = tmp_path / "cohort.csv", tmp_path / "sel.csv"
    df.to_csv(data, index=False)
    argv = ["select", "--method", "f", "-k", "fdr:0.1", "--permutations", "199", data, "--label", "label"]
    code, _, err = run([*argv, "--covariates", "site", "-o", out], capsys)
    assert code == 0, err
    chosen = set(fc.read_selection_csv(out.read_bytes())["name"])
    assert "g0" in chosen and "site" not in chosen and not chosen & {"g1", "g2", "g3"}

    from fsviz.data import Dataset

    npz = tmp_path / "cohort.npz"
    Dataset(X=np.column_stack([X, site]), y=y, feature_names=[*df.columns[:12], "batch"]).save(npz)
    argv = ["select", "--method", "f", "-k", "fdr:0.1", "--permutations", "199", npz, "--covariates", "batch"]
    code, _, err = run([*argv, "-o", out], capsys)
    assert code == 0, err
    chosen = set(fc.read_selection_csv(out.read_bytes())["name"])
    assert "g0" in chosen and not chosen & {"g1", "g2", "g3", "batch"}
