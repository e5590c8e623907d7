"""What every reader shares: the input as bytes or a path (:class:`Source`), format sniffing,
common constants and helpers. Public names: readers (inside fsviz or registered from outside,
:mod:`fsviz.data.formats.registry`) import them from here."""

from __future__ import annotations

import io
import os
import re
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from fsviz.data.budget import check_memory
from fsviz.data.filetypes import check_regular, open_regular, read_regular
from fsviz.data.plan import DEFAULT_NA, ImportPlan

if TYPE_CHECKING:
    from fsviz.data.dataset import Dataset

__all__ = [
    "FORMATS",
    "FSVIZ_TAG",
    "LABEL_CANDIDATES",
    "NA_LOWER",
    "SUFFIXES",
    "TABLE_FORMATS",
    "Source",
    "exact_floats",
    "feature_info_from_record",
    "feature_info_record",
    "meta_for",
    "named_target",
    "parse_error",
    "readonly",
    "resolve_format",
    "restore_feature_info",
    "sniff_text_format",
    "suffixes_of",
    "write_bytes",
]

#: the built-in formats :func:`load_dataset` reads (every registered one: ``registry.format_names()``)
FORMATS = ("csv", "tsv", "parquet", "mat", "svmlight", "npz", "xlsx", "xls", "ods", "h5ad", "geo")
#: formats read as a table of columns (separator/sheet/orientation/roles apply)
TABLE_FORMATS = ("csv", "tsv", "txt", "xlsx", "xls", "ods", "parquet")

SUFFIXES = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".txt": "txt",
    ".dat": "txt",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".mat": "mat",
    ".svm": "svmlight",
    ".libsvm": "svmlight",
    ".svmlight": "svmlight",
    ".svml": "svmlight",
    ".npz": "npz",
    ".xlsx": "xlsx",
    ".xlsm": "xlsx",
    ".xls": "xls",
    ".ods": "ods",
    ".h5ad": "h5ad",
}

#: label column names tried (in this order, exact then case-insensitive) when ``label="auto"``


LABEL_CANDIDATES = ("label", "class", "y", "target")


def named_target(names: list[str], allowed=None) -> int | None:
    """The column named like a target (``label``, ``class``, ``y``, ``target``; exact case first),
    or None. A name may carry leading underscores: :meth:`Dataset.label_column` writes
    ``_label`` when a feature is called ``label``. Of several such columns the last one wins
    when it is one of them (fsviz writes the label column last), else the first in the order
    above. ``allowed``: positions that may be the target (default all)."""
    allowed = range(len(names)) if allowed is None else allowed
    for exact in (True, False):
        hits = {}
        for j in allowed:
            name = str(names[j]) if exact else str(names[j]).lower()
            if name.lstrip("_") in LABEL_CANDIDATES:
                hits[int(j)] = LABEL_CANDIDATES.index(name.lstrip("_")) + (0.5 if name.startswith("_") else 0)
        if hits:
            last = max(allowed) if len(allowed) else None
            return last if last in hits and len(hits) > 1 else min(hits, key=lambda j: (hits[j], j))
    return None


_NA_TOKENS = list(DEFAULT_NA)
NA_LOWER = frozenset(t.lower() for t in _NA_TOKENS)


FSVIZ_TAG = "fsviz-dataset"


class Source:
    """A path or buffer with its display name; gives bytes or a path to parsers."""

    def __init__(self, obj: Any):
        self.obj = obj
        self._folder: dict[str, str] | None = None  # a 10x folder's files (name -> path)
        self.path: str | None = None
        self._data: bytes | None = None
        if isinstance(obj, (str, os.PathLike)):
            self.path = os.fspath(obj)
            # by its type, never its name: a FIFO, a device or a folder is refused before any open
            st = check_regular(self.path, "load_dataset", allow_dir=True)
            if stat.S_ISDIR(st.st_mode):
                from fsviz.data.formats.archives import folder_layout

                found = folder_layout(self.path)  # a 10x folder: read by unwrap(), within the budget
                self._folder_layout, self._folder = found if found is not None else (None, None)
                if self._folder is None:
                    name = os.path.basename(os.path.normpath(self.path))
                    raise ValueError(
                        f"load_dataset: {name!r} is a folder, not a data file. Fix: choose a file inside it "
                        "(a folder opens when it holds a 10x matrix: matrix.mtx, barcodes.tsv, features.tsv "
                        "or genes.tsv; a zarr store or an fsviz memory-mapped dataset opens in the app's "
                        "server folder)."
                    )
            self.filename = os.path.basename(os.path.normpath(self.path))
            if self._folder is not None:
                self.path, self._data = None, b""
        elif isinstance(obj, (bytes, bytearray, memoryview)):
            self._data = bytes(obj)
            self.filename = ""
        elif hasattr(obj, "getvalue") or hasattr(obj, "read"):
            self.filename = os.path.basename(str(getattr(obj, "name", "") or ""))
        else:
            raise ValueError(
                f"load_dataset: expected a path or a file-like object (BytesIO, open file, "
                f"uploaded file); got {type(obj).__name__}."
            )
        self.label = repr(self.filename) if self.filename else "<buffer>"
        self.budget = 0  # bytes the loaded data may take (0: no limit); set by load_dataset
        self.sandbox = False  # parse crash-prone formats in a child process; set by load_dataset
        self.allow_external = False  # HDF5 may point at other files (trusted local files only)
        self.use_plan(ImportPlan())  # every reading option at its default; load_dataset sets its plan
        self.notes: list[str] = []  # what was done that a person should know (meta["notes"])
        self.compression = "none"  # what unwrap() took off (archives.COMPRESSIONS)
        self.archive = ""  # the compressed file or archive unwrap() opened: the file a person has
        self.member: str | None = None  # the archive member read
        self.files: dict[str, bytes] | None = None  # a multi-file layout's members (unwrap())
        self.layout: str | None = None  # its name (archives.MULTI_FILE_LAYOUTS)

    def use_plan(self, plan) -> None:
        """Take the options of an :class:`~fsviz.data.plan.ImportPlan` (what the readers read)."""
        self.plan = plan
        self.missing, self.missing_indicators = plan.missing, plan.missing_indicators
        self.categorical, self.missing_target, self.target_kind = (
            plan.categorical,
            plan.missing_target,
            plan.target_kind,
        )
        self.sep, self.decimal, self.sheet, self.transpose = (
            plan.sep,
            plan.decimal,
            plan.sheet,
            plan.transpose,
        )
        ids = plan.id_columns
        self.id_columns = list(ids) if isinstance(ids, tuple) else ids
        self.ignore = list(plan.ignore) if plan.ignore is not None else None
        self.encoding, self.header, self.skip_rows = plan.encoding, plan.header, plan.skip_rows
        self.comment, self.na_values, self.duplicates = plan.comment, plan.na_values, plan.duplicates
        self.dates, self.matrix, self.var_names = plan.dates, plan.matrix, plan.var_names
        self.types = dict(plan.types or ())

    @property
    def na_lower(self) -> frozenset:
        """The missing-value markers, lower case (a cell compared stripped and lowered)."""
        return frozenset(str(t).strip().lower() for t in self.na_values)

    def check(self, needed: int, what: str) -> None:
        """Refuse data whose declared size exceeds the budget (before allocating it)."""
        check_memory(needed, what, self.budget, who=f"load_dataset: {self.label}")

    def bytes(self) -> bytes:
        if self._folder is not None:
            return b""  # a folder: its files are in self.files once unwrap() read them
        if self._data is None:
            if self.path is not None:
                self._data = read_regular(self.path, f"load_dataset: {self.label}")
            else:
                obj = self.obj
                if hasattr(obj, "getvalue"):
                    data = obj.getvalue()
                else:
                    if hasattr(obj, "seek"):
                        try:
                            obj.seek(0)
                        except (OSError, ValueError):
                            pass
                    data = obj.read()
                if isinstance(data, str):
                    data = data.encode("utf-8")
                self._data = bytes(data)
        return self._data

    def head(self, n: int = 1024) -> bytes:
        if self._data is None and self.path is not None:
            with open_regular(self.path, f"load_dataset: {self.label}") as fh:
                return fh.read(n)
        return self.bytes()[:n]

    def size(self) -> int:
        if self._folder is not None:
            return sum(os.path.getsize(p) for p in self._folder.values())
        if self._data is None and self.path is not None:
            return os.path.getsize(self.path)
        return len(self.bytes())

    def handle(self):
        """Something parsers accept: the path, or a fresh BytesIO of the content."""
        return self.path if self.path is not None else io.BytesIO(self.bytes())

    def detached(self) -> Source:
        """A copy holding the bytes (no file handle, no path): what a reader run in the sandbox
        child receives (pickled). Same name, plan, budget, unpacked files; ``sandbox`` off."""
        twin = Source(self.bytes())
        twin.filename, twin.label, twin.budget = self.filename, self.label, self.budget
        twin.allow_external = self.allow_external
        twin.use_plan(self.plan)
        twin.compression, twin.member, twin.files, twin.layout = (
            self.compression,
            self.member,
            self.files,
            self.layout,
        )
        return twin

    def unwrap(self) -> None:
        """Take off what wraps the data (gzip, bzip2, xz, zstd; a zip or tar archive), by content,
        bounded by the memory budget, in the sandbox child when ``self.sandbox``: afterwards the
        source is the file inside (its bytes and name), or a multi-file layout (``files``,
        ``layout``). The plan's ``compression`` and ``member`` choose; what was done is in
        ``compression`` and ``member`` (see :mod:`fsviz.data.formats.archives`)."""
        from fsviz.data.formats.archives import compression_of, unwrap, unwrap_isolated

        plan = self.plan
        if self._folder is not None:  # a 10x folder (its size was checked against the budget)
            self.files = {}
            for path in self._folder.values():  # each a regular file (a pipe would block the read)
                self.files[os.path.basename(path)] = read_regular(path, f"load_dataset: {self.label}")
            self.layout = self._folder_layout
            return
        if plan.compression == "none" and plan.member is None:
            return
        head = self.head(8192)
        wrapped = compression_of(self.bytes() if head.startswith(b"PK") else head)  # a zip: its members
        if wrapped is None and plan.compression == "auto" and plan.member is None:  # tell it from a workbook
            return
        who = f"load_dataset: {self.label}"
        source = self.path if self._data is None and self.path is not None else self.bytes()
        how = unwrap_isolated if self.sandbox else unwrap
        out = how(
            source,
            self.filename,
            compression=plan.compression,
            member=plan.member,
            limit=self.budget,
            who=who,
        )
        if out["compression"] == "none":
            return
        self.compression, self.member = out["compression"], out["member"]
        self.files, self.layout = out["files"], out["layout"]
        self.path = None
        self._data = out["data"] if out["data"] is not None else b""
        self.archive = self.filename
        if out["filename"]:
            self.filename = out["filename"]
        inside = f" member {self.member!r}" if self.member else ""
        self.notes.append(f"decompressed from {self.compression}{inside}")

    @property
    def stem(self) -> str:
        return Path(self.filename).stem if self.filename else ""


def sniff_text_format(head: bytes) -> str | None:
    if head.startswith((b"MATLAB", b"\x89HDF")):
        return "mat"
    if head.startswith(b"PAR1"):
        return "parquet"
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return "npz"
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        return None
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    if not lines:
        return None
    first = lines[0]
    if re.match(r"^\s*[-+0-9.eE]+(\s+(qid:\d+|\d+:[^\s]+))+\s*$", first):
        return "svmlight"
    if "\t" in first:
        return "tsv"
    if "," in first:
        return "csv"
    return "txt"


_BINARY_FORMATS = {
    "xlsx": "xlsx",
    "xls": "xls",
    "ods": "ods",
    "parquet": "parquet",
    "mat": "mat",
    "npz": "npz",
}
_KIND_FIX = {
    "gzip": "decompress it first (gunzip / 7-Zip) and load the file inside",
    "bzip2": "decompress it first and load the file inside",
    "xz": "decompress it first and load the file inside",
    "zip": "unzip it first and load the table inside",
    "pdf": "export the table from the program that made the PDF as CSV or .xlsx",
    "png": "this is an image, not a table; export the data as CSV",
    "jpeg": "this is an image, not a table; export the data as CSV",
    "binary": "export the data as CSV, .xlsx, Parquet, .npz or .mat",
}


def resolve_format(src: Source, fmt: str | None) -> str:
    """The format to read: ``fmt``, else the content when it says a binary format, else the suffix.

    A file named like one format whose bytes are another (an Excel workbook saved as
    ``.csv``) is read by its real format, with a note; bytes no reader understands
    (gzip, PDF, images, other binary data) give a ValueError saying what they are.
    """
    from fsviz.data.dialect import describe_kind, sniff_bytes
    from fsviz.data.formats.registry import detect_format, reader_for_suffix

    if fmt is not None:
        return _resolve_given_format(src, fmt)
    found = detect_format(src)  # a registered reader that recognises the content
    if found is not None:
        return found
    suffix = Path(src.filename).suffix.lower() if src.filename else ""
    named = SUFFIXES.get(suffix)
    if named is None and src.filename:
        by_suffix = reader_for_suffix(src.filename)
        named = by_suffix.name if by_suffix is not None else None
    head = src.head(8192)
    kind = sniff_bytes(head, src.bytes() if head.startswith(b"PK") else None)
    real = None
    if kind in _BINARY_FORMATS:
        real = _BINARY_FORMATS[kind]
    elif kind == "hdf5":  # MATLAB 7.3 files start with their own text header (kind "mat")
        real = "mat" if named == "mat" else "h5ad"
    if real is not None:
        if named is not None and named != real:
            shown = "text" if named == "txt" else f".{suffix.lstrip('.')}"
            src.notes.append(
                f"read as {describe_kind(kind if kind != 'hdf5' else real)} although named {shown}"
            )
        return real
    if kind != "text":
        what = describe_kind(kind)
        fix = _KIND_FIX.get(kind, _KIND_FIX["binary"])
        if kind == "binary" and named in ("parquet", "mat", "npz"):
            return named  # damaged or unusual: the format's own reader says what is wrong
        if named is None:
            raise ValueError(
                f"load_dataset: cannot tell the format of {src.label} (its bytes are {what}). Fix: pass "
                f"fmt= one of {list(_names())} if it is one of them; else {fix}."
            )
        shown = {"txt": "text", "svmlight": "LIBSVM/svmlight"}.get(named, named.upper())
        raise ValueError(
            f"load_dataset: could not read {src.label} as {shown}: its bytes are {what}. Fix: {fix}."
        )
    if named in ("xlsx", "xls", "ods"):  # a text table saved under a workbook's name
        src.notes.append(f"read as text (a delimited table) although named {suffix}")
        named = None
    if named is not None and named != "txt":
        return named
    sniffed = sniff_text_format(src.head(4096))
    if sniffed is None:
        known = ", ".join(sorted(SUFFIXES))
        raise ValueError(
            f"load_dataset: cannot tell the format of {src.label} (suffix {suffix or 'none'!r}, "
            f"content not recognised). Fix: pass fmt= one of {list(_names())} or use a file name "
            f"ending in one of {known}."
        )
    return sniffed


def _names() -> tuple[str, ...]:
    from fsviz.data.formats.registry import format_names

    return format_names()


def suffixes_of(fmt: str) -> tuple[str, ...]:
    """The file-name suffixes of a built-in format (:data:`SUFFIXES`), for its reader's registration."""
    return tuple(s for s, f in SUFFIXES.items() if f == fmt)


def _resolve_given_format(src: Source, fmt: str) -> str:
    from fsviz.data.formats.registry import get_reader

    f = str(fmt).lower().lstrip(".")
    aliases = {
        "libsvm": "svmlight",
        "svm": "svmlight",
        "pq": "parquet",
        "tab": "tsv",
        "matlab": "mat",
        "excel": "xlsx",
        "xlsm": "xlsx",
        "anndata": "h5ad",
        "series_matrix": "geo",
    }
    return get_reader(aliases.get(f, f)).name


def parse_error(src: Source, fmt: str, exc: BaseException, fix: str) -> ValueError:
    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return ValueError(f"load_dataset: could not read {src.label} as {fmt}: {msg[:300]}. Fix: {fix}")


def readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def exact_floats() -> dict:
    """pandas < 3.1 parses floats exactly only with float_precision='round_trip' (3.0.6 still rounds
    0.30000000000000004 to 0.3); 3.1 does by default and deprecates the argument."""
    import pandas as pd

    major, minor = (int(p) for p in pd.__version__.split(".")[:2])
    return {"float_precision": "round_trip"} if (major, minor) < (3, 1) else {}


def write_bytes(path_or_buffer, data: bytes) -> None:
    if hasattr(path_or_buffer, "write"):
        path_or_buffer.write(data)
    else:
        with open(path_or_buffer, "wb") as fh:
            fh.write(data)


def meta_for(dataset: Dataset) -> dict:
    """What an fsviz writer stores beside the data (as JSON) for its reader to give back: the name,
    image shape, class names, sample names and, when the dataset has feature annotations, its
    ``feature_info`` (:func:`feature_info_record`; the key is left out without them, so files of
    unannotated data are byte for byte as before)."""
    meta = {
        "name": dataset.name,
        "image_shape": list(dataset.image_shape) if dataset.image_shape else None,
        "class_names": None if dataset.class_names is None else [str(c) for c in dataset.class_names],
        # the rows' identifiers travel with the data in every format (CSV: its first column)
        "sample_names": None if dataset.sample_names is None else [str(v) for v in dataset.sample_names],
    }
    record = feature_info_record(dataset)
    if record is not None:
        meta["feature_info"] = record
    return meta


#: the column types a feature-info record restores (anything else comes back as object)
_INFO_DTYPES = frozenset({"object", "str", "string", "float64", "int64", "bool"})


def _plain(v):
    """A JSON value for one cell (numpy scalars as Python ones)."""
    return v.item() if isinstance(v, np.generic) else v


def feature_info_record(dataset: Dataset) -> dict | None:
    """``Dataset.feature_info`` as a JSON-ready dict, or None when the dataset has no feature
    annotations (``meta["feature_info"]`` unset): the features' names (its index), each column's
    name, dtype and values in order, and the frame's ``attrs`` (the key and display columns it
    was joined by). :func:`feature_info_from_record` reads it back equal."""
    if (dataset.meta or {}).get("feature_info") is None:
        return None
    info = dataset.feature_info
    return {
        "index": [str(v) for v in info.index],
        "columns": [
            {"name": str(c), "dtype": str(info[c].dtype), "values": [_plain(v) for v in info[c].tolist()]}
            for c in info.columns
        ],
        "attrs": {
            str(k): _plain(v) for k, v in info.attrs.items() if isinstance(_plain(v), (str, int, float))
        },
    }


def feature_info_from_record(record: Any, who: str):
    """The ``feature_info`` DataFrame a :func:`feature_info_record` describes (ValueError naming
    ``who`` when the record is damaged)."""
    import pandas as pd

    try:
        index = pd.Index([str(v) for v in record["index"]], dtype=object)
        data = {}
        for col in record["columns"]:
            values = list(col["values"])
            if len(values) != len(index) or not isinstance(col["name"], str) or col["name"] in data:
                raise ValueError(f"column {col['name']!r}: {len(values)} values for {len(index)} features")
            column = pd.Series(values, index=index, dtype=object)
            dtype = str(col.get("dtype"))
            data[col["name"]] = (
                column.astype(dtype) if dtype in _INFO_DTYPES and dtype != "object" else column
            )
        if "display_name" not in data:
            raise ValueError("no display_name column")
        frame = pd.DataFrame(data, index=index)
        frame.attrs.update(dict(record.get("attrs") or {}))
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise ValueError(
            f"{who}: the feature annotations in its fsviz metadata are damaged ({str(e)[:200]}). Fix: "
            "re-export the file from fsviz (Dataset.save), or load it with the annotation table "
            "(feature_annotations=)."
        ) from None
    return frame


def restore_feature_info(parts: dict, meta: dict, who: str) -> dict:
    """``parts`` with ``table_meta["feature_info"]`` from an fsviz writer's metadata (``meta``),
    when it holds any: the reader's half of :func:`meta_for`."""
    if meta.get("feature_info") is not None:
        info = feature_info_from_record(meta["feature_info"], who)
        parts["table_meta"] = {**(parts.get("table_meta") or {}), "feature_info": info}
    return parts
