"""Sample annotations: a second table with one row per sample, joined on the sample names.

Expression data mostly come as two files: the matrix (genes as rows, samples as columns) and a
phenotype table (sample id, disease state, age, sex), as GEO and ArrayExpress hand them out.
:func:`read_annotations` reads such a table (CSV, TSV or Excel, dialect sniffed);
:func:`join_annotations` joins it to the samples a reader found (the identifier column, the
header after transposing, AnnData's obs names, GEO's ``!Sample_geo_accession``): its columns
can then be the target, the others stay with the dataset as sample metadata
(``Dataset.meta["sample_annotations"]``), and the join is reported (how many samples matched,
which did not) in ``Dataset.meta["annotations"]``.
"""

from __future__ import annotations

import io
import os
from typing import Any

import numpy as np

from fsviz.data.validation import names_preview

__all__ = ["join_annotations", "read_annotations"]

#: annotation columns kept as sample metadata (the first ones, after the key and the target)
MAX_META_COLUMNS = 50


def read_annotations(obj: Any, *, who: str, budget: int = 0, na_values=None):
    """A sample-annotation table as a DataFrame of text and numbers.

    Parameters
    ----------
    obj : str, Path, bytes, binary file-like or pandas.DataFrame
        A CSV/TSV/text table or a workbook (first sheet); a frame is used as it is.
    who : str
        Names the caller in messages.
    budget : int, default=0
        Memory budget in bytes (0: none), checked against the file's size.
    na_values : sequence of str, optional
        Cells read as missing.
    """
    import pandas as pd

    from fsviz.data.formats.source import Source, resolve_format
    from fsviz.data.frames import read_table

    if isinstance(obj, pd.DataFrame):
        frame = obj.copy()
        frame.columns = [str(c) for c in frame.columns]
        return frame.reset_index(drop=True) if frame.index.name is None else frame.reset_index()
    src = Source(obj)
    src.budget = budget
    if na_values is not None:
        src.na_values = tuple(na_values)
    where = f"{who}: sample annotations {src.label}"
    if src.size() == 0:
        raise ValueError(f"{where} are empty (0 bytes). Fix: choose the phenotype table.")
    src.check(src.size() * 8, "the sample annotations")
    src.unwrap()  # a gzipped or zipped table: the file inside, bounded (fsviz.data.formats.archives)
    fmt = resolve_format(src, None)
    if fmt == "cls":  # class labels by position (GenePattern): fsviz.data.formats.gct
        from fsviz.data.formats.gct import read_cls

        return read_cls(src.bytes(), where)
    if fmt not in ("csv", "tsv", "txt", "xlsx", "xls", "ods"):
        raise ValueError(
            f"{where}: a {fmt} file is not a table of annotations. Fix: give a CSV, TSV or Excel table with "
            "one row per sample and a column of sample ids."
        )
    raw = read_table(src, fmt, transpose=False, text_columns=(), exact=False, who=where)
    frame = raw.frame
    if frame.shape[1] < 2 or len(frame) == 0:
        raise ValueError(
            f"{where}: {frame.shape[0]} row(s) x {frame.shape[1]} column(s); it needs a column of sample ids "
            "and at least one annotation. Fix: check the separator, or choose the phenotype table."
        )
    return frame


def _as_text(values) -> np.ndarray:
    import pandas as pd

    return np.array(["" if pd.isna(v) else str(v).strip() for v in values], dtype=object)


def best_key(table, samples: np.ndarray) -> tuple[str | None, int]:
    """The annotation column whose values name the most samples, and how many it names."""
    wanted = set(_as_text(samples).tolist())
    best, hits = None, 0
    for c in table.columns:
        n = len(wanted & set(_as_text(table[c].to_numpy(dtype=object)).tolist()))
        if n > hits:
            best, hits = str(c), n
    return best, hits


def join_annotations(parts: dict, table, *, label, key: str | None, missing_target: str, who: str) -> dict:
    """Join ``table`` to the samples of a reader's ``parts`` (a dict: X, y, sample_names, ...).

    The target comes from the annotations when ``label`` names one of their columns, or when it
    is ``"auto"`` and the data had none (the column :func:`~fsviz.data.infer_column_roles` picks).
    Samples without a row in the annotations then have no target: dropped when
    ``missing_target="drop"``, else a ValueError naming them. Returns new parts.
    """
    from fsviz.data.roles import infer_column_roles

    samples = parts.get("sample_names")
    if samples is None:
        raise ValueError(
            f"{who}: the data have no sample names to join the sample annotations on. Fix: give the data's "
            "identifier column (id_columns=[...]), or read an expression matrix transposed (its header "
            "names the samples)."
        )
    samples = _as_text(samples)
    columns = [str(c) for c in table.columns]
    if key is not None and key not in columns:
        raise ValueError(
            f"{who}: annotation key column {key!r} not found; the annotation columns are "
            f"{names_preview(columns, 20)}. Fix: choose the column that holds the sample ids."
        )
    hits = 0
    if key is None:
        key, hits = best_key(table, samples)
    else:
        hits = len(set(samples.tolist()) & set(_as_text(table[key].to_numpy(dtype=object)).tolist()))
    if not hits:
        raise ValueError(
            f"{who}: no column of the sample annotations holds the data's sample names (e.g. "
            f"{names_preview(samples.tolist(), 3)}); the annotation columns are "
            f"{names_preview(columns, 12)}. "
            "Fix: check that both files name the samples the same way, or choose the key column."
        )
    ids = _as_text(table[key].to_numpy(dtype=object))
    seen, dups = set(), []
    for v in ids.tolist():
        if v in seen and v and v not in dups:
            dups.append(v)
        seen.add(v)
    if dups:
        raise ValueError(
            f"{who}: the annotation key column {key!r} names sample(s) {names_preview(dups)} more than once. "
            "Fix: one row per sample."
        )
    row_of = {v: i for i, v in enumerate(ids.tolist()) if v}
    where = np.array([row_of.get(s, -1) for s in samples.tolist()], dtype=np.int64)
    matched = where >= 0
    rest = [c for c in columns if c != key]
    target = None
    if isinstance(label, str) and label in rest:
        target = label
    elif label == "auto" and parts.get("y") is None:
        aligned = table.iloc[np.maximum(where, 0)][rest].reset_index(drop=True)
        aligned = aligned[matched].reset_index(drop=True) if (~matched).any() else aligned
        roles = infer_column_roles(aligned, "auto", id_columns="auto") if len(aligned) else []
        target = next((r.name for r in roles if r.role == "target"), None)
    notes = list(parts.get("notes") or [])
    unmatched = samples[~matched].tolist()
    report = {
        "key": key,
        "matched": int(matched.sum()),
        "n_samples": int(len(samples)),
        "unmatched": unmatched[:50],
        "n_unmatched": len(unmatched),
        "columns": rest,
    }
    joined = (
        f"joined {int(matched.sum())} of {len(samples)} samples with the sample annotations on {key!r}"
        + (f"; {len(unmatched)} without a row: {names_preview(unmatched)}" if unmatched else "")
    )
    notes.append(joined)
    out = dict(parts)
    keep = np.ones(len(samples), dtype=bool)
    if target is not None:
        values = table[target].to_numpy(dtype=object)
        col = np.array([values[i] if i >= 0 else None for i in where], dtype=object)
        text = _as_text(col)
        miss = text == ""
        if miss.any():
            lost = samples[miss].tolist()
            if missing_target != "drop":
                raise ValueError(
                    f"{who}: {len(lost)} sample(s) have no value in the annotation column {target!r} "
                    f"({names_preview(lost)}). Fix: leave them out (missing_target='drop' / Rows without a "
                    "target: leave them out), or choose another target."
                )
            keep = ~miss
            notes.append(
                f"dropped {len(lost)} sample(s) without a value in {target!r}: {names_preview(lost)}"
            )
        from fsviz.data.formats.delimited import _labels_from_strings

        out["y"] = _labels_from_strings(text[keep], who)
        out["label_column"] = target
        out["class_names"] = None
    if not keep.all():
        out["X"] = parts["X"][keep]
        samples = samples[keep]
        where = where[keep]
        out["sample_names"] = samples
        if out.get("y") is not None and target is None:
            out["y"] = np.asarray(out["y"])[keep]
    meta = dict(parts.get("table_meta") or {})
    meta["annotations"] = report | {"target": target}
    kept_cols = [c for c in rest if c != target][:MAX_META_COLUMNS]
    meta["sample_annotations"] = {
        c: {
            s: (None if i < 0 else _plain(table[c].iloc[i]))
            for s, i in zip(samples.tolist(), where.tolist(), strict=True)
        }
        for c in kept_cols
    }
    out["table_meta"] = meta
    out["notes"] = notes
    return out


def _plain(v):
    import pandas as pd

    if v is None or (not isinstance(v, str) and pd.isna(v)):
        return None
    if isinstance(v, (np.integer, np.floating)):
        return v.item()
    return v if isinstance(v, (int, float, str)) else str(v)


def annotation_source(obj) -> Any:
    """``sample_annotations`` as something :func:`read_annotations` takes (a path stays a path)."""
    if isinstance(obj, (str, os.PathLike)):
        return os.fspath(obj)
    if isinstance(obj, (bytes, bytearray)):
        return io.BytesIO(bytes(obj))
    return obj
