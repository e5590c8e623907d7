"""The reader registry: a format is one module and one registration.

A toy format defined here ("TOYMAT": a magic line, a size line, rows of numbers) is registered
the way docs/data.md says; it is then found by content whatever the file is called, read by
``load_dataset`` and ``inspect_table``, its declared size checked before its reader runs, and
its reader run in the sandbox child when asked.
"""

from __future__ import annotations

import io
import os
import warnings

import numpy as np
import pytest

from fsviz.data import inspect_table, load_dataset
from fsviz.data.budget import MemoryBudgetError
from fsviz.data.formats import Reader, get_reader, readers, register
from fsviz.data.formats.registry import format_names, unregister
from fsviz.data.formats.source import Source, readonly

MAGIC = b"TOYMAT\n"


def _detect(src: Source) -> bool:
    return src.head(len(MAGIC)) == MAGIC


def _size(src: Source) -> tuple:
    n, m = (int(v) for v in src.head(200).split(b"\n")[1].split())
    return n, m, None


def _read(src: Source, label) -> dict:
    lines = src.bytes().decode().splitlines()[2:]
    X = np.array([[float(v) for v in ln.split()] for ln in lines])
    return {
        "X": readonly(X),
        "y": None,
        "feature_names": [f"g{j}" for j in range(X.shape[1])],
        "sample_names": [f"s{i}" for i in range(X.shape[0])],
        "format": "toy",
        "label_column": None,
        "notes": [f"read as a toy matrix: {X.shape[0]} x {X.shape[1]} (process {os.getpid()})"],
    }


def _never(src: Source, label) -> dict:
    raise AssertionError("the declared size should have stopped this read")


TOY = Reader(
    "toy", _read, "toy matrix", suffixes=(".toy",), detect=_detect, declared_size=_size, sandbox=True
)


@pytest.fixture
def toy():
    register(TOY)
    yield TOY
    unregister("toy")


def toy_bytes(n: int = 3, m: int = 2, declared: tuple | None = None) -> bytes:
    rows = "\n".join(" ".join(str(i * m + j) for j in range(m)) for i in range(n))
    dn, dm = declared or (n, m)
    return MAGIC + f"{dn} {dm}\n".encode() + rows.encode() + b"\n"


def named(data: bytes, name: str) -> io.BytesIO:
    buf = io.BytesIO(data)
    buf.name = name
    return buf


def test_the_registry_lists_the_built_in_readers_in_detection_order():
    names = [r.name for r in readers()]
    assert names[:3] == ["csv", "tsv", "txt"] and {"parquet", "mat", "h5ad", "geo", "npz"} <= set(names)
    assert get_reader("series_matrix").name == "geo" and get_reader("pq").name == "parquet"
    assert get_reader("xlsx").isolates_itself and get_reader("geo").detect is not None
    with pytest.raises(ValueError, match=r"unknown fmt 'nope'; choose one of \['csv', 'tsv'"):
        load_dataset(named(b"a,b\n1,2\n", "t.csv"), fmt="nope")


def test_a_registered_reader_is_found_by_content_and_read_everywhere(toy):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = load_dataset(named(toy_bytes(), "whatever.csv"))  # the content says toy
        assert (
            ds.shape == (3, 2) and ds.meta["format"] == "toy" and list(ds.sample_names) == ["s0", "s1", "s2"]
        )
        assert load_dataset(named(toy_bytes(), "x.bin"), fmt="toy").fingerprint == ds.fingerprint
    assert "toy" in format_names()
    info = inspect_table(named(toy_bytes(), "x.toy"))
    assert info.fmt == "toy" and (info.n_rows, info.n_columns) == (3, 2)
    assert any(n.startswith("read as a toy matrix: 3 x 2") for n in info.notes)


def test_the_declared_size_is_checked_before_the_reader_runs(toy):
    register(Reader("toy", _never, detect=_detect, declared_size=_size), replace=True)
    with pytest.raises(MemoryBudgetError, match=r"a dense 100,000 x 100,000 matrix \(as the file declares\)"):
        load_dataset(named(toy_bytes(declared=(100_000, 100_000)), "big.toy"), memory_budget="1G")


def test_a_sandboxed_reader_runs_in_the_child_for_untrusted_input(toy, monkeypatch):
    # the child imports the reader by its module's name (pytest imports this file as a top-level
    # module from its folder): it resolves imports from the parent's working directory
    monkeypatch.chdir(os.path.dirname(os.path.abspath(__file__)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        here = load_dataset(named(toy_bytes(), "t.toy"))
        there = load_dataset(named(toy_bytes(), "t.toy"), sandbox=True)
    pid = lambda ds: int(next(n for n in ds.meta["notes"] if "toy" in n).rsplit(" ", 1)[1].rstrip(")"))  # noqa: E731
    assert pid(here) == os.getpid() and pid(there) != os.getpid()
    assert there.fingerprint == here.fingerprint


def test_registration_refuses_clashes_and_bad_names(toy):
    with pytest.raises(ValueError, match=r"\['toy'\] already name"):
        register(TOY)
    with pytest.raises(ValueError, match=r"\['pq'\] already name"):
        register(Reader("other", _read, aliases=("pq",)))
    with pytest.raises(ValueError, match="must be lower-case"):
        register(Reader("Bad Name", _read))
    with pytest.raises(ValueError, match="suffixes must be lower case"):
        register(Reader("other", _read, suffixes=("TOY",)))
