"""Bundled samples: deterministic files, list/load API, ground truth, the writer CLI."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from fsviz.data import Dataset, list_samples, load_dataset, load_sample
from fsviz.data.generators import BlockTruth, GroundTruth, make_correlated_blocks, make_grouped_classification
from fsviz.data.samples import SampleInfo, make_sample, sample_dir, write_samples

NAMES = ["digits-0-vs-1", "synthetic-groups", "correlated-blocks", "diabetes"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("samples")
    assert write_samples(d) == NAMES
    return d


def test_list_samples_api():
    info = list_samples()
    assert list(info) == NAMES
    assert all(isinstance(v, SampleInfo) and v.name == k and v.description for k, v in info.items())
    assert info["digits-0-vs-1"].image_shape == (8, 8)
    assert info["synthetic-groups"].has_truth and info["synthetic-groups"].truth_kind == "groups"
    assert info["correlated-blocks"].truth_kind == "blocks"


def test_files_match_generators_exactly(folder):
    man = json.loads((folder / "manifest.json").read_text())
    for name in NAMES:
        ds = load_sample(name, folder)
        info = list_samples()[name]
        assert isinstance(ds, Dataset) and ds.name == name and ds.description == info.description
        assert ds.shape == (info.n_samples, info.n_features) and ds.image_shape == info.image_shape
        assert man["samples"][name]["fingerprint"] == ds.fingerprint
        assert make_sample(name).fingerprint == ds.fingerprint  # deterministic
        # the file is an ordinary fsviz .npz: load_dataset reads the same content
        assert load_dataset(folder / info.filename).fingerprint == ds.fingerprint


def test_synthetic_groups_truth(folder):
    ds = load_sample("synthetic-groups", folder)
    X, y, truth = make_grouped_classification(
        n_samples=600, n_features=2000, n_groups=12, max_affiliates=5, random_state=0
    )
    np.testing.assert_array_equal(ds.X, X)
    np.testing.assert_array_equal(ds.y, y)
    assert isinstance(ds.truth, GroundTruth)
    np.testing.assert_array_equal(ds.truth.support, truth.support)
    assert set(ds.truth.groups) == set(truth.groups)
    for s in truth.support:
        np.testing.assert_array_equal(ds.truth.groups[int(s)], truth.groups[int(s)])
        np.testing.assert_allclose(ds.truth.affiliate_corr[int(s)], truth.affiliate_corr[int(s)])
    np.testing.assert_array_equal(ds.truth.weights, truth.weights)


def test_blocks_truth(folder):
    ds = load_sample("correlated-blocks", folder)
    X, _, truth = make_correlated_blocks(
        n_samples=400, n_features=100, n_blocks=10, block_corr=0.8, random_state=0
    )
    np.testing.assert_array_equal(ds.X, X)
    assert isinstance(ds.truth, BlockTruth)
    np.testing.assert_array_equal(ds.truth.block, truth.block)
    np.testing.assert_array_equal(ds.truth.mean_shift, truth.mean_shift)
    assert ds.truth.block_corr == truth.block_corr


def test_digits_are_sklearn_digits_0_and_1(folder):
    from sklearn.datasets import load_digits

    ds = load_sample("digits-0-vs-1", folder)
    ref = load_digits(n_class=2)
    np.testing.assert_array_equal(ds.X, ref.data)
    np.testing.assert_array_equal(ds.y, ref.target)
    assert ds.feature_names[9] == "pixel_1_1" and ds.class_names.tolist() == ["0", "1"]
    np.testing.assert_array_equal(ds.X[0].reshape(8, 8), ref.images[0])  # C order, upright
    assert len(ds.constant_features) > 0  # border pixels, flagged and kept


def test_if_missing_skips_current_files_and_rewrites_missing(folder):
    assert write_samples(folder, if_missing=True) == []
    (folder / "digits-0-vs-1.npz").unlink()
    assert write_samples(folder, if_missing=True) == ["digits-0-vs-1"]
    (folder / "correlated-blocks.truth.npz").unlink()
    assert write_samples(folder, if_missing=True) == ["correlated-blocks"]


def test_load_sample_generates_missing_files(tmp_path):
    ds = load_sample("correlated-blocks", tmp_path)
    assert (tmp_path / "correlated-blocks.npz").is_file() and (
        tmp_path / "correlated-blocks.truth.npz"
    ).is_file()
    assert load_sample("correlated-blocks", tmp_path) is ds  # cached


def test_unknown_sample():
    with pytest.raises(ValueError, match=r"unknown sample 'nope'; samples are \['digits-0-vs-1', "):
        load_sample("nope")
    with pytest.raises(ValueError, match=r"unknown sample 'nope'"):
        write_samples(names=["nope"])


def test_cli_if_missing(tmp_path, capsys):
    from fsviz.data.samples import main

    argv = ["--if-missing", "--dir", str(tmp_path), "digits-0-vs-1"]
    assert main(argv) == 0
    first = capsys.readouterr()
    assert "wrote digits-0-vs-1" in first.err and first.out == ""
    assert main(argv) == 0
    assert "up to date" in capsys.readouterr().err
    # the module's entry point, as `make samples` runs it: a bad name is a usage error
    bad = subprocess.run(
        [sys.executable, "-m", "fsviz.data.samples", "--dir", str(tmp_path), "zzz"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and "unknown sample 'zzz'" in bad.stderr


def test_default_folder_env(monkeypatch, tmp_path):
    monkeypatch.setenv("FSVIZ_SAMPLE_DATA", str(tmp_path))
    assert sample_dir() == tmp_path
    monkeypatch.delenv("FSVIZ_SAMPLE_DATA")
    assert sample_dir().name == "sample_data"
