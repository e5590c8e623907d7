"""The app's one Streamlit helper module: dataset choice, the result cache, shared widgets.

Pages stay thin: they read widgets into a :class:`fsviz.compute.Run`, ask :func:`page_result`
or :func:`result` for its result, and hand that to an ``fsviz.viz`` builder.

Caching
-------
* One process-wide store maps :class:`ResultKey` ``(fingerprint, run key)`` to results;
  every computation of the app (selectors, GRM, streams, histograms, evaluations,
  projections, image panels) goes through it, so a cached result returns at once and
  display-only widgets never recompute. The dataset itself is never hashed.
* Datasets live in a second store keyed by :class:`DatasetKey` (fingerprint, name, image
  shape), so two sessions that upload the same bytes under different names see their own.
* The session keeps only keys: its dataset's, the Run each page shows
  (``st.session_state["shown"]``) and the selections made (``["selections"]``), so
  results survive page switches and feed the compare page.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

import fsviz.compute as fc
from fsviz.compute import Run

#: a dataset is "small" when n_samples * n_features is below this: its default runs start
#: by themselves on the first visit of a page (larger data waits for the Run button)
AUTO_RUN_CELLS = 3_000_000
#: a page reruns as its widgets move when its last result took less than this (live tuning)
LIVE_SECONDS = 1.0
#: after a live step whose run took less than this, the slider's next value either way is
#: computed in the background (:func:`prefetch_neighbours`): an arrow-key step is a cache hit.
#: ``FSVIZ_PREFETCH_SECONDS=0`` turns it off (e.g. to time live steps that compute).
PREFETCH_SECONDS = float(os.environ.get("FSVIZ_PREFETCH_SECONDS", "0.5"))
STORE_SIZE = 128
UPLOAD_TYPES = ["csv", "tsv", "txt", "parquet", "pq", "mat", "npz", "svm", "libsvm", "svmlight"]


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


# ---------------------------------------------------------------------------- stores
class _LRU:
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
def _results() -> _LRU:
    return _LRU(STORE_SIZE)


@st.cache_resource(show_spinner=False)
def _datasets() -> _LRU:
    return _LRU(8)


class _Prefetcher:
    """One background thread per server computing runs a page will likely ask for next.

    Newest requests first, at most :attr:`size` waiting (older ones are dropped); a run
    already stored or waiting is not queued twice. A page about to compute calls
    :meth:`wait` first: the run it asks for leaves the queue, and a prefetch in progress
    (a cheap run, see :data:`PREFETCH_SECONDS`) finishes before the page's own computation
    starts, so the two never compete for the cores and a page asking for the run being
    prefetched takes that result. Failures are dropped: the page computes the run itself
    and shows the error.
    """

    size = 2

    def __init__(self, store: _LRU):
        self.store, self.lock, self.wake = store, threading.Lock(), threading.Event()
        self.todo: OrderedDict = OrderedDict()
        self.idle = threading.Event()
        self.idle.set()
        threading.Thread(target=self._loop, name="fsviz-prefetch", daemon=True).start()

    def submit(self, ds, runs: list[Run]) -> None:
        with self.lock:
            for run in reversed(runs):  # the first run ends up first in line
                key = ResultKey(ds.fingerprint, run.key)
                if self.store.get(key) is None:
                    self.todo[key] = (ds, run)
                    self.todo.move_to_end(key, last=False)
            while len(self.todo) > self.size:
                self.todo.popitem(last=True)
        self.wake.set()

    def wait(self, key: ResultKey, timeout: float = 60.0) -> None:
        """Drop ``key`` from the queue and let a prefetch in progress finish."""
        with self.lock:
            self.todo.pop(key, None)
        self.idle.wait(timeout)

    def _dependency(self, ds):
        """Runs the prefetched one depends on: from the store, else computed and stored."""

        def get(run: Run):
            key = ResultKey(ds.fingerprint, run.key)
            hit = self.store.get(key)
            if hit is None:
                hit = run.execute(ds, results=get)
                self.store.put(key, hit)
            return hit

        return get

    def _loop(self) -> None:
        while True:
            self.wake.wait()
            with self.lock:
                if not self.todo:
                    self.wake.clear()
                    continue
                key, (ds, run) = self.todo.popitem(last=False)
                if self.store.get(key) is not None:
                    continue
                self.idle.clear()
            try:
                self.store.put(key, run.execute(ds, None, results=self._dependency(ds)))
            except Exception:  # the page computes the run itself and shows the error
                pass
            finally:
                self.idle.set()


@st.cache_resource(show_spinner=False)
def _prefetcher() -> _Prefetcher:
    return _Prefetcher(_results())


def prefetch_neighbours(ds, run: Run, res, name: str, step: float, lo: float, hi: float) -> None:
    """Compute ``run`` with parameter ``name`` one slider ``step`` up and down (within
    ``[lo, hi]``) in the background when its result ``res`` took less than
    :data:`PREFETCH_SECONDS`: the next arrow-key step of a live slider is then a cache hit."""
    if res is None or res.run != run or res.seconds >= PREFETCH_SECONDS:
        return
    value = float(run.get(name))
    near = [round(value + d, 10) for d in (step, -step) if lo <= round(value + d, 10) <= hi]
    # not run.replace: it drops parameters set to None, which changes the run's key
    _prefetcher().submit(ds, [Run(run.method, run.kwargs | {name: v}, run.seed) for v in near])


def _session(name: str, ds) -> dict:
    """Per-session, per-dataset state (``shown`` runs, ``selections``, prior-group rows)."""
    return st.session_state.setdefault(name, {}).setdefault(dataset_key(ds), {})


# ---------------------------------------------------------------------------- datasets
@st.cache_data(show_spinner=False)
def sample_names() -> list[str]:
    from fsviz.data import list_samples

    return list(list_samples())


def default_sample(names: list[str]) -> int:
    """Position of the sample the app opens with: the digits (pixel data: every view applies)."""
    hits = [i for i, n in enumerate(names) if "digit" in n.lower()]
    return hits[0] if hits else 0


@st.cache_resource(show_spinner="Loading sample …", max_entries=8)
def _load_sample(name: str):
    from fsviz.data import load_sample

    return load_sample(name)


@st.cache_resource(show_spinner="Loading file …", max_entries=4)
def _load_upload(digest: str, filename: str, label, missing: str, categorical: str, _data: bytes):
    """The loader checks the sizes the file declares against the memory budget before it
    allocates (FSVIZ_MEMORY_BUDGET, else 1/8 of the available RAM): one upload cannot take
    the server, and every session on it, down; a .mat file is parsed in a child process
    (``sandbox=True``), so a reader that crashes on a damaged file cannot either."""
    from fsviz.data import load_dataset

    buf = io.BytesIO(_data)
    buf.name = filename  # the loader takes the format from the name
    return load_dataset(
        buf, label=label, name=Path(filename).stem, sandbox=True, missing=missing, categorical=categorical
    )


def parse_label(text: str | None):
    """The label field: empty -> "auto" (the loader's default), "-1"/"3" -> a column position."""
    text = (text or "").strip()
    if not text:
        return "auto"
    return int(text) if text.lstrip("-").isdigit() else text


def parse_shape(text: str | None) -> tuple[int, int] | None:
    """'28x28' / '28, 28' -> (28, 28); '' -> None; anything else -> ValueError naming the fix."""
    text = (text or "").strip()
    if not text:
        return None
    m = re.fullmatch(r"\s*(\d+)\s*[x×,\s]\s*(\d+)\s*", text)
    if not m:
        raise ValueError(f"image shape: expected 'height x width' such as '32x32'; got {text!r}.")
    return int(m.group(1)), int(m.group(2))


#: tables wider than this skip the target picker (its sniffing reads every column header)
PICKER_MAX_COLUMNS = 20_000
NO_TARGET = "(no target: unsupervised)"


def upload_head(filename: str, data: bytes):
    """The first rows of an uploaded table (CSV/TSV/TXT/Parquet) for the target picker.

    None for formats that carry their labels as a variable (.mat, .npz, LIBSVM) and for
    tables wider than :data:`PICKER_MAX_COLUMNS`; ValueError when the head cannot be read.
    """
    import csv

    import pandas as pd

    ext = Path(filename).suffix.lower().lstrip(".")
    try:
        if ext in ("parquet", "pq"):
            import pyarrow.parquet as pq

            pf = pq.ParquetFile(io.BytesIO(data))
            if len(pf.schema_arrow.names) > PICKER_MAX_COLUMNS:
                return None
            return next(pf.iter_batches(batch_size=200)).to_pandas()
        if ext not in ("csv", "tsv", "txt"):
            return None
        sep = {"csv": ",", "tsv": "\t"}.get(ext)
        first = data[: 1 << 20].split(b"\n", 1)[0].decode("utf-8", "replace")
        width = len(first.split()) if sep is None else len(next(csv.reader([first], delimiter=sep), []))
        if width > PICKER_MAX_COLUMNS:
            return None
        return pd.read_csv(
            io.BytesIO(data), sep=sep or r"\s+", nrows=200, engine="python" if sep is None else "c"
        )
    except (ValueError, OSError, StopIteration, UnicodeError) as e:
        raise ValueError(f"{filename}: its first rows cannot be read as a table ({e}).") from None


def target_options(head) -> tuple[list[str], int]:
    """Target picker options (suggested columns first, then none, then the rest) and the default."""
    from fsviz.data.roles import suggest_targets

    suggested = suggest_targets(head)
    rest = [str(c) for c in head.columns if str(c) not in suggested]
    return suggested + [NO_TARGET] + rest, 0


def dataset_key(ds) -> DatasetKey:
    shape = tuple(ds.image_shape) if ds.image_shape is not None else None
    return DatasetKey(ds.fingerprint, str(ds.name), shape)


def activate(ds) -> None:
    """Make ``ds`` the session's dataset (only its key goes into session state)."""
    key = dataset_key(ds)
    _datasets().put(key, ds)
    st.session_state.pop("load_error", None)
    if st.session_state.get("dataset_key") not in (None, key):  # another dataset: forms start afresh
        for k in [k for k in st.session_state if str(k).split("_")[0] in FORM_PREFIXES]:
            del st.session_state[k]
    st.session_state["dataset_key"] = key


def _with_shape(ds, shape: tuple[int, int] | None):
    if shape is None or tuple(shape) == tuple(ds.image_shape or ()):
        return ds
    return ds.with_image_shape(tuple(shape))


def load_sample(name: str, shape: tuple[int, int] | None = None):
    ds = _with_shape(_load_sample(name), shape)
    activate(ds)
    return ds


def load_upload(
    filename: str,
    data: bytes,
    label,
    shape: tuple[int, int] | None = None,
    missing: str = "error",
    categorical: str = "error",
):
    """Load an uploaded file (cached by its content hash); raises the loader's ValueError.

    ``label`` is the loader's: a column name, a position, ``"auto"`` or None (no target);
    ``missing`` and ``categorical`` are its options for gaps and text feature columns.
    """
    digest = hashlib.sha256(data).hexdigest()
    ds = _load_upload(digest, filename, label, missing, categorical, data)
    st.session_state["last_upload"] = dataset_key(ds)  # kept across Sample <-> Upload switches
    ds = _with_shape(ds, shape)
    activate(ds)
    return ds


def reuse_upload(shape: tuple[int, int] | None = None):
    """The file this session uploaded last (the uploader forgets it when the source switches)."""
    key = st.session_state.get("last_upload")
    ds = _datasets().get(key) if key is not None else None
    if ds is None:
        return None
    ds = _with_shape(ds, shape)
    activate(ds)
    return ds


def show_error(e: Exception, what: str) -> None:
    """``st.error`` with the message, and the details (type, traceback) in an expander.

    A ValueError is the library's own message (problem and fix); anything else is a bug,
    said so, with the traceback to report.
    """
    import traceback

    if isinstance(e, ValueError):
        st.error(str(e))
    else:
        st.error(f"{what} failed with an internal error ({type(e).__name__}: {e}). Please report it.")
    with st.expander("Details"):
        st.code("".join(traceback.format_exception(e)), language=None)


def failed(message: str) -> None:
    """A dataset could not be loaded: nothing stays active, every page shows the message."""
    st.session_state["load_error"] = message
    st.session_state.pop("dataset_key", None)


# ---------------------------------------------------------------------------- URL and session files
_URL_KEYS = ("source", "sample", "seed")


def restore_from_url() -> None:
    """On a new session (e.g. a browser refresh) take source, sample and seed from the URL."""
    if st.session_state.get("_url_read"):
        return
    st.session_state["_url_read"] = True
    q = st.query_params
    if q.get("source") in ("Sample", "Upload"):
        st.session_state.setdefault("source", q["source"])
    if q.get("sample") in sample_names():
        st.session_state.setdefault("sample", q["sample"])
    if str(q.get("seed", "")).isdigit():
        st.session_state.setdefault("seed", int(q["seed"]))
    st.session_state["_url_runs"] = q.get("runs")


def sync_url(ds) -> None:
    """Write the dataset choice, seed and the runs the pages show into the URL."""
    q = st.query_params
    for k in _URL_KEYS:
        v = st.session_state.get(k)
        if v is not None and q.get(k) != str(v):
            q[k] = str(v)
    pending = st.session_state.pop("_url_runs", None)
    if ds is None:
        return
    if pending:
        try:
            restore_runs(ds, json.loads(base64.urlsafe_b64decode(pending.encode())))
        except (ValueError, TypeError):
            pass  # a stale or edited URL: start with the defaults
    shown_runs = {slot: run.to_dict() for slot, run in _session("shown", ds).items()}
    text = base64.urlsafe_b64encode(json.dumps(shown_runs, separators=(",", ":")).encode()).decode()
    if shown_runs and len(text) < 4000 and q.get("runs") != text:
        q["runs"] = text


def restore_runs(ds, runs: dict) -> None:
    """Show ``{slot: Run dict}`` on the pages (results recompute or come from the store)."""
    shown = _session("shown", ds)
    for slot, data in runs.items():
        run = Run.from_dict(data)
        shown[slot] = run
        if run.spec.selects:
            add_selection(ds, run)


def session_download(ds) -> Callable[[], bytes]:
    """This session as JSON (dataset name and fingerprint, seed, every run it shows), made
    at the click: a callable for ``st.download_button(data=...)``.

    The sidebar draws the button before the page runs, and a page may still add a run in
    the same rerun (a Run click): bytes made now would miss it. The callable holds this
    session's own dicts, which the page updates in place, not ``st.session_state`` itself
    (Streamlit calls it outside the script run).
    """
    shown, selections, s = _session("shown", ds), _session("selections", ds), seed()
    return lambda: _session_bytes(ds, shown, selections, s)


def _session_bytes(ds, shown: dict, selections: dict, seed_: int) -> bytes:
    from fsviz import __version__

    data = {
        "fsviz_version": __version__,
        "dataset": {"name": str(ds.name), "fingerprint": ds.fingerprint},
        "seed": seed_,
        "shown": {slot: run.to_dict() for slot, run in list(shown.items())},
        "selections": [{"run": run.to_dict(), "k": k} for run, k in list(selections)],
    }
    return json.dumps(data, indent=2).encode()


def load_session(ds, data: bytes) -> int:
    """Restore a :func:`session_download` file on the same dataset; returns the number of runs.

    Raises ValueError naming the problem: not JSON, another dataset, a broken run.
    """
    try:
        doc = json.loads(data)
        want = doc["dataset"]
    except (ValueError, KeyError, TypeError):
        raise ValueError("session file: not an fsviz session (JSON with a 'dataset' entry).") from None
    if want.get("fingerprint") != ds.fingerprint:
        raise ValueError(
            f"session file: it was saved on dataset {want.get('name')!r} (fingerprint "
            f"{str(want.get('fingerprint'))[:12]}…), not on {ds.name!r}; load that dataset first."
        )
    restore_runs(ds, doc.get("shown", {}))
    for item in doc.get("selections", []):
        add_selection(ds, Run.from_dict(item["run"]), item.get("k"))
    return len(doc.get("shown", {}))


def current():
    """The session's dataset, or None."""
    key = st.session_state.get("dataset_key")
    return _datasets().get(key) if key else None


def entry_ran() -> None:
    """Called by app.py on every run before the page runs."""
    st.session_state["_entry_ran"] = True


def _ensure_entry_ran() -> None:
    """Run app.py first when a deep link (e.g. /groups) opens a page on a fresh server.

    Because a ``pages/`` directory sits next to app.py (DESIGN's layout), Streamlit starts
    in its legacy "pages directory" mode and runs the linked page alone, without app.py's
    page config, sidebar and ``st.navigation``, until the first ``st.navigation`` call of
    the process switches that mode off. Streamlit has no public switch for it, so we set
    the same private flag ``st.navigation`` sets (``PagesManager.uses_pages_directory``)
    and rerun; ``tests/browser/test_browser.py::test_deep_link_on_a_fresh_server`` covers it, so
    a Streamlit upgrade that moves the flag fails loudly.
    """
    if not st.session_state.get("_entry_ran"):
        from streamlit.runtime.pages_manager import PagesManager

        PagesManager.uses_pages_directory = False
        st.rerun()


def require_dataset():
    """The session's dataset; stops the page with the load error or a hint when there is none."""
    _ensure_entry_ran()
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


# ---------------------------------------------------------------------------- results
def stored(ds, run: Run):
    """The stored result of ``run`` on ``ds``, or None."""
    return _results().get(ResultKey(ds.fingerprint, run.key))


def _dependency(ds):
    """``results(run)`` for the runs a run depends on: from the store, else computed and stored."""

    def get(run: Run):
        hit = stored(ds, run)
        if hit is None:
            hit = run.execute(ds, results=get)
            _results().put(ResultKey(ds.fingerprint, run.key), hit)
        return hit

    return get


def result(
    ds, run: Run, label: str | None = None, *, auto: bool = True, progress: bool = False, quiet: bool = False
):
    """The result of ``run`` on ``ds``: from the store, else computed (with progress) when ``auto``.

    ``quiet`` computes without the status box: a live-tuning step that takes well under a
    second would only flash it, and drawing and removing it costs the browser ~0.1 s.
    A ValueError of the library shows as ``st.error`` and gives None; the session stays usable.
    """
    hit = stored(ds, run)
    if hit is None and auto:  # a prefetch in progress first: it may be this very run
        _prefetcher().wait(ResultKey(ds.fingerprint, run.key))
        hit = stored(ds, run)
    if hit is not None or not auto:
        return hit
    label = label or f"Running {run.spec.label}"
    if quiet:
        try:
            res = run.execute(ds, None, results=_dependency(ds))
        except Exception as e:  # every failure becomes a message; the session goes on
            show_error(e, f"{run.label} on {ds.name!r}")
            return None
        _results().put(ResultKey(ds.fingerprint, run.key), res)
        return res
    slot = st.empty()  # the progress box disappears once the result is there
    with slot.status(f"{label} …", expanded=progress) as status:
        try:
            res = run.execute(ds, _live_progress() if progress else None, results=_dependency(ds))
        except Exception as e:  # every failure becomes a message; the session goes on
            status.update(label=f"{label}: failed", state="error", expanded=True)
            show_error(e, f"{run.label} on {ds.name!r}")
            return None
    slot.empty()
    _results().put(ResultKey(ds.fingerprint, run.key), res)
    return res


def _live_progress():
    """A progress callback drawing a bar, and for streams a live selected-set-size chart
    (redrawn at most every 0.3 s)."""
    import pandas as pd

    bar = st.progress(0.0, text="starting")
    holder = st.empty()
    seen: dict[int, int] = {}
    last = [0.0]

    def update(frac: float, text: str, **info) -> None:
        bar.progress(min(max(float(frac), 0.0), 1.0), text=text)
        if "selected" in info:
            seen[int(info["arrived"])] = int(info["selected"])
            now = time.monotonic()
            if now - last[0] > 0.3 or frac >= 1:
                last[0] = now
                series = pd.Series(seen, name="selected features")
                holder.line_chart(series, x_label="features arrived", height=180)

    return update


def shown(slot: str, ds) -> Run | None:
    """The Run whose result page ``slot`` shows for this dataset, or None."""
    return _session("shown", ds).get(slot)


def page_result(slot: str, ds, run: Run, clicked: bool, label: str | None = None, progress: bool = False):
    """A page's main result for the parameters ``run`` asks for.

    Computed when Run was clicked, when it is already stored, on the first visit of small
    data, or — live tuning — when the result shown took less than :data:`LIVE_SECONDS`.
    Otherwise the page keeps showing its last result, marked stale until Run is pressed.
    """
    prev = shown(slot, ds)
    prev_res = stored(ds, prev) if prev is not None else None
    cheap = prev_res is not None and prev_res.seconds < LIVE_SECONDS
    fresh = prev is None and small(ds)
    live = not clicked and not fresh and run != prev and cheap
    if clicked or fresh or stored(ds, run) is not None or live:
        if live:  # the URL names the new run before it computes: the browser takes that
            # message (a re-render of the whole app) while the server computes, not after
            _session("shown", ds)[slot] = run
            sync_url(ds)
            _session("shown", ds)[slot] = prev  # until the result is there
        res = result(ds, run, label, progress=progress, quiet=live)
        if res is not None:
            _session("shown", ds)[slot] = run
            if run.spec.selects:
                add_selection(ds, run)
            return res
    if prev is None:
        return None
    res = prev_res or result(ds, prev, label, auto=small(ds), progress=progress)
    if res is not None and run != prev:
        took = f"took {res.seconds:.1f} s" if res.seconds >= LIVE_SECONDS else "did not finish"
        st.warning(
            f"Stale: the result below is for {prev.label}. The last run {took}, so new parameters "
            "apply when you press Run.",
            icon="⏳",
        )
    return res


# ---------------------------------------------------------------------------- selections
def add_selection(ds, run: Run, k: int | None = None) -> None:
    """Register a selection (Run, top k) for the compare/export and projection pages."""
    _session("selections", ds)[(run, k)] = None


def selections(ds) -> dict[str, fc.Selection]:
    """Every selection made on this dataset whose result is still stored: label -> Selection."""
    out = {}
    for run, k in _session("selections", ds):
        res = stored(ds, run)
        if res is not None:
            sel = res.selection(k)
            out[sel.label] = sel
    return out


def evaluation(ds, run: Run, k: int, reselect: bool = True, auto: bool = True) -> fc.Evaluation | None:
    """CV accuracy (R²/RMSE for a continuous target) and redundancy of the top ``k`` of ``run``'s
    selection (see fc.Method 'evaluation')."""
    ev = Run("evaluation", {"of": run, "k": int(k), "reselect": bool(reselect)}, seed())
    how = "selection redone in each training fold" if reselect else "selection on all samples"
    return result(ds, ev, f"Cross-validating {run.spec.label} ({how})", auto=auto)


def compare_rows(ds, k: int, auto: bool, biased: bool = False) -> list[tuple]:
    """(selection, honest evaluation, evaluation with the selection on all samples or None)."""
    rows = []
    for sel in selections(ds).values():
        honest = evaluation(ds, sel.run, k, auto=auto)
        rows.append((sel, honest, evaluation(ds, sel.run, k, reselect=False, auto=auto) if biased else None))
    return rows


def default_pair(sels: dict) -> tuple[int, int]:
    """Positions of the latest (base score, its GRM refinement) pair of selections, else the first two."""
    labels = list(sels)
    grm_i = [i for i, lab in enumerate(labels) if sels[lab].run.method == "grm"]
    if grm_i:
        j = grm_i[-1]
        base = sels[labels[j]].run.get("base")
        cand = [i for i, lab in enumerate(labels) if sels[lab].run == base]
        return (cand[-1] if cand else 0), j
    return 0, min(1, len(labels) - 1)


def projection(ds, sel: fc.Selection, k: int) -> fc.Projection | None:
    run = Run("projection", {"features": sel.top(k)}, seed())
    return result(ds, run, "Projecting")


def image_panels(ds, n_examples: int) -> fc.ImagePanels | None:
    run = Run("images", {"shape": ds.image_shape, "n_examples": int(n_examples)}, seed())
    return result(ds, run, "Drawing images")


def file_name(ds, sel: fc.Selection, what: str, ext: str = ".csv") -> str:
    """``digits-0-vs-1_gdm_tau-0.3_selection.csv``: letters, digits, '.', '-' and '_' only."""
    params = fc.params_label(sel.run).replace(", ", "_").replace("=", "-")
    raw = f"{ds.name}_{sel.run.method}_{params}_seed-{sel.run.seed}_{what}"
    return re.sub(r"[^A-Za-z0-9._-]+", "-", raw).strip("-_")[:150] + ext


def reduced_csv(ds, sel: fc.Selection) -> bytes | None:
    """The reduced dataset's CSV (st.error and None when it cannot be written)."""
    try:
        return fc.reduced_csv(ds, sel.indices)
    except ValueError as e:
        st.error(str(e))
        return None


# ---------------------------------------------------------------------------- forms
FORM_PREFIXES = ("gdm", "grm", "saola", "hist", "mask")
GDM_DEFAULTS = dict(
    tau=0.3, n_per_iter=10, max_iter=10, C=1.0, corr="pearson", one_class=False, cv_folds=None
)
SAOLA_DEFAULTS = dict(alpha=0.01, delta=0.0, data="auto", chunk=200)


def seed_form(prefix: str, values: dict) -> None:
    """Start a form's keyed widgets (keys ``<prefix>_<name>``) from ``values`` when they have
    no state yet: on the first visit, and after a page switch (Streamlit drops the state of
    widgets that were not drawn). The widgets then take no ``value=`` argument."""
    for name, value in values.items():
        st.session_state.setdefault(f"{prefix}_{name}", value)


#: what each page does with each kind of target ("classes", "continuous", None), said on the page
TARGET_NEEDS = {
    "groups": {
        "classes": "Class labels: GDM separates the classes (more than two: all at once, sharing the "
        "kernel weights; or one class vs the rest if you pick one).",
        "continuous": "Continuous target: GDM runs its regression form (squared loss). One-class GDM-OC "
        "needs no target.",
        None: "No target: GDM runs one-class (GDM-OC).",
    },
    "correlation": {
        "classes": "Feature-feature correlations need no target; the explorer below can also correlate "
        "every feature with the class codes.",
        "continuous": "Feature-feature correlations need no target; the explorer below can also correlate "
        "every feature with the continuous target (Pearson or Spearman).",
        None: "Feature-feature correlations need no target.",
    },
    "images": {
        "classes": "Panels show examples and the mean image of each class.",
        "continuous": "Continuous target: panels show examples with their target value and the mean "
        "image of the samples at most / above the median target.",
        None: "No target: panels show examples and the mean image of all samples.",
    },
    "grm": {
        "classes": "Class labels: every base score is offered; quality is CV accuracy.",
        "continuous": "Continuous target: only base scores with a regression form (F-regression, MI, "
        "RReliefF, |Pearson|, |Spearman|) and the unsupervised ones are offered; quality is CV R² and "
        "RMSE of a ridge regression.",
        None: "No target: only unsupervised base scores are offered, and no CV quality.",
    },
    "online": {
        "classes": "Class labels: SU for discrete data, Fisher's Z test for continuous data.",
        "continuous": "Continuous target: Fisher's Z test of each feature's correlation with the target "
        "(SAOLA paper, section 3.4.2); the discrete (SU) mode needs class labels.",
        None: "",
    },
    "compare": {
        "classes": "CV accuracy: stratified 5-fold (fewer if a class is smaller), linear SVM; each method is "
        "refitted with the same parameters on every training fold, so the test fold never picks the "
        "features (no selection bias).",
        "continuous": "Continuous target — CV R² and RMSE: shuffled 5-fold, ridge regression on standardised "
        "features; each method is refitted with the same parameters on every training fold (no selection "
        "bias).",
        None: "No target: redundancy only (no CV quality).",
    },
    "projection": {
        "classes": "Samples coloured by class.",
        "continuous": "Samples coloured by the continuous target (one colour scale).",
        None: "No target: samples in one colour.",
    },
    "stability": {
        "classes": "",
        "continuous": "Continuous target: supervised selections are those with a regression form.",
        None: "No target: unsupervised selections only.",
    },
}


def target_note(ds, page: str) -> str:
    """What ``page`` does with this dataset's kind of target (one line; may be empty)."""
    return TARGET_NEEDS[page][ds.target_kind]


def target_kind_label(ds) -> str:
    """``classes (3)``, ``continuous`` or ``none``: the Data page's headline of the target."""
    kind = ds.target_kind
    if kind == "classes":
        return f"classes ({len(ds.class_labels()[0])})"
    return kind or "none"


def class_labels(ds) -> list[str]:
    """The class names of the dataset as strings (empty without class labels)."""
    return ds.class_labels()[0]


def gdm_form_defaults(ds) -> dict:
    """The GDM form's starting values: those of the result shown, else the defaults."""
    run = shown("gdm", ds) or default_gdm(ds)
    p = GDM_DEFAULTS | run.kwargs
    return p | {"cv_folds": p.get("cv_folds") or 0, "positive": p.get("positive") or GDM_ALL_CLASSES}


GDM_ALL_CLASSES = "all classes (multiclass GDM)"  # the GDM form's choice of no `positive`


def default_gdm(ds) -> Run:
    """GDM's defaults for this dataset: all classes at once (multiclass GDM, so masks and trees
    describe every class), one-class (GDM-OC) without a target."""
    return Run("gdm", GDM_DEFAULTS | {"one_class": ds.y is None}, seed())


def grm_form_defaults(ds) -> dict:
    """The GRM form's starting values: those of the result shown, else the defaults."""
    run = shown("grm", ds)
    default = fc.grm_default_base(ds.target_kind)
    base = run.get("base") if run is not None else Run(default, fc.score_params(default, 5))
    return {
        "method": base.method,
        "n_neighbors": base.get("n_neighbors", 5),
        "n_top": min(run.get("n_top", 500) if run else 500, ds.n_features),
        "gamma": run.get("gamma", 1.0) if run else 1.0,
    }


def saola_form_defaults(ds) -> dict:
    """The SAOLA form's starting values: those of the stream shown, else the defaults."""
    run = shown("stream", ds)
    shown_params = run.kwargs if run is not None else {}
    return {k: shown_params.get(k, v) for k, v in SAOLA_DEFAULTS.items()}


def stream_run(ds, method: str, params: dict, chunk: int, grouping: str) -> Run | None:
    """The streaming Run the online page asks for (None: GDM groups not there yet).

    SAOLA and its baselines (alpha-investing, OSFS, Fast-OSFS, Grafting) take the features
    ``chunk`` at a time; group-SAOLA takes GDM's groups or a random partition.
    """
    if method != "group-saola":
        return Run(method, params | {"chunk": int(chunk)}, seed())
    if grouping == "GDM groups":
        groups = shown("gdm", ds)
        if groups is None:
            return None
    else:
        groups = max(2, ds.n_features // 10)  # the SAOLA paper's random groups of ~10 features
    return Run("group-saola", params | {"groups": groups}, seed())


def prior_groups_editor(ds) -> list[list[int]]:
    """Prior groups for GRM, picked by feature name; returns the groups (feature indices).

    A group comes from a searchable multiselect, from pasted lines of comma-separated
    names, or from the GDM groups shown on the Groups page. Unknown names and features in
    two groups are refused with a message; nothing is coerced.
    """
    state = _session("prior", ds)
    groups: list[list[int]] = state.setdefault("groups", [])
    names = [str(n) for n in ds.feature_names]

    def add(new: list[list[int]]) -> None:
        taken = {j: i + 1 for i, g in enumerate(groups) for j in g}
        clash = [j for g in new for j in g if j in taken]
        if clash:
            st.error(
                f"{names[clash[0]]!r} is already in prior group {taken[clash[0]]}; "
                "a feature belongs to one group (remove that group first)."
            )
            return
        groups.extend(sorted(set(g)) for g in new)

    if ds.n_features <= 5000:  # a multiselect over more options is too heavy for the browser
        c1, c2 = st.columns([4, 1], vertical_alignment="bottom")
        picked = c1.multiselect(
            "Pick the features of a new group (type to search)",
            range(ds.n_features),
            format_func=names.__getitem__,
            key="prior_pick",
        )
        if c2.button("Add as a group", key="prior_add_pick", disabled=len(picked) < 2, width="stretch"):
            add([list(picked)])
    text = st.text_area(
        "…or paste groups: one group per line, feature names separated by commas",
        key="prior_text",
        height=90,
        placeholder=", ".join(names[:3]) + "\n" + ", ".join(names[3:5]),
    )
    b1, b2, b3 = st.columns(3)
    if b1.button("Add pasted groups", key="prior_add_text", width="stretch"):
        try:
            add(fc.parse_prior_groups(text, names))
        except ValueError as e:
            st.error(str(e))
    if b2.button("Add the GDM groups of the Groups page", key="prior_add_gdm", width="stretch"):
        gdm = shown("gdm", ds)
        res = stored(ds, gdm) if gdm is not None else None
        if res is None:
            st.warning("No GDM groups yet: run GDM on the Groups page first.")
        else:
            add(fc.gdm_prior_groups(res))
    if b3.button("Remove all prior groups", key="prior_clear", width="stretch"):
        groups.clear()
    if groups:
        st.dataframe(fc.prior_groups_frame(groups, names), hide_index=True, width="stretch", height=180)
        c1, c2 = st.columns([4, 1], vertical_alignment="bottom")
        drop = c1.multiselect("Remove groups", range(1, len(groups) + 1), key="prior_drop")
        if c2.button("Remove", key="prior_drop_btn", disabled=not drop, width="stretch"):
            groups[:] = [g for i, g in enumerate(groups, start=1) if i not in set(drop)]
            st.rerun()
    return [list(g) for g in groups]


def prior_effect(ds, plain: fc.GRMResult, constrained: fc.GRMResult, prior: list, k: int) -> None:
    """Redundancy, CV accuracy (R² for a continuous target) and rank spread of the prior groups,
    GRM without vs with priors."""
    cols = st.columns(2)
    for col, res, title in zip(cols, (plain, constrained), ("without priors", "with priors"), strict=True):
        ev = evaluation(ds, res.run, k)
        spread = fc.prior_group_spread(res.ranking, prior)
        col.markdown(f"**GRM {title}**")
        if ev is not None:
            col.metric(f"redundancy of top {ev.k}", f"{ev.redundancy:.3f}")
            col.metric(ev.quality_label, f"{ev.quality:.3f} ± {ev.quality_std:.3f}")
        col.metric(
            "mean rank spread within a prior group", f"{spread:.1f}", help="max − min rank; lower = together"
        )


def gamma_sweep(ds, run: Run, prior: list, k: int) -> None:
    """GRM over gamma in (0, 0.3, 1, 3, 10): redundancy of the top k and the prior groups' rank spread."""
    import pandas as pd

    rows = []
    for g in (0.0, 0.3, 1.0, 3.0, 10.0):
        res = result(ds, run.replace(gamma=g), f"GRM with gamma={g:g}")
        if res is None:
            return
        ev = evaluation(ds, res.run, k)
        rows.append(
            {
                "gamma": g,
                f"redundancy of top {k}": None if ev is None else ev.redundancy,
                "mean rank spread in a prior group": fc.prior_group_spread(res.ranking, prior),
            }
        )
    frame = pd.DataFrame(rows).set_index("gamma")
    st.dataframe(frame, width="stretch")
    st.line_chart(frame, x_label="gamma", height=240)
