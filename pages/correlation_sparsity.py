"""Correlation sparsity: |rho| over all feature pairs (TPAMI GDM paper, Fig. 1), 1 - tau marked."""

import streamlit as st

import appkit
from fsviz.viz import correlation_sparsity

st.title("Correlation sparsity")
ds = appkit.require_dataset()
if not appkit.library_ready("stats", "correlation_histogram"):
    st.stop()
ctl, out = st.columns([1, 3], gap="medium")

appkit.seed_form("hist", {"bins": 20, "max_features": 20_000} | appkit.shown_params("histogram", ds))
with ctl.form("hist"):
    n_bins = st.select_slider("intervals on [0, 1]", [10, 20, 50, 100], key="hist_bins")
    max_features = st.number_input(
        "exact up to this many features (else a sampled estimate)",
        100,
        10_000_000,
        step=1000,
        key="hist_max_features",
    )
    run = st.form_submit_button("Count pairs", type="primary", width="stretch")

with out:
    res = appkit.histogram(ds, n_bins, int(max_features), run)
if res is None:
    out.info("Press **Count pairs**.")
    st.stop()

how = "exact over all" if res.exact else f"estimated from {res.n_pairs:,} sampled pairs of"
ctl.caption(
    f"Counts are **{how}** {res.n_pairs_total:,} pairs of non-constant features "
    f"({res.n_constant} constant features not counted); {res.seconds:.2f} s."
)


@st.fragment
def view(res):
    tau = st.slider(
        "tau to mark (1 − τ is GDM's affiliation threshold)",
        0.0,
        1.0,
        float(appkit.shown_params("gdm", ds).get("tau", 0.3)),
        0.01,
    )
    st.plotly_chart(
        correlation_sparsity(
            res.edges, res.counts, tau=tau, exact=res.exact, n_pairs_total=res.n_pairs_total
        ),
        key="sparsity",
    )


with out:
    view(res)
