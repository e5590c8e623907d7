"""The server's memory: stores bounded in bytes, who uses what, and what comes back when nobody does.

A lab server runs one Streamlit process for every session. What the sessions share lives in
three stores: the uploaded files, the loaded datasets and the results. Each is an LRU bounded by
its share of the memory budget (``FSVIZ_MEMORY_BUDGET``, see :mod:`fsviz.data.budget`), counted
in bytes (:data:`SHARES`: a quarter for uploads, three eighths for datasets, a quarter for results,
an eighth for previews), so the total stays within the budget however many files are uploaded, by
however many sessions. Each keeps at least its most recent entry (one dataset may take the whole budget).

What a session uses (its upload, its datasets) is registered under its session id. A session
that has been disconnected longer than :data:`GRACE_SECONDS` (Streamlit keeps a disconnected
session two minutes for a reconnect) no longer holds anything: a sweeper thread releases what no
live session uses, collects the garbage and hands freed pages back to the operating system
(glibc's ``malloc_trim``; the allocator is told once to serve large blocks by ``mmap``, which it
returns when they are freed). The threat model is in docs/app.md ("Uploads and the server").
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import os
import sys
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

__all__ = [
    "GRACE_SECONDS",
    "SHARES",
    "ByteLRU",
    "UsageRegistry",
    "nbytes_of",
    "release_ended_sessions",
    "release_session_leftovers",
    "return_memory",
    "share",
]

#: the memory budget's shares of the four shared stores: together, the whole budget
SHARES = {"uploads": 0.25, "datasets": 0.375, "results": 0.25, "previews": 0.125}
#: seconds a disconnected session keeps what it used (Streamlit resumes one within 120 s)
GRACE_SECONDS = 130.0
#: seconds between two sweeps of the sweeper thread
SWEEP_SECONDS = 10.0
#: columns above which a frame's bytes are estimated (16 per cell, 64 per name), not summed per column
_WIDE_FRAME = 2_000
#: items of a list, tuple or dict above which its bytes are the first ones' scaled to its length
#: (a walk of 20,000 column roles was 0.3 s of each target change at 20,000 columns; the missing-
#: value report's per-column dicts, 0.1 s at 100,000)
_LONG_LIST = 256


def nbytes_of(obj, _depth: int = 0, _seen: set | None = None) -> int:
    """Bytes held by the arrays, sparse matrices, frames and byte strings inside ``obj``
    (through dataclass fields, dicts, lists and tuples; a few levels deep, each object once)."""
    seen = set() if _seen is None else _seen
    if id(obj) in seen or _depth > 5:
        return 0
    seen.add(id(obj))
    if isinstance(obj, np.memmap):  # a file mapped read-only (the data folder): page cache, not the heap
        return 0
    if isinstance(obj, np.ndarray):
        return int(obj.nbytes) if obj.base is None or id(obj.base) not in seen else 0
    if sp.issparse(obj):
        return sum(int(getattr(obj, a).nbytes) for a in ("data", "indices", "indptr") if hasattr(obj, a))
    if isinstance(obj, (bytes, bytearray, memoryview)):
        return len(obj)
    if isinstance(obj, str):
        return len(obj)
    if hasattr(obj, "memory_usage") and hasattr(obj, "columns"):  # a pandas DataFrame
        try:
            if obj.shape[1] > _WIDE_FRAME:  # memory_usage walks the columns: 25 s at 200,000
                return 16 * obj.shape[0] * obj.shape[1] + 64 * obj.shape[1]
            return int(obj.memory_usage(index=True, deep=False).sum())
        except Exception:  # noqa: BLE001 - an exotic frame: count nothing rather than fail
            return 0
    if isinstance(obj, SpilledBytes):  # the server's disk copy: bounded like the bytes it replaces
        return int(obj.size)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return sum(nbytes_of(getattr(obj, f.name), _depth + 1, seen) for f in dataclasses.fields(obj))
    if isinstance(obj, (dict, list, tuple)):
        items = list(obj.values()) if isinstance(obj, dict) else obj
        if len(items) > _LONG_LIST:  # e.g. a preview's 100,000 column roles: the first ones, scaled
            part = sum(nbytes_of(v, _depth + 1, seen) for v in items[:_LONG_LIST])
            return part * len(items) // _LONG_LIST
        return sum(nbytes_of(v, _depth + 1, seen) for v in items)
    if hasattr(obj, "X") and hasattr(obj, "fingerprint"):  # a Dataset
        return nbytes_of(obj.X, _depth + 1, seen) + 128 * int(obj.X.shape[1])
    return 0


def share(store: str, floor: int = 0) -> int:
    """Bytes store ``store`` may hold: its share of the memory budget (0: no limit), at least ``floor``."""
    from fsviz.data.budget import resolve_budget

    budget = resolve_budget()
    return 0 if not budget else max(int(budget * SHARES[store]), floor)


class ByteLRU:
    """A thread-safe LRU dict shared by every session, bounded by bytes and by entries.

    ``size`` entries at most, and at most ``budget`` bytes (:func:`nbytes_of`; 0: no byte
    bound); the least recently used go first, but the most recent entry always stays.
    """

    def __init__(self, size: int, budget: int = 0):
        self.size, self.budget = size, int(budget)
        self.data: OrderedDict = OrderedDict()
        self.bytes: dict = {}
        self.lock = threading.Lock()

    def get(self, key):
        with self.lock:
            if key in self.data:
                self.data.move_to_end(key)
                return self.data[key]
        return None

    def touch(self, key) -> None:
        with self.lock:
            if key in self.data:
                self.data.move_to_end(key)

    def put(self, key, value) -> None:
        size = nbytes_of(value)
        with self.lock:
            self.data[key] = value
            self.bytes[key] = size
            self.data.move_to_end(key)
            while len(self.data) > 1 and (
                len(self.data) > self.size or (self.budget and sum(self.bytes.values()) > self.budget)
            ):
                old, _ = self.data.popitem(last=False)
                self.bytes.pop(old, None)

    def pop(self, key) -> None:
        with self.lock:
            self.data.pop(key, None)
            self.bytes.pop(key, None)

    def keys(self) -> list:
        with self.lock:
            return list(self.data)

    def total_bytes(self) -> int:
        with self.lock:
            return sum(self.bytes.values())

    def __len__(self) -> int:
        return len(self.data)


class UsageRegistry:
    """What each live session uses: ``{session id: {kind: {keys}}}``, with the time it was last
    seen active. :meth:`sweep` forgets sessions gone longer than the grace period and returns
    the keys of each kind that no session uses any more."""

    def __init__(self, grace: float = GRACE_SECONDS):
        self.grace = grace
        self.lock = threading.Lock()
        self.uses: dict[str, dict[str, set]] = {}
        self.seen: dict[str, float] = {}

    def use(self, session_id: str, kind: str, key) -> None:
        with self.lock:
            self.uses.setdefault(session_id, {}).setdefault(kind, set()).add(key)
            self.seen[session_id] = time.monotonic()

    def drop(self, session_id: str, kind: str, key) -> None:
        with self.lock:
            self.uses.get(session_id, {}).get(kind, set()).discard(key)

    def used(self, kind: str) -> set:
        with self.lock:
            return set().union(*(u.get(kind, set()) for u in self.uses.values()))

    def sweep(self, is_active) -> int:
        """Forget the sessions that ``is_active(session_id)`` says are gone, once gone longer than
        the grace period; returns how many were forgotten."""
        now = time.monotonic()
        gone = 0
        with self.lock:
            for sid in list(self.uses):
                if is_active(sid):
                    self.seen[sid] = now
                elif now - self.seen.get(sid, now) > self.grace:
                    self.uses.pop(sid, None)
                    self.seen.pop(sid, None)
                    gone += 1
        return gone


_ALLOCATOR_TUNED = False


def tune_allocator() -> None:
    """Ask glibc to serve blocks of 1 MiB and more by ``mmap`` (returned to the system when
    freed, instead of staying in a fragmented heap). Once per process; nothing elsewhere."""
    global _ALLOCATOR_TUNED
    if _ALLOCATOR_TUNED:
        return
    _ALLOCATOR_TUNED = True
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-3, 1 << 20)  # M_MMAP_THRESHOLD: fixed, no dynamic raise
        libc.mallopt(-1, 1 << 20)  # M_TRIM_THRESHOLD
    except (OSError, AttributeError):  # not glibc: the default allocator stays
        pass


def return_memory() -> None:
    """Collect garbage and hand freed heap pages back to the operating system (glibc only;
    Arrow's own allocator, which Streamlit uses for tables, gives back what it keeps too)."""
    gc.collect()
    arrow = sys.modules.get("pyarrow")
    if arrow is not None:
        try:
            arrow.default_memory_pool().release_unused()
        except (AttributeError, NotImplementedError):  # an older pyarrow: nothing to ask
            pass
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def share_uploaded_bytes() -> None:
    """Make a deep copy of Streamlit's ``UploadedFile`` share the file's bytes (copy-on-write, as
    ``io.BytesIO`` does) instead of copying them. Once per process.

    Streamlit deep-copies every widget's value on every run, so that user code cannot change it:
    for the data uploader that was a fresh copy of each uploaded file's bytes on every rerun of
    every page (173 MB and 0.06 s at 100,000 columns), and the copy the app kept was a second one
    beside Streamlit's own. The clone is still a file of its own (position, writes), over the same
    immutable bytes. Streamlit's internals, reached defensively: a version without the class
    keeps its copies.
    """
    import copy
    import io

    try:
        from streamlit.runtime.uploaded_file_manager import UploadedFile
    except ImportError:  # another Streamlit: its copies stay
        return
    if getattr(UploadedFile, "_fsviz_shared", False):
        return

    def shared_copy(self, memo):
        clone = UploadedFile.__new__(UploadedFile)
        io.BytesIO.__init__(clone, self.getvalue())  # the bytes object itself, not a copy
        clone.__dict__.update(copy.deepcopy(self.__dict__, memo))
        clone.seek(self.tell())
        return clone

    UploadedFile.__deepcopy__ = shared_copy
    UploadedFile._fsviz_shared = True


def release_replaced_uploads() -> None:
    """Drop Streamlit's own copies of the files this session uploaded and replaced since.

    Streamlit keeps the bytes of every file a session uploads until the browser tab closes
    (its uploaded-file manager; a new file in the same uploader does not remove the old one):
    60 uploads of 20 MiB in one tab held 1.2 GiB outside the stores above. The app reads an
    upload into its own bounded store on arrival, so a file no uploader shows any more (one
    seen on an earlier run) is removed; a file just uploaded and not yet a widget's value is
    never touched.
    """
    import streamlit as st
    from streamlit.runtime.scriptrunner import get_script_run_ctx
    from streamlit.runtime.uploaded_file_manager import UploadedFile

    ctx = get_script_run_ctx()
    manager = getattr(ctx, "uploaded_file_mgr", None)
    if ctx is None or manager is None:
        return
    current = set()
    for key in list(st.session_state.keys()):
        try:
            value = st.session_state[key]
        except (KeyError, AttributeError):  # a widget's state that is gone
            continue
        for v in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(v, UploadedFile):
                current.add(v.file_id)
    seen = st.session_state.get("_uploads_seen", frozenset())
    for file_id in seen - current:
        manager.remove_file(ctx.session_id, file_id)
    st.session_state["_uploads_seen"] = frozenset(current)


def release_stale_widgets() -> int:
    """Forget what Streamlit keeps of this session's widgets that are gone; returns how many.

    Streamlit drops a widget's value once a run no longer draws it, but keeps its metadata (the
    callback with its arguments, the options and format function) for as long as the session
    lives: every upload's import widgets (keyed by its token) stayed, and with them whatever
    their callbacks referred to. Called at the top of a run, after Streamlit has moved the last
    run's widget values aside and before any widget of this run registers: a widget that has
    neither a value from the last run nor one the browser sent now is drawn by no run any more
    (one drawn again registers afresh). Streamlit's internals, reached defensively: a version
    that moves them loses the release, never the session.
    """
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    safe = getattr(ctx, "session_state", None)
    state = getattr(safe, "_state", None)
    widgets = getattr(state, "_new_widget_state", None)
    metadata = getattr(widgets, "widget_metadata", None)
    values = getattr(widgets, "states", None)
    old = getattr(state, "_old_state", None)
    new = getattr(state, "_new_session_state", None)
    id_of = getattr(getattr(state, "_key_id_mapper", None), "get_id_from_key", None)
    if not all(isinstance(d, dict) for d in (metadata, values, old, new)) or id_of is None:
        return 0
    with getattr(safe, "_lock", threading.RLock()):
        alive = set(values) | set(old) | {id_of(k) for k in [*old, *new]}
        gone = [wid for wid in metadata if wid not in alive]
        for wid in gone:
            del metadata[wid]
    return len(gone)


def release_session_leftovers() -> None:
    """At the top of every run: the replaced uploads' bytes Streamlit keeps
    (:func:`release_replaced_uploads`) and the widgets of files this session has let go
    (:func:`release_stale_widgets`)."""
    release_replaced_uploads()
    release_stale_widgets()


def release_ended_sessions() -> int:
    """Drop what Streamlit itself keeps of sessions that have ended; returns how many.

    A closed tab's session is kept two minutes for a reconnect, then dropped from Streamlit's
    session storage without being shut down: the files it uploaded stayed in Streamlit's
    uploaded-file manager (one 20 MiB upload per closed tab, for the life of the server), and
    the session itself, with its widget values, stayed in the storage until another tab
    closed. The sweeper calls this: the storage lets go of expired sessions, and the manager of
    the files of sessions that are neither connected nor waiting for a reconnect. Streamlit's
    internals, reached defensively (a version that moves them loses the release, not a session).
    """
    try:
        from streamlit.runtime import Runtime
    except ImportError:
        return 0
    if not Runtime.exists():
        return 0
    runtime = Runtime.instance()
    sessions = getattr(runtime, "_session_mgr", None)
    cache = getattr(getattr(sessions, "_session_storage", None), "_cache", None)
    released = 0
    if cache is not None and callable(getattr(cache, "expire", None)):
        with getattr(sessions, "_storage_lock", None) or contextlib.nullcontext():
            released += len(cache.expire())
    files = getattr(runtime.uploaded_file_mgr, "file_storage", None)
    if sessions is None or not isinstance(files, dict):
        return released
    for sid in list(files):
        if sessions.get_session_info(sid) is None:  # neither connected nor kept for a reconnect
            runtime.uploaded_file_mgr.remove_session_files(sid)
            released += 1
    return released


@dataclass(frozen=True)
class DiskBytes:
    """A server-folder file's bytes, read from disk when needed instead of held: the store keeps
    a folder file for as long as any session uses it (a 100,000-column table: 173 MB of RSS
    beside its parse). Its version (modification time and size) is checked on every read."""

    path: str
    mtime_ns: int
    size: int

    #: who the messages name, and what they tell a person to do (``{name}``: the file's name)
    who = "data folder"
    gone = "is no longer in the folder"
    fix = "Fix: choose {name} again under Server file."

    def __len__(self) -> int:
        return self.size

    def head(self, n: int) -> bytes:
        """The file's first ``n`` bytes (its version checked as by :meth:`read`)."""
        from fsviz.data.filetypes import open_regular

        self.check()
        with open_regular(self.path, self.who, 0) as fh:  # a pipe put in its place: refused
            return fh.read(n)

    def check(self) -> None:
        """ValueError when the file is gone or changed (modification time, size) since it was opened."""
        name = os.path.basename(self.path)
        fix = self.fix.format(name=name)
        try:
            st_ = os.stat(self.path)
        except OSError:
            raise ValueError(f"{self.who}: {name!r} {self.gone}. {fix}") from None
        if (st_.st_mtime_ns, st_.st_size) != (self.mtime_ns, self.size):
            raise ValueError(f"{self.who}: {name!r} changed on disk since it was opened. {fix}")

    def read(self) -> bytes:
        """The file's bytes; ValueError when it changed since it was opened."""
        from fsviz.data.budget import resolve_budget
        from fsviz.data.filetypes import read_regular

        self.check()
        name = os.path.basename(self.path)
        data = read_regular(self.path, self.who, resolve_budget())
        if len(data) != self.size:
            fix = self.fix.format(name=name)
            raise ValueError(f"{self.who}: {name!r} changed on disk while it was read. {fix}")
        return data


#: uploads from this size on are kept in a private file on the server's disk, not in memory
SPILL_BYTES = 8 << 20


@dataclass(frozen=True)
class SpilledBytes(DiskBytes):
    """An uploaded file's bytes written to a private folder of the server's temporary directory
    (under the file's own name: readers take the format from it), read from there when needed,
    removed with the last reference to it. Streamlit's uploader holds a file for as long as it
    shows it; once the file is here, Streamlit's copy is emptied (:func:`spill_in_background`):
    a 173 MB upload was resident twice, then once, now only while it is first read."""

    who = "upload"
    gone = "is no longer on the server"
    fix = "Fix: upload {name} again."

    def __post_init__(self) -> None:
        import shutil
        import weakref

        weakref.finalize(self, shutil.rmtree, os.path.dirname(self.path), True)


def spill_upload(filename: str, data: bytes) -> SpilledBytes:
    """``data`` in a new private folder (mode 0700) of the temporary directory, as ``filename``
    (its last part, never a path); see :class:`SpilledBytes`."""
    import tempfile

    name = os.path.basename(str(filename).replace("\\", "/").replace("\0", "")) or "upload"
    if name in (".", ".."):
        name = "upload"
    folder = tempfile.mkdtemp(prefix="fsviz-upload-")
    path = os.path.join(folder, name)
    try:
        with open(path, "xb") as fh:
            fh.write(data)
        st_ = os.stat(path)
    except BaseException:
        import shutil

        shutil.rmtree(folder, ignore_errors=True)
        raise
    return SpilledBytes(path, st_.st_mtime_ns, st_.st_size)


def spill_in_background(store: ByteLRU, token: str, file_ids) -> threading.Thread | None:
    """Write the bytes of upload ``token`` (held in ``store``) to a :func:`spill_upload` file in a
    thread, while the file is parsed from the bytes; then the store's record reads from disk and
    Streamlit's copies of the uploaded files ``file_ids`` of this session are emptied (their
    records kept, their bytes gone). None (nothing done) outside a script run or when
    Streamlit's internals are not as expected: the bytes then stay held, as before."""
    import dataclasses

    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    manager = getattr(ctx, "uploaded_file_mgr", None)
    storage = getattr(manager, "file_storage", None)
    record = store.get(token)
    if record is None or not isinstance(storage, dict) or not hasattr(manager, "add_file"):
        return None
    session, data = ctx.session_id, record.data

    def spill() -> None:
        try:
            kept = spill_upload(record.filename, data)
        except OSError:  # no room on disk: the bytes stay in memory
            return
        now = store.get(token)
        if now is None or now.data is not data:
            return
        store.put(token, dataclasses.replace(now, data=kept))
        for file_id in file_ids:  # the app reads the file from disk now: Streamlit's copy goes
            held = storage.get(session, {}).get(file_id)
            if held is not None and hasattr(held, "_replace"):
                manager.add_file(session, held._replace(data=b""))

    thread = threading.Thread(target=spill, name="fsviz-spill", daemon=True)
    thread.start()
    return thread


def upload_bytes(up) -> bytes:
    """The bytes of ``up`` (a server-folder file's read from disk, checked to be the version opened)."""
    return up.data.read() if isinstance(up.data, DiskBytes) else up.data


def upload_path(up) -> str | None:
    """The path of a server-folder file read from disk (checked to be the version opened), else None."""
    if not isinstance(up.data, DiskBytes):
        return None
    up.data.check()
    return up.data.path


def upload_head(up, n: int) -> bytes:
    """The first ``n`` bytes of ``up`` (a server-folder file's read from disk: only those)."""
    return up.data.head(n) if isinstance(up.data, DiskBytes) else up.data[:n]
