"""The server data folder (FSVIZ_DATA_DIR): listing, confinement, memory-mapped opening, the sidebar.

A path outside the folder is refused whatever is typed (``..``, absolute paths, symlinks out,
NUL bytes); a ``.npy`` matrix opens memory-mapped with its ``<stem>.y.npy`` labels; other
formats are read with the upload's import settings; the app shows the folder as a third source.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest

from fsviz.app.appkit.data_folder import FolderFile, list_files, resolve_inside
from fsviz.data import load_dataset

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")


@pytest.fixture
def folder(tmp_path):
    """``data/`` (the data folder) beside ``outside/`` (a secret it must not reach)."""
    data, outside = tmp_path / "data", tmp_path / "outside"
    (data / "sub").mkdir(parents=True)
    outside.mkdir()
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 30)).astype(np.float32)
    X[:, 1] = X[:, 0] * 2 + 0.01 * rng.standard_normal(40)  # a correlated pair: a GDM group
    y = (X[:, 0] > 0).astype(np.int64)
    np.save(data / "expr.npy", X)
    np.save(data / "expr.y.npy", y)
    (data / "sub" / "table.csv").write_text("a,b,class\n1,2,x\n3,4,y\n5,7,x\n6,1,y\n")
    (data / ".hidden.csv").write_text("a\n1\n")
    (data / "notes.docx").write_bytes(b"not data")
    (outside / "secret.csv").write_text("password,class\n1,x\n2,y\n")
    os.symlink(outside / "secret.csv", data / "link_out.csv")  # a symlink pointing out
    os.symlink(outside, data / "dir_out")  # a folder symlink pointing out
    os.symlink(data / "expr.npy", data / "alias.npy")  # a symlink that stays inside
    return data, outside, X, y


def test_the_listing_names_data_files_with_their_sizes_and_nothing_outside(folder):
    data, _, X, _ = folder
    files = {f.name: f for f in list_files(data)}
    assert set(files) == {
        "expr.npy",
        "alias.npy",
        "sub/table.csv",
    }  # no labels file, hidden, .docx, links out
    assert files["expr.npy"] == FolderFile("expr.npy", (data / "expr.npy").stat().st_size, "npy", False)
    assert files["expr.npy"].size >= X.nbytes
    assert files["sub/table.csv"].mapped is False
    assert "MiB" in files["expr.npy"].label or "KiB" in files["expr.npy"].label


@pytest.mark.parametrize(
    "typed",
    [
        "../outside/secret.csv",
        "sub/../../outside/secret.csv",
        "{outside}/secret.csv",  # an absolute path
        "link_out.csv",  # a symlink pointing out
        "dir_out/secret.csv",  # through a folder symlink pointing out
        "/etc/passwd",
        "expr.npy\x00.csv",
        "",
        "missing.csv",
    ],
)
def test_a_path_outside_the_folder_is_refused_whatever_is_typed(folder, typed):
    data, outside, _, _ = folder
    with pytest.raises(ValueError, match="data folder"):
        resolve_inside(data, typed.format(outside=outside))


def test_paths_inside_the_folder_resolve(folder):
    data, _, _, _ = folder
    assert resolve_inside(data, "sub/table.csv") == (data / "sub" / "table.csv").resolve()
    assert resolve_inside(data, "./sub/../expr.npy") == (data / "expr.npy").resolve()
    assert resolve_inside(data, "alias.npy") == (data / "expr.npy").resolve()  # a link inside


def test_a_npy_matrix_opens_in_memory_or_memory_mapped_over_the_budget_with_its_labels(folder):
    data, _, X, y = folder
    mapped = load_dataset(data / "expr.npy", memory_budget=1000)  # 40 x 30 float64 > 1000 bytes
    assert isinstance(mapped.X, np.memmap) and not mapped.X.flags.writeable
    assert mapped.meta["format"] == "npy-mmap"
    ds = load_dataset(data / "expr.npy")  # within the default budget: in memory, float64
    assert not isinstance(ds.X, np.memmap) and ds.X.dtype == np.float64 and ds.meta["format"] == "npy"
    for d in (mapped, ds):
        np.testing.assert_array_equal(np.asarray(d.X, dtype=np.float64), X.astype(np.float64))
        np.testing.assert_array_equal(d.y, y)
        assert d.name == "expr"
    from fsviz.compute import Run

    a, b = Run("gdm", {}).execute(mapped), Run("gdm", {}).execute(ds)  # the same groups either way
    np.testing.assert_array_equal(a.support, b.support)
    np.testing.assert_array_equal(a.af, b.af)
    assert load_dataset(data / "expr.npy", label=None).y is None
    np.save(data / "bad.y.npy", np.arange(3))
    np.save(data / "bad.npy", X)
    with pytest.raises(ValueError, match="one label per sample"):
        load_dataset(data / "bad.npy")
    np.save(data / "flat.npy", np.arange(5.0))
    with pytest.raises(ValueError, match="2-D numeric"):
        load_dataset(data / "flat.npy")


def _app(monkeypatch, data) -> AppTest:
    monkeypatch.setenv("FSVIZ_DATA_DIR", str(data))
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.radio(key="source").set_value("Server folder").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_app_opens_a_server_file_and_refuses_a_typed_path_outside(folder, monkeypatch):
    data, outside, X, _ = folder
    at = _app(monkeypatch, data)
    assert at.radio(key="source").options == ["Sample", "Upload", "Server folder"]
    listed = at.selectbox(key="folder_file").options  # name — size, how it opens
    assert [o.split(" — ")[0] for o in listed] == ["alias.npy", "expr.npy", "sub/table.csv"]
    assert listed[1].endswith("KiB") and listed[2] == "sub/table.csv — 34 B"
    at.selectbox(key="folder_file").set_value("expr.npy").run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Active: **expr**" in c.value and "30 features" in c.value for c in at.sidebar.caption)
    at.text_input(key="folder_path").set_value(f"{outside}/secret.csv").run()
    assert any("outside the data folder" in e.value for e in at.error)
    assert not any("secret" in c.value for c in at.sidebar.caption)  # nothing of it was read
    assert not any("password" in str(getattr(e, "value", "")) for e in at.dataframe)
    at.text_input(key="folder_path").set_value("sub/table.csv").run()  # a table: the upload's import path
    assert not at.exception, [e.value for e in at.exception]
    assert any("Active: **table**" in c.value for c in at.sidebar.caption)
    assert any(s.label == "Target column" for s in at.sidebar.selectbox)


def test_without_the_setting_there_is_no_server_source(monkeypatch):
    monkeypatch.delenv("FSVIZ_DATA_DIR", raising=False)
    at = AppTest.from_file(APP, default_timeout=120).run()
    assert at.radio(key="source").options == ["Sample", "Upload"]


def test_a_file_over_the_memory_budget_stays_on_disk_and_only_out_of_core_runs_read_it(folder, monkeypatch):
    data, _, _, _ = folder
    monkeypatch.setenv("FSVIZ_MEMORY_BUDGET", "8K")  # 40 x 30 float64 is over it
    assert {f.name: f.mapped for f in list_files(data)}["expr.npy"] is True
    at = _app(monkeypatch, data)
    assert at.selectbox(key="folder_file").options[1].endswith(", memory-mapped")
    at.selectbox(key="folder_file").set_value("expr.npy").run()
    assert not at.exception, [e.value for e in at.exception]
    at.switch_page("fsviz/app/views/groups.py").run()  # GDM reads the mapped file block by block
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any(c.value.startswith("Shown: GDM") for c in at.caption)
    at.switch_page("fsviz/app/views/grm.py").run()  # GRM would read it into memory: refused, with the fix
    assert not at.exception, [e.value for e in at.exception]
    assert any("needs the data in memory" in e.value and "FSVIZ_MEMORY_BUDGET" in e.value for e in at.error)


def test_a_session_file_names_the_server_file_by_its_path_in_the_folder():
    import json

    import fsviz.compute as fc

    doc = {
        "dataset": {
            "name": "expr",
            "fingerprint": "ab" * 32,
            "source": {"kind": "server", "file": "expr.npy"},
        }
    }
    assert fc.read_session(json.dumps(doc).encode()).source == {"kind": "server", "file": "expr.npy"}
    doc["dataset"]["source"] = {"kind": "server"}
    with pytest.raises(ValueError, match="dataset.source.file"):
        fc.read_session(json.dumps(doc).encode())


def test_zarr_and_parquet_open_in_memory_or_spilled_and_memory_mapped_over_the_budget(tmp_path, monkeypatch):
    import pandas as pd
    import zarr

    from fsviz.app.appkit.data_folder import list_files, open_parquet_mapped, open_zarr

    rng = np.random.default_rng(1)
    X = rng.standard_normal((30, 12))
    y = (X[:, 0] > 0).astype(np.int64)
    data = tmp_path / "data"
    data.mkdir()
    zarr.save_array(str(data / "plain.zarr"), X)  # a bare array: features only
    group = zarr.open_group(str(data / "labelled.zarr"), mode="w")
    group.create_array("X", data=X)
    group.create_array("y", data=y)
    frame = pd.DataFrame(X, columns=[f"g{j}" for j in range(12)])
    frame["diagnosis"] = np.where(y == 1, "tumour", "normal")
    frame.to_parquet(data / "table.parquet")
    monkeypatch.setenv("FSVIZ_SPILL_DIR", str(tmp_path / "spill"))

    listed = {f.name: f for f in list_files(data)}
    assert listed["plain.zarr"].kind == "zarr" and not listed["plain.zarr"].mapped
    ds = open_zarr(data / "labelled.zarr")  # within the budget: in memory
    assert not isinstance(ds.X, np.memmap)
    np.testing.assert_array_equal(ds.X, X)
    np.testing.assert_array_equal(ds.y, y)
    assert open_zarr(data / "plain.zarr").y is None

    monkeypatch.setenv("FSVIZ_MEMORY_BUDGET", "1K")  # over it: spilled once, memory-mapped
    assert {f.name: f.mapped for f in list_files(data)} == {
        "labelled.zarr": True,
        "plain.zarr": True,
        "table.parquet": True,
    }
    for ds in (open_zarr(data / "labelled.zarr"), open_parquet_mapped(data / "table.parquet")):
        assert isinstance(ds.X, np.memmap) and ds.X.flags.f_contiguous
        np.testing.assert_array_equal(np.asarray(ds.X), X)
        np.testing.assert_array_equal(ds.y, y)
    pq = open_parquet_mapped(data / "table.parquet")
    assert list(pq.feature_names) == [f"g{j}" for j in range(12)] and list(pq.class_names) == [
        "normal",
        "tumour",
    ]
    assert len(list((tmp_path / "spill").glob("*.npy"))) == 4  # two matrices and their labels, written once
