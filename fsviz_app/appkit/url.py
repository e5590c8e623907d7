"""The session's URL: dataset choice, seed and shown runs, written each run and read back on a refresh."""

from __future__ import annotations

import base64
import json

import streamlit as st

from fsviz.compute.runs import SEED_MAX
from fsviz.compute.session import check_import_options, check_run, parse_json
from fsviz_app.appkit.intake import IMPORT_DEFAULTS, sample_names, session_options, upload_store
from fsviz_app.appkit.state import per_dataset, show

_URL_KEYS = ("source", "sample", "seed", "folder_file")


def restore_from_url() -> None:
    """On a new session (e.g. a browser refresh) take source, sample and seed from the URL."""
    if st.session_state.get("_url_read"):
        return
    st.session_state["_url_read"] = True
    q = st.query_params
    if q.get("source") in ("Sample", "Upload", "Server folder"):
        st.session_state.setdefault("source", q["source"])
    if q.get("sample") in sample_names():
        st.session_state.setdefault("sample", q["sample"])
    if q.get("folder_file") and len(q["folder_file"]) <= 1000:  # confined again when it opens
        st.session_state.setdefault("folder_file", q["folder_file"])
    if str(q.get("seed", "")).isdigit() and len(q["seed"]) <= 10 and int(q["seed"]) <= SEED_MAX:
        st.session_state.setdefault("seed", int(q["seed"]))
    if q.get("upload") and upload_store().get(q["upload"]) is not None:  # a refresh: the file is still here
        st.session_state["upload_token"] = q["upload"]
        if q.get("imp"):
            try:
                given = check_import_options(_decode(q["imp"], "the link's import settings"))
                session_options()[q["upload"]] = dict(IMPORT_DEFAULTS) | given
            except (ValueError, TypeError) as e:
                st.session_state["url_error"] = f"The import settings in this link were not restored: {e}"
    st.session_state["_url_runs"] = q.get("runs")


def _encode(doc) -> str:
    return base64.urlsafe_b64encode(json.dumps(doc, separators=(",", ":")).encode()).decode()


def _decode(text: str, what: str):
    return parse_json(base64.urlsafe_b64decode(text.encode()), what, max_bytes=64 << 10)


def sync_url(ds) -> None:
    """Write the dataset choice, seed and the runs the pages show into the URL."""
    q = st.query_params
    for k in _URL_KEYS:
        v = st.session_state.get(k)
        if v is not None and q.get(k) != str(v):
            q[k] = str(v)
    token = st.session_state.get("upload_token")
    if token and q.get("upload") != token:
        q["upload"] = token
    options = session_options().get(token) if token else None
    if options is not None:  # this session's own import settings: a refresh or a shared link reads them
        changed = {k: v for k, v in options.items() if IMPORT_DEFAULTS.get(k) != v}
        text = _encode(changed) if changed else None
        if text and len(text) < 4000 and q.get("imp") != text:
            q["imp"] = text
        elif not text and "imp" in q:
            del q["imp"]
    pending = st.session_state.pop("_url_runs", None)
    if ds is None:
        return
    if pending:
        try:
            restore_runs(ds, _decode(pending, "the link's runs"))
        except (ValueError, TypeError) as e:  # a stale or edited URL: the defaults, and why
            st.session_state["url_error"] = f"The runs in this link were not restored: {e}"
    shown_runs = {slot: run.to_dict() for slot, run in per_dataset("shown", ds).items()}
    text = _encode(shown_runs)
    if shown_runs and len(text) < 4000 and q.get("runs") != text:
        q["runs"] = text


def restore_runs(ds, runs: dict) -> None:
    """Show ``{slot: Run dict}`` on the pages (results recompute or come from the store), each
    run checked as a session file's are (known method, declared parameters, seed in range)."""
    if not isinstance(runs, dict):
        raise ValueError(f"expected {{page: run}}; got {type(runs).__name__}")
    checked = {str(slot): check_run(data, f"'{slot}'") for slot, data in runs.items()}
    for slot, run in checked.items():
        show(ds, slot, run)
        groups = run.get("prior_groups") if run.method == "grm" else None
        prior = per_dataset("prior", ds)
        if groups and not prior.get("groups"):  # the GRM page's editor shows the groups the run used
            prior["groups"] = [list(g) for g in groups]
