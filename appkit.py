"""The app's one Streamlit helper module: dataset choice, cache wrappers, shared state.

Pages stay thin: they read widgets, call one function from here (which calls
``fsviz.compute`` through a cache) and hand the result to an ``fsviz.viz`` builder.

Caching
-------
* Datasets live in a ``st.cache_resource`` registry keyed by their fingerprint; the session
  keeps only the fingerprint (``st.session_state["fingerprint"]``), never arrays.
* Expensive results (GDM, scores, GRM, SAOLA, histograms, evaluations) live in a
  process-wide ``st.cache_resource`` LRU store keyed by ``fsviz.compute.cache_key``:
  ``(fingerprint, method, sorted params, seed, fsviz version)``. The dataset itself is never
  hashed. A run shows its progress (``st.status`` / ``st.progress``) while it computes; a
  cached result returns at once, so display-only widgets never recompute.
* Cheap derived facts (summary, moments, projections, image panels) use ``st.cache_data``
  with the fingerprint hashed and the dataset passed as the unhashed ``_dataset``.
* ``st.session_state["runs"][fingerprint][slot]`` remembers the key of the last result of
  each page and ``...["selections"][fingerprint]`` every selection computed, so results
  survive page switches and feed the compare page.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import streamlit as st

import fsviz.compute as fc

#: a dataset is "small" when n_samples * n_features is below this: its default runs start
#: by themselves on the first visit of a page (larger data waits for the Run button)
AUTO_RUN_CELLS = 3_000_000
STORE_SIZE = 96
UPLOAD_TYPES = ["csv", "tsv", "txt", "parquet", "pq", "mat", "npz", "svm", "libsvm", "svmlight"]


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

    def put(self, key, value):
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


def _state(name: str, fp: str) -> dict:
    return st.session_state.setdefault(name, {}).setdefault(fp, {})


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
def _load_upload(digest: str, filename: str, label, shape: tuple | None, _data: bytes):
    import io

    from fsviz.data import load_dataset

    buf = io.BytesIO(_data)
    buf.name = filename  # the loader takes the format from the name
    return load_dataset(buf, label=label, image_shape=shape, name=Path(filename).stem)


def parse_label(text: str | None):
    """The label field: empty -> "auto" (the loader's default), "-1"/"3" -> a column position."""
    text = (text or "").strip()
    if not text:
        return "auto"
    return int(text) if text.lstrip("-").isdigit() else text


def with_image_shape(ds, shape: tuple[int, int] | None):
    """The dataset with a caller-given image shape (validated against the feature count)."""
    if shape is None or tuple(shape) == tuple(getattr(ds, "image_shape", None) or ()):
        return ds
    h, w = shape
    if h * w != ds.X.shape[1]:
        raise ValueError(
            f"image shape: {h} x {w} = {h * w} pixels, but the dataset has "
            f"{ds.X.shape[1]} features; give a shape whose product is the feature count."
        )
    import dataclasses

    if dataclasses.is_dataclass(ds):
        return dataclasses.replace(ds, image_shape=(int(h), int(w)))
    ds.image_shape = (int(h), int(w))
    return ds


def activate(ds) -> None:
    """Make ``ds`` the session's dataset (only its fingerprint and shape go into session state)."""
    key = f"{ds.fingerprint}|{getattr(ds, 'image_shape', None)}"
    _datasets().put(key, ds)
    if st.session_state.get("dataset_key") not in (None, key):  # another dataset: forms start afresh
        for k in [k for k in st.session_state if str(k).split("_")[0] in FORM_PREFIXES]:
            del st.session_state[k]
    st.session_state["dataset_key"] = key
    st.session_state["fingerprint"] = ds.fingerprint


def load_sample(name: str, shape: tuple[int, int] | None = None):
    ds = with_image_shape(_load_sample(name), shape)
    activate(ds)
    return ds


def load_upload(filename: str, data: bytes, label: str | None, shape: tuple[int, int] | None = None):
    """Load an uploaded file (cached by its content hash); raises the loader's ValueError."""
    digest = hashlib.sha256(data).hexdigest()
    ds = _load_upload(digest, filename, parse_label(label), tuple(shape) if shape else None, data)
    activate(ds)
    return ds


def current():
    """The session's dataset, or None."""
    key = st.session_state.get("dataset_key")
    return _datasets().get(key) if key else None


def entry_ran() -> None:
    """Called by app.py on every run before the page runs."""
    st.session_state["_entry_ran"] = True


def _ensure_entry_ran() -> None:
    """A deep link (e.g. /groups) on a fresh server runs the page without app.py.

    Streamlit's legacy "pages/ directory" mode does that until the first ``st.navigation``
    call of the process. Switch that mode off (what ``st.navigation`` itself does) and
    rerun, so app.py (page config, dataset chooser, navigation) runs first.
    """
    if not st.session_state.get("_entry_ran"):
        from streamlit.runtime.pages_manager import PagesManager

        PagesManager.uses_pages_directory = False
        st.rerun()


def require_dataset():
    """The session's dataset; stops the page with a hint when there is none."""
    _ensure_entry_ran()
    ds = current()
    if ds is None:
        st.info("Choose a sample dataset or upload one in the sidebar (Data page).")
        st.stop()
    return ds


def seed() -> int:
    return int(st.session_state.get("seed", 0))


def small(ds) -> bool:
    return ds.X.shape[0] * ds.X.shape[1] <= AUTO_RUN_CELLS


def library_ready(module: str, *names: str) -> bool:
    """Whether ``fsviz.<module>`` provides ``names`` yet; shows an st.info when not."""
    import importlib

    missing = []
    for n in names:
        try:
            getattr(importlib.import_module(f"fsviz.{module}"), n)
        except (ImportError, AttributeError):
            missing.append(n)
    if missing:
        st.info(
            f"This view needs fsviz.{module}.{', '.join(missing)}, which is not in this build yet. "
            "Nothing is shown rather than made-up results."
        )
    return not missing


# ---------------------------------------------------------------------------- cheap cached facts
@st.cache_data(show_spinner=False, max_entries=16)
def summary(fingerprint: str, _dataset) -> fc.Summary:
    return fc.summarize(_dataset)


@st.cache_data(show_spinner=False, max_entries=16)
def moments(fingerprint: str, _dataset):
    return fc.feature_moments(_dataset)


@st.cache_data(show_spinner=False, max_entries=32)
def projection(fingerprint: str, indices: tuple, _dataset) -> fc.Projection:
    return fc.project(_dataset, list(indices))


@st.cache_data(show_spinner=False, max_entries=16)
def image_panels(fingerprint: str, n_examples: int, seed_: int, _dataset) -> fc.ImagePanels:
    return fc.image_panels(_dataset, n_examples, seed_)


# ---------------------------------------------------------------------------- expensive, keyed runs
def cached_run(
    key: tuple, label: str, fn: Callable[..., Any], *args, auto: bool = True, progress: bool = False, **kwargs
):
    """Return the result stored under ``key``; compute it (with progress) only when ``auto``.

    ``fn(*args, **kwargs)`` is a pure ``fsviz.compute`` function; with ``progress=True`` it
    receives a ``progress(fraction, text)`` callback drawn as an ``st.progress`` bar.
    Returns None when the result is not stored and ``auto`` is False.
    """
    store = _results()
    hit = store.get(key)
    if hit is not None or not auto:
        return hit
    slot = st.empty()  # the progress box disappears once the result is there
    with slot.status(f"{label} …", expanded=progress) as status:
        if progress:
            kwargs["progress"] = _live_progress()
        try:
            result = fn(*args, **kwargs)
        except ValueError as e:
            status.update(label=f"{label}: failed", state="error")
            st.error(str(e))
            return None
    slot.empty()
    store.put(key, result)
    return result


def _live_progress():
    """A progress callback drawing a bar, and for streams a live selected-set-size chart
    (redrawn at most every 0.3 s)."""
    import time

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
                holder.line_chart(
                    pd.Series(seen, name="selected features"), x_label="features arrived", height=180
                )

    return update


def remember(slot: str, ds, result) -> None:
    """Remember the key of this page's last result (survives page switches)."""
    _state("runs", ds.fingerprint)[slot] = result.key


def last(slot: str, ds):
    """This page's last result for the dataset, if still stored."""
    key = _state("runs", ds.fingerprint).get(slot)
    return _results().get(key) if key else None


def add_selection(ds, selection: fc.Selection) -> None:
    """Register a selection for the compare/export and projection pages."""
    skey = ("selection", selection.key, selection.method, selection.n_features)
    _results().put(skey, selection)
    _state("selections", ds.fingerprint)[skey] = (
        f"{selection.method} [{fc.params_label(selection.params)}] — {selection.n_features} features"
    )


def selections(ds) -> dict[str, fc.Selection]:
    """Every selection computed for this dataset still in the store: label -> Selection."""
    out = {}
    for skey, label in _state("selections", ds.fingerprint).items():
        sel = _results().get(skey)
        if sel is not None:
            out[label] = sel
    return out


def _slot_run(slot: str, ds, run: bool, key: tuple, label: str, fn, *args, **kwargs):
    """A page's main result: computed on Run; else the page's last result (it survives page
    switches); else, on small data only, computed with the default parameters at once."""
    prev = last(slot, ds)
    if not run and (prev is not None or not small(ds)):
        return prev
    res = cached_run(key, label, fn, *args, **kwargs)
    if res is None:
        return prev if run else None
    remember(slot, ds, res)
    return res


FORM_PREFIXES = ("gdm", "grm", "saola", "hist", "mask")
GDM_DEFAULTS = dict(
    tau=0.3, n_per_iter=10, max_iter=10, C=1.0, corr="pearson", one_class=False, cv_folds=None
)
SAOLA_DEFAULTS = dict(alpha=0.01, delta=0.0, data="auto", chunk=200)


def grm_form_defaults(ds) -> dict:
    """The GRM form's starting values: those of the result shown, else the defaults."""
    p = shown_params("grm", ds)
    base = dict(p.get("base_params", ()))
    return {
        "method": p.get("base", "score:lgd").split(":", 1)[1],
        "n_neighbors": base.get("n_neighbors", 5),
        "n_top": min(p.get("n_top", 500), ds.X.shape[1]),
        "gamma": p.get("gamma", 1.0),
    }


def saola_form_defaults(ds) -> dict:
    """The SAOLA form's starting values: those of the stream shown, else the defaults."""
    shown = shown_params("stream", ds)
    return {k: shown.get(k, v) for k, v in SAOLA_DEFAULTS.items()}


def class_labels(ds) -> list[str]:
    """The class labels of the dataset as strings (empty without labels)."""
    return [str(c) for c, _ in summary(ds.fingerprint, ds).classes]


def default_gdm_params(ds) -> dict:
    """GDM's default parameters for this dataset (one vs rest of the first class if multiclass)."""
    classes = class_labels(ds)
    return GDM_DEFAULTS | positive_param(classes[0] if len(classes) > 2 else None)


def positive_param(positive: str | None) -> dict:
    """GDM's one-vs-rest class as a parameter (only for more than two classes)."""
    return {} if positive is None else {"positive": positive}


def seed_form(prefix: str, values: dict) -> None:
    """Start a form's keyed widgets (keys ``<prefix>_<name>``) from ``values`` when they have
    no state yet: on the first visit, and after a page switch (Streamlit drops the state of
    widgets that were not drawn). The widgets then take no ``value=`` argument."""
    for name, value in values.items():
        st.session_state.setdefault(f"{prefix}_{name}", value)


def shown_params(slot: str, ds) -> dict:
    """Parameters of the result a page shows (its form starts from them), or {}."""
    res = last(slot, ds)
    return dict(res.key[2]) if res is not None else {}


def gdm(ds, params: dict, run: bool):
    """GDM groups for ``params``; tau-independent moments are cached apart and reused."""
    key = fc.cache_key(ds.fingerprint, "gdm", params, seed())
    res = _slot_run(
        "gdm", ds, run, key, "Running GDM", fc.run_gdm, ds, params, seed(), moments(ds.fingerprint, ds)
    )
    if res is not None:
        add_selection(ds, res.to_selection())
    return res


def score(ds, method: str, params: dict):
    key = fc.cache_key(ds.fingerprint, f"score:{method}", params, seed())
    return cached_run(
        key, f"Scoring features ({fc.SCORE_METHODS[method][1]})", fc.run_score, ds, method, params, seed()
    )


def grm(ds, method: str, score_params: dict, n_top: int, prior: list, gamma: float, k: int, run: bool):
    """GRM on top of a separately cached base score; registers the base and GRM top-k selections."""
    kp = {
        "n_top": int(n_top),
        "gamma": float(gamma),
        "base": f"score:{method}",
        "base_params": fc.cache_key("", "", score_params)[2],
        "prior_groups": [list(map(int, g)) for g in prior] or (),
    }
    key = fc.cache_key(ds.fingerprint, "grm", kp, seed())
    prev = last("grm", ds)
    if not run and (prev is not None or not small(ds)):
        res = prev
    else:
        base = score(ds, method, score_params)
        res = (
            None
            if base is None
            else cached_run(key, "Running GRM", fc.run_grm, ds, base, n_top, prior, gamma, seed())
        )
        if res is None:
            return prev
        remember("grm", ds, res)
        remember("grm-base", ds, base)
    if res is not None:
        base = last("grm-base", ds)
        if base is not None:
            add_selection(ds, base.to_selection(k))
        add_selection(ds, res.to_selection(k))
    return res


def evaluation(ds, indices, k: int, auto: bool = True) -> fc.Evaluation | None:
    idx = tuple(int(i) for i in list(indices)[:k])
    key = fc.cache_key(ds.fingerprint, "evaluate", {"features": idx}, seed())
    return cached_run(
        key,
        f"Evaluating top {len(idx)} (CV accuracy, redundancy)",
        fc.evaluate_top,
        ds,
        idx,
        k,
        seed(),
        auto=auto,
    )


def histogram(ds, n_bins: int, max_features: int, run: bool):
    key = fc.cache_key(
        ds.fingerprint, "histogram", {"bins": int(n_bins), "max_features": int(max_features)}, seed()
    )
    return _slot_run(
        "histogram",
        ds,
        run,
        key,
        "Counting |rho| over all pairs",
        fc.run_histogram,
        ds,
        n_bins,
        max_features,
        seed(),
        progress=True,
    )


def stream(ds, method: str, params: dict, chunk: int, groups, run: bool):
    kp = dict(params, chunk=int(chunk)) if method == "saola" else dict(params, groups=groups)
    key = fc.cache_key(ds.fingerprint, method, kp, seed())
    if method == "group-saola" and not groups:
        return last("stream", ds) if not run else None
    res = _slot_run(
        "stream",
        ds,
        run,
        key,
        f"Streaming features through {method}",
        fc.run_stream,
        ds,
        method,
        params,
        chunk,
        seed(),
        groups,
        progress=True,
    )
    if res is not None:
        add_selection(ds, res.to_selection())
    return res


def default_pair(sels: dict) -> tuple[int, int]:
    """Positions of the latest (base score, its GRM refinement) pair of selections, else the first two."""
    labels = list(sels)
    grm_i = [i for i, lab in enumerate(labels) if sels[lab].method.startswith("GRM(")]
    if grm_i:
        j = grm_i[-1]
        base = sels[labels[j]].method[4:-1]
        cand = [i for i, lab in enumerate(labels) if sels[lab].method == base]
        return (cand[-1] if cand else 0), j
    return 0, min(1, len(labels) - 1)


def honest_evaluation(ds, sel: fc.Selection, k: int, auto: bool = True) -> fc.Evaluation | None:
    """CV accuracy of ``sel``'s top k with its method refitted inside every training fold."""
    key = fc.cache_key(ds.fingerprint, "evaluate-reselect", {"selection": sel.key, "k": int(k)}, seed())
    return cached_run(
        key,
        f"Cross-validating {sel.method} (selection redone in each training fold)",
        fc.evaluate_top,
        ds,
        tuple(int(i) for i in sel.indices[:k]),
        k,
        seed(),
        selector=fc.reselector(sel, seed()),
        auto=auto,
    )


def compare_rows(ds, k: int, auto: bool, biased: bool = False):
    """(selection, honest evaluation, [evaluation with selection on all samples]) per selection."""
    rows = []
    for sel in selections(ds).values():
        row = (sel, honest_evaluation(ds, sel, k, auto=auto))
        rows.append(row + (evaluation(ds, sel.indices, k, auto=auto),) if biased else row)
    return rows


@st.cache_data(show_spinner="Writing the reduced dataset …", max_entries=8)
def reduced_csv(fingerprint: str, indices: tuple, _dataset) -> bytes:
    return fc.reduced_csv(_dataset, list(indices))


def prior_groups_editor(ds) -> list[list[int]]:
    """The GRM group-constraint editor (rows feature -> group); returns validated prior groups.

    One click adds the current GDM groups; invalid rows show the validation message and
    give no constraints.
    """
    import pandas as pd

    state = _state("prior", ds.fingerprint)
    if "rows" not in state:
        state["rows"] = pd.DataFrame(
            {"feature": pd.Series([], dtype="int64"), "group": pd.Series([], dtype=str)}
        )
        state["version"] = 0
    c1, c2, _ = st.columns([1, 1, 3])
    if c1.button("Add current GDM groups", key="prior_add_gdm"):
        res = last("gdm", ds)
        if res is None:
            st.warning("No GDM groups yet: run GDM on the Groups page first.")
        else:
            rows = pd.concat([state.get("edited", state["rows"]), fc.gdm_prior_rows(res)], ignore_index=True)
            state["rows"] = rows.drop_duplicates("feature", keep="first").reset_index(drop=True)
            state["version"] += 1
    if c2.button("Clear", key="prior_clear"):
        state["rows"] = state["rows"].iloc[:0]
        state["version"] += 1
    m = ds.X.shape[1]
    edited = st.data_editor(
        state["rows"],
        num_rows="dynamic",
        hide_index=True,
        key=f"prior_editor_{state['version']}",
        column_config={
            "feature": st.column_config.NumberColumn(
                "feature", min_value=0, max_value=m - 1, step=1, help="feature index"
            ),
            "group": st.column_config.TextColumn("group", help="any label; same label = same group"),
        },
    )
    state["edited"] = edited
    try:
        prior = fc.validate_prior_groups(edited, m)
    except ValueError as e:
        st.error(str(e))
        return []
    st.caption(
        f"{len(prior)} constraint group(s) over {sum(map(len, prior))} features feed GRM's "
        "prior-knowledge term (rows of a single-feature group carry no constraint)."
    )
    return prior


def stream_groups(ds, method: str, grouping: str):
    """Feature groups for group-SAOLA (None for plain SAOLA or when GDM has not run)."""
    if method != "group-saola":
        return None
    m = ds.X.shape[1]
    if grouping == "GDM groups":
        res = last("gdm", ds)
        return fc.gdm_partition(res, m) if res is not None else None
    return fc.random_partition(m, max(2, m // 10), seed())


def score_classes() -> list[str]:
    """fsviz.select class names behind the GRM page's base scores."""
    return [cls for cls, _, _ in fc.SCORE_METHODS.values()]
