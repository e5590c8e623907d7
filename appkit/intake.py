"""Data coming in: the sample datasets, uploaded files and their import options, loading either."""

from __future__ import annotations

import hashlib
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from appkit.memory import ByteLRU
from appkit.state import activate, use
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


@dataclass(frozen=True)
class Upload:
    """A file this server received, with a session's import options.

    The bytes live in a server-side store under an unguessable ``token`` that only the URL of
    the session that uploaded it carries (``?upload=…``), so a browser refresh finds them
    again; the store is bounded by the memory budget. The store's record is read-only and
    shared by every session that has the link; each session reads it with its *own* import
    options (:func:`current_upload`), which its URL also carries (``?imp=…``): sessions that
    share a link share the data, never each other's settings.
    """

    token: str
    filename: str
    digest: str
    data: bytes
    options: dict  # the session's own dict (the store's record: the options it was uploaded with)


#: share of the memory budget the uploaded files may hold (with appkit.state's shares: the budget)
UPLOAD_SHARE, PREVIEW_SHARE = 4, 8


@st.cache_resource(show_spinner=False)
def upload_store() -> ByteLRU:
    """The uploaded files of the sessions of this server, by token (see :class:`Upload`): a
    quarter of the memory budget, least recently used first out."""
    from fsviz.data.budget import resolve_budget

    return ByteLRU(64, max(resolve_budget() // UPLOAD_SHARE, 16 << 20))


@st.cache_resource(show_spinner=False)
def inspect_store() -> ByteLRU:
    """Previews of uploads (:func:`fsviz.data.inspect_table`) by digest and options: 1/8 of the budget."""
    from fsviz.data.budget import resolve_budget

    return ByteLRU(16, max(resolve_budget() // PREVIEW_SHARE, 8 << 20))


@st.cache_resource(show_spinner=False)
def loaded_index() -> ByteLRU:
    """Which dataset (:class:`~appkit.state.DatasetKey`) an upload read with given options gave:
    the dataset itself lives in the dataset store, once."""
    return ByteLRU(256)


def receive_upload(filename: str, data: bytes) -> Upload:
    """Keep an uploaded file (the same bytes again keep their token and import options).

    A new file replaces this session's previous one: its import settings' widgets are dropped,
    and the previous bytes leave the store unless another session still uses them."""
    import secrets

    digest = hashlib.sha256(data).hexdigest()
    up = current_upload()
    if up is None or up.digest != digest or up.filename != filename:
        options = dict(IMPORT_DEFAULTS)
        adopt_pending_options(digest, options)
        record = Upload(secrets.token_urlsafe(16), filename, digest, data, options)
        upload_store().put(record.token, record)
        if up is not None:
            forget_upload(up.token)
        st.session_state["upload_token"] = record.token
        session_options()[record.token] = dict(options)
        return current_upload()
    upload_store().touch(up.token)
    return up


def session_options() -> dict:
    """This session's import options, by upload token."""
    return st.session_state.setdefault("upload_options", {})


def current_upload() -> Upload | None:
    """The file this session uploaded last (it survives source switches and refreshes), with
    this session's import options."""
    token = st.session_state.get("upload_token")
    record = upload_store().get(token) if token else None
    if record is None:
        return None
    mine = session_options()
    if token not in mine:  # a link from another session, or a refresh: start from its options
        mine[token] = json.loads(json.dumps(record.options))  # a deep copy of plain values
    use("upload", token)
    return Upload(record.token, record.filename, record.digest, record.data, mine[token])


def forget_upload(token: str) -> None:
    """This session is done with upload ``token`` (replaced): its widgets and options go."""
    session_options().pop(token, None)
    for key in [k for k in st.session_state if str(k).startswith("imp_") and str(k).endswith(token)]:
        del st.session_state[key]
    for key in [k for k in st.session_state if str(k).startswith(f"imp_roles_{token}")]:
        del st.session_state[key]


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


def inspect_upload(up: Upload):
    """The first rows of an upload as it will be read, its detected dialect and column roles
    (kept in :func:`inspect_store`; workbooks and .h5ad files are read in the memory-limited
    sandbox child, as by the loader)."""
    from fsviz.data import inspect_table

    o = up.options
    key = (
        up.digest,
        up.filename,
        json.dumps([o["sep"], o["decimal"], o["sheet"], o["transpose"], o["label"]]),
    )
    info = inspect_store().get(key)
    if info is None:
        buf = io.BytesIO(up.data)
        buf.name = up.filename
        info = inspect_table(
            buf,
            sep=o["sep"],
            decimal=o["decimal"],
            sheet=o["sheet"],
            transpose=o["transpose"],
            label=o["label"],
            sandbox=True,
        )
        inspect_store().put(key, info)
    return info


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


def _load_upload(up: Upload, kwargs_key: str, kwargs: dict):
    """The dataset of an upload read with ``kwargs``: from the dataset store when it is there,
    else read (once per file and options).

    The loader checks the sizes the file declares against the memory budget before it
    allocates (FSVIZ_MEMORY_BUDGET, else 1/8 of the available RAM): one upload cannot take
    the server, and every session on it, down; .mat, workbooks and .h5ad are parsed in a
    memory-limited child process (``sandbox=True``), so a reader that crashes or over-allocates
    on a hostile file cannot either."""
    from appkit.state import _datasets, dataset_key
    from fsviz.data import load_dataset

    where = (up.digest, up.filename, kwargs_key)
    known = loaded_index().get(where)
    ds = _datasets().get(known) if known is not None else None
    if ds is None:
        buf = io.BytesIO(up.data)
        buf.name = up.filename  # the loader takes the format from the name
        ds = load_dataset(buf, name=Path(up.filename).stem, sandbox=True, **kwargs)
        _datasets().put(dataset_key(ds), ds)
        loaded_index().put(where, dataset_key(ds))
    return ds


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
        ds = _load_upload(up, key, kwargs)
    ds = _with_shape(apply_target_fixes(ds, up.options), shape)
    activate(ds)
    return ds


def adopt_pending_options(digest: str, options: dict) -> None:
    """An upload that is the file a loaded session was saved on takes its import options."""
    doc = st.session_state.get("pending_session")
    if doc is not None and doc.source.get("sha256") == digest:
        options.update(doc.source.get("import_options") or {})
