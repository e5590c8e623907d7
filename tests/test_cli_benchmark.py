"""``fsviz benchmark``: the CSV is the library's benchmark table, byte for byte."""

from __future__ import annotations

import io
import warnings

import numpy as np
import pandas as pd
import pytest

import fsviz.compute as fc
from fsviz import cli
from fsviz.data import Dataset, load_dataset
from fsviz.evaluate import benchmark


@pytest.fixture
def data_path(tmp_path):
    rng = np.random.default_rng(8)
    y = np.repeat([0, 1, 2], 20)
    X = rng.normal(size=(60, 9))
    X[:, 1] += y
    X[:, 6] -= 0.8 * (y == 2)
    path = tmp_path / "toy.npz"
    Dataset(X, y=y, name="toy").save(path)
    return path


def _library_csv(path, cli_csv: bytes, **kw) -> bytes:
    """The library's table, written by benchmark_csv with the CLI's measured times."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        kw["methods"] = fc.benchmark_rankers(kw["methods"], kw.get("random_state", 0))
        frame = benchmark(load_dataset(path), None, **kw)
    frame["time"] = pd.read_csv(io.BytesIO(cli_csv))["time"].to_numpy()
    return fc.benchmark_csv(frame)


@pytest.mark.parametrize("once", [False, True])
def test_cli_csv_equals_library(data_path, tmp_path, once):
    out = tmp_path / "b.csv"
    argv = ["benchmark", str(data_path), "--methods", "fisher,mrmr,variance", "--ks", "2:12:3"]
    argv += ["--classifiers", "naive_bayes,decision_tree", "--cv", "4", "--repeats", "2", "--seed", "3"]
    argv += ["-q", "-o", str(out)] + (["--select-once"] if once else [])
    assert cli.main(argv) == 0
    got = out.read_bytes()
    want = _library_csv(
        data_path,
        got,
        methods=["fisher", "mrmr", "variance"],
        ks=range(2, 12, 3),
        classifiers=["naive_bayes", "decision_tree"],
        cv=4,
        n_repeats_kmeans=2,
        random_state=3,
        select_in_fold=not once,
    )
    assert got == want
    frame = pd.read_csv(io.BytesIO(got))
    assert sorted(frame.k.unique()) == [2, 5, 8, 9]  # 11 clipped to the 9 features
    assert (frame[frame.method == "fisher"].time.nunique() == 1) == once


def test_cli_stdout_list_of_ks_and_note(data_path, capsys):
    argv = ["benchmark", str(data_path), "--methods", "fisher", "--ks", "1,3,50"]
    argv += ["--classifiers", "knn", "--cv", "3"]
    assert cli.main(argv) == 0
    captured = capsys.readouterr()
    frame = pd.read_csv(io.StringIO(captured.out))
    assert sorted(frame.k.unique()) == [1, 3, 9] and len(frame) == 3 * 3
    assert "clipped to k = 9" in captured.err and "benchmark finished" in captured.err


def test_cli_stability_columns_equal_the_library(data_path, tmp_path):
    out = tmp_path / "b.csv"
    argv = ["benchmark", str(data_path), "--methods", "fisher", "--ks", "2,4", "--classifiers", "naive_bayes"]
    assert cli.main([*argv, "--cv", "3", "--stability-tau", "0.3", "-q", "-o", str(out)]) == 0
    got = out.read_bytes()
    kw = {"ks": [2, 4], "classifiers": ["naive_bayes"], "cv": 3, "stability_tau": 0.3}
    assert got == _library_csv(data_path, got, methods=["fisher"], **kw)
    assert list(pd.read_csv(io.BytesIO(got)).columns[-2:]) == ["kuncheva", "group_kuncheva"]


@pytest.mark.parametrize(
    "extra, match",
    [
        (["--methods", "fisher,nope"], "--methods: unknown method(s) ['nope']"),
        (["--methods", "fisher", "--ks", "a:b"], "--ks expects START:STOP[:STEP]"),
        (["--methods", "fisher", "--cv", "30"], "'cv' must be <= the size of the smallest class (20"),
        (["--methods", "fisher", "--classifiers", "svm"], "unknown classifier 'svm'"),
    ],
)
def test_cli_errors_are_one_line(data_path, capsys, extra, match):
    assert cli.main(["benchmark", str(data_path), *extra]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("fsviz: error: ") and match in err[-1]
