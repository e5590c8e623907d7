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

import os
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from fsviz.app.appkit import jobs
from fsviz.app.appkit.intake import (
    IMPORT_DEFAULTS,
    Upload,
    _with_shape,
    apply_target_fixes,
    sample_fixes,
    session_options,
    upload_store,
)
from fsviz.app.appkit.state import activate, use

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

    try:
        shape = np.load(path, mmap_mode="r", allow_pickle=False).shape  # reads the header only
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
        X, y = node["X"], (node["y"][:] if "y" in node else None)
    else:
        raise ValueError(
            f"data folder: the zarr group {p.name!r} holds no 'X' array; write the matrix as 'X' "
            "(samples in rows) and the labels, if any, as 'y'."
        )
    if len(X.shape) != 2:
        raise ValueError(f"data folder: the zarr array in {p.name!r} has shape {X.shape}; expected 2-D.")
    return X, y


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


def _dir_size(p: Path) -> int:
    return sum(f.stat().st_size for f in p.rglob("*") if f.is_file() and not f.is_symlink())


def list_files(root: Path) -> list[FolderFile]:
    """The data files under ``root`` (sorted by path; hidden entries and ``<stem>.y.npy``
    label files left out; symlinks only when they point inside ``root``)."""
    root = Path(root).resolve()
    out: list[FolderFile] = []
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
            try:
                real = p.resolve(strict=True)
            except (OSError, RuntimeError):  # a dangling or looping link
                continue
            if not real.is_relative_to(root):
                continue
            rel = p.relative_to(root).as_posix()
            if real.is_dir():
                if _is_seed_dir(real):
                    out.append(FolderFile(rel, _dir_size(real), "seed", True))
                elif _is_zarr(real):
                    shape = _zarr_shape(real)
                    over = shape is not None and _over_budget(shape)
                    out.append(FolderFile(rel, _dir_size(real), "zarr", over))
                elif depth + 1 < MAX_DEPTH and not e.is_symlink():
                    stack.append((p, depth + 1))
                continue
            low = e.name.lower()
            if low.endswith(LABELS_SUFFIX):
                continue
            suffix = Path(low).suffix
            if suffix in SUFFIXES:
                mapped = (suffix == ".npy" and _npy_over_budget(real)) or (
                    suffix in (".parquet", ".pq") and _parquet_over_budget(real)
                )
                out.append(FolderFile(rel, real.stat().st_size, suffix[1:], mapped))
    return sorted(out, key=lambda f: f.name)


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
def _listing(root: str) -> list[FolderFile]:
    """The folder's listing, kept for 10 s (a file copied in shows up by itself)."""
    return list_files(Path(root))


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


def _spill(source, y, names, path: Path, name: str):
    """``source`` (a :class:`fsviz.data.chunked.ChunkedSource`) written column block by column
    block into a Fortran-ordered float64 ``.npy`` (GDM's column source then reads a block
    contiguously) under :func:`spill_dir`, labels beside it; opened memory-mapped. The file
    is kept for the same version of the source (its path, size and time in the name)."""
    import hashlib

    import numpy as np

    from fsviz.data import Dataset, load_dataset

    files = [path] if path.is_file() else [f for f in path.rglob("*") if f.is_file()]
    stamps = [(f.stat().st_mtime_ns, f.stat().st_size) for f in files]
    tag = f"{path.resolve()}:{max(stamps, default=(0, 0))[0]}:{sum(size for _, size in stamps)}"
    out = spill_dir() / f"{name}-{hashlib.sha256(tag.encode()).hexdigest()[:16]}.npy"
    if not out.exists():
        part = out.with_name(out.name + ".part")
        mm = np.lib.format.open_memmap(
            part, mode="w+", dtype=np.float64, shape=source.shape, fortran_order=True
        )
        step = max(1, (1 << 26) // (8 * max(source.n_samples, 1)))
        for a, b, block in source.iter_column_blocks(step):
            mm[:, a:b] = block
        mm.flush()
        del mm
        if y is not None:  # text labels as a unicode array: a .npy without pickles
            y = np.asarray(y)
            np.save(
                out.with_name(out.name[: -len(".npy")] + LABELS_SUFFIX),
                y.astype(str) if y.dtype == object else y,
            )
        part.rename(out)
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
    try:
        import pyarrow.parquet as pq

        md = pq.ParquetFile(path).metadata
    except Exception:  # noqa: BLE001 - the loader says what is wrong with it
        return False
    return _over_budget((md.num_rows, md.num_columns))


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
    files = _listing(str(root))
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


def _as_upload(path: Path, stat):
    """The Upload of a folder file read on the server (the same file version keeps its token
    and import settings), after checking its size against the memory budget. Like an upload:
    the store holds the bytes read-only, each session its own import options."""
    import hashlib
    import secrets

    from fsviz.data.budget import check_memory, format_bytes

    check_memory(stat.st_size, f"the file {path.name} ({format_bytes(stat.st_size)})", who="data folder")
    version = f"{path}:{stat.st_mtime_ns}:{stat.st_size}"
    token = st.session_state.get("folder_token")
    if (
        token is None
        or upload_store().get(token) is None
        or st.session_state.get("folder_version") != version
    ):
        data = path.read_bytes()
        options = dict(IMPORT_DEFAULTS)
        record = Upload(secrets.token_urlsafe(16), path.name, hashlib.sha256(data).hexdigest(), data, options)
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
