"""The server folder's files as the sample or feature annotations of the data file read.

With ``FSVIZ_DATA_DIR`` set, the Data page's two annotation rows offer the folder's tables
beside their uploaders: a phenotype sheet, a 10x ``cell_annotations.csv``, a MaxQuant
``experimental_design.tsv``, a CLS label file, a GEO platform table. A file picked there is read
on the server (inside the folder, a regular file, within the memory budget) and attached as an
upload of it would be, so the join, the plan (it names the file) and the report are the same.
"""

from __future__ import annotations

import streamlit as st

from fsviz_app.appkit.data_folder import _listing, data_dir, resolve_inside
from fsviz_app.appkit.intake import (
    Upload,
    attach_annotations,
    attach_feature_annotations,
    session_upload,
)

#: listed kinds that are never an annotation table (matrices, stores, folders)
_NOT_TABLES = (
    "npy",
    "npz",
    "mat",
    "h5",
    "h5ad",
    "loom",
    "mtx",
    "seed",
    "zarr",
    "10x",
    "svm",
    "svmlight",
    "libsvm",
)
#: which row: the upload option that holds its file's name, and how a file is attached
_ATTACH = {
    "annotations": ("sample_annotations", attach_annotations),
    "feature_annotations": ("feature_annotations", attach_feature_annotations),
}


def _key(up: Upload, which: str) -> str:
    return f"imp_{which}_folder_{up.token}"  # an import widget: forgotten with its upload


def _error_key(up: Upload, which: str) -> str:
    return f"imp_{which}_folder_error_{up.token}"  # forgotten with its upload too


def annotation_files(exclude: str | None = None) -> list[str]:
    """The server folder's files that can be an annotation table (tables, compressed or not;
    the data file itself left out), by their paths inside the folder; empty without a folder."""
    try:
        root = data_dir()
    except ValueError:
        return []
    if root is None:
        return []
    files, _ = _listing(str(root), shapes=False)  # tables only: no data file's shape is read
    return [
        f.name
        for f in files
        if f.kind.split(".")[0] not in _NOT_TABLES and f.kind not in _NOT_TABLES and f.name != exclude
    ]


def _attach_from_folder(token: str, which: str) -> None:
    """The picker's callback (it takes the upload's token: a callback holds no file): read the
    picked file inside the folder and attach it; a file that cannot be read leaves a message."""
    from fsviz.data.budget import resolve_budget
    from fsviz.data.filetypes import read_regular

    up = session_upload(token)
    if up is None:
        return
    st.session_state.pop(_error_key(up, which), None)
    name = st.session_state.get(_key(up, which))
    if not name:
        return
    try:
        path = resolve_inside(data_dir(), name)
        data = read_regular(path, "data folder", resolve_budget())
    except (ValueError, OSError) as e:
        st.session_state[_error_key(up, which)] = str(e)
        return
    _ATTACH[which][1](up, path.name, data)


def folder_annotation_picker(up: Upload, which: str, where=None) -> None:
    """A selectbox of the server folder's tables under an annotation uploader (``which``:
    ``"annotations"`` or ``"feature_annotations"``); nothing without a data folder."""
    folder_file = (
        st.session_state.get("folder_file") if st.session_state.get("source") == "Server folder" else None
    )
    names = annotation_files(exclude=folder_file)
    if not names:
        return
    where = where or st
    option = _ATTACH[which][0]
    key = _key(up, which)
    attached = up.options.get(option)
    if key not in st.session_state or (
        st.session_state[key] and st.session_state[key].rsplit("/", 1)[-1] != attached
    ):
        st.session_state[key] = None  # an upload replaced the folder's file, or nothing picked yet
    where.selectbox(
        "…or a file in the server folder",
        [None, *names],
        key=key,
        format_func=lambda n: "(none)" if n is None else n,
        on_change=_attach_from_folder,
        args=(up.token, which),
        help="Read on the server from the data folder (FSVIZ_DATA_DIR), as an upload of it would be.",
    )
    error = st.session_state.get(_error_key(up, which))
    if error:
        where.error(error)
