"""Reading split in two: :func:`parse_source` reads a file once, :func:`assemble` makes a Dataset.

Reading a file is *parsing* (the bytes to raw parts: decompression, the format, the reader, the
memory-budget checks) and *assembling* (the plan's role fields applied to those parts: the
target, identifier and ignored columns, covariates, the sample- and feature-annotation joins,
missing values, the target's kind, the transform). Only the plan's parse fields
(:data:`fsviz.data.plan.PARSE_FIELDS`, :meth:`ImportPlan.parse_key`) change what is parsed, so a
change of target, roles or annotation join is one :func:`assemble` of the same
:class:`ParsedSource`, never a second read of the file. :func:`fsviz.data.load_dataset` is
``assemble(parse_source(...), plan)``.

:func:`parse_count` counts the parses of this process; with the environment variable
``FSVIZ_READ_LOG`` naming a file, each parse also appends a line ``<ISO time>\\t<source>\\t<format>``
to it (what a browser test reads from outside the server to see that a click did not re-read).

Examples
--------
>>> import io
>>> from fsviz.data import assemble, parse_count, parse_source
>>> buf = io.BytesIO(b"a,b,group,class\\n1,2,x,p\\n3,4,y,q\\n5,6,x,q\\n")
>>> buf.name = "tiny.csv"
>>> before = parse_count()
>>> parsed = parse_source(buf)
>>> assemble(parsed, {"ignore": ["group"]}).y.tolist()
[0, 1, 1]
>>> assemble(parsed, {"label": "group", "ignore": ["class"]}).y.tolist()
[0, 1, 0]
>>> parse_count() - before
1
"""

from __future__ import annotations

import dataclasses
import os
import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from fsviz.data.annotations import annotation_source, join_annotations, read_annotations
from fsviz.data.budget import dense_bytes, format_bytes, out_of_memory, resolve_budget, sparse_bytes
from fsviz.data.build import annotations_by_position, build_dataset
from fsviz.data.covariates import check_covariates
from fsviz.data.dataset import Dataset
from fsviz.data.feature_info import attach_feature_info
from fsviz.data.formats.registry import get_reader, run_reader
from fsviz.data.formats.source import Source, parse_error, resolve_format
from fsviz.data.plan import ASSEMBLE_FIELDS, PARSE_FIELDS, ImportPlan
from fsviz.data.transforms import finish

__all__ = ["ParsedSource", "assemble", "parse_count", "parse_source", "plan_of"]

_LOCK = threading.Lock()
_PARSES = [0]


def parse_count() -> int:
    """How many files this process has parsed (:func:`parse_source`, :func:`load_dataset`, and a
    re-read :func:`assemble` had to make for a reader that takes the target while reading)."""
    with _LOCK:
        return _PARSES[0]


def _counted(label: str, fmt: str) -> None:
    with _LOCK:
        _PARSES[0] += 1
    log = os.environ.get("FSVIZ_READ_LOG")
    if log:
        when = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
        shown = " ".join(str(label).split()) or "<buffer>"  # one line, one field: no tab or newline
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(f"{when}\t{shown}\t{fmt}\n")


@dataclass(frozen=True, eq=False)
class ParsedSource:
    """A file parsed once: what :func:`assemble` turns into a Dataset under any plan with the same
    parse fields. Picklable (the sandboxed reader's child returns its payload).

    What is shared: :func:`assemble` never modifies the payload. A table's float columns are one
    C-ordered, read-only block (:mod:`fsviz.data.blocks`; the parsed frame's columns are views
    into it, shallow-copied while assembling under pandas' copy-on-write), and that block *is* the
    Dataset's ``X`` when the features are exactly those columns (ids and a text target taken out),
    one copy of the kept columns otherwise; a very wide text table's numeric block likewise;
    readers whose target only comes from the sample annotations hand the same ``X`` to every
    Dataset (read-only; missing values are filled in a copy). So the parsed parts and one
    Dataset hold at most about twice the data.

    Attributes
    ----------
    label : str
        The source's name as messages show it (``'data.csv'`` or ``<buffer>``).
    filename : str
        The file's name (the member's, once unwrapped), or "".
    archive : str
        The compressed file or archive it was unwrapped from (the file a person has), or "".
    fmt : str
        The reader that parsed it (:func:`fsviz.data.formats.registry.get_reader`).
    plan : ImportPlan
        The plan it was parsed with (``compression``/``member`` as found).
    kind : {"split", "parts", "bound", "mapped", "npy"}
        ``"split"``: the reader's ``parse`` payload; ``"parts"``: a ``label_free`` reader's parts;
        ``"bound"``: a reader that takes the target while reading (parsed with ``reader_label``;
        another target reads the file again, counted); ``"mapped"``/``"npy"``: an fsviz
        memory-mapped folder or a ``.npy`` matrix (``payload`` the Dataset read).
    payload : object
        What was parsed.
    notes : tuple of str
        What parsing did that a person should know (decompressed, read as ...).
    """

    label: str
    filename: str
    fmt: str
    plan: ImportPlan
    kind: str
    payload: Any
    notes: tuple = ()
    compression: str = "none"
    member: str | None = None
    archive: str = ""
    budget: int = 0
    sandbox: bool = False
    allow_external: bool = False
    requested_key: str = ""
    reader_label: Any = "auto"
    origin: Any = None
    memory_budget: Any = None
    extra: dict = field(default_factory=dict)

    def accepts(self, plan: ImportPlan) -> bool:
        """Whether ``plan`` reads this file as it was parsed (same :meth:`ImportPlan.parse_key`)."""
        key = plan.parse_key()
        return key == self.plan.parse_key() or key == self.requested_key

    def source(self, plan: ImportPlan) -> Source:
        """A :class:`Source` with no bytes, this file's name and options and ``plan``'s: what the
        readers' ``assemble`` functions read their options from."""
        src = Source(b"")
        src.filename, src.label, src.budget = self.filename, self.label, self.budget
        src.sandbox, src.allow_external = self.sandbox, self.allow_external
        src.use_plan(plan)
        src.notes = list(self.notes)
        src.compression, src.member, src.archive = self.compression, self.member, self.archive
        return src


_PLAN_FIELDS = frozenset(f.name for f in dataclasses.fields(ImportPlan))


def plan_of(plan, given: dict, who: str = "load_dataset") -> ImportPlan:
    """The plan of a call: ``plan=`` (a plan or its dict), or the options one by one (validated
    by :class:`ImportPlan`, the one place that checks them); ValueError naming ``who``."""
    unknown = sorted(k for k in given if k not in _PLAN_FIELDS)
    if unknown:
        raise ValueError(f"{who}: unknown option(s) {unknown[:5]}; the options are {sorted(_PLAN_FIELDS)}.")
    if plan is not None:
        defaults = ImportPlan().options()
        set_too = sorted(
            k
            for k, v in given.items()
            if k in defaults
            and k not in ("sample_annotations", "feature_annotations")
            and not _same(v, defaults[k])
        )
        if set_too:
            raise ValueError(
                f"{who}: options {set_too} were given beside plan=; give them in the plan. Fix: "
                "plan.replace(...) or one or the other."
            )
        if isinstance(plan, ImportPlan):
            return plan
        return ImportPlan.from_dict(plan, f"{who}: plan")
    options = dict(given)
    for name in ("sample_annotations", "feature_annotations"):
        given_annotations = options.get(name)
        if isinstance(given_annotations, (str, os.PathLike)):
            options[name] = os.fspath(given_annotations)
        elif given_annotations is not None:  # a buffer: the plan records its name; a frame: nothing
            options[name] = os.path.basename(str(getattr(given_annotations, "name", "") or "")) or None
    if isinstance(options.get("missing_indicators"), np.bool_):
        options["missing_indicators"] = bool(options["missing_indicators"])
    try:
        return ImportPlan(**options)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{who}: {e}") from None


def _same(a, b) -> bool:
    try:
        return bool(a == b) if not isinstance(a, np.ndarray) else False
    except (TypeError, ValueError):
        return False


def _as_plan(plan, who: str) -> ImportPlan | None:
    if plan is None or isinstance(plan, ImportPlan):
        return plan
    return ImportPlan.from_dict(plan, f"{who}: plan")


# ============================================================================ parse
def parse_source(
    path_or_buffer,
    plan: ImportPlan | dict | None = None,
    *,
    sandbox: bool = False,
    memory_budget: int | str | None = None,
    allow_external: bool = False,
    **reading_options,
) -> ParsedSource:
    """Read and parse a file once, deciding no target or role: the input of :func:`assemble`.

    Parameters
    ----------
    path_or_buffer : str, Path, bytes or binary file-like
        As for :func:`~fsviz.data.load_dataset`.
    plan : ImportPlan or dict, optional
        The import plan (its parse fields, :data:`~fsviz.data.plan.PARSE_FIELDS`, are what count
        here; the others are :func:`assemble`'s). Or the options one by one
        (``reading_options``), never both.
    sandbox, memory_budget, allow_external
        As for :func:`~fsviz.data.load_dataset`.
    **reading_options
        Any :class:`~fsviz.data.plan.ImportPlan` field (``sep=";"``, ``transpose=True``, ...).

    Returns
    -------
    ParsedSource
        Picklable; :func:`assemble` it under any plan with the same :meth:`ImportPlan.parse_key`.
    """
    plan = plan_of(plan, reading_options, who="parse_source")
    if not isinstance(allow_external, (bool, np.bool_)):
        raise ValueError(f"load_dataset: allow_external must be True or False; got {allow_external!r}.")
    base = {"requested_key": plan.parse_key(), "reader_label": plan.label, "memory_budget": memory_budget}
    from fsviz.data.formats.npy import is_npy_path, load_npy
    from fsviz.data.seeds import is_seed_dir

    if is_seed_dir(path_or_buffer):  # memory-mapped: nothing is read until used
        name = Path(os.fspath(path_or_buffer)).name
        _counted(name, "fsviz-mmap")
        return ParsedSource(
            name, name, "fsviz-mmap", plan, "mapped", None, origin=os.fspath(path_or_buffer), **base
        )
    if plan.fmt in (None, "npy") and is_npy_path(path_or_buffer):  # labels in <stem>.y.npy
        name = Path(os.fspath(path_or_buffer)).name
        _counted(name, "npy")
        ds = load_npy(path_or_buffer, label=plan.label, memory_budget=memory_budget)
        return ParsedSource(name, name, "npy", plan, "npy", ds, origin=os.fspath(path_or_buffer), **base)
    src = Source(path_or_buffer)
    src.budget = resolve_budget(memory_budget)
    src.sandbox = bool(sandbox)
    src.allow_external = bool(allow_external)
    src.use_plan(plan)
    size = src.size()
    if size == 0:
        raise ValueError(f"load_dataset: {src.label} is empty (0 bytes). Fix: choose a file that holds data.")
    src.check(size, f"the file itself ({format_bytes(size)})")
    src.unwrap()  # a gzip/bz2/xz/zstd stream or a zip/tar archive: the file inside, bounded
    if src.compression != "none" and (plan.compression, plan.member) != (src.compression, src.member):
        plan = plan.replace(compression=src.compression, member=src.member)  # recorded in meta["plan"]
        src.use_plan(plan)
    f = resolve_format(src, plan.fmt)
    return _parse(src, plan, f, base)


def _parse(src: Source, plan: ImportPlan, f: str, base: dict) -> ParsedSource:
    reader = get_reader(f)
    fmt_arg = (reader.name,) if reader.takes_fmt else ()
    _counted(src.filename or "<buffer>", reader.name)
    try:
        if reader.parse is not None:
            kind, payload = "split", run_reader(src, reader, reader.parse, fmt_arg)
        elif reader.label_free:
            kind, payload = "parts", run_reader(src, reader, reader.read, (*fmt_arg, None))
        else:
            kind, payload = "bound", run_reader(src, reader, reader.read, (*fmt_arg, base["reader_label"]))
    except ValueError:
        raise
    except MemoryError as e:
        raise out_of_memory(f"load_dataset: {src.label}", e) from None
    except Exception as e:  # a damaged file can make any parser fail in its own way
        raise parse_error(
            src,
            {"txt": "text"}.get(f, f),
            e,
            "the file looks damaged or is not in this format; re-export it.",
        ) from e
    origin = None
    if kind == "bound":  # read again for another target: the path, or the bytes (an upload)
        origin = src.path if src.path is not None and src.compression == "none" else src.detached()
    return ParsedSource(
        src.label,
        src.filename,
        reader.name,
        plan,
        kind,
        payload,
        notes=tuple(src.notes),
        compression=src.compression,
        member=src.member,
        archive=src.archive,
        budget=src.budget,
        sandbox=src.sandbox,
        allow_external=src.allow_external,
        origin=origin,
        **base,
    )


# ============================================================================ assemble
def assemble(
    parsed: ParsedSource,
    plan: ImportPlan | dict | None = None,
    *,
    sample_annotations=None,
    feature_annotations=None,
    name: str | None = None,
    image_shape: tuple[int, int] | None | bool = None,
) -> Dataset:
    """The Dataset of a parsed file under ``plan``'s role fields; the file is not read again.

    Parameters
    ----------
    parsed : ParsedSource
        From :func:`parse_source`; never modified (see its docstring for what is shared).
    plan : ImportPlan or dict, optional
        Default ``parsed.plan``. Its parse fields must be those ``parsed`` was read with
        (:meth:`ParsedSource.accepts`); every other field (target, identifier and ignored
        columns, covariates, types, missing values, target kind, the annotation files and keys,
        transform, ...: :data:`~fsviz.data.plan.ASSEMBLE_FIELDS`) is applied here.
    sample_annotations, feature_annotations : path, buffer or DataFrame, optional
        The annotation tables' content (default: the files the plan names).
    name, image_shape
        As for :func:`~fsviz.data.load_dataset`.

    Returns
    -------
    Dataset
        Equal to ``load_dataset(<the file>, plan=plan)`` (same fingerprint).
    """
    if not isinstance(parsed, ParsedSource):
        raise ValueError(f"assemble: expected what parse_source returns; got {type(parsed).__name__}.")
    plan = _as_plan(plan, "assemble") or parsed.plan
    if not parsed.accepts(plan):
        changed = [
            f
            for f in PARSE_FIELDS
            if getattr(plan, f) != getattr(parsed.plan, f) and f not in ("compression", "member")
        ]
        raise ValueError(
            f"assemble: the plan changes how {parsed.label} is parsed "
            f"({', '.join(changed) or 'compression'}); "
            "only its other fields apply to a parsed file. Fix: parse_source(<the file>, plan) again."
        )
    if parsed.compression != "none" and (plan.compression, plan.member) != (
        parsed.compression,
        parsed.member,
    ):
        plan = plan.replace(compression=parsed.compression, member=parsed.member)
    if parsed.kind == "mapped":
        return _load_mapped_dir(parsed.origin, label=plan.label, name=name)
    if parsed.kind == "npy":
        if plan.label == parsed.reader_label and name is None:
            return parsed.payload
        from fsviz.data.formats.npy import load_npy

        _counted(parsed.label, "npy")
        return load_npy(parsed.origin, label=plan.label, name=name, memory_budget=parsed.memory_budget)
    src = parsed.source(plan)
    annotations = sample_annotations if sample_annotations is not None else plan.sample_annotations
    feature_table = feature_annotations if feature_annotations is not None else plan.feature_annotations
    who = f"load_dataset: {src.label}"
    try:
        table = None
        label = plan.label
        if annotations is not None:
            table = read_annotations(
                annotation_source(annotations), who=who, budget=src.budget, na_values=src.na_values
            )
            if isinstance(label, str) and label in [str(c) for c in table.columns]:
                label = None  # the target is an annotation: the data are read without one
        parts = _parts(parsed, src, plan, label)
        if parts.get("annotations") is not None:  # a GEO series matrix brings its own
            own = parts.pop("annotations")
            table = own if table is None else table
        if table is not None and table.attrs.get("join") == "position":  # a CLS file: no sample ids
            table = annotations_by_position(table, parts, who)
        if table is not None:
            parts = join_annotations(
                parts,
                table,
                label=plan.label,
                key=plan.annotation_key,
                missing_target=plan.missing_target,
                who=who,
            )
        parts = attach_feature_info(parts, feature_table, plan, who=who, budget=src.budget)
        check_covariates(parts, plan.covariates, plan.label, who)
        X = parts["X"]
        if sp.issparse(X):
            src.check(sparse_bytes(*X.shape, X.nnz), f"a sparse {X.shape[0]} x {X.shape[1]} matrix")
        else:
            src.check(dense_bytes(*X.shape), f"a dense {X.shape[0]} x {X.shape[1]} matrix")
        ds = build_dataset(src, parts, image_shape=image_shape, name=name, image_order=plan.image_order)
        return finish(ds, plan, who)
    except ValueError:
        raise
    except MemoryError as e:
        raise out_of_memory(who, e) from None
    except Exception as e:  # a damaged file can make any parser fail in its own way
        raise parse_error(
            src,
            {"txt": "text"}.get(parsed.fmt, parsed.fmt),
            e,
            "the file looks damaged or is not in this format; re-export it.",
        ) from e


def _parts(parsed: ParsedSource, src: Source, plan: ImportPlan, label) -> dict:
    """The raw parts of ``parsed`` for ``label`` under ``plan`` (a fresh dict; payload untouched)."""
    reader = get_reader(parsed.fmt)
    fmt_arg = (reader.name,) if reader.takes_fmt else ()
    if parsed.kind == "split":
        return reader.assemble(src, *fmt_arg, parsed.payload, label)
    if parsed.kind == "parts":
        if label is not None and not isinstance(label, str):
            raise ValueError(
                f"load_dataset: {src.label}: the target of a {reader.description or reader.name} is a sample "
                f"annotation column (by name); got label={label!r}."
            )
        return _shared(parsed.payload)
    same = label == parsed.reader_label and all(
        getattr(plan, f) == getattr(parsed.plan, f) for f in ASSEMBLE_FIELDS if f in _READER_SEES
    )
    if same:
        return _shared(parsed.payload)
    # a reader that takes the target while reading (.mat, .npz, ...): read again for this one
    again = Source(parsed.origin) if isinstance(parsed.origin, str) else parsed.origin.detached()
    again.budget, again.sandbox, again.allow_external = parsed.budget, parsed.sandbox, parsed.allow_external
    again.use_plan(plan)
    if isinstance(parsed.origin, str):
        again.unwrap()
    redo = _parse(again, plan, parsed.fmt, {**_base_of(parsed), "reader_label": label})
    src.notes[:] = list(redo.notes)
    return _shared(redo.payload)


#: the role fields a reader that takes the target (``read(source, label)``) may look at
_READER_SEES = frozenset({"id_columns", "ignore", "types", "dates", "missing_target", "categorical"})


def _base_of(parsed: ParsedSource) -> dict:
    return {"requested_key": parsed.requested_key, "memory_budget": parsed.memory_budget}


def _shared(payload: dict) -> dict:
    """A reader's parts for one Dataset: a new dict (lists and dicts copied) sharing the arrays,
    ``X`` marked not owned (missing values are then filled in a copy, never in the parsed one)."""
    parts = dict(payload)
    for k, v in parts.items():
        if isinstance(v, list):
            parts[k] = list(v)
        elif isinstance(v, dict):
            parts[k] = dict(v)
    parts["owned"] = False
    return parts


def _load_mapped_dir(path, *, label, name) -> Dataset:
    """A :func:`fsviz.data.seeds.write_seed_shape` directory, opened memory-mapped (nothing copied)."""
    from fsviz.data.seeds import load_seed_shape

    X, y, truth, meta = load_seed_shape(path)
    return Dataset(
        X,
        y=None if label is None else y,
        name=name if name is not None else meta.get("name", Path(os.fspath(path)).name),
        truth=truth,
        meta={"source": os.fspath(path), "format": "fsviz-mmap", **meta},
    )
