"""Data coming in: the sample datasets, uploaded files and their import options, loading either."""

from __future__ import annotations

import hashlib
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from appkit.state import LRU, activate
from appkit.widgets import busy
from fsviz.data.loaders import load_defaults


# ---------------------------------------------------------------------------- samples
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


def sample_fixes(name: str) -> dict:
    """The Data page's target fixes chosen for sample ``name`` in this session."""
    return st.session_state.setdefault("_sample_fixes", {}).setdefault(name, {})


def load_sample(name: str, shape: tuple[int, int] | None = None):
    ds = _with_shape(apply_target_fixes(_load_sample(name), sample_fixes(name)), shape)
    activate(ds)
    return ds


def _with_shape(ds, shape: tuple[int, int] | None):
    if shape is None or tuple(shape) == tuple(ds.image_shape or ()):
        return ds
    return ds.with_image_shape(tuple(shape))


# ---------------------------------------------------------------------------- uploads
#: the roles a column of an uploaded table can have (the Data page's roles table)
ROLES = ("target", "feature", "identifier", "ignored")
#: an upload's import options and their defaults: the loader's, except that the app fills
#: missing feature values, one-hot encodes text columns and leaves out rows without a target
#: by default (a file as people have it loads; the Data page says what was done)
IMPORT_DEFAULTS = {
    **{k: v for k, v in load_defaults().items() if k in ("sep", "decimal", "sheet", "label", "target_kind")},
    "transpose": "auto",  # the loader reads a file as it is; the app looks for expression matrices
    "roles": {},
    "missing": "median",
    "categorical": "onehot",
    "missing_target": "drop",
    "min_class_size": 0,
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


class _UploadStore(LRU):
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
def upload_store() -> _UploadStore:
    """The uploaded files of the sessions of this server, by token (see :class:`Upload`)."""
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
    upload_store().put(up.token, up)
    st.session_state["upload_token"] = up.token
    return up


def current_upload() -> Upload | None:
    """The file this session uploaded last (it survives source switches and refreshes)."""
    token = st.session_state.get("upload_token")
    return upload_store().get(token) if token else None


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
    # workbooks and .h5ad files are read in the memory-limited sandbox child, as by the loader
    return inspect_table(
        buf, sep=sep, decimal=decimal, sheet=sheet, transpose=transpose, label=label, sandbox=True
    )


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


def adopt_pending_options(up: Upload) -> None:
    """An upload that is the file a loaded session was saved on takes its import options."""
    doc = st.session_state.get("pending_session")
    if doc is not None and doc.source.get("sha256") == up.digest:
        up.options.update(doc.source.get("import_options") or {})
