"""The cells of a very wide text table read from its bytes (numba), as the row-by-row reader reads them.

:func:`scan_wide` hands the file, in chunks of 32 MiB, to :func:`~fsviz.data.formats._wide_kernels.scan_rows`,
which splits the records (csv module rules: quotes, doubled quotes, blank lines, CR/LF) and
parses every numeric cell whose value is certain (``float()``'s decimal grammar, correctly
rounded; the missing-value tokens) straight into one preallocated C-ordered float64 block: no
Python object per row or cell. The few cells it cannot vouch for (quoted with escapes,
non-ASCII, text) come back as byte ranges and are read here by :func:`wide_floats`, the
per-cell rule itself; so are the text columns' cells. Anything else (a wrong field count, a NUL
byte, text that is not UTF-8, ...) returns None: the caller then reads the file row by row in
Python, which decides (and words the error) as before.
"""

from __future__ import annotations

import codecs
import csv

import numpy as np

from fsviz.data.formats import _wide_kernels as kernels
from fsviz.data.pages import empty_plain

__all__ = ["na_spellings", "preview_frame", "scan_wide", "wide_floats"]

_CHUNK = 1 << 25  # bytes read at a time: the file is never held whole (unless given as bytes)
_BOM = b"\xef\xbb\xbf"
_POW5: list = []
_NA_SPELLINGS: dict = {}


def na_spellings(na_lower: frozenset) -> frozenset:
    """The spellings of the missing-value tokens (as given, upper, title case) that ``float``
    refuses: the cells :func:`wide_floats` reads as NaN; those it parses (``nan``) stay its own."""
    if na_lower not in _NA_SPELLINGS:
        from fsviz.data.plan import DEFAULT_NA

        out = set()
        for v in {*na_lower, *DEFAULT_NA, *(t.upper() for t in na_lower), *(t.title() for t in na_lower)}:
            if v.strip().lower() not in na_lower:
                continue
            try:
                float(v)
            except ValueError:
                out.add(v)
        _NA_SPELLINGS[na_lower] = frozenset(out)
    return _NA_SPELLINGS[na_lower]


def wide_floats(
    fields: list[str], names: list[str], row: int, who: str, na_lower: frozenset, bad: dict | None = None
) -> np.ndarray:
    """The cells as floats (missing-value markers NaN). A text cell is a ValueError naming its
    column; with ``bad`` given, it is NaN and its field index is recorded there instead."""
    try:
        return np.array(fields, dtype=np.float64)
    except ValueError:
        pass
    na = na_spellings(na_lower)
    try:  # usually missing cells: one set lookup each finds them, no parse attempt per cell
        return np.array(["nan" if v in na else v for v in fields], dtype=np.float64)
    except ValueError:
        pass
    out = np.empty(len(fields))
    for j, v in enumerate(fields):
        try:
            out[j] = float(v)
        except ValueError:
            if v.strip().lower() not in na_lower and bad is not None:
                bad.setdefault(j, row)
            elif v.strip().lower() not in na_lower:
                raise ValueError(
                    f"{who}: non-numeric feature column {names[j]!r} (e.g. {v.strip()!r} at row {row}). "
                    'Features must be numbers (categorical="onehot" handles files up to 10,000 '
                    "columns). Fix: drop or encode that column (e.g. one-hot), or name it as the "
                    "label column with label=..."
                ) from None
            out[j] = np.nan
    return out


def fresh(shape: tuple, dtype=np.uint64) -> np.ndarray:
    """A fresh array for the scan's output, in plain pages (:mod:`fsviz.data.pages`)."""
    return empty_plain(shape, dtype)


def _tokens(na_lower: frozenset) -> tuple[np.ndarray, np.ndarray]:
    """The missing-value tokens the kernel may match itself: ASCII, stripped, lowercase, and
    refused by ``float`` (a token ``float`` reads, e.g. ``nan``, is a number to the reader)."""
    kept = []
    for t in sorted(na_lower):
        if not t.isascii() or t != t.strip() or t != t.lower():
            continue  # never matched by the kernel: such cells go to Python
        try:
            float(t)
        except ValueError:
            kept.append(t.encode("ascii"))
    lengths = np.array([len(t) for t in kept], dtype=np.int64)
    table = np.zeros((len(kept), max([1, *lengths.tolist()])), dtype=np.uint8)
    for i, t in enumerate(kept):
        table[i, : len(t)] = np.frombuffer(t, dtype=np.uint8)
    return table, lengths


def _pow5() -> np.ndarray:
    if not _POW5:
        _POW5.append(kernels.pow5_table())
    return _POW5[0]


def _cell(raw: bytes, quoting: str | None) -> str:
    """A cell's text as the row reader sees it: UTF-8, unquoted by the csv module's rules."""
    text = raw.decode("utf-8")
    if quoting is not None and text.startswith('"'):
        return next(csv.reader([text], delimiter=quoting))[0]
    return text


class _Scan:
    """What the kernel calls fill, and the Python side of each call (text and doubtful cells)."""

    def __init__(self, kind: np.ndarray, n_numeric: int, n_text: int, rows: int, quoting, comma, na_lower):
        self.X = fresh((max(rows, 1), n_numeric))  # float64 bits
        self.texts: list[list[str]] = [[] for _ in range(n_text)]
        # the byte ranges of the text cells of up to 1,024 rows at a time (at most 16 MiB of them)
        per_call = min(max(rows, 1), 1024, (1 << 20) // max(n_text, 1))
        self.spans = np.empty((max(per_call, 1), n_text, 2), dtype=np.int64)
        self.hard = np.empty((len(kind) + (1 << 16), 4), dtype=np.int64)  # room for a whole row
        self.bad: dict = {}
        self.quoting, self.comma, self.na_lower = quoting, comma, na_lower

    def take(self, data: bytes, row0: int, row: int, n_hard: int) -> None:
        """The text cells of rows ``row0 .. row - 1`` and the ``n_hard`` cells the kernel left."""
        q = self.quoting
        for t, out in enumerate(self.texts):
            out.extend(_cell(data[a:b], q) for a, b in self.spans[: row - row0, t].tolist())
        if not n_hard:
            return
        rows, cols, starts, ends = self.hard[:n_hard].T
        vals = [_cell(data[a:b], q) for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]
        if self.comma:
            vals = [v.replace(",", ".") for v in vals]
        wrong: dict = {}
        self.X[rows, cols] = wide_floats(vals, [""] * len(vals), 0, "", self.na_lower, wrong).view(np.uint64)
        for i in sorted(wrong):  # text in a numeric column: the first row of each, as the row reader
            self.bad.setdefault(int(cols[i]), int(rows[i]))

    def grow(self) -> None:
        more = fresh((2 * len(self.X), self.X.shape[1]))
        more[: len(self.X)] = self.X
        self.X = more


def _valid_utf8(src) -> bool:
    """The whole file decodes as UTF-8 (as the row reader decodes it), read in chunks."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        if src.path is None:
            data = memoryview(src.bytes())
            for a in range(0, len(data), _CHUNK):
                decoder.decode(data[a : a + _CHUNK])
        else:
            with open(src.path, "rb") as fh:
                while chunk := fh.read(_CHUNK):
                    decoder.decode(chunk)
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def scan_wide(
    src, sep: str, kind: np.ndarray, n_text: int, comma: bool, rows: int
) -> tuple[np.ndarray, list, dict] | None:
    """``(X, texts, bad)`` of a wide text table, or None when the Python row reader must decide.

    ``kind[j]``: field ``j``'s column in X (>= 0) or its text column ``-1 - kind[j]``. X: the
    numeric cells, C-ordered float64 (NaN where missing or text); ``texts``: each text column's
    cells as the row reader gives them; ``bad``: column of X -> first row holding text there.
    ``rows``: the expected number of rows (X grows past it if needed)."""
    ws = sep == r"\s+"
    if len(kind) < 2 or not (ws or (len(sep) == 1 and sep.isascii() and sep not in '"\r\n\x00')):
        return None
    sepb = 0 if ws else ord(sep)
    limit = 1 << 62 if ws else csv.field_size_limit()
    quoting = None if ws else sep
    n_numeric = int((kind >= 0).sum())
    scan = _Scan(kind, n_numeric, n_text, rows, quoting, comma, src.na_lower)
    tokens, lengths = _tokens(src.na_lower)
    pow5 = _pow5()
    fh = open(src.path, "rb") if src.path is not None else None  # noqa: SIM115 - closed below
    try:
        carry, size, first, row, non_ascii = b"", _CHUNK, True, 0, False
        while True:
            if fh is None:
                data, final = src.bytes(), True
            else:
                more = fh.read(size)
                data, final = (carry + more if carry else more), len(more) < size
            buf = np.frombuffer(data, dtype=np.uint8)
            pos = 0
            if first:  # the header line: skipped, as the row reader skips it
                end = kernels.record_end(buf, 3 if data.startswith(_BOM) else 0, final, sepb, ws)
                if end == -2:
                    return None
                if end == -1:
                    carry, size = data, 2 * size
                    continue
                pos, first = end, False
                non_ascii = not buf[:end].max(initial=0) < 128
            while True:
                status, pos, new_row, n_hard, odd_bytes = kernels.scan_rows(
                    buf, pos, final, sepb, ws, comma, kind, scan.X, row, scan.spans, scan.hard,
                    tokens, lengths, pow5, limit,
                )  # fmt: skip
                non_ascii = non_ascii or odd_bytes
                if status == kernels.ODD:
                    return None
                scan.take(data, row, new_row, n_hard)
                row = new_row
                if status == kernels.DONE:
                    break
                if row == len(scan.X):
                    scan.grow()
            if final:
                break
            carry = data[pos:]
            if pos == 0:  # not one whole record in the chunk: read more at once
                size *= 2
    except UnicodeDecodeError:
        return None  # the row reader raises it, at its place
    finally:
        if fh is not None:
            fh.close()
    if non_ascii and not _valid_utf8(src):
        return None
    X = scan.X[:row]
    if len(scan.X) - row > max(16, row // 16):  # many blank lines: do not keep the spare rows
        X = fresh((row, X.shape[1]))
        X[:] = scan.X[:row]
    return X.view(np.float64), scan.texts, scan.bad


def _exact_tokens(na_values) -> tuple[np.ndarray, np.ndarray]:
    """pandas' missing-value strings (matched exactly, case and all) that are ASCII."""
    kept = sorted({str(t).encode("ascii") for t in na_values if str(t).isascii()})
    lengths = np.array([len(t) for t in kept], dtype=np.int64)
    table = np.zeros((len(kept), max([1, *lengths.tolist()])), dtype=np.uint8)
    for i, t in enumerate(kept):
        table[i, : len(t)] = np.frombuffer(t, dtype=np.uint8)
    return table, lengths


def preview_frame(src, m: int, kwargs: dict):
    """The first rows of a wide text table as ``pandas.read_csv(file, **kwargs)`` reads them
    (``kwargs["nrows"]`` rows, ``m`` columns; the column labels are positions), or None when
    this cannot vouch for it: pandas' C parser then reads them itself.

    pandas spends ~30 µs of per-column work for each of 100,000 columns, however few the rows;
    here the rows are split by :func:`~fsviz.data.formats._wide_kernels.scan_rows`, and a column
    whose cells are all plain integers, plain decimals or missing-value tokens gets the dtype
    pandas gives it (int64 when all are integers, else float64) and its values: the integers'
    (as floats when some cells are missing), else ``float()``'s, which pandas' parser gives for
    such cells (pandas >= 3.1 by default, older ones asked for
    ``float_precision="round_trip"``). pandas reads the other columns (``usecols``)."""
    import pandas as pd

    sep, nrows = kwargs.get("sep"), kwargs.get("nrows")
    plain = (
        kwargs.get("encoding") == "utf-8"
        and kwargs.get("decimal") == "."
        and kwargs.get("thousands") is None
        and kwargs.get("keep_default_na") is False
        and nrows is not None
        and isinstance(sep, str)
        and len(sep) == 1
        and sep.isascii()
        and sep not in '"\r\n\x00'
        and set(kwargs) <= {"sep", "decimal", "thousands", "low_memory", "keep_default_na", "na_values",
                            "engine", "encoding", "nrows", "float_precision"}
    )  # fmt: skip
    if not plain or m < 2 or nrows < 1:
        return None
    kind = -1 - np.arange(m, dtype=np.int64)  # every column's byte ranges
    spans = fresh((nrows, m, 2), np.int64)
    none = np.empty((nrows, 0), dtype=np.uint64)
    no_cells = np.empty((m + 1, 4), dtype=np.int64)
    size, total = 1 << 22, src.size()
    while True:  # enough bytes for the header and the rows (read again, longer, if not)
        data = src.head(size)
        final = len(data) >= total
        buf = np.frombuffer(data, dtype=np.uint8)
        first = kernels.record_end(buf, 3 if data.startswith(_BOM) else 0, final, ord(sep), False)
        if first == -2:
            return None
        if first >= 0 and len(data) < min(total, first * (nrows + 3)):  # rows about as long as the header
            size = first * (nrows + 3)
            continue
        if first >= 0:
            status, _, rows, _, _ = kernels.scan_rows(
                buf, first, final, ord(sep), False, False, kind, none, 0, spans, no_cells,
                *_tokens(frozenset()), _pow5(), csv.field_size_limit(),
            )  # fmt: skip
            if status == kernels.ODD:
                return None
            if rows == nrows or final:
                break
        size *= 4
    if rows == 0:
        return None
    cls = fresh((rows, m), np.int8)
    ints = fresh((rows, m), np.int64)
    floats = fresh((rows, m), np.float64)
    dtypes = np.empty(m, dtype=np.int8)
    tokens, lengths = _exact_tokens(kwargs.get("na_values") or ())
    if not kernels.preview_cells(
        buf, first, spans[:rows], ord(sep), tokens, lengths, _pow5(), ints, floats, cls, dtypes
    ):
        return None
    del cls, spans
    pandas_reads, is_int, is_float = dtypes == 3, dtypes == 1, dtypes == 0
    parts = []
    if is_float.all():
        parts.append(pd.DataFrame(floats, columns=np.arange(m)))
    elif is_float.any():
        parts.append(pd.DataFrame(floats[:, is_float], columns=np.flatnonzero(is_float)))
    if is_int.any():
        parts.append(pd.DataFrame(ints[:, is_int], columns=np.flatnonzero(is_int)))
    if pandas_reads.any():
        at = np.flatnonzero(pandas_reads)
        rest = pd.read_csv(src.handle(), usecols=at.tolist(), **kwargs)
        if rest.shape != (rows, len(at)):
            return None
        rest.columns = at
        parts.append(rest)
    frame = pd.concat(parts, axis=1) if len(parts) > 1 else parts[0]
    return frame.iloc[:, np.argsort(frame.columns.to_numpy(), kind="stable")]
