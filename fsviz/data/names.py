"""Feature names and class labels: default names, their JSON for the fingerprint, label codes."""

from __future__ import annotations

import json
from collections.abc import Iterator

import numpy as np

from fsviz.data.budget import check_memory
from fsviz.data.validation import names_preview

__all__ = ["default_feature_names", "encode_labels"]

_NAME_BYTES = 16  # one StringDType entry: names up to 15 bytes are stored inline
_HASH_NAMES_CHUNK = 1 << 20  # names per JSON chunk of the fingerprint


def names_json(names) -> Iterator[bytes]:
    """The bytes of ``json.dumps(list(names), ensure_ascii=True)``, a chunk of names at a time."""
    yield b"["
    for a in range(0, len(names), _HASH_NAMES_CHUNK):
        if a:
            yield b", "
        yield json.dumps(names[a : a + _HASH_NAMES_CHUNK].tolist(), ensure_ascii=True)[1:-1].encode("ascii")
    yield b"]"


def default_feature_names(n_features: int, *, memory_budget=None) -> np.ndarray:
    """``f0, f1, ...`` (0-based column indices) as a numpy ``StringDType`` array.

    16 bytes per name, built without a Python str per feature (kdd2010's 29.9 M names
    took 2 GB as an object array, 0.48 GB so); items and ``tolist()`` are ``str``.
    ``n_features`` is checked against the memory budget first (see
    :mod:`fsviz.data.budget`), so a file declaring 10^12 features gives a
    :class:`~fsviz.data.budget.MemoryBudgetError` instead of exhausting memory.
    """
    n = int(n_features)
    check_memory(
        _NAME_BYTES * n, f"default names for {n:,} features", memory_budget, who="default_feature_names"
    )
    return np.strings.add("f", np.arange(n).astype(np.dtypes.StringDType()))


def encode_labels(
    y, *, who: str = "Dataset", continuous: bool = False
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Normalise labels: ``(y, class_names)``.

    String (or other non-numeric) labels are encoded to ``0..k-1`` in sorted order of
    the names, and the names come back as ``class_names`` (``class_names[y[i]]`` is the
    original label). Integer-valued numbers become int64 (bools too), other reals
    stay float64 (a continuous target); ``class_names`` is then None. With
    ``continuous=True`` numbers (integers too) become float64: a count or an age
    treated as a continuous target (strings stay an error then).
    """
    if y is None:
        return None, None
    arr = np.asarray(y)
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(
            f"{who}: y must be 1-D (one label per sample); got shape {arr.shape}. "
            "Fix: pass a single label column."
        )
    kind = arr.dtype.kind
    if continuous:
        if kind not in "biuf":
            raise ValueError(
                f"{who}: a continuous target must be numeric; got dtype {arr.dtype}. Fix: treat it "
                "as classes (target kind 'classes')."
            )
        arr = arr.astype(np.float64)
        if not np.isfinite(arr).all():
            where = np.flatnonzero(~np.isfinite(arr))
            raise ValueError(
                f"{who}: y holds {len(where)} missing/non-finite label(s), at rows "
                f"{names_preview(where.tolist())}. Fix: drop those samples or fill in their labels."
            )
        return arr, None
    if kind == "b":
        return arr.astype(np.int64), None
    if kind in "iu":
        return arr.astype(np.int64), None
    if kind == "f":
        arr = arr.astype(np.float64)
        bad = ~np.isfinite(arr)
        if bad.any():
            where = np.flatnonzero(bad)
            raise ValueError(
                f"{who}: y holds {len(where)} missing/non-finite label(s), at rows "
                f"{names_preview(where.tolist())}. Fix: drop those samples or fill in their labels."
            )
        if np.all(arr == np.round(arr)) and np.all(np.abs(arr) < 2**53):
            return arr.astype(np.int64), None
        return arr, None
    if kind == "c":
        raise ValueError(f"{who}: y must be real or string labels; got complex values.")
    # strings / objects: encode, keeping the mapping
    obj = arr.astype(object)
    missing = np.array([v is None or (isinstance(v, float) and not np.isfinite(v)) for v in obj], dtype=bool)
    if missing.any():
        where = np.flatnonzero(missing)
        raise ValueError(
            f"{who}: y holds {len(where)} missing label(s), at rows {names_preview(where.tolist())}. "
            "Fix: drop those samples or fill in their labels."
        )
    as_str = np.array([str(v) for v in obj], dtype=object)
    class_names, codes = np.unique(as_str, return_inverse=True)
    return codes.astype(np.int64).ravel(), class_names.astype(object)
