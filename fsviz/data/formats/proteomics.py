"""Proteomics quantification tables as MaxQuant and DIA-NN write them, recognised by their columns.

**MaxQuant** ``proteinGroups.txt``: one row per protein group, with annotation columns
(``Protein IDs``, ``Majority protein IDs``, ``Gene names``, ``Evidence IDs``, ...), flag columns
(``Reverse``, ``Potential contaminant``, ``Only identified by site``: ``+`` when set) and one
column per sample in each intensity family (``LFQ intensity S01``, ``Intensity S01``,
``iBAQ S01``, ``Reporter intensity corrected 1 S01``). The reader takes one family as the
values (the import plan's ``intensity``; default ``LFQ intensity`` when present, else ``iBAQ``,
``Intensity``, ``Reporter intensity corrected``), transposed so that the samples are the rows;
it drops the flagged rows (counted in the note), reads 0 as "not detected" (missing), leaves out
protein groups never quantified in that family, and names the features by their gene names
(repeats made unique as scanpy does; the protein ids in ``meta["feature_ids"]``;
``var_names="protein_ids"`` names them by the ids). ``experimental_design.tsv`` joins as the
sample annotations (its ``Experiment`` column holds the sample names).

**DIA-NN** ``report.pg_matrix.tsv`` / ``report.pr_matrix.tsv``: metadata columns
(``Protein.Group``, ``Protein.Ids``, ``Protein.Names``, ``Genes``, ...; the precursor columns of a
pr_matrix), then one column per run named by its raw file's path
(``D:\\runs\\S01_ctrl.raw``). The runs are the samples, named by their files' stems (``S01_ctrl``;
the raw names stay in ``meta["raw_sample_names"]``), the metadata columns are roles (names and
ids), never features.

**Spectronaut** protein-group reports (``PG.ProteinGroups``, ``PG.Genes``, ... and one
``[n] <run>.PG.Quantity`` column per run): the runs are the samples, named by their stems
(``[1] S01_ctrl.raw.PG.Quantity`` -> ``S01_ctrl``), ``Filtered``/``NaN`` cells are missing, the
``PG.*`` columns are names and ids.
"""

from __future__ import annotations

import io
import re

import numpy as np

from fsviz.data.budget import dense_bytes
from fsviz.data.formats.registry import Reader
from fsviz.data.formats.source import Source, readonly
from fsviz.data.formats.tenx import make_unique
from fsviz.data.validation import names_preview

__all__ = ["DIANN_READER", "INTENSITY_FAMILIES", "MAXQUANT_READER", "SPECTRONAUT_READER", "sample_stem"]

#: MaxQuant's intensity families, in the order one is chosen by default
INTENSITY_FAMILIES = ("LFQ intensity", "iBAQ", "Intensity", "Reporter intensity corrected")
#: MaxQuant's row flags: rows with "+" in any of these are dropped
MAXQUANT_FLAGS = ("Reverse", "Potential contaminant", "Contaminant", "Only identified by site")
#: DIA-NN's metadata columns (pg_matrix and pr_matrix)
DIANN_METADATA = (
    "Protein.Group",
    "Protein.Ids",
    "Protein.Names",
    "Genes",
    "First.Protein.Description",
    "Proteotypic",
    "Stripped.Sequence",
    "Modified.Sequence",
    "Precursor.Charge",
    "Precursor.Id",
)
_RAW_SUFFIX = re.compile(r"(\.(raw|d|mzml|mzxml|wiff2?|dia|mgf|tdf|baf))+$", re.I)


def _header(src: Source) -> list[str]:
    line = src.head(1 << 16).decode("utf-8-sig", errors="replace").split("\n", 1)[0]
    return [c.strip().strip('"') for c in line.rstrip("\r").split("\t")]


def _table(src: Source, text_columns: list[str], who: str, extra_na: tuple = ()):
    import pandas as pd

    try:
        return pd.read_csv(
            io.BytesIO(src.bytes()),
            sep="\t",
            dtype={c: str for c in text_columns},
            keep_default_na=False,
            na_values=[*src.na_values, *extra_na],
            low_memory=False,
            encoding="utf-8-sig",
        )
    except Exception as e:  # noqa: BLE001 - pandas' several parser errors
        raise ValueError(
            f"{who}: the table could not be parsed ({str(e)[:160]}). Fix: export it again."
        ) from None


def _values(frame, columns: list[str], who: str) -> np.ndarray:
    import pandas as pd

    block = frame[columns]
    bad = [c for c, t in zip(columns, block.dtypes, strict=True) if t.kind not in "biuf"]
    if bad:
        col = block[bad[0]]
        cell = col[pd.to_numeric(col, errors="coerce").isna() & col.notna()]
        raise ValueError(
            f"{who}: sample column(s) {names_preview(bad)} hold text (e.g. "
            f"{str(cell.iloc[0]) if len(cell) else '?'!r}). Fix: add the marker to the missing values "
            "(na_values)."
        )
    return block.to_numpy(dtype=np.float64)


def _symbols(labels, ids) -> np.ndarray:
    """The gene names, the protein id where a row has none."""
    labels = np.asarray(labels, dtype=object)
    empty = np.array([not str(v).strip() or str(v) == "nan" for v in labels], dtype=bool)
    return np.where(empty, np.asarray(ids, dtype=object), labels)


def _names(labels, ids, by_ids: bool) -> np.ndarray:
    """Feature names: the gene names (empty: the protein id), made unique; or the ids."""
    return make_unique(np.asarray(ids, dtype=object) if by_ids else _symbols(labels, ids))


def _symbol_meta(names, labels, ids) -> dict:
    """``feature_symbols`` (``Dataset.feature_info["symbol"]``) when a name is not its gene name
    (repeats made unique, or named by ids): a gene name then finds all its protein groups."""
    symbols = _symbols(labels, ids)
    same = np.array_equal(np.asarray(names, dtype=object), symbols)
    return {} if same else {"feature_symbols": [str(v) for v in symbols]}


# ---------------------------------------------------------------------------- MaxQuant
def _families(columns: list[str]) -> dict[str, list[str]]:
    """Each intensity family's per-sample columns (``LFQ intensity S01`` -> family ``LFQ intensity``)."""
    out: dict[str, list[str]] = {}
    for fam in INTENSITY_FAMILIES:
        hits = [c for c in columns if c.startswith(fam + " ")]
        if fam == "Intensity":  # "Intensity L S01" (SILAC channels) stay out of the plain family
            hits = [c for c in hits if not re.match(r"^Intensity [LMH] ", c)]
        if hits:
            out[fam] = hits
    return out


def is_maxquant(columns: list[str]) -> bool:
    """Recognised by its columns: protein ids, majority protein ids and an intensity family."""
    return {"Protein IDs", "Majority protein IDs"} <= set(columns) and bool(_families(columns))


def _load_maxquant(src: Source, label) -> dict:
    who = f"load_dataset: {src.label}"
    columns = _header(src)
    fams = _families(columns)
    family = src.plan.intensity or next(iter(fams))
    if family not in fams:
        raise ValueError(
            f"{who}: intensity family {family!r} is not in this proteinGroups table; it has "
            f"{list(fams)}. Fix: choose one of them (intensity=)."
        )
    sample_cols = fams[family]
    flags = [c for c in MAXQUANT_FLAGS if c in columns]
    text = [
        "Protein IDs",
        "Majority protein IDs",
        *[c for c in ("Gene names", "Protein names") if c in columns],
    ]
    frame = _table(src, [*text, *flags], who)
    src.check(
        dense_bytes(len(sample_cols), len(frame)),
        f"{len(sample_cols)} samples x {len(frame):,} protein groups",
    )
    flagged = np.zeros(len(frame), dtype=bool)
    counts = {}
    for c in flags:
        hit = frame[c].astype(str).str.strip().eq("+").to_numpy()
        counts[c] = int((hit & ~flagged).sum())
        flagged |= hit
    values = _values(frame, sample_cols, who)
    values[values == 0] = np.nan  # MaxQuant writes 0 for "not detected"
    quantified = ~np.isnan(values).all(axis=1)
    keep = ~flagged & quantified
    ids = frame["Majority protein IDs"].astype(str).str.split(";").str[0].to_numpy(dtype=object)
    genes = frame["Gene names"].to_numpy(dtype=object) if "Gene names" in frame else ids
    by_ids = src.var_names in ("protein_ids", "ids")
    names = _names(genes[keep], ids[keep], by_ids)
    samples = np.array([c[len(family) + 1 :].strip() for c in sample_cols], dtype=object)
    dropped = ", ".join(f"{n} {c}" for c, n in counts.items() if n)
    n_unquantified = int((~flagged & ~quantified).sum())
    note = (
        f"read as a MaxQuant protein-groups table: {len(samples)} {family} samples, {len(frame):,} -> "
        f"{int(keep.sum()):,} protein groups after removing {int(flagged.sum()):,} flagged row(s)"
        + (f" ({dropped})" if dropped else "")
        + (f" and {n_unquantified:,} never quantified in {family}" if n_unquantified else "")
        + f"; 0 read as not detected (missing); samples as rows; {'protein ids' if by_ids else 'gene names'} "
        f"as feature names (other families: {[f for f in fams if f != family] or 'none'}; intensity= chooses)"
    )
    return {
        "X": readonly(np.ascontiguousarray(values[keep].T)),
        "y": None,
        "feature_names": names,
        "label_column": None,
        "format": "maxquant",
        "sample_names": samples,
        "table_meta": {
            "transposed": True,
            "feature_ids": [str(v) for v in ids[keep]],
            **_symbol_meta(names, genes[keep], ids[keep]),
            "intensity": family,
            "intensity_families": list(fams),
            "flagged_rows": {c: n for c, n in counts.items() if n},
        },
        "notes": [note],
    }


def _detect_maxquant(src: Source) -> bool:
    return b"Majority protein IDs" in src.head(1 << 16) and is_maxquant(_header(src))


MAXQUANT_READER = Reader(
    "maxquant",
    _load_maxquant,
    "MaxQuant proteinGroups table",
    detect=_detect_maxquant,
    aliases=("proteingroups",),
)


# ---------------------------------------------------------------------------- DIA-NN
def sample_stem(raw: str) -> str:
    """A run's name from its raw file's path: ``D:\\runs\\S01_ctrl.raw`` -> ``S01_ctrl``.

    >>> sample_stem(r"D:\\runs\\2023\\S01_ctrl.raw"), sample_stem("/data/S02.d"), sample_stem("S03.mzML")
    ('S01_ctrl', 'S02', 'S03')
    """
    base = re.split(r"[\\/]", str(raw).strip().rstrip("\\/"))[-1]
    return _RAW_SUFFIX.sub("", base) or base


def _is_diann(columns: list[str]) -> bool:
    return {"Protein.Group", "Protein.Ids"} <= set(columns) and any(c not in DIANN_METADATA for c in columns)


def _load_diann(src: Source, label) -> dict:
    who = f"load_dataset: {src.label}"
    columns = _header(src)
    meta_cols = [c for c in columns if c in DIANN_METADATA]
    runs = [c for c in columns if c not in DIANN_METADATA]
    frame = _table(src, meta_cols, who)
    src.check(dense_bytes(len(runs), len(frame)), f"{len(runs)} runs x {len(frame):,} rows")
    values = _values(frame, runs, who)
    quantified = ~np.isnan(values).all(axis=1)
    precursor = "Precursor.Id" in meta_cols
    key = "Precursor.Id" if precursor else "Protein.Group"
    ids = frame[key].astype(str).to_numpy(dtype=object)
    genes = frame["Genes"].to_numpy(dtype=object) if "Genes" in frame and not precursor else ids
    by_ids = src.var_names in ("protein_ids", "ids")
    names = _names(genes[quantified], ids[quantified], by_ids)
    stems = np.array([sample_stem(r) for r in runs], dtype=object)
    if len(set(stems.tolist())) < len(stems):
        stems = make_unique(stems)
    what = "precursor" if precursor else "protein-group"
    note = (
        f"read as a DIA-NN {what} matrix: {len(runs)} runs x {int(quantified.sum()):,} {what}s"
        + (f" ({int((~quantified).sum()):,} never quantified left out)" if (~quantified).any() else "")
        + f"; run names cleaned from file paths to their stems (e.g. {runs[0][:60]!r} -> {stems[0]!r}; "
        f"the raw names in meta['raw_sample_names']); {names_preview(meta_cols)} are names and ids, not "
        f"features; {'ids' if by_ids or precursor else 'gene names'} as feature names"
    )
    return {
        "X": readonly(np.ascontiguousarray(values[quantified].T)),
        "y": None,
        "feature_names": names,
        "label_column": None,
        "format": "diann",
        "sample_names": stems,
        "table_meta": {
            "transposed": True,
            "feature_ids": [str(v) for v in ids[quantified]],
            **_symbol_meta(names, genes[quantified], ids[quantified]),
            "raw_sample_names": list(runs),
        },
        "notes": [note],
    }


def _detect_diann(src: Source) -> bool:
    return b"Protein.Group" in src.head(1 << 16) and _is_diann(_header(src))


DIANN_READER = Reader(
    "diann",
    _load_diann,
    "DIA-NN pg/pr matrix",
    detect=_detect_diann,
    aliases=("pg_matrix", "pr_matrix"),
)


# ---------------------------------------------------------------------------- Spectronaut
_SN_QUANTITY = re.compile(r"^\[\d+\]\s*(.+?)\.PG\.Quantity$")


def _is_spectronaut(columns: list[str]) -> bool:
    return "PG.ProteinGroups" in columns and any(_SN_QUANTITY.match(c) for c in columns)


def _load_spectronaut(src: Source, label) -> dict:
    who = f"load_dataset: {src.label}"
    columns = _header(src)
    runs = [c for c in columns if _SN_QUANTITY.match(c)]
    meta_cols = [c for c in columns if c not in runs]
    frame = _table(src, meta_cols, who, extra_na=("Filtered",))  # Spectronaut's word for a left-out value
    src.check(dense_bytes(len(runs), len(frame)), f"{len(runs)} runs x {len(frame):,} protein groups")
    values = _values(frame, runs, who)
    quantified = ~np.isnan(values).all(axis=1)
    ids = frame["PG.ProteinGroups"].astype(str).str.split(";").str[0].to_numpy(dtype=object)
    genes = frame["PG.Genes"].to_numpy(dtype=object) if "PG.Genes" in frame else ids
    by_ids = src.var_names in ("protein_ids", "ids")
    names = _names(genes[quantified], ids[quantified], by_ids)
    stems = make_unique(np.array([sample_stem(_SN_QUANTITY.match(r).group(1)) for r in runs], dtype=object))
    note = (
        f"read as a Spectronaut protein-group report: {len(runs)} runs x {int(quantified.sum()):,} protein "
        f"groups; run names cleaned to their stems (e.g. {runs[0][:60]!r} -> {stems[0]!r}; the raw names in "
        f"meta['raw_sample_names']); {names_preview(meta_cols)} are names and ids, not features"
    )
    return {
        "X": readonly(np.ascontiguousarray(values[quantified].T)),
        "y": None,
        "feature_names": names,
        "label_column": None,
        "format": "spectronaut",
        "sample_names": stems,
        "table_meta": {
            "transposed": True,
            "feature_ids": [str(v) for v in ids[quantified]],
            **_symbol_meta(names, genes[quantified], ids[quantified]),
            "raw_sample_names": list(runs),
        },
        "notes": [note],
    }


def _detect_spectronaut(src: Source) -> bool:
    return b"PG.Quantity" in src.head(1 << 16) and _is_spectronaut(_header(src))


SPECTRONAUT_READER = Reader(
    "spectronaut", _load_spectronaut, "Spectronaut protein-group report", detect=_detect_spectronaut
)
