"""Correlation sparsity: |rho| over all feature pairs (TPAMI GDM paper, Fig. 1), 1 - tau marked."""
import streamlit as st

import appkit
from fsviz.viz import correlation_sparsity

st.title("Correlation sparsity")
ds = appkit.require_dataset()
if not appkit.library_ready("stats", "correlation_histogram"):
    st.stop()

with st.form("hist"):
    c1, c2 = st.columns(2)
    n_bins = c1.select_slider("intervals on [0, 1]", [10, 20, 50, 100], 20, key="hist_bins")
    max_features = c2.number_input("exact up to this many features (else estimate on a random subset)",
                                   100, 1_000_000, 20_000, step=1000, key="hist_max")
    run = st.form_submit_button("Count pairs", type="primary")

res = appkit.histogram(ds, n_bins, int(max_features), run)
if res is None:
    st.info("Press **Count pairs**.")
    st.stop()

how = "exact over all" if res.exact else f"estimated from a random subset ({res.n_pairs:,} pairs) of"
st.caption(f"Counts are {how} {res.n_pairs_total:,} pairs of non-constant features "
           f"({res.n_constant} constant features not counted); {res.seconds:.2f} s.")


@st.fragment
def view(res):
    tau = st.slider("tau to mark (1 − τ is GDM's affiliation threshold)", 0.0, 1.0,
                    float(st.session_state.get("tau", 0.3)), 0.01, key="hist_tau")
    st.plotly_chart(correlation_sparsity(res.edges, res.counts, tau=tau, exact=res.exact,
                                         n_pairs_total=res.n_pairs_total), key="sparsity")


view(res)
