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
    with st.expander("The cut: project the features a rule keeps instead of the top k"):
        a, b = st.columns(2)
        with a:
            cut_l = appkit.cut_control(ds, sels[left].run, key="proj_cut_l")
        with b:
            cut_r = appkit.cut_control(ds, sels[right].run, key="proj_cut_r")
    sides = [(cut_l or sels[left], cut_l), (cut_r or sels[right], cut_r)]
    if any(cut is not None and cut.n_features == 0 for _, cut in sides):
        st.info("A rule kept no feature, so there is nothing to project on that side: loosen its level.")
        return
    pl, pr = (appkit.projection(ds, sel, cut.n_features if cut else k) for sel, cut in sides)
    if pl is not None and pr is not None:
        titles = tuple(appkit.cut_title(sel, cut) for sel, cut in sides)  # the rule named when cut
        st.plotly_chart(pca_pair([pl, pr], ds.labels, titles=titles), key="pca")


view()
