"""What Streamlit keeps of uploads is released (docs/app.md, "Uploads and the server", rule 4).

The stores are bounded by the budget; these tests check what lies outside them: Streamlit keeps
every widget's metadata (its callback, the callback's arguments, its options) for the life of a
session, and the uploaded files of a closed tab after its session is dropped. The RSS figures
are benchmarks/bench_upload_memory.py's; the browser test bounds a short session.
"""

from __future__ import annotations

import types

import numpy as np
import pytest

pytest.importorskip("streamlit")
from streamlit.runtime.memory_session_storage import MemorySessionStorage
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
from streamlit.runtime.uploaded_file_manager import UploadedFileRec
from streamlit.testing.v1 import AppTest

from fsviz_app.appkit.intake import Upload
from fsviz_app.appkit.memory import release_ended_sessions
from tests.test_app_pages import APP, TIMEOUT


def _csv(seed: int) -> bytes:
    rng = np.random.default_rng(seed)
    rows = [",".join(f"{v:.4f}" for v in rng.normal(size=6)) + f",{'ab'[i % 2]}" for i in range(30)]
    return ("\n".join(["f0,f1,f2,f3,f4,f5,class", *rows]) + "\n").encode()


def _held(value, depth: int = 0) -> list:
    """The uploads, previews and large byte strings a callback's arguments and closure reach."""
    if depth > 3:
        return []
    if isinstance(value, Upload) or hasattr(value, "roles") and hasattr(value, "frame"):
        return [value]
    if isinstance(value, (bytes, bytearray)) and len(value) > 512:
        return [value]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [h for v in value for h in _held(v, depth + 1)]
    if isinstance(value, dict):
        return [h for v in value.values() for h in _held(v, depth + 1)]
    if isinstance(value, types.FunctionType):
        cells = [c.cell_contents for c in value.__closure__ or () if c.cell_contents is not value]
        return [h for v in [*cells, *(value.__defaults__ or ())] for h in _held(v, depth + 1)]
    return []


def test_replaced_uploads_leave_no_widgets_and_callbacks_hold_no_file():
    """Three uploads in one session: Streamlit keeps the metadata of the current upload's
    widgets only, and no callback holds a file, its bytes or its preview (each held a 20 MiB
    upload for the session's life: about 27 MiB per upload measured on a live server)."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.radio(key="source").set_value("Upload").run()
    tokens = []
    for i in range(3):
        at.file_uploader(key="upload").set_value((f"u{i}.csv", _csv(i), "text/csv")).run()
        assert not at.exception, [e.value for e in at.exception]
        tokens.append(at.session_state["upload_token"])
    at.run()  # the run after a replacement lets go of the previous file's widgets
    metadata = at._session_state._state._new_widget_state.widget_metadata
    ours = [wid for wid in metadata if tokens[-1] in wid]
    assert len(ours) >= 5, list(metadata)  # the import settings of the current upload
    assert not [wid for wid in metadata if tokens[0] in wid or tokens[1] in wid], list(metadata)
    held = []
    for m in metadata.values():
        for fn in (m.callback, *(m.callbacks or {}).values()):
            held += _held(fn)
        held += _held(m.callback_args or ()) + _held(m.callback_kwargs or {})
    assert not held, [type(h).__name__ for h in held]


def test_an_ended_session_leaves_no_uploaded_files(monkeypatch):
    """Streamlit drops a closed tab's session after two minutes without shutting it down: its
    uploaded files stayed in the uploaded-file manager, and the session in the storage."""
    from streamlit.runtime import Runtime

    clock = [0.0]
    storage = MemorySessionStorage(ttl_seconds=120)
    storage._cache._timer = lambda: clock[0]
    storage.save(types.SimpleNamespace(session=types.SimpleNamespace(id="closed")))
    files = MemoryUploadedFileManager("/upload")
    for sid in ("live", "closed", "long-gone"):
        files.add_file(sid, UploadedFileRec(f"f-{sid}", "a.csv", "text/csv", b"x" * 1000))

    class Sessions:
        _session_storage, _storage_lock = storage, None

        def get_session_info(self, sid):
            return "active" if sid == "live" else storage.get(sid)

    runtime = types.SimpleNamespace(_session_mgr=Sessions(), uploaded_file_mgr=files)
    monkeypatch.setattr(Runtime, "exists", staticmethod(lambda: True))
    monkeypatch.setattr(Runtime, "instance", staticmethod(lambda: runtime))
    assert release_ended_sessions() == 1  # the session kept for a reconnect keeps its files
    assert sorted(files.file_storage) == ["closed", "live"]
    clock[0] = 121.0  # the reconnect window has passed
    assert release_ended_sessions() == 2  # the session leaves the storage, its files the manager
    assert list(files.file_storage) == ["live"] and not storage._cache._data


def test_a_replaced_upload_leaves_the_shared_stores_unless_another_session_uses_it():
    """One session uploading file after file: each replaced file's bytes, preview, dataset and
    results leave the shared stores at once (they stayed until newer entries pushed them out,
    so one long session kept the budget's worth of files nobody would look at again); a file
    another live session still uses stays."""
    import gc
    import weakref

    from fsviz_app.appkit.intake import inspect_store, loaded_index, upload_store
    from fsviz_app.appkit.state import _datasets, result_store, usage

    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.radio(key="source").set_value("Upload").run()
    refs, tokens, keys = [], [], []
    for i in range(4):
        at.file_uploader(key="upload").set_value((f"r{i}.csv", _csv(10 + i), "text/csv")).run()
        assert not at.exception, [e.value for e in at.exception]
        token, key = at.session_state["upload_token"], at.session_state["dataset_key"]
        tokens.append(token)
        keys.append(key)
        up = upload_store().get(token)
        info = [inspect_store().get(k) for k in inspect_store().keys() if k[0] == up.digest]
        refs.append([weakref.ref(x) for x in [up, _datasets().get(key), *info]])
        assert len(refs[-1]) >= 3
        if i == 1:  # another live session reads this file: it stays
            usage().use("another-session", "upload", token)
            usage().use("another-session", "dataset", key)
    at.run()
    del up, info
    gc.collect()
    assert set(upload_store().keys()) & set(tokens) == {tokens[1], tokens[3]}
    assert {keys[1], keys[3]} <= set(_datasets().keys()) and not {keys[0], keys[2]} & set(_datasets().keys())
    assert not {k.fingerprint for k in result_store().keys()} & {keys[0].fingerprint, keys[2].fingerprint}
    assert not [w for w in loaded_index().keys() if loaded_index().get(w) in (keys[0], keys[2])]
    for i in (0, 2):
        assert all(r() is None for r in refs[i]), (
            i,
            [type(r()).__name__ for r in refs[i] if r() is not None],
        )
    for i in (1, 3):
        assert all(r() is not None for r in refs[i]), i
    usage().uses.pop("another-session", None)


def test_a_long_list_is_estimated_from_its_first_items_and_short_ones_summed():
    """``nbytes_of`` walks at most ``_LONG_LIST`` items of a list or dict (a preview's 20,000 column
    roles were 0.3 s of each target change) and scales them to its length."""
    import dataclasses

    from fsviz_app.appkit import memory

    @dataclasses.dataclass
    class Role:
        name: str
        values: np.ndarray

    roles = [Role(f"cg{j:08d}", np.zeros(4)) for j in range(20_000)]  # 10 + 32 bytes each
    assert memory.nbytes_of(roles) == 20_000 * 42
    short = [np.zeros(j + 1) for j in range(memory._LONG_LIST)]  # unequal: summed exactly
    assert memory.nbytes_of(short) == 8 * sum(range(1, memory._LONG_LIST + 1))
    assert memory.nbytes_of((np.zeros(3), b"abc", "de")) == 24 + 3 + 2
    # a dict likewise (the missing-value report's per-column dicts, 0.1 s at 100,000 columns)
    assert memory.nbytes_of({f"cg{j}": np.zeros(2) for j in range(20_000)}) == 20_000 * 16
    assert memory.nbytes_of({j: np.zeros(j + 1) for j in range(3)}) == 8 * 6


def test_a_deep_copy_of_an_uploaded_file_shares_its_bytes_and_is_a_file_of_its_own():
    """Streamlit deep-copies the uploader's value on every run: the copy shares the bytes (a
    173 MB upload was copied on every rerun) and stays independent (position, writes)."""
    import copy

    from streamlit.runtime.uploaded_file_manager import UploadedFile, UploadedFileRec

    from fsviz_app.appkit import memory

    memory.share_uploaded_bytes()
    memory.share_uploaded_bytes()  # once: a second call changes nothing
    data = bytes(range(256)) * 1000
    original = UploadedFile(UploadedFileRec("id-1", "t.parquet", "application/octet-stream", data), None)
    original.seek(10)
    clone = copy.deepcopy([original])[0]
    assert isinstance(clone, UploadedFile) and clone is not original
    assert clone.getvalue() is data  # shared, not copied
    assert (clone.file_id, clone.name, clone.type, clone.size, clone.tell()) == (
        "id-1",
        "t.parquet",
        original.type,
        len(data),
        10,
    )
    clone.seek(0)
    clone.write(b"zz")  # copy-on-write: the original and the stored bytes stay as they were
    assert original.getvalue() is data and clone.getvalue()[:3] == b"zz\x02" and original.tell() == 10


def test_a_large_upload_is_spilled_to_a_private_file_under_its_own_name_and_removed_with_it():
    import gc
    import os
    import stat

    from fsviz_app.appkit.memory import (
        SpilledBytes,
        nbytes_of,
        spill_upload,
        upload_bytes,
        upload_head,
        upload_path,
    )

    data = b"a,b,label\n" + b"1,2,x\n" * 1000
    kept = spill_upload("../../etc/passwd/../expr.csv", data)
    assert isinstance(kept, SpilledBytes) and len(kept) == len(data)
    folder = os.path.dirname(kept.path)
    assert os.path.basename(kept.path) == "expr.csv" and stat.S_IMODE(os.stat(folder).st_mode) == 0o700

    class Up:  # what the helpers read: the upload's data
        pass

    up = Up()
    up.data = kept
    assert upload_bytes(up) == data and upload_head(up, 9) == b"a,b,label" and upload_path(up) == kept.path
    assert nbytes_of(kept) == len(data)  # the uploads store bounds the disk copies as it did the bytes
    for odd in ("", "..", "dir\\sub\\"):
        assert os.path.basename(spill_upload(odd, b"x").path) == "upload"
    with open(kept.path, "ab") as fh:  # changed behind the app's back: refused, with the fix
        fh.write(b"more")
    with pytest.raises(ValueError, match=r"upload: 'expr.csv' changed on disk .* Fix: upload expr.csv again"):
        upload_bytes(up)
    del up, kept
    gc.collect()
    assert not os.path.exists(folder)  # the folder goes with the last reference
