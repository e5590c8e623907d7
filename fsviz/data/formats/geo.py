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
        name = key if key not in cols else f"{key}_{sum(c.startswith(key) for c in cols) + 1}"
        cols[name] = [v.strip() for v in values]
    if "geo_accession" not in cols:
        raise ValueError(
            f"{who}: the series matrix has no !Sample_geo_accession line naming its samples. Fix: download "
            "the series matrix again from GEO."
        )
    return pd.DataFrame(cols)


def read_series_matrix(src: Source, who: str) -> dict:
    """The probe x sample table transposed (X, feature and sample names) and the annotations."""
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
    b = next((i for i, ln in enumerate(lines) if ln.strip().lower() == END), len(lines))
    body = "\n".join(lines[a + 1 : b])
    header = _fields(lines[a + 1]) if a + 1 < b else []
    if len(header) < 2:
        raise ValueError(f"{who}: the series matrix table is empty. Fix: download the series matrix again.")
    n_rows = max(b - a - 2, 0)
    src.check(
        dense_bytes(len(header) - 1, n_rows),
        f"a GEO table of {n_rows:,} probes x {len(header) - 1:,} samples",
    )
    table = pd.read_csv(
        io.StringIO(body),
        sep="\t",
        quotechar='"',
        dtype={header[0]: str},
        keep_default_na=False,
        na_values=list(src.na_values),
        low_memory=False,
    )
    probes = table.iloc[:, 0].astype(str).str.strip().to_numpy(dtype=object)
    values = table.iloc[:, 1:]
    bad = [c for c in values.columns if values[c].dtype.kind not in "biuf"]
    if bad:
        col = values[bad[0]]
        cell = col[pd.to_numeric(col, errors="coerce").isna() & col.notna()]
        raise ValueError(
            f"{who}: the series matrix holds text in sample column(s) {names_preview(bad)} (e.g. "
            f"{str(cell.iloc[0]) if len(cell) else '?'!r}). Fix: add the marker to the missing values "
            "(na_values) or check the file."
        )
    X = values.to_numpy(dtype=np.float64).T
    samples = np.array([str(c).strip() for c in values.columns], dtype=object)
    annotations = _annotations(lines[:a], len(samples), who)
    return {
        "X": readonly(np.ascontiguousarray(X)),
        "feature_names": probes,
        "sample_names": samples,
        "annotations": annotations,
        "n_metadata_lines": a,
    }


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
