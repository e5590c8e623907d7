"""The command line: main(argv) exit codes and outputs, and real subprocess runs."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fsviz.compute as fc
from fsviz import cli
from fsviz.stats import correlation_histogram

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def loader():
    from fsviz.data import load_dataset

    return load_dataset


@pytest.fixture
def csv_path(tmp_path, rng):
    n, m = 60, 12
    X = rng.normal(size=(n, m))
    y = (X[:, 0] + 0.5 * X[:, 1] + 0.1 * rng.normal(size=n) > 0).astype(int)
    X[:, 5] = X[:, 0] * 2 + 0.01 * rng.normal(size=n)  # a near copy of feature 0
    X[:, 7] = 1.0  # constant
    X -= X.min()  # non-negative, so count-based methods (chi2) apply too
    df = pd.DataFrame(X, columns=[f"g{j}" for j in range(m)])
    df["label"] = y
    p = tmp_path / "d.csv"
    df.to_csv(p, index=False)
    return p


def test_chi2_on_signed_data_is_a_clean_error(tmp_path, capsys, rng):
    p = tmp_path / "signed.csv"
    df = pd.DataFrame(rng.normal(size=(30, 4)), columns=list("abcd"))
    df["label"] = np.arange(30) % 2
    df.to_csv(p, index=False)
    code, _, err = run(
        ["select", "--method", "chi2", p, "--label", "label", "-o", tmp_path / "o.csv"], capsys
    )
    assert code == 1 and "non-negative" in err


def run(argv, capsys):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


# ------------------------------------------------------------------------------ main(argv)
def test_info(loader, csv_path, capsys):
    code, out, err = run(["info", csv_path, "--label", "label", "--json"], capsys)
    assert code == 0, err
    info = json.loads(out)
    assert info["n_samples"] == 60 and info["n_features"] == 12 and info["constant_features"] == 1
    assert info["storage"] == "dense" and sum(info["classes"].values()) == 60
    code, out, err = run(["info", csv_path, "--label", "label"], capsys)
    assert code == 0 and "n_features" in out
    # the loader's constant-feature warning arrives as one clean line
    assert "fsviz: warning: load_dataset" in err and "DataWarning" not in err


def test_histogram_matches_library(loader, csv_path, tmp_path, capsys):
    out_csv = tmp_path / "h.csv"
    code, _, err = run(["histogram", csv_path, "--label", "label", "--bins", "10", "-o", out_csv], capsys)
    assert code == 0, err
    assert "exact histogram of 55 pairs" in err and "1 constant features excluded" in err
    got = pd.read_csv(out_csv)
    ds = loader(csv_path, label="label")
    ref = correlation_histogram(ds.X, bins=10)
    np.testing.assert_array_equal(got["count"], ref.counts)
    assert got["exact"].all() and list(got.columns)[:3] == ["lower", "upper", "count"]


def test_histogram_estimate_and_edges(loader, csv_path, capsys):
    code, out, err = run(
        [
            "histogram",
            csv_path,
            "--label",
            "label",
            "--estimate",
            "--sample-pairs",
            "5000",
            "--edges",
            "0,0.5,1",
            "-q",
        ],
        capsys,
    )
    assert code == 0 and err == ""
    got = pd.read_csv(io.StringIO(out))
    assert len(got) == 2 and not got["exact"].any()
    assert got["count"].sum() == pytest.approx(55)


def test_histogram_out_of_core_npy(tmp_path, rng, capsys):
    X = rng.normal(size=(30, 40))
    np.save(tmp_path / "x.npy", X)
    code, out, err = run(
        ["histogram", tmp_path / "x.npy", "--out-of-core", "--block-size", "7", "--precision", "float32"],
        capsys,
    )
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out))
    np.testing.assert_array_equal(got["count"], correlation_histogram(X).counts)


@pytest.mark.parametrize(
    "argv, code, message",
    [
        (["info", "/no/such/file.csv"], 1, "does not exist"),
        (["histogram", "/no/such/file.npy", "--out-of-core"], 1, "does not exist"),
        (["histogram", "{npy}", "--out-of-core", "--bins", "0"], 1, "'bins' as an int must be in"),
        (["histogram", "{npy}", "--out-of-core", "--edges", "0,a"], 1, "--edges expects"),
        (["histogram", "{npy}", "--out-of-core", "--edges", "0.5,0.2"], 1, "strictly increasing"),
        (["histogram", "{npy}", "--out-of-core", "--block-size", "0"], 1, "'block_size' must be"),
        (["histogram", "{txt}", "--out-of-core"], 1, "cannot read"),
        (
            [
                "histogram",
                "{npy}",
                "--out-of-core",
                "--scheduler",
                "tcp://127.0.0.1:1",
                "--scheduler-timeout",
                "1",
            ],
            1,
            "could not connect",
        ),
        (["histogram", "{npy}", "--scheduler", "ucx://10.0.0.5:8786"], 1, "tcp://HOST:PORT, tls://HOST:PORT"),
        (["histogram", "{npy}", "--scheduler", "inproc://x"], 1, "the scheme 'inproc://' is not supported"),
        (["select", "--method", "fisher", "{npy}", "--scheduler", "nonsense"], 1, "not a scheduler address"),
        (["select", "--method", "nosuch", "{npy}"], 2, "invalid choice"),
        (["frobnicate"], 2, "invalid choice"),
        ([], 2, "required"),
    ],
)
def test_bad_input_exit_codes(tmp_path, capsys, argv, code, message):
    np.save(tmp_path / "x.npy", np.random.default_rng(0).normal(size=(5, 4)))
    (tmp_path / "x.txt").write_text("hello")
    argv = [a.format(npy=tmp_path / "x.npy", txt=tmp_path / "x.txt") for a in argv]
    got, _, err = run(argv, capsys)
    assert got == code
    assert message in err
    if code == 1:
        assert err.startswith("fsviz: error:") or "fsviz: error:" in err


def test_bad_param_syntax(csv_path, capsys):
    code, _, err = run(["select", "--method", "fisher", "--param", "oops", csv_path], capsys)
    assert code == 1
    assert "--param expects NAME=VALUE" in err


def test_help_and_version(capsys):
    assert cli.main(["--help"]) == 0
    assert cli.main(["--version"]) == 0
    assert "fsviz" in capsys.readouterr().out


def test_parse_params():
    from fsviz.compute.commands import parse_params

    assert parse_params(["tau=0.3", "corr=su", "max_iter=5", "prior_groups=[[0, 1], [2]]"]) == {
        "tau": 0.3,
        "corr": "su",
        "max_iter": 5,
        "prior_groups": [[0, 1], [2]],
    }


# ---------------------------------------------------------------------------------- select
def _cli_run(name: str, k: int | None) -> tuple[list[str], fc.Run]:
    """The CLI arguments for ``name`` and the Run the app would build for the same request."""
    argv, params = ["--method", name, "--seed", "3"], {}
    if name == "grm":
        argv += ["--base", "lgd", "--base-param", "n_neighbors=4", "--param", "n_top=8"]
        params = {"base": fc.Run("lgd", {"n_neighbors": 4}, 3), "n_top": 8}
    elif name == "group-saola":
        params = {"groups": fc.Run("gdm", {}, 3)}
    elif name == "saola":
        argv += ["--param", "chunk=5"]
        params = {"chunk": 5}
    elif k is not None and "n_features" in fc.method(name).estimator().get_params():
        if fc.method(name).kind == "subset":
            params = {"n_features": k}  # -k sets how many a sequential selector picks
    if k is not None:
        argv += ["-k", str(k)]
    return argv, fc.Run(name, params, 3)


#: model-X knockoffs need n >= 2m (this CSV has fewer samples) and add W/threshold/rule columns:
#: tests/test_cli_cuts.py runs them through the CLI on a tall table
@pytest.mark.parametrize("name", [n for n in fc.selection_methods() if n != "knockoffs"])
def test_select_every_method_writes_the_apps_csv(loader, csv_path, tmp_path, capsys, name):
    """Same method, parameters and seed: byte for byte the CSV the app's download writes."""
    k = None if fc.method(name).kind in ("groups", "stream") else 3
    argv, app_run = _cli_run(name, k)
    out_csv, red_csv = tmp_path / "sel.csv", tmp_path / "red.csv"
    code, _, err = run(
        ["select", *argv, csv_path, "--label", "label", "-o", out_csv, "--reduced", red_csv], capsys
    )
    assert code == 0, err
    ds = loader(csv_path, label="label")
    sel = app_run.execute(ds).selection(k)
    assert out_csv.read_bytes() == fc.selection_csv(sel, ds.feature_names)
    assert red_csv.read_bytes() == fc.reduced_csv(ds, sel.indices)
    with open(out_csv) as f:
        rows = list(csv.DictReader(f))
    assert rows and list(rows[0]) == list(fc.SELECTION_COLUMNS)
    for i, r in enumerate(rows, start=1):
        assert r["name"] == f"g{int(r['index'])}" and int(r["rank"]) == i
        assert r["role"] in ("SF", "AF", "selected")
    if name == "gdm":
        assert any(r["role"] == "SF" for r in rows)
        assert {int(r["group"]) for r in rows} == set(range(1, sum(r["role"] == "SF" for r in rows) + 1))
    elif k is not None:
        assert 1 <= len(rows) <= 3


def test_select_explain_appends_the_unselected_features_as_the_app_does(loader, csv_path, tmp_path, capsys):
    out_csv = tmp_path / "sel.csv"
    argv = [
        "select",
        "--method",
        "fisher",
        "-k",
        "3",
        csv_path,
        "--label",
        "label",
        "--explain",
        "-o",
        out_csv,
    ]
    code, _, err = run(argv, capsys)
    assert code == 0, err
    assert "explained 9 unselected features (pearson)" in err
    ds = loader(csv_path, label="label")
    run_ = fc.Run("fisher", {}, 0)
    ex = fc.explain_run(run_, 3).execute(ds)
    assert out_csv.read_bytes() == fc.selection_csv(run_.execute(ds).selection(3), ds.feature_names, ex)
    frame = fc.read_selection_csv(out_csv.read_bytes())
    assert list(frame.columns[-3:]) == ["stand_in", "stand_in_corr", "reason"] and len(frame) == 12
    chosen, rest = frame.iloc[:3], frame.iloc[3:].set_index("name")
    assert (rest["role"] == "unselected").all()
    assert rest["stand_in"].drop("g7").isin(chosen["name"]).all()
    assert rest.loc["g7", "stand_in"] == "" and np.isnan(rest.loc["g7", "stand_in_corr"])  # constant
    assert rest["reason"].str.startswith("score below the k-th").all()


def test_select_writes_provenance_that_recomputes_the_selection(loader, csv_path, tmp_path, capsys):
    argv = ["select", "--method", "gdm", "--param", "tau=0.2", "--seed", "4", csv_path, "--label", "label"]
    code, _, err = run([*argv, "-o", tmp_path / "s.csv", "--provenance", tmp_path / "p.json"], capsys)
    assert code == 0, err
    prov = json.loads((tmp_path / "p.json").read_text())
    assert prov["run"] == fc.Run("gdm", {"tau": 0.2}, 4).to_dict()  # every declared parameter, spelt out
    assert prov["run"]["params"]["tau"] == 0.2 and prov["run"]["params"]["n_per_iter"] == 10
    ds = loader(csv_path, label="label")
    assert prov["dataset"]["fingerprint"] == ds.fingerprint and prov["dataset"]["label_column"] == "label"
    sel = fc.Run.from_dict(prov["run"]).execute(ds).selection(prov["k"])
    assert (tmp_path / "s.csv").read_bytes() == fc.selection_csv(sel, ds.feature_names)


def test_select_grm_on_lgd_keeps_constant_pixels_out(tmp_path, capsys):
    """Regression: GRM on LGD put all 12 constant pixels of the digits sample in its top 20."""
    from fsviz.data import load_sample

    ds = load_sample("digits-0-vs-1")
    path = tmp_path / "digits.csv"
    ds.to_csv(path)
    out = tmp_path / "grm.csv"
    argv = [
        "select",
        "--method",
        "grm",
        "--base",
        "lgd",
        "-k",
        "20",
        path,
        "--label",
        ds.label_column(),
        "-o",
        out,
    ]
    code, _, err = run(argv, capsys)
    assert code == 0, err
    top = pd.read_csv(out)["index"].tolist()
    assert len(top) == 20 and not set(top) & set(ds.constant_features.tolist())


@pytest.mark.parametrize("labelled", [True, False])
def test_select_grm_default_base_follows_the_target(tmp_path, capsys, rng, labelled):
    """Like the GRM page: Fisher score with class labels, the Laplacian score without."""
    df = pd.DataFrame(rng.normal(size=(40, 6)), columns=[f"g{i}" for i in range(6)])
    if labelled:
        df["tumour"] = np.where(np.arange(40) % 2, "glioma", "normal")
    df.to_csv(tmp_path / "d.csv", index=False)
    argv = ["select", "--method", "grm", "-k", "3", tmp_path / "d.csv", "--provenance", tmp_path / "p.json"]
    argv += ["--label", "tumour"] if labelled else []
    code, _, err = run([*argv, "-o", tmp_path / "s.csv"], capsys)
    assert code == 0, err
    base = json.loads((tmp_path / "p.json").read_text())["run"]["params"]["base"]["run"]
    assert base["method"] == ("fisher" if labelled else "laplacian")
    assert fc.grm_default_base("classes") == "fisher" and fc.grm_default_base(None) == "laplacian"


def test_reduced_never_overwrites_a_feature_called_label(tmp_path, capsys, rng):
    df = pd.DataFrame(rng.normal(size=(30, 3)), columns=["a", "label", "b"])
    df["tumour"] = np.where(np.arange(30) % 2, "glioma", "normal")
    df.to_csv(tmp_path / "d.csv", index=False)
    argv = ["select", "--method", "fisher", "-k", "2", tmp_path / "d.csv", "--label", "tumour"]
    code, _, err = run([*argv, "-o", tmp_path / "s.csv", "--reduced", tmp_path / "r.csv"], capsys)
    assert code == 0, err
    red = pd.read_csv(tmp_path / "r.csv")
    assert "label" in pd.read_csv(tmp_path / "s.csv")["name"].tolist() or "label" not in red.columns
    assert red["tumour"].tolist() == df["tumour"].tolist()  # class names kept, under their column
    for c in red.columns[:-1]:
        assert red[c].tolist() == df[c].tolist()


def test_select_unknown_param_message(loader, csv_path, capsys):
    code, _, err = run(
        ["select", "--method", "fisher", "--param", "bogus=1", csv_path, "--label", "label"], capsys
    )
    assert code == 1 and "unknown parameter(s) ['bogus']" in err
    code, _, err = run(
        ["select", "--method", "gdm", "--base-param", "n=1", csv_path, "--label", "label"], capsys
    )
    assert code == 1 and "--base-param applies to --method grm only" in err


def test_methods_lists_the_registry(capsys):
    assert cli.main(["methods"]) == 0
    out = capsys.readouterr().out
    for name in fc.selection_methods():
        assert out.count(f"\n{name} ") + out.startswith(f"{name} ") == 1, name


def test_internal_error_has_no_traceback(monkeypatch, capsys, tmp_path):
    np.save(tmp_path / "x.npy", np.ones((3, 3)))

    def boom(*a, **k):
        raise RuntimeError("kaputt")

    monkeypatch.setattr("fsviz.stats.correlation_histogram", boom)
    code, _, err = run(["histogram", tmp_path / "x.npy", "--out-of-core"], capsys)
    assert code == 3 and "internal error: RuntimeError: kaputt" in err


# ------------------------------------------------------------------------------ subprocess
def _sub(*args, cwd=ROOT):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "fsviz", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=300,
        check=False,
    )


def test_usage_error_exits_2(capsys):
    code, _, err = run(["histogram"], capsys)  # argparse's usage error, as a shell sees it
    assert code == 2 and "usage" in err


def test_subprocess_histogram_and_errors(tmp_path, rng):
    X = rng.normal(size=(20, 15))
    np.save(tmp_path / "x.npy", X)
    r = _sub("histogram", tmp_path / "x.npy", "--out-of-core", "--bins", "5")
    assert r.returncode == 0, r.stderr
    got = pd.read_csv(io.StringIO(r.stdout))
    np.testing.assert_array_equal(got["count"], correlation_histogram(X, bins=5).counts)
    assert "exact histogram of 105 pairs" in r.stderr
    r = _sub("info", tmp_path / "missing.csv")
    assert r.returncode == 1 and "does not exist" in r.stderr and "Traceback" not in r.stderr


def test_subprocess_info_real_loader(csv_path):
    r = _sub("info", csv_path, "--label", "label", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["n_features"] == 12


def test_scheduler_address(loader, csv_path, tmp_path, rng, capsys, dask_cluster):
    X = rng.normal(size=(25, 30))
    np.save(tmp_path / "x.npy", X)
    lc = dask_cluster  # the session's cluster (tests/conftest.py); the CLI connects to its address
    code, out, err = run(
        [
            "histogram",
            tmp_path / "x.npy",
            "--out-of-core",
            "--block-size",
            "8",
            "--scheduler",
            lc.scheduler_address,
        ],
        capsys,
    )
    assert code == 0, err
    assert "connected to Dask scheduler" in err
    np.testing.assert_array_equal(pd.read_csv(io.StringIO(out))["count"], correlation_histogram(X).counts)
    code, out, err = run(
        [
            "select",
            "--method",
            "saola",
            csv_path,
            "--label",
            "label",
            "--scheduler",
            lc.scheduler_address,
        ],
        capsys,
    )
    assert code == 0, err
    local = run(["select", "--method", "saola", csv_path, "--label", "label"], capsys)[1]
    assert out == local  # same selection on the cluster


def test_missing_and_categorical_options(tmp_path, capsys):
    p = tmp_path / "gaps.csv"
    p.write_text("a,b,colour,label\n1,2,red,0\n,3,blue,1\n3,,red,0\n4,5,blue,1\n5,6,red,0\n6,7,blue,1\n")
    code, _, err = run(["info", p, "--label", "label"], capsys)
    assert code == 1 and err.count("fsviz: error:") == 1
    argv = ["info", p, "--label", "label", "--missing", "mean", "--categorical", "onehot", "--json"]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    assert json.loads(out)["n_features"] == 4  # a, b, colour=blue, colour=red


@pytest.mark.parametrize(
    "run",
    [
        fc.Run("histogram", {"max_features": None}),  # the command's own default: every pair counted
        fc.Run("histogram", {}, seed=4),  # the app's: exact up to 20,000 features
        fc.Run("histogram", {"bins": 7, "max_features": 0, "n_sample_pairs": 500}, seed=2),
        fc.Run("histogram", {"edges": (0.0, 0.25, 1.0), "precision": "float32", "block_size": 64}),
        fc.Run("benchmark", {"methods": ("fisher", "mrmr"), "ks": (5, 10), "cv": 3}),
        fc.Run("benchmark", {"methods": ("variance",), "select_in_fold": False, "n_jobs": 2}, seed=1),
        fc.Run("gdm", {"tau": 0.2}, seed=5),
        fc.Run("grm", {"base": fc.Run("lgd", {"n_neighbors": 4})}),
    ],
)
def test_command_lines_are_runs_both_ways(run):
    """``fsviz histogram``, ``benchmark`` and ``select`` are Runs: the command line the report
    writes for a Run (:func:`fsviz.compute.commands.command_line`) reads back, through the
    CLI's own parser, as that Run."""
    from fsviz.compute.commands import command_line

    line = command_line(run)
    assert line is not None
    ns = cli._parser().parse_args([line[0], "DATA", *line[1:]])
    make = {"histogram": fc.histogram_run, "benchmark": fc.benchmark_run, "select": fc.select_run}
    assert make[line[0]](ns) == run


def test_views_without_a_command_have_no_command_line():
    from fsviz.compute.commands import command_line

    assert command_line(fc.Run("pairs")) is None
    assert command_line(fc.Run("group-saola", {"groups": fc.Run("gdm", {"tau": 0.2})})) is None


def test_grm_base_mi_takes_the_mdl_form_unless_told_otherwise():
    # GRM's input contract: information gain on MDL cuts, as on the GRM page; --base-param wins
    from fsviz.cli import _parser, _run_of

    def base(*extra):
        args = _parser().parse_args(["select", "--method", "grm", "--base", "mi", *extra, "data.csv"])
        return _run_of(args).get("base")

    assert base().get("strategy") == "mdl"
    assert base("--base-param", "strategy=uniform").get("strategy") == "uniform"


@pytest.mark.parametrize(
    "extra, said",
    [
        (["-k", "0"], "'k' parameter of fsviz select -k/--n-features must be an int in the range [1, inf)"),
        (["-k", "-3"], "Got -3 instead"),
        (["--param", "tau=1.0"], "'tau' parameter of GDM must be a float in the range [0.0, 1.0)"),
        (["--param", "corr=kendall"], "'corr' parameter of GDM must be a str among"),
    ],
)
def test_select_options_are_checked_against_the_declaration(csv_path, tmp_path, capsys, extra, said):
    out = tmp_path / "o.csv"
    argv = ["select", "--method", "gdm", csv_path, "--label", "label", "-o", out, *extra]
    code, _, err = run(argv, capsys)
    assert code != 0 and said in err and len(err.strip().splitlines()) == 1, err
    assert not out.exists()  # refused before any work


def test_loading_options_have_one_home():
    """The CLI's loading options take their choices (shown in the help, checked by the plan alone:
    no argparse choices) and defaults from load_dataset's own declaration (LOAD_CHOICES, the
    signature), and load_dataset refuses what is not in it."""
    from fsviz.cli import _parser
    from fsviz.data import load_dataset
    from fsviz.data.loaders import LOAD_CHOICES, load_defaults

    subparsers = _parser()._subparsers._group_actions[0].choices
    info = subparsers["info"]
    actions = {a.dest: a for a in info._actions}
    defaults = load_defaults()
    for option in ("missing", "categorical", "missing_target", "target_kind", "decimal"):
        assert actions[option].choices is None  # one place checks: the import plan
        assert actions[option].metavar == "{" + ",".join(map(str, LOAD_CHOICES[option])) + "}"
        assert actions[option].default == defaults[option]
    for option, choices in LOAD_CHOICES.items():
        assert defaults[option] in choices or defaults[option] is None, option
        with pytest.raises(ValueError, match=rf"load_dataset: {option} must be .*; got 'nope'"):
            load_dataset(io.BytesIO(b"a,b\n1,2\n"), **{option: "nope"})


class _LostClient:
    """A client whose scheduler was killed during the run: its futures come back cancelled and
    Dask has closed it."""

    status = "closed"
    scheduler = None
    _start_arg = "tcp://127.0.0.1:8786"

    class _Future:
        def release(self):
            pass

    def scatter(self, objs, **kwargs):
        return [self._Future() for _ in objs]

    def submit(self, *args, **kwargs):
        return self._Future()

    def gather(self, futures):
        from distributed.client import FutureCancelledError

        raise FutureCancelledError("blocks-0", "scheduler-connection-lost")

    def cancel(self, futures):
        pass

    def nthreads(self):
        return {"w": 1}

    def close(self, timeout=None):
        pass


def test_a_scheduler_lost_mid_run_is_an_error_line_naming_it(tmp_path, capsys, monkeypatch):
    pytest.importorskip("distributed")
    import fsviz._dask

    np.save(tmp_path / "x.npy", np.random.default_rng(0).normal(size=(20, 30)))
    monkeypatch.setattr(fsviz._dask, "as_client", lambda address, timeout: _LostClient())
    code, out, err = run(["histogram", tmp_path / "x.npy", "--scheduler", "tcp://127.0.0.1:8786"], capsys)
    assert code == 1 and out == ""
    assert "internal error" not in err
    assert "the Dask scheduler at tcp://127.0.0.1:8786 was lost during the run" in err
    assert "start the scheduler again" in err
