"""CSV, TSV and text tables, and spreadsheets (.xlsx/.xls/.ods) read through the same table path.

Very wide files (more than ``_WIDE_COLUMNS`` columns) are read from their bytes
(:mod:`fsviz.data.formats.wide`). Written by :meth:`Dataset.to_csv`. Each reader is split in two
(:mod:`fsviz.data.parsed`): ``parse_*`` reads the file once with no role decided, and
:func:`assemble_table` applies the plan's roles and target to what was parsed.
"""

from __future__ import annotations

import csv
import io

import numpy as np

from fsviz.data.blocks import remember_fills, share_floats, shared_features
from fsviz.data.budget import dense_bytes
from fsviz.data.covariates import keep_covariates
from fsviz.data.dialect import sniff_dialect
from fsviz.data.formats.registry import Reader
from fsviz.data.formats.source import (
    LABEL_CANDIDATES,
    NA_LOWER,
    Source,
    readonly,
    sniff_text_format,
    suffixes_of,
)
from fsviz.data.formats.wide import assemble_wide, label_position, labels_from_strings, parse_wide_rows
from fsviz.data.formats.wide_scan import preview_frame
from fsviz.data.frames import apply_roles, head_text, header_fields, name_blank_columns, read_table, text_view
from fsviz.data.roles import DATE_VALUE, id_named_mask, parsed_stats, target_worded


def _header_fields(src: Source, sep: str) -> list[str]:
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


def _frame_to_parts(df, label, src: Source, fmt: str, *, labels_as_text: bool) -> dict:
    import pandas as pd

    from fsviz.data.blocks import c_order, drop_columns, shared_fills

    who = f"load_dataset: {src.label}"
    columns = [str(c) for c in df.columns.tolist()]
    df.columns = pd.Index(columns, dtype=object)  # iterating a str-dtype index costs ~0.1 s a pass at width

    def non_numeric(k: int) -> bool:
        col = df.iloc[:, k]
        if col.dtype.kind in "biuf":
            return False
        return bool(pd.to_numeric(col, errors="coerce").isna().any())

    pos = label_position(columns, label, src, fmt, non_numeric)
    y = None
    label_column = None
    if pos is not None:
        label_column = columns[pos]
        col = df.iloc[:, pos]
        if col.dtype.kind in "biuf":
            y = col.to_numpy()
        elif labels_as_text:
            y = labels_from_strings(col.to_numpy(dtype=object), who)
        else:
            y = col.to_numpy(dtype=object)
        df = drop_columns(df, [label_column])
    onehot = getattr(src, "categorical", "error") == "onehot"
    kinds = getattr(src, "types", None) or {}
    bad = []
    categorical = {}  # column -> its raw values, one-hot encoded below
    stray_notes = []
    # numeric columns need nothing here: only the others (and forced categories) are looked at,
    # one by one (a column lookup per feature cost seconds on 100,000 columns)
    look = [c for c, t in zip(df.columns, df.dtypes, strict=True) if t.kind not in "biuf" or kinds.get(c)]
    for c in look:
        s = df[c]
        kind = kinds.get(c)
        if kind == "category":
            categorical[c] = s.astype(object)
            continue
        if s.dtype.kind in "biuf":
            continue
        if s.dtype.kind in "mM" or kind == "date" or _all_dates(s):  # read as days (dates="number")
            df[c] = _days(s, c, who)
            continue
        if s.dtype.kind == "c":
            bad.append((c, str(s.iloc[0]), 0))
            continue
        s = s.astype(object) if isinstance(s.dtype, pd.CategoricalDtype) else s
        coerced = pd.to_numeric(s, errors="coerce")
        holes = coerced.isna() & ~s.isna()
        if holes.any():
            tokens = s[holes].astype(str).str.strip()
            na_like = tokens.str.lower().isin(sorted(src.na_lower))
            stray = tokens[~na_like]
            if len(stray):
                n_values = int(s.notna().sum())
                if kind == "number" or (
                    kind is None and n_values >= 10 and len(stray) <= max(2, 0.05 * n_values)
                ):  # a column of numbers with a few stray text cells: those cells are missing
                    rows = np.flatnonzero(holes.to_numpy())[np.flatnonzero((~na_like).to_numpy())]
                    stray_notes.append(
                        f"column {c!r}: {len(stray)} text cell(s) read as missing "
                        f"({', '.join(repr(v) for v in stray.iloc[:3])} at row(s) {rows[:3].tolist()})"
                    )
                    df[c] = coerced.astype(np.float64)
                    continue
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
    owned = True
    parts_fills = None
    if not categorical:
        shared = None if look else shared_features(df)  # the parsed float block: no copy
        if shared is not None:
            X, owned = shared
            known = shared_fills(df)
            if known is not None:  # valid for this very X only (build_dataset checks identity)
                parts_fills = {"strategy": known[0], "values": known[1], "X": X}
        else:
            X = c_order(df.to_numpy(dtype=np.float64)) if len(df.columns) else np.empty((len(df), 0))
        names = list(df.columns)
        parts_extra = {}
    else:
        blocks, names, groups, cat_missing = [], [], {}, {}
        columns = list(df.columns)
        cuts = [j for j, c in enumerate(columns) if c in categorical]
        start = 0
        for j in [*cuts, len(columns)]:
            if j > start:  # the numeric columns between two categorical ones, as one block
                blocks.append(df.iloc[:, start:j].to_numpy(dtype=np.float64))
                names.extend(columns[start:j])
            if j == len(columns):
                break
            c = columns[j]
            # a missing category is its own column: never silently all zeros
            block, block_names, n_miss = _onehot(categorical[c], c, True, src.na_lower)
            blocks.append(block)
            groups[c] = block_names
            names.extend(block_names)
            if n_miss:
                cat_missing[c] = n_miss
            start = j + 1
        X = np.hstack(blocks) if blocks else np.empty((len(df), 0))
        parts_extra = {"categorical": groups, "categorical_missing": cat_missing}
    X = readonly(np.ascontiguousarray(X))
    if parts_fills is not None:
        parts_fills["X"] = X  # the same values (a contiguous copy at most)
    return {
        "X": X,
        "y": y,
        "feature_names": np.array(names, dtype=object),
        "label_column": label_column,
        "format": fmt,
        "stray_notes": stray_notes,
        "owned": owned,  # X nothing else holds: missing values are filled in place (never the parsed block)
        "fills": parts_fills,
        **parts_extra,
    }


def _all_dates(s) -> bool:
    """A text column whose cells are all dates or times (the roles' rule, on every cell)."""

    vals = s.dropna().astype(str).str.strip()
    vals = vals[vals != ""]
    return bool(len(vals)) and bool(vals.str.fullmatch(DATE_VALUE).all())


def _days(s, column: str, who: str):
    """A date or time column as days since 1970-01-01 (fractional for times; missing stays NaN)."""
    import pandas as pd

    when = s if s.dtype.kind in "mM" else pd.to_datetime(s, errors="coerce", format="mixed", dayfirst=False)
    bad = when.isna() & s.notna() & (s.astype(str).str.strip() != "")
    if bad.any():
        raise ValueError(
            f"{who}: column {column!r} was read as dates, but {int(bad.sum())} cell(s) are not dates "
            f"(e.g. {str(s[bad].iloc[0])!r}). Fix: set its type to text (left out) or number."
        )
    if getattr(when.dt, "tz", None) is not None:
        when = when.dt.tz_convert(None)
    return (when - pd.Timestamp("1970-01-01")).dt.total_seconds().to_numpy(dtype=np.float64) / 86400.0


def _onehot(s, column: str, indicator: bool, na_lower=NA_LOWER) -> tuple[np.ndarray, list[str], int]:
    """One 0/1 column per distinct value of ``s`` (as str, sorted), named ``column=value``.

    Missing cells (null, NaN or an NA token) are all zeros, or 1 in a last
    ``column=missing`` column when ``indicator``. Returns ``(block, names, n_missing)``.
    """
    import pandas as pd

    vals = s.to_numpy(dtype=object)
    miss = np.array([bool(pd.isna(v)) or str(v).strip().lower() in na_lower for v in vals], dtype=bool)
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


_WIDE_COLUMNS = 10_000


def _count_lines(src: Source) -> int:
    """Lines in the file (an upper bound on the rows), counted in 16 MiB chunks."""
    if src.path is None:
        return src.bytes().count(b"\n") + 1
    n = 1
    with open(src.path, "rb") as fh:
        while chunk := fh.read(1 << 24):
            n += chunk.count(b"\n")
    return n


def _wide_rows(src: Source, sep: str):
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


def text_columns_of(header: list[str], label) -> tuple:
    """Columns read as text: the label (given or named like one) and id-like columns."""

    header = [str(h) for h in header]
    candidate = np.array([h.strip().lower() in LABEL_CANDIDATES for h in header], dtype=bool)
    candidate |= id_named_mask(header) | target_worded(header)
    out = [header[j] for j in np.flatnonzero(candidate)]
    if isinstance(label, str) and label != "auto" and label in header:
        out.append(label)
    elif (
        isinstance(label, (int, np.integer))
        and not isinstance(label, bool)
        and -len(header) <= label < len(header)
    ):
        out.append(header[int(label)])
    return tuple(out)


def table_parts(src: Source, fmt: str, raw, label, *, labels_as_text: bool = True, stats=None) -> dict:
    """Roles applied to a read table, then the features and labels as parts for _assemble.
    ``stats``: :func:`parsed_stats` of the table as parsed (used when the shape still matches)."""

    who = f"load_dataset: {src.label}"
    frame = raw.frame
    if frame.shape[1] == 0:
        raise ValueError(f"{who} has no columns. Fix: choose a file that holds data.")
    if len(frame) == 0:
        raise ValueError(f"{who} has no data rows (only a header?). Fix: choose a file with samples.")
    names = [str(c) for c in frame.columns.tolist()]
    if isinstance(label, str) and label != "auto" and label not in names:
        label_position(names, label, src, fmt)  # raises with the columns
    columns = set(names)
    roles = apply_roles(
        frame,
        label,
        id_columns=src.id_columns,
        ignore=src.ignore,
        missing_target=src.missing_target,
        types=src.types,
        dates=src.dates,
        covariates=[c for c in (src.plan.covariates or ()) if c in columns],  # else an annotation's
        who=who,
        stats=stats["stats"] if stats is not None and stats["shape"] == frame.shape else None,
    )
    from fsviz.data.blocks import carried

    base = carried(frame, "base_names")
    parts = _frame_to_parts(roles["frame"], roles["label"], src, fmt, labels_as_text=labels_as_text)
    if base:  # duplicates="mean": the suffixed copies of a name averaged into one feature
        from fsviz.data.frames import merge_duplicate_features

        originals = [base.get(str(n), str(n)) for n in parts["feature_names"]]
        parts["X"], parts["feature_names"], note = merge_duplicate_features(
            parts["X"], originals, "mean", who
        )
        raw.notes.append(note)
    meta = dict(roles["meta"])
    if raw.sep is not None:
        meta["dialect"] = {"sep": raw.sep, "decimal": raw.decimal, "thousands": raw.thousands}
    if raw.sheet is not None:
        meta["sheet"] = raw.sheet
    if raw.transposed:
        meta["transposed"] = True
    parts["table_meta"] = meta
    parts["notes"] = list(raw.notes) + roles["notes"] + parts.pop("stray_notes", [])
    parts["sample_names"] = roles["sample_names"]
    keep_covariates(parts, roles["covariates"])
    return parts


def parse_delimited(src: Source, fmt: str) -> dict:
    """A delimited text table parsed once, with no role decided (:func:`assemble_table` decides them).

    The payload: ``{"kind": "table", "fmt", "raw"}`` (a :class:`~fsviz.data.frames.RawTable`; the
    label-like and id-like columns read as text, whatever the target), ``{"kind": "wide", ...}``
    (more than ``_WIDE_COLUMNS`` columns: a C-ordered float block of the numeric columns and the
    text columns' cells) or ``{"kind": "svmlight", "parts"}`` (a ``.txt`` holding LIBSVM lines).
    """
    from fsviz.data.formats.svmlight import parse_svmlight

    who = f"load_dataset: {src.label}"
    if fmt == "txt":
        sniffed = sniff_text_format(src.head(1 << 16))
        if sniffed == "svmlight":
            return {"kind": "svmlight", "parts": parse_svmlight(src)}
        fmt = sniffed if sniffed in ("csv", "tsv") else "txt"
    src = text_view(src, who)
    text, _ = head_text(src)
    sep = src.sep
    if sep in ("auto", None):
        sep = "\t" if fmt == "tsv" else sniff_dialect(text, allow_whitespace=fmt == "txt")[0]
    elif sep in ("whitespace", " "):
        sep = r"\s+"
    header = name_blank_columns(header_fields(text, sep)) if text.strip() else []
    if header and len(header) > _WIDE_COLUMNS and src.transpose is False:
        return parse_wide(src, fmt, sep, header)
    if header:
        rows = max(_count_lines(src) - 1, 1)  # minus the header
        src.check(dense_bytes(rows, len(header)), f"{rows:,} rows x {len(header):,} columns of CSV data")
    raw = read_table(
        src,
        fmt,
        sep=sep,
        decimal=src.decimal,
        transpose=src.transpose,
        text_columns=text_columns_of(header, "auto"),
        who=who,
    )
    raw.frame = share_floats(raw.frame)
    remember_fills(raw.frame, src.missing)
    return {"kind": "table", "fmt": fmt, "raw": raw, "stats": parsed_stats(raw.frame)}


def assemble_table(src: Source, fmt: str, parsed: dict, label) -> dict:
    """The raw parts of a parsed table (:func:`parse_delimited`, :func:`parse_sheet`) under the
    plan's roles and target (``src``'s plan): the parsed payload is never modified."""
    import dataclasses

    from fsviz.data.formats.svmlight import svmlight_parts

    kind = parsed["kind"]
    if kind == "svmlight":
        return svmlight_parts(src, parsed["parts"], label)
    if kind == "wide":
        return assemble_wide(src, parsed, label)
    raw = parsed["raw"]  # a shallow copy: pandas' copy-on-write keeps the parsed frame as it is
    raw = dataclasses.replace(raw, frame=raw.frame.copy(deep=False), notes=list(raw.notes))
    return table_parts(src, parsed["fmt"], raw, label, stats=parsed.get("stats"))


def _load_delimited(src: Source, fmt: str, label) -> dict:
    return assemble_table(src, fmt, parse_delimited(src, fmt), label)


def parse_wide(src: Source, fmt: str, sep: str, header: list[str]) -> dict:
    """More columns than pandas reads well: the first rows tell the text columns, then the file's
    bytes are scanned into one float block (row by row in Python where the scan cannot vouch)."""
    who = f"load_dataset: {src.label}"
    rows = max(_count_lines(src) - 1, 1)
    src.check(dense_bytes(rows, len(header)), f"{rows:,} rows x {len(header):,} columns of CSV data")
    raw = read_table(
        src,
        fmt,
        sep=sep,
        decimal=src.decimal,
        nrows=50,
        text_columns=text_columns_of(header, "auto"),
        read_rows=lambda kwargs: preview_frame(src, len(header), kwargs),
        who=who,
    )
    return parse_wide_rows(src, fmt, sep, header, raw, lambda: _wide_rows(src, sep), n_rows=rows)


def parse_sheet(src: Source, fmt: str) -> dict:
    """A spreadsheet's sheet parsed once (a ``"table"`` payload, see :func:`parse_delimited`)."""
    who = f"load_dataset: {src.label}"
    raw = read_table(src, fmt, sheet=src.sheet, transpose=src.transpose, who=who)
    src.check(dense_bytes(*raw.frame.shape), f"{raw.frame.shape[0]:,} rows x {raw.frame.shape[1]:,} columns")
    if raw.sheets and len(raw.sheets) > 1:
        raw.notes.append(
            f"read sheet {raw.sheet!r} of {len(raw.sheets)} ({', '.join(map(repr, raw.sheets[:5]))})"
        )
    raw.frame = share_floats(raw.frame)
    remember_fills(raw.frame, src.missing)
    return {"kind": "table", "fmt": fmt, "raw": raw, "stats": parsed_stats(raw.frame)}


def _load_sheet(src: Source, fmt: str, label) -> dict:
    return assemble_table(src, fmt, parse_sheet(src, fmt), label)


#: the delimited text tables and the workbooks (:mod:`fsviz.data.formats.registry`)
_TEXT = {"takes_fmt": True, "parse": parse_delimited, "assemble": assemble_table}
_SHEET = {"takes_fmt": True, "isolates_itself": True, "parse": parse_sheet, "assemble": assemble_table}
CSV_READER = Reader("csv", _load_delimited, "comma-separated text table", suffixes_of("csv"), **_TEXT)
TSV_READER = Reader("tsv", _load_delimited, "tab-separated text table", suffixes_of("tsv"), **_TEXT)
TXT_READER = Reader(
    "txt", _load_delimited, "delimited text table (separator sniffed)", suffixes_of("txt"), **_TEXT
)
XLSX_READER = Reader("xlsx", _load_sheet, "Excel workbook", suffixes_of("xlsx"), **_SHEET)
XLS_READER = Reader("xls", _load_sheet, "old Excel workbook", suffixes_of("xls"), **_SHEET)
ODS_READER = Reader("ods", _load_sheet, "OpenDocument spreadsheet", suffixes_of("ods"), **_SHEET)
