"""Data coming in: the sample datasets, uploaded files and their import options, loading either."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from fsviz.data.formats.archives import strip_compression_suffix
from fsviz.data.formats.source import TABLE_FORMATS
from fsviz.data.plan import ImportPlan
from fsviz_app.appkit import jobs
from fsviz_app.appkit.memory import ByteLRU, DiskBytes, return_memory, upload_bytes, upload_head
from fsviz_app.appkit.state import (
    _datasets,
    activate,
    dataset_key,
    inspect_store,
    parsed_for_look,
    parsed_store,
    parsed_upload,
    result_store,
    session_id,
    upload_source,
    upload_store,
    usage,
    use,
)


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
    """The label field: empty -> "auto" (the loader's default), "3" -> a column position ("-1" too,
    which the import plan then refuses with its message: positions count from 0)."""
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
ROLES = ("target", "feature", "identifier", "ignored", "covariate")
#: the app's import plan before a file is seen: the loader's, except that the app looks for
#: expression matrices, fills missing feature values, one-hot encodes text columns and leaves out
#: rows without a target (a file as people have it loads; the Data page says what was done)
APP_PLAN = ImportPlan(transpose="auto", missing="median", categorical="onehot", missing_target="drop")
#: an upload's import options: every field of the plan, plus the app's own: the roles table's
#: edits (``roles``) and the tokens of the sample- and feature-annotation uploads
IMPORT_DEFAULTS = {
    **APP_PLAN.to_dict(every=True),
    "roles": {},
    "annotations_token": None,
    "feature_annotations_token": None,
}
#: the app's own options, not the plan's
_APP_ONLY = ("roles", "annotations_token", "feature_annotations_token")
#: options that change the table's columns: the roles table starts afresh after them
RESHAPING = (
    "compression",
    "member",
    "fmt",
    "encoding",
    "sep",
    "decimal",
    "header",
    "skip_rows",
    "comment",
    "sheet",
    "transpose",
)


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
    data: bytes | DiskBytes  # a server-folder file is read from disk when needed (upload_bytes)
    options: dict  # the session's own dict (the store's record: the options it was uploaded with)


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
        options = json.loads(json.dumps(IMPORT_DEFAULTS))
        record = Upload(secrets.token_urlsafe(16), filename, digest, data, options)
        if not adopt_pending_options(digest, options):
            propose_plan(record)
        use("upload", record.token)  # before the store holds it: a sweep in between keeps it
        upload_store().put(record.token, record)
        if up is not None:
            forget_upload(up.token)
            release_replaced(up)
        st.session_state["upload_token"] = record.token
        session_options()[record.token] = json.loads(json.dumps(options))
        return current_upload()
    upload_store().touch(up.token)
    return up


def release_replaced(up: Upload) -> int:
    """Let go of everything of upload ``up``, which this session has just replaced, that no
    other live session uses: its bytes, its previews, the datasets read from it and their
    results; then hand the freed memory back. Returns how many store entries went.

    Without this a long session's replaced uploads stayed in the shared stores until newer
    entries pushed them out: one session uploading file after file kept the stores full of
    files nobody would look at again (the budget's worth, plus what the allocator kept around
    them). Another session that uses the same upload (a shared link), the same bytes or a
    dataset read from them keeps them; the sweeper (:func:`appkit.state.release_unused`) is
    still what releases a closed session's.
    """
    registry, sid = usage(), session_id()
    ours = {k for k in loaded_index().keys() if k[0] == up.digest}
    mine = st.session_state.get("dataset_key")
    if sid is not None and mine in {loaded_index().get(k) for k in ours}:
        registry.drop(sid, "dataset", mine)  # this session reads the new file next (or fails: none)
    used_tokens = registry.used("upload") | registry.used("annotations")
    store = upload_store()
    digests = {store.get(t).digest for t in used_tokens if store.get(t) is not None}
    released = 0
    if up.token not in used_tokens:
        store.pop(up.token)
        released += 1
    if up.digest in digests:  # the same bytes under another token: a live session reads them
        return_memory()
        return released
    for store in (inspect_store(), parsed_store()):  # its previews and its parsed parts
        for key in [k for k in store.keys() if k[0] == up.digest]:
            store.pop(key)
            released += 1
    used_datasets = registry.used("dataset")
    fingerprints = {k.fingerprint for k in used_datasets}
    for where in ours:
        key = loaded_index().get(where)
        if key is not None and key in used_datasets:
            continue
        loaded_index().pop(where)
        if key is None:
            continue
        _datasets().pop(key)
        released += 1
        if key.fingerprint not in fingerprints:
            for rkey in [r for r in result_store().keys() if r.fingerprint == key.fingerprint]:
                result_store().pop(rkey)
                released += 1
    return_memory()
    return released


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


def session_upload(token: str) -> Upload | None:
    """This session's upload ``token`` (a data file or a server-folder file) with this session's
    import options, or None when the session or the store no longer has it.

    Widget callbacks take the token and look the upload up when they run: Streamlit keeps
    every callback and its arguments as long as the session lives, so a callback that held the
    :class:`Upload` (or its preview) would keep the file's bytes after the store let them go.
    """
    mine = session_options()
    record = upload_store().get(token) if token in mine else None
    if record is None:
        return None
    return Upload(record.token, record.filename, record.digest, record.data, mine[token])


def forget_upload(token: str) -> None:
    """This session is done with upload ``token`` (replaced): its widgets and options go."""
    session_options().pop(token, None)
    for key in [k for k in st.session_state if str(k).startswith("imp_") and str(k).endswith(token)]:
        del st.session_state[key]
    for key in [k for k in st.session_state if str(k).startswith(f"imp_roles_{token}")]:
        del st.session_state[key]


def set_import_option(up: Upload, name: str, value) -> None:
    """Change one import option; a new dialect, header, sheet or orientation starts the roles
    afresh (the columns are not the same any more)."""
    if up.options.get(name) == value:
        return
    up.options[name] = value
    if name in RESHAPING:
        up.options["roles"] = {}
        up.options["types"] = None
        if up.options.get("label") not in annotation_columns(up):
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
        if set_aside_roles(up, info).get(column) == "target":
            up.options["label"] = None
        roles[column] = role
    up.options["roles"] = roles


def set_target(up: Upload, column: str | None) -> None:
    """The target picker: ``column`` becomes the target (None: no target)."""
    up.options["roles"] = {c: r for c, r in up.options["roles"].items() if c != column}
    up.options["label"] = column


def plan_of(up: Upload) -> ImportPlan:
    """The upload's options as an :class:`~fsviz.data.plan.ImportPlan` (roles not applied yet)."""
    fields = {k: v for k, v in up.options.items() if k in IMPORT_DEFAULTS and k not in _APP_ONLY}
    return ImportPlan.from_dict(fields, "import settings")


def inspect_upload(up: Upload):
    """The first rows of an upload as it will be read, its detected dialect and column roles
    (kept in :func:`inspect_store`; workbooks and .h5ad files are read in the memory-limited
    sandbox child, as by the loader). A target among the sample annotations is not the table's.
    A preview not in the store is made as a job (:func:`_inspect_as_job`)."""
    plan = _inspected_plan(up)
    key = (up.digest, up.filename, plan.to_json())
    info = inspect_store().get(key)
    if info is None and plan.label is None:  # a target among the sample annotations, after "auto"
        auto = inspect_store().get((up.digest, up.filename, plan.replace(label="auto").to_json()))
        if auto is not None and auto.target is None:  # "auto" found none in the table: the same preview
            info = dataclasses.replace(auto, plan=plan)
            inspect_store().put(key, info)
    if info is None:
        info = _inspect_as_job(up, plan)
        inspect_store().put(key, info)
    return info


class LookCancelled(ValueError):
    """The preview of a file was cancelled (the message says how to start it again)."""


def _inspect_as_job(up: Upload, plan: ImportPlan, propose: bool = False):
    """:func:`fsviz.data.inspect_table` of ``up`` (with its proposal: ``propose``) as a job above
    the page (time taken, Cancel): at 100,000 columns a Parquet file's first rows take about as
    long to preview as the whole file to read. Cancel is the :class:`LookCancelled` the sidebar
    and the Data page show (a server-folder file is unpicked, so nothing starts again by itself).
    Outside a script run (a test calling it) the preview is made here."""
    from fsviz.data import inspect_table

    def look(_):
        parsed = parsed_for_look(up, plan)  # a folder Parquet file: only its head is read again
        src = upload_source(up, in_place=parsed is not None)
        return inspect_table(src, plan=plan, sandbox=True, propose=propose, parsed=parsed)

    if session_id() is None:
        return look(None)

    token = up.token  # the Cancel button's callback outlives the run: it must not hold the file

    def unpick() -> None:
        if st.session_state.get("folder_token") == token:
            st.session_state["folder_file"] = None
            st.session_state["folder_path"] = ""

    key = ("inspect", up.digest, up.filename, plan.to_json(), propose)
    job = jobs.submit(key, f"Looking at {up.filename}: its columns and their roles", look)
    slot = st.session_state.get("_busy_slot")  # above the page, where loads show
    with slot.container() if slot is not None else st.container():
        job = jobs.wait(job, on_cancel=unpick)
    error = job.error
    jobs.collect(job)
    jobs.forget_cancel(key)  # the next look at the file starts afresh
    return_memory()  # a wide preview's temporaries: hundreds of MB the allocator would keep
    if job.state == "failed":
        raise error
    if job.state != "done":
        raise LookCancelled(
            f"Looking at {up.filename} was cancelled. Fix: choose the file again when you want it read."
        )
    return job.result


def archive_members_of(up: Upload) -> list[str]:
    """The data members of an uploaded zip or tar archive (``[]`` for any other file), listed in
    the sandbox child and kept with the upload's previews; an archive refused there (a bomb, an
    unsafe name) lists nothing here: its preview says why."""
    from fsviz.data.budget import resolve_budget
    from fsviz.data.formats.archives import archive_members_isolated, compression_of

    key = ("members", up.digest)
    got = inspect_store().get(key)
    if got is not None:
        return list(got)
    head = upload_head(up, 8192)  # a folder file's head only: the whole file when it may be a zip
    got = []
    if compression_of(upload_bytes(up) if head.startswith(b"PK") else head) is not None:
        data = upload_bytes(up)
        try:
            got = archive_members_isolated(data, up.filename, limit=resolve_budget(), who=up.filename)
        except ValueError:
            got = []
    inspect_store().put(key, got)
    return list(got)


def _inspected_plan(up: Upload) -> ImportPlan:
    """The plan :func:`inspect_upload` reads ``up`` with (a target among the sample annotations
    is not the table's). The annotation files and their keys are left out: they do not change
    the table's preview, and a joined sample sheet then does not read the file's head again
    (at 100,000 columns that head costs about as much as the whole read)."""
    plan = plan_of(up).replace(
        sample_annotations=None,
        annotation_key=None,
        feature_annotations=None,
        feature_key=None,
        feature_display=None,
    )
    return plan.replace(label=None) if plan.label in annotation_columns(up) else plan


def propose_plan(up: Upload) -> None:
    """A new upload's options take what its preview shows (no header, comment lines, repeated
    names, counts): :func:`fsviz.data.inspect_table`'s proposal, once, before any edit.

    The proposal's preview is the one :func:`inspect_upload` would read next with the proposed
    plan (the proposed transform does not change a preview): it is kept for it, and a wide file
    is read once, not twice (200,000 columns: about a second each time)."""
    try:
        info = _inspect_as_job(up, plan_of(up), propose=True)
    except LookCancelled:
        raise  # the sidebar says so; nothing of the file is kept
    except ValueError:
        return  # the preview says what is wrong on the Data page
    up.options.update({k: v for k, v in info.plan.to_dict(every=True).items() if k in IMPORT_DEFAULTS})
    plan = _inspected_plan(up)
    if plan == info.plan:
        inspect_store().put((up.digest, up.filename, plan.to_json()), info)


def _attached(up: Upload, option: str) -> Upload | None:
    """The upload attached to ``up`` under ``option`` (an annotation table's token), or None."""
    token = up.options.get(option)
    record = upload_store().get(token) if token else None
    if record is None:
        return None
    use("annotations", token)
    return record


def _attached_frame(record: Upload | None, what: str, read):
    """An attached table read once by ``read`` (kept in the preview store), None without one."""
    from fsviz.data.budget import resolve_budget

    if record is None:
        return None
    key = (record.digest, record.filename, what)
    frame = inspect_store().get(key)
    if frame is None:
        buf = io.BytesIO(record.data)
        buf.name = record.filename
        frame = read(buf, who=f"the {what}", budget=resolve_budget())
        inspect_store().put(key, frame)
    return frame


def annotation_upload(up: Upload) -> Upload | None:
    """The sample-annotation file attached to ``up`` (another upload in the store), or None."""
    return _attached(up, "annotations_token")


def annotation_frame(up: Upload):
    """The attached sample annotations as a DataFrame (None without them); ValueError if unreadable."""
    from fsviz.data.annotations import read_annotations

    return _attached_frame(annotation_upload(up), "sample annotations", read_annotations)


def annotation_columns(up: Upload) -> list[str]:
    """The columns of the attached sample annotations (empty without them or when unreadable)."""
    try:
        frame = annotation_frame(up)
    except ValueError:
        return []
    return [] if frame is None else [str(c) for c in frame.columns]


#: :func:`annotation_targets` per sheet (digest, name) and key column: the target picker asks
#: for them twice on every rerun of every page, and inferring the sheet's roles took a third
#: of a rerun at 300 samples (issue 45)
_ANNOTATION_TARGETS = ByteLRU(32)


def annotation_targets(up: Upload) -> tuple[str | None, list[str], list[str]]:
    """``(suggested target, likely targets, all columns)`` of the attached sample annotations (the
    key column left out); empty without them."""
    from fsviz.data.roles import infer_column_roles

    record = annotation_upload(up)
    key = up.options.get("annotation_key")
    memo = None if record is None else (record.digest, record.filename, key)
    if memo is not None and (hit := _ANNOTATION_TARGETS.get(memo)) is not None:
        return hit[0], list(hit[1]), list(hit[2])
    try:
        frame = annotation_frame(up)
    except ValueError:
        return None, [], []
    if frame is None:
        return None, [], []
    cols = [str(c) for c in frame.columns if str(c) != key]
    roles = infer_column_roles(frame[cols].reset_index(drop=True), "auto", id_columns="auto")
    cands = [r.name for r in roles if r.role == "target"] + [
        r.name for r in roles if r.role == "feature" and r.dtype == "text" and 2 <= r.n_unique <= 50
    ]
    ids = {r.name for r in roles if r.role == "identifier"}
    found = (cands[0] if cands else None), cands, [c for c in cols if c not in ids]
    if memo is not None:
        _ANNOTATION_TARGETS.put(memo, (found[0], tuple(found[1]), tuple(found[2])))
    return found


def attach_annotations(up: Upload, filename: str, data: bytes) -> bool:
    """Keep a sample-annotation upload beside ``up`` (the plan names its file); True when new."""
    import secrets

    digest = hashlib.sha256(data).hexdigest()
    record = annotation_upload(up)
    if record is not None and record.digest == digest:
        return False
    token = secrets.token_urlsafe(16)
    use("annotations", token)  # before the store holds it: a sweep in between keeps it
    upload_store().put(token, Upload(token, filename, digest, data, {}))
    up.options["annotations_token"] = token
    up.options["sample_annotations"] = filename
    up.options["annotation_key"] = None
    return True


def feature_annotation_upload(up: Upload) -> Upload | None:
    """The feature-annotation file attached to ``up`` (another upload in the store), or None."""
    return _attached(up, "feature_annotations_token")


def feature_annotation_frame(up: Upload):
    """The attached feature annotations as a DataFrame (None without them); ValueError if unreadable."""
    from fsviz.data.feature_info import read_feature_annotations

    return _attached_frame(feature_annotation_upload(up), "feature annotations", read_feature_annotations)


def attach_feature_annotations(up: Upload, filename: str, data: bytes) -> bool:
    """Keep a feature-annotation upload (a platform table: ID -> Gene Symbol) beside ``up`` (the
    plan names its file); True when new."""
    import secrets

    digest = hashlib.sha256(data).hexdigest()
    record = feature_annotation_upload(up)
    if record is not None and record.digest == digest:
        return False
    token = secrets.token_urlsafe(16)
    use("annotations", token)  # before the store holds it: a sweep in between keeps it
    upload_store().put(token, Upload(token, filename, digest, data, {}))
    up.options["feature_annotations_token"] = token
    up.options["feature_annotations"] = filename
    up.options["feature_key"] = None
    up.options["feature_display"] = None
    return True


def detach_feature_annotations(up: Upload) -> None:
    up.options["feature_annotations_token"] = None
    up.options["feature_annotations"] = None
    up.options["feature_key"] = None
    up.options["feature_display"] = None


def detach_annotations(up: Upload) -> None:
    up.options["annotations_token"] = None
    up.options["sample_annotations"] = None
    up.options["annotation_key"] = None
    if up.options.get("label") not in (None, "auto") and up.options["label"] not in annotation_columns(up):
        up.options["label"] = "auto"


def set_aside_roles(up: Upload, info) -> dict[str, str]:
    """The columns that are not features and their roles: inferred, then the user's edits."""
    return {c: r for c, r in (info.set_aside | up.options["roles"]).items() if r != "feature"}


def effective_plan(up: Upload, info) -> ImportPlan:
    """The plan the upload is read with: its options, the roles table's edits as the target,
    identifier and ignored columns (the plan the dataset carries and the report reproduces)."""
    plan = plan_of(up)
    label = up.options.get("label")
    if info.frame is None or info.fmt not in TABLE_FORMATS or label in annotation_columns(up):
        return plan
    roles = set_aside_roles(up, info)
    target = [c for c, r in roles.items() if r == "target"]
    keep_auto = not target and label == "auto" and annotation_upload(up) is not None  # the join picks
    return plan.replace(
        label=target[0] if target else ("auto" if keep_auto else None),
        id_columns=tuple(c for c, r in roles.items() if r == "identifier"),
        ignore=tuple(c for c, r in roles.items() if r == "ignored"),
        covariates=tuple(c for c, r in roles.items() if r == "covariate") or None,
    )


@dataclass(frozen=True)
class _Read:
    """What reading an upload with a plan needs, gathered in the script thread (the stores and
    the session's registrations are touched there, never from the job's thread)."""

    where: tuple  # the loaded index's key: file, plan, attached files
    up: Upload
    plan: ImportPlan
    samples: Upload | None
    features: Upload | None


def _read_of(up: Upload, plan: ImportPlan) -> _Read:
    """The attached files of ``up`` and the key its dataset under ``plan`` is kept by; raises
    ValueError when the plan names an attached file the server no longer has."""
    record = annotation_upload(up)
    if record is None and plan.sample_annotations is not None:  # the plan names a file we lost
        raise ValueError(
            f"the sample annotations {plan.sample_annotations!r} are no longer on the server. Fix: "
            "attach the file again under Sample annotations on the Data page."
        )
    features = feature_annotation_upload(up)
    if features is None and plan.feature_annotations is not None:
        raise ValueError(
            f"the feature annotations {plan.feature_annotations!r} are no longer on the server. Fix: "
            "attach the file again under Feature annotations on the Data page."
        )
    where = (
        up.digest,
        up.filename,
        plan.to_json(),
        record.digest if record else None,
        features.digest if features else None,
    )
    return _Read(where, up, plan, record, features)


def _known(read: _Read):
    """The dataset ``read`` gives when the dataset store still has it, else None."""
    known = loaded_index().get(read.where)
    return _datasets().get(known) if known is not None else None


def _read_dataset(read: _Read):
    """The upload's dataset under its plan (in a job's thread), kept in the dataset store: the
    file parsed once per parse key (:meth:`ImportPlan.parse_key`, kept in :func:`parsed_store`),
    then assembled with the plan's target, roles and annotation joins. A new target, a
    column's role or a joined sample sheet assembles again and never reads the file.

    The parser checks the sizes the file declares against the memory budget before it
    allocates (FSVIZ_MEMORY_BUDGET, else 1/8 of the available RAM): one upload cannot take
    the server, and every session on it, down; .mat, workbooks and .h5ad are parsed in a
    memory-limited child process (``sandbox=True``), so a reader that crashes or over-allocates
    on a hostile file cannot either."""
    from fsviz.data import assemble

    up, extra = read.up, {}
    parsed = parsed_upload(up, read.plan)
    for option, record in (("sample_annotations", read.samples), ("feature_annotations", read.features)):
        if record is not None:
            extra[option] = io.BytesIO(record.data)
            extra[option].name = record.filename
    name = Path(strip_compression_suffix(up.filename)).stem  # GSE1_series_matrix.txt.gz: its table's name
    ds = assemble(parsed, read.plan, name=name, **extra)
    _datasets().put(dataset_key(ds), ds)
    loaded_index().put(read.where, dataset_key(ds))
    return ds


def _load_upload(up: Upload, plan: ImportPlan):
    """The dataset of an upload read with ``plan``: from the dataset store when it is there,
    else read here (once per file and plan)."""
    read = _read_of(up, plan)
    return _known(read) or _read_dataset(read)


def _read_as_job(read: _Read):
    """Read as a job of this session, above the page: the time it has taken and **Cancel** (a
    wide file takes seconds). Returns the dataset, or None when cancelled: the session keeps the
    dataset it had, and the file is read again when asked (:func:`read_again`) or when its
    settings change."""
    key = ("read",) + read.where
    if jobs.was_cancelled(key):
        st.session_state["_read_cancelled"] = key
        return None
    job = jobs.submit(key, f"Reading {read.up.filename}", lambda _: _read_dataset(read))
    slot = st.session_state.get("_busy_slot")  # above the page, where loads show
    with slot.container() if slot is not None else st.container():
        job = jobs.wait(job)
    error = job.error
    jobs.collect(job)
    return_memory()  # parsing and assembling a wide file leave temporaries of several times its size
    if job.state == "failed":
        raise error
    if job.state != "done":
        st.session_state["_read_cancelled"] = key
        return None
    return job.result


def read_again() -> None:
    """The sidebar's button after a cancelled read: read the file with its settings again."""
    key = st.session_state.pop("_read_cancelled", None)
    if key is not None:
        jobs.forget_cancel(key)


def read_cancelled_note() -> None:
    """Sidebar: after a cancelled read, say so and offer to read the file again."""
    if st.session_state.get("_read_cancelled") is not None:
        st.caption("Reading the file was cancelled; the dataset before it stays active.")
        st.button("Read the file again", on_click=read_again, key="read_again")


def apply_target_fixes(ds, options: dict):
    """The Data page's target fixes: classes smaller than ``min_class_size`` left out, an
    integer target read as continuous."""
    if options.get("target_kind", "auto") != "auto" and ds.y is not None:
        ds = ds.with_target_kind(options["target_kind"])
    if int(options.get("min_class_size") or 0) > 1 and ds.target_kind == "classes":
        ds = ds.drop_small_classes(int(options["min_class_size"]))
    return ds


def load_upload(up: Upload, shape: tuple[int, int] | None = None):
    """Load an upload with its import plan (cached by content and plan); raises the loader's
    ValueError. A read that is not in the store runs as a job above the page (time taken,
    Cancel); None when it was cancelled."""
    read = _read_of(up, effective_plan(up, inspect_upload(up)))
    st.session_state.pop("_read_cancelled", None)
    before = st.session_state.get("dataset_key")
    ds = _known(read) or _read_as_job(read)
    if ds is None:  # cancelled: the session keeps the dataset it had
        return None
    ds = _with_shape(ds, shape)
    activate(ds)
    _let_go(before, up.digest)
    return ds


def _let_go(before, digest: str) -> None:
    """The dataset ``before`` this session just replaced by another reading of the same file
    (a new target, roles or join) leaves the dataset store unless a live session still uses it:
    at 300 x 100,000 each reading holds 240 MB, and a few target changes otherwise kept them all
    until the store's budget pushed them out. Its results stay in the result store."""
    if before is None or before == st.session_state.get("dataset_key"):
        return
    index = loaded_index()
    ours = [where for where in index.keys() if where[0] == digest and index.get(where) == before]
    if not ours or before in usage().used("dataset"):
        return
    for where in ours:
        index.pop(where)
    _datasets().pop(before)


def adopt_pending_options(digest: str, options: dict) -> bool:
    """An upload that is the file a loaded session was saved on takes its import options."""
    doc = st.session_state.get("pending_session")
    if doc is not None and doc.source.get("sha256") == digest:
        options.update(doc.source.get("import_options") or {})
        return True
    return False
