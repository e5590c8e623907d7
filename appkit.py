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
from contextlib import contextmanager
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


def prefetch_neighbours(ds, run: Run, res, name: str) -> None:
    """Compute ``run`` with parameter ``name`` one slider step up and down (the step and the
    range of its declaration, as :func:`param_slider` draws it) in the background when its
    result ``res`` took less than :data:`PREFETCH_SECONDS`: the next arrow-key step of a live
    slider is then a cache hit."""
    if res is None or res.run != run or res.seconds >= PREFETCH_SECONDS:
        return
    p = run.spec.params[name]
    lo, hi = p.widget_range()
    value = float(run.get(name))
    near = [round(value + d, 10) for d in (p.step, -p.step) if lo <= round(value + d, 10) <= hi]
    _prefetcher().submit(ds, [run.replace(**{name: v}) for v in near])


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


# ---------------------------------------------------------------------------- uploads
NO_TARGET = "(no target: unsupervised)"
#: the roles a column of an uploaded table can have (the Data page's roles table)
ROLES = ("target", "feature", "identifier", "ignored")
#: an upload's import options and their defaults: the loader's, except that the app fills
#: missing feature values, one-hot encodes text columns and leaves out rows without a target
#: by default (a file as people have it loads; the Data page says what was done)
IMPORT_DEFAULTS = {
    "sep": "auto",
    "decimal": "auto",
    "sheet": None,
    "transpose": "auto",
    "label": "auto",
    "roles": {},
    "missing": "median",
    "categorical": "onehot",
    "missing_target": "drop",
    "min_class_size": 0,
    "target_kind": "auto",
}


@dataclass
class Upload:
    """A file this server received, with its import options.

    It lives in a server-side store under an unguessable ``token`` that only the URL of
    the session that uploaded it carries (``?upload=…``), so a browser refresh finds it
    again and no other session can; the store is bounded by the memory budget.
    """

    token: str
    filename: str
    digest: str
    data: bytes
    options: dict


class _UploadStore(_LRU):
    """The :class:`Upload` store: least recently used files go once their bytes exceed the budget."""

    def __init__(self, budget: int):
        super().__init__(size=64)
        self.budget = budget

    def put(self, key, value) -> None:
        super().put(key, value)
        with self.lock:
            while len(self.data) > 1 and sum(len(u.data) for u in self.data.values()) > self.budget:
                self.data.popitem(last=False)


@st.cache_resource(show_spinner=False)
def _uploads() -> _UploadStore:
    from fsviz.data.budget import resolve_budget

    return _UploadStore(max(resolve_budget() // 2, 64 << 20))


def receive_upload(filename: str, data: bytes) -> Upload:
    """Keep an uploaded file (the same bytes again keep their token and import options)."""
    import secrets

    digest = hashlib.sha256(data).hexdigest()
    up = current_upload()
    if up is None or up.digest != digest or up.filename != filename:
        up = Upload(secrets.token_urlsafe(16), filename, digest, data, dict(IMPORT_DEFAULTS))
        adopt_pending_options(up)
    _uploads().put(up.token, up)
    st.session_state["upload_token"] = up.token
    return up


def current_upload() -> Upload | None:
    """The file this session uploaded last (it survives source switches and refreshes)."""
    token = st.session_state.get("upload_token")
    return _uploads().get(token) if token else None


def set_import_option(up: Upload, name: str, value) -> None:
    """Change one import option; a new dialect, sheet or orientation starts the roles afresh."""
    if up.options.get(name) == value:
        return
    up.options[name] = value
    if name in ("sep", "decimal", "sheet", "transpose"):
        up.options["roles"] = {}
        up.options["label"] = "auto"


def set_role(up: Upload, info, column: str, role: str) -> None:
    """The roles table's edit: ``column`` takes ``role``. The target is the ``label`` option
    (one column at most); the other roles are overrides of the inferred ones."""
    if role not in ROLES:
        raise ValueError(f"column role: must be one of {ROLES}; got {role!r}.")
    roles = {c: r for c, r in up.options["roles"].items() if c != column}
    if role == "target":
        up.options["label"] = column
    else:
        if column_roles(up, info).get(column) == "target":
            up.options["label"] = None
        roles[column] = role
    up.options["roles"] = roles


def set_target(up: Upload, column: str | None) -> None:
    """The target picker: ``column`` becomes the target (None: no target)."""
    up.options["roles"] = {c: r for c, r in up.options["roles"].items() if c != column}
    up.options["label"] = column


@st.cache_resource(show_spinner=False, max_entries=16)
def _inspect(digest: str, filename: str, sep, decimal, sheet, transpose, label, _data: bytes):
    from fsviz.data import inspect_table

    buf = io.BytesIO(_data)
    buf.name = filename
    return inspect_table(buf, sep=sep, decimal=decimal, sheet=sheet, transpose=transpose, label=label)


def inspect_upload(up: Upload):
    """The first rows of an upload as it will be read, its detected dialect and column roles."""
    o = up.options
    return _inspect(
        up.digest, up.filename, o["sep"], o["decimal"], o["sheet"], o["transpose"], o["label"], up.data
    )


def column_roles(up: Upload, info) -> dict[str, str]:
    """Every column's role: the inferred default, overridden by the user's edits."""
    return {str(r.name): r.role for r in info.roles} | up.options["roles"]


def load_kwargs(up: Upload, info) -> dict:
    """:func:`fsviz.data.load_dataset`'s options for the upload's import options and roles."""
    o = up.options
    kwargs = {
        k: o[k] for k in ("sep", "decimal", "sheet", "transpose", "missing", "categorical", "missing_target")
    }
    if info.frame is None:  # .mat, .npz, svmlight: the label is a variable, no column roles
        return kwargs | {"label": o["label"]}
    roles = column_roles(up, info)
    target = [c for c, r in roles.items() if r == "target"]
    return kwargs | {
        "label": target[0] if target else None,
        "id_columns": [c for c, r in roles.items() if r == "identifier"],
        "ignore": [c for c, r in roles.items() if r == "ignored"],
    }


@st.cache_resource(show_spinner=False, max_entries=4)
def _load_upload(digest: str, filename: str, kwargs_key: str, _kwargs: dict, _data: bytes):
    """The loader checks the sizes the file declares against the memory budget before it
    allocates (FSVIZ_MEMORY_BUDGET, else 1/8 of the available RAM): one upload cannot take
    the server, and every session on it, down; a .mat file is parsed in a child process
    (``sandbox=True``), so a reader that crashes on a damaged file cannot either."""
    from fsviz.data import load_dataset

    buf = io.BytesIO(_data)
    buf.name = filename  # the loader takes the format from the name
    return load_dataset(buf, name=Path(filename).stem, sandbox=True, **_kwargs)


def apply_target_fixes(ds, options: dict):
    """The Data page's target fixes: classes smaller than ``min_class_size`` left out, an
    integer target read as continuous."""
    if options.get("target_kind", "auto") != "auto" and ds.y is not None:
        ds = ds.with_target_kind(options["target_kind"])
    if int(options.get("min_class_size") or 0) > 1 and ds.target_kind == "classes":
        ds = ds.drop_small_classes(int(options["min_class_size"]))
    return ds


def load_upload(up: Upload, shape: tuple[int, int] | None = None):
    """Load an upload with its import options (cached by content and options); raises the
    loader's ValueError. The main area shows that the file is being read."""
    kwargs = load_kwargs(up, inspect_upload(up))
    key = json.dumps(kwargs, sort_keys=True, default=str)
    with busy(f"Reading {up.filename} …"):
        ds = _load_upload(up.digest, up.filename, key, kwargs, up.data)
    ds = _with_shape(apply_target_fixes(ds, up.options), shape)
    activate(ds)
    return ds


# ---------------------------------------------------------------------------- import widgets
def import_key(up: Upload, name: str) -> str:
    """The widget key of import option ``name`` of this upload (one set of widgets per file)."""
    return f"imp_{name}_{up.token}"


def copy_label_text(up: Upload) -> None:
    up.options["label"] = parse_label(st.session_state.get(import_key(up, "label")))


def target_options(info) -> list[str]:
    """Target picker options: likely targets first, then "no target", then the other columns."""
    suggested = [str(c) for c in info.target_candidates]
    rest = [str(c) for c in info.frame.columns if str(c) not in suggested]
    return suggested + [NO_TARGET] + rest


def target_choice(up: Upload, info, options: list[str]) -> str:
    """The picker's value: the column whose role is target, else "no target"."""
    target = [c for c, r in column_roles(up, info).items() if r == "target"]
    return target[0] if target and target[0] in options else NO_TARGET


def copy_target(up: Upload, key: str) -> None:
    choice = st.session_state[key]
    set_target(up, None if choice == NO_TARGET else choice)


def _option(up: Upload, name: str, widget, label: str, options, fmt=None, **kw):
    """A widget bound to import option ``name``: it shows the option, and a change is written
    back before the rerun loads the file again (the option outlives the widget)."""
    key = import_key(up, name)
    st.session_state[key] = up.options[name]

    def copy() -> None:
        set_import_option(up, name, st.session_state[key])

    return widget(label, options, key=key, on_change=copy, format_func=fmt or str, **kw)


def load_error_fixes(up: Upload, message: str, info) -> list[tuple[str, str, object]]:
    """Buttons for a file that did not load: ``(label, import option, value)`` that would fix
    the problem ``message`` names (each also has its control in the import settings)."""
    text, o = message.lower(), up.options
    fixes = []
    if "missing" in text and ("label" in text or "target" in text) and o["missing_target"] == "error":
        fixes.append(("Leave out the rows without a target", "missing_target", "drop"))
    elif "missing" in text and o["missing"] == "error":
        fixes.append(("Fill missing values with the median", "missing", "median"))
    if ("text" in text or "non-numeric" in text or "categorical" in text) and o["categorical"] == "error":
        fixes.append(("One-hot encode the text columns", "categorical", "onehot"))
    if info is not None and info.frame is not None and info.n_columns == 1 and info.sep != ";":
        fixes.append(("Read with ';' as the separator", "sep", ";"))
    return fixes


SEPARATORS = {"auto": "auto", ",": "comma ,", ";": "semicolon ;", "\t": "tab", "|": "bar |", r"\s+": "spaces"}
DECIMALS = {"auto": "auto", ".": "point .", ",": "comma ,"}
ORIENTATIONS = {"auto": "auto", False: "samples as rows", True: "features as rows (transposed)"}


def _shown_as(names: dict, detected):
    """A selectbox's format: each choice by its name, and "auto" with what was detected."""
    return lambda v: f"auto ({names.get(detected, detected)})" if v == "auto" and detected else names[v]


def import_panel(up: Upload) -> None:
    """The Data page's import settings of an upload: dialect, sheet, orientation, missing
    values, text columns and one editable table of column roles."""
    try:
        info, unread = inspect_upload(up), ""
    except ValueError as e:
        info, unread = None, str(e)
        st.error(unread)
    error = st.session_state.get("load_error")
    if error:
        if error != unread:  # the same message once
            st.error(error)
        fixes = load_error_fixes(up, error, info)
        for col, (label, name, value) in zip(st.columns(max(len(fixes), 1)), fixes, strict=False):
            if col.button(label, key=f"loadfix_{name}", type="primary"):
                set_import_option(up, name, value)
                st.rerun()
    with st.expander(f"Import settings: {up.filename}", expanded=True):
        c = st.columns(4)
        if info is None or info.frame is not None and info.fmt in ("csv", "tsv", "txt"):
            with c[0]:
                _option(
                    up,
                    "sep",
                    st.selectbox,
                    "Separator",
                    list(SEPARATORS),
                    _shown_as(SEPARATORS, info.sep if info else None),
                    help="Detected from the first lines; choose another if the table reads as one column.",
                )
            with c[1]:
                _option(
                    up,
                    "decimal",
                    st.selectbox,
                    "Decimal mark",
                    list(DECIMALS),
                    _shown_as(DECIMALS, info.decimal if info else None),
                    help="A comma for numbers such as 1,5 (European spreadsheets export them so).",
                )
        if info is not None and info.sheets:
            with c[0]:
                _option(
                    up,
                    "sheet",
                    st.selectbox,
                    "Sheet",
                    [None, *info.sheets],
                    lambda v: f"first ({info.sheets[0]})" if v is None else v,
                )
        if info is None or info.frame is not None:
            with c[2]:
                _option(
                    up,
                    "transpose",
                    st.selectbox,
                    "Orientation",
                    list(ORIENTATIONS),
                    ORIENTATIONS.get,
                    help="Expression matrices often hold one gene per row: read them transposed.",
                )
            if info is not None and info.suggest_transpose:
                c[2].caption(f"Read transposed: {info.transpose_reason}")
        with c[3]:
            _option(
                up,
                "missing_target",
                st.selectbox,
                "Rows without a target",
                ["drop", "error"],
                {"drop": "leave them out", "error": "refuse the file"}.get,
            )
        c = st.columns(2)
        with c[0]:
            _option(
                up,
                "missing",
                st.radio,
                "Missing feature values",
                ["median", "mean", "error"],
                {"median": "fill: median", "mean": "fill: mean", "error": "refuse the file"}.get,
                horizontal=True,
                help="Filled from each feature's own values; the Data page lists what was filled.",
            )
        with c[1]:
            _option(
                up,
                "categorical",
                st.radio,
                "Text columns",
                ["onehot", "error"],
                {"onehot": "one-hot", "error": "refuse the file"}.get,
                horizontal=True,
                help="One-hot: one 0/1 feature per value, named column=value (a missing value gets "
                "its own column=<missing>). Set a column's role to 'ignored' to leave it out.",
            )
        for note in info.notes if info is not None else ():
            st.caption(note)
        if info is not None and info.frame is not None:
            roles_editor(up, info)


def _fixes(ds) -> dict:
    """The target fixes of the session's data source (an upload's options, or a sample's)."""
    up = current_upload() if st.session_state.get("source") == "Upload" else None
    return up.options if up is not None else sample_fixes(str(st.session_state.get("sample")))


def target_checks(ds) -> None:
    """Checks of the target before any run (one class, classes smaller than the CV folds,
    integer codes that look continuous), each with buttons that apply a fix; the fixes in
    force are listed with an undo."""
    from fsviz.data import check_target

    fixes, options = _fixes(ds), _session("options", ds)
    applied = []
    if int(fixes.get("min_class_size") or 0) > 1:
        applied.append(
            ("min_class_size", f"classes with fewer than {fixes['min_class_size']} samples left out")
        )
    if fixes.get("target_kind", "auto") != "auto":
        applied.append(("target_kind", f"target read as {fixes['target_kind']}"))
    if options.get("cv", "auto") == "loo":
        applied.append(("cv", "leave-one-out cross-validation"))
    for issue in check_target(ds, cv=5):
        st.warning(issue.message, icon="⚠️")
        buttons = []
        if issue.kind == "small_classes":
            buttons = [
                (f"Leave out classes with fewer than {n} samples", "min_class_size", n) for n in (2, 5)
            ]
            if options.get("cv", "auto") != "loo":
                buttons.append(("Use leave-one-out CV", "cv", "loo"))
        elif issue.kind == "looks_continuous":
            buttons = [("Treat the target as continuous (regression)", "target_kind", "continuous")]
        for col, (label, name, value) in zip(st.columns(max(len(buttons), 1)), buttons, strict=False):
            if col.button(label, key=f"fix_{issue.kind}_{name}_{value}", width="stretch"):
                (options if name == "cv" else fixes)[name] = value
                st.rerun()
    for name, text in applied:
        c1, c2 = st.columns([5, 1], vertical_alignment="center")
        c1.caption(f"Fix in force: {text}.")
        if c2.button("Undo", key=f"undo_{name}"):
            (options if name == "cv" else fixes)[name] = "auto" if name in ("cv", "target_kind") else 0
            st.rerun()


def dataset_notes(ds) -> list[str]:
    """What loading did to the file, in words: identifiers kept as row names, columns left
    out, rows dropped, the reader's notes."""
    meta = ds.meta or {}
    notes = [str(n) for n in meta.get("notes", ())]
    ids = meta.get("id_columns") or ()
    if ids:
        notes.append(
            f"Identifier {fc.plural(len(ids), 'column', with_count=False)} {', '.join(map(repr, ids))}: "
            "kept as row names (written back into the reduced export), never a feature."
        )
    ignored = meta.get("ignored") or {}
    if ignored:
        listed = ", ".join(f"{c!r} ({why})" for c, why in list(ignored.items())[:8])
        notes.append(f"Left out: {listed}{' …' if len(ignored) > 8 else ''}.")
    return notes


#: the roles table lists at most this many columns (every non-feature column, then features)
ROLES_ROWS = 1000


def roles_editor(up: Upload, info) -> None:
    """One editable table of column roles (target, feature, identifier, ignored)."""
    frame = fc.column_roles_frame(info.roles, column_roles(up, info), limit=ROLES_ROWS)
    key = f"imp_roles_{up.token}_{hashlib.sha1(frame.to_json().encode()).hexdigest()[:10]}"

    def edited() -> None:
        for row, change in st.session_state[key].get("edited_rows", {}).items():
            if "role" in change:
                set_role(up, info, str(frame["column"].iloc[int(row)]), change["role"])

    st.markdown("**Column roles**")
    st.data_editor(
        frame,
        key=key,
        on_change=edited,
        hide_index=True,
        width="stretch",
        height=min(38 + 35 * len(frame), 320),
        disabled=[c for c in frame.columns if c != "role"],
        column_config={
            "role": st.column_config.SelectboxColumn(
                "role",
                options=list(ROLES),
                required=True,
                help="target: what the selection predicts (one column); feature: goes into X; "
                "identifier: kept as row names and written back into the reduced export, never a "
                "feature; ignored: left out.",
            ),
            "note": st.column_config.TextColumn(width="large"),
        },
    )
    hidden = len(info.roles) - len(frame)
    if hidden > 0:
        names = {str(r.name) for r in info.roles}
        text_key = import_key(up, "ignore_text")

        def ignore_named() -> None:
            for name in (n.strip() for n in st.session_state[text_key].split(",")):
                if name in names:
                    set_role(up, info, name, "ignored")

        st.text_input(
            f"{hidden:,} more feature {fc.plural(hidden, 'column', with_count=False)} not listed: "
            "columns to ignore (names, comma-separated)",
            key=text_key,
            on_change=ignore_named,
        )


@contextmanager
def busy(text: str):
    """A spinner in the main area (app.py keeps a slot above the page) while ``text`` runs."""
    slot = st.session_state.get("_busy_slot")
    if slot is None:
        yield
        return
    with slot.container(), st.spinner(text):
        yield
    slot.empty()


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


def _with_shape(ds, shape: tuple[int, int] | None):
    if shape is None or tuple(shape) == tuple(ds.image_shape or ()):
        return ds
    return ds.with_image_shape(tuple(shape))


def sample_fixes(name: str) -> dict:
    """The Data page's target fixes chosen for sample ``name`` in this session."""
    return st.session_state.setdefault("_sample_fixes", {}).setdefault(name, {})


def load_sample(name: str, shape: tuple[int, int] | None = None):
    ds = _with_shape(apply_target_fixes(_load_sample(name), sample_fixes(name)), shape)
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
    if q.get("upload") and _uploads().get(q["upload"]) is not None:  # a refresh: the file is still here
        st.session_state["upload_token"] = q["upload"]
    st.session_state["_url_runs"] = q.get("runs")


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
    for slot, data in runs.items():
        show(ds, slot, Run.from_dict(data))


def source_of(ds) -> dict:
    """Where the session's dataset came from, for a session file: a sample by name, or an
    upload by file name, content digest and import options."""
    if st.session_state.get("source") == "Upload" and current_upload() is not None:
        up = current_upload()
        return {"kind": "upload", "file": up.filename, "sha256": up.digest, "import_options": up.options}
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

    shown, kept, s = _session("shown", ds), _session("selections", ds), seed()
    prior, options, source = _session("prior", ds), _session("options", ds), source_of(ds)

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
    elif src.get("kind") == "upload":
        st.session_state["source"] = "Upload"
        have = current_upload()
        if have is not None and have.digest == src["sha256"]:
            have.options.update(src.get("import_options") or {})
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


def adopt_pending_options(up: Upload) -> None:
    """An upload that is the file a loaded session was saved on takes its import options."""
    doc = st.session_state.get("pending_session")
    if doc is not None and doc.source.get("sha256") == up.digest:
        up.options.update(doc.source.get("import_options") or {})


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
    groups = groups_by_index(doc.prior_groups, ds.feature_names)
    for slot, run in doc.shown.items():
        show(ds, slot, run)
    for run, k in doc.kept:
        add_selection(ds, run, k)
    _session("prior", ds)["groups"] = groups
    _session("options", ds).update(doc.options)
    return (
        f"Restored {fc.plural(len(doc.shown), 'page result')}, {fc.plural(len(doc.kept), 'kept selection')} "
        f"and {fc.plural(len(groups), 'prior group')}; they show on their pages."
    )


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
            show(ds, slot, run)
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
def show(ds, slot: str, run: Run) -> None:
    """Page ``slot`` now shows ``run``: it replaces the slot's previous run in the compare and
    export lists (a slider sweep leaves one row, the run on screen), and becomes the export's
    default."""
    _session("shown", ds)[slot] = run
    if run.spec.selects:
        _session("recent", ds)["last"] = run


def add_selection(ds, run: Run, k: int | None = None) -> None:
    """Keep a selection (Run, top k) for the compare/export and projection pages, whatever the
    pages show next."""
    _session("selections", ds)[(run, k)] = None


def keep_shown(ds) -> int:
    """Keep every selection the pages show now (their rows stay when a slider moves on)."""
    runs = [(run, None) for run in _on_screen(ds) if (run, None) not in _session("selections", ds)]
    for run, k in runs:
        add_selection(ds, run, k)
    return len(runs)


def forget_kept(ds) -> None:
    _session("selections", ds).clear()


def _on_screen(ds) -> list[Run]:
    """The selections the pages show: each page's run, and the base score of the GRM shown."""
    runs = []
    for run in list(_session("shown", ds).values()):
        if run.method == "grm" and isinstance(run.get("base"), Run):
            runs.append(run.get("base"))
        if run.spec.selects:
            runs.append(run)
    return runs


def selections(ds) -> dict[str, fc.Selection]:
    """The selections of this dataset whose result is still stored, label -> Selection: the
    kept ones first, then those on screen (one per page; a run in both lists once)."""
    out: dict[str, fc.Selection] = {}
    seen = set()
    for run, k in [*_session("selections", ds), *((r, None) for r in _on_screen(ds))]:
        if (run, k) in seen:
            continue
        # a result the shared store let go (other sessions' runs): small data computes it again
        res = stored(ds, run) or result(ds, run, f"Recomputing {run.label}", auto=small(ds), quiet=True)
        if res is None:
            continue
        seen.add((run, k))
        sel = res.selection(k)
        out[sel.label] = sel
    return out


def kept_labels(ds) -> set[str]:
    """Labels of the kept selections (the compare table marks them)."""
    return {lab for lab, sel in selections(ds).items() if (sel.run, sel.k) in _session("selections", ds)}


def last_shown(ds) -> Run | None:
    """The selection run a page showed last: the export's default."""
    return _session("recent", ds).get("last")


def export_default(ds, labels: list[str]) -> int:
    """Position in ``labels`` of the selection a page showed last (the export's default)."""
    last = last_shown(ds)
    sels = selections(ds)
    hits = [i for i, lab in enumerate(labels) if last is not None and sels[lab].run == last]
    return hits[-1] if hits else len(labels) - 1


def cv_scheme(ds) -> str:
    """The CV of this dataset's evaluations: ``"auto"`` (stratified 5-fold, fewer when a class is
    smaller) or ``"loo"`` (leave-one-out, the Data page's fix for classes of one sample)."""
    return _session("options", ds).get("cv", "auto")


def cv_help(ev: fc.Evaluation) -> str:
    """How an evaluation was cross-validated, for a metric's help."""
    if ev.is_regression:
        how = f"Shuffled {ev.n_folds}-fold, ridge regression on standardised features"
    elif ev.run.get("cv") == "loo":
        how = f"Leave-one-out ({ev.n_folds} folds), linear SVM"
    else:
        how = f"Stratified {ev.n_folds}-fold (fewer if a class is smaller), linear SVM"
    return how + (
        "; the selection is refitted on every training fold, so the test fold never picks the features "
        "(no selection bias)."
        if ev.reselected
        else "; features chosen on all samples (optimistic)."
    )


def evaluation(ds, run: Run, k: int, reselect: bool = True, auto: bool = True) -> fc.Evaluation | None:
    """CV accuracy (R²/RMSE for a continuous target) and redundancy of the top ``k`` of ``run``'s
    selection (see fc.Method 'evaluation')."""
    params = {"of": run, "k": int(k), "reselect": bool(reselect)}
    if cv_scheme(ds) != "auto" and ds.target_kind == "classes":
        params["cv"] = cv_scheme(ds)
    ev = Run("evaluation", params, seed())
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
#: session-state keys that belong to the app rather than to one dataset's forms: the sidebar's
#: choices, the per-dataset stores of :func:`_session` and the URL/session bookkeeping. Every
#: other key (each page's widgets) is form state of the active dataset: a dataset switch drops
#: it, so nothing typed for one dataset leaks into another; the forms then start from the
#: result shown for the new dataset (:func:`seed_form`), kept per dataset by :func:`_session`.
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
        "report_runs",
        "report_k",
        "report_dl",
    }
)


#: the keys made per upload (``imp_<option>_<token>``: its import settings and roles table)
APP_KEY_PREFIXES = ("imp_",)


def is_form_key(key) -> bool:
    """Whether a session-state key is a page's form state (see :data:`APP_KEYS`)."""
    key = str(key)
    return not key.startswith("_") and key not in APP_KEYS and not key.startswith(APP_KEY_PREFIXES)


def param_slider(where, method: str | tuple[str, ...], name: str, key: str, **kw):
    """A slider drawn from the declaration ``fc.method(method).params[name]``: its label, help,
    step and range (the papers' practical range where declared, never past a valid value: the
    last notch runs). A value in the form outside that range (a run restored from a session or
    URL) is brought to the nearest end; the caption of the shown result still names it.
    Several methods (a tuple of names): one slider whose every value they all accept
    (:func:`fsviz.compute.shared_param`)."""
    p = fc.shared_param(method, name) if isinstance(method, tuple) else fc.method(method).params[name]
    lo, hi = p.widget_range()
    current = st.session_state.get(key)
    if isinstance(current, (int, float)) and not lo <= current <= hi:
        st.session_state[key] = min(max(current, lo), hi)
    step = p.step or (1 if p.kind == "int" else None)
    return where.slider(p.label, lo, hi, step=step, key=key, help=p.help or None, **kw)


def param_number(where, method: str, name: str, key: str, high=None, **kw):
    """A number input drawn from the declaration: label, help and range (the practical range
    where declared, else the valid bounds, an open bound moved in by the declared step);
    ``high`` caps the widget (an unbounded parameter, or one bounded by the data)."""
    p = fc.method(method).params[name]
    low, top = p.bounds
    if p.practical is not None:
        low, top = p.widget_range()
    else:
        iv, step = p.interval, p.step or (1 if p.kind == "int" else 1e-6)
        if low is not None and iv.closed in ("right", "neither"):
            low = low + step
        if top is not None and iv.closed in ("left", "neither"):
            top = top - step
    if high is not None and (top is None or high < top):
        top = high
    cast = int if p.kind == "int" else float
    low = None if low is None else cast(low)
    top = None if top is None else cast(top)
    return where.number_input(p.label, low, top, key=key, help=p.help or None, **kw)


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
    p = (shown("gdm", ds) or default_gdm(ds)).kwargs  # the Run holds every declared parameter
    form = {k: p[k] for k in ("tau", "n_per_iter", "max_iter", "C", "corr", "one_class")}
    return form | {"cv_folds": p.get("cv_folds") or 0, "positive": p.get("positive") or GDM_ALL_CLASSES}


GDM_ALL_CLASSES = "all classes (multiclass GDM)"  # the GDM form's choice of no `positive`


def default_gdm(ds) -> Run:
    """GDM's defaults for this dataset: all classes at once (multiclass GDM, so masks and trees
    describe every class), one-class (GDM-OC) without a target."""
    return Run("gdm", {"one_class": ds.y is None}, seed())


def grm_form_defaults(ds) -> dict:
    """The GRM form's starting values: those of the result shown, else the defaults."""
    run = shown("grm", ds) or Run("grm", {})  # GRM's declared defaults
    default = fc.grm_default_base(ds.target_kind)
    base = run.get("base") or Run(default, fc.grm_base_params(default))
    neighbours = fc.method("lgd").params["n_neighbors"].default  # the base scores' neighbourhood
    return {
        "method": base.method,
        "n_neighbors": base.get("n_neighbors", neighbours),
        "n_top": min(run.get("n_top"), ds.n_features),
        "gamma": run.get("gamma"),
    }


def saola_form_defaults(ds) -> dict:
    """The SAOLA form's starting values: those of the stream shown, else the defaults."""
    run = shown("stream", ds)
    declared = Run("saola", {}).kwargs  # SAOLA's declared defaults (alpha, delta, data, chunk)
    shown_params = run.kwargs if run is not None else {}
    return {k: shown_params.get(k, declared[k]) for k in ("alpha", "delta", "data", "chunk")}


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
            col.metric(ev.quality_label, fc.quality_text(ev), help=fc.evaluation_note(ev) or cv_help(ev))
        col.metric(
            "mean rank spread within a prior group", f"{spread:.1f}", help="max − min rank; lower = together"
        )


def grm_table(where, ds, res, prior: list, k: int) -> None:
    """GRM's scores and ranks, with the evidence columns, and the near-zero-evidence warning."""
    frame = fc.grm_frame(res, ds.feature_names, prior, k=k)
    if fc.grm_evidence_warning(frame, k):
        where.warning(fc.grm_evidence_warning(frame, k))
    where.dataframe(
        frame,
        hide_index=True,
        width="stretch",
        height=320,
        column_config={
            "base score / top": st.column_config.NumberColumn(
                format="%.3f", help="base score over the best one"
            ),
            "note": st.column_config.TextColumn(
                help=f"features of GRM's top {k} promoted from below base rank {2 * k}, or with near-zero "
                "base evidence",
                width="medium",
            ),
        },
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


# ---------------------------------------------------------------------------- report
def report_download(ds) -> None:
    """Sidebar: "Download report", one self-contained HTML file (:mod:`fsviz.report`) of the runs
    kept in this session, all or those chosen, from any page.

    The runs are read from the session's ``shown`` and ``selections`` (in the order of the
    session file, so ``fsviz report DATA --runs <that file>`` writes the same document apart from
    the date). Like the session file, the document is made at the click, from this session's own
    dicts: a run the page adds in the same rerun is in it; results come from the store (computed
    and stored when missing).
    """
    import html

    from fsviz.report import REPORT_VIEWS, build_report, session_runs

    shown, sels, store = _session("shown", ds), _session("selections", ds), _results()

    def kept() -> list[Run]:
        doc = {  # the order of the session file: ``fsviz report --runs`` draws the same document
            "shown": {slot: run.to_dict() for slot, run in list(shown.items())},
            "selections": [{"run": run.to_dict(), "k": k} for run, k in list(sels)],
        }
        return [r for r in session_runs(doc) if r.spec.selects or r.method in REPORT_VIEWS]

    runs = {r.key: r for r in kept()}
    with st.expander("Report"):
        chosen = []
        if runs:  # listed as of this rerun; the page below may still add one (in when none is chosen)
            chosen = st.multiselect(
                "Runs in the report",
                list(runs),
                format_func=lambda key: f"{runs[key].label}, seed {runs[key].seed}",
                key="report_runs",
                placeholder="all runs",
                help="None chosen: every run kept in this session at the click, the latest included.",
            )
        k = st.number_input("Top-k rows and features evaluated", 2, 200, 20, key="report_k")

        def results(run: Run):
            key = ResultKey(ds.fingerprint, run.key)
            hit = store.get(key)
            if hit is None:
                hit = run.execute(ds, results=results)
                store.put(key, hit)
            return hit

        def make() -> bytes:
            now = kept()  # the session's order, whatever the order of the clicks
            picked = [r for r in now if r.key in set(chosen)] if chosen else now
            try:
                return build_report(ds, picked, k=int(k), results=results).encode("utf-8")
            except Exception as e:  # a download cannot show st.error: the file says what failed
                return (
                    f"<!DOCTYPE html><title>fsviz report failed</title><p>{html.escape(str(e))}</p>".encode()
                )

        name = re.sub(r"[^A-Za-z0-9._-]+", "-", f"{ds.name}_fsviz-report").strip("-_")[:150] + ".html"
        st.download_button(
            "Download report (HTML)",
            make,
            file_name=name,
            mime="text/html",
            on_click="ignore",
            key="report_dl",
            help="One self-contained HTML file of the runs kept in this session (or those chosen): dataset, "
            "provenance, every run's figures (interactive), top-k tables, CV quality, and how to reproduce "
            "it. Works offline; prints to PDF on A4.",
        )
