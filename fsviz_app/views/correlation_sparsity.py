"""Correlation sparsity: |rho| over all feature pairs (TPAMI GDM paper, Fig. 1), 1 - tau marked;
the most correlated pairs and every feature's correlation with one feature or the target."""

import streamlit as st

import fsviz.compute as fc
import fsviz_app.appkit as appkit
from fsviz.compute import Run
from fsviz.viz import correlation_bars, correlation_network, correlation_sparsity

st.title("Correlation sparsity")
ds = appkit.require_dataset()
st.caption(appkit.target_note(ds, "correlation"))
ctl, out = st.columns([1, 3], gap="medium")

shown = appkit.shown("histogram", ds)
if shown:  # the form starts from the histogram shown, else from the declared defaults
    appkit.seed_form("hist", {k: shown.get(k) for k in ("bins", "max_features")})
with ctl.container(border=True):
    n_bins = appkit.param_options(st, "histogram", "bins", key="hist_bins")
    max_features = appkit.param_number(st, "histogram", "max_features", key="hist_max_features")
    clicked = st.button("Count pairs", type="primary", width="stretch")

run = Run("histogram", {"bins": int(n_bins), "max_features": int(max_features)}, appkit.seed())
with out:
    res = appkit.page_result(
        "histogram", ds, run, clicked, "Counting |rho| over all pairs", progress=True, button="Count pairs"
    )
if res is None:
    out.info("Press **Count pairs**.")
    st.stop()

ctl.caption(fc.histogram_text(res))
gdm = appkit.shown("gdm", ds)


@st.fragment
def view(res):
    tau = st.slider(
        "tau to mark (1 − τ is GDM's affiliation threshold)",
        0.0,
        1.0,
        float((gdm or Run("gdm")).get("tau")),
        0.01,
    )
    st.plotly_chart(
        correlation_sparsity(
            res.edges,
            res.counts,
            tau=tau,
            exact=res.exact,
            n_pairs_total=res.n_pairs_total,
            n_sampled=None if res.exact else res.n_pairs,  # an estimate: error bars of its sample
        ),
        key="sparsity",
    )


with out:
    view(res)

st.header("Correlation explorer")


@st.fragment  # the explorer reruns alone; the histogram above is drawn first
def explorer():
    c1, c2, c3 = st.columns([1, 1, 2])
    method = c1.radio("correlation", ["pearson", "spearman"], horizontal=True, key="cx_method")
    k = appkit.param_number(c2, "pairs", "k", key="cx_k")
    layout = c3.radio("network layout", ["circular", "spring"], horizontal=True, key="cx_layout")
    run = Run("pairs", {"k": int(k), "method": method})
    # wide data: the top pairs take another pass over all pairs, so they wait for a click
    wanted = (
        not appkit.wide(ds)
        or appkit.stored(ds, run) is not None
        or st.toggle(
            f"Find the {int(k)} most correlated pairs (another pass over all pairs of "
            f"{fc.plural(ds.n_features, 'feature')})",
            key="cx_pairs_on",
        )
    )
    pairs = appkit.result(ds, run, "Finding the most correlated pairs") if wanted else None
    if pairs is not None:
        left, right = st.columns([3, 2])
        left.plotly_chart(
            correlation_network((pairs.i, pairs.j, pairs.rho), ds.feature_labels, layout=layout), key="cx_net"
        )
        right.dataframe(
            fc.pairs_frame(pairs, ds.feature_labels), hide_index=True, width="stretch", height=420
        )
    against = appkit.feature_picker(
        ds,
        "every feature's correlation with",
        key="cx_against",
        extra=["the target"] if ds.y is not None else [],
    )
    if against is None:
        return
    run = Run(
        "correlations", {"against": "target" if isinstance(against, str) else int(against), "method": method}
    )
    corr = appkit.result(ds, run, "Correlating every feature")
    if corr is not None:
        st.plotly_chart(correlation_bars(corr.rho, ds.feature_labels, against=corr.against), key="cx_bars")


explorer()
