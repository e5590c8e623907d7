"""fsviz explorer: choose a dataset (sidebar, shared by all pages) and explore its feature groups.

The script Streamlit runs: ``fsviz app`` runs it from the installed package, and the checkout's
``app.py`` (``streamlit run app.py``, ``make run``) runs it as ``fsviz_app.main``."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

import fsviz.compute as fc
import fsviz_app.appkit as appkit
from fsviz.viz import class_balance, target_histogram
from fsviz_app.appkit.memory import release_session_leftovers

st.set_page_config(page_title="fsviz — feature groups explorer", page_icon="🧬", layout="wide")
appkit.warm_up()  # once per server: compile the numba kernels in the background, at once
appkit.warm_up_note()  # says so in the sidebar while it does


def choose_dataset() -> None:
    """Sidebar: sample or upload, label column, image shape. Errors show, the app stays usable."""
    release_session_leftovers()  # what Streamlit keeps of replaced files and gone widgets
    with st.sidebar:
        st.header("Dataset")
        appkit.restore_from_url()
        source = st.radio("Source", appkit.sources(), horizontal=True, key="source")
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
            elif source == "Server folder":  # FSVIZ_DATA_DIR: files open without an upload
                record = appkit.open_folder_file(shape)
                if record is not None:
                    target_picker(record)
                    if appkit.load_upload(record, shape) is None:
                        appkit.read_cancelled_note()
            else:
                ups = st.file_uploader(
                    "Data file",
                    type=None,  # any name: the loader reads the bytes and says what a file is
                    accept_multiple_files=True,  # a 10x matrix comes as three files
                    key="upload",
                    help="CSV/TSV/TXT (separator and decimal comma detected), Excel .xlsx/.xls/.ods, "
                    "Parquet, AnnData .h5ad, MATLAB .mat, LIBSVM/svmlight or .npz, compressed or "
                    "archived. A 10x matrix: its three files together (matrix.mtx.gz, "
                    "features.tsv.gz, barcodes.tsv.gz). Column roles, separator, sheet and "
                    "orientation: on the Data page.",
                )
                record, note = appkit.receive_files(ups)  # reads only the files it uses
                if note:
                    st.caption(note)
                record = record or appkit.current_upload()
                if record is not None:
                    if not ups:
                        st.caption(
                            f"Using {record.filename}, uploaded earlier; drop another file to replace it."
                        )
                    target_picker(record)
                    if appkit.load_upload(record, shape) is None:
                        appkit.read_cancelled_note()
        except Exception as e:  # every failure becomes a message; the session goes on
            appkit.failed(str(e) if isinstance(e, ValueError) else f"{type(e).__name__}: {e}")
            if isinstance(e, ValueError):  # the page says it (once), with the settings that fix it
                st.caption("⚠️ The data did not load; the page says why.")
            else:
                appkit.show_error(e, "loading the dataset")
        st.session_state.setdefault("seed", 0)
        st.number_input(
            "Random seed",
            min_value=0,
            max_value=fc.SEED_MAX,
            step=1,
            key="seed",
            help="Every run is seeded, so results are reproducible and cached.",
        )
        appkit.compute_sidebar()  # where heavy runs go: this process or a Dask cluster
        ds = appkit.current()
        if ds is not None:
            n, m = ds.X.shape
            st.caption(f"Active: **{ds.name}**: {fc.plural(n, 'sample')} × {fc.plural(m, 'feature')}")
        session_files(ds)
        if ds is not None:
            appkit.report_download(ds)
        appkit.sync_url(ds)
        if st.session_state.get("url_error"):
            st.warning(st.session_state.pop("url_error"))


def target_picker(up) -> None:
    """The target of an uploaded file: a column picked from a list (likely targets first), or
    the variable name of a .mat/.npz file."""
    info = appkit.inspect_upload(up)
    if not appkit.target_options(up, info):  # no columns to pick from (.mat/.npz/LIBSVM)
        st.text_input(
            "Label variable (empty = automatic)",
            key=appkit.import_key(up, "label"),
            help=".mat/.npz: the variable name; LIBSVM: the first field. Empty: Y/y/gnd/label/target.",
            on_change=appkit.copy_label_text,
            args=(up.token,),  # a token, not the upload: Streamlit keeps callbacks' arguments
        )
        return
    options = appkit.target_options(up, info)
    key = appkit.import_key(up, "target")
    st.session_state[key] = appkit.target_choice(up, info, options)
    st.selectbox(
        "Target column",
        options,
        key=key,
        on_change=appkit.copy_target,
        args=(up.token, key),
        help="Likely targets first (text columns, few integer values, names such as label/class/"
        "diagnosis/outcome). Identifiers and empty columns are left out; every other column is a "
        "feature. Change any column's role on the Data page.",
    )


def session_files(ds) -> None:
    """Save this session as JSON, or load one (first, or over a dataset: it asks for its data)."""
    with st.expander("Session file", expanded=bool(appkit.pending_session_note())):
        if ds is not None:
            st.download_button(
                "Save session (JSON)",
                appkit.session_download(ds),
                file_name="fsviz-session.json",
                mime="application/json",
                on_click="ignore",
                key="session_save",
                help="Where the data came from and how it was read (column roles, target, separator), "
                "every run shown, kept selections, prior groups.",
            )
        st.file_uploader(
            "Load a session", type=["json"], key="session_load", on_change=appkit.read_session_upload
        )
        if st.session_state.get("session_error"):
            st.error(st.session_state["session_error"])
        if appkit.pending_session_note():
            st.info(appkit.pending_session_note())
        done = appkit.apply_pending_session(ds)
        if done.startswith("error:"):
            st.error(done.removeprefix("error:"))
        elif done:
            st.success(done)


def data_page() -> None:
    st.title("Data")
    up = {"Upload": appkit.current_upload, "Server folder": appkit.folder_upload}.get(
        st.session_state.get("source"), lambda: None
    )()
    if up is not None:  # shown even when the file did not load: its settings are the fix
        appkit.import_panel(up)
        if st.session_state.get("load_error"):
            st.stop()
    ds = appkit.require_dataset()
    s = ds.summary()
    cols = st.columns(5)
    cols[0].metric("samples", f"{s.n_samples:,}")
    cols[1].metric("features", f"{s.n_features:,}")
    cols[2].metric("target", appkit.target_kind_label(ds), help="classes, continuous (regression) or none")
    cols[3].metric(
        "classes", len(s.classes) if s.classes else "none", help="distinct values of a class target"
    )
    cols[4].metric("non-zero fraction", f"{1.0 - s.sparsity:.3f}")
    left, right = st.columns([1, 1])
    left.subheader(f"Summary of {s.name}")
    left.dataframe(fc.summary_frame(s), hide_index=True, width="stretch")
    if s.classes:
        right.subheader("Classes")
        right.dataframe(fc.classes_frame(s), hide_index=True, width="stretch")
        if len(s.classes) <= 50:  # beyond that the table says it better
            right.plotly_chart(class_balance(s.classes, s.class_counts), key="class_balance")
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
    appkit.target_checks(ds)
    for note in appkit.dataset_notes(ds):
        st.info(note)
    if s.n_constant:
        st.warning(
            f"{fc.plural(s.n_constant, 'constant feature')} (kept; they score 0 and never join a group): "
            f"{fc.names_preview(ds.feature_labels, ds.constant_features)}"
        )
    filled = ds.meta.get("missing") or {}
    if filled.get("counts"):
        st.info(
            f"Missing values filled with the {filled.get('strategy')} of their column: "
            + ", ".join(f"{c}: {n}" for c, n in list(filled["counts"].items())[:12])
            + (" …" if len(filled["counts"]) > 12 else "")
        )
    leakage_check(ds)  # in a worker thread: the page above and below shows the new target at once
    st.subheader("First rows")
    st.dataframe(fc.preview_frame(ds), width="stretch")


@st.fragment(parallel=True)  # 60 % of a target change at 20,000 columns: the page does not wait for it
def leakage_check(ds) -> None:
    """The Data page's leakage warning and its roles table ("Columns as loaded"), which names
    the leaky features: ``leaky_features`` scans every column against the target."""
    leaks = appkit.result(ds, fc.Run("leakage"), "Checking for features that give the target away")
    if leaks is not None and leaks.features:
        leaky = fc.names_preview([n for _, n, _ in leaks.features], range(len(leaks.features)))
        st.warning(
            f"Possible target leakage: {fc.plural(len(leaks.features), 'feature')} predict the target "
            f"perfectly on their own ({leaky}). "
            "Every selection would rank them first; drop them or check the target column."
        )
    st.subheader("Columns as loaded")
    st.dataframe(fc.roles_frame(ds, leaks.features if leaks else ()), hide_index=True, width="stretch")


#: the views: files in fsviz_app/views/, a folder Streamlit does not auto-discover (a pages/ folder
#: next to the main script would switch on its legacy multipage mode), so st.navigation alone lists
#: them, by absolute path (the main script is app.py in a checkout, this file when installed). Each
#: url_path is spelled out: a view's URL (/groups) does not depend on its file name.
VIEWS = Path(__file__).resolve().parent / "views"
PAGES = [
    st.Page(data_page, title="Data", default=True, url_path="data"),
    st.Page(VIEWS / "groups.py", title="Groups (GDM)", url_path="groups"),
    st.Page(VIEWS / "image_masks.py", title="Image masks", url_path="image_masks"),
    st.Page(
        VIEWS / "correlation_sparsity.py",
        title="Correlation sparsity",
        url_path="correlation_sparsity",
    ),
    st.Page(VIEWS / "grm.py", title="GRM refinement", url_path="grm"),
    st.Page(VIEWS / "online.py", title="Online (SAOLA)", url_path="online"),
    st.Page(VIEWS / "projection.py", title="Projection (PCA)", url_path="projection"),
    st.Page(VIEWS / "stability.py", title="Stability (bootstrap)", url_path="stability"),
    st.Page(VIEWS / "compare.py", title="Compare and export", url_path="compare"),
    st.Page(VIEWS / "benchmark.py", title="Benchmark (survey)", url_path="benchmark"),
]

page = st.navigation(PAGES)
st.session_state["_busy_slot"] = st.empty()  # loads show their spinner here, above the page
choose_dataset()
page.run()
appkit.sync_url(appkit.current())  # the runs this page showed, for a refresh
