"""fsviz explorer: choose a dataset (sidebar, shared by all pages) and explore its feature groups."""

from __future__ import annotations

import re

import streamlit as st

import appkit
import fsviz.compute as fc

st.set_page_config(page_title="fsviz — feature groups explorer", page_icon="🧬", layout="wide")


def parse_shape(text: str) -> tuple[int, int] | None:
    """'28x28' / '28, 28' -> (28, 28); '' -> None; anything else -> ValueError naming the fix."""
    text = (text or "").strip()
    if not text:
        return None
    m = re.fullmatch(r"\s*(\d+)\s*[x×,\s]\s*(\d+)\s*", text)
    if not m:
        raise ValueError(f"image shape: expected 'height x width' such as '32x32'; got {text!r}.")
    return int(m.group(1)), int(m.group(2))


def choose_dataset() -> None:
    """Sidebar: sample or upload, label column, image shape. Errors show, the app stays usable."""
    with st.sidebar:
        st.header("Dataset")
        source = st.radio("Source", ["Sample", "Upload"], horizontal=True, key="source")
        shape_text = st.text_input(
            "Image shape (height x width, optional)",
            key="shape",
            help="For pixel data whose shape is not inferred, e.g. 32x32.",
        )
        try:
            shape = parse_shape(shape_text)
            if source == "Sample":
                try:
                    names = appkit.sample_names()
                except (ImportError, AttributeError):
                    st.info("Bundled samples are not in this build yet (fsviz.data.list_samples).")
                    names = []
                if names:
                    name = st.selectbox("Sample dataset", names, appkit.default_sample(names), key="sample")
                    appkit.load_sample(name, shape)
            else:
                up = st.file_uploader(
                    "Data file",
                    type=appkit.UPLOAD_TYPES,
                    key="upload",
                    help="CSV/TSV, Parquet, MATLAB .mat, LIBSVM/svmlight or .npz",
                )
                label = st.text_input(
                    "Label column (name or position; empty = automatic)",
                    key="label",
                    help="CSV/TSV/Parquet: a column name or position (-1 = last); "
                    ".mat/.npz: the variable name. Empty: label/class/y/target.",
                )
                if up is not None:
                    appkit.load_upload(up.name, up.getvalue(), label, shape)
        except ValueError as e:
            st.error(str(e))
        st.number_input(
            "Random seed",
            min_value=0,
            max_value=2**31 - 1,
            value=0,
            step=1,
            key="seed",
            help="Every run is seeded, so results are reproducible and cached.",
        )
        ds = appkit.current()
        if ds is not None:
            n, m = ds.X.shape
            st.caption(f"Active: **{ds.name}** — {n:,} samples × {m:,} features")


def data_page() -> None:
    st.title("Data")
    ds = appkit.require_dataset()
    s = appkit.summary(ds.fingerprint, ds)
    cols = st.columns(4)
    cols[0].metric("samples", f"{s.n_samples:,}")
    cols[1].metric("features", f"{s.n_features:,}")
    cols[2].metric("classes", len(s.classes) if s.classes else "—")
    cols[3].metric("non-zero fraction", f"{s.density:.3f}")
    left, right = st.columns([1, 1])
    left.subheader(f"Summary of {s.name}")
    left.dataframe(fc.summary_frame(s), hide_index=True, width="stretch")
    if s.classes:
        right.subheader("Classes")
        right.dataframe(fc.classes_frame(s), hide_index=True, width="stretch")
    if len(s.constant):
        st.warning(
            f"{len(s.constant)} constant feature(s) (kept; they score 0 and never join a group): "
            f"{fc.names_preview(ds.feature_names, s.constant)}"
        )
    if s.n_missing:
        st.warning(f"{s.n_missing} missing values.")
    st.subheader("First rows")
    st.dataframe(fc.preview_frame(ds), width="stretch")


PAGES = [
    st.Page(data_page, title="Data", default=True, url_path="data"),
    st.Page("pages/groups.py", title="Groups (GDM)"),
    st.Page("pages/image_masks.py", title="Image masks"),
    st.Page("pages/correlation_sparsity.py", title="Correlation sparsity"),
    st.Page("pages/grm.py", title="GRM refinement"),
    st.Page("pages/online.py", title="Online (SAOLA)"),
    st.Page("pages/projection.py", title="Projection (PCA)"),
    st.Page("pages/compare.py", title="Compare and export"),
]

page = st.navigation(PAGES)
choose_dataset()
appkit.entry_ran()
page.run()
