"""Session state: the shared stores, dataset keys, the active dataset, runs shown and kept, form keys."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

import streamlit as st

from fsviz.compute import Run

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


class LRU:
    """A small thread-safe LRU dict shared by all sessions of the server process."""

    def __init__(self, size: int):
        self.size, self.data, self.lock = size, OrderedDict(), threading.Lock()

    def get(self, key):
        with self.lock:
            if key in self.data:
                self.data.move_to_end(key)
                return self.data[key]
        return None

    def put(self, key, value) -> None:
        with self.lock:
            self.data[key] = value
            self.data.move_to_end(key)
            while len(self.data) > self.size:
                self.data.popitem(last=False)


@st.cache_resource(show_spinner=False)
def result_store() -> LRU:
    """Every result of every session of this server, by :class:`ResultKey`."""
    return LRU(STORE_SIZE)


@st.cache_resource(show_spinner=False)
def _datasets() -> LRU:
    """The datasets of the sessions of this server, by :class:`DatasetKey`."""
    return LRU(8)


def per_dataset(name: str, ds) -> dict:
    """Per-session, per-dataset state (``shown`` runs, ``selections``, prior-group rows)."""
    return st.session_state.setdefault(name, {}).setdefault(dataset_key(ds), {})


def dataset_key(ds) -> DatasetKey:
    shape = tuple(ds.image_shape) if ds.image_shape is not None else None
    return DatasetKey(ds.fingerprint, str(ds.name), shape)


def activate(ds) -> None:
    """Make ``ds`` the session's dataset (only its key goes into session state)."""
    key = dataset_key(ds)
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
