"""The GRM page's computing panels: prior-groups editor, effect of the priors, scores table, gamma sweep."""

from __future__ import annotations

import streamlit as st

import fsviz.compute as fc
from fsviz.compute import Run
from fsviz_app.appkit.results import cv_help, evaluation, result, stored
from fsviz_app.appkit.state import per_dataset, seed, shown


def grm_form_defaults(ds) -> dict:
    """The GRM form's starting values: those of the result shown, else the defaults."""
    shown_run = shown("grm", ds)
    run = shown_run or Run("grm", {})  # GRM's declared defaults
    default = fc.grm_default_base(ds.target_kind)
    base = run.get("base") or Run(default, fc.grm_base_params(default), seed())
    neighbours = fc.method("lgd").params["n_neighbors"].default  # the base scores' neighbourhood
    n_top = min(run.get("n_top"), ds.n_features)
    if shown_run is None:  # first visit: GRM re-ranks only features with some base evidence
        scores = result(ds, base, "Scoring the features")
        if scores is not None:
            n_top = fc.evidence_n_top(scores.scores, n_top, k=fc.TOP_K.default)
    return {
        "method": base.method,
        "n_neighbors": base.get("n_neighbors", neighbours),
        "n_top": n_top,
        "gamma": run.get("gamma"),
    }


def prior_groups_editor(ds) -> list[list[int]]:
    """Prior groups for GRM, picked by feature name; returns the groups (feature indices).

    A group comes from a searchable multiselect, from pasted lines of comma-separated
    names, or from the GDM groups shown on the Groups page. Unknown names and features in
    two groups are refused with a message; nothing is coerced.
    """
    state = per_dataset("prior", ds)
    groups: list[list[int]] = state.setdefault("groups", [])
    names = [str(n) for n in ds.feature_names]
    labels = [str(n) for n in ds.feature_labels]  # SYMBOL (ID) with feature annotations

    def add(new: list[list[int]]) -> None:
        taken = {j: i + 1 for i, g in enumerate(groups) for j in g}
        clash = [j for g in new for j in g if j in taken]
        if clash:
            st.error(
                f"{labels[clash[0]]!r} is already in prior group {taken[clash[0]]}; "
                "a feature belongs to one group (remove that group first)."
            )
            return
        groups.extend(sorted(set(g)) for g in new)

    if ds.n_features <= 5000:  # a multiselect over more options is too heavy for the browser
        c1, c2 = st.columns([4, 1], vertical_alignment="bottom")
        picked = c1.multiselect(
            "Pick the features of a new group (type to search)",
            range(ds.n_features),
            format_func=labels.__getitem__,
            key="prior_pick",
        )
        if c2.button("Add as a group", key="prior_add_pick", disabled=len(picked) < 2, width="stretch"):
            add([list(picked)])
    annotated = (ds.meta or {}).get("feature_info") is not None  # gene symbols beside the IDs
    text = st.text_area(
        "…or paste groups: one group per line, feature names separated by commas"
        + (" (IDs or gene symbols; a symbol takes all its features)" if annotated else ""),
        key="prior_text",
        height=90,
        placeholder=", ".join(names[:3]) + "\n" + ", ".join(names[3:5]),
    )
    b1, b2, b3 = st.columns(3)
    if b1.button("Add pasted groups", key="prior_add_text", width="stretch"):
        try:
            pasted = fc.resolve_prior_groups(text, names, aliases=fc.name_aliases(ds))
        except ValueError as e:
            st.error(str(e))
        else:
            add([list(g) for g in pasted.groups])
            for note in pasted.notes:
                st.info(note)
    if b2.button("Add the GDM groups of the Groups page", key="prior_add_gdm", width="stretch"):
        gdm = shown("gdm", ds)
        res = stored(ds, gdm) if gdm is not None else None
        if res is None:
            st.warning("No GDM groups yet: run GDM on the Groups page first.")
        else:
            add(fc.gdm_prior_groups(res))
    if b3.button("Remove all prior groups", key="prior_clear", width="stretch"):
        groups.clear()
    if groups:
        st.dataframe(fc.prior_groups_frame(groups, names), hide_index=True, width="stretch", height=180)
        c1, c2 = st.columns([4, 1], vertical_alignment="bottom")
        drop = c1.multiselect("Remove groups", range(1, len(groups) + 1), key="prior_drop")
        if c2.button("Remove", key="prior_drop_btn", disabled=not drop, width="stretch"):
            groups[:] = [g for i, g in enumerate(groups, start=1) if i not in set(drop)]
            st.rerun()
    return [list(g) for g in groups]


def prior_effect(ds, plain: fc.GRMResult, constrained: fc.GRMResult, prior: list, k: int) -> None:
    """Redundancy, CV accuracy (R² for a continuous target) and rank spread of the prior groups,
    GRM without vs with priors."""
    cols = st.columns(2)
    for col, res, title in zip(cols, (plain, constrained), ("without priors", "with priors"), strict=True):
        ev = evaluation(ds, res.run, k)
        spread = fc.prior_group_spread(res.ranking, prior)
        col.markdown(f"**GRM {title}**")
        if ev is not None:
            col.metric(f"redundancy of top {ev.k}", f"{ev.redundancy:.3f}")
            col.metric(ev.quality_label, fc.quality_text(ev), help=fc.evaluation_note(ev) or cv_help(ev))
        col.metric(
            "mean rank spread within a prior group", f"{spread:.1f}", help="max − min rank; lower = together"
        )


def grm_table(where, ds, res, prior: list, k: int) -> None:
    """GRM's scores and ranks, with the evidence columns, and the near-zero-evidence warning."""
    frame = fc.grm_frame(res, ds.feature_labels, prior, k=k)
    if fc.grm_evidence_warning(frame, k):
        where.warning(fc.grm_evidence_warning(frame, k))
    where.dataframe(
        frame,
        hide_index=True,
        width="stretch",
        height=320,
        column_config={
            "base score / top": st.column_config.NumberColumn(
                format="%.3f", help="base score over the best one"
            ),
            "note": st.column_config.TextColumn(
                help=f"features of GRM's top {k} promoted from below base rank {2 * k}, or with near-zero "
                "base evidence",
                width="medium",
            ),
        },
    )


def gamma_sweep(ds, run: Run, prior: list, k: int) -> None:
    """GRM over gamma in (0, 0.3, 1, 3, 10): redundancy of the top k and the prior groups' rank spread."""
    import pandas as pd

    rows = []
    for g in (0.0, 0.3, 1.0, 3.0, 10.0):
        res = result(ds, run.replace(gamma=g), f"GRM with gamma={g:g}")
        if res is None:
            return
        ev = evaluation(ds, res.run, k)
        rows.append(
            {
                "gamma": g,
                f"redundancy of top {k}": None if ev is None else ev.redundancy,
                "mean rank spread in a prior group": fc.prior_group_spread(res.ranking, prior),
            }
        )
    frame = pd.DataFrame(rows).set_index("gamma")
    st.dataframe(frame, width="stretch")
    st.line_chart(frame, x_label="gamma", height=240)


def prior_groups_warnings(ds, res) -> list[str]:
    """The prior groups of a GRM result that its working set leaves out (they change nothing)."""
    groups = res.run.get("prior_groups") or ()
    if not groups:
        return []
    base = result(ds, res.base_run, "Scoring")
    if base is None:
        return []
    return fc.prior_groups_outside(base.scores, groups, int(res.run.get("n_top")), ds.feature_labels)
