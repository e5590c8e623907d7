"""The reader registry: every file format :func:`~fsviz.data.load_dataset` reads, as a :class:`Reader`.

A reader is one module of :mod:`fsviz.data.formats` and one :func:`register` call. It says:

- ``name`` (what ``fmt=`` and the import plan's ``fmt`` call it) and the file-name ``suffixes``
  it answers to;
- ``detect``: whether a file is in this format, *from its content* (the
  :class:`~fsviz.data.formats.source.Source` gives ``head()``, ``bytes()``, ``filename``, and
  ``layout``/``files`` for a multi-file layout unpacked from an archive). Readers are asked in the
  order they were registered; the first that says yes reads the file; a file no detector claims
  falls back to the binary kinds, the suffix and the text sniffers;
- ``read(source, label) -> parts``: the import plan's *raw parts* (below);
- ``declared_size(source) -> (n_samples, n_features, nnz or None)``: the size the file declares
  (a header line, an HDF5 shape), read cheaply; the registry checks it against the memory budget
  *before* ``read`` allocates anything (a reader without it checks inside ``read``, through
  ``source.check(bytes, what)``);
- ``parse`` and ``assemble`` (optional, both or neither): ``read`` split in two, so that a change
  of target, roles or annotation join never re-reads the file (:func:`fsviz.data.parse_source`,
  :func:`fsviz.data.assemble`). ``parse(source) -> payload`` reads the file once and decides no
  role (a picklable payload: the sandbox child returns it); ``assemble(source, payload, label) ->
  parts`` applies the plan (``source.plan``: roles, target, ...) to it and never modifies it. A
  reader without them is read again when the target changes (its ``read`` takes the label);
  one with ``label_free=True`` (its target only ever comes from the sample annotations) never is;
- ``sandbox``: True when ``read`` parses with a library that can crash or over-allocate on hostile
  bytes; with ``load_dataset(..., sandbox=True)`` (the app, the CLI) the registry then runs
  ``read`` in the memory-limited child of :mod:`fsviz.data.sandbox`. (``.mat``, workbooks and
  ``.h5ad`` isolate their own parser call and say ``isolates_itself``.)

The raw parts are a dict: ``X`` (2-D float64 ndarray or scipy.sparse matrix, samples as rows),
``y`` (labels or None), ``feature_names`` (or None), ``sample_names`` (or None), ``format`` (the
reader's name), ``label_column`` (or None), ``class_names`` (or None), ``notes`` (list of str:
what a person should know, e.g. "read as a GCT 1.3 file: ..."), and optionally ``annotations``
(a per-sample DataFrame joined like ``sample_annotations``; one of its columns can be the
target), ``table_meta`` (dict merged into ``Dataset.meta``; ``feature_ids`` there: the IDs beside
symbol-named features, kept in ``Dataset.feature_info``), ``feature_table`` (a per-feature
DataFrame, AnnData's ``var``: its symbol column gives ``Dataset.feature_info`` its display names).
A reader run in the sandbox child reports through its parts only (``source.notes`` stays in the
child).

Examples
--------
A format is one module and one registration (see docs/data.md, "Adding a reader"):

>>> from fsviz.data.formats.registry import Reader, get_reader, readers
>>> [r.name for r in readers()][:3]
['csv', 'tsv', 'txt']
>>> get_reader("geo").detect is not None
True
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Reader",
    "detect_format",
    "format_names",
    "get_reader",
    "read_parts",
    "reader_for_suffix",
    "readers",
    "register",
    "run_reader",
    "unregister",
]


@dataclass(frozen=True)
class Reader:
    """One file format: how to recognise it and how to read it to the import plan's raw parts.

    Attributes
    ----------
    name : str
        Lower-case identifier (``fmt=``); letters, digits, ``_`` and ``-``.
    read : callable ``(source, label) -> dict``
        Reads the file to the raw parts (see the module's docstring). Must be importable
        (module level, or a ``functools.partial`` of one) when ``sandbox`` is True.
    description : str
        What the format is, in words ("GCT 1.2/1.3 expression file").
    suffixes : tuple of str
        File-name endings (``".gct"``), lower case.
    detect : callable ``(source) -> bool``, optional
        Recognises the format from the content. None: only by suffix or ``fmt=``.
    declared_size : callable ``(source) -> (n_samples, n_features, nnz or None)``, optional
        The size the file declares, checked against the memory budget before ``read``.
    sandbox : bool, default=False
        Run ``read`` in the sandbox child for untrusted input (``load_dataset(sandbox=True)``).
    isolates_itself : bool, default=False
        ``read`` already runs its crash-prone call in the sandbox child when asked.
    takes_fmt : bool, default=False
        ``read`` takes ``(source, fmt, label)``: one function reads several formats (the
        delimited text tables; the workbooks).
    aliases : tuple of str
        Other names ``fmt=`` accepts.
    parse : callable ``(source) -> payload``, optional
        The file parsed once, no role decided (``(source, fmt)`` when ``takes_fmt``).
    assemble : callable ``(source, payload, label) -> dict``, optional
        The raw parts from ``parse``'s payload under ``source.plan`` (``(source, fmt, payload,
        label)`` when ``takes_fmt``); the payload is never modified.
    label_free : bool, default=False
        ``read`` ignores ``label`` and the plan's role fields (the target comes from the sample
        annotations): its parts serve every target.
    """

    name: str
    read: Callable[..., dict]
    description: str = ""
    suffixes: tuple = ()
    detect: Callable[[Any], bool] | None = None
    declared_size: Callable[[Any], tuple] | None = None
    sandbox: bool = False
    isolates_itself: bool = False
    takes_fmt: bool = False
    aliases: tuple = ()
    parse: Callable[..., Any] | None = None
    assemble: Callable[..., dict] | None = None
    label_free: bool = False


_READERS: dict[str, Reader] = {}
_NAME = re.compile(r"^[a-z0-9][a-z0-9_\-]*$")


def register(reader: Reader, *, replace: bool = False) -> Reader:
    """Add ``reader`` to the registry (detection order: registration order).

    Raises ValueError for a bad name, a name or alias already registered (unless
    ``replace=True``), or a ``read`` that is not callable.
    """
    if not isinstance(reader, Reader):
        raise ValueError(f"register: expected a Reader; got {type(reader).__name__}.")
    if not _NAME.match(reader.name):
        raise ValueError(f"register: reader name {reader.name!r} must be lower-case letters, digits, _ or -.")
    if not callable(reader.read) or (reader.detect is not None and not callable(reader.detect)):
        raise ValueError(f"register: reader {reader.name!r} needs a callable read (and detect, if given).")
    if (reader.parse is None) != (reader.assemble is None) or not all(
        f is None or callable(f) for f in (reader.parse, reader.assemble)
    ):
        raise ValueError(
            f"register: reader {reader.name!r} needs both parse and assemble (callables) or neither."
        )
    taken = {
        alias: r.name for r in _READERS.values() for alias in (r.name, *r.aliases) if r.name != reader.name
    }
    clash = [n for n in (reader.name, *reader.aliases) if n in taken]
    if clash or (reader.name in _READERS and not replace):
        raise ValueError(
            f"register: {clash or [reader.name]} already name(s) a registered reader; pass replace=True "
            "to replace a reader of the same name."
        )
    bad = [s for s in reader.suffixes if not (isinstance(s, str) and s.startswith(".") and s == s.lower())]
    if bad:
        raise ValueError(f"register: suffixes must be lower case and begin with '.'; got {bad}.")
    _READERS[reader.name] = reader
    return reader


def unregister(name: str) -> None:
    """Remove the reader called ``name`` (a no-op when there is none)."""
    _READERS.pop(str(name), None)


def readers() -> tuple[Reader, ...]:
    """Every registered reader, in detection order."""
    return tuple(_READERS.values())


def format_names() -> tuple[str, ...]:
    """The names ``fmt=`` takes (the readers' names)."""
    return tuple(_READERS)


def get_reader(name: str) -> Reader:
    """The reader called ``name`` (or one of its aliases); ValueError listing the names."""
    key = str(name).lower().lstrip(".")
    if key in _READERS:
        return _READERS[key]
    for r in _READERS.values():
        if key in r.aliases:
            return r
    raise ValueError(f"load_dataset: unknown fmt {name!r}; choose one of {list(_READERS)}.")


def reader_for_suffix(filename: str) -> Reader | None:
    """The reader whose suffix ends ``filename`` (the longest match), or None."""
    low = str(filename).lower()
    best, length = None, 0
    for r in _READERS.values():
        for s in r.suffixes:
            if low.endswith(s) and len(s) > length:
                best, length = r, len(s)
    return best


def detect_format(source) -> str | None:
    """The first registered reader whose ``detect`` recognises ``source``, or None."""
    for r in _READERS.values():
        if r.detect is not None and r.detect(source):
            return r.name
    return None


def read_parts(source, name: str, label) -> dict:
    """``get_reader(name).read`` on ``source``: the declared size checked first, in the sandbox
    child when the reader asks for it and ``source.sandbox`` is set."""
    reader = get_reader(name)
    args = (reader.name, label) if reader.takes_fmt else (label,)
    return run_reader(source, reader, reader.read, args)


def run_reader(source, reader: Reader, fn: Callable[..., Any], args: tuple) -> Any:
    """``fn(source, *args)`` (the reader's ``read`` or ``parse``): the declared size checked first,
    in the sandbox child when the reader asks for it and ``source.sandbox`` is set."""
    from fsviz.data.budget import dense_bytes, sparse_bytes

    if reader.declared_size is not None:
        n, m, nnz = reader.declared_size(source)
        if nnz is None:
            source.check(dense_bytes(n, m), f"a dense {n:,} x {m:,} matrix (as the file declares)")
        else:
            source.check(sparse_bytes(n, m, nnz), f"a sparse {n:,} x {m:,} matrix with {nnz:,} values")
    if reader.sandbox and getattr(source, "sandbox", False):
        from fsviz.data.sandbox import ChildCrashed, child_memory_limit, run_isolated

        who = f"load_dataset: {source.label}"
        detached = source.detached()
        try:
            return run_isolated(fn, detached, *args, who=who, memory_limit=child_memory_limit(source.budget))
        except ChildCrashed as e:
            raise ValueError(
                f"{e} The file is damaged or not a {reader.description or reader.name} file. Fix: "
                "export it again from the program that wrote it."
            ) from None
    return fn(source, *args)
