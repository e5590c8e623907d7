"""Feature annotations: a second table keyed by feature name that gives each feature a display name.

Expression data name their features by IDs a pipeline chose: microarray probes (``1007_s_at``),
Ensembl genes, UniProt accessions. A person reads gene symbols. The symbols come in a second
table: a GEO platform annotation (``ID`` -> ``Gene Symbol``), AnnData's ``var``, 10x's
``features.tsv``, MaxQuant's ``Gene names``. :func:`match_feature_annotations` joins such a table
to the features and returns ``Dataset.feature_info``: a DataFrame indexed by the feature names
(the original IDs) with at least ``display_name``, and the table's other columns as descriptions.

- The key column is chosen as the sample-annotation join key is
  (:func:`fsviz.data.annotations.key_candidates`: identifier-like columns only, the one naming the
  most features), or given (``feature_key=``).
- The display column is found by its name (``Gene Symbol``, ``gene_symbol``, ``symbol``,
  ``Gene names``, ``gene_name``, ...), or given (``feature_display=``).
- A feature without a row, or with a blank symbol, keeps its ID as its display name.
- Several features with one symbol are never merged: each is labelled ``SYMBOL (ID)``.

:func:`display_labels` is the one place charts, tables, exports and reports get a feature's label:
``SYMBOL (ID)`` when the display name differs from the ID, the ID otherwise.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from fsviz.data.annotations import MAX_META_COLUMNS, key_candidates
from fsviz.data.validation import names_preview

__all__ = [
    "DISPLAY_COLUMNS",
    "display_labels",
    "feature_info_frame",
    "match_feature_annotations",
    "read_feature_annotations",
]

#: column names (lower case, letters and digits only) read as the display name, best first
DISPLAY_COLUMNS = (
    "genesymbol",
    "genesymbols",
    "symbol",
    "symbols",
    "hgncsymbol",
    "genenames",
    "genename",
    "geneshortname",
    "gene",
    "displayname",
    "featurename",
)


def _plain_name(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", str(name).lower())


def _text(values) -> np.ndarray:
    import pandas as pd

    s = pd.Series(values, dtype=object)
    return s.where(s.notna(), "").astype(str).str.strip().to_numpy(dtype=object)


def read_feature_annotations(obj: Any, *, who: str, budget: int = 0):
    """A feature-annotation table (CSV, TSV, Excel; gzipped or zipped) as a DataFrame.

    Parameters
    ----------
    obj : str, Path, bytes, binary file-like or pandas.DataFrame
        The table; a frame with a named index (AnnData's ``var``) has its index as a column.
    who : str
        Names the caller in messages.
    budget : int, default=0
        Memory budget in bytes (0: none).
    """
    from fsviz.data.annotations import annotation_source, read_annotations

    return read_annotations(
        annotation_source(obj),
        who=who,
        budget=budget,
        na_values=("", "---", "NA", "nan"),
        what="feature",
        comment=("#", "!", "^"),  # GEO's column notes and its !platform_table_begin/end lines
    )


def _display_column(table, key: str, display: str | None, where: str) -> str:
    columns = [str(c) for c in table.columns]
    if display is not None:
        if display not in columns:
            raise ValueError(
                f"{where}: no column {display!r} to take display names from; columns are "
                f"{names_preview(columns, 20)}. Fix: feature_display= one of them."
            )
        return display
    by_name = {_plain_name(c): c for c in reversed(columns) if c != key}
    found = next((by_name[w] for w in DISPLAY_COLUMNS if w in by_name), None)
    if found is None:
        raise ValueError(
            f"{where}: no column named like a gene symbol ('Gene Symbol', 'symbol', 'Gene names', "
            f"'gene_name', ...); columns are {names_preview(columns, 20)}. Fix: name the display column "
            "with feature_display= (the CLI's --feature-display)."
        )
    return found


def match_feature_annotations(
    table,
    feature_names: Sequence[str],
    *,
    key: str | None = None,
    display: str | None = None,
    who: str = "feature annotations",
    label: str | None = None,
    required: bool = True,
):
    """Join a feature-annotation table to the features.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per feature (a platform annotation, a ``var`` table).
    feature_names : sequence of str
        The features' names (IDs), as the data file gives them.
    key : str, optional
        The column holding the feature names (default: the identifier-like column naming most).
    display : str, optional
        The column of display names (default: found by name, e.g. ``Gene Symbol``).
    who : str
        Names the table in error messages.
    label : str, optional
        Names the table in the notes (default ``who``).
    required : bool, default=True
        False for a table a format carries (AnnData's ``var``): no display column is then no
        error, and None is returned.

    Returns
    -------
    info : pandas.DataFrame or None
        Indexed by ``feature_names``: ``display_name`` then the table's other columns (text).
    notes : list of str
        How many features got a display name, which kept their ID, which share one.
    """
    import pandas as pd

    names = _text(np.asarray(feature_names, dtype=object))
    columns = [str(c) for c in table.columns]
    table = table.set_axis(columns, axis=1)
    if key is not None and key not in columns:
        raise ValueError(
            f"{who}: no column {key!r} holds the feature names; columns are {names_preview(columns, 20)}. "
            "Fix: feature_key= one of them, or leave it out to find it."
        )
    if key is None:
        found = [k for k in key_candidates(table, names) if k.candidate]
        if not found:
            if not required:
                return None, []
            raise ValueError(
                f"{who}: no identifier column holds the feature names (features are "
                f"{names_preview(names.tolist(), 5)}; columns are {names_preview(columns, 20)}, starting "
                f"{names_preview(_text(table.iloc[:3, 0].to_numpy(dtype=object)).tolist(), 3)}). Fix: choose "
                "the annotation table of this platform, or name its ID column with feature_key=."
            )
        key = found[0].column
    try:
        shown = _display_column(table, key, display, who)
    except ValueError:
        if required:
            raise
        return None, []
    ids = _text(table[key].to_numpy(dtype=object))
    keep = ids != ""
    rows = table[keep].drop_duplicates(subset=[key]) if keep.any() else table[keep]
    rows = rows.set_axis(_text(rows[key].to_numpy(dtype=object)), axis=0)
    matched = rows.reindex(pd.Index(names, dtype=object))
    symbol = pd.Series(_text(matched[shown].to_numpy(dtype=object)), index=matched.index)
    has = (symbol != "").to_numpy()
    n_rows = int(matched[key].notna().sum())
    if n_rows == 0:
        raise ValueError(
            f"{who}: column {key!r} names none of the {len(names)} features (features are "
            f"{names_preview(names.tolist(), 5)}; the column holds "
            f"{names_preview(ids[keep][:5].tolist(), 5)}). Fix: choose the annotation table of this "
            "platform, or feature_key= the column of feature IDs."
        )
    counts = symbol[has].value_counts()
    shared = has & (symbol.map(counts).fillna(0).to_numpy() > 1)
    display_name = np.where(has, symbol.to_numpy(dtype=object), names).astype(object)
    display_name[shared] = (
        symbol[shared] + " (" + pd.Series(names[shared], index=symbol.index[shared]) + ")"
    ).to_numpy()
    info = pd.DataFrame({"display_name": display_name}, index=pd.Index(names, dtype=object))
    others = [c for c in columns if c not in (key, shown)][:MAX_META_COLUMNS]
    for c in others:
        info[c] = _text(matched[c].to_numpy(dtype=object))
    info.attrs.update({"key": key, "display": shown})
    head = f"feature annotations {label}" if label else who
    notes = [
        f"{head}: {int(has.sum())} of {len(names)} features got a display name from column {shown!r} "
        f"(keyed by {key!r})"
    ]
    if int((~has).sum()):
        lost = names[~has]
        notes.append(
            f"{len(lost)} feature(s) without a {shown!r} keep their ID as display name "
            f"({names_preview(lost.tolist(), 5)})"
        )
    if int(shared.sum()):
        n_sym = int((counts > 1).sum())
        notes.append(
            f"{n_sym} {shown!r} value(s) name several features ({int(shared.sum())} features); each is "
            f"labelled 'SYMBOL (ID)', none merged (e.g. {display_name[shared][0]!r})"
        )
    return info, notes


def feature_info_frame(info, feature_names: Sequence[str]):
    """``info`` reindexed to ``feature_names``: every feature a row, ``display_name`` filled with
    the feature's own name where ``info`` has none (a column added after loading, a default name)."""
    import pandas as pd

    names = pd.Index(_text(np.asarray(feature_names, dtype=object)), dtype=object)
    if info is None or len(info) == 0:
        return pd.DataFrame({"display_name": names.to_numpy(dtype=object)}, index=names)
    out = info.reindex(names)
    shown = out["display_name"]
    out["display_name"] = shown.where(shown.notna() & (shown != ""), pd.Series(names, index=names))
    for c in out.columns[1:]:
        out[c] = out[c].fillna("")
    return out


def display_labels(info, feature_names: Sequence[str]) -> np.ndarray:
    """The label of each feature in charts and tables: ``SYMBOL (ID)`` when its display name
    differs from its ID (a shared symbol's display name already carries the ID), the ID otherwise.

    Parameters
    ----------
    info : pandas.DataFrame or None
        ``Dataset.feature_info`` (or a frame with ``display_name``, indexed by the IDs).
    feature_names : sequence of str
        The IDs, in the order the labels are wanted.

    Examples
    --------
    >>> import pandas as pd
    >>> info = pd.DataFrame({"display_name": ["TP53", "p2"]}, index=["p1", "p2"])
    >>> display_labels(info, ["p1", "p2"]).tolist()
    ['TP53 (p1)', 'p2']
    """
    import pandas as pd

    names = pd.Series(_text(np.asarray(feature_names, dtype=object)), dtype=object)
    if info is None or "display_name" not in getattr(info, "columns", ()):
        return names.to_numpy(dtype=object)
    shown = pd.Series(feature_info_frame(info, names)["display_name"].to_numpy(dtype=object), dtype=object)
    tail = (" (" + names + ")").to_numpy(dtype=str)
    plain = (shown == names).to_numpy() | np.char.endswith(shown.to_numpy(dtype=str), tail)
    return shown.where(plain, shown + " (" + names + ")").to_numpy(dtype=object)


def carried_feature_info(parts: dict, names: np.ndarray):
    """The feature annotations a format carries in its raw parts: AnnData's ``var`` (a
    ``feature_table`` part; used when it has a column named like a symbol), or the IDs beside the
    symbols that name the features (``table_meta["feature_ids"]``: 10x, Loom, MaxQuant, DIA-NN), and
    the symbols themselves where a name is not its symbol (``table_meta["feature_symbols"]``: 10x's
    repeats made unique, ``MATR3-1``), as column ``symbol``."""
    import pandas as pd

    var = parts.pop("feature_table", None)
    if var is not None and len(var) == len(names):
        table = var.reset_index(names="_index").astype(object)
        table.insert(0, "_feature", names)
        info, _ = match_feature_annotations(table, names, key="_feature", required=False, who="var")
        if info is not None:
            info = info.drop(columns=["_index"], errors="ignore")
            return info, [f"display names from var column {info.attrs['display']!r}"]
    meta = parts.get("table_meta") or {}
    ids = meta.get("feature_ids")
    if ids is not None and len(ids) == len(names):
        info = pd.DataFrame(
            {"display_name": names, "feature_id": _text(np.asarray(ids, dtype=object))},
            index=pd.Index(names, dtype=object),
        )
        symbols = meta.get("feature_symbols")  # 10x's symbols before repeats were made unique
        if symbols is not None and len(symbols) == len(names):
            info["symbol"] = _text(np.asarray(symbols, dtype=object))
        return info, []
    return None, []


def attach_feature_info(parts: dict, table, plan, *, who: str, budget: int = 0) -> dict:
    """The raw parts with ``table_meta["feature_info"]`` (and notes) from the format itself and/or
    a feature-annotation table (``load_dataset(..., feature_annotations=)``)."""
    names = parts.get("feature_names")
    if names is None:
        if table is not None:
            raise ValueError(
                f"{who}: feature annotations were given, but the data's features have no names to join "
                "them on. Fix: load a file whose header (or first column, transposed) names the features."
            )
        parts.pop("feature_table", None)
        return parts
    names = _text(np.asarray(names, dtype=object))
    info, notes = carried_feature_info(parts, names)
    if table is not None:
        frame = read_feature_annotations(table, who=who, budget=budget)
        label = "(a table)" if hasattr(table, "columns") else str(getattr(table, "name", None) or table)
        label = label.replace("\\", "/").rsplit("/", 1)[-1]
        key, display = plan.feature_key, plan.feature_display
        try:
            given, given_notes = match_feature_annotations(
                frame, names, key=key, display=display, who=f"{who}: feature annotations {label}", label=label
            )
        except ValueError:
            ids = (
                None
                if info is None or "feature_id" not in info
                else info["feature_id"].to_numpy(dtype=object)
            )
            if ids is None:
                raise
            given, given_notes = match_feature_annotations(
                frame, ids, key=key, display=display, who=f"{who}: feature annotations {label}", label=label
            )
            given.index = info.index  # keyed by the IDs beside the names (10x gene ids)
        if info is not None:
            extra = [c for c in info.columns if c != "display_name" and c not in given.columns]
            given = given.join(info[extra]) if extra else given
        info, notes = given, notes + given_notes
    if info is not None:
        meta = dict(parts.get("table_meta") or {})
        meta["feature_info"] = info
        parts["table_meta"] = meta
        parts["notes"] = list(parts.get("notes") or []) + notes
    return parts


def export_display_names(dataset) -> np.ndarray | None:
    """The ``display_name`` column an export adds beside ``name`` (the ID): the dataset's display
    names when it has feature annotations, None otherwise (exports keep their columns)."""
    if (dataset.meta or {}).get("feature_info") is None:
        return None
    return dataset.feature_info["display_name"].to_numpy(dtype=object)


def dataset_labels(dataset) -> np.ndarray:
    """``Dataset.feature_labels``: :func:`display_labels` of its ``meta["feature_info"]`` (its
    feature names without one), computed once per dataset (0.15 s for 55k probes) and read-only."""
    info = (dataset.meta or {}).get("feature_info")
    if info is None:
        return dataset.feature_names
    labels = dataset.__dict__.get("_feature_labels")
    if labels is None or len(labels) != dataset.n_features:
        labels = display_labels(info, dataset.feature_names)
        labels.setflags(write=False)
        object.__setattr__(dataset, "_feature_labels", labels)  # a cache beside the frozen fields
    return labels


def labels_digest(dataset) -> bytes:
    """What the fingerprint adds for feature annotations: the display labels, only when one of
    them differs from its feature's name (b"" otherwise, so every other fingerprint is unchanged).
    Results that name features (an explanation's reasons) are cached by the fingerprint: a dataset
    read again with other annotations is another dataset to them."""
    labels = dataset_labels(dataset)
    if labels is dataset.feature_names or np.array_equal(labels, dataset.feature_names):
        return b""
    return b"feature_labels" + json.dumps(labels.tolist(), ensure_ascii=True).encode("ascii")
