"""Read datasets from CSV/TSV, spreadsheets, AnnData, Parquet, MATLAB .mat, LIBSVM/svmlight and .npz.

:func:`load_dataset` takes a path or a buffer (``io.BytesIO``, an open binary file, a
Streamlit ``UploadedFile``: anything with ``read``/``getvalue`` and ideally a
``.name``), works out the format from the file name (or, failing that, from the
first bytes; a file whose bytes say another format than its name is read by its
real format, with a note in ``Dataset.meta["notes"]``), validates everything and
returns a :class:`~fsviz.data.Dataset`.
Every problem is a ``ValueError`` that names the file, the rule, what was found
and the fix; garbage bytes in any format give a ``ValueError`` too, never some
parser's internal exception.

:func:`save_dataset` (also ``Dataset.save``) writes CSV/TSV, Parquet, .npz and
svmlight files that :func:`load_dataset` reads back exactly: every value bit for
bit, every name, the order of rows and columns, labels and (except CSV/TSV and
svmlight) the image shape.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from fsviz.data.budget import (
    PER_FEATURE_BYTES,
    check_memory,
    dense_bytes,
    format_bytes,
    out_of_memory,
    resolve_budget,
    sparse_bytes,
)
from fsviz.data.dataset import Dataset, default_feature_names
from fsviz.data.validation import DataWarning, check_finite, names_preview, warn_constant

__all__ = [
    "FORMATS",
    "KNOWN_IMAGE_SHAPES",
    "LABEL_CANDIDATES",
    "column_major_permutation",
    "image_feature_names",
    "infer_image_shape",
    "load_dataset",
    "save_dataset",
]

#: formats :func:`load_dataset` reads
FORMATS = ("csv", "tsv", "parquet", "mat", "svmlight", "npz", "xlsx", "xls", "ods", "h5ad")
#: formats read as a table of columns (separator/sheet/orientation/roles apply)
TABLE_FORMATS = ("csv", "tsv", "txt", "xlsx", "xls", "ods", "parquet")

_SUFFIXES = {
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
_NA_TOKENS = ["", "NA", "NaN", "nan", "N/A", "n/a", "null", "NULL", "None", "-nan", "#N/A"]
_NA_LOWER = frozenset(t.lower() for t in _NA_TOKENS)
_MAT_X_KEYS = ("X", "fea", "data")
_MAT_Y_KEYS = ("Y", "y", "gnd", "label", "labels", "target")
_NPZ_Y_KEYS = ("y", "Y", "label", "labels", "target")

#: image shapes (height, width) of the scikit-feature image sets whose pixel count is not
#: a square, and of the square ones for good measure; keyed by lower-cased dataset name.
#: All are stored column-major (MATLAB order) in their .mat files.
KNOWN_IMAGE_SHAPES: dict[str, tuple[int, int]] = {
    "coil20": (32, 32),
    "orl": (32, 32),
    "yale": (32, 32),
    "orlraws10p": (112, 92),
    "pixraw10p": (100, 100),
    "warpar10p": (60, 40),
    "warppie10p": (55, 44),
}
#: square feature counts that are not images (e.g. arcene's 10,000 mass-spectrometry peaks)
KNOWN_NOT_IMAGES = frozenset({"arcene"})

_FSVIZ_TAG = "fsviz-dataset"
_MAT73_FIX = (
    "re-save it in MATLAB as version 7 (save(filename, 'X', 'Y', '-v7')) or convert it to "
    ".npz/.parquet (e.g. read it with h5py and np.savez)"
)


# ============================================================================ helpers
def infer_image_shape(n_features: int, X=None) -> tuple[int, int] | None:
    """``(s, s)`` when ``n_features == s*s`` (s >= 8) and the values look like pixels, else None.

    Pixel-like means: dense, non-negative, and either all <= 1 or integer-valued <= 255.
    (So 1024 -> 32x32 and 64 -> 8x8 for images, while a 10,000-peak spectrum with
    values up to 999 stays a plain feature vector.)
    """
    s = math.isqrt(int(n_features))
    if s < 8 or s * s != n_features:
        return None
    if X is not None:
        if sp.issparse(X):
            return None
        X = np.asarray(X)
        if X.size == 0:
            return None
        lo, hi = float(np.nanmin(X)), float(np.nanmax(X))
        if lo < 0:
            return None
        if hi > 1 and (hi > 255 or not np.all(X == np.round(X))):
            return None
    return (s, s)


def column_major_permutation(image_shape: tuple[int, int]) -> np.ndarray:
    """Column order that turns column-major (MATLAB) pixels into row-major ones.

    ``X[:, perm]`` makes ``X[i].reshape(image_shape)`` (C order) equal to the
    original ``X[i].reshape(image_shape, order="F")``; ``perm[j]`` is the original
    column of new column ``j``.
    """
    h, w = image_shape
    return np.arange(h * w).reshape((h, w), order="F").ravel()


def image_feature_names(image_shape: tuple[int, int]) -> np.ndarray:
    """``pixel_<row>_<col>`` for every pixel in C order (as scikit-learn's digits)."""
    h, w = image_shape
    return np.array([f"pixel_{r}_{c}" for r in range(h) for c in range(w)], dtype=object)


class _Source:
    """A path or buffer with its display name; gives bytes or a path to parsers."""

    def __init__(self, obj: Any):
        self.obj = obj
        self.path: str | None = None
        self._data: bytes | None = None
        if isinstance(obj, (str, os.PathLike)):
            self.path = os.fspath(obj)
            if not os.path.exists(self.path):
                raise ValueError(f"load_dataset: file {self.path!r} does not exist. Fix: check the path.")
            if os.path.isdir(self.path):
                raise ValueError(f"load_dataset: {self.path!r} is a directory, not a data file.")
            self.filename = os.path.basename(self.path)
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
        self.missing = "error"  # "error" | "mean" | "median"; set by load_dataset
        self.missing_indicators = False  # add <name>=missing columns; set by load_dataset
        self.categorical = "error"  # "error" | "onehot"; set by load_dataset
        # table options (see load_dataset): set by load_dataset
        self.sep, self.decimal, self.sheet, self.transpose = "auto", "auto", None, False
        self.id_columns, self.ignore, self.missing_target = "auto", None, "error"
        self.notes: list[str] = []  # what was done that a person should know (meta["notes"])

    def check(self, needed: int, what: str) -> None:
        """Refuse data whose declared size exceeds the budget (before allocating it)."""
        check_memory(needed, what, self.budget, who=f"load_dataset: {self.label}")

    def bytes(self) -> bytes:
        if self._data is None:
            if self.path is not None:
                with open(self.path, "rb") as fh:
                    self._data = fh.read()
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
            with open(self.path, "rb") as fh:
                return fh.read(n)
        return self.bytes()[:n]

    def size(self) -> int:
        if self._data is None and self.path is not None:
            return os.path.getsize(self.path)
        return len(self.bytes())

    def handle(self):
        """Something parsers accept: the path, or a fresh BytesIO of the content."""
        return self.path if self.path is not None else io.BytesIO(self.bytes())

    @property
    def stem(self) -> str:
        return Path(self.filename).stem if self.filename else ""


def _sniff(head: bytes) -> str | None:
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


def _resolve_format(src: _Source, fmt: str | None) -> str:
    """The format to read: ``fmt``, else the content when it says a binary format, else the suffix.

    A file named like one format whose bytes are another (an Excel workbook saved as
    ``.csv``) is read by its real format, with a note; bytes no reader understands
    (gzip, PDF, images, other binary data) give a ValueError saying what they are.
    """
    from fsviz.data.dialect import describe_kind, sniff_bytes

    if fmt is not None:
        return _resolve_given_format(src, fmt)
    suffix = Path(src.filename).suffix.lower() if src.filename else ""
    named = _SUFFIXES.get(suffix)
    head = src.head(8192)
    kind = sniff_bytes(head, src.bytes() if head.startswith(b"PK") else None)
    real = None
    if kind in _BINARY_FORMATS:
        real = _BINARY_FORMATS[kind]
    elif kind == "hdf5":
        real = "h5ad" if _is_h5ad(src) else "mat"
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
                f"fmt= one of {list(FORMATS)} if it is one of them; else {fix}."
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
    sniffed = _sniff(src.head(4096))
    if sniffed is None:
        known = ", ".join(sorted(_SUFFIXES))
        raise ValueError(
            f"load_dataset: cannot tell the format of {src.label} (suffix {suffix or 'none'!r}, "
            f"content not recognised). Fix: pass fmt= one of {list(FORMATS)} or use a file name "
            f"ending in one of {known}."
        )
    return sniffed


def _is_h5ad(src: _Source) -> bool:
    try:
        import h5py

        from fsviz.data.h5ad import is_h5ad

        with h5py.File(src.handle(), "r") as f:
            return is_h5ad(f)
    except Exception:  # not readable as HDF5: leave it to the MATLAB reader's message
        return False


def _resolve_given_format(src: _Source, fmt: str) -> str:
    if True:  # noqa: SIM108 (kept indented as before)
        f = str(fmt).lower().lstrip(".")
        aliases = {
            "libsvm": "svmlight",
            "svm": "svmlight",
            "pq": "parquet",
            "tab": "tsv",
            "txt": "txt",
            "matlab": "mat",
            "excel": "xlsx",
            "xlsm": "xlsx",
            "anndata": "h5ad",
        }
        f = aliases.get(f, f)
        if f not in FORMATS and f != "txt":
            raise ValueError(f"load_dataset: unknown fmt {fmt!r}; choose one of {list(FORMATS)}.")
        return f


def _parse_error(src: _Source, fmt: str, exc: BaseException, fix: str) -> ValueError:
    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return ValueError(f"load_dataset: could not read {src.label} as {fmt}: {msg[:300]}. Fix: {fix}")


# ============================================================================ entry point
def load_dataset(
    path_or_buffer,
    label: str | int | None = "auto",
    fmt: str | None = None,
    image_shape: tuple[int, int] | None | bool = None,
    name: str | None = None,
    *,
    image_order: str = "auto",
    memory_budget: int | str | None = None,
    sandbox: bool = False,
    missing: str = "error",
    missing_indicators: bool = False,
    categorical: str = "error",
    sep: str = "auto",
    decimal: str = "auto",
    sheet: str | int | None = None,
    transpose: bool | str = False,
    id_columns: str | list[str] | None = "auto",
    ignore: list[str] | None = None,
    missing_target: str = "error",
    target_kind: str = "auto",
) -> Dataset:
    """Load a dataset from a file or buffer, validated, as a :class:`Dataset`.

    Parameters
    ----------
    path_or_buffer : str, Path, bytes or binary file-like
        A path, or a buffer (``io.BytesIO``, an open file, a Streamlit
        ``UploadedFile``). A buffer's ``.name`` gives the format and the default name.
        A directory written by :func:`fsviz.data.seeds.write_seed_shape` is opened
        memory-mapped: ``X`` is a read-only ``numpy.memmap`` (dense) or a CSC matrix
        whose arrays are memory maps; nothing is copied (``label=None``: no labels).
    label : str, int, None or "auto", default="auto"
        Where the labels are.

        - CSV/TSV/spreadsheets/Parquet: a column name, or a column position (int,
          negative counts from the end; positions count all columns, identifiers
          too). ``"auto"``: a column named ``label``, ``class``, ``y`` or ``target``
          (exact case first, then any case); else the first column that
          :func:`~fsviz.data.suggest_targets` ranks and that is named like a target
          (``diagnosis``, ``tumour_type``); else the last column if it is text (a
          column of class names); else the first text column with 2 to 50 values;
          complete columns before columns with gaps (see
          :func:`~fsviz.data.infer_column_roles`); else no labels. Files written by
          fsviz (Parquet) name their label column themselves. With
          ``transpose=True`` the label names a *row* of the file (e.g. a ``class`` row).
        - .h5ad: an ``obs`` column; ``"auto"`` picks one as for tables, or none.
        - .mat: the variable name; ``"auto"`` tries ``Y``, ``y``, ``gnd``, ``label``,
          ``labels``, ``target``.
        - .npz: the array name; ``"auto"`` tries ``y``, ``Y``, ``label``, ``labels``, ``target``.
        - svmlight: the first field of every line; ``None`` ignores it.

        ``None`` loads no labels (unsupervised).
    fmt : {"csv", "tsv", "parquet", "mat", "svmlight", "npz", "xlsx", "xls", "ods", "h5ad"}, optional
        When None: from the content when it is binary (a workbook, HDF5, Parquet,
        MATLAB, .npz: read as what it is whatever the file is called, with a note in
        ``meta["notes"]``), else from the file name, else from the text.
    image_shape : tuple (height, width), optional
        For pixel data. When None it is taken from the file (fsviz Parquet/.npz),
        from :data:`KNOWN_IMAGE_SHAPES` by dataset name, or inferred for square
        pixel counts with pixel-like values (see :func:`infer_image_shape`).
        ``False``: no image shape (and no column permutation) whatever the file.
    name : str, optional
        Dataset name; default the file name without suffix.
    image_order : {"auto", "C", "F"}, default="auto"
        Pixel order of images in the file. ``"F"`` (column-major, what MATLAB
        writes; the default for .mat) permutes the columns at load so that
        ``X[i].reshape(image_shape)`` in C order is an upright image; the original
        column of each feature is kept in ``meta["source_columns"]`` and pixel
        features are named ``pixel_<row>_<col>``. ``"C"`` (default elsewhere)
        keeps the columns as they are.
    memory_budget : int, str or None, default=None
        Bytes the loaded data may take (an int, or a size such as ``"2G"``); ``0`` or
        ``"none"``: no limit. None: ``FSVIZ_MEMORY_BUDGET`` or 1/8 of the available RAM
        (see :mod:`fsviz.data.budget`). Checked from the sizes the file declares (LIBSVM
        indices and header, .npy headers and sparse shapes in .npz, MATLAB variable
        shapes, Parquet metadata, CSV column and row counts) *before* allocating.
    sandbox : bool, default=False
        Parse formats whose reader can crash the process on a damaged file (MATLAB .mat:
        ``scipy.io.loadmat`` has been seen to die by SIGSEGV) in a child process, so a
        crash becomes a ValueError. For untrusted input (the app's uploads, the CLI);
        costs a process start (~0.5 s) per .mat file.
    missing : {"error", "mean", "median"}, default="error"
        What to do with missing feature values (NaN in .npz/.mat/svmlight, empty cells and
        NA tokens such as ``NA``, ``NaN``, ``null`` in CSV/TSV, nulls in Parquet).
        ``"error"``: a ``ValueError`` saying how many and where. ``"mean"``/``"median"``:
        each affected column is filled with the mean/median of its non-missing values
        (a column with no value at all is a ``ValueError`` naming it). Sparse input:
        only explicitly stored NaNs are missing (implicit zeros are values, so they count
        in the mean/median). Infinite values stay an error; missing labels always do.
        What was done (per-column counts and fill values) is kept in
        ``Dataset.meta["missing"]`` and summarised in a :class:`DataWarning`.
    missing_indicators : bool, default=False
        Add one 0/1 feature ``<name>=missing`` (after all other features) for every
        numeric column that had missing values (one-hot columns always get their
        ``<name>=missing`` column, see ``categorical``). An inferred image shape is dropped when
        indicator columns are added (they are not pixels).
    categorical : {"error", "onehot"}, default="error"
        Non-numeric feature columns of CSV/TSV/Parquet files (up to 10,000 columns).
        ``"error"``: a ``ValueError`` naming them. ``"onehot"``: each becomes one 0/1
        column per distinct value, named ``column=value`` (values sorted as strings),
        in the column's place; a missing category gets its own 0/1 column
        ``column=missing`` at the end of the block (never an all-zero row, which would
        read as "none of the values"), recorded in ``Dataset.meta["missing"]``.
        The blocks are listed in ``Dataset.categorical_groups``.
    sep : str, default="auto"
        Field separator of text tables: ``","``, ``";"``, ``"\\t"``, ``"|"``,
        ``"whitespace"``; ``"auto"`` sniffs it from the first lines (tab for .tsv).
    decimal : {"auto", ".", ","}, default="auto"
        Decimal mark of text tables; ``"auto"``: ``","`` when the separator is not a
        comma and numbers look like ``1,5`` (a European export), else ``"."``.
        Thousands separators (``1,234.5`` or ``1.234,5``) are recognised with it.
    sheet : str or int, optional
        Spreadsheets: the sheet name or 0-based position (default the first sheet);
        see :func:`~fsviz.data.list_sheets`.
    transpose : bool or "auto", default=False
        True: the file holds features as rows (an expression matrix: first column the
        feature names, header the sample names, maybe a label row); the header's
        sample names become ``Dataset.sample_names``. ``"auto"``: transpose when
        :func:`~fsviz.data.inspect_table` suggests it (rows >> columns and a first
        column of distinct names).
    id_columns : "auto", None or list of str, default="auto"
        Identifier columns: kept out of X, the first one (distinct per row) becomes
        ``Dataset.sample_names``. ``"auto"``: as :func:`~fsviz.data.infer_column_roles`
        finds them (``id``, ``sample``, ``rownames``, ``Unnamed: 0``, a leading text
        column distinct per row, ...); None: every column is a feature or the target.
    ignore : list of str, optional
        Columns to drop. All-empty columns (a trailing comma on every line gives one)
        are always dropped, noted in ``meta["ignored"]`` and ``meta["notes"]``.
    missing_target : {"error", "drop"}, default="error"
        Rows whose target value is missing: a ValueError that counts them, or drop
        them (noted in ``meta["dropped_rows"]`` and ``meta["notes"]``).
    target_kind : {"auto", "classes", "continuous"}, default="auto"
        ``"continuous"`` keeps a numeric target (integers too: a count, an age) as a
        continuous quantity; ``"classes"`` makes any target class labels; ``"auto"``:
        whole numbers and text are classes, fractional numbers continuous (see
        :func:`~fsviz.data.check_target` for targets that look otherwise).

    Returns
    -------
    Dataset

    Raises
    ------
    ValueError
        Unknown/undetectable format, empty or corrupt file, MATLAB v7.3 (HDF5) file,
        missing label column (the message lists the columns), non-numeric feature
        columns (named; unless ``categorical="onehot"``), NaN values (how many and
        where; unless ``missing="mean"`` or ``"median"``), a feature column with no
        value at all (when imputing), inf values, missing labels, mismatched lengths,
        duplicate feature names, a bad image shape.
    MemoryBudgetError
        (a ``ValueError``) The data would exceed ``memory_budget``, or the process ran
        out of memory while reading them.

    Warns
    -----
    DataWarning
        When constant features are present (they are kept and listed in
        ``Dataset.constant_features``); when missing values were imputed or encoded
        (see ``Dataset.meta["missing"]``).

    Examples
    --------
    >>> import io
    >>> from fsviz.data import load_dataset
    >>> buf = io.BytesIO(b"a,b,class\\n1,2,x\\n3,4,y\\n")
    >>> buf.name = "tiny.csv"
    >>> ds = load_dataset(buf)
    >>> ds.X.tolist(), ds.y.tolist(), list(ds.class_names)
    ([[1.0, 2.0], [3.0, 4.0]], [0, 1], ['x', 'y'])
    """
    from fsviz.data.seeds import is_seed_dir

    if is_seed_dir(path_or_buffer):
        return _load_mapped_dir(path_or_buffer, label=label, name=name)
    src = _Source(path_or_buffer)
    src.budget = resolve_budget(memory_budget)
    src.sandbox = bool(sandbox)
    if missing not in ("error", "mean", "median"):
        raise ValueError(f"load_dataset: missing must be 'error', 'mean' or 'median'; got {missing!r}.")
    if categorical not in ("error", "onehot"):
        raise ValueError(f"load_dataset: categorical must be 'error' or 'onehot'; got {categorical!r}.")
    if not isinstance(missing_indicators, (bool, np.bool_)):
        raise ValueError(
            f"load_dataset: missing_indicators must be True or False; got {missing_indicators!r}."
        )
    src.missing = missing
    src.missing_indicators = bool(missing_indicators)
    src.categorical = categorical
    if missing_target not in ("error", "drop"):
        raise ValueError(f"load_dataset: missing_target must be 'error' or 'drop'; got {missing_target!r}.")
    if target_kind not in ("auto", "classes", "continuous"):
        raise ValueError(
            f"load_dataset: target_kind must be 'auto', 'classes' or 'continuous'; got {target_kind!r}."
        )
    if transpose not in (True, False, "auto"):
        raise ValueError(f"load_dataset: transpose must be True, False or 'auto'; got {transpose!r}.")
    if sep is None:
        sep = "auto"
    if not isinstance(sep, str) or (sep not in ("auto", "whitespace", r"\s+") and len(sep) != 1):
        raise ValueError(
            f"load_dataset: sep must be 'auto', 'whitespace' or one character such as ',' ';' '\\t' '|'; "
            f"got {sep!r}."
        )
    if decimal not in ("auto", ".", ",", None):
        raise ValueError(f"load_dataset: decimal must be 'auto', '.' or ','; got {decimal!r}.")
    src.sep, src.decimal, src.sheet, src.transpose = sep, decimal or "auto", sheet, transpose
    src.id_columns, src.ignore, src.missing_target = id_columns, ignore, missing_target
    src.target_kind = target_kind
    size = src.size()
    if size == 0:
        raise ValueError(f"load_dataset: {src.label} is empty (0 bytes). Fix: choose a file that holds data.")
    src.check(size, f"the file itself ({format_bytes(size)})")
    f = _resolve_format(src, fmt)
    if image_order not in ("auto", "C", "F"):
        raise ValueError(f"load_dataset: image_order must be 'auto', 'C' or 'F'; got {image_order!r}.")
    readers = {
        "csv": _load_delimited,
        "tsv": _load_delimited,
        "txt": _load_delimited,
        "parquet": _load_parquet,
        "mat": _load_mat,
        "svmlight": _load_svmlight,
        "npz": _load_npz,
        "xlsx": _load_sheet,
        "xls": _load_sheet,
        "ods": _load_sheet,
        "h5ad": _load_h5ad,
    }
    try:
        if f in ("csv", "tsv", "txt", "xlsx", "xls", "ods"):
            parts = readers[f](src, f, label)
        else:
            parts = readers[f](src, label)
        X = parts["X"]
        if sp.issparse(X):
            src.check(sparse_bytes(*X.shape, X.nnz), f"a sparse {X.shape[0]} x {X.shape[1]} matrix")
        else:
            src.check(dense_bytes(*X.shape), f"a dense {X.shape[0]} x {X.shape[1]} matrix")
        return _assemble(src, parts, image_shape=image_shape, name=name, image_order=image_order)
    except ValueError:
        raise
    except MemoryError as e:
        raise out_of_memory(f"load_dataset: {src.label}", e) from None
    except Exception as e:  # a damaged file can make any parser fail in its own way
        raise _parse_error(
            src,
            {"txt": "text"}.get(f, f),
            e,
            "the file looks damaged or is not in this format; re-export it.",
        ) from e


def _load_mapped_dir(path, *, label, name) -> Dataset:
    """A :func:`fsviz.data.seeds.write_seed_shape` directory, opened memory-mapped (nothing copied)."""
    from fsviz.data.seeds import load_seed_shape

    X, y, truth, meta = load_seed_shape(path)
    return Dataset(
        X,
        y=None if label is None else y,
        name=name if name is not None else meta.get("name", Path(os.fspath(path)).name),
        truth=truth,
        meta={"source": os.fspath(path), "format": "fsviz-mmap", **meta},
    )


def _assemble(src: _Source, parts: dict, *, image_shape, name, image_order) -> Dataset:
    X, y = parts["X"], parts.get("y")
    names = parts.get("feature_names")
    who = f"load_dataset: {src.label}"
    n, m = X.shape
    if n == 0:
        raise ValueError(f"{who} has no data rows (only a header?). Fix: choose a file with samples.")
    if m == 0:
        raise ValueError(
            f"{who} has no feature columns"
            + (f" (only the label column {parts.get('label_column')!r})" if parts.get("label_column") else "")
            + ". Fix: check the separator and the label column."
        )
    if y is not None and len(y) != n:
        raise ValueError(
            f"{who}: {len(y)} labels but {n} samples; they must match. Fix: store one label "
            "per sample (row of X), e.g. Y as an n x 1 vector."
        )
    ds_name = name if name is not None else (parts.get("name") or src.stem or "dataset")
    if names is None:
        names = default_feature_names(m, memory_budget=src.budget)
    strategy = getattr(src, "missing", "error")
    indicator = bool(getattr(src, "missing_indicators", False))
    report, indicator_cols = None, []
    if strategy != "error":
        X, report = _impute(X, names, strategy, indicator, who)
        if report is not None:
            indicator_cols = report.pop("indicator_columns")
            report["indicator_names"] = [nm for nm, _ in indicator_cols]
    try:
        check_finite(X, names, who=who)
    except ValueError as e:
        has_nan = np.isnan(X.data if sp.issparse(X) else X).any()
        if not has_nan:
            raise
        raise ValueError(
            f'{e} Or load with missing="mean" (or "median") to fill each column from its '
            "non-missing values (missing_indicators=True also adds a 0/1 column per affected feature)."
        ) from None
    meta = {"source": src.filename or None, "format": parts["format"]}
    if parts.get("label_column") is not None:
        meta["label_column"] = parts["label_column"]
    meta.update(parts.get("table_meta") or {})
    y, class_names = _apply_target_kind(y, parts.get("class_names"), getattr(src, "target_kind", "auto"), who)
    if getattr(src, "target_kind", "auto") == "continuous" and y is not None:
        meta["target_kind"] = "continuous"
    notes = list(getattr(src, "notes", [])) + list(parts.get("notes") or [])
    cat_missing = parts.get("categorical_missing") or {}
    if report is not None or cat_missing:
        report = report or {
            "strategy": strategy,
            "indicators": indicator,
            "counts": {},
            "fill": {},
            "indicator_names": [],
        }
        report["categorical_counts"] = dict(cat_missing)
        meta["missing"] = report
    if parts.get("categorical"):
        meta["categorical"] = {str(c): list(v) for c, v in parts["categorical"].items()}
        if image_shape is None:
            image_shape = False  # one-hot blocks are not pixels

    # image shape: caller > file > known table > inference; image_shape=False: none at all
    order = image_order
    fmt_order = parts.get("image_order", "C")
    no_image = image_shape is False
    shape = None if no_image else image_shape
    if shape is None and not no_image:
        shape = parts.get("image_shape")
        if shape is not None:
            fmt_order = "C"  # fsviz files store upright (already permuted) pixels
    key = str(ds_name).lower()
    if shape is None and not no_image and key in KNOWN_IMAGE_SHAPES and np.prod(KNOWN_IMAGE_SHAPES[key]) == m:
        shape = KNOWN_IMAGE_SHAPES[key]
    if shape is None and not no_image and key not in KNOWN_NOT_IMAGES:
        shape = infer_image_shape(m, X)
    if shape is not None:
        try:
            ok = (
                not isinstance(shape, str)
                and len(tuple(shape)) == 2
                and all(not isinstance(v, (str, bool)) and int(v) == v and v > 0 for v in shape)
            )
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise ValueError(f"{who}: image_shape must be (height, width) with positive ints; got {shape!r}.")
        shape = (int(shape[0]), int(shape[1]))
        if shape[0] * shape[1] != m:
            raise ValueError(
                f"{who}: image_shape {shape[0]} x {shape[1]} = {shape[0] * shape[1]} pixels, but "
                f"the data have {m} features; give a shape whose product is the feature count."
            )
        if order == "auto":
            order = fmt_order
        if order == "F":
            perm = column_major_permutation(shape)
            X = X[:, perm]
            if not sp.issparse(X):
                X = _readonly(X)  # a fresh array the Dataset need not copy again
            meta["source_columns"] = perm
            meta["image_order"] = "F"
            if names is None or parts.get("names_are_default"):
                names = image_feature_names(shape)
            else:
                names = np.asarray(names, dtype=object)[perm]
    dropped_shape = None
    if indicator_cols:
        X, names = _append_indicators(X, names, indicator_cols)
        if shape is not None:
            if image_shape is not None and image_shape is not False:
                raise ValueError(
                    f"{who}: image_shape {shape!r} was given, but missing_indicators=True adds "
                    f"{len(indicator_cols)} indicator column(s) that are not pixels. "
                    "Fix: pass missing_indicators=False for image data."
                )
            dropped_shape, shape = shape, None
    ds = Dataset(
        X,
        y=y,
        feature_names=names,
        image_shape=shape,
        name=str(ds_name),
        class_names=class_names,
        meta={**meta, "notes": notes} if notes else meta,
        sample_names=parts.get("sample_names"),
    )
    if report is not None:
        _warn_missing(report, who, dropped_shape)
    warn_constant(ds.constant_features, ds.feature_names, who=who, stacklevel=4)
    return ds


def _apply_target_kind(y, class_names, kind: str, who: str):
    """``target_kind="classes"``/``"continuous"`` applied to the labels as read."""
    if y is None or kind == "auto":
        return y, class_names
    arr = np.asarray(y)
    if kind == "continuous":
        if class_names is not None or arr.dtype.kind not in "biuf":
            num = None
            try:
                num = np.asarray(arr, dtype=np.float64)
            except (TypeError, ValueError):
                pass
            if num is None or class_names is not None:
                raise ValueError(
                    f"{who}: the target holds text (e.g. {str(arr[0])!r}); it cannot be continuous. "
                    "Fix: treat it as classes (target kind 'classes')."
                )
            return num, None
        return arr.astype(np.float64), None
    # classes: whole numbers already are; text already is; fractional numbers become names
    if arr.dtype.kind == "f" and not np.all(arr == np.round(arr)):
        return np.array([repr(float(v)) for v in arr], dtype=object), None
    return y, class_names


def _impute(X, names, strategy: str, indicator: bool, who: str):
    """Fill the NaNs of every column with the mean/median of its non-missing values.

    Sparse X: only stored NaNs are missing; implicit zeros are values. Returns
    ``(X, report)``: the report holds per-column counts and fill values (plain types,
    JSON-ready) and the 0/1 indicator columns to append (popped by _assemble).
    """
    n = X.shape[0]
    counts, fills, all_missing, indicators = {}, {}, [], []
    if sp.issparse(X):
        fmt = X.format
        X = X.tocsc(copy=True)
        X.sum_duplicates()
        col_of = np.repeat(np.arange(X.shape[1]), np.diff(X.indptr))
        nan_cols = np.unique(col_of[np.isnan(X.data)])
        for j in nan_cols:
            a, b = X.indptr[j], X.indptr[j + 1]
            vals = X.data[a:b]
            miss = np.isnan(vals)
            ok = vals[np.isfinite(vals)]  # inf stays an error below, not a fill value
            n_ok = n - (b - a) + len(ok)
            if n_ok == 0:
                all_missing.append(str(names[j]))
                continue
            if strategy == "mean":
                fill = float(ok.sum() / n_ok)
            else:
                fill = float(np.median(np.concatenate([ok, np.zeros(n - (b - a))])))
            rows = X.indices[a:b][miss]
            vals[miss] = fill
            counts[str(names[j])] = int(miss.sum())
            fills[str(names[j])] = fill
            if indicator:
                indicators.append((f"{names[j]}=missing", rows.copy()))
        X = X.asformat(fmt)
    else:
        nan_cols = np.flatnonzero(np.isnan(X).any(axis=0))
        if len(nan_cols):
            X = np.array(X, dtype=np.float64)  # a writable copy
        for j in nan_cols:
            col = X[:, j]
            miss = np.isnan(col)
            ok = col[np.isfinite(col)]  # inf stays an error below, not a fill value
            if ok.size == 0:
                all_missing.append(str(names[j]))
                continue
            fill = float(ok.mean() if strategy == "mean" else np.median(ok))
            if indicator:
                indicators.append((f"{names[j]}=missing", np.flatnonzero(miss)))
            col[miss] = fill
            counts[str(names[j])] = int(miss.sum())
            fills[str(names[j])] = fill
        if len(nan_cols):
            X = _readonly(X)
    if all_missing:
        raise ValueError(
            f"{who}: missing={strategy!r} cannot fill feature column(s) {names_preview(all_missing)}: "
            f"they hold no value at all (every one of the {n} rows is missing). Fix: drop them "
            "before loading."
        )
    if not counts:
        return X, None
    report = {
        "strategy": strategy,
        "indicators": indicator,
        "counts": counts,
        "fill": fills,
        "indicator_columns": indicators,
    }
    return X, report


def _append_indicators(X, names, cols: list):
    """Append one 0/1 column per ``(name, missing rows)`` in ``cols``, after all features."""
    n = X.shape[0]
    new_names = [nm for nm, _ in cols]
    names = np.concatenate([np.asarray(names, dtype=object), np.array(new_names, dtype=object)])
    if sp.issparse(X):
        rows = np.concatenate([r for _, r in cols])
        cidx = np.repeat(np.arange(len(cols)), [len(r) for _, r in cols])
        ind = sp.csc_matrix((np.ones(len(rows)), (rows, cidx)), shape=(n, len(cols)))
        return sp.hstack([X, ind], format=X.format), names
    ind = np.zeros((n, len(cols)))
    for k, (_, r) in enumerate(cols):
        ind[r, k] = 1.0
    return np.hstack([X, ind]), names


def _warn_missing(report: dict, who: str, dropped_shape) -> None:
    """One DataWarning that says what was imputed and encoded (details in meta["missing"])."""
    said = []
    counts = report.get("counts") or {}
    if counts:
        cols = list(counts)
        how = "column mean" if report["strategy"] == "mean" else "column median"
        said.append(
            f"filled {sum(counts.values())} missing value(s) in {len(cols)} feature column(s) "
            f"{names_preview(cols)} with the {how}"
        )
    if report.get("indicator_names"):
        said.append(f"added indicator column(s) {names_preview(report['indicator_names'])}")
    cat = report.get("categorical_counts") or {}
    if cat:
        how = "its own '<column>=missing' column"
        said.append(
            f"encoded {sum(cat.values())} missing categor(y/ies) in {names_preview(list(cat))} as {how}"
        )
    if dropped_shape is not None:
        said.append(f"dropped the inferred image shape {dropped_shape[0]}x{dropped_shape[1]}")
    warnings.warn(
        f"{who}: {'; '.join(said)}. Per-column counts and fill values are in Dataset.meta['missing'].",
        DataWarning,
        stacklevel=4,
    )


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


# ============================================================================ CSV / TSV
def _header_fields(src: _Source, sep: str) -> list[str]:
    raw = src.head(1 << 20)
    nl = raw.find(b"\n")
    if nl < 0 and len(raw) == src.size():
        nl = len(raw)
    if nl < 0:  # header longer than 1 MiB: read it all
        raw = src.bytes()
        nl = raw.find(b"\n")
        nl = len(raw) if nl < 0 else nl
    line = raw[:nl].rstrip(b"\r")
    if line.startswith(b"\xef\xbb\xbf"):
        line = line[3:]
    text = line.decode("utf-8")
    if sep == r"\s+":
        return text.split()
    return next(csv.reader([text], delimiter=sep), [])


def _label_position(columns: list[str], label, src: _Source, frame_kind: str, non_numeric=None) -> int | None:
    who = f"load_dataset: {src.label}"
    if label is None:
        return None
    if isinstance(label, (int, np.integer)) and not isinstance(label, bool):
        k = int(label)
        if not -len(columns) <= k < len(columns):
            raise ValueError(
                f"{who}: label column position {k} is out of range for {len(columns)} columns "
                f"{names_preview(columns)}."
            )
        return k % len(columns)
    if label == "auto":
        for cand in LABEL_CANDIDATES:
            if cand in columns:
                return columns.index(cand)
        lower = [c.lower() for c in columns]
        for cand in LABEL_CANDIDATES:
            if cand in lower:
                return lower.index(cand)
        if non_numeric is not None and len(columns) > 1 and non_numeric(len(columns) - 1):
            return len(columns) - 1
        return None
    if not isinstance(label, str):
        raise ValueError(f"{who}: label must be a column name, a position, None or 'auto'; got {label!r}.")
    if label not in columns:
        close = [c for c in columns if c.lower() == label.lower()]
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ValueError(
            f"load_dataset: label column {label!r} not found{hint}; columns are "
            f"{names_preview(columns, 20)}. Fix: pass label= one of them, or label=None for "
            "unlabelled data."
        )
    return columns.index(label)


def _labels_from_strings(values: np.ndarray, who: str):
    """Label column read as strings -> numbers if all numeric, else strings (encoded later)."""
    import pandas as pd

    vals = np.asarray(values, dtype=object)
    empty = np.array(
        [v is None or (isinstance(v, float) and np.isnan(v)) or str(v).strip() == "" for v in vals]
    )
    if empty.any():
        where = np.flatnonzero(empty)
        raise ValueError(
            f"{who}: {len(where)} missing label(s) at rows {names_preview(where.tolist())}. "
            "Fix: drop those samples or fill in their labels."
        )
    num = pd.to_numeric(pd.Series(vals), errors="coerce")
    if not num.isna().any():
        return num.to_numpy()
    return vals


def _frame_to_parts(df, label, src: _Source, fmt: str, *, labels_as_text: bool) -> dict:
    import pandas as pd

    who = f"load_dataset: {src.label}"
    columns = [str(c) for c in df.columns]
    df.columns = columns

    def non_numeric(k: int) -> bool:
        col = df.iloc[:, k]
        if col.dtype.kind in "biuf":
            return False
        return bool(pd.to_numeric(col, errors="coerce").isna().any())

    pos = _label_position(columns, label, src, fmt, non_numeric)
    y = None
    label_column = None
    if pos is not None:
        label_column = columns[pos]
        col = df.iloc[:, pos]
        if col.dtype.kind in "biuf":
            y = col.to_numpy()
        elif labels_as_text:
            y = _labels_from_strings(col.to_numpy(dtype=object), who)
        else:
            y = col.to_numpy(dtype=object)
        df = df.drop(columns=[label_column])
    onehot = getattr(src, "categorical", "error") == "onehot"
    bad = []
    categorical = {}  # column -> its raw values, one-hot encoded below
    for c in df.columns:
        s = df[c]
        if s.dtype.kind in "biuf":
            continue
        if s.dtype.kind in "mMc":  # dates, durations, complex: numbers, but not features
            bad.append((c, str(s.iloc[0]), 0))
            continue
        s = s.astype(object) if isinstance(s.dtype, pd.CategoricalDtype) else s
        coerced = pd.to_numeric(s, errors="coerce")
        holes = coerced.isna() & ~s.isna()
        if holes.any():
            tokens = s[holes].astype(str).str.strip()
            na_like = tokens.str.lower().isin(sorted(_NA_LOWER))
            if (~na_like).any():
                if onehot:
                    categorical[c] = s
                    continue
                first = int(np.flatnonzero((~na_like).to_numpy())[0])
                bad.append((c, tokens[~na_like].iloc[0], int(np.flatnonzero(holes.to_numpy())[first])))
                continue
        df[c] = coerced.astype(np.float64)
    if bad:
        desc = "; ".join(f"{c!r} (e.g. {v!r} at row {r})" for c, v, r in bad[:10])
        more = f" and {len(bad) - 10} more" if len(bad) > 10 else ""
        dates = onehot or any(df[c].dtype.kind in "mMc" for c, _, _ in bad)
        fix = (
            "drop or encode those columns"
            if dates
            else "choose 'one-hot' under Text columns (categorical=\"onehot\": columns named column=value), "
            "or set their role to ignored (ignore=[...])"
        )
        raise ValueError(
            f"{who}: {len(bad)} non-numeric feature column(s): {desc}{more}. Features must be "
            f"numbers. Fix: {fix}, or choose one of them as the target (label=...)."
        )
    if not categorical:
        X = df.to_numpy(dtype=np.float64) if len(df.columns) else np.empty((len(df), 0))
        names = list(df.columns)
        parts_extra = {}
    else:
        blocks, names, groups, cat_missing = [], [], {}, {}
        for c in df.columns:
            if c in categorical:
                # a missing category is its own column: never silently all zeros
                block, block_names, n_miss = _onehot(categorical[c], c, True)
                blocks.append(block)
                groups[c] = block_names
                names.extend(block_names)
                if n_miss:
                    cat_missing[c] = n_miss
            else:
                blocks.append(df[c].to_numpy(dtype=np.float64)[:, None])
                names.append(c)
        X = np.hstack(blocks) if blocks else np.empty((len(df), 0))
        parts_extra = {"categorical": groups, "categorical_missing": cat_missing}
    return {
        "X": _readonly(np.ascontiguousarray(X)),
        "y": y,
        "feature_names": np.array(names, dtype=object),
        "label_column": label_column,
        "format": fmt,
        **parts_extra,
    }


def _onehot(s, column: str, indicator: bool) -> tuple[np.ndarray, list[str], int]:
    """One 0/1 column per distinct value of ``s`` (as str, sorted), named ``column=value``.

    Missing cells (null, NaN or an NA token) are all zeros, or 1 in a last
    ``column=missing`` column when ``indicator``. Returns ``(block, names, n_missing)``.
    """
    import pandas as pd

    vals = s.to_numpy(dtype=object)
    miss = np.array([bool(pd.isna(v)) or str(v).strip().lower() in _NA_LOWER for v in vals], dtype=bool)
    text = [str(v) for v in vals]
    cats = sorted({t for t, m in zip(text, miss, strict=True) if not m})
    code = {t: k for k, t in enumerate(cats)}
    n_miss = int(miss.sum())
    extra = 1 if indicator and n_miss else 0
    block = np.zeros((len(vals), len(cats) + extra))
    rows = np.flatnonzero(~miss)
    block[rows, [code[text[i]] for i in rows]] = 1.0
    names = [f"{column}={t}" for t in cats]
    if extra:
        block[miss, -1] = 1.0
        names.append(f"{column}=missing")
    return block, names, n_miss


def _exact_floats() -> dict:
    """pandas < 3.1 parses floats exactly only with float_precision='round_trip' (3.0.6 still rounds
    0.30000000000000004 to 0.3); 3.1 does by default and deprecates the argument."""
    import pandas as pd

    major, minor = (int(p) for p in pd.__version__.split(".")[:2])
    return {"float_precision": "round_trip"} if (major, minor) < (3, 1) else {}


#: more columns than this are read row by row (_load_wide) instead of by pandas
_WIDE_COLUMNS = 10_000


def _count_lines(src: _Source) -> int:
    """Lines in the file (an upper bound on the rows), counted in 16 MiB chunks."""
    if src.path is None:
        return src.bytes().count(b"\n") + 1
    n = 1
    with open(src.path, "rb") as fh:
        while chunk := fh.read(1 << 24):
            n += chunk.count(b"\n")
    return n


def _wide_rows(src: _Source, sep: str):
    """The fields of every non-blank data line (the header skipped), one list at a time."""
    text = io.TextIOWrapper(
        open(src.path, "rb") if src.path is not None else io.BytesIO(src.bytes()),
        encoding="utf-8-sig",
        newline="",
    )
    with text:
        if sep == r"\s+":
            lines = (ln.split() for ln in text)
        else:
            lines = csv.reader(text, delimiter=sep)
        next(lines, None)
        for fields in lines:
            if fields and not (len(fields) == 1 and not fields[0].strip()):
                yield fields


def _wide_floats(fields: list[str], names: list[str], row: int, who: str) -> np.ndarray:
    try:
        return np.array(fields, dtype=np.float64)
    except ValueError:
        pass
    out = np.empty(len(fields))
    for j, v in enumerate(fields):
        try:
            out[j] = float(v)
        except ValueError:
            if v.strip().lower() not in _NA_LOWER:
                raise ValueError(
                    f"{who}: non-numeric feature column {names[j]!r} (e.g. {v.strip()!r} at row {row}). "
                    'Features must be numbers (categorical="onehot" handles files up to 10,000 '
                    "columns). Fix: drop or encode that column (e.g. one-hot), or name it as the "
                    "label column with label=..."
                ) from None
            out[j] = np.nan
    return out


def _load_wide(
    src: _Source,
    fmt: str,
    sep: str,
    header: list[str],
    pos: int | None,
    label,
    *,
    drop: set | frozenset = frozenset(),
    id_pos: int | None = None,
    decimal: str = ".",
) -> dict:
    """A very wide CSV/TSV read row by row: no Python object per column (pandas' parser keeps
    several, ~10 KiB each, and crashed on 10^6 columns)."""
    who = f"load_dataset: {src.label}"
    m = len(header)
    guess_last = label == "auto" and pos is None  # the last column may hold class names
    lab = pos if pos is not None else (m - 1 if guess_last else None)
    skip = set(drop) | ({id_pos} if id_pos is not None else set())
    keep = [j for j in range(m) if j != lab and j not in skip]
    names = [header[j] for j in keep]
    rows, labels, ids = [], [], []
    for i, fields in enumerate(_wide_rows(src, sep)):
        if len(fields) != m:
            raise ValueError(
                f"{who}: row {i} has {len(fields)} fields but the header has {m}. Fix: make every row "
                "have one field per column name (check the separator)."
            )
        if lab is not None:
            labels.append(fields[lab])
        if id_pos is not None:
            ids.append(fields[id_pos])
        if skip or lab is not None:
            fields = [fields[j] for j in keep]
        if decimal == ",":
            fields = [v.replace(",", ".") for v in fields]
        rows.append(_wide_floats(fields, names, i, who))
    if not rows:
        raise ValueError(f"{who} has no data rows (only a header?). Fix: choose a file with samples.")
    X = np.vstack(rows)
    del rows
    y = None
    label_column = None
    if lab is not None:
        values = np.array(labels, dtype=object)
        numeric = True
        if guess_last:
            try:
                last = np.array([float(v) for v in labels])
                numeric = True
            except ValueError:
                numeric = False
        if guess_last and numeric:  # an ordinary numeric feature after all
            X = np.hstack([X, last[:, None]])
            names.append(header[lab])
        else:
            label_column = header[lab]
            y = _labels_from_strings(values, who)
    return {
        "X": _readonly(np.ascontiguousarray(X)),
        "y": y,
        "feature_names": np.array(names, dtype=object),
        "label_column": label_column,
        "format": fmt,
        "sample_names": np.array([v.strip() for v in ids], dtype=object) if id_pos is not None else None,
    }


def _text_columns(header: list[str], label) -> tuple:
    """Columns read as text: the label (given or named like one) and id-like columns."""
    from fsviz.data.roles import TARGET_WORDS, _id_named, _words

    out = [
        h for h in header if h.strip().lower() in LABEL_CANDIDATES or _id_named(h) or _words(h) & TARGET_WORDS
    ]
    if isinstance(label, str) and label != "auto" and label in header:
        out.append(label)
    elif (
        isinstance(label, (int, np.integer))
        and not isinstance(label, bool)
        and -len(header) <= label < len(header)
    ):
        out.append(header[int(label)])
    return tuple(out)


def _table_parts(src: _Source, fmt: str, raw, label, *, labels_as_text: bool = True) -> dict:
    """Roles applied to a read table, then the features and labels as parts for _assemble."""
    from fsviz.data.frames import apply_roles

    who = f"load_dataset: {src.label}"
    frame = raw.frame
    if frame.shape[1] == 0:
        raise ValueError(f"{who} has no columns. Fix: choose a file that holds data.")
    if len(frame) == 0:
        raise ValueError(f"{who} has no data rows (only a header?). Fix: choose a file with samples.")
    if isinstance(label, str) and label != "auto" and label not in [str(c) for c in frame.columns]:
        _label_position([str(c) for c in frame.columns], label, src, fmt)  # raises with the columns
    roles = apply_roles(
        frame,
        label,
        id_columns=src.id_columns,
        ignore=src.ignore,
        missing_target=src.missing_target,
        who=who,
    )
    parts = _frame_to_parts(roles["frame"], roles["label"], src, fmt, labels_as_text=labels_as_text)
    meta = dict(roles["meta"])
    if raw.sep is not None:
        meta["dialect"] = {"sep": raw.sep, "decimal": raw.decimal, "thousands": raw.thousands}
    if raw.sheet is not None:
        meta["sheet"] = raw.sheet
    if raw.transposed:
        meta["transposed"] = True
    parts["table_meta"] = meta
    parts["notes"] = list(raw.notes) + roles["notes"]
    parts["sample_names"] = roles["sample_names"]
    return parts


def _load_delimited(src: _Source, fmt: str, label) -> dict:
    from fsviz.data.dialect import sniff_dialect
    from fsviz.data.frames import head_text, header_fields, name_blank_columns, read_table

    who = f"load_dataset: {src.label}"
    if fmt == "txt":
        sniffed = _sniff(src.head(1 << 16))
        if sniffed == "svmlight":
            return _load_svmlight(src, label)
        fmt = sniffed if sniffed in ("csv", "tsv") else "txt"
    text, _ = head_text(src)
    sep = src.sep
    if sep in ("auto", None):
        sep = "\t" if fmt == "tsv" else sniff_dialect(text, allow_whitespace=fmt == "txt")[0]
    elif sep in ("whitespace", " "):
        sep = r"\s+"
    header = name_blank_columns(header_fields(text, sep)) if text.strip() else []
    if header and len(header) > _WIDE_COLUMNS and src.transpose is False:
        return _load_wide_table(src, fmt, sep, header, label)
    if header:
        rows = max(_count_lines(src) - 1, 1)  # minus the header
        src.check(dense_bytes(rows, len(header)), f"{rows:,} rows x {len(header):,} columns of CSV data")
    raw = read_table(
        src,
        fmt,
        sep=sep,
        decimal=src.decimal,
        transpose=src.transpose,
        text_columns=_text_columns(header, label),
        who=who,
    )
    return _table_parts(src, fmt, raw, label)


def _load_wide_table(src: _Source, fmt: str, sep: str, header: list[str], label) -> dict:
    """More columns than pandas reads well: roles from the first rows, then row by row."""
    from fsviz.data.frames import apply_roles, read_table

    who = f"load_dataset: {src.label}"
    rows = max(_count_lines(src) - 1, 1)
    src.check(dense_bytes(rows, len(header)), f"{rows:,} rows x {len(header):,} columns of CSV data")
    raw = read_table(
        src, fmt, sep=sep, decimal=src.decimal, nrows=50, text_columns=_text_columns(header, label), who=who
    )
    if isinstance(label, str) and label != "auto" and label not in header:
        _label_position(header, label, src, fmt)
    roles = apply_roles(
        raw.frame, label, id_columns=src.id_columns, ignore=src.ignore, missing_target="drop", who=who
    )
    lookup = {h: j for j, h in enumerate(header)}
    drop = {lookup[nm] for nm in (roles["meta"].get("ignored") or {})}
    ids = [lookup[nm] for nm in roles["meta"].get("id_columns", [])]
    id_pos = lookup[roles["meta"]["id_column"]] if "id_column" in roles["meta"] else None
    drop |= set(ids)
    pos = lookup[roles["label"]] if roles["label"] is not None else None
    parts = _load_wide(src, fmt, sep, header, pos, None, drop=drop, id_pos=id_pos, decimal=raw.decimal)
    meta = dict(roles["meta"])
    meta.pop("dropped_rows", None)
    meta["dialect"] = {"sep": sep, "decimal": raw.decimal, "thousands": None}
    parts["table_meta"] = meta
    parts["notes"] = list(raw.notes) + [n for n in roles["notes"] if not n.startswith("dropped")]
    return parts


def _load_sheet(src: _Source, fmt: str, label) -> dict:
    from fsviz.data.frames import read_table

    who = f"load_dataset: {src.label}"
    raw = read_table(src, fmt, sheet=src.sheet, transpose=src.transpose, who=who)
    src.check(dense_bytes(*raw.frame.shape), f"{raw.frame.shape[0]:,} rows x {raw.frame.shape[1]:,} columns")
    if raw.sheets and len(raw.sheets) > 1:
        raw.notes.append(
            f"read sheet {raw.sheet!r} of {len(raw.sheets)} ({', '.join(map(repr, raw.sheets[:5]))})"
        )
    return _table_parts(src, fmt, raw, label)


def _load_h5ad(src: _Source, label) -> dict:
    """AnnData: X (sparse kept), var_names as feature names, obs_names as sample names,
    the label an obs column."""
    import pandas as pd

    from fsviz.data.h5ad import read_h5ad, read_h5ad_obs
    from fsviz.data.roles import infer_column_roles

    who = f"load_dataset: {src.label}"
    try:
        head = read_h5ad_obs(src.handle(), who)
    except ValueError:
        raise
    except Exception as e:
        raise _parse_error(src, "AnnData .h5ad", e, "save it again with anndata (adata.write_h5ad).") from e
    n, m = head["shape"]
    src.check(dense_bytes(n, m) if head["storage"] == "dense" else 0, f"an AnnData X of {n:,} x {m:,}")
    try:
        parts = read_h5ad(src.handle(), who)
    except ValueError:
        raise
    except Exception as e:
        raise _parse_error(src, "AnnData .h5ad", e, "save it again with anndata (adata.write_h5ad).") from e
    obs = parts["obs"] if parts["obs"] is not None else pd.DataFrame(index=range(n))
    y, label_column = None, None
    if label is not None and obs.shape[1]:
        if label == "auto":
            roles = infer_column_roles(obs.reset_index(drop=True), "auto", id_columns="auto")
            label_column = next((r.name for r in roles if r.role == "target"), None)
        else:
            if isinstance(label, (int, np.integer)) and not isinstance(label, bool):
                label = str(obs.columns[int(label)])
            if label not in obs.columns:
                raise ValueError(
                    f"load_dataset: label column {label!r} not found in obs; obs columns are "
                    f"{names_preview([str(c) for c in obs.columns], 20)}. Fix: pass label= one of them, or "
                    "label=None."
                )
            label_column = str(label)
    elif label not in (None, "auto"):
        raise ValueError(f"load_dataset: label column {label!r} not found: {src.label} has no obs columns.")
    X = parts["X"]
    samples = parts["obs_names"]
    notes, meta = [], {"obs_columns": [str(c) for c in obs.columns]}
    if label_column is not None:
        col = obs[label_column]
        miss = col.isna().to_numpy()
        if miss.any():
            rows = np.flatnonzero(miss)
            if src.missing_target == "error":
                raise ValueError(
                    f"load_dataset: {src.label}: the target column {label_column!r} has {len(rows)} missing "
                    f"value(s) (rows {names_preview(rows.tolist())}). Fix: drop those rows "
                    '(missing_target="drop"), or choose another obs column.'
                )
            keep = ~miss
            X = X[keep]
            col = col[keep]
            samples = None if samples is None else samples[keep]
            meta["dropped_rows"] = {"reason": f"missing target {label_column!r}", "rows": rows.tolist()}
            notes.append(f"dropped {len(rows)} row(s) without a value in obs column {label_column!r}")
        vals = col.to_numpy()
        y = vals if vals.dtype.kind in "biuf" else np.array([str(v) for v in vals], dtype=object)
    if samples is not None and len(set(samples.tolist())) == len(samples):
        meta["id_column"] = "obs_names"
    return {
        "X": X.tocsc() if sp.issparse(X) and X.format == "csc" else X,
        "y": y,
        "feature_names": parts["var_names"],
        "label_column": label_column,
        "format": "h5ad",
        "sample_names": samples,
        "table_meta": meta,
        "notes": notes,
    }


# ============================================================================ Parquet
def _load_parquet(src: _Source, label) -> dict:
    import pyarrow.parquet as pq

    who = f"load_dataset: {src.label}"
    try:
        md = pq.ParquetFile(src.handle()).metadata
    except Exception as e:
        raise _parse_error(
            src,
            "Parquet",
            e,
            "check that the file is a valid Parquet file (re-export it, e.g. DataFrame.to_parquet).",
        ) from e
    src.check(dense_bytes(md.num_rows, md.num_columns), f"{md.num_rows:,} rows x {md.num_columns:,} columns")
    try:
        table = pq.read_table(src.handle())
    except Exception as e:
        raise _parse_error(
            src,
            "Parquet",
            e,
            "check that the file is a valid Parquet file (re-export it, e.g. DataFrame.to_parquet).",
        ) from e
    meta = {}
    raw = (table.schema.metadata or {}).get(_FSVIZ_TAG.encode())
    if raw:
        try:
            meta = json.loads(raw.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            meta = {}
    if label == "auto" and "label_column" in meta:
        label = meta["label_column"]  # may be None: written without labels
    try:
        df = table.to_pandas()
    except Exception as e:
        raise _parse_error(src, "Parquet", e, "store plain numeric feature columns.") from e
    if len(df.columns) == 0:
        raise ValueError(f"{who} has no columns. Fix: choose a file that holds data.")
    from fsviz.data.frames import RawTable

    df.columns = [str(c) for c in df.columns]
    if meta and src.id_columns == "auto":  # written by fsviz: every column is a feature or the label
        src.id_columns = None
    raw = RawTable(frame=df, fmt="parquet", n_rows=len(df), n_columns=df.shape[1])
    parts = _table_parts(src, "parquet", raw, label, labels_as_text=False)
    if meta.get("class_names") is not None and parts["y"] is not None:
        parts["class_names"] = meta["class_names"]
    if meta.get("image_shape"):
        parts["image_shape"] = tuple(meta["image_shape"])
    if meta.get("name"):
        parts["name"] = meta["name"]
    return parts


# ============================================================================ MATLAB
def _mat_labels(v, who: str):
    if sp.issparse(v):
        v = v.toarray()
    arr = np.asarray(v)
    if arr.dtype == object:  # cell array of strings
        flat = [np.asarray(e).ravel() for e in arr.ravel()]
        return np.array(
            [
                "".join(map(str, e.tolist()))
                if e.dtype.kind == "U"
                else str(e.item() if e.size == 1 else e.tolist())
                for e in flat
            ],
            dtype=object,
        )
    if arr.dtype.kind == "U":  # char matrix: one row per label
        if arr.ndim == 2 and arr.shape[1] != 1 and arr.shape[0] != 1:
            return np.array([str(r).strip() for r in arr], dtype=object)
        return np.array([str(s).strip() for s in arr.ravel()], dtype=object)
    if arr.ndim == 2 and 1 in arr.shape:
        return arr.ravel()
    if arr.ndim == 1:
        return arr
    raise ValueError(
        f"{who}: the label variable must be a vector (n x 1); got shape {arr.shape}. "
        "Fix: store one label per sample."
    )


def _mat_check_sizes(src: _Source) -> None:
    """Refuse a .mat file whose variables (shapes from its headers) exceed the budget."""
    import scipy.io as sio

    if not src.budget:
        return
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            variables = sio.whosmat(src.handle())
    except Exception:  # noqa: BLE001 - loadmat says what is wrong
        return
    total, what = 0, "the variables in the file"
    for name, shape, cls in variables:
        cells = math.prod(int(v) for v in shape)
        if cls == "sparse" and len(shape) == 2:
            total += PER_FEATURE_BYTES * int(shape[1])  # the values count once read
        elif cls not in ("cell", "struct", "object"):
            total += 8 * cells
        if name in _MAT_X_KEYS and len(shape) == 2:
            what = f"{cls} variable {name!r} of shape {shape[0]:,} x {shape[1]:,}"
            total += PER_FEATURE_BYTES * int(shape[1])
    src.check(total, what)


def _loadmat_bytes(data) -> dict:
    """``scipy.io.loadmat`` of a buffer or bytes (module level: runs in a child process too)."""
    import scipy.io as sio

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sio.loadmat(io.BytesIO(data) if isinstance(data, bytes) else data)


class ChildCrashed(RuntimeError):
    """The child process of :func:`run_isolated` died (by a signal) instead of returning."""


_CHILD = (
    "import pickle, sys\n"
    "fn, args = pickle.load(sys.stdin.buffer)\n"
    "try:\n"
    "    out = ('ok', fn(*args))\n"
    "except Exception as e:\n"
    "    out = ('error', e)\n"
    "sys.stdout.buffer.write(pickle.dumps(out))\n"
)


def run_isolated(fn, *args, who: str = "load_dataset"):
    """``fn(*args)`` in a fresh Python process: a crash there (SIGSEGV, abort) raises
    :class:`ChildCrashed` here instead of taking this process down; an exception raised by
    ``fn`` comes back as it is. ``fn`` must be importable (module level); arguments and
    result travel pickled through pipes (no ``__main__`` re-import, unlike multiprocessing)."""
    import pickle
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-c", _CHILD], input=pickle.dumps((fn, args)), capture_output=True, check=False
    )
    if proc.returncode != 0 or not proc.stdout:
        how = f"signal {-proc.returncode}" if proc.returncode < 0 else f"exit code {proc.returncode}"
        raise ChildCrashed(f"{who}: the reader crashed ({how}).")
    status, value = pickle.loads(proc.stdout)
    if status == "error":
        raise value
    return value


def _load_mat(src: _Source, label) -> dict:

    who = f"load_dataset: {src.label}"
    head = src.head(1024)
    if (
        head[:19] == b"MATLAB 7.3 MAT-file"
        or head[:8] == b"\x89HDF\r\n\x1a\n"
        or head[512:520] == b"\x89HDF\r\n\x1a\n"
    ):
        raise ValueError(f"{who} is a MATLAB v7.3 (HDF5) file, which scipy cannot read. Fix: {_MAT73_FIX}.")
    _mat_check_sizes(src)
    try:
        if src.sandbox:
            d = run_isolated(_loadmat_bytes, src.bytes(), who=who)
        else:
            d = _loadmat_bytes(src.handle())
    except ChildCrashed as e:
        raise ValueError(
            f"{e} The file is damaged or not a MATLAB .mat file. Fix: re-save it from MATLAB/Octave "
            "(save -v7) or convert it to .npz or CSV."
        ) from None
    except NotImplementedError as e:  # scipy's own v7.3 detection
        raise ValueError(
            f"{who} is a MATLAB v7.3 (HDF5) file, which scipy cannot read. Fix: {_MAT73_FIX}."
        ) from e
    except Exception as e:
        raise _parse_error(
            src,
            "a MATLAB .mat file",
            e,
            "check that it is a MATLAB v4-v7 .mat file with variables X (samples x features) and Y (labels).",
        ) from e
    variables = sorted(k for k in d if not k.startswith("__"))
    xkey = next((k for k in _MAT_X_KEYS if k in d), None)
    if xkey is None:
        raise ValueError(
            f"{who}: no feature matrix; variables are {variables}, expected 'X' (samples x features) "
            "as in scikit-feature. Fix: save the features as X (and the labels as Y)."
        )
    X = d[xkey]
    if sp.issparse(X):
        if X.dtype.kind not in "biuf":
            raise ValueError(f"{who}: {xkey} must be numeric; got {X.dtype}.")
        X = X.astype(np.float64).tocsc()
    else:
        X = np.asarray(X)
        if X.dtype.kind not in "biuf":
            raise ValueError(
                f"{who}: {xkey} must be a numeric matrix; got MATLAB class with dtype {X.dtype}. "
                "Fix: store the features as a double/integer matrix."
            )
        if X.ndim != 2:
            raise ValueError(f"{who}: {xkey} must be 2-D (samples x features); got shape {X.shape}.")
        X = _readonly(np.ascontiguousarray(X, dtype=np.float64))
    y = None
    ykey = None
    if label == "auto":
        ykey = next((k for k in _MAT_Y_KEYS if k in d), None)
    elif label is not None:
        if not isinstance(label, str) or label not in d:
            raise ValueError(
                f"load_dataset: label variable {label!r} not found in {src.label}; variables are "
                f"{variables}. Fix: pass label= one of them, or label=None."
            )
        ykey = label
    if ykey is not None:
        y = _mat_labels(d[ykey], who)
        if len(y) != X.shape[0]:
            hint = (
                " X looks transposed (features x samples): save X' instead." if len(y) == X.shape[1] else ""
            )
            raise ValueError(
                f"{who}: {ykey} has {len(y)} labels but {xkey} has {X.shape[0]} rows (samples); "
                f"they must match.{hint} Fix: store X as samples x features and one label per sample."
            )
    return {
        "X": X,
        "y": y,
        "feature_names": None,
        "names_are_default": True,
        "label_column": ykey,
        "format": "mat",
        "image_order": "F",
    }


# ============================================================================ LIBSVM / svmlight
_SVM_HEADER = "fsviz-svmlight"


def _svm_meta(src: _Source) -> dict:
    head = src.head(1 << 16)
    if not head.startswith(b"#"):
        return {}
    meta = {}
    data = head if len(head) < (1 << 16) else src.bytes()
    for raw in data.split(b"\n"):
        if not raw.startswith(b"#"):
            break
        line = raw[1:].strip()
        if line.startswith(_SVM_HEADER.encode()):
            try:
                meta = json.loads(line[len(_SVM_HEADER) :].decode("utf-8"))
            except (ValueError, UnicodeDecodeError):
                meta = {}
    return meta


def _load_svmlight(src: _Source, label) -> dict:
    from sklearn.datasets import load_svmlight_file

    if label not in ("auto", None):
        raise ValueError(
            f"load_dataset: {src.label} is a LIBSVM/svmlight file, whose labels are the first field of "
            f"every line; label must be 'auto' or None, got {label!r}."
        )
    meta = _svm_meta(src)
    zero_based = meta.get("zero_based", "auto")
    n_features = meta.get("n_features")
    if n_features is not None:
        if isinstance(n_features, bool) or not isinstance(n_features, int) or n_features < 0:
            raise ValueError(
                f"load_dataset: {src.label}: its fsviz header says n_features={n_features!r}; it must be "
                "a count >= 0. Fix: re-export the file, or delete the '# fsviz-svmlight' header line."
            )
        src.check(sparse_bytes(0, n_features, 0), f"a sparse matrix of {n_features:,} features (header)")
    try:
        X, y = load_svmlight_file(
            src.handle(), n_features=n_features, dtype=np.float64, zero_based=zero_based
        )
    except Exception as e:
        raise _parse_error(
            src,
            "LIBSVM/svmlight",
            e,
            "every line must read '<label> <index>:<value> ...' with increasing indices.",
        ) from e
    X = X.tocsr()
    if meta.get("n_samples") is not None and int(meta["n_samples"]) != X.shape[0]:
        raise ValueError(
            f"load_dataset: {src.label} is truncated or damaged: its fsviz header says "
            f"{meta['n_samples']} samples but {X.shape[0]} lines were read. Fix: re-export the file."
        )
    has_labels = meta.get("has_labels", True)
    if label is None or not has_labels:
        y = None
    names = None
    if meta.get("feature_names_json"):
        names = meta["feature_names_json"]
    parts = {
        "X": X,
        "y": y,
        "feature_names": np.array(names, dtype=object) if names is not None else None,
        "names_are_default": names is None,
        "label_column": None,
        "format": "svmlight",
    }
    if meta.get("class_names") is not None and y is not None:
        parts["class_names"] = meta["class_names"]
    if meta.get("name"):
        parts["name"] = meta["name"]
    return parts


# ============================================================================ .npz
def _npz_str_array(z, key: str) -> np.ndarray:
    a = z[key]
    if a.dtype.kind in "US":
        return np.array([str(v) for v in a.ravel()], dtype=object)
    raise ValueError(f"'{key}' must be an array of strings; got dtype {a.dtype}")


def _load_npz(src: _Source, label) -> dict:
    import zipfile

    who = f"load_dataset: {src.label}"
    head = src.head(8)
    if head.startswith(b"\x93NUMPY"):
        raise ValueError(
            f"{who} is a single .npy array, not an .npz archive. Fix: save it with np.savez(path, X=X, y=y)."
        )
    if not head.startswith(b"PK"):
        raise _parse_error(
            src,
            ".npz",
            ValueError("not a zip archive (no 'PK' signature)"),
            "save it with np.savez / np.savez_compressed (keys X, y, feature_names) or "
            "scipy.sparse.save_npz.",
        )
    _npz_check_sizes(src)
    try:
        z = np.load(src.handle(), allow_pickle=False)
    except ValueError as e:
        if "pickle" in str(e).lower():
            raise ValueError(
                f"{who} holds object arrays, which are not loaded (allow_pickle=False, for safety). "
                "Fix: save names as string arrays, e.g. np.array(names, dtype=str)."
            ) from e
        raise _parse_error(
            src,
            ".npz",
            e,
            "save it with np.savez / np.savez_compressed (keys X, y, "
            "feature_names) or scipy.sparse.save_npz.",
        ) from e
    except Exception as e:
        raise _parse_error(
            src,
            ".npz",
            e,
            "save it with np.savez / np.savez_compressed (keys X, y, "
            "feature_names) or scipy.sparse.save_npz.",
        ) from e
    if not hasattr(z, "files"):
        raise ValueError(
            f"{who} is a single .npy array, not an .npz archive. Fix: save it with np.savez(path, X=X, y=y)."
        )
    try:
        keys = list(z.files)
        meta = {}
        if "fsviz_meta" in keys:
            meta = json.loads(bytes(z["fsviz_meta"].astype(np.uint8)).decode("utf-8"))
        if "X" in keys:
            X = np.asarray(z["X"])
            if X.ndim != 2:
                raise ValueError(f"{who}: X must be 2-D (samples x features); got shape {X.shape}.")
            if X.dtype.kind not in "biuf":
                raise ValueError(f"{who}: X must be numeric; got dtype {X.dtype}.")
            X = _readonly(np.ascontiguousarray(X, dtype=np.float64))
        elif {"X_data", "X_indices", "X_indptr", "X_shape", "X_format"} <= set(keys):
            X = _sparse_from(z, "X_", who)
        elif {"data", "shape", "format"} <= set(keys):
            X = _sparse_from(z, "", who)
        else:
            raise ValueError(
                f"{who}: no feature matrix; arrays are {keys}. Fix: save the features as 'X' "
                "(np.savez(path, X=X, y=y)) or save a sparse matrix with scipy.sparse.save_npz."
            )
        y = None
        ykey = None
        if label == "auto":
            ykey = meta.get("label_key", next((k for k in _NPZ_Y_KEYS if k in keys), None))
        elif label is not None:
            if label not in keys:
                raise ValueError(
                    f"load_dataset: label array {label!r} not found in {src.label}; arrays are "
                    f"{keys}. Fix: pass label= one of them, or label=None."
                )
            ykey = label
        if ykey is not None:
            y = np.asarray(z[ykey])
            if y.ndim == 2 and 1 in y.shape:
                y = y.ravel()
            if y.ndim != 1:
                raise ValueError(f"{who}: labels {ykey!r} must be 1-D; got shape {y.shape}.")
            if y.dtype.kind in "US":
                y = y.astype(object)
        names = None
        if "feature_names" in meta:
            names = np.array(meta["feature_names"], dtype=object)
        elif "feature_names" in keys:
            names = _npz_str_array(z, "feature_names")
        parts = {
            "X": X,
            "y": y,
            "feature_names": names,
            "names_are_default": names is None,
            "label_column": ykey,
            "format": "npz",
        }
        if "class_names" in meta and y is not None:
            parts["class_names"] = meta["class_names"]
        elif "class_names" in keys and y is not None:
            parts["class_names"] = _npz_str_array(z, "class_names")
        if meta.get("image_shape"):
            parts["image_shape"] = tuple(meta["image_shape"])
        elif "image_shape" in keys:
            parts["image_shape"] = tuple(int(v) for v in np.asarray(z["image_shape"]).ravel())
        if meta.get("name"):
            parts["name"] = meta["name"]
        return parts
    except ValueError as e:
        if "pickle" in str(e).lower() and not str(e).startswith("load_dataset"):
            raise ValueError(
                f"{who} holds object arrays, which are not loaded (allow_pickle=False, for safety). "
                "Fix: save names and labels as string arrays, e.g. np.array(names, dtype=str)."
            ) from e
        raise
    except (zipfile.BadZipFile, OSError, KeyError, EOFError, TypeError) as e:
        raise _parse_error(src, ".npz", e, "the archive is damaged; re-save it.") from e
    finally:
        z.close()


def _npy_member(zf, info):
    """``(shape, dtype)`` from the header of an .npy member of a zip, or None if unreadable."""
    from numpy.lib import format as npf

    try:
        with zf.open(info) as fh:
            version = npf.read_magic(fh)
            reader = npf.read_array_header_1_0 if version == (1, 0) else npf.read_array_header_2_0
            shape, _, dtype = reader(fh)
        return tuple(int(v) for v in shape), np.dtype(dtype)
    except Exception:  # noqa: BLE001 - not an .npy member: np.load reports it
        return None


def _npz_check_sizes(src: _Source) -> None:
    """Refuse an .npz whose arrays (from their .npy headers, not decompressed) exceed the budget."""
    import zipfile

    if not src.budget:
        return
    try:
        zf = zipfile.ZipFile(src.handle())
    except Exception:  # noqa: BLE001 - np.load says what is wrong
        return
    with zf:
        headers = {}
        total = 0
        for info in zf.infolist():
            key = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
            head = _npy_member(zf, info)
            if head is None:
                total += int(info.file_size)  # the decompressed size the archive declares
                continue
            headers[key] = head
            shape, dtype = head
            if not dtype.hasobject:
                total += math.prod(shape) * dtype.itemsize
        what = f"the arrays in the archive ({format_bytes(total)} decompressed)"
        for prefix in ("X_", ""):
            if prefix + "shape" in headers and prefix + "data" in headers:
                shape_head = headers[prefix + "shape"]
                if math.prod(shape_head[0]) != 2 or shape_head[1].kind not in "iu":
                    break
                with zf.open(prefix + "shape.npy") as fh:
                    n, m = (int(v) for v in np.lib.format.read_array(fh, allow_pickle=False).ravel())
                nnz = math.prod(headers[prefix + "data"][0])
                total += sparse_bytes(n, m, nnz)
                what = f"a sparse {n:,} x {m:,} matrix with {nnz:,} stored values"
                break
        else:
            if "X" in headers and len(headers["X"][0]) == 2:
                (n, m), dtype = headers["X"]
                total += dense_bytes(0, m) + (n * m * 8 if dtype != np.float64 else 0)
                what = f"a dense {n:,} x {m:,} matrix of {dtype} (as float64, with per-feature names)"
        src.check(total, what)


def _sparse_from(z, prefix: str, who: str):
    fmt = z[prefix + "format"]
    fmt = fmt.item() if fmt.ndim == 0 else fmt.ravel()[0]
    fmt = fmt.decode() if isinstance(fmt, bytes) else str(fmt)
    shape = tuple(int(v) for v in np.asarray(z[prefix + "shape"]).ravel())
    data = np.asarray(z[prefix + "data"], dtype=np.float64)
    if fmt in ("csr", "csc"):
        cls = sp.csr_matrix if fmt == "csr" else sp.csc_matrix
        X = cls((data, z[prefix + "indices"], z[prefix + "indptr"]), shape=shape)
        X.check_format(full_check=True)
        return X
    if fmt == "coo":
        return sp.coo_matrix((data, (z[prefix + "row"], z[prefix + "col"])), shape=shape).tocsr()
    raise ValueError(f"{who}: sparse format {fmt!r} is not supported; save CSR, CSC or COO.")


# ============================================================================ writing
def _format_for_save(path_or_buffer, fmt: str | None) -> str:
    if fmt is None:
        nm = (
            os.fspath(path_or_buffer)
            if isinstance(path_or_buffer, (str, os.PathLike))
            else str(getattr(path_or_buffer, "name", "") or "")
        )
        suffix = Path(nm).suffix.lower()
        fmt = _SUFFIXES.get(suffix)
        if fmt not in ("csv", "tsv", "parquet", "npz", "svmlight"):
            raise ValueError(
                f"save_dataset: cannot tell the format from {nm or 'the buffer'!r}; pass fmt= one of "
                "['csv', 'tsv', 'parquet', 'npz', 'svmlight']."
            )
    fmt = {"libsvm": "svmlight", "svm": "svmlight", "pq": "parquet"}.get(fmt.lower(), fmt.lower())
    if fmt not in ("csv", "tsv", "parquet", "npz", "svmlight"):
        raise ValueError(
            f"save_dataset: cannot write fmt {fmt!r}; choose one of "
            "['csv', 'tsv', 'parquet', 'npz', 'svmlight']."
        )
    return fmt


def _write_bytes(path_or_buffer, data: bytes) -> None:
    if hasattr(path_or_buffer, "write"):
        path_or_buffer.write(data)
    else:
        with open(path_or_buffer, "wb") as fh:
            fh.write(data)


def save_dataset(dataset: Dataset, path_or_buffer, fmt: str | None = None) -> None:
    """Write ``dataset`` so that :func:`load_dataset` reads it back exactly.

    Parameters
    ----------
    dataset : Dataset
    path_or_buffer : str, Path or binary file-like
    fmt : {"csv", "tsv", "parquet", "npz", "svmlight"}, optional
        From the file name when None.

    Notes
    -----
    Floats are written losslessly in every format (text formats use the shortest
    round-trip repr). CSV/TSV cannot carry the image shape or which class names
    look numeric; Parquet, .npz and svmlight store the names, class names and
    image shape in their metadata. Sparse data stay sparse in .npz and svmlight.
    """
    fmt = _format_for_save(path_or_buffer, fmt)
    if fmt in ("csv", "tsv"):
        _write_bytes(path_or_buffer, dataset.to_csv(sep="," if fmt == "csv" else "\t").encode("utf-8"))
    elif fmt == "parquet":
        _write_parquet(dataset, path_or_buffer)
    elif fmt == "npz":
        _write_npz(dataset, path_or_buffer)
    else:
        _write_svmlight(dataset, path_or_buffer)


def _meta_for(dataset: Dataset) -> dict:
    return {
        "name": dataset.name,
        "image_shape": list(dataset.image_shape) if dataset.image_shape else None,
        "class_names": None if dataset.class_names is None else [str(c) for c in dataset.class_names],
    }


def _write_parquet(dataset: Dataset, path_or_buffer) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    dataset._check_dense_export("save (Parquet)")
    X = dataset.X.toarray() if dataset.is_sparse else dataset.X
    names = [str(c) for c in dataset.feature_names]
    arrays = [pa.array(X[:, j], type=pa.float64()) for j in range(X.shape[1])]
    label_col = None
    if dataset.y is not None:
        label_col = dataset.label_column()
        if dataset.class_names is not None:
            arrays.append(pa.array([str(v) for v in dataset.labels], type=pa.string()))
        else:
            arrays.append(pa.array(dataset.y))
        names.append(label_col)
    meta = _meta_for(dataset)
    meta["label_column"] = label_col
    table = pa.Table.from_arrays(arrays, names=names)
    table = table.replace_schema_metadata({_FSVIZ_TAG: json.dumps(meta)})
    sink = path_or_buffer if not isinstance(path_or_buffer, (str, os.PathLike)) else os.fspath(path_or_buffer)
    pq.write_table(table, sink)


def _write_npz(dataset: Dataset, path_or_buffer) -> None:
    meta = _meta_for(dataset)
    meta["feature_names"] = [str(c) for c in dataset.feature_names]
    arrays: dict[str, np.ndarray] = {}
    X = dataset.X
    if sp.issparse(X):
        arrays.update(
            X_format=np.array(X.format),
            X_shape=np.array(X.shape, dtype=np.int64),
            X_data=X.data,
            X_indices=X.indices,
            X_indptr=X.indptr,
        )
    else:
        arrays["X"] = X
    if dataset.y is not None:
        arrays["y"] = dataset.y
        meta["label_key"] = "y"
    else:
        meta["label_key"] = None
    arrays["fsviz_meta"] = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
    if isinstance(path_or_buffer, (str, os.PathLike)):
        with open(path_or_buffer, "wb") as fh:  # keep the exact name (np.savez would append .npz)
            np.savez_compressed(fh, **arrays)
    else:
        np.savez_compressed(path_or_buffer, **arrays)


def _write_svmlight(dataset: Dataset, path_or_buffer) -> None:
    X = dataset.X.tocsr() if dataset.is_sparse else sp.csr_matrix(dataset.X)
    X.sort_indices()
    meta = _meta_for(dataset)
    meta.update(
        zero_based=True,
        n_features=int(X.shape[1]),
        n_samples=int(X.shape[0]),
        has_labels=dataset.y is not None,
    )
    names = dataset.feature_names
    if not np.array_equal(names, default_feature_names(len(names))):
        meta["feature_names_json"] = [str(c) for c in names]
    y = dataset.y if dataset.y is not None else np.zeros(X.shape[0], dtype=np.int64)
    ylist = y.tolist()  # Python repr of floats is the shortest exact round trip
    idx, vals, ip = X.indices.tolist(), X.data.tolist(), X.indptr.tolist()
    lines = [f"# {_SVM_HEADER} {json.dumps(meta)}"]
    for i in range(X.shape[0]):
        a, b = ip[i], ip[i + 1]
        feats = " ".join([f"{j}:{v!r}" for j, v in zip(idx[a:b], vals[a:b], strict=False)])
        lines.append(f"{ylist[i]!r} {feats}" if feats else f"{ylist[i]!r}")
    out = io.StringIO()
    out.write("\n".join(lines) + "\n")
    _write_bytes(path_or_buffer, out.getvalue().encode("utf-8"))
