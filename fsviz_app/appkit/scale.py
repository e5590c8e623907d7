"""What the views do at width: a feature is searched by name rather than picked from a list of
every feature, and panels that scan all pairs again wait for a click."""

from __future__ import annotations

import numpy as np
import streamlit as st

#: above this many features a dataset is "wide": feature pickers become a name search (a list
#: of every name would travel to the browser on each rerun) and all-pairs panels wait for a click
WIDE_FEATURES = 1000


def wide(ds) -> bool:
    return ds.n_features > WIDE_FEATURES


def feature_index(ds, name: str) -> int | None:
    """The index of the feature called ``name`` (exactly), or None."""
    hit = np.flatnonzero(np.asarray(ds.feature_names).astype(str) == name)
    return int(hit[0]) if hit.size else None


def feature_picker(ds, label: str, key: str, extra: list[str] | None = None):
    """A feature chosen by the user: its index, one of the ``extra`` choices (text), or None.

    Up to :data:`WIDE_FEATURES` features a searchable selectbox lists them all (``extra``
    first); wider data get a box for a feature's exact name (empty: the first ``extra``
    choice, e.g. "the target").
    """
    extra = list(extra or [])
    names = ds.feature_names
    if not wide(ds):
        options = extra + list(range(ds.n_features))
        return st.selectbox(
            label,
            options,
            index=0 if extra else None,
            format_func=lambda o: o if isinstance(o, str) else str(names[o]),
            key=key,
        )
    hint = f"; empty: {extra[0]}" if extra else ""
    # the label may be a question: the instruction goes in brackets, not after a colon ("in?:")
    typed = (st.text_input(f"{label} (a feature's exact name{hint})", key=f"{key}_name") or "").strip()
    if not typed:
        return extra[0] if extra else None
    j = feature_index(ds, typed)
    if j is None:
        st.warning(f"No feature is named {typed!r}.")
        return extra[0] if extra else None
    return j


#: runs that read a memory-mapped ``X`` block by block (GDM's column source, the histogram's
#: column blocks, the leakage check's sorted blocks, the image panels' few rows); every other
#: run needs the matrix in memory
OUT_OF_CORE = frozenset({"gdm", "histogram", "leakage", "images"})


def is_mapped(ds) -> bool:
    """Whether the dataset's matrix stays on disk (memory-mapped: it was over the memory budget)."""
    import scipy.sparse as sp

    X = ds.X
    return isinstance(X, np.memmap) or (sp.issparse(X) and isinstance(X.data, np.memmap))


def check_fits(run, ds) -> None:
    """Refuse, with the reason and the fix, a run that would read a memory-mapped matrix
    into memory when it does not fit the memory budget (the server stays up)."""
    if run.method in OUT_OF_CORE or not is_mapped(ds):
        return
    from fsviz.data.budget import MemoryBudgetError, dense_bytes, format_bytes, resolve_budget

    need, budget = dense_bytes(ds.n_samples, ds.n_features), resolve_budget()
    if budget and need > budget:
        raise MemoryBudgetError(
            f"{run.spec.label} needs the data in memory ({format_bytes(need)} as float64), over the "
            f"memory budget of {format_bytes(budget)}: this dataset stays on disk (memory-mapped), which "
            "GDM, the correlation histogram and the leakage check read block by block. Fix: run GDM "
            "and work on its selection, or raise FSVIZ_MEMORY_BUDGET if the server has the memory.",
            needed=need,
            budget=budget,
        )
