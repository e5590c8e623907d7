"""Text tables' labels and cells, and very wide text tables (more columns than pandas reads well).

A wide table is parsed once (:func:`parse_wide_rows`): its first rows (read by pandas) say which
columns hold text; every row is then split, its numeric cells parsed into one C-ordered float64
block (no Python object per column: pandas' parser keeps several, ~10 KiB each, and crashed on
10^6 columns) and its text cells kept as strings. :func:`assemble_wide` applies the plan's roles
and target to that: the features are the block itself (shared, read-only, nothing copied) when
they are exactly its columns, else one copy of the kept columns.
"""

from __future__ import annotations

from operator import itemgetter

import numpy as np

from fsviz.data.covariates import keep_covariates
from fsviz.data.formats.source import Source, named_target, readonly
from fsviz.data.formats.wide_scan import scan_wide, wide_floats
from fsviz.data.frames import apply_roles
from fsviz.data.impute import column_fills
from fsviz.data.roles import parsed_stats
from fsviz.data.validation import names_preview

__all__ = ["assemble_wide", "label_position", "labels_from_strings", "parse_wide_rows"]


def label_position(columns: list[str], label, src: Source, frame_kind: str, non_numeric=None) -> int | None:
    """The target column's position among ``columns`` (None: no target); ValueError naming the
    columns when ``label`` names none of them."""
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
        hit = named_target(columns)
        if hit is not None:
            return hit
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


def labels_from_strings(values: np.ndarray, who: str):
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


def parse_wide_rows(
    src: Source, fmt: str, sep: str, header: list[str], preview, rows, n_rows: int = 0
) -> dict:
    """The payload of a wide table: ``preview`` (a :class:`~fsviz.data.frames.RawTable` of the
    first rows, where the roles are found), ``block`` (the numeric columns, C-ordered float64,
    read-only), ``numeric`` (their positions), ``text`` (position -> the cells as read) and the
    dialect. The file's bytes are scanned by :func:`~fsviz.data.formats.wide_scan.scan_wide`;
    ``rows()`` (every data line's fields) reads it row by row instead when the scan cannot vouch
    for a record, with the same result. ``n_rows``: the expected number of rows. A column of
    numbers in the first rows with text further down is read again as text (a second pass over
    its cells): whether that is an error depends on its role (a feature: yes), which assembling
    decides."""
    who = f"load_dataset: {src.label}"
    m = len(header)
    frame = preview.frame
    text_pos = [j for j, t in enumerate(frame.dtypes) if t.kind not in "biuf"]
    is_text = np.zeros(m, dtype=bool)
    is_text[text_pos] = True
    numeric = np.flatnonzero(~is_text).astype(np.intp)
    kind = np.empty(m, dtype=np.int64)
    kind[numeric] = np.arange(len(numeric))
    kind[text_pos] = -1 - np.arange(len(text_pos))
    comma = preview.decimal == ","
    scanned = scan_wide(src, sep, kind, len(text_pos), comma, n_rows)
    if scanned is not None:
        X, cells, bad = scanned
        texts = dict(zip(text_pos, cells, strict=True))
    else:
        X, texts, bad = _rows_in_python(src, header, numeric, text_pos, comma, rows, who)
    if not len(X):
        raise ValueError(f"{who} has no data rows (only a header?). Fix: choose a file with samples.")
    if bad:  # text below the first rows: those columns are text columns after all
        moved = sorted(bad)
        late = [int(numeric[k]) for k in moved]
        texts.update({j: [] for j in late})
        for fields in rows():
            for j in late:
                texts[j].append(fields[j])
        X = np.delete(X, moved, axis=1)
        numeric = np.delete(numeric, moved)
    block = readonly(np.ascontiguousarray(X))
    fills = None
    if src.missing in ("mean", "median"):  # once here, not per target (100,000 medians)
        fills = (src.missing, column_fills(block, src.missing))
    return {
        "kind": "wide",
        "fmt": fmt,
        "sep": sep,
        "header": list(header),
        "preview": preview,
        "block": block,
        "fills": fills,
        "numeric": numeric,
        "text": {j: np.array(v, dtype=object) for j, v in texts.items()},
        "stats": parsed_stats(preview.frame),
    }


def _rows_in_python(src, header, numeric, text_pos, comma, rows, who) -> tuple[np.ndarray, dict, dict]:
    """``(X, texts, bad)`` read row by row (``rows()``: each line's fields), as the scan reads them."""
    m = len(header)
    names = [header[j] for j in numeric]
    take = itemgetter(*numeric.tolist()) if len(numeric) > 1 else None
    texts: dict[int, list] = {j: [] for j in text_pos}
    block, bad = [], {}
    for i, fields in enumerate(rows()):
        if len(fields) != m:
            raise ValueError(
                f"{who}: row {i} has {len(fields)} fields but the header has {m}. Fix: make every row "
                "have one field per column name (check the separator)."
            )
        for j in text_pos:
            texts[j].append(fields[j])
        if text_pos:
            fields = list(take(fields)) if take is not None else [fields[j] for j in numeric]
        if comma:
            fields = [v.replace(",", ".") for v in fields]
        block.append(wide_floats(fields, names, i, who, src.na_lower, bad))
    X = np.vstack(block) if block else np.empty((0, len(numeric)))
    return X, texts, bad


def assemble_wide(src: Source, parsed: dict, label) -> dict:
    """The raw parts of a parsed wide table under ``src``'s plan (roles from the first rows, as
    :func:`~fsviz.data.frames.apply_roles` finds them; rows without a target are not dropped)."""
    who = f"load_dataset: {src.label}"
    header, preview = parsed["header"], parsed["preview"]
    if isinstance(label, str) and label != "auto" and label not in header:
        label_position(header, label, src, parsed["fmt"])  # raises, naming the columns
    roles = apply_roles(
        preview.frame.copy(deep=False),
        label,
        id_columns=src.id_columns,
        ignore=src.ignore,
        missing_target="drop",
        types=src.types,
        dates=src.dates,
        covariates=[c for c in (src.plan.covariates or ()) if c in set(header)],  # else an annotation's
        who=who,
        stats=parsed["stats"]["stats"] if parsed.get("stats") else None,
    )
    lookup = {h: j for j, h in enumerate(header)}
    covariates = [lookup[c] for c in roles["covariates"]]
    drop = {lookup[nm] for nm in (roles["meta"].get("ignored") or {})}
    drop |= {lookup[nm] for nm in roles["meta"].get("id_columns", [])}
    drop |= set(covariates)
    id_pos = lookup[roles["meta"]["id_column"]] if "id_column" in roles["meta"] else None
    pos = lookup[roles["label"]] if roles["label"] is not None else None
    features = [j for j in range(len(header)) if j != pos and j not in drop and j != id_pos]
    X, owned, known = _columns(parsed, features, src, who)
    y = None
    if pos is not None:
        y = labels_from_strings(_cells(parsed, pos), who)
    sample_names = None
    if id_pos is not None:
        sample_names = np.array([str(v).strip() for v in _cells(parsed, id_pos)], dtype=object)
    meta = dict(roles["meta"])
    meta.pop("dropped_rows", None)
    meta["dialect"] = {"sep": parsed["sep"], "decimal": preview.decimal, "thousands": None}
    parts = {
        "X": X,
        "y": y,
        "feature_names": np.array([header[j] for j in features], dtype=object),
        "label_column": header[pos] if pos is not None else None,
        "format": parsed["fmt"],
        "sample_names": sample_names,
        "owned": owned,  # a copy made here may be filled in place; the shared block never is
        "fills": known,
        "table_meta": meta,
        "notes": list(preview.notes) + [n for n in roles["notes"] if not n.startswith("dropped")],
    }
    keep_covariates(parts, {header[j]: _cells(parsed, j) for j in covariates})
    return parts


def _cells(parsed: dict, j: int) -> np.ndarray:
    """Column ``j`` as read: its text cells, or its numbers (a numeric column)."""
    if j in parsed["text"]:
        return parsed["text"][j]
    k = int(np.searchsorted(parsed["numeric"], j))
    return parsed["block"][:, k]


def _columns(
    parsed: dict, features: list[int], src: Source, who: str
) -> tuple[np.ndarray, bool, dict | None]:
    """``(X, owned, fills)``: the feature columns. The parsed block itself (shared) when the
    features are exactly its columns; else one C-ordered copy, text columns parsed as numbers into
    it. ``fills``: the parse-time fills of X's block columns (NaN for the others), or None."""
    block, numeric, header = parsed["block"], parsed["numeric"], parsed["header"]
    cols = np.asarray(features, dtype=np.intp)
    stored = parsed.get("fills")

    def known(X, take):
        if stored is None:
            return None
        values = np.full(len(cols), np.nan)
        values[take] = stored[1][at[take]]
        return {"strategy": stored[0], "values": values, "X": X}

    at = np.searchsorted(numeric, cols)
    if len(cols) == len(numeric) and np.array_equal(cols, numeric):
        return block, False, known(block, slice(None))
    is_num = np.isin(cols, numeric)
    if is_num.all():  # numeric columns left out (a numeric target): one copy of the rest
        X = readonly(_without(block, at))
        return X, True, known(X, slice(None))
    X = np.empty((block.shape[0], len(cols)))
    X[:, is_num] = block[:, at[is_num]]
    comma = parsed["preview"].decimal == ","
    for k in np.flatnonzero(~is_num):  # text columns that are features: few (the first rows said text)
        cells = [str(v) for v in parsed["text"][int(cols[k])]]
        if comma:
            cells = [v.replace(",", ".") for v in cells]
        name = header[int(cols[k])]
        wrong: dict = {}
        X[:, k] = wide_floats(cells, [name] * len(cells), 0, who, src.na_lower, wrong)
        if wrong:  # the cell index is the row here
            row = min(wrong)
            wide_floats([cells[row]], [name], row, who, src.na_lower)  # raises, naming column and row
    X = readonly(X)
    return X, True, known(X, is_num)


def _without(block: np.ndarray, at: np.ndarray) -> np.ndarray:
    """``block.take(at, axis=1)`` for increasing ``at``: the runs of consecutive columns copied
    as slices (a target taken out of 100,000 columns: two copies at memory speed)."""
    cuts = np.flatnonzero(np.diff(at) != 1) + 1
    if len(cuts) > 64 or not len(at) or not (np.diff(at) > 0).all():
        return block.take(at, axis=1)
    out = np.empty((block.shape[0], len(at)))
    for a, b in zip((0, *cuts.tolist()), (*cuts.tolist(), len(at)), strict=True):
        out[:, a:b] = block[:, at[a] : at[a] + b - a]
    return out
