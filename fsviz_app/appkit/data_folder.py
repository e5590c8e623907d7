"""The server's data folder (``FSVIZ_DATA_DIR``): files that open without passing through a browser.

The sidebar's third source beside Sample and Upload. The folder is listed with file sizes;
a file is opened by its path *inside* the folder: :func:`resolve_inside` resolves the path
(symlinks included) and refuses anything that ends up outside, whatever was typed (``..``,
an absolute path, a symlink pointing out, a NUL byte).

How a file opens:

- formats whose data can stay on disk open from their path through
  :func:`fsviz.data.load_dataset`: a ``.npy`` matrix (labels, when wanted, in a
  ``<stem>.y.npy`` beside it; read into memory when it fits the memory budget, else
  memory-mapped, nothing copied) and a directory written by
  :func:`fsviz.data.seeds.write_seed_shape` (memory-mapped);
- a zarr store (a 2-D array, or a group with ``X`` and ``y``) is read into memory within the
  budget; over it, a zarr store or a Parquet file is written once, column block by column
  block through :mod:`fsviz.data.chunked`, as a Fortran-ordered ``.npy`` under
  ``FSVIZ_SPILL_DIR`` and opened memory-mapped from there;
- every other format is read by the same loader and import settings as an upload (its
  bytes are read on the server instead of travelling from the browser), so the Data page's
  import settings and column roles apply.

Both are bounded by the memory budget (:mod:`fsviz.data.budget`): a memory-mapped file
costs the pages the analyses touch, which the operating system can drop; a file read into
memory is checked against the budget before it is read.
"""

from __future__ import annotations

import functools
import os
import stat
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from fsviz_app.appkit import jobs
from fsviz_app.appkit.intake import (
    IMPORT_DEFAULTS,
    Upload,
    _with_shape,
    apply_target_fixes,
    sample_fixes,
    session_options,
    upload_store,
)
from fsviz_app.appkit.memory import DiskBytes
from fsviz_app.appkit.state import activate, use

#: the environment variable naming the folder (unset: no server folder, the source is hidden)
DATA_DIR_ENV = "FSVIZ_DATA_DIR"
#: suffixes listed (lower case); a directory is listed when it is a zarr store or an fsviz
#: memory-mapped dataset
SUFFIXES = (
    ".csv",
    ".tsv",
    ".txt",
    ".parquet",
    ".pq",
    ".h5ad",
    ".mat",
    ".npz",
    ".npy",
    ".svm",
    ".svmlight",
    ".libsvm",
    ".xlsx",
    ".xls",
    ".ods",
    ".gct",
    ".cls",
    ".mtx",
    ".h5",
    ".loom",
)
#: formats opened from their path by load_dataset (memory-mapped when over the memory budget)
DIRECT = (".npy",)
#: a labels file beside a ``.npy`` matrix: ``expr.npy`` + ``expr.y.npy``
LABELS_SUFFIX = ".y.npy"
#: the listing stops after this many entries (a folder of millions of files stays quick)
MAX_ENTRIES = 2000
#: folders deeper than this below the data folder are not listed (still opened when typed)
MAX_DEPTH = 3


@dataclass(frozen=True)
class FolderFile:
    """One entry of the listing: its path inside the folder (``/``-separated), size, kind."""

    name: str
    size: int
    kind: str  # the suffix without its dot, or "seed" (an fsviz memory-mapped directory)
    mapped: bool  # stays on disk, memory-mapped (over the memory budget, or an fsviz mapped folder)

    @property
    def label(self) -> str:
        """``expr.npy — 91.6 MiB`` (``, memory-mapped`` when it stays on disk): what the sidebar lists."""
        from fsviz.data.budget import format_bytes

        how = ", memory-mapped" if self.mapped else ""
        return f"{self.name} — {format_bytes(self.size)}{how}"


def _npy_over_budget(path: Path) -> bool:
    """Whether a ``.npy`` matrix as float64 is over the memory budget (read from its header)."""
    import numpy as np

    from fsviz.data.filetypes import open_regular

    try:
        with open_regular(path, "data folder") as fh:  # a regular file, its header only
            version = np.lib.format.read_magic(fh)
            read = (
                np.lib.format.read_array_header_1_0
                if version == (1, 0)
                else np.lib.format.read_array_header_2_0
            )
            shape = read(fh)[0]
    except (OSError, ValueError):
        return False  # the loader says what is wrong with it
    return _over_budget(shape)


def data_dir() -> Path | None:
    """The data folder (``FSVIZ_DATA_DIR``, resolved), or None when unset.

    Raises ValueError when it is set to something that is not a readable folder: the
    operator's mistake is named rather than hidden.
    """
    raw = os.environ.get(DATA_DIR_ENV, "").strip()
    if not raw:
        return None
    root = Path(raw).expanduser()
    if not root.is_dir():
        raise ValueError(
            f"{DATA_DIR_ENV}={raw!r} is not a folder on this server. Fix: set it to an existing "
            "folder of data files (docs/app.md, 'Running fsviz for a team'), or unset it."
        )
    return root.resolve()


def _is_zarr(p: Path) -> bool:
    """A zarr store: a ``.zarr`` folder, or one holding ``.zarray``/``.zgroup``/``zarr.json``."""
    return p.suffix.lower() == ".zarr" or any((p / f).is_file() for f in (".zarray", ".zgroup", "zarr.json"))


def _zarr_matrix(p: Path):
    """``(X, y)`` of a zarr store: a 2-D array, or a group holding ``X`` (and ``y``)."""
    import zarr

    try:
        node = zarr.open(str(p), mode="r")
    except Exception as e:  # zarr raises several error types for a bad store
        raise ValueError(f"data folder: {p.name!r} cannot be opened as zarr ({e}).") from None
    if hasattr(node, "shape"):
        X, y = node, None
    elif "X" in node:
        X, y = node["X"], (node["y"] if "y" in node else None)
        if y is not None:  # its declared shape first: a lying 'y' is never read whole
            if len(X.shape) != 2 or tuple(getattr(y, "shape", ())) != (X.shape[0],):
                raise ValueError(
                    f"data folder: the zarr group {p.name!r} holds 'y' of shape {getattr(y, 'shape', '?')}; "
                    f"expected one label per sample of 'X' {tuple(X.shape)}."
                )
            y = y[:]
    else:
        raise ValueError(
            f"data folder: the zarr group {p.name!r} holds no 'X' array; write the matrix as 'X' "
            "(samples in rows) and the labels, if any, as 'y'."
        )
    if len(X.shape) != 2:
        raise ValueError(f"data folder: the zarr array in {p.name!r} has shape {X.shape}; expected 2-D.")
    return X, y


def _check_zarr_chunks(p: Path, X) -> None:
    """Refuse a zarr array that declares more chunks than it holds.

    A missing chunk reads as the fill value, so a store of a few KB can declare 20,000 x 20,000
    float64 (3.2 GB of fill) and make a spill write all of it: a store is read only when every
    chunk its shape declares is there (a chunk count, read from the store's listing).
    """
    try:
        declared, held = int(X.nchunks), int(X.nchunks_initialized)
    except Exception as e:  # noqa: BLE001 - zarr raises several error types for a bad store
        raise ValueError(f"data folder: the zarr store {p.name!r} cannot be listed ({e}).") from None
    if held < declared:
        raise ValueError(
            f"data folder: the zarr store {p.name!r} declares a {X.shape[0]:,} x {X.shape[1]:,} array in "
            f"{declared:,} chunks but holds {held:,} of them ({_dir_size(p):,} bytes on disk); the missing "
            "chunks would read as the fill value. Fix: write every chunk (zarr's write_empty_chunks=True), "
            "or save the matrix as .npy."
        )


def _zarr_shape(p: Path):
    try:
        return tuple(_zarr_matrix(p)[0].shape)
    except (ValueError, ImportError):
        return None


def _over_budget(shape) -> bool:
    from fsviz.data.budget import dense_bytes, resolve_budget

    budget = resolve_budget()
    return len(shape) == 2 and bool(budget) and dense_bytes(*shape) > budget


def _is_seed_dir(p: Path) -> bool:
    return (p / "meta.json").is_file() and ((p / "X.npy").is_file() or (p / "X.data.npy").is_file())


@dataclass(frozen=True)
class Skipped:
    """An entry of the folder that is not opened, and why (a pipe, a device, a link out, ...)."""

    name: str
    reason: str


def _store_files(p: Path) -> tuple[int, str | None]:
    """A folder's total size of regular files, and what in it is not one (None: nothing).

    Walked with ``lstat`` (``os.scandir`` without following links): a FIFO or a device inside
    a zarr store or a memory-mapped folder would block or never end the reader that opens it.
    """
    from fsviz.data.filetypes import file_kind

    total, stack = 0, [p]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError as e:
            return total, f"cannot be listed ({e.strerror})"
        for e in entries:
            mode = e.stat(follow_symlinks=False).st_mode
            if stat.S_ISDIR(mode):
                stack.append(Path(e.path))
            elif stat.S_ISREG(mode):
                total += e.stat(follow_symlinks=False).st_size
            else:
                return total, f"holds {file_kind(mode)} ({Path(e.path).relative_to(p).as_posix()!r})"
    return total, None


def _dir_size(p: Path) -> int:
    return _store_files(p)[0]


def _is_tenx(p: Path) -> bool:
    from fsviz.data.formats.tenx import tenx_folder_files

    return tenx_folder_files(p) is not None


def _folder_as_tar(path: Path) -> bytes:
    """A 10x matrix folder's three files as one (uncompressed) tar in memory: it then opens as
    an upload of the ``.tar`` 10x serves would (the loader recognises the layout). Each file is
    read as a regular file (:func:`fsviz.data.filetypes.read_regular`), never a pipe."""
    import io
    import tarfile

    from fsviz.data.filetypes import read_regular
    from fsviz.data.formats.tenx import tenx_folder_files

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for file in tenx_folder_files(path).values():
            data = read_regular(file, "data folder")
            info = tarfile.TarInfo(f"{path.name}/{Path(file).name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _listed_kind(low: str) -> str | None:
    """The kind a file name is listed as (``csv``, ``txt.gz``, ``zip``), or None: not listed.
    A compressed or archived file is listed by its wrapper and the name inside it (its content
    decides what it is when opened)."""
    from fsviz.data.formats.archives import COMPRESSED_SUFFIXES, strip_compression_suffix

    suffix = Path(low).suffix
    if suffix in SUFFIXES:
        return suffix[1:]
    wrapper = next((w for w in COMPRESSED_SUFFIXES if low.endswith(w)), None)
    if wrapper is None:
        return None
    inner = Path(strip_compression_suffix(low)).suffix
    return f"{inner[1:]}{wrapper}" if inner in SUFFIXES else wrapper[1:]


def list_files(root: Path) -> list[FolderFile]:
    """The data files under ``root`` (sorted by path; hidden entries and ``<stem>.y.npy``
    label files left out; symlinks only when they point inside ``root``)."""
    return scan_folder(root)[0]


def scan_folder(root: Path, shapes: bool = True) -> tuple[list[FolderFile], list[Skipped]]:
    """The data files under ``root`` (as :func:`list_files`) and the entries skipped, with why.

    Every entry's type comes from ``stat`` (never its name) before anything reads it: only
    regular files (and folders that are zarr stores or fsviz memory-mapped datasets) are
    listed; a named pipe, a device, a socket, a broken link or a link out of the folder is
    skipped with its reason, and so is a file in no format fsviz reads, a folder too deep or
    linked, and what the entry limit cut. Compressed and archived files (``.gz``, ``.bz2``,
    ``.xz``, ``.zst``, ``.zip``, ``.tar``, ``.tgz``) are listed and opened by their content; a
    10x Cell Ranger matrix folder is one entry (kind ``10x``). Nothing is opened but regular
    files' headers, so the listing never blocks. ``shapes=False``: no Parquet or ``.npy`` shape is
    read to tell a file mapped over the budget (a 100,000-column footer takes about a second).
    """
    from fsviz.data.filetypes import file_kind

    root = Path(root).resolve()
    out: list[FolderFile] = []
    skipped: list[Skipped] = []
    stack: list[tuple[Path, int]] = [(root, 0)]
    while stack and len(out) < MAX_ENTRIES:
        folder, depth = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for e in entries:
            if e.name.startswith(".") or len(out) >= MAX_ENTRIES:
                continue
            p = Path(e.path)
            rel = p.relative_to(root).as_posix()
            try:
                real = p.resolve(strict=True)
                mode = os.stat(real).st_mode
            except (OSError, RuntimeError):  # a dangling or looping link
                if len(skipped) < MAX_ENTRIES:
                    skipped.append(Skipped(rel, "a broken symbolic link"))
                continue
            if not real.is_relative_to(root):
                if len(skipped) < MAX_ENTRIES:
                    skipped.append(Skipped(rel, "a link pointing outside the data folder"))
                continue
            if stat.S_ISDIR(mode):
                if _is_seed_dir(real) or _is_zarr(real):
                    size, bad = _store_files(real)
                    if bad is not None:
                        skipped.append(Skipped(rel, f"a folder that {bad}"))
                    elif _is_seed_dir(real):
                        out.append(FolderFile(rel, size, "seed", True))
                    else:
                        shape = _zarr_shape(real)
                        over = shape is not None and _over_budget(shape)
                        out.append(FolderFile(rel, size, "zarr", over))
                elif _is_tenx(real):  # a Cell Ranger matrix folder: opened as one dataset
                    out.append(FolderFile(rel, _dir_size(real), "10x", False))
                elif depth + 1 < MAX_DEPTH and not e.is_symlink():
                    stack.append((p, depth + 1))
                elif e.is_symlink():
                    skipped.append(Skipped(rel + "/", "a linked folder (its files open when typed)"))
                else:
                    skipped.append(
                        Skipped(rel + "/", f"deeper than {MAX_DEPTH} levels (its files open when typed)")
                    )
                continue
            if not stat.S_ISREG(mode):
                if len(skipped) < MAX_ENTRIES:
                    skipped.append(Skipped(rel, f"{file_kind(mode)}, not a regular file"))
                continue
            low = e.name.lower()
            if low.endswith(LABELS_SUFFIX):
                continue
            suffix = Path(low).suffix
            kind = _listed_kind(low)
            if kind is not None:
                mapped = shapes and (
                    (suffix == ".npy" and _npy_over_budget(real))
                    or (suffix in (".parquet", ".pq") and _parquet_over_budget(real))
                )
                out.append(FolderFile(rel, real.stat().st_size, kind, mapped))
            elif len(skipped) < MAX_ENTRIES:
                skipped.append(Skipped(rel, f"not a format fsviz reads ({suffix or 'no suffix'})"))
    if len(out) >= MAX_ENTRIES:
        skipped.append(
            Skipped("…", f"the listing stops at {MAX_ENTRIES:,} entries; type the path of any other file")
        )
    return sorted(out, key=lambda f: f.name), sorted(skipped, key=lambda f: f.name)


def resolve_inside(root: Path, name: str) -> Path:
    """The file ``name`` (a path relative to ``root``) as an absolute path inside ``root``.

    Raises ValueError for anything else, whatever was typed: an empty name, a NUL byte, an
    absolute path or ``..`` that leaves the folder, a symlink (anywhere on the way) that
    points outside it, or a path that does not exist.
    """
    root = Path(root).resolve()
    text = str(name or "").strip()
    if not text:
        raise ValueError("data folder: no file named; pick one from the list.")
    if "\x00" in text:
        raise ValueError("data folder: a file name cannot hold a NUL byte.")
    candidate = root / text  # an absolute `text` replaces root: caught by the check below
    try:
        real = candidate.resolve(strict=True)
    except FileNotFoundError:
        raise ValueError(f"data folder: {text!r} does not exist in the data folder.") from None
    except (OSError, RuntimeError) as e:
        raise ValueError(f"data folder: {text!r} cannot be opened ({e}).") from None
    if not real.is_relative_to(root):
        raise ValueError(
            f"data folder: {text!r} is outside the data folder; only files inside it can be opened."
        )
    from fsviz.data.filetypes import check_regular

    check_regular(real, "data folder", allow_dir=True)  # by its type: a pipe or a device never opens
    if real.is_dir():
        if not (_is_seed_dir(real) or _is_zarr(real) or _is_tenx(real)):
            shown = "the data folder itself" if real == root else f"{text!r}"
            raise ValueError(
                f"data folder: {shown} is a folder, not a data file. Fix: choose a file inside it "
                "(a folder opens only when it is a 10x matrix folder, a zarr store or an fsviz "
                "memory-mapped dataset)."
            )
        bad = _store_files(real)[1]
        if bad is not None:
            raise ValueError(
                f"data folder: {text!r} {bad}, not only regular files; it is not opened. Fix: copy the "
                "data into regular files."
            )
    return real


def opens_directly(path: Path) -> bool:
    """Whether ``path`` opens from its path (a ``.npy`` matrix, an fsviz mapped directory)
    rather than through the upload's import settings."""
    path = Path(path)
    if path.suffix.lower() in (".parquet", ".pq"):
        return _parquet_over_budget(path)  # within the budget: read like an upload
    return path.suffix.lower() in DIRECT or (path.is_dir() and (_is_seed_dir(path) or _is_zarr(path)))


def labels_file(path: Path) -> Path | None:
    """The ``<stem>.y.npy`` labels beside a ``.npy`` matrix, when there is one."""
    path = Path(path)
    if path.suffix.lower() != ".npy":
        return None
    p = path.with_name(path.name[: -len(".npy")] + LABELS_SUFFIX)
    return p if p.is_file() else None


# ---------------------------------------------------------------------------- the sidebar
def sources() -> list[str]:
    """The sidebar's sources: Sample and Upload, and Server folder when ``FSVIZ_DATA_DIR`` is
    set (a setting that names no folder shows as an error; the other sources still work)."""
    try:
        has_folder = data_dir() is not None
    except ValueError as e:
        st.error(str(e))
        has_folder = False
    return ["Sample", "Upload", "Server folder"] if has_folder else ["Sample", "Upload"]


@st.cache_data(show_spinner=False, max_entries=4, ttl=10)
def _listing(root: str, shapes: bool = True) -> tuple[list[FolderFile], list[Skipped]]:
    """The folder's listing and its skipped entries, kept for 10 s (a file copied in shows up by itself)."""
    return scan_folder(Path(root), shapes)


@st.cache_resource(show_spinner=False, max_entries=4)
def _load_direct(path: str, mtime_ns: int, size: int):
    """The Dataset of a file opened from its path: one per path and version, process-wide."""
    from fsviz.data import load_dataset

    p = Path(path)
    if p.is_dir() and _is_zarr(p):
        return open_zarr(p)
    if p.suffix.lower() in (".parquet", ".pq"):
        return open_parquet_mapped(p)
    return load_dataset(path)


#: environment variable: where zarr stores and Parquet files over the memory budget are written
#: as memory-mapped ``.npy`` matrices (default: ``fsviz-spill`` in the system's temporary folder)
SPILL_ENV = "FSVIZ_SPILL_DIR"


def spill_dir() -> Path:
    import tempfile

    d = Path(os.environ.get(SPILL_ENV, "").strip() or Path(tempfile.gettempdir()) / "fsviz-spill")
    d.mkdir(parents=True, exist_ok=True)
    return d


#: environment variable: the most a spill may write (a size such as ``20G``; unset or ``none``:
#: only the free space limits it, less :func:`_disk_reserve`)
SPILL_BUDGET_ENV = "FSVIZ_SPILL_BUDGET"


def _disk_reserve(total: int) -> int:
    """Bytes a spill leaves free on its disk: 5 % of it, at most 1 GiB (the server's other files)."""
    return min(1 << 30, total // 20)


def check_spill(needed: int, what: str, where: Path) -> None:
    """Refuse a spill of ``needed`` bytes that would pass ``FSVIZ_SPILL_BUDGET`` or leave less than
    :func:`_disk_reserve` free on ``where``'s disk (checked before the first byte is written)."""
    import shutil

    from fsviz.data.budget import format_bytes, parse_size

    cap = parse_size(os.environ.get(SPILL_BUDGET_ENV, "").strip() or "none")
    if cap and needed > cap:
        raise ValueError(
            f"data folder: spilling {what} would write {format_bytes(needed)} to {SPILL_ENV}, over "
            f"{SPILL_BUDGET_ENV}={format_bytes(cap)}. Fix: use a smaller file, or raise {SPILL_BUDGET_ENV}."
        )
    usage = shutil.disk_usage(where)
    room = usage.free - _disk_reserve(usage.total)
    if needed > room:
        raise ValueError(
            f"data folder: spilling {what} would write {format_bytes(needed)} to {SPILL_ENV}, but its disk "
            f"has {format_bytes(max(usage.free, 0))} free (keeping "
            f"{format_bytes(_disk_reserve(usage.total))} spare). Fix: free space there, point {SPILL_ENV} "
            "at a larger disk, or use a smaller file."
        )


def _write_spill(source, part: Path) -> None:
    """``source``'s column blocks appended to a Fortran-ordered float64 ``.npy`` at ``part``.

    Written with ``write()``, never through a writable memory map: a full disk is then an
    ``OSError`` (ENOSPC), not a SIGBUS that ends the server for every session. A source whose
    blocks do not add up to its declared shape is an error.
    """
    import numpy as np

    n, m = source.shape
    step = max(1, (1 << 26) // (8 * max(n, 1)))
    with open(part, "wb") as fh:
        header = {"descr": np.dtype(np.float64).str, "fortran_order": True, "shape": (n, m)}
        np.lib.format.write_array_header_2_0(fh, header)
        done = 0
        for a, b, block in source.iter_column_blocks(step):
            block = np.asarray(block, dtype=np.float64)
            if a != done or block.shape != (n, b - a):
                raise ValueError(
                    f"the source gave a block of shape {block.shape} for columns {a}..{b}; it declared "
                    f"{n} x {m}."
                )
            fh.write(block.tobytes(order="F"))  # column after column: the Fortran layout
            done = b
        if done != m:
            raise ValueError(f"the source ended after {done} of its {m} declared columns.")


def _spill(source, y, names, path: Path, name: str):
    """``source`` (a :class:`fsviz.data.chunked.ChunkedSource`) written column block by column
    block into a Fortran-ordered float64 ``.npy`` (GDM's column source then reads a block
    contiguously) under :func:`spill_dir`, labels beside it; opened memory-mapped. The file
    is kept for the same version of the source (its path, size and time in the name).

    Before writing: the declared size against ``FSVIZ_SPILL_BUDGET`` and the disk's free
    space (:func:`check_spill`); on any failure the partial files are removed.
    """
    import hashlib

    import numpy as np

    from fsviz.data import Dataset, load_dataset
    from fsviz.data.budget import dense_bytes

    files = [path] if path.is_file() else [f for f in path.rglob("*") if f.is_file()]
    stamps = [(f.stat().st_mtime_ns, f.stat().st_size) for f in files]
    tag = f"{path.resolve()}:{max(stamps, default=(0, 0))[0]}:{sum(size for _, size in stamps)}"
    out = spill_dir() / f"{name}-{hashlib.sha256(tag.encode()).hexdigest()[:16]}.npy"
    labels = out.with_name(out.name[: -len(".npy")] + LABELS_SUFFIX)
    if not out.exists():
        n, m = source.shape
        check_spill(dense_bytes(n, m), f"{path.name!r} ({n:,} x {m:,} float64)", out.parent)
        part = out.with_name(out.name + ".part")
        try:
            _write_spill(source, part)
            if y is not None:  # text labels as a unicode array: a .npy without pickles
                y = np.asarray(y)
                np.save(labels, y.astype(str) if y.dtype == object else y)
            part.rename(out)
        except BaseException as e:
            part.unlink(missing_ok=True)
            labels.unlink(missing_ok=True)
            if isinstance(e, OSError):  # a full disk, a lost mount: the message, not a traceback
                raise ValueError(
                    f"data folder: could not write the spill of {path.name!r} to {SPILL_ENV} "
                    f"({e.strerror or e}). Fix: free space there or point it at a larger disk."
                ) from None
            if isinstance(e, ValueError) and not str(e).startswith("data folder"):
                raise ValueError(f"data folder: {path.name!r} could not be spilled: {e}") from None
            raise
    ds = load_dataset(out, memory_budget=1)  # stays memory-mapped
    if names is None:
        return ds.with_name(name)
    labels = ds.labels if ds.y is not None else None  # the class names, not their codes
    return Dataset(ds.X, y=labels, feature_names=list(names), name=name, meta=ds.meta | {"source": str(path)})


def open_zarr(path: Path):
    """A zarr store's Dataset: in memory when it fits the budget, else spilled and memory-mapped."""
    import numpy as np

    from fsviz.data import Dataset
    from fsviz.data.chunked import ZarrSource

    X, y = _zarr_matrix(path)
    _check_zarr_chunks(path, X)
    source = ZarrSource(X)
    name = path.name[: -len(".zarr")] if path.name.lower().endswith(".zarr") else path.name
    if _over_budget(source.shape):
        return _spill(source, y, None, path, name)
    full = np.empty(source.shape, dtype=np.float64)
    for a, b, block in source.iter_column_blocks(max(1, (1 << 26) // (8 * max(source.n_samples, 1)))):
        full[:, a:b] = block
    return Dataset(full, y=y, name=name, meta={"source": str(path), "format": "zarr"})


def open_parquet_mapped(path: Path):
    """A Parquet file over the memory budget, spilled and memory-mapped: its numeric columns are
    the features, the column the loader would take as the target (``inspect_table``) the labels."""
    import pyarrow.parquet as pq

    from fsviz.data import inspect_table
    from fsviz.data.chunked import ParquetSource

    target = inspect_table(path).target
    source = ParquetSource(path, label=target)
    y = pq.read_table(path, columns=[target]).column(0).to_numpy(zero_copy_only=False) if target else None
    return _spill(source, y, source.feature_names, path, path.stem)


def _parquet_over_budget(path: Path) -> bool:
    """Whether a Parquet file as float64 is over the memory budget, from its footer's shape."""
    try:
        st_ = os.stat(path)  # never opens: a FIFO does not block here
    except OSError:
        return False
    if not stat.S_ISREG(st_.st_mode):
        return False  # the loader says what it is
    shape = _parquet_shape(str(Path(path).resolve()), st_.st_mtime_ns, st_.st_size, st_.st_ino)
    return shape is not None and _over_budget(shape)


@functools.lru_cache(maxsize=256)
def _parquet_shape(path: str, mtime_ns: int, size: int, inode: int) -> tuple[int, int] | None:
    """``(rows, columns)`` of a Parquet file's footer, once per file version: the sidebar asks on
    every rerun, and the footer of 100,000 columns took 3.3 s to read each time."""
    from fsviz.data.filetypes import open_regular

    try:
        import pyarrow.parquet as pq

        with open_regular(Path(path), "data folder") as fh:  # a regular file: never a FIFO's blocking open
            md = pq.ParquetFile(fh).metadata
    except Exception:  # noqa: BLE001 - the loader says what is wrong with it
        return None
    return md.num_rows, md.num_columns


def open_folder_file(shape):
    """The sidebar's **Server folder** source: pick (or type) a file inside ``FSVIZ_DATA_DIR``.

    A ``.npy`` matrix or an fsviz mapped folder becomes the session's dataset here; any other
    file is handed back as an :class:`appkit.intake.Upload` made from its bytes (read on the
    server), for the same target picker, import settings and loading as an upload. Returns
    that Upload, or None.
    Raises ValueError (the sidebar shows it) for a path outside the folder or data over the
    memory budget.
    """
    root = data_dir()
    files, skipped = _listing(str(root))
    by_name = {f.name: f for f in files}
    if st.session_state.get("folder_file") not in (None, *by_name):  # e.g. from a URL: a typed path
        st.session_state["folder_path"] = st.session_state.pop("folder_file")
    st.selectbox(
        "Server file",
        list(by_name),
        index=None,
        format_func=lambda n: by_name[n].label if n in by_name else n,
        key="folder_file",
        placeholder=f"{len(files)} files in the data folder" if files else "the data folder is empty",
        help="Files in the server's data folder (FSVIZ_DATA_DIR): they open without an upload. "
        ".npy matrices (labels in <name>.y.npy) are read into memory, or memory-mapped when over the "
        "memory budget; other formats are read like an upload, with the same import settings on the "
        "Data page.",
    )
    if skipped:  # by their type, not their name: why a file the operator sees is not offered
        shown = "; ".join(f"{f.name} ({f.reason})" for f in skipped[:12])
        more = f"; and {len(skipped) - 12} more" if len(skipped) > 12 else ""
        st.caption(f"Skipped {len(skipped)}: {shown}{more}.")
    typed = st.text_input(
        "…or a path inside the folder", key="folder_path", help="Relative to the data folder."
    )
    chosen = (typed or "").strip() or st.session_state.get("folder_file")
    if not chosen:
        st.session_state.pop("folder_token", None)
        return None
    path = resolve_inside(root, chosen)
    stat = path.stat()
    if opens_directly(path):
        st.session_state.pop("folder_token", None)
        ds = _open_as_job(path, stat)
        if ds is None:  # cancelled: the session keeps the dataset it had
            return None
        fixes = sample_fixes(f"folder:{path.relative_to(root).as_posix()}")  # the Data page's target fixes
        ds = _with_shape(apply_target_fixes(ds, fixes), shape)
        activate(ds)
        return None
    return _as_upload(path, stat)


def _open_as_job(path: Path, stat):
    """Open a file from its path as a job of this session (progress, Cancel): a large matrix
    takes seconds to read. Returns the Dataset, or None when cancelled (the choice is cleared,
    so picking the file again opens it)."""

    def unpick() -> None:
        st.session_state["folder_file"] = None
        st.session_state["folder_path"] = ""

    key = ("folder", str(path), stat.st_mtime_ns, stat.st_size)
    job = jobs.submit(
        key, f"Opening {path.name}", lambda _: _load_direct(str(path), stat.st_mtime_ns, stat.st_size)
    )
    slot = st.session_state.get("_busy_slot")  # above the page, where loads show
    with slot.container() if slot is not None else st.container():
        job = jobs.wait(job, on_cancel=unpick)
    error = job.error
    jobs.collect(job)
    jobs.forget_cancel(key)
    if job.state == "failed":
        raise error
    return job.result if job.state == "done" else None


#: folder files from this size on are read from disk when needed (:class:`appkit.intake.DiskBytes`),
#: smaller ones kept in the upload store as bytes
HELD_BYTES = 8 << 20


def _as_upload(path: Path, stat):
    """The Upload of a folder file read on the server (the same file version keeps its token
    and import settings), after checking its size against the memory budget. Like an upload:
    the store holds the bytes read-only, each session its own import options."""
    import hashlib
    import secrets

    from fsviz.data.budget import check_memory, format_bytes

    tenx = path.is_dir() and _is_tenx(path)  # a Cell Ranger folder: its three files as one tar
    size = _dir_size(path) if tenx else stat.st_size
    check_memory(size, f"the file {path.name} ({format_bytes(size)})", who="data folder")
    version = f"{path}:{stat.st_mtime_ns}:{size}"
    token = st.session_state.get("folder_token")
    if (
        token is None
        or upload_store().get(token) is None
        or st.session_state.get("folder_version") != version
    ):
        from fsviz.data.budget import resolve_budget
        from fsviz.data.filetypes import digest_regular, read_regular

        name = f"{path.name}.tar" if tenx else path.name
        if not tenx and size >= HELD_BYTES:  # hashed as it is read; read again when needed, not held
            digest, got = digest_regular(path, "data folder", resolve_budget())
            data = DiskBytes(str(path), stat.st_mtime_ns, got)
        else:  # its type and size checked on open (a folder of another kind is refused there)
            data = _folder_as_tar(path) if tenx else read_regular(path, "data folder", resolve_budget())
            digest = hashlib.sha256(data).hexdigest()
        options = dict(IMPORT_DEFAULTS)
        record = Upload(secrets.token_urlsafe(16), name, digest, data, options)
        use("upload", record.token)  # before the store holds it (see appkit.state.release_unused)
        upload_store().put(record.token, record)
        session_options()[record.token] = dict(options)
        st.session_state["folder_token"] = record.token
        st.session_state["folder_version"] = version
    return folder_upload()


def folder_upload():
    """The Upload of the folder file this session opened, with this session's import options
    (None for a file opened from its path)."""
    import json

    token = st.session_state.get("folder_token")
    record = upload_store().get(token) if token else None
    if record is None:
        return None
    mine = session_options()
    if token not in mine:
        mine[token] = json.loads(json.dumps(record.options))
    use("upload", token)  # in use by this session: the store keeps it
    return Upload(record.token, record.filename, record.digest, record.data, mine[token])
