"""Session state: the shared stores, dataset keys, the active dataset, runs shown and kept, form keys."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import streamlit as st

from fsviz.compute import Run
from fsviz_app.appkit.memory import (
    SWEEP_SECONDS,
    ByteLRU,
    UsageRegistry,
    release_ended_sessions,
    return_memory,
    share,
    share_uploaded_bytes,
    tune_allocator,
    upload_bytes,
    upload_path,
)

if TYPE_CHECKING:
    from fsviz.data import ImportPlan, ParsedSource
    from fsviz_app.appkit.intake import Upload

#: a dataset is "small" when n_samples * n_features is below this: its default runs start
#: by themselves on the first visit of a page (larger data waits for the Run button)
AUTO_RUN_CELLS = 3_000_000
#: results the shared store keeps (least recently used go first)
STORE_SIZE = 128


@dataclass(frozen=True)
class ResultKey:
    """Where a result lives in the store: the data's fingerprint and the Run's key."""

    fingerprint: str
    run: str


@dataclass(frozen=True)
class DatasetKey:
    """Which dataset a session shows: its content, its name and its image shape."""

    fingerprint: str
    name: str
    image_shape: tuple | None


#: shares of the memory budget the shared stores may hold (uploads: appkit.intake; the rest here)
@st.cache_resource(show_spinner=False)
def result_store() -> ByteLRU:
    """Every result of every session of this server, by :class:`ResultKey` (a quarter of the budget)."""
    return ByteLRU(STORE_SIZE, share("results"))


@st.cache_resource(show_spinner=False)
def _datasets() -> ByteLRU:
    """The datasets of the sessions of this server, by :class:`DatasetKey` (3/8 of the budget)."""
    return ByteLRU(8, share("datasets"))


def session_id() -> str | None:
    """This script run's Streamlit session id (None outside a run)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return None if ctx is None else ctx.session_id


@st.cache_resource(show_spinner=False)
def usage() -> UsageRegistry:
    """What each session uses; a daemon thread releases what only ended sessions used."""
    tune_allocator()
    share_uploaded_bytes()
    registry = UsageRegistry()
    threading.Thread(target=_sweep_forever, args=(registry,), name="fsviz-sweeper", daemon=True).start()
    return registry


def use(kind: str, key) -> None:
    """This session now uses ``key`` of ``kind`` ("upload", "dataset") instead of its previous one."""
    sid = session_id()
    if sid is None:
        return
    reg = usage()
    for old in reg.uses.get(sid, {}).get(kind, set()) - {key}:
        reg.drop(sid, kind, old)
    reg.use(sid, kind, key)


def _is_active(sid: str) -> bool:
    from streamlit.runtime import Runtime

    return not Runtime.exists() or Runtime.instance().is_active_session(sid)


def _sweep_forever(registry: UsageRegistry) -> None:
    while True:
        time.sleep(SWEEP_SECONDS)
        try:
            if registry.sweep(_is_active):
                release_unused(registry)
            if release_ended_sessions():  # what Streamlit keeps of closed tabs
                return_memory()
        except Exception:  # noqa: BLE001 - the sweeper must outlive any one failure
            pass


@st.cache_resource(show_spinner=False)
def upload_store() -> ByteLRU:
    """The uploaded files of the sessions of this server, by token (see :class:`appkit.intake.Upload`): a
    quarter of the memory budget, least recently used first out."""

    return ByteLRU(64, share("uploads", 16 << 20))


@st.cache_resource(show_spinner=False)
def inspect_store() -> ByteLRU:
    """Previews of uploads (:func:`fsviz.data.inspect_table`) by digest and options: 1/8 of the budget."""

    return ByteLRU(16, share("previews", 8 << 20))


@st.cache_resource(show_spinner=False)
def parsed_store() -> ByteLRU:
    """Files parsed once (:class:`fsviz.data.ParsedSource`) by ``(digest, file name, parse key)``:
    a new target, column roles or annotation join assemble the dataset from here instead of
    reading the file again. Two files at most, within the datasets' share of the budget (the
    parsed parts are the other half of a dataset read from them)."""
    return ByteLRU(2, share("datasets"))


def parsed_upload(up: Upload, plan: ImportPlan) -> ParsedSource:
    """``up`` parsed under ``plan``'s parse fields: from :func:`parsed_store`, else parsed here
    (sandboxed) and kept there."""
    from fsviz.data import parse_source

    key = (up.digest, up.filename, plan.parse_key())
    parsed = parsed_store().get(key)
    if parsed is None:
        # a server-folder Parquet file is read in place (pyarrow reads the columns it needs): its
        # 173 MB of bytes at 100,000 columns are not held beside the parse
        src = upload_source(up, in_place=_is_parquet(up, plan))
        parsed = parse_source(src, plan=plan, sandbox=True)
        if isinstance(src, str):
            upload_path(up)  # still the version opened, now that it is read
        parsed_store().put(key, parsed)
        del src
        return_memory()  # a wide parse's temporaries (~200 MB at 100,000 columns) before what follows
    return parsed


def upload_source(up: Upload, in_place: bool = False):
    """What a reader opens for ``up``: with ``in_place``, a server-folder file's path (checked to
    be the version opened); else a BytesIO of its bytes named as the file (the format is by name)."""
    import io

    path = upload_path(up) if in_place else None
    if path is not None:
        return path
    buf = io.BytesIO(upload_bytes(up))
    buf.name = up.filename
    return buf


def parsed_for_look(up: Upload, plan: ImportPlan) -> ParsedSource | None:
    """The parse a Parquet file's preview is taken from (None for any other file): pyarrow reads a
    whole row group for its first rows, as long as the file, which the read then parses again;
    parsed here, the preview and the read share one parse."""
    return parsed_upload(up, plan) if _is_parquet(up, plan) else None


def _is_parquet(up: Upload, plan: ImportPlan) -> bool:
    named = up.filename.lower().endswith((".parquet", ".pq"))
    return plan.fmt == "parquet" or (plan.fmt is None and named)


def release_unused(registry: UsageRegistry) -> None:
    """Drop from the shared stores what no live session uses, and return the memory."""
    # The keys first, then who uses them: a session registers a key before it stores it
    # (appkit.intake), so an entry stored while this runs is either not in the snapshot or
    # already registered, never dropped as unused.
    store = upload_store()
    tokens, dataset_keys = set(store.keys()), set(_datasets().keys())
    # a session's sample annotations are an upload too (their own token in the upload store)
    uploads = registry.used("upload") | registry.used("annotations")
    datasets = registry.used("dataset")
    fingerprints = {k.fingerprint for k in datasets}
    digests = {store.get(t).digest for t in uploads if store.get(t) is not None}
    for token in tokens - uploads:
        store.pop(token)
    for key in dataset_keys - datasets:
        _datasets().pop(key)
    for key in result_store().keys():
        if key.fingerprint not in fingerprints:
            result_store().pop(key)
    for key in inspect_store().keys():
        if key[0] not in digests:
            inspect_store().pop(key)
    for key in parsed_store().keys():
        if key[0] not in digests:
            parsed_store().pop(key)
    return_memory()


def per_dataset(name: str, ds) -> dict:
    """Per-session, per-dataset state (``shown`` runs, ``selections``, prior-group rows)."""
    return st.session_state.setdefault(name, {}).setdefault(dataset_key(ds), {})


def dataset_key(ds) -> DatasetKey:
    shape = tuple(ds.image_shape) if ds.image_shape is not None else None
    return DatasetKey(ds.fingerprint, str(ds.name), shape)


def activate(ds) -> None:
    """Make ``ds`` the session's dataset (only its key goes into session state)."""
    key = dataset_key(ds)
    use("dataset", key)  # before the store holds it (see release_unused)
    if _datasets().get(key) is None:
        _datasets().put(key, ds)
    st.session_state.pop("load_error", None)
    if st.session_state.get("dataset_key") not in (None, key):  # another dataset: forms start afresh
        for k in [k for k in st.session_state if is_form_key(k)]:
            del st.session_state[k]
    st.session_state["dataset_key"] = key


def failed(message: str) -> None:
    """A dataset could not be loaded: nothing stays active, every page shows the message."""
    st.session_state["load_error"] = message
    st.session_state.pop("dataset_key", None)


def current():
    """The session's dataset, or None."""
    key = st.session_state.get("dataset_key")
    return _datasets().get(key) if key else None


def require_dataset():
    """The session's dataset; stops the page with the load error or a hint when there is none."""
    ds = current()
    if st.session_state.get("load_error"):
        st.error(f"No dataset is active: {st.session_state['load_error']}")
        st.stop()
    if ds is None:
        st.info("Choose a sample dataset or upload one in the sidebar (Data page).")
        st.stop()
    return ds


def seed() -> int:
    return int(st.session_state.get("seed", 0))


def small(ds) -> bool:
    return ds.n_samples * ds.n_features <= AUTO_RUN_CELLS


def shown(slot: str, ds) -> Run | None:
    """The Run whose result page ``slot`` shows for this dataset, or None."""
    return per_dataset("shown", ds).get(slot)


def show(ds, slot: str, run: Run) -> None:
    """Page ``slot`` now shows ``run``: it replaces the slot's previous run in the compare and
    export lists (a slider sweep leaves one row, the run on screen), and becomes the export's
    default."""
    per_dataset("shown", ds)[slot] = run
    if run.spec.selects:
        per_dataset("recent", ds)["last"] = run


def add_selection(ds, run: Run, k: int | None = None) -> None:
    """Keep a selection (Run, top k) for the compare/export and projection pages, whatever the
    pages show next."""
    per_dataset("selections", ds)[(run, k)] = None


#: session-state keys that belong to the app rather than to one dataset's forms: the sidebar's
#: choices, the per-dataset stores of :func:`per_dataset` and the URL/session bookkeeping. Every
#: other key (each page's widgets) is form state of the active dataset: a dataset switch drops
#: it, so nothing typed for one dataset leaks into another; the forms then start from the
#: result shown for the new dataset (:func:`seed_form`), kept per dataset by :func:`per_dataset`.
APP_KEYS = frozenset(
    {
        "dataset_key",
        "load_error",
        "seed",
        "sample",
        "source",
        "upload",
        "shape",
        "target_hist",
        "session_load",
        "session_save",
        "shown",
        "selections",
        "prior",
        "options",
        "recent",
        "upload_token",
        "upload_options",
        "pending_session",
        "session_error",
        "url_error",
        "report_runs",
        "report_k",
        "report_dl",
        "folder_file",
        "folder_path",
        "folder_token",
        "folder_version",
        "compute",
    }
)


#: the keys made per upload (``imp_<option>_<token>``: its import settings and roles table)
APP_KEY_PREFIXES = ("imp_",)


def is_form_key(key) -> bool:
    """Whether a session-state key is a page's form state (see :data:`APP_KEYS`)."""
    key = str(key)
    return not key.startswith("_") and key not in APP_KEYS and not key.startswith(APP_KEY_PREFIXES)
