"""Online selection: SAOLA, group-SAOLA and their baselines over a stream of arriving features,
every decision explained."""

import streamlit as st

import fsviz.compute as fc
import fsviz_app.appkit as appkit
from fsviz.data.feature_info import export_display_names
from fsviz.viz import stream_progress

st.title("Online selection (SAOLA)")
ds = appkit.require_dataset()
if ds.y is None:
    st.info(
        f"SAOLA tests each arriving feature against the target, and {ds.name!r} has none. "
        "Choose the target column in the sidebar (upload: 'Label column')."
    )
    st.stop()
ctl, out = st.columns([1, 3], gap="medium")
ctl.caption(appkit.target_note(ds, "online"))
ctl.caption(
    "The columns arrive in file order: that order is the stream, so another column order can "
    "select differently. The offline methods give one answer whatever the order."
)

appkit.seed_form("saola", appkit.saola_form_defaults(ds))
with ctl.container(border=True):
    method = st.radio(
        "method",
        fc.methods_for(ds.target_kind, ("stream",)),  # SAOLA and the SAOLA paper's baselines
        horizontal=True,
        key="saola_method",
        format_func=lambda k: fc.method(k).label,
    )
    params = {}
    if method in ("saola", "group-saola", "osfs", "fast-osfs"):
        params["alpha"] = appkit.param_number(st, "saola", "alpha", key="saola_alpha", format="%.4g")
    if method in ("saola", "group-saola"):
        params["delta"] = appkit.param_number(st, "saola", "delta", key="saola_delta")
    if method in ("saola", "group-saola", "osfs", "fast-osfs"):
        modes = ["auto", "continuous"] + (["discrete"] if ds.target_kind == "classes" else [])
        if st.session_state.get("saola_data") not in modes:  # discrete (SU) needs class labels
            st.session_state["saola_data"] = "auto"
        params["data"] = st.selectbox("data", modes, key="saola_data")
    if method == "alpha-investing":
        c1, c2 = st.columns(2)
        ai = fc.method("alpha-investing").params  # declared ranges and defaults
        params["w0"] = appkit.param_number(c1, "alpha-investing", "w0", key="ai_w0", value=ai["w0"].default)
        params["dw"] = appkit.param_number(c2, "alpha-investing", "dw", key="ai_dw", value=ai["dw"].default)
    if method == "grafting":
        lam = fc.method("grafting").params["lam"].default
        params["lam"] = appkit.param_number(st, "grafting", "lam", key="gr_lam", value=lam, format="%.4g")
    chunk = st.select_slider(
        "features per arrival batch", [1, 10, 50, 100, 200, 500, 1000, 5000], key="saola_chunk"
    )
    grouping = (
        st.selectbox("groups (group-SAOLA)", ["GDM groups", "random partition"], key="saola_groups")
        if method == "group-saola"
        else None
    )
    clicked = st.button("Run stream", type="primary", width="stretch")

run = appkit.stream_run(ds, method, params, chunk, grouping)
with out:
    res = None
    if run is not None:
        res = appkit.page_result(
            "stream", ds, run, clicked, f"Streaming features through {method}", True, button="Run stream"
        )
    elif appkit.shown("stream", ds) is not None and not clicked:
        res = appkit.stored(ds, appkit.shown("stream", ds))
if res is None:
    out.info(
        "group-SAOLA with GDM groups needs a GDM run (Groups page) first."
        if run is None
        else "Press **Run stream**."
    )
    st.stop()

counts = res.counts()
cols = out.columns(5)
cols[0].metric("features arrived", f"{len(res.arrival):,}")
cols[1].metric("final selection", len(res.selected))
for c, d in zip(cols[2:], ["irrelevant", "redundant", "removed"], strict=True):
    c.metric(d, counts.get(d, 0))
out.caption(f"{res.run.label}; {res.seconds:.2f} s")
out.plotly_chart(stream_progress(res.set_size, res.outcome), key="stream")
with out:
    with st.expander("The cut: how many of the streamed selection to keep, and how sure"):
        appkit.cut_control(ds, res.run, key="stream_cut")  # the one-SE k or stability, drawn and named
    appkit.why_not(ds, res.selection(), "stream")  # rank, stand-in, correlation, reason


@st.fragment
def decisions(res):
    st.subheader("Every arriving feature and why (sortable)")
    which = st.multiselect("show outcomes", sorted(counts), default=sorted(counts), key="saola_show")
    st.dataframe(fc.stream_frame(res, ds.feature_labels, which), hide_index=True, width="stretch", height=320)
    st.subheader("Final selection")
    st.dataframe(
        fc.selection_frame(res.selection(), ds.feature_names, display_names=export_display_names(ds)),
        hide_index=True,
        width="stretch",
    )


decisions(res)
