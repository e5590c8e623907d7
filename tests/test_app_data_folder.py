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

from fsviz.data import load_dataset
from fsviz_app.appkit.data_folder import FolderFile, list_files, resolve_inside

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
    at.switch_page("fsviz_app/views/groups.py").run()  # GDM reads the mapped file block by block
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any(c.value.startswith("Shown: GDM") for c in at.caption)
    at.switch_page("fsviz_app/views/grm.py").run()  # GRM would read it into memory: refused, with the fix
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

    from fsviz_app.appkit.data_folder import list_files, open_parquet_mapped, open_zarr

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


# ------------------------------------------------------------ file types: only regular files are read
def _unblock(fifo: Path) -> None:
    """Let a reader stuck in ``open`` of ``fifo`` go (a writer opens and closes it): a failing
    test must not leave a thread blocked for the rest of the run."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:
        pass  # nobody is reading it: nothing to release


def _within(seconds: float, fn, *args):
    """``fn(*args)``, which must answer within ``seconds`` (else the test fails, never hangs)."""
    import threading

    box: dict = {}

    def run():
        try:
            box["value"] = fn(*args)
        except BaseException as e:  # noqa: BLE001 - handed to the test
            box["error"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    return t.is_alive(), box


@pytest.fixture
def hostile_folder(tmp_path):
    """A data folder holding FIFOs named like data files, a link to /dev/zero, a device node
    (when this user may make one), a sub-folder and one good CSV."""
    data = tmp_path / "data"
    (data / "sub").mkdir(parents=True)
    (data / "good.csv").write_text("a,b,class\n1,2,x\n3,4,y\n5,7,x\n6,1,y\n")
    fifos = [data / n for n in ("x.npy", "x.parquet", "x.csv")]
    for f in fifos:
        os.mkfifo(f)
    os.symlink("/dev/zero", data / "zero.csv")
    devices = []
    try:
        import stat as st_

        os.mknod(data / "dev.csv", 0o600 | st_.S_IFCHR, os.makedev(1, 5))  # /dev/zero's numbers
        devices.append("dev.csv")
    except (PermissionError, OSError):
        pass  # not root: the link to /dev/zero stands for a device
    yield data, devices
    for f in fifos:
        _unblock(f)


def test_the_listing_skips_pipes_and_devices_by_their_type_and_says_why_within_2_s(hostile_folder):
    from fsviz_app.appkit.data_folder import scan_folder

    data, devices = hostile_folder
    alive, box = _within(2.0, scan_folder, data)
    assert not alive, "the listing blocked on a FIFO"
    files, skipped = box["value"]
    assert [f.name for f in files] == ["good.csv"]
    why = {s.name: s.reason for s in skipped}
    for name in ("x.npy", "x.parquet", "x.csv"):
        assert why[name] == "a named pipe (FIFO), not a regular file"
    assert why["zero.csv"] == "a link pointing outside the data folder"
    for name in devices:
        assert why[name] == "a character device, not a regular file"


@pytest.mark.parametrize("name", ["x.npy", "x.parquet", "x.csv", "dev.csv"])
def test_opening_a_pipe_or_a_device_in_the_folder_is_a_clear_error_not_a_hang(hostile_folder, name):
    from fsviz_app.appkit.data_folder import resolve_inside

    data, devices = hostile_folder
    if name.startswith("dev") and name not in devices:
        pytest.skip("making a device node needs root")
    alive, box = _within(2.0, resolve_inside, data, name)
    assert not alive
    assert isinstance(box.get("error"), ValueError)
    assert "not a regular file" in str(box["error"]) and repr(name) in str(box["error"])


@pytest.mark.parametrize("typed", [".", "sub", "sub/"])
def test_choosing_the_folder_or_a_sub_folder_is_a_clear_message(hostile_folder, typed):
    from fsviz_app.appkit.data_folder import resolve_inside

    data, _ = hostile_folder
    with pytest.raises(ValueError, match=r"is a folder, not a data file\. Fix: choose a file inside it"):
        resolve_inside(data, typed)


@pytest.mark.parametrize("name", ["x.npy", "x.parquet", "x.csv"])
def test_load_dataset_refuses_a_fifo_by_its_type(hostile_folder, name):
    data, _ = hostile_folder
    alive, box = _within(2.0, load_dataset, data / name)
    assert not alive
    assert isinstance(box.get("error"), ValueError)
    assert "is a named pipe (FIFO), not a regular file" in str(box["error"])


def test_load_dataset_refuses_a_character_device_and_a_folder():
    with pytest.raises(ValueError, match=r"'zero' is a character device, not a regular file"):
        load_dataset("/dev/zero", fmt="csv")
    with pytest.raises(ValueError, match=r"is a folder, not a data file"):
        load_dataset(str(ROOT / "tests"))


def test_the_app_lists_skipped_files_and_refuses_a_pipe_and_the_folder_itself(hostile_folder, monkeypatch):
    data, _ = hostile_folder
    spill = data.parent / "spill"
    monkeypatch.setenv("FSVIZ_SPILL_DIR", str(spill))
    monkeypatch.setenv("FSVIZ_MEMORY_BUDGET", "64M")
    _lying_zarr(data / "huge.zarr")
    at = _app(monkeypatch, data)
    assert [o.split(" — ")[0] for o in at.selectbox(key="folder_file").options] == ["good.csv", "huge.zarr"]
    assert any("x.npy (a named pipe (FIFO), not a regular file)" in c.value for c in at.sidebar.caption)
    for typed, said in (
        ("x.csv", "is a named pipe (FIFO), not a regular file"),
        (".", "the data folder itself is a folder, not a data file"),
        ("huge.zarr", "declares a 20,000 x 20,000 array in 400 chunks but holds 1 of them"),
    ):
        at.text_input(key="folder_path").set_value(typed).run()
        assert not at.exception, [e.value for e in at.exception]
        assert any(said in e.value for e in at.error), [e.value for e in at.error]
    at.text_input(key="folder_path").set_value("good.csv").run()  # the session stays usable
    assert any("Active: **good**" in c.value for c in at.sidebar.caption)
    assert not spill.exists() or not any(spill.iterdir())  # nothing written for the lying store


# ------------------------------------------------------------ zarr stores and spills: declared sizes
def _lying_zarr(path: Path) -> Path:
    """An ~8 KB zarr store declaring 20,000 x 20,000 float64 (3.2 GB): one chunk of 400 written."""
    import zarr

    z = zarr.create_array(str(path), shape=(20_000, 20_000), chunks=(1000, 1000), dtype="f8")
    z[:3, :3] = 1.0
    return path


def test_a_zarr_store_declaring_more_than_it_holds_is_refused_and_nothing_is_spilled(tmp_path, monkeypatch):
    from fsviz_app.appkit.data_folder import list_files, open_zarr, resolve_inside

    data, spill = tmp_path / "data", tmp_path / "spill"
    data.mkdir()
    store = _lying_zarr(data / "huge.zarr")
    assert sum(f.stat().st_size for f in store.rglob("*") if f.is_file()) < 16_000
    monkeypatch.setenv("FSVIZ_SPILL_DIR", str(spill))
    monkeypatch.setenv("FSVIZ_MEMORY_BUDGET", "64M")
    alive, box = _within(2.0, list_files, data)  # the listing reads its metadata only
    assert not alive and [f.name for f in box["value"]] == ["huge.zarr"]
    with pytest.raises(
        ValueError, match=r"declares a 20,000 x 20,000 array in 400 chunks but holds 1 of them"
    ):
        open_zarr(resolve_inside(data, "huge.zarr"))
    assert not spill.exists() or not any(spill.iterdir())  # no .part, no spill


def test_a_zarr_group_whose_labels_lie_about_their_length_is_refused(tmp_path):
    import zarr

    from fsviz_app.appkit.data_folder import open_zarr

    group = zarr.open_group(str(tmp_path / "g.zarr"), mode="w")
    group.create_array("X", data=np.ones((4, 3)))
    group.create_array("y", shape=(10**9,), chunks=(1000,), dtype="i8")  # never read whole
    with pytest.raises(
        ValueError, match=r"holds 'y' of shape \(1000000000,\); expected one label per sample"
    ):
        open_zarr(tmp_path / "g.zarr")


def _spillable(tmp_path):
    import zarr

    data = tmp_path / "data"
    data.mkdir()
    X = np.arange(60.0).reshape(6, 10)
    zarr.save_array(str(data / "m.zarr"), X)
    return data / "m.zarr", X


def test_a_spill_checks_its_budget_and_the_free_space_before_writing(tmp_path, monkeypatch):
    import shutil
    from collections import namedtuple

    from fsviz_app.appkit import data_folder as df

    store, X = _spillable(tmp_path)
    spill = tmp_path / "spill"
    monkeypatch.setenv("FSVIZ_SPILL_DIR", str(spill))
    monkeypatch.setenv("FSVIZ_MEMORY_BUDGET", "1K")  # over it: spilled
    monkeypatch.setenv("FSVIZ_SPILL_BUDGET", "100")
    with pytest.raises(ValueError, match=r"would write .* over FSVIZ_SPILL_BUDGET=100 B"):
        df.open_zarr(store)
    monkeypatch.delenv("FSVIZ_SPILL_BUDGET")
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda _: usage(10_000, 9_900, 100))
    with pytest.raises(ValueError, match=r"its disk has 100 B free"):
        df.open_zarr(store)
    assert list(spill.iterdir()) == []
    monkeypatch.undo()
    monkeypatch.setenv("FSVIZ_SPILL_DIR", str(spill))
    monkeypatch.setenv("FSVIZ_MEMORY_BUDGET", "1K")
    ds = df.open_zarr(store)  # room enough: written with write(), read back memory-mapped
    assert isinstance(ds.X, np.memmap) and ds.X.flags.f_contiguous
    np.testing.assert_array_equal(np.asarray(ds.X), X)


def test_a_spill_that_fails_midway_leaves_no_part_file(tmp_path, monkeypatch):
    import errno

    from fsviz.data.chunked import ZarrSource
    from fsviz_app.appkit import data_folder as df

    store, _ = _spillable(tmp_path)
    spill = tmp_path / "spill"
    monkeypatch.setenv("FSVIZ_SPILL_DIR", str(spill))
    monkeypatch.setenv("FSVIZ_MEMORY_BUDGET", "1K")

    def full_disk(self, step):
        yield 0, 1, np.zeros((6, 1))
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(ZarrSource, "iter_column_blocks", full_disk)
    with pytest.raises(ValueError, match=r"could not write the spill of 'm.zarr' .*No space left on device"):
        df.open_zarr(store)
    assert list(spill.iterdir()) == []


def test_a_truncated_npy_or_spill_is_refused_before_it_is_mapped(tmp_path, monkeypatch):
    """A map past a file's end is a SIGBUS on first touch: the declared size is checked first."""
    from fsviz_app.appkit import data_folder as df

    store, _ = _spillable(tmp_path)
    np.save(store.parent / "cut.npy", np.zeros((400, 300)))
    os.truncate(store.parent / "cut.npy", 4096)
    with pytest.raises(ValueError, match=r"declares a 400 x 300 float64 array .* it is truncated"):
        load_dataset(store.parent / "cut.npy", memory_budget=1)  # over the budget: it would be mapped
    spill = tmp_path / "spill"
    monkeypatch.setenv("FSVIZ_SPILL_DIR", str(spill))
    monkeypatch.setenv("FSVIZ_MEMORY_BUDGET", "1K")
    df.open_zarr(store)  # written once
    (written,) = [f for f in spill.iterdir() if not f.name.endswith(".y.npy")]
    os.truncate(written, written.stat().st_size - 80)  # cut afterwards (a quota, another process)
    with pytest.raises(ValueError, match=r"declares a 6 x 10 float64 array .* it is truncated"):
        df.open_zarr(store)


@pytest.mark.parametrize("source", ["NpySource", "ParquetSource"])
def test_the_chunked_sources_refuse_a_fifo_by_its_type(tmp_path, source):
    from fsviz.data import chunked

    fifo = tmp_path / ("x.npy" if source == "NpySource" else "x.parquet")
    os.mkfifo(fifo)
    try:
        alive, box = _within(2.0, getattr(chunked, source), fifo)
        assert not alive
        assert isinstance(box.get("error"), ValueError) and "named pipe (FIFO)" in str(box["error"])
    finally:
        _unblock(fifo)


def test_a_large_folder_file_is_read_from_disk_when_needed_not_held(folder, monkeypatch):
    from fsviz_app.appkit import data_folder
    from fsviz_app.appkit.memory import DiskBytes, nbytes_of, upload_bytes, upload_head
    from fsviz_app.appkit.state import upload_store

    data, _, _, _ = folder
    monkeypatch.setattr(data_folder, "HELD_BYTES", 0)  # every file counts as large
    at = _app(monkeypatch, data)
    at.text_input(key="folder_path").set_value("sub/table.csv").run()
    assert not at.exception and not at.error, [e.value for e in at.exception or at.error]
    assert any("Active: **table**" in c.value for c in at.sidebar.caption)
    record = upload_store().get(at.session_state["folder_token"])
    assert isinstance(record.data, DiskBytes) and nbytes_of(record) < 1000
    table = data / "sub" / "table.csv"
    assert upload_bytes(record) == table.read_bytes()
    assert upload_head(record, 5) == table.read_bytes()[:5]
    table.write_text("a,b,class\n1,2,x\n3,4,y\n")  # replaced on disk: another size and time
    with pytest.raises(ValueError, match="changed on disk since it was opened"):
        upload_bytes(record)
    with pytest.raises(ValueError, match="changed on disk since it was opened"):
        upload_head(record, 5)
    table.unlink()
    with pytest.raises(ValueError, match="no longer in the folder"):
        upload_bytes(record)


def test_a_large_folder_parquet_file_is_parsed_in_place_with_the_digest_of_its_bytes(folder, monkeypatch):
    """A server-folder Parquet file is hashed as it is read (not held whole) and parsed from its
    path (pyarrow reads the columns; the bytes are never read into memory for it); the dataset
    keeps its version check."""
    import hashlib

    import pandas as pd

    from fsviz_app.appkit import data_folder, memory
    from fsviz_app.appkit.state import upload_store

    data, _, X, y = folder
    frame = pd.DataFrame(X, columns=[f"g{j}" for j in range(X.shape[1])]).assign(label=y)
    frame.to_parquet(data / "wide.parquet", index=False)
    monkeypatch.setattr(data_folder, "HELD_BYTES", 0)
    read_whole = []
    real = memory.DiskBytes.read
    monkeypatch.setattr(memory.DiskBytes, "read", lambda self: read_whole.append(self.path) or real(self))
    at = _app(monkeypatch, data)
    at.text_input(key="folder_path").set_value("wide.parquet").run()
    assert not at.exception and not at.error, [e.value for e in at.exception or at.error]
    assert any("Active: **wide**" in c.value and "30 features" in c.value for c in at.sidebar.caption)
    record = upload_store().get(at.session_state["folder_token"])
    assert record.digest == hashlib.sha256((data / "wide.parquet").read_bytes()).hexdigest()
    assert read_whole == []  # hashed in chunks, parsed from its path
    (data / "wide.parquet").write_bytes(b"PAR1")  # replaced on disk: refused, not parsed again
    with pytest.raises(ValueError, match="changed on disk since it was opened"):
        memory.upload_path(record)
