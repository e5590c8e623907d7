"""Compare and export: every selection computed for this dataset; CSV downloads that round-trip."""

import streamlit as st

import fsviz.compute as fc
import fsviz_app.appkit as appkit
from fsviz.data.feature_info import export_display_names
from fsviz.viz import compare_scatter

st.title("Compare and export")
ds = appkit.require_dataset()
sels = appkit.selections(ds)
if not sels:
    st.info("No selection computed for this dataset yet: run GDM, GRM or SAOLA first.")
    st.stop()

with st.form("evaluate"):
    k = appkit.param_slider(
        st, "evaluation", "k", key="cmp_k", label="evaluate the top-k features of each selection"
    )
    what = "CV R²" if ds.target_kind == "continuous" else "CV accuracy"
    biased = st.checkbox(
        f"also: {what} with the selection made on all samples (fast, optimistic)", key="cmp_biased"
    )
    # covariates: each selection redone on adjusted features, the adjustment fitted in each training fold
    covariates = appkit.adjust_for(ds, "cmp_cov", "adjust for (sample annotations; fitted in each fold)")
    clicked = st.form_submit_button("Evaluate", type="primary")
st.caption(appkit.target_note(ds, "compare"))


@st.fragment(parallel=True)  # evaluations run in a worker thread: the export panel does not wait
def table(k, auto, biased, covariates):
    rows = appkit.compare_rows(ds, k, auto=auto, biased=biased, covariates=covariates)
    frame = fc.compare_frame(rows, kept=appkit.kept_labels(ds))
    optimistic = [c for c in (fc.CV_BIASED, fc.CV_R2_BIASED) if c in frame]
    st.dataframe(
        frame if biased else frame.drop(columns=optimistic),
        hide_index=True,
        width="stretch",
        column_config={
            "parameters": st.column_config.TextColumn(width="medium"),  # long: hover for all
            "note": st.column_config.TextColumn(help="why a CV number is missing", width="large"),
        },
    )
    missing = fc.compare_chart_note(frame, biased)
    if missing:
        st.info(missing)
    else:
        st.plotly_chart(compare_scatter(frame), key="compare")


table(k, clicked or appkit.small(ds), biased, covariates)
if covariates:
    st.caption(
        f"Adjusted for {', '.join(covariates)}: each selection is redone on the features residualised on "
        "them, and the CV fits that adjustment on each training fold only (docs/significance.md)."
    )
c1, c2, _ = st.columns([1, 1, 2])
if c1.button(
    "Keep the runs on screen",
    help="Their rows stay when a slider moves on; by default the "
    "table holds one row per page, the run it shows.",
    key="cmp_keep",
):
    n = appkit.keep_shown(ds)
    st.toast(f"Kept {fc.plural(n, 'run')} for comparison.")
    st.rerun()
if appkit.kept_labels(ds) and c2.button("Forget the kept runs", key="cmp_forget"):
    appkit.forget_kept(ds)
    st.rerun()


@st.fragment
def export():
    st.subheader("Export")
    labels = list(sels)
    label = st.selectbox("selection", labels, index=appkit.export_default(ds, labels), key="export_sel")
    sel = sels[label]
    cut = appkit.cut_control(ds, sel.run, key="export_cut")  # a rule's cut, drawn and named
    if cut is not None:
        sel = cut  # its CSV carries the rule and its numbers (p, q; probabilities; the one-SE k)
    elif sel.run.spec.kind in ("score", "grm"):  # a ranking of every feature: its top k
        appkit.seed_form("export", {"k": min(fc.TOP_K.default, ds.n_features)})
        top = appkit.param_number(
            st,
            fc.SELECTION_SIZE,
            "k",
            key="export_k",
            high=ds.n_features,
            label="top k features to export",
        )
        sel = appkit.stored(ds, sel.run).selection(int(top))
    raw = st.checkbox(
        "exact CSV (for programs)",
        key="export_raw",
        help="Names as they are, byte for byte. By default a name that begins like a spreadsheet formula "
        "(= + - @) gets a ' in front, so opening the file in a spreadsheet program runs nothing.",
    )
    explained = st.checkbox(
        "also list every unselected feature, with its stand-in and why it was left out",
        key="export_explain",
        help="Adds the columns stand_in, stand_in_corr and reason (as fsviz select --explain).",
    )
    c1, c2, c3 = st.columns(3)
    csv = appkit.export_csv(ds, sel, explained, raw=raw)
    if csv is not None:
        c1.download_button(
            "Selection CSV, every feature explained"
            if explained
            else "Selection CSV (rank, index, name, score, role, group)",
            csv,
            file_name=appkit.file_name(ds, sel, "selection"),
            mime="text/csv",
            key="dl_sel",
            on_click="ignore",
        )
    reduced = appkit.reduced_csv(ds, sel, raw=raw)
    if reduced is not None:
        c2.download_button(
            "Reduced dataset CSV",
            reduced,
            file_name=appkit.file_name(ds, sel, "reduced"),
            mime="text/csv",
            key="dl_data",
            on_click="ignore",
        )
    c3.download_button(
        "Provenance (JSON)",
        fc.provenance_json(sel, ds),
        file_name=appkit.file_name(ds, sel, "provenance", ".json"),
        mime="application/json",
        key="dl_prov",
        on_click="ignore",
        help="dataset name and fingerprint, method, every parameter, seed, fsviz version, date",
    )
    st.dataframe(
        fc.selection_frame(sel, ds.feature_names, display_names=export_display_names(ds)),
        hide_index=True,
        width="stretch",
        height=300,
    )
    appkit.why_not(ds, sel, "export")  # rank, stand-in, correlation, reason


export()
