"""The writer registry: every file format :meth:`Dataset.save <fsviz.data.Dataset.save>` writes.

A writer is one function in its format's module (beside the reader, so that what one writes the
other reads back) and one :func:`register_writer` call. It says:

- ``name`` (what ``fmt=`` calls it), ``aliases`` and the file-name ``suffixes`` it answers to;
- ``write(dataset, path_or_buffer, **options)``: writes the dataset so that
  :func:`~fsviz.data.load_dataset` reads it back exactly (``options`` are the format's own, e.g. the
  CSV writer's ``sep`` and ``formula_safe``);
- ``feature_info``: whether the format holds ``Dataset.feature_info`` (the display names and
  descriptions from feature annotations). Saving an annotated dataset in a format that cannot
  warns (:class:`~fsviz.data.validation.DataWarning`) rather than dropping them unsaid;
- ``sparse``: whether sparse data stay sparse.

:func:`save` picks the writer by ``fmt=`` or, without it, by the file name's suffix; an unknown
name or suffix is a ValueError listing the registered writers.

Examples
--------
>>> from fsviz.data.formats import get_writer, writers
>>> [w.name for w in writers()]
['csv', 'tsv', 'parquet', 'npz', 'svmlight']
>>> get_writer("pq").name, get_writer("npz").feature_info
('parquet', True)
"""

from __future__ import annotations

import inspect
import os
import re
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fsviz.data.validation import DataWarning

if TYPE_CHECKING:
    from fsviz.data.dataset import Dataset

__all__ = [
    "Writer",
    "get_writer",
    "register_writer",
    "save",
    "unregister_writer",
    "writer_for_suffix",
    "writers",
]


@dataclass(frozen=True)
class Writer:
    """One file format fsviz writes: its names, its suffixes and how to write a Dataset in it.

    Attributes
    ----------
    name : str
        Lower-case identifier (``fmt=``); letters, digits, ``_`` and ``-``.
    write : callable ``(dataset, path_or_buffer, **options) -> None``
        Writes ``dataset`` to a path or a binary file-like object so that
        :func:`~fsviz.data.load_dataset` reads it back exactly.
    description : str
        What the format is, in words ("Parquet table").
    suffixes : tuple of str
        File-name endings (``".parquet"``), lower case; the first is the usual one.
    aliases : tuple of str
        Other names ``fmt=`` accepts.
    feature_info : bool, default=False
        The format holds ``Dataset.feature_info`` (display names, descriptions) and reads it back.
    sparse : bool, default=False
        Sparse data stay sparse (dense formats write every cell).
    """

    name: str
    write: Callable[..., Any]
    description: str = ""
    suffixes: tuple = ()
    aliases: tuple = ()
    feature_info: bool = False
    sparse: bool = False


_WRITERS: dict[str, Writer] = {}
_NAME = re.compile(r"^[a-z0-9][a-z0-9_\-]*$")
_DATA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # fsviz/data


def _outside_data() -> int:
    """The ``stacklevel`` of the first caller outside :mod:`fsviz.data`, for a warning raised by
    the function that calls this one (``Dataset.save`` and ``save_dataset`` both name the user's line)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_DATA):
        frame, level = frame.f_back, level + 1
    return level


def register_writer(writer: Writer, *, replace: bool = False) -> Writer:
    """Add ``writer`` to the registry.

    Parameters
    ----------
    writer : Writer
    replace : bool, default=False
        Replace a registered writer of the same name.

    Returns
    -------
    writer : Writer

    Raises
    ------
    ValueError
        A bad name or suffix, a ``write`` that is not callable, or a name, alias or suffix another
        writer already has (unless ``replace=True`` and it is the writer of the same name).
    """
    if not isinstance(writer, Writer):
        raise ValueError(f"register_writer: expected a Writer; got {type(writer).__name__}.")
    if not all(isinstance(n, str) and _NAME.match(n) for n in (writer.name, *writer.aliases)):
        raise ValueError(
            f"register_writer: writer name {writer.name!r} (aliases {list(writer.aliases)}) must be "
            "lower-case letters, digits, _ or -."
        )
    if not callable(writer.write) or not _takes(writer.write, None, None):
        raise ValueError(
            f"register_writer: writer {writer.name!r} needs a callable write(dataset, path_or_buffer, "
            "**options)."
        )
    bad = [s for s in writer.suffixes if not (isinstance(s, str) and s.startswith(".") and s == s.lower())]
    if bad:
        raise ValueError(f"register_writer: suffixes must be lower case and begin with '.'; got {bad}.")
    others = [w for w in _WRITERS.values() if w.name != writer.name]
    names = {n: w.name for w in others for n in (w.name, *w.aliases)}
    suffixes = {s: w.name for w in others for s in w.suffixes}
    clash = [n for n in (writer.name, *writer.aliases) if n in names]
    clash += [s for s in writer.suffixes if s in suffixes]
    if clash or (writer.name in _WRITERS and not replace):
        owners = sorted({names.get(c) or suffixes.get(c) for c in clash} or {writer.name})
        raise ValueError(
            f"register_writer: {clash or [writer.name]} already name(s) the registered writer(s) {owners}; "
            "pass replace=True to replace the writer of the same name."
        )
    _WRITERS[writer.name] = writer
    return writer


def _takes(write: Callable, *args, **options) -> bool:
    """Whether ``write`` can be called with these arguments (True when Python cannot tell)."""
    try:
        signature = inspect.signature(write)
    except (TypeError, ValueError):  # a builtin without a signature
        return True
    try:
        signature.bind(*args, **options)
    except TypeError:
        return False
    return True


def unregister_writer(name: str) -> None:
    """Remove the writer called ``name`` (a no-op when there is none)."""
    _WRITERS.pop(str(name), None)


def writers() -> tuple[Writer, ...]:
    """Every registered writer, in registration order."""
    return tuple(_WRITERS.values())


def _listing() -> str:
    return ", ".join(
        f"{w.name} ({' '.join(w.suffixes)})" if w.suffixes else w.name for w in _WRITERS.values()
    )


def get_writer(name: str) -> Writer:
    """The writer called ``name`` (or one of its aliases; a leading ``.`` is ignored).

    Raises
    ------
    ValueError
        No writer has that name; the message lists the registered ones.
    """
    key = str(name).lower().lstrip(".")
    if key in _WRITERS:
        return _WRITERS[key]
    for w in _WRITERS.values():
        if key in w.aliases or f".{key}" in w.suffixes:
            return w
    raise ValueError(
        f"save: cannot write fmt {name!r}: no writer has that name; the registered writers are {_listing()}. "
        "Fix: pass fmt= one of their names, or register a writer for it (fsviz.data.formats.register_writer)."
    )


def writer_for_suffix(filename: str) -> Writer | None:
    """The writer whose suffix ends ``filename`` (the longest match), or None."""
    low = str(filename).lower()
    best, length = None, 0
    for w in _WRITERS.values():
        for s in w.suffixes:
            if low.endswith(s) and len(s) > length:
                best, length = w, len(s)
    return best


def _file_name(path_or_buffer) -> str:
    if isinstance(path_or_buffer, (str, os.PathLike)):
        return os.fspath(path_or_buffer)
    return str(getattr(path_or_buffer, "name", "") or "")


def save(dataset: Dataset, path_or_buffer, fmt: str | None = None, **options) -> None:
    """Write ``dataset`` through the registered writer of ``fmt`` (else of the file name's suffix).

    Parameters
    ----------
    dataset : Dataset
    path_or_buffer : str, Path or binary file-like
    fmt : str, optional
        A registered writer's name or alias (:func:`writers`); from the suffix when None.
    **options
        Passed to the writer (e.g. ``formula_safe=True`` for CSV).

    Raises
    ------
    ValueError
        No writer for ``fmt`` or for the file name; the message lists the registered writers.
    """
    if fmt is not None:
        writer = get_writer(fmt)
    else:
        nm = _file_name(path_or_buffer)
        writer = writer_for_suffix(nm)
        if writer is None:
            raise ValueError(
                f"save: cannot tell the format from {nm or 'the buffer (it has no name)'!r}; the registered "
                f"writers are {_listing()}. Fix: use a file name ending in one of their suffixes, or pass "
                "fmt= one of their names."
            )
    if not _takes(writer.write, dataset, path_or_buffer, **options):
        raise ValueError(
            f"save: the {writer.name} writer takes no option(s) {sorted(options)}. Fix: leave them out "
            "(CSV and TSV take formula_safe=)."
        )
    if (dataset.meta or {}).get("feature_info") is not None and not writer.feature_info:
        shown = dataset.feature_info["display_name"]
        named = (shown != shown.index).to_numpy()
        first = [f"{i} = {d}" for i, d in zip(shown.index[named][:3], shown[named].iloc[:3], strict=True)]
        keep = [w.name for w in _WRITERS.values() if w.feature_info]
        warnings.warn(
            f"save: {writer.description or writer.name} cannot hold the feature annotations "
            f"(Dataset.feature_info: {int(named.sum())} of {len(shown)} features have a display name, e.g. "
            f"{first}); they are not "
            f"written. Fix: save as one of {keep}, which keep them, or write "
            "dataset.feature_info.to_csv(path, index_label='feature') beside it and load both with "
            "load_dataset(..., feature_annotations=path).",
            DataWarning,
            stacklevel=_outside_data(),
        )
    writer.write(dataset, path_or_buffer, **options)
