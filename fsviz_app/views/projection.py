"""Projection: PCA of the samples on the top-k features of two selections, side by side (GRM Fig. 4)."""

import streamlit as st

import fsviz_app.appkit as appkit
from fsviz.viz import pca_pair

st.title("Projection (PCA)")
ds = appkit.require_dataset()
sels = appkit.selections(ds)
if not sels:
    st.info("No selection computed for this dataset yet: run GDM, GRM or SAOLA first.")
    st.stop()

st.caption(appkit.target_note(ds, "projection"))
labels = list(sels)
left_i, right_i = appkit.default_pair(sels)


@st.fragment
def view():
    c1, c2, c3 = st.columns([2, 2, 1])
    left = c1.selectbox("left", labels, index=left_i, key="proj_left")
    right = c2.selectbox("right", labels, index=right_i, key="proj_right")
    k = appkit.param_slider(c3, "evaluation", "k", key="proj_k", label="top-k features")
    pl = appkit.projection(ds, sels[left], k)
    pr = appkit.projection(ds, sels[right], k)
    if pl is not None and pr is not None:
        st.plotly_chart(
            pca_pair([pl, pr], ds.labels, titles=(sels[left].method, sels[right].method)), key="pca"
        )


view()
