"""The data uploader's files as the session's upload, read once per file Streamlit holds."""

from __future__ import annotations

import streamlit as st

from fsviz.data.formats.tenx import TRIPLET_NAME  # three uploads as one tar: the reproduce lines name them
from fsviz_app.appkit.intake import Upload, current_upload, receive_upload
from fsviz_app.appkit.memory import SPILL_BYTES, DiskBytes, spill_in_background
from fsviz_app.appkit.state import upload_store

#: session key (not a form key: a new dataset keeps it) of the Streamlit file ids the upload was made of
_RECEIVED = "_upload_file_ids"
#: session key of the file ids whose bytes Streamlit no longer holds (the app's spilled copy has them)
_EMPTIED = "_upload_files_emptied"


def receive_files(files) -> tuple[Upload | None, str | None]:
    """The data uploader's files (in the order dropped; each with ``name`` and ``getvalue()``,
    as Streamlit's uploaded files) as one upload, and a note on what was done with them (None
    when there is nothing to say). Only the files used are read.

    One file is the upload. Two or more named as a 10x triplet's (``matrix.mtx``,
    ``features.tsv`` or ``genes.tsv``, ``barcodes.tsv``, gzipped or not) are that triplet, kept
    as one tar that reads exactly as 10x's archive (:func:`fsviz.data.formats.tenx.pack_triplet`);
    a member missing or given twice raises ValueError naming it. Otherwise the last file dropped
    is the upload (the uploader keeps every file dropped on it) and the note names the others.

    The files the session's upload was made of (by Streamlit's ``file_id``) are not read again
    on the next runs: their bytes were copied and hashed on every rerun of every page (0.2 s and
    a transient copy of 173 MB at 100,000 columns).
    """
    from fsviz.data.formats.tenx import is_triplet_member, pack_triplet

    files = list(files or ())
    if not files:
        return None, None
    tenx = [f for f in files if is_triplet_member(f.name)] if len(files) > 1 else []
    used = tenx if len(tenx) >= 2 else files[-1:]
    note = None
    if len(tenx) >= 2:
        others = [f.name for f in files if not is_triplet_member(f.name)]
        note = f"Read {', '.join(f.name for f in tenx)} together as one 10x matrix."
        if others:
            note += f" Left out: {', '.join(others)} (remove them with ×)."
    elif len(files) > 1:
        note = (
            f"Using {files[-1].name}, the last file dropped; left out: "
            f"{', '.join(f.name for f in files[:-1])} (remove them with ×). Several files are read "
            "together only as the three files of a 10x matrix."
        )
    ids = tuple(getattr(f, "file_id", None) for f in used)
    up = current_upload()
    if None not in ids and st.session_state.get(_RECEIVED) == ids:
        if up is not None:
            upload_store().touch(up.token)
            return up, note
        if set(ids) <= st.session_state.get(_EMPTIED, set()):  # its bytes are only in the app's copy
            names = ", ".join(f.name for f in used)
            raise ValueError(
                f"The server no longer holds {names} (uploads nobody used for a while are let go). "
                "Fix: upload it again."
            )
    if len(tenx) >= 2:
        up = receive_upload(TRIPLET_NAME, pack_triplet([(f.name, f.getvalue()) for f in tenx]))
    else:
        up = receive_upload(used[0].name, used[0].getvalue())
    st.session_state[_RECEIVED] = ids
    # a large one goes to disk while it is read, then Streamlit's copy of it is emptied
    if len(up.data) >= SPILL_BYTES and not isinstance(up.data, DiskBytes) and None not in ids:
        if spill_in_background(upload_store(), up.token, ids) is not None:
            st.session_state[_EMPTIED] = st.session_state.get(_EMPTIED, set()) | set(ids)
    return up, note
