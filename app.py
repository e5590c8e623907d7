"""fsviz explorer: choose a dataset (sidebar, shared by all pages) and explore its feature groups."""

from __future__ import annotations

import streamlit as st

import appkit
import fsviz.compute as fc
from fsviz.viz import target_histogram

st.set_page_config(page_title="fsviz — feature groups explorer", page_icon="🧬", layout="wide")


def choose_dataset() -> None:
    """Sidebar: sample or upload, label column, image shape. Errors show, the app stays usable."""
    with st.sidebar:
        st.header("Dataset")
        appkit.restore_from_url()
        source = st.radio("Source", ["Sample", "Upload"], horizontal=True, key="source")
        shape_text = st.text_input(
            "Image shape (height x width, optional)",
            key="shape",
            help="For pixel data whose shape is not inferred, e.g. 32x32.",
        )
        try:
            shape = appkit.parse_shape(shape_text)
            if source == "Sample":
                names = appkit.sample_names()
                st.session_state.setdefault("sample", names[appkit.default_sample(names)])
                name = st.selectbox("Sample dataset", names, key="sample")
                appkit.load_sample(name, shape)
            else:
                up = st.file_uploader(
                    "Data file",
                    type=appkit.UPLOAD_TYPES,
                    key="upload",
                    help="CSV/TSV, Parquet, MATLAB .mat, LIBSVM/svmlight or .npz",
                )
                label = target_picker(up)
                with st.expander("Missing values and text columns"):
                    missing = st.radio(
                        "missing values",
                        ["error", "mean", "median"],
                        horizontal=True,
                        key="missing",
                        help="error: refuse the file and say where the gaps are; mean/median: fill each "
                        "feature from its own values (what was filled is shown on the Data page).",
                    )
                    categorical = st.radio(
                        "text feature columns",
                        ["error", "onehot"],
                        horizontal=True,
                        key="categorical",
                        help="onehot: one 0/1 column per value, named column=value.",
                    )
                if up is not None:
                    appkit.load_upload(up.name, up.getvalue(), label, shape, missing, categorical)
                elif appkit.reuse_upload(shape) is not None:
                    st.caption("Using the file uploaded earlier in this session; drop another to replace it.")
        except Exception as e:  # every failure becomes a message; the session goes on
            appkit.failed(str(e) if isinstance(e, ValueError) else f"{type(e).__name__}: {e}")
            appkit.show_error(e, "loading the dataset")
        st.session_state.setdefault("seed", 0)
        st.number_input(
            "Random seed",
            min_value=0,
            max_value=2**31 - 1,
            step=1,
            key="seed",
            help="Every run is seeded, so results are reproducible and cached.",
        )
        ds = appkit.current()
        if ds is not None:
            n, m = ds.X.shape
            st.caption(f"Active: **{ds.name}** — {n:,} samples × {m:,} features")
            session_files(ds)
            appkit.report_download(ds)
        appkit.sync_url(ds)


def target_picker(up) -> str | int | None:
    """The target column of an uploaded table, picked from a list (likely targets first)."""
    head = appkit.upload_head(up.name, up.getvalue()) if up is not None else None
    if head is None:
        text = st.text_input(
            "Label variable / column (empty = automatic)",
            key="label",
            help=".mat/.npz: the variable name; LIBSVM: the first field. Empty: Y/y/gnd/label/target.",
        )
        return appkit.parse_label(text)
    options, default = appkit.target_options(head)
    choice = st.selectbox(
        "Target column",
        options,
        index=default,
        key=f"target_{up.file_id}",
        help="Likely targets first (text columns, few integer values, names such as label/class/"
        "diagnosis/outcome). Every other column is a feature.",
    )
    return None if choice == appkit.NO_TARGET else choice


def session_files(ds) -> None:
    """Save this session's runs as JSON, or load such a file back (same dataset)."""
    with st.expander("Session file"):
        st.download_button(
            "Save session (JSON)",
            appkit.session_download(ds),
            file_name="fsviz-session.json",
            mime="application/json",
            on_click="ignore",
            key="session_save",
        )
        up = st.file_uploader("Load a session", type=["json"], key="session_load")
        if up is not None and st.session_state.get("_session_loaded") != up.file_id:
            try:
                n = appkit.load_session(ds, up.getvalue())
                st.session_state["_session_loaded"] = up.file_id
                st.success(f"Restored {n} page result(s); they show on their pages.")
            except ValueError as e:
                st.error(str(e))


def data_page() -> None:
    st.title("Data")
    ds = appkit.require_dataset()
    s = ds.summary()
    cols = st.columns(5)
    cols[0].metric("samples", f"{s.n_samples:,}")
    cols[1].metric("features", f"{s.n_features:,}")
    cols[2].metric("target", appkit.target_kind_label(ds), help="classes, continuous (regression) or none")
    cols[3].metric("classes", len(s.classes) if s.classes else "—")
    cols[4].metric("non-zero fraction", f"{1.0 - s.sparsity:.3f}")
    left, right = st.columns([1, 1])
    left.subheader(f"Summary of {s.name}")
    left.dataframe(fc.summary_frame(s), hide_index=True, width="stretch")
    if s.classes:
        right.subheader("Classes")
        right.dataframe(fc.classes_frame(s), hide_index=True, width="stretch")
    elif ds.target_kind == "continuous":
        right.subheader("Continuous target")
        right.caption(
            "A regression target: the methods with a regression form apply (F-regression, MI, RReliefF, "
            "|Pearson|, |Spearman|, SAOLA with Fisher's Z); class-only methods say they need class labels."
        )
        right.dataframe(fc.target_frame(ds), hide_index=True, width="stretch")
        st.plotly_chart(target_histogram(ds.y), key="target_hist")
    else:
        right.subheader("No target")
        right.caption("Unsupervised methods only; choose a target column in the sidebar for the others.")
    leaks = appkit.result(ds, fc.Run("leakage"), "Checking for features that give the target away")
    if leaks is not None and leaks.features:
        st.warning(
            f"Possible target leakage: {len(leaks.features)} feature(s) predict the target perfectly on "
            f"their own ({fc.names_preview([n for _, n, _ in leaks.features], range(len(leaks.features)))}). "
            "Every selection would rank them first; drop them or check the target column."
        )
    if s.n_constant:
        st.warning(
            f"{s.n_constant} constant feature(s) (kept; they score 0 and never join a group): "
            f"{fc.names_preview(ds.feature_names, ds.constant_features)}"
        )
    filled = ds.meta.get("missing") or {}
    if filled.get("counts"):
        st.info(
            f"Missing values filled with the {filled.get('strategy')} of their column: "
            + ", ".join(f"{c}: {n}" for c, n in list(filled["counts"].items())[:12])
            + (" …" if len(filled["counts"]) > 12 else "")
        )
    st.subheader("Column roles")
    st.dataframe(fc.roles_frame(ds, leaks.features if leaks else ()), hide_index=True, width="stretch")
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
    st.Page("pages/stability.py", title="Stability (bootstrap)"),
    st.Page("pages/compare.py", title="Compare and export"),
    st.Page("pages/benchmark.py", title="Benchmark (survey)"),
]

page = st.navigation(PAGES)
choose_dataset()
appkit.entry_ran()
page.run()
appkit.sync_url(appkit.current())  # the runs this page showed, for a refresh
