"""GEO series matrix files (``GSExxxx_series_matrix.txt``), read natively.

A series matrix is a tab-separated text file in two parts: metadata lines that begin with ``!``
(``!Series_*`` about the study, ``!Sample_*`` with one value per sample), then, between
``!series_matrix_table_begin`` and ``!series_matrix_table_end``, the probe x sample table
(``ID_REF`` then one column per ``GSM`` sample). This reader returns the table transposed
(samples as rows, probes as features; the ``GSM`` ids as sample names) and the ``!Sample_*``
lines as a sample-annotation table whose ``characteristics`` are split at ``key: value``
(``disease state: healthy`` becomes a column ``disease state``), so that they can be the target.
"""

from __future__ import annotations

import csv
import io
import re

import numpy as np

from fsviz.data.budget import dense_bytes
from fsviz.data.dialect import GEO_BEGIN, GEO_END, is_series_matrix
from fsviz.data.formats.registry import Reader
from fsviz.data.formats.source import Source, readonly
from fsviz.data.validation import names_preview

__all__ = ["is_series_matrix", "read_series_matrix"]

BEGIN, END = GEO_BEGIN, GEO_END


def _fields(line: str) -> list[str]:
    return next(csv.reader([line], delimiter="\t", quotechar='"'), [])


def _annotations(lines: list[str], n_samples: int, who: str):
    """The ``!Sample_*`` lines as a table: one row per sample, characteristics split at ``key:``."""
    import pandas as pd

    cols: dict[str, list] = {}
    count: dict[str, int] = {}
    unnamed = 0
    for line in lines:
        parts = _fields(line)
        if len(parts) < 2 or not parts[0].startswith("!Sample_"):
            continue
        key = parts[0][len("!Sample_") :]
        values = parts[1:]
        if len(values) != n_samples:
            continue  # a field GEO gives once for the whole series (contact lines, ...)
        if key.startswith("characteristics"):
            split = [v.split(":", 1) for v in values]
            names = {s[0].strip().lower() for s in split if len(s) == 2}
            if len(names) == 1 and all(len(s) == 2 for s in split):
                cols[names.pop()] = [s[1].strip() for s in split]
                continue
            unnamed += 1
            key = f"{key}_{unnamed}"
        count[key] = count.get(key, 0) + 1  # a count per key: never a scan of the columns per line
        name = key if key not in cols else f"{key}_{count[key]}"
        while name in cols:
            count[key] += 1
            name = f"{key}_{count[key]}"
        cols[name] = [v.strip() for v in values]
    if "geo_accession" not in cols:
        raise ValueError(
            f"{who}: the series matrix has no !Sample_geo_accession line naming its samples. Fix: download "
            "the series matrix again from GEO."
        )
    return pd.DataFrame(cols)


#: bytes one sample column costs beyond its values while a series matrix is read (its
#: annotation row, its name, the parser's per-column state): measured about 4 KB per sample
#: on a 400,000-sample header (1.6 GB of RSS), so a header declaring more samples than the
#: memory budget can hold is refused before it is parsed
PER_SAMPLE_BYTES = 4096
#: characters never part of a probe name: control characters, and U+FFFD (bytes that were
#: not text)
_NOT_TEXT = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ufffd]")


def read_series_matrix(src: Source, who: str) -> dict:
    """The probe x sample table transposed (X, feature and sample names) and the annotations.

    Refused (ValueError) before parsing: a header declaring more samples than the memory
    budget holds, a sample named twice; after: a table cut short (a row with fewer fields than
    the header, or fewer rows than ``!Sample_data_row_count`` declares: "truncated"), a probe
    name holding control characters or bytes that are not text. A table without its
    ``!series_matrix_table_end`` line is read with a note (``notes``).
    """
    import pandas as pd

    text = src.bytes().decode("utf-8-sig", errors="replace")
    lines = text.splitlines()
    try:
        a = next(i for i, ln in enumerate(lines) if ln.strip().lower() == BEGIN)
    except StopIteration:
        raise ValueError(
            f"{who}: a GEO series matrix without its table ({BEGIN} is missing). Fix: download the full "
            "series matrix file (not the SOFT or MINiML family file)."
        ) from None
    ended = next((i for i, ln in enumerate(lines) if ln.strip().lower() == END), None)
    b = len(lines) if ended is None else ended
    while b > a + 1 and not lines[b - 1].strip():  # blank lines before the end (or the file's end)
        b -= 1
    header = _fields(lines[a + 1]) if a + 1 < b else []
    if len(header) < 2:
        raise ValueError(f"{who}: the series matrix table is empty. Fix: download the series matrix again.")
    n_rows = max(b - a - 2, 0)
    n_samples = len(header) - 1
    src.check(
        dense_bytes(n_samples, n_rows) + PER_SAMPLE_BYTES * n_samples,
        f"a GEO table of {n_rows:,} probes x {n_samples:,} samples (its header and annotations included)",
    )
    samples = [str(c).strip() for c in header[1:]]
    seen: set = set()
    twice = sorted({g for g in samples if g in seen or seen.add(g)})
    if twice:
        raise ValueError(
            f"{who}: the series matrix names sample(s) {names_preview(twice)} more than once in its table "
            "header; a sample is one column. Fix: download the series matrix again from GEO, or remove the "
            "repeated column(s)."
        )
    notes = []
    if ended is None:
        notes.append(
            f"the series matrix has no {END} line: the file may have been cut; read the {n_rows:,} probe "
            "row(s) up to its end"
        )
    rows = lines[a + 2 : b]
    tabs = np.fromiter((ln.count("\t") for ln in rows), dtype=np.int64, count=len(rows))
    short = np.flatnonzero(tabs < n_samples)
    if short.size:
        j = int(short[0])
        raise ValueError(
            f"{who}: the series matrix is truncated: probe row {j + 1:,} of {len(rows):,} has "
            f"{int(tabs[j]) + 1} field(s), its header {n_samples + 1}"
            + (" (the file ends there)" if j == len(rows) - 1 and ended is None else "")
            + ". Fix: download the series matrix again (the whole file)."
        )
    declared = _declared_rows(lines[:a], n_samples)
    if declared is not None and len(rows) < declared:
        raise ValueError(
            f"{who}: the series matrix is truncated: its table holds {len(rows):,} probe rows, its "
            f"!Sample_data_row_count declares {declared:,}. Fix: download the series matrix again (the "
            "whole file)."
        )
    table = pd.read_csv(
        io.StringIO("\n".join(lines[a + 1 : b])),
        sep="\t",
        quotechar='"',
        dtype={header[0]: str},
        keep_default_na=False,
        na_values=list(src.na_values),
        low_memory=False,
    )
    probes = table.iloc[:, 0].astype(str).str.strip().to_numpy(dtype=object)
    odd = np.flatnonzero(pd.Series(probes).str.contains(_NOT_TEXT).to_numpy())
    if odd.size:
        j = int(odd[0])
        raise ValueError(
            f"{who}: probe name {probes[j]!r} (row {j + 1:,}) holds control characters or bytes that are "
            "not text; the file is damaged or not a series matrix. Fix: download the series matrix again."
        )
    values = table.iloc[:, 1:]
    kinds = np.array([d.kind for d in values.dtypes])
    bad = [values.columns[j] for j in np.flatnonzero(~np.isin(kinds, list("biuf")))]
    if bad:
        col = values[bad[0]]
        cell = col[pd.to_numeric(col, errors="coerce").isna() & col.notna()]
        raise ValueError(
            f"{who}: the series matrix holds text in sample column(s) {names_preview(bad)} (e.g. "
            f"{str(cell.iloc[0]) if len(cell) else '?'!r}). Fix: add the marker to the missing values "
            "(na_values) or check the file."
        )
    X = values.to_numpy(dtype=np.float64).T
    annotations = _annotations(lines[:a], n_samples, who)
    return {
        "X": readonly(np.ascontiguousarray(X)),
        "feature_names": probes,
        "sample_names": np.array(samples, dtype=object),
        "annotations": annotations,
        "n_metadata_lines": a,
        "notes": notes,
    }


def _declared_rows(lines: list[str], n_samples: int) -> int | None:
    """The table's row count as ``!Sample_data_row_count`` declares it (the largest), or None."""
    for line in lines:
        if line.startswith("!Sample_data_row_count"):
            counts = [v.strip() for v in _fields(line)[1:]]
            numbers = [int(v) for v in counts if v.isdigit()]
            return max(numbers) if numbers and len(counts) == n_samples else None
    return None


def _load_geo(src: Source, label) -> dict:
    """A GEO series matrix: samples as rows, probes as features, ``!Sample_*`` lines as annotations."""
    from fsviz.data.frames import merge_duplicate_features

    who = f"load_dataset: {src.label}"
    if label is not None and not isinstance(label, str):
        raise ValueError(
            f"{who}: a series matrix's target is a sample annotation (a !Sample_ line or a characteristic, "
            f"e.g. 'disease state'); got label={label!r}."
        )
    read = read_series_matrix(src, who)
    X, names, note = merge_duplicate_features(read["X"], read["feature_names"], src.duplicates, who)
    notes = [f"GEO series matrix: skipped {read['n_metadata_lines']} metadata line(s); samples as rows"]
    notes += read["notes"]
    if note:
        notes.append(note)
    return {
        "X": X,
        "y": None,
        "feature_names": names,
        "label_column": None,
        "format": "geo",
        "sample_names": read["sample_names"],
        "annotations": read["annotations"],
        "table_meta": {"transposed": True, "id_column": "geo_accession"},
        "notes": notes,
    }


def _detect_geo(src: Source) -> bool:
    return is_series_matrix(src.head(8192))


#: its registration (:mod:`fsviz.data.formats.registry`): recognised by its content
READER = Reader("geo", _load_geo, "GEO series matrix", detect=_detect_geo, aliases=("series_matrix",))
