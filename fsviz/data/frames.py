"""Tables as pandas frames before they become a Dataset: dialect, sheets, orientation, roles.

:func:`read_table` reads a delimited text file (separator, decimal mark and thousands
separator sniffed or given) or a spreadsheet sheet into a DataFrame, transposed when
the file holds features as rows; :func:`apply_roles` then takes the identifier, ignored
and target columns out, as :func:`~fsviz.data.infer_column_roles` says. Both
:func:`~fsviz.data.load_dataset` and :func:`~fsviz.data.inspect_table` use them, so
the app's preview is what the loader does.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fsviz.data.blocks import Carried, carried, drop_columns, take_rows
from fsviz.data.dialect import sniff_dialect
from fsviz.data.plan import DEFAULT_NA
from fsviz.data.validation import names_preview

__all__ = ["RawTable", "apply_roles", "read_table", "suggest_transpose"]

NA_TOKENS = list(DEFAULT_NA)
NA_LOWER = frozenset(t.lower() for t in NA_TOKENS)
_FEATURE_HEADS = frozenset(
    {"", "gene", "genes", "gene_id", "gene_symbol", "symbol", "probe", "probe_id", "probeset", "id_ref",
     "feature", "features", "id", "name", "unnamed: 0", "transcript", "ensembl", "gene_name", "index"}
)  # fmt: skip
_ID_LIKE = re.compile(r"^[A-Za-z][A-Za-z_.\-]*[0-9]+$")


@dataclass
class RawTable:
    """A table as read (after an optional transpose), with how it was read."""

    frame: Any
    fmt: str
    sep: str | None = None
    decimal: str | None = None
    thousands: str | None = None
    encoding: str = "utf-8"
    sheet: str | None = None
    sheets: list = field(default_factory=list)
    transposed: bool = False
    suggest_transpose: bool = False
    transpose_reason: str = ""
    n_rows: int | None = None  # data rows in the file (an upper bound for text), before transposing
    n_columns: int = 0  # columns in the file, before transposing
    complete: bool = True  # every row was read
    notes: list = field(default_factory=list)


def decode_head(raw: bytes) -> tuple[str, str]:
    """``(text, encoding)``: UTF-8 (with or without BOM), else Windows-1252."""
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8"), "utf-8"
    except UnicodeDecodeError as e:
        if e.start >= len(raw) - 4:  # a multi-byte character cut by the head's end
            return raw[: e.start].decode("utf-8"), "utf-8"
    return raw.decode("cp1252", errors="replace"), "cp1252"


def head_text(src, n_lines: int = 30, max_bytes: int = 4 << 20) -> tuple[str, str]:
    """``(text, encoding)`` of the first ``n_lines`` lines (at least the whole header line)."""
    size = src.size()
    want = 1 << 16
    while True:
        raw = src.head(want)
        if raw.count(b"\n") >= n_lines or len(raw) >= size or (want >= max_bytes and b"\n" in raw):
            break
        want *= 4
    return decode_head(raw)


def text_view(src, who: str):
    """``src`` as the table readers should see it: decoded with the plan's encoding, its skipped
    lines (``skip_rows``, the lines above ``header``) and comment lines gone, and a header line
    ``V1,V2,...`` in front when the file has none (``header=None``). The same source when none
    of these applies; else a new in-memory source (UTF-8) with the same name and options."""
    enc = getattr(src, "encoding", "auto")
    header = getattr(src, "header", 0)
    skip = int(getattr(src, "skip_rows", 0) or 0) + int(header or 0)
    comment = getattr(src, "comment", None)
    if enc in ("auto", "utf-8") and not skip and not comment and header is not None:
        return src
    raw = src.bytes()
    if enc == "auto":
        text, used = decode_head(raw)
    else:
        try:
            text, used = raw.decode("utf-8-sig" if enc == "utf-8" else enc), enc
        except UnicodeDecodeError as e:
            raise ValueError(
                f"{who}: the file is not {enc} text ({e.reason} at byte {e.start}). Fix: choose another "
                "encoding (or 'auto')."
            ) from None
    lines = text.splitlines(keepends=True)
    notes = src.notes
    if used != "utf-8":
        notes.append(f"read as {'Windows-1252' if used == 'cp1252' else used} text")
    if comment:
        kept = [ln for ln in lines if not ln.startswith(comment)]
        if len(kept) < len(lines):
            notes.append(f"skipped {len(lines) - len(kept):,} line(s) beginning with {comment!r}")
        lines = kept
    if skip:
        notes.append(f"skipped the first {min(skip, len(lines)):,} line(s)")
        lines = lines[skip:]
    if header is None:
        body = "".join(lines[:30])
        sep = src.sep if src.sep not in ("auto", None) else sniff_dialect(body, allow_whitespace=True)[0]
        sep = r"\s+" if sep in ("whitespace", " ") else sep
        width = max((len(header_fields(ln, sep)) for ln in lines[:30] if ln.strip()), default=0)
        glue = " " if sep == r"\s+" else sep
        lines = [glue.join(f"V{j + 1}" for j in range(width)) + "\n", *lines]
        notes.append(f"no header line: the {width} columns are named V1 .. V{width}")
    from fsviz.data.formats.source import Source

    view = Source("".join(lines).encode("utf-8"))
    view.__dict__.update({k: v for k, v in src.__dict__.items() if k not in ("obj", "path", "_data")})
    view.encoding, view.header, view.skip_rows, view.comment = "utf-8", 0, 0, None
    return view


def header_fields(text: str, sep: str) -> list[str]:
    """The fields of the first line (quoted fields respected)."""
    if not text:
        return []
    if sep == r"\s+":
        return text.splitlines()[0].split()
    return next(csv.reader(io.StringIO(text, newline=""), delimiter=sep), [])  # quoted line breaks too


def name_blank_columns(header: list[str]) -> list[str]:
    """Blank header cells named ``Unnamed: <position>`` (pandas' convention)."""
    return [h if h.strip() != "" else f"Unnamed: {j}" for j, h in enumerate(header)]


def suggest_transpose(frame, n_rows: int | None, header: list[str]) -> tuple[bool, str]:
    """Whether a table holds features as rows (an expression matrix), and why (plain words).

    Suggested when the file has at least five times as many rows as columns, at least
    two value columns, its first column is text with a distinct value in every row read,
    every other column is numeric, and either the first header cell is blank or names
    features (``gene``, ``probe``, ``symbol``, ...) or most other header cells look like
    sample ids (``V1``, ``GSM1234``, ``S01``).
    """
    import pandas as pd

    n_cols = len(header)
    rows = n_rows if n_rows is not None else len(frame)
    if n_cols < 3 or rows < 5 * n_cols:
        return False, ""
    first = frame.iloc[:, 0]
    # names repeat in expression data (probes of one gene): most distinct is enough here, the
    # import plan's duplicates option says what becomes of the repeats
    if first.dtype.kind in "biuf" or first.isna().any() or first.nunique() < 0.9 * len(first):
        return False, ""
    if pd.to_numeric(first.astype(str), errors="coerce").notna().mean() > 0.5:  # numbers read as text
        return False, ""
    rest = frame.iloc[:, 1:]
    numeric = np.array([t.kind in "iuf" for t in rest.dtypes])
    if numeric.mean() < 1.0:
        # a text row (e.g. a "class" row) makes every column text: look at the other rows
        block = rest.astype(str).to_numpy().ravel()
        num = pd.to_numeric(pd.Series(block), errors="coerce").to_numpy()
        ok = ~np.isnan(num) | pd.Series(block).str.strip().str.lower().isin(NA_LOWER).to_numpy()
        bad_rows = (~ok.reshape(rest.shape)).any(axis=1)
        if bad_rows.sum() > max(2, 0.05 * len(rest)):
            return False, ""
    head0 = header[0].strip().lower()
    ids = np.mean([bool(_ID_LIKE.match(h.strip())) for h in header[1:]])
    if head0 not in _FEATURE_HEADS and not head0.startswith("unnamed") and ids < 0.8:
        return False, ""
    return True, (
        f"{rows:,} rows but only {n_cols} columns, the first column holds a distinct name per row "
        "and the other columns are numbers: this looks like features as rows (an expression matrix)"
    )


def _wide_preview(src, header: list[str], sep: str, nrows: int, encoding: str, text_set: set):
    """The first ``nrows`` rows of a very wide text table, built as one float block plus the
    text columns (no per-column parsing; values parsed by pandas' C converter, not exact)."""
    import pandas as pd

    text, _ = head_text(src, n_lines=nrows + 1, max_bytes=1 << 30)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep)
    next(reader, None)
    rows = []
    for fields in reader:
        if len(rows) >= nrows:
            break
        if not fields or (len(fields) == 1 and not fields[0].strip()):
            continue
        if len(fields) != len(header):
            raise ValueError(
                f"row {len(rows)} has {len(fields)} fields but the header has {len(header)}"
            )  # becomes "could not read ... as CSV" with the separator hint
        rows.append(fields)
    if not rows:
        return pd.DataFrame(columns=header)
    cells = np.array(rows, dtype=object)
    flat = pd.Series(cells.ravel()).str.strip()
    na = flat.str.lower().isin(NA_LOWER).to_numpy().reshape(cells.shape)
    num = pd.to_numeric(flat.where(~flat.str.lower().isin(NA_LOWER)), errors="coerce").to_numpy(
        dtype=np.float64
    )
    num = num.reshape(cells.shape)
    text_cols = (np.isnan(num) & ~na).any(axis=0)
    for j, h in enumerate(header):
        if h in text_set:
            text_cols[j] = True
    frame = pd.DataFrame(
        num[:, ~text_cols], columns=[h for h, t in zip(header, text_cols, strict=True) if not t]
    )
    for j in np.flatnonzero(text_cols):
        col = np.where(na[:, j] & (header[j] not in text_set), None, cells[:, j]).astype(object)
        frame.insert(int(j), header[j], col)
    return frame


def _count_data_lines(src) -> int:
    if src.path is None:
        return max(src.bytes().count(b"\n") - 1, 0) + (0 if src.bytes().endswith(b"\n") else 1)
    n = 0
    last = b"\n"
    with open(src.path, "rb") as fh:
        while chunk := fh.read(1 << 24):
            n += chunk.count(b"\n")
            last = chunk[-1:]
    return max(n - 1 + (0 if last == b"\n" else 1), 0)


def _transpose(frame, who: str, duplicates: str = "error"):
    """Features as rows -> samples as rows: first column = feature names, header = sample names.

    Repeated feature names follow ``duplicates``: a ValueError, suffixes, or (``"mean"``)
    suffixes now and their columns averaged once the features are numbers
    (``frame.attrs["base_names"]``, see :func:`merge_duplicate_features`)."""
    import pandas as pd

    names = frame.iloc[:, 0].astype(str).str.strip().tolist()
    seen, dups = set(), []
    for nm in names:
        if nm in seen and nm not in dups:
            dups.append(nm)
        seen.add(nm)
    base = None
    if dups:
        if duplicates == "error":
            raise ValueError(
                f"{who}: read as features in rows, the first column must name each feature once; "
                f"{len(dups):,} repeat: {names_preview(dups)}. Fix: average each name's rows "
                "(duplicates='mean', for probes of one gene), keep them apart with suffixes "
                "(duplicates='suffix'), or read the table as it is (transpose=False)."
            )
        unique = unique_names(names)
        base = dict(zip(unique, names, strict=True)) if duplicates == "mean" else None
        names = unique
    body = frame.iloc[:, 1:]
    samples = [str(c) for c in body.columns]
    if all(t.kind in "biuf" for t in body.dtypes):
        values = body.to_numpy(dtype=np.float64).T
        out = pd.DataFrame(values, columns=names, index=None)
    else:
        block = body.to_numpy(dtype=object)
        text = (
            np.array(
                [
                    ["" if v is None or (isinstance(v, float) and np.isnan(v)) else str(v) for v in row]
                    for row in block
                ],
                dtype=object,
            )
            if block.size <= 2_000_000
            else block.astype(str)
        )
        stripped = pd.Series(text.ravel()).str.strip()
        na = stripped.str.lower().isin(NA_LOWER).to_numpy().reshape(text.shape)
        num = pd.to_numeric(stripped, errors="coerce").to_numpy().reshape(text.shape)
        text_rows = (np.isnan(num) & ~na).any(axis=1)
        cols = {}
        for i in np.flatnonzero(text_rows):  # label rows: few
            vals = np.where(na[i], None, text[i]).astype(object)
            cols[i] = vals
        exact = np.where(na, "nan", text)
        exact[text_rows] = "nan"
        values = exact.astype(np.float64)  # Python float(): the exact double of each string
        out = pd.DataFrame(values.T, columns=names)
        for i, vals in cols.items():
            out[names[i]] = pd.Series(vals, dtype=object)
    if base is not None:
        out.attrs["base_names"] = Carried(base)
    return out, samples


def read_table(
    src,
    fmt: str,
    *,
    sep: str = "auto",
    decimal: str = "auto",
    sheet=None,
    transpose: bool | str = False,
    nrows: int | None = None,
    text_columns: tuple = (),
    exact: bool = True,
    read_rows=None,
    who: str,
) -> RawTable:
    """Read a delimited text file or a spreadsheet sheet into a :class:`RawTable`.

    ``nrows``: read at most this many data rows (a preview). ``text_columns``: column
    names to read as text (label and id-like columns, so ``007`` stays ``007``).
    ``transpose``: True, False or "auto" (apply :func:`suggest_transpose`).
    ``exact``: parse floats to the exact double of their text (slower; previews need not).
    ``read_rows``: a text file's frame as ``pandas.read_csv(file, **kwargs)`` reads it, given
    those ``kwargs`` (None: it cannot, pandas reads it); the wide reader's (100,000 columns
    cost pandas seconds of per-column work even for 50 rows).
    """
    if fmt in ("xlsx", "xls", "ods", "excel"):
        return _read_sheet(src, fmt, sheet=sheet, transpose=transpose, nrows=nrows, who=who)
    return _read_text(
        src,
        fmt,
        sep=sep,
        decimal=decimal,
        transpose=transpose,
        nrows=nrows,
        text_columns=text_columns,
        exact=exact,
        read_rows=read_rows,
        who=who,
    )


def _read_sheet(src, fmt, *, sheet, transpose, nrows, who) -> RawTable:
    from fsviz.data.formats.spreadsheet import read_sheet

    frame, name, sheets = read_sheet(
        src.handle(),
        sheet,
        nrows=None if transpose else nrows,
        who=who,
        budget=getattr(src, "budget", None),
        sandbox=getattr(src, "sandbox", False),
    )
    frame = frame.dropna(axis=0, how="all")  # blank rows at the end of a sheet
    frame.index = range(len(frame))
    raw = RawTable(
        frame=frame, fmt=fmt, sheet=name, sheets=sheets, n_rows=len(frame), n_columns=frame.shape[1]
    )
    raw.complete = nrows is None or transpose is not False or len(frame) < nrows
    header = [str(c) for c in frame.columns]
    raw.suggest_transpose, raw.transpose_reason = suggest_transpose(frame, len(frame), header)
    if transpose is True or (transpose == "auto" and raw.suggest_transpose):
        raw.frame, samples = _transpose(frame, who, getattr(src, "duplicates", "error"))
        raw.frame.attrs["sample_names"] = Carried(samples)
        raw.frame.attrs["sample_header"] = header[0]
        raw.transposed = True
        if nrows is not None:
            raw.frame = raw.frame.iloc[: int(nrows)]
    return raw


def _read_text(src, fmt, *, sep, decimal, transpose, nrows, text_columns, exact, read_rows, who) -> RawTable:
    import pandas as pd

    from fsviz.data.formats.source import exact_floats, parse_error

    src = text_view(src, who)
    text, encoding = head_text(src)
    notes = []
    if encoding != "utf-8":
        notes.append("read as Windows-1252 text (the file is not UTF-8)")
    s_sep, s_dec, s_th = sniff_dialect(text, allow_whitespace=fmt in ("txt",))
    if sep == "auto" or sep is None:
        sep = "\t" if fmt == "tsv" else s_sep
    elif sep in ("whitespace", " "):
        sep = r"\s+"
    if decimal == "auto" or decimal is None:
        decimal = s_dec if sep != "," else "."
    if decimal == sep:
        raise ValueError(
            f"{who}: the decimal mark and the separator are both {sep!r}. Fix: choose another separator "
            "(e.g. ';') or decimal mark."
        )
    thousands = s_th if s_th not in (decimal, sep) else None
    header = header_fields(text, sep)
    if not header or all(h.strip() == "" for h in header):
        raise ValueError(
            f"{who}: the first line (header) is empty. Fix: put the column names on the first line."
        )
    if len(header) == 1 and sep != r"\s+" and src.size() > 0:
        pass  # a single column (e.g. only a label): fine
    header = name_blank_columns(header)
    seen, dups = set(), []
    for h in header:
        if h in seen and h not in dups:
            dups.append(h)
        seen.add(h)
    base_names = None
    if dups:
        original = list(header)
        header = _duplicate_names(header, dups, getattr(src, "duplicates", "error"), who)
        if getattr(src, "duplicates", "error") == "mean":
            base_names = dict(zip(header, original, strict=True))
    if nrows is not None and src.size() > (16 << 20):  # a preview of a big file: estimate the rows
        lines = text.splitlines()
        per_line = max(1, len(text.encode(encoding, errors="replace")) // max(len(lines), 1))
        n_rows = max(int(src.size() // per_line) - 1, 1)
    else:
        n_rows = _count_data_lines(src)
    if transpose == "auto" and n_rows < 5 * len(header):
        transpose = False  # suggest_transpose wants rows >= 5 x columns: a wide table reads as it is
    transposing = transpose is not False
    text_set = set(text_columns) & set(header)
    if transpose is True:  # feature names, even numeric ones; "auto" transposes text names only
        text_set |= {header[0]}
    # NA tokens count in every column (a list: per-column dicts cost seconds on wide files);
    # label and id-like columns are read again as plain text below (a class may be "NA")
    kwargs = dict(
        sep=sep,
        decimal=decimal,
        thousands=thousands,
        low_memory=False,
        keep_default_na=False,
        na_values=list(getattr(src, "na_values", NA_TOKENS)),
        engine="c",
        encoding=encoding,
        **(exact_floats() if exact else {}),
    )
    if nrows is not None and transpose is False:
        kwargs["nrows"] = int(nrows)
    fast = (
        not exact
        and len(header) > 2000
        and transpose is False
        and nrows is not None
        and sep != r"\s+"
        and decimal == "."
        and thousands is None
    )
    try:
        if fast:  # a preview of a very wide file: pandas' per-column overhead dominates (seconds)
            frame = _wide_preview(src, header, sep, int(nrows), encoding, text_set)
        else:
            frame = read_rows(kwargs) if read_rows is not None else None
            if frame is None:
                frame = pd.read_csv(src.handle(), **kwargs)
        if not fast and text_set and len(frame.columns) == len(header):
            positions = [j for j, h in enumerate(header) if h in text_set]
            text = pd.read_csv(
                src.handle(),
                sep=sep,
                usecols=positions,
                dtype=str,
                keep_default_na=False,
                na_values=[""],
                engine="c",
                encoding=encoding,
                **({"nrows": kwargs["nrows"]} if "nrows" in kwargs else {}),
            )
            for j, c in zip(positions, text.columns, strict=True):
                frame.isetitem(j, text[c].to_numpy(dtype=object))
    except pd.errors.EmptyDataError as e:
        raise ValueError(f"{who} holds no data (empty). Fix: choose a file with a header and rows.") from e
    except Exception as e:  # parser errors, decoding errors, ...
        shown = {"\t": "tab", r"\s+": "whitespace"}.get(sep, sep)
        raise parse_error(
            src,
            fmt.upper(),
            e,
            f"check the separator (read with {shown!r}; choose it under Separator / pass sep=), that every "
            "row has as many fields as the header, and the encoding (UTF-8).",
        ) from e
    if not frame.index.equals(pd.RangeIndex(len(frame))):  # pandas makes extra leading fields an index
        raise ValueError(
            f"{who}: some rows have more fields than the header ({len(header)} names); the parser "
            "would shift their values into the wrong columns. Fix: make every row have one field "
            "per column name (check the separator, and quote fields that contain it)."
        )
    if len(frame.columns) != len(header):
        raise ValueError(
            f"{who}: the header has {len(header)} fields but the rows parsed into "
            f"{len(frame.columns)} columns. Fix: make every row have one field per column name "
            "(check the separator)."
        )
    frame.columns = header
    if base_names is not None:
        frame.attrs["base_names"] = Carried(base_names)
    if frame.shape[1] > 500:  # the parser gives one block per column: one copy makes column slices fast
        frame = frame.copy()
    raw = RawTable(
        frame=frame, fmt=fmt, sep=sep, decimal=decimal, thousands=thousands, encoding=encoding,
        n_rows=n_rows, n_columns=len(header), notes=notes,
    )  # fmt: skip
    raw.complete = nrows is None or transposing or len(frame) >= n_rows
    raw.suggest_transpose, raw.transpose_reason = suggest_transpose(frame, n_rows, header)
    if transpose is True or (transpose == "auto" and raw.suggest_transpose):
        raw.frame, samples = _transpose(frame, who, getattr(src, "duplicates", "error"))
        raw.frame.attrs["sample_names"] = Carried(samples)
        raw.frame.attrs["sample_header"] = header[0]
        raw.transposed = True
        if nrows is not None:
            raw.frame = raw.frame.iloc[: int(nrows)]
    return raw


def _looks_numeric(names: list[str], na=NA_LOWER) -> bool:
    """Every name a number or a missing-value marker: a line of data, not of names."""
    for v in names:
        if v.strip().lower() in na:
            continue
        try:
            float(v)
        except ValueError:
            return False
    return True


def detect_header(text: str, sep: str, na=NA_LOWER) -> tuple[bool, str]:
    """Whether the first line names the columns, and why not (plain words) when it does not.

    The first line is data when, in every column whose other values are numbers, it holds a
    number too (or a missing-value marker), and either its values repeat (names never do) or
    most of them lie within the range of their column (wavelengths 400..700 over absorbances
    0..2 are names; 3 over 1..10 is a value).
    """
    lines = [ln for ln in text.splitlines()[:60] if ln.strip()]
    if len(lines) < 3:
        return True, ""
    rows = [header_fields(ln, sep) for ln in lines]
    first, body = rows[0], [r for r in rows[1:] if len(r) == len(rows[0])]
    if len(body) < 2 or len(first) < 2:
        return True, ""

    def num(v: str):
        v = v.strip()
        if v.lower() in na:
            return np.nan
        try:
            return float(v.replace(",", ".")) if v.count(",") == 1 and "." not in v else float(v)
        except ValueError:
            return None

    cols = list(zip(*body, strict=True))
    numeric_cols, inside = 0, 0
    for j, col in enumerate(cols):
        vals = [num(v) for v in col]
        if any(v is None for v in vals):
            continue  # a text column: its first cell says nothing
        numeric_cols += 1
        v0 = num(first[j])
        if v0 is None:
            return True, ""  # a name over a column of numbers
        finite = [v for v in vals if v == v]
        if v0 != v0 or (finite and min(finite) <= v0 <= max(finite)):
            inside += 1
    if numeric_cols == 0:
        return True, ""
    repeats = len(set(first)) < len(first)
    if repeats or inside >= 0.8 * numeric_cols:
        return False, (
            "the first line holds values like the lines below it (numbers in the numeric columns"
            + (", some repeated" if repeats else ", within each column's range")
            + "): it is data, not column names"
        )
    return True, ""


def _duplicate_names(header: list[str], dups: list[str], policy: str, who: str) -> list[str]:
    """Header names made unique by ``duplicates`` (``"suffix"``, or ``"mean"``: suffixed here,
    averaged later), or the ValueError that names them and the fixes."""
    if policy == "error":
        hint = (
            " The first line holds numbers, which looks like data, not names: read it without a header "
            "('First row is a header' off / header=None)."
            if _looks_numeric(header)
            else ""
        )
        raise ValueError(
            f"{who}: duplicated column name(s) {names_preview(dups)}. Column names must be unique.{hint} "
            "Fix: make them unique with suffixes (duplicates='suffix'), average them (duplicates='mean'), "
            "or rename them."
        )
    return unique_names(header)


def unique_names(names: list[str]) -> list[str]:
    """Repeated names made unique as pandas does: ``a``, ``a.1``, ``a.2`` (never clashing)."""
    taken, out, count = set(names), [], {}
    for nm in names:
        if nm not in count:
            count[nm] = 0
            out.append(nm)
            continue
        k = count[nm] + 1
        while f"{nm}.{k}" in taken:
            k += 1
        count[nm] = k
        taken.add(f"{nm}.{k}")
        out.append(f"{nm}.{k}")
    return out


def merge_duplicate_features(X, names, policy: str, who: str):
    """Features with repeated names (probes of one gene): ``(X, names, note)`` after ``policy``.

    ``"error"``: a ValueError naming them and the fixes; ``"suffix"``: ``TP53``, ``TP53.1``;
    ``"mean"``: each name's columns averaged into one (order of first appearance).
    """
    import pandas as pd

    names = np.asarray(names, dtype=object)
    codes, uniques = pd.factorize(pd.Series(names, dtype=object), sort=False)
    if len(uniques) == len(names):
        return X, names, ""
    counts = np.bincount(codes)
    dups = [str(uniques[k]) for k in np.flatnonzero(counts > 1)]
    n_extra = int(len(names) - len(uniques))
    if policy == "error":
        raise ValueError(
            f"{who}: {len(dups):,} feature name(s) repeat ({names_preview(dups)}; {n_extra:,} extra "
            "columns). "
            "Fix: average each name's values (duplicates='mean', for probes of one gene) or keep them apart "
            "with suffixes (duplicates='suffix')."
        )
    if policy == "suffix":
        return (
            X,
            np.array(unique_names([str(n) for n in names]), dtype=object),
            (f"{len(dups):,} repeated feature name(s) made unique with suffixes (e.g. {dups[0]!r}.1)"),
        )
    import scipy.sparse as sp

    M = sp.csr_matrix((1.0 / counts[codes], (np.arange(len(names)), codes)), shape=(len(names), len(uniques)))
    out = (M.T @ X.T).T if not sp.issparse(X) else (X @ M)
    out = np.ascontiguousarray(out) if not sp.issparse(out) else out.tocsc()
    if not sp.issparse(out):
        out.setflags(write=False)
    return (
        out,
        np.asarray(uniques, dtype=object),
        (f"{len(dups):,} repeated feature name(s) averaged ({n_extra:,} columns merged; e.g. {dups[0]!r})"),
    )


def apply_roles(
    frame,
    label,
    *,
    id_columns="auto",
    ignore=None,
    missing_target: str = "error",
    types: dict | None = None,
    dates: str = "ignore",
    covariates=None,
    who: str,
    stats: dict | None = None,
) -> dict:
    """Take identifier, ignored, covariate and target columns out of a frame, as the roles say.

    Returns a dict: ``frame`` (features and the target column), ``label`` (the target
    column's name or None), ``sample_names`` (array or None), ``covariates`` (name -> the
    column's values, rows as in ``frame``), ``meta`` (``ignored``, ``id_columns``,
    ``dropped_rows``) and ``notes``. ``stats``: the :func:`~fsviz.data.roles.column_stats` of
    ``frame`` computed when it was parsed.
    """
    import pandas as pd

    from fsviz.data.roles import role_decisions

    try:  # the decisions as arrays: no record per column (100,000 of them cost ~0.5 s)
        d = role_decisions(frame, label, id_columns, ignore, types, dates, covariates, stats=stats)
    except ValueError as e:  # name the file, not the helper
        raise ValueError(str(e).replace("infer_column_roles", who, 1)) from None
    names, role, reason = d["names"], d["role"], d["reason"]
    notes, meta = [], {}
    ignored = {names[j]: str(reason[j]) for j in np.flatnonzero(role == "ignored")}
    id_at = np.flatnonzero(role == "identifier")
    ids = [names[j] for j in id_at]
    at = np.flatnonzero(role == "target")
    target = names[at[0]] if len(at) else None
    if ignored:
        meta["ignored"] = ignored
        empty = [nm for nm, why in ignored.items() if why == "all empty"]
        if empty:
            notes.append(f"ignored {len(empty)} all-empty column(s) {names_preview(empty)}")
        chosen = [nm for nm, why in ignored.items() if why == "ignored by choice"]
        if chosen:
            notes.append(f"ignored column(s) {names_preview(chosen)} as asked")
        by_type: dict[str, list] = {}
        for nm, why in ignored.items():
            if why not in ("all empty", "ignored by choice"):
                by_type.setdefault(why, []).append(nm)
        for why, cols in by_type.items():
            notes.append(f"left out {names_preview(cols)}: {why}")
    sample_names = carried(frame, "sample_names")
    if sample_names is not None:
        sample_names = np.array([str(v) for v in sample_names], dtype=object)
        meta["id_column"] = "sample"  # the header's cell above the feature names names the features
    if ids:
        meta["id_columns"] = ids
        n_unique, n_missing = d["stats"]["n_unique"], d["stats"]["n_missing"]
        unique = [names[j] for j in id_at if n_unique[j] == len(frame) and not n_missing[j]]
        main = unique[0] if unique else ids[0]
        col = frame[main]
        sample_names = np.array(
            ["" if pd.isna(v) else str(v) for v in col.to_numpy(dtype=object)], dtype=object
        )
        meta["id_column"] = main
        notes.append(
            f"kept identifier column(s) {names_preview(ids)} out of the features (sample names: {main!r})"
        )
    covs = [names[j] for j in np.flatnonzero(role == "covariate")]
    drop = list(ignored) + ids + covs
    out = drop_columns(frame, drop)
    if target is not None:
        col = out[target]
        miss = np.array(col.isna().to_numpy(), dtype=bool)
        if col.dtype.kind not in "biuf":
            miss |= col.astype(str).str.strip().eq("").to_numpy()
        if miss.any():
            rows = np.flatnonzero(miss)
            if missing_target == "error":
                raise ValueError(
                    f"{who}: {len(rows)} missing label(s) at rows {names_preview(rows.tolist())} of the "
                    f"target column {target!r}. Fix: drop those rows (Rows without a target: drop / "
                    'missing_target="drop"), fill them in, or choose another target.'
                )
            keep = ~miss
            out = take_rows(out, keep)
            if sample_names is not None:
                sample_names = sample_names[keep]
            meta["dropped_rows"] = {"reason": f"missing target {target!r}", "rows": rows.tolist()}
            notes.append(f"dropped {len(rows)} row(s) without a value in the target column {target!r}")
    kept = meta.get("dropped_rows") is None
    values = {c: frame[c].to_numpy() if kept else frame[c].to_numpy()[keep] for c in covs}
    return {
        "covariates": values,
        "frame": out,
        "label": target,
        "sample_names": sample_names,
        "meta": meta,
        "notes": notes,
    }
