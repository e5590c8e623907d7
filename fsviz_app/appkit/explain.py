"""Why not this feature? The lookup every selection page shows, and the explained selection CSV."""

from __future__ import annotations

import numpy as np
import streamlit as st

import fsviz.compute as fc
from fsviz.data.feature_info import export_display_names
from fsviz.viz import stand_in_scatter
from fsviz_app.appkit.results import result, stored
from fsviz_app.appkit.widgets import show_error

#: a feature name is typed, not picked, above this many features (a selectbox of thousands of
#: options would travel to the browser on every rerun)
PICK_LIMIT = 1000


def explanation(ds, sel: fc.Selection) -> fc.ExplainResult | None:
    """Every feature of ``sel`` explained, through the result store (computed once per selection)."""
    return result(ds, fc.explain_run(sel.run, sel.k), f"Explaining {sel.run.label}")


def _why(ds, sel: fc.Selection, feature: int) -> fc.WhyNot | None:
    """One feature explained: from the stored explanation of every feature when there is one,
    else its own stand-in only: a k x 1 correlation block, not the k x m block of every
    feature (300 x 100,000, GDM: 0.06 s instead of 0.35 s per typed name, bare)."""
    ex = stored(ds, fc.explain_run(sel.run, sel.k))
    res = None if ex is not None else stored(ds, sel.run)
    if ex is None and res is None:  # the selection's result was evicted: the whole explanation
        ex = explanation(ds, sel)
    try:
        if ex is not None:
            return ex.lookup(feature, ds.feature_labels)
        return None if res is None else fc.explain_feature(ds, sel.run, res, feature, sel.k)
    except ValueError as e:
        show_error(e, "Why not this feature?")
        return None


def _pick_feature(ds, key: str) -> int | None:
    label = "Why not this feature?"
    if ds.n_features <= PICK_LIMIT:
        labels = [str(n) for n in ds.feature_labels]  # SYMBOL (ID) with feature annotations
        return st.selectbox(
            f"{label} (type to search)",
            range(ds.n_features),
            index=None,
            format_func=labels.__getitem__,
            key=f"why_{key}",
            help="Its rank, the selected feature that stands in for it (the most correlated one), "
            "that correlation and the method's reason.",
        )
    typed = st.text_input(f"{label} (its exact name or symbol)", key=f"why_name_{key}").strip()
    if not typed:
        return None
    # the ID, "SYMBOL (ID)", the symbol (the first with it): compared as arrays, looked up only
    # once something is typed (three lists of 100,000 names cost every rerun ~0.1 s)
    lists = (lambda: ds.feature_names, lambda: ds.feature_labels, lambda: ds.feature_info["display_name"])
    for known in lists:
        hit = np.flatnonzero(np.asarray(known(), dtype=object).astype(str) == typed)
        if hit.size:
            return int(hit[0])
    close = [n for n in map(str, ds.feature_names) if typed.lower() in n.lower()][:5]
    more = f" Names containing it: {', '.join(close)}." if close else ""
    st.warning(f"No feature is named {typed!r}.{more}")
    return None


def why_not(ds, sel: fc.Selection, key: str) -> None:
    """The "Why not this feature?" lookup for selection ``sel``: rank, stand-in, correlation and
    reason, and the feature against its stand-in, coloured by class."""
    with st.container(border=True):
        feature = _pick_feature(ds, key)
        if feature is None:
            st.caption(
                f"Pick a feature to see why {sel.run.spec.label} kept it or left it out, and which selected "
                "feature stands in for it."
            )
            return
        w = _why(ds, sel, int(feature))
        if w is None:
            return
        c1, c2, c3 = st.columns(3)
        c1.metric(
            "rank", f"{w.rank:,} of {w.n_features:,}", help="In the method's order: the selection first."
        )
        c2.metric("stand-in", w.stand_in_name or "—", help="The selected feature most correlated with it.")
        symbol = {"pearson": "ρ", "spearman": "ρ_s", "su": "SU"}[w.measure]
        c3.metric(
            f"correlation ({symbol})",
            "—" if w.stand_in < 0 else f"{w.stand_in_corr:+.3f}",
            help="Measured as the method measures redundancy (SU for information-theoretic methods).",
        )
        (st.success if w.selected else st.info)(w.text)
        if w.stand_in >= 0:
            x, z = fc.feature_pair(ds, w.feature, w.stand_in)
            st.plotly_chart(
                stand_in_scatter(
                    x,
                    z,
                    ds.labels,
                    feature_name=w.name,
                    stand_in_name=w.stand_in_name,
                    corr=w.stand_in_corr,
                    measure=w.measure,
                ),
                key=f"why_plot_{key}",
            )


def export_csv(ds, sel: fc.Selection, explained: bool, *, raw: bool = False) -> bytes | None:
    """The selection CSV; ``explained``: with every unselected feature, its stand-in and the reason;
    ``raw``: names byte for byte (else formula-like names get a quote, :func:`fc.selection_csv`)."""
    if not explained:
        return fc.selection_csv(sel, ds.feature_names, raw=raw, display_names=export_display_names(ds))
    ex = explanation(ds, sel)
    if ex is None:
        return None
    return fc.selection_csv(sel, ds.feature_names, ex, raw=raw, display_names=export_display_names(ds))
