"""A single ``.npy`` matrix with its labels beside it: in memory when it fits the memory
budget, else memory-mapped (nothing copied).

``expr.npy`` holds the features (2-D, numeric, samples in rows); the labels, when there are
any, are in ``expr.y.npy`` (1-D, one per sample: integers or text). When the matrix as
float64 fits the memory budget (:mod:`fsviz.data.budget`) it is read into memory (the
analyses run several times faster on it); otherwise it stays
``np.load(path, mmap_mode="r")``: a read-only ``numpy.memmap`` that the Dataset keeps as it
is, so every analysis reads it block by block from the page cache (GDM through its column
source, the correlation histogram through its column blocks) and the process holds a few
blocks, not the matrix.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from fsviz.data.dataset import Dataset

#: the labels file beside ``<stem>.npy``
LABELS_SUFFIX = ".y.npy"


def is_npy_path(path_or_buffer) -> bool:
    """True for a path (str or PathLike) ending in ``.npy`` (not a labels file)."""
    if not isinstance(path_or_buffer, (str, os.PathLike)):
        return False
    name = os.fspath(path_or_buffer).lower()
    return name.endswith(".npy")


def labels_path(path) -> Path:
    """``expr.y.npy`` for ``expr.npy``."""
    p = Path(os.fspath(path))
    return p.with_name(p.name[: -len(".npy")] + LABELS_SUFFIX)


def _check_declared(p: Path, size: int, who: str) -> None:
    """Refuse a ``.npy`` whose header declares more bytes than the file holds, before mapping it
    (a map past the end of a file is a SIGBUS on first touch, not an error)."""
    from fsviz.data.budget import format_bytes
    from fsviz.data.filetypes import open_regular

    try:
        with open_regular(p, who) as fh:
            version = np.lib.format.read_magic(fh)
            read = (
                np.lib.format.read_array_header_1_0
                if version == (1, 0)
                else np.lib.format.read_array_header_2_0
            )
            shape, _, dtype = read(fh)
            offset = fh.tell()
    except ValueError as e:
        if str(e).startswith(who):
            raise
        return  # not a .npy header numpy can read: np.load says what is wrong
    if dtype.hasobject:
        return  # np.load refuses pickled objects itself
    needed = int(np.prod(shape, dtype=object)) * dtype.itemsize
    if offset + needed > size:
        raise ValueError(
            f"{who} declares a {' x '.join(f'{d:,}' for d in shape)} {dtype} array "
            f"({format_bytes(needed)}) but holds {format_bytes(max(size - offset, 0))} after its header: "
            "it is truncated. Fix: write it again (np.save)."
        )


def load_npy(path, *, label="auto", name: str | None = None, memory_budget=None) -> Dataset:
    """The Dataset of a ``.npy`` matrix: in memory when it fits ``memory_budget``, else
    memory-mapped.

    ``label``: ``"auto"`` takes ``<stem>.y.npy`` when it exists, ``None`` loads no labels, a
    path names the labels file (``.npy``, 1-D).
    """
    from fsviz.data.budget import dense_bytes, resolve_budget
    from fsviz.data.filetypes import check_regular

    p = Path(os.fspath(path))
    who = f"load_dataset: {p.name!r}"
    size = check_regular(p, "load_dataset").st_size  # by its type, not its name: a FIFO never opens
    _check_declared(p, size, who)
    try:
        X = np.load(p, mmap_mode="r", allow_pickle=False)
    except FileNotFoundError:
        raise ValueError(f"{who} does not exist.") from None
    except (OSError, ValueError) as e:
        raise ValueError(
            f"{who} cannot be read as a .npy array ({e}). Fix: write it with np.save(path, X)."
        ) from None
    if not isinstance(X, np.memmap) or X.ndim != 2 or X.dtype.kind not in "biuf":
        raise ValueError(
            f"{who} holds an array of shape {X.shape} and dtype {X.dtype}; expected a 2-D numeric "
            "matrix (samples in rows, features in columns)."
        )
    if label == "auto":
        lab = labels_path(p)
        lab = lab if lab.is_file() else None
    elif label is None:
        lab = None
    else:
        lab = Path(os.fspath(label))
    y = None
    if lab is not None:
        check_regular(lab, who)
        try:
            y = np.load(lab, allow_pickle=False)
        except (OSError, ValueError) as e:
            raise ValueError(f"{who}: its labels file {lab.name!r} cannot be read ({e}).") from None
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise ValueError(
                f"{who}: its labels file {lab.name!r} holds shape {y.shape}; expected one label per "
                f"sample, shape ({X.shape[0]},)."
            )
    budget = resolve_budget(memory_budget)
    mapped = bool(budget) and dense_bytes(*X.shape) > budget
    if not mapped:  # block by block into float64: never the file and a second copy at once
        out = np.empty(X.shape, dtype=np.float64)
        step = max(1, (1 << 26) // max(8 * X.shape[1], 1))
        for a in range(0, X.shape[0], step):
            out[a : a + step] = X[a : a + step]
        out.setflags(write=False)  # the Dataset keeps this array as it is (no defensive copy)
        X = out
    meta = {"source": os.fspath(p), "format": "npy-mmap" if mapped else "npy"}
    if lab is not None:
        meta["labels_file"] = lab.name
    stem = p.name[: -len(".npy")]
    return Dataset(X, y=y, name=name if name is not None else stem, meta=meta)
