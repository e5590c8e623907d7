"""Session files: this session saved as JSON, and a saved one loaded back once its data is here."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

import fsviz.compute as fc
from fsviz_app.appkit.intake import current_upload, sample_fixes, sample_names
from fsviz_app.appkit.state import add_selection, per_dataset, seed, show


def source_of(ds) -> dict:
    """Where the session's dataset came from, for a session file: a sample by name, or an
    upload by file name, content digest and import options."""
    if st.session_state.get("source") == "Upload" and current_upload() is not None:
        up = current_upload()
        return {"kind": "upload", "file": up.filename, "sha256": up.digest, "import_options": up.options}
    chosen = (st.session_state.get("folder_path") or "").strip() or st.session_state.get("folder_file")
    if st.session_state.get("source") == "Server folder" and chosen:
        return {"kind": "server", "file": str(chosen)}  # its path inside the data folder
    return {"kind": "sample", "name": st.session_state.get("sample"), "fixes": sample_fixes_of(ds)}


def sample_fixes_of(ds) -> dict:
    return dict(sample_fixes(st.session_state["sample"])) if st.session_state.get("sample") else {}


def session_download(ds) -> Callable[[], bytes]:
    """This session as JSON (:func:`fsviz.compute.session_json`: where the data came from and
    how it was read, seed, every run shown, the kept selections, prior groups and CV choice),
    made at the click: a callable for ``st.download_button(data=...)``.

    The sidebar draws the button before the page runs, and a page may still add a run in
    the same rerun (a Run click): bytes made now would miss it. The callable holds this
    session's own dicts, which the page updates in place, not ``st.session_state`` itself
    (Streamlit calls it outside the script run).
    """
    from fsviz.compute.session import groups_by_name

    shown, kept, s = per_dataset("shown", ds), per_dataset("selections", ds), seed()
    prior, options, source = per_dataset("prior", ds), per_dataset("options", ds), source_of(ds)

    def make() -> bytes:
        return fc.session_json(
            fc.SessionFile(
                dataset_name=str(ds.name),
                fingerprint=ds.fingerprint,
                source=source,
                seed=s,
                shown=dict(shown),
                kept=tuple(kept),
                prior_groups=groups_by_name(prior.get("groups", []), ds.feature_names),
                options=dict(options),
                image_shape=tuple(ds.image_shape) if ds.image_shape is not None else None,
            )
        )

    return make


def read_session_upload() -> None:
    """The session uploader's callback: read the file and ask for its dataset.

    A sample dataset is chosen at once; an upload is asked for by file name and digest
    (the same bytes read with the saved import options). The runs, kept selections and prior
    groups are restored by :func:`apply_pending_session` once that dataset is active.
    """
    up = st.session_state.get("session_load")
    st.session_state.pop("session_error", None)
    if up is None:
        return
    try:
        doc = fc.read_session(up.getvalue())
    except ValueError as e:
        st.session_state["session_error"] = str(e)
        return
    st.session_state["pending_session"] = doc
    src = doc.source
    if src.get("kind") == "sample" and src.get("name") in sample_names():
        st.session_state["source"] = "Sample"
        st.session_state["sample"] = src["name"]
        sample_fixes(src["name"]).update(src.get("fixes") or {})
    elif src.get("kind") == "server":  # the data folder's file: confined again when it opens
        st.session_state["source"] = "Server folder"
        st.session_state["folder_path"] = src["file"]
    elif src.get("kind") == "upload":
        st.session_state["source"] = "Upload"
        have = current_upload()
        if have is not None and have.digest == src["sha256"]:
            have.options.update(src.get("import_options") or {})  # this session's own options
    if isinstance(doc.seed, int):
        st.session_state["seed"] = doc.seed
    if doc.image_shape:
        st.session_state["shape"] = f"{doc.image_shape[0]}x{doc.image_shape[1]}"


def pending_session_note() -> str:
    """What a loaded session file still waits for ("" when nothing)."""
    doc = st.session_state.get("pending_session")
    if doc is None or doc.source.get("kind") != "upload":
        return ""
    return (
        f"The session file was saved on the data file {doc.source['file']!r} (sha256 "
        f"{doc.source['sha256'][:12]}…): upload that file to restore its runs."
    )


def apply_pending_session(ds) -> str:
    """Restore a loaded session file once its dataset is active; returns what was restored
    (or why not), "" when no file waits."""
    from fsviz.compute.session import groups_by_index

    doc = st.session_state.get("pending_session")
    if doc is None or ds is None:
        return ""
    if doc.fingerprint != ds.fingerprint:
        up = current_upload()
        if doc.source.get("kind") == "upload" and (up is None or up.digest != doc.source["sha256"]):
            return ""  # still waiting for the file
        st.session_state.pop("pending_session")
        return (
            f"error:session file: it was saved on dataset {doc.dataset_name!r} (fingerprint "
            f"{doc.fingerprint[:12]}…), not on {ds.name!r}; load that dataset first."
        )
    st.session_state.pop("pending_session")
    try:
        groups = groups_by_index(doc.prior_groups, ds.feature_names)
    except ValueError as e:
        return f"error:{e}"
    for slot, run in doc.shown.items():
        show(ds, slot, run)
    for run, k in doc.kept:
        add_selection(ds, run, k)
    per_dataset("prior", ds)["groups"] = groups
    per_dataset("options", ds).update(doc.options)
    return (
        f"Restored {fc.plural(len(doc.shown), 'page result')}, {fc.plural(len(doc.kept), 'kept selection')} "
        f"and {fc.plural(len(groups), 'prior group')}; they show on their pages."
    )
