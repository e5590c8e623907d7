"""Image masks: support- and affiliated-feature pixels on examples and class means (GDM papers' figures)."""

import streamlit as st

import fsviz.compute as fc
import fsviz_app.appkit as appkit
from fsviz.viz import pixel_masks

st.title("Image masks")
ds = appkit.require_dataset()
if ds.image_shape is None:
    st.info(
        f"{ds.name} has no image shape. Pick the digits sample, or give the image shape "
        "(height x width) in the sidebar for pixel data."
    )
    st.stop()
st.caption(appkit.target_note(ds, "images"))
run = appkit.shown("gdm", ds) or appkit.default_gdm(ds)
res = appkit.page_result(
    "gdm", ds, run, clicked=False, label="Running GDM", button="Run GDM on the Groups page"
)
if res is None:
    st.info("Run GDM on the **Groups** page first; its groups are drawn here.")
    st.stop()
st.caption(
    f"GDM groups: {res.run.label} — {len(res.support)} support, "
    f"{len(res.af)} affiliated pixels. Change them on the Groups page."
)


@st.fragment
def masks(res):
    labels = fc.group_choices(res, ds.image_shape)
    appkit.seed_form("mask", {"alpha": fc.mask_opacity(res)})
    c1, c2, c3, c4, c5 = st.columns([3, 2, 2, 2, 1])
    hl = c1.selectbox("highlight group", list(labels), format_func=labels.get, key="mask_group")
    n_ex = appkit.param_slider(c2, "images", "n_examples", key="mask_examples")
    n_classes = len(ds.class_labels()[0]) if ds.is_classification else 2
    n_means = (
        c3.slider("class means", 1, n_classes, min(n_classes, 10), key="mask_means")
        if n_classes > 1
        else n_classes
    )
    alpha = c4.slider("overlay opacity", 0.0, 1.0, step=0.05, key="mask_alpha")
    show_af = c5.toggle("affiliated", True, key="mask_af")
    panels = appkit.image_panels(ds, n_ex, n_means)
    if panels is not None:
        st.plotly_chart(
            pixel_masks(panels, res, highlight=hl, show_af=show_af, alpha=alpha), key="pixel_masks"
        )


masks(res)
