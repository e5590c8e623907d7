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
from dataclasses import dataclass
from typing import Any

import numpy as np

from fsviz.data.validation import names_preview

__all__ = ["join_annotations", "read_annotations"]

#: annotation columns kept as sample metadata (the first ones, after the key and the target)
MAX_META_COLUMNS = 50


def read_annotations(
    obj: Any, *, who: str, budget: int = 0, na_values=None, what: str = "sample", comment=None
):
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
    comment : str or tuple of str, optional
        Lines beginning with it are skipped (a GEO platform table's ``#``, ``!`` and ``^`` lines).
    what : {"sample", "feature"}, default="sample"
        Whose annotations (named in messages; a feature table is never a CLS file).
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
    if comment is not None:
        src.comment = comment
    where = f"{who}: {what} annotations {src.label}"
    table_kind = "phenotype table" if what == "sample" else "feature (platform) annotation table"
    if src.size() == 0:
        raise ValueError(f"{where} are empty (0 bytes). Fix: choose the {table_kind}.")
    src.check(src.size() * 8, f"the {what} annotations")
    src.unwrap()  # a gzipped or zipped table: the file inside, bounded (fsviz.data.formats.archives)
    fmt = resolve_format(src, None)
    if fmt == "cls" and what == "sample":  # class labels by position (GenePattern): fsviz.data.formats.gct
        from fsviz.data.formats.gct import read_cls

        return read_cls(src.bytes(), where)
    if fmt not in ("csv", "tsv", "txt", "xlsx", "xls", "ods"):
        raise ValueError(
            f"{where}: a {fmt} file is not a table of annotations. Fix: give a CSV, TSV or Excel table with "
            f"one row per {what} and a column of {what} ids."
        )
    raw = read_table(src, fmt, transpose=False, text_columns=(), exact=False, who=where)
    frame = raw.frame
    if frame.shape[1] < 2 or len(frame) == 0:
        raise ValueError(
            f"{where}: {frame.shape[0]} row(s) x {frame.shape[1]} column(s); it needs a column of {what} ids "
            f"and at least one annotation. Fix: check the separator, or choose the {table_kind}."
        )
    return frame


def _as_text(values) -> np.ndarray:
    import pandas as pd

    return np.array(["" if pd.isna(v) else str(v).strip() for v in values], dtype=object)


#: whole words (of a column name split at non-letters and case changes) that name an identifier
_KEY_WORDS = frozenset(
    {"id", "ids", "sample", "samples", "name", "names", "barcode", "barcodes", "gsm", "accession",
     "cell", "patient", "subject", "rownames", "uuid", "key", "index", "unnamed", "sampleid",
     "samplename", "patientid", "subjectid"}
)  # fmt: skip


def _named_like_id(name: str) -> bool:
    """Named like an identifier: a whole word ``id``/``ID``, ``sample``, ``name``, ``barcode``,
    ``gsm``, ``accession``, ... (``sample_id``, ``SampleName``, ``geo_accession``; never a
    substring: ``width``, ``valid``, ``rapid`` are not ids)."""
    import re

    words = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+", str(name))
    return any(w.lower() in _KEY_WORDS for w in words)


def _key_kind(column) -> str:
    """``"text"``, ``"integer"`` (whole numbers, as numbers or as text) or ``"number"`` (a measurement)."""
    import pandas as pd

    values = column.dropna()
    if column.dtype.kind in "iub":
        return "integer"
    if column.dtype.kind == "f":
        return "integer" if len(values) and bool((values == np.round(values)).all()) else "number"
    text = pd.Series(_as_text(values.to_numpy(dtype=object)))
    text = text[text != ""]
    numbers = pd.to_numeric(text, errors="coerce")
    if len(text) == 0 or numbers.isna().any():
        return "text"
    return (
        "integer"
        if bool((numbers == np.round(numbers)).all()) and not text.str.contains(r"[.eE]").any()
        else "number"
    )


@dataclass(frozen=True)
class KeyCandidate:
    """One annotation column as a join key: how many samples it names, and whether it may be
    chosen without being asked for (an identifier: unique, text or integer codes named like ids)."""

    column: str
    matched: int
    candidate: bool
    why: str


def key_candidates(table, samples: np.ndarray) -> list[KeyCandidate]:
    """Every annotation column that names at least one sample, best first.

    A column is a *candidate* key (picked without being asked for) when it looks like an
    identifier: its values are unique, and they are text, or whole numbers in a column named
    like an id (``id``, ``sample``, ``name``, ``barcode``, ``gsm``, ... as whole words). A
    measurement (fractional numbers, or whole numbers in a column not named like an id, such
    as an ``age``) is never a candidate, however many samples its values happen to match, nor
    is a column that repeats a value. Candidates come first, then by samples matched, then
    named-like-id first, then in the table's order.
    """
    wanted = set(_as_text(samples).tolist())
    out = []
    for order, c in enumerate(table.columns):
        ids = _as_text(table[c].to_numpy(dtype=object))
        n = len(wanted & set(ids.tolist()))
        if not n:
            continue
        filled = ids[ids != ""]
        named = _named_like_id(str(c))
        kind = _key_kind(table[c])
        if len(set(filled.tolist())) < len(filled):
            ok, why = False, "repeats values"
        elif kind == "text":
            ok, why = True, "unique text" + (", named like an id" if named else "")
        elif kind == "integer" and named:
            ok, why = True, "unique whole numbers, named like an id"
        elif kind == "integer":
            ok, why = False, "whole numbers not named like an id (a measurement or a count)"
        else:
            ok, why = False, "numbers (a measurement)"
        out.append((not ok, -n, not named, order, KeyCandidate(str(c), n, ok, why)))
    return [k[-1] for k in sorted(out, key=lambda k: k[:4])]


def best_key(table, samples: np.ndarray) -> tuple[str | None, int]:
    """The candidate key column (:func:`key_candidates`) that names the most samples, and how
    many it names; ``(None, 0)`` when no identifier-like column names any."""
    found = [k for k in key_candidates(table, samples) if k.candidate]
    return (found[0].column, found[0].matched) if found else (None, 0)


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
    found = key_candidates(table, samples)
    chosen_by = "given"
    if key is None:
        chosen_by = "auto"
        key, hits = best_key(table, samples)
        if key is None and found:  # only measurements (or repeating columns) match: ask, never guess
            listed = ", ".join(f"{k.column!r} ({k.matched} of {len(samples)}: {k.why})" for k in found[:5])
            raise ValueError(
                f"{who}: no identifier column of the sample annotations names the data's samples; "
                f"{listed} match(es) by value, but a measurement is never taken as the join key by itself. "
                "Fix: give the column that holds the sample ids (annotation_key=... / --annotation-key / "
                "'Join on'), or check that both files name the samples the same way."
            )
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
    if isinstance(label, str) and label != "auto" and label not in rest and parts.get("label_column") is None:
        # an explicit label that names nothing: the same error as a CSV's missing label column
        import difflib

        def fold(t: str) -> str:
            return " ".join(t.replace("_", " ").replace(".", " ").lower().split())

        close = [c for c in rest if fold(c) == fold(label)] or difflib.get_close_matches(label, rest, 1, 0.75)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ValueError(
            f"load_dataset: label column {label!r} not found{hint}; the sample annotations' columns are "
            f"{names_preview(rest, 20)}. Fix: pass label= one of them, or label=None for unlabelled data."
        )
    if isinstance(label, str) and label in rest:
        target = label
    elif label == "auto" and parts.get("y") is None:
        aligned = table.iloc[np.maximum(where, 0)][rest].reset_index(drop=True)
        aligned = aligned[matched].reset_index(drop=True) if (~matched).any() else aligned
        roles = infer_column_roles(aligned, "auto", id_columns="auto") if len(aligned) else []
        target = next((r.name for r in roles if r.role == "target"), None)
    notes = list(parts.get("notes") or [])
    unmatched = samples[~matched].tolist()
    others = [k for k in found if k.column != key]
    report = {
        "key": key,
        "key_chosen": chosen_by,
        "alternatives": [
            {"column": k.column, "matched": k.matched, "candidate": k.candidate, "why": k.why} for k in others
        ],
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
    better = [k for k in others if k.matched > int(matched.sum())]
    if others and (chosen_by == "auto" or better):  # the choice made visible, with the counts
        listed = ", ".join(
            f"{k.column!r} ({k.matched} of {len(samples)}"
            + ("" if k.candidate else f": {k.why}, not a key")
            + ")"
            for k in others[:5]
        )
        how = "the identifier column that matches most" if chosen_by == "auto" else "the key given"
        notes.append(
            f"join key {key!r} ({int(matched.sum())} of {len(samples)} samples) is {how}; other columns "
            f"matching the sample names: {listed}. To join on another: annotation_key=... ('Join on')"
        )
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
        from fsviz.data.formats.wide import labels_from_strings

        out["y"] = labels_from_strings(text[keep], who)
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
    rows = where.tolist()
    meta["sample_annotations"] = dict(meta.get("sample_annotations") or {})  # the table's covariates stay
    for c in kept_cols:  # one column at a time as plain values: no pandas lookup per sample
        values = table[c].to_numpy(dtype=object)
        meta["sample_annotations"][c] = {
            s: (None if i < 0 else _plain(values[i])) for s, i in zip(samples.tolist(), rows, strict=True)
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
