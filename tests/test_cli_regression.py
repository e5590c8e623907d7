"""``fsviz info`` / ``select`` / ``methods`` with a continuous target."""

import json

import numpy as np
import pandas as pd
import pytest

import fsviz.compute as fc
from fsviz import cli

PLANTED = {"g3", "g7", "g11"}


@pytest.fixture
def reg_csv(tmp_path):
    rng = np.random.default_rng(0)
    n, m = 300, 16
    X = rng.normal(size=(n, m))
    y = 2.0 * X[:, 3] - 1.5 * X[:, 7] + 1.5 * X[:, 11] + 0.5 * rng.normal(size=n)
    df = pd.DataFrame(X, columns=[f"g{j}" for j in range(m)])
    df["progression"] = y
    p = tmp_path / "reg.csv"
    df.to_csv(p, index=False)
    return p


def run(argv, capsys):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def test_info_reports_a_continuous_target(reg_csv, capsys):
    code, out, _ = run(["info", reg_csv, "--label", "progression", "--json"], capsys)
    info = json.loads(out)
    assert code == 0 and info["target"] == "continuous" and "classes" not in info
    lo, hi = info["target_range"]
    assert lo < info["target_mean"] < hi


@pytest.mark.parametrize("method", ["f", "mi", "relieff", "pearson", "spearman"])
def test_regression_scores_select_the_planted_features(method, reg_csv, tmp_path, capsys):
    out_csv = tmp_path / f"{method}.csv"
    code, _, err = run(
        ["select", "--method", method, "-k", 3, reg_csv, "--label", "progression", "-o", out_csv], capsys
    )
    assert code == 0, err
    sel = pd.read_csv(out_csv)
    assert set(sel["name"]) == PLANTED and list(sel["rank"]) == [1, 2, 3]


@pytest.mark.parametrize("method", ["saola", "group-saola"])
def test_saola_streams_with_a_continuous_target(method, reg_csv, tmp_path, capsys):
    extra = ["--param", "groups=4"] if method == "group-saola" else []
    code, _, err = run(
        ["select", "--method", method, *extra, reg_csv, "--label", "progression", "-o", tmp_path / "s.csv"],
        capsys,
    )
    assert code == 0, err
    assert PLANTED <= set(pd.read_csv(tmp_path / "s.csv")["name"])


def test_grm_on_a_regression_base_score(reg_csv, tmp_path, capsys):
    argv = ["select", "--method", "grm", "--base", "f", "--param", "n_top=10", "-k", 3, reg_csv]
    code, _, err = run([*argv, "--label", "progression", "-o", tmp_path / "g.csv"], capsys)
    assert code == 0, err
    assert len(pd.read_csv(tmp_path / "g.csv")) == 3


@pytest.mark.parametrize("method", ["fisher", "mrmr", "tscore", "chi2"])
def test_class_only_methods_error_clearly(method, reg_csv, tmp_path, capsys):
    code, _, err = run(
        ["select", "--method", method, reg_csv, "--label", "progression", "-o", tmp_path / "x.csv"], capsys
    )
    assert code == 1
    assert "needs class labels; y looks continuous (type_of_target='continuous')" in err
    assert err.splitlines()[-1].startswith("fsviz: error: ") and not (tmp_path / "x.csv").exists()


def test_grm_with_a_class_only_base_errors(reg_csv, tmp_path, capsys):
    argv = ["select", "--method", "grm", "--base", "fisher", reg_csv, "--label", "progression"]
    code, _, err = run([*argv, "-o", tmp_path / "x.csv"], capsys)
    assert code == 1 and "Fisher score needs class labels" in err


def test_methods_marks_the_regression_capable(capsys):
    code, out, _ = run(["methods"], capsys)
    assert code == 0
    rows = {line.split()[0]: line for line in out.splitlines() if line and not line.startswith("supervised:")}
    for name in fc.selection_methods():
        spec = fc.method(name)
        assert (" sup+regr " in rows[name]) == (spec.supervised and spec.regression), name
    assert {"f", "mi", "relieff", "pearson", "spearman", "saola"} <= {
        n for n in fc.selection_methods() if fc.method(n).accepts("continuous") and fc.method(n).supervised
    }
