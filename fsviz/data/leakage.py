"""Target leakage: features that predict the labels perfectly on their own (:func:`leaky_features`)."""

from __future__ import annotations

import contextlib
import threading
import warnings
import weakref
from collections.abc import Sequence
from numbers import Integral
from typing import Any

import numpy as np
import scipy.sparse as sp

from fsviz.data._leakage_kernels import class_runs
from fsviz.data.pages import owns_memory
from fsviz.data.validation import DataWarning

__all__ = ["leaky_features", "presort_columns"]


def _why(S: np.ndarray, Yc: np.ndarray, n_classes: int, class_names: np.ndarray, n_values: int) -> str:
    """A sentence for one leaky feature: its sorted values and classes."""
    if n_values == n_classes:
        return "takes exactly one value per class (a copy or recoding of the label)"
    cut = np.flatnonzero(Yc[1:] != Yc[:-1])
    if n_classes == 2:
        t = (S[cut[0]] + S[cut[0] + 1]) / 2
        lo, hi = class_names[Yc[0]], class_names[Yc[-1]]
        return f"the threshold {t:.4g} separates the classes with no error (below: {lo}, above: {hi})"
    return f"{n_classes - 1} thresholds split it into one interval per class with no error"


def leaky_features(
    X: Any,
    y: Any,
    feature_names: Sequence[str] | None = None,
    *,
    max_features: int = 100_000,
    block_size: int = 2048,
) -> list[tuple[int, str, str]]:
    """Features that predict the labels perfectly on their own (likely target leakage).

    A feature is reported when a 1-D rule on it classifies every sample correctly: its
    values, sorted, fall into one contiguous run per class and no value is shared by two
    classes (with two classes, one threshold separates them). That covers a copy of the
    label, any recoding of it, and identifiers sorted by class. Each column is sorted
    once and the class changes along the sorted order are counted, for a block of
    columns at a time (no loop over features); the sorts of a read-only matrix are kept
    while it lives, so another target only regroups them.

    With very few samples per class a random feature can separate them by chance;
    the rule is meant for n of at least a few dozen.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Class labels (any type), at least 2 classes.
    feature_names : sequence of str, default=None
    max_features : int, default=100_000
        Check budget: only the first ``max_features`` columns are checked; a
        :class:`~fsviz.data.DataWarning` names how many were skipped.
    block_size : int, default=2048
        Columns sorted together (peak extra memory about ``3 * block_size * n * 8`` bytes).

    Returns
    -------
    list of (int, str, str)
        ``(index, name, why)`` for each leaky feature, in column order.

    Examples
    --------
    >>> X = np.column_stack([np.arange(6.0) % 3, [5, 5, 5, 9, 9, 9]])
    >>> [(i, why.split(" (")[0]) for i, _, why in leaky_features(X, ["a"] * 3 + ["b"] * 3)]
    [(1, 'takes exactly one value per class')]
    """
    who = "leaky_features"
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"{who}: y must be 1-D; got shape {y.shape}.")
    if not sp.issparse(X):
        X = np.asarray(X)
        if X.ndim != 2 or not np.issubdtype(X.dtype, np.number):
            raise ValueError(f"{who}: X must be a 2-D numeric array; got shape {X.shape}, dtype {X.dtype}.")
    n, m = X.shape
    if y.shape[0] != n:
        raise ValueError(f"{who}: X has {n} rows but y has {y.shape[0]} labels.")
    for nm, v in (("max_features", max_features), ("block_size", block_size)):
        if isinstance(v, bool) or not isinstance(v, Integral) or v < 1:
            raise ValueError(f"{who}: '{nm}' must be a positive int; got {v!r}.")
    class_names, codes = np.unique(y.astype(str) if y.dtype == object else y, return_inverse=True)
    n_classes = class_names.size
    if n_classes < 2:
        raise ValueError(f"{who}: y needs at least 2 classes; got {n_classes}.")
    m_check = min(m, int(max_features))
    if m_check < m:
        warnings.warn(
            f"{who}: checked the first {m_check} of {m} features (max_features={max_features}); "
            f"{m - m_check} were not checked.",
            DataWarning,
            stacklevel=2,
        )
    Xc = X.tocsc() if sp.issparse(X) else X
    out: list[tuple[int, str, str]] = []
    memo = _sort_memo(Xc)
    with memo[1] if memo is not None else contextlib.nullcontext():  # a presort under way: its sorts
        for s in range(0, m_check, int(block_size)):
            e = min(s + int(block_size), m_check)
            order, packed, finite = _sorted_block(Xc, s, e, None if memo is None else memo[0])
            # a tie between two classes is a change inside a tie whatever the order among equal values
            perfect, n_values = class_runs(order, packed, codes, n_classes, finite)
            for c in np.flatnonzero(perfect):  # only the (few) leaky columns
                j = s + int(c)
                name = str(feature_names[j]) if feature_names is not None else f"f{j}"
                col = Xc[:, j].toarray().ravel() if sp.issparse(Xc) else np.asarray(Xc[:, j], np.float64)
                Yc = codes[order[c]]
                out.append((j, name, _why(col[order[c]], Yc, n_classes, class_names, int(n_values[c]))))
    return out


def _sorted_block(Xc, s: int, e: int, keep: dict | None) -> tuple:
    """``(order, packed ties, all finite)`` of columns ``s:e``, a row per column (the sort runs
    along contiguous memory; ties need no order), from ``keep`` or computed (and kept there)."""
    got = None if keep is None else keep.get((s, e))
    if got is None:
        B = (Xc[:, s:e].toarray() if sp.issparse(Xc) else np.asarray(Xc[:, s:e], dtype=np.float64)).T
        B = np.ascontiguousarray(B, dtype=np.float64)
        order = np.argsort(B, axis=1)
        S = np.take_along_axis(B, order, axis=1)
        small = order.astype(np.int16 if B.shape[1] < 32768 else np.int32)
        got = (small, np.packbits(S[:, 1:] == S[:, :-1], axis=1), np.isfinite(S).all(axis=1))
        if keep is not None:  # ties packed: 8x less to keep (3.6 MiB at 300 x 100,000)
            keep[(s, e)] = got
    return got


def presort_columns(X, max_features: int = 100_000, block_size: int = 2048) -> bool:
    """Sort the columns of a read-only dense ``X`` ahead, as :func:`leaky_features` with the same
    ``max_features`` and ``block_size`` would, and keep the sorts while ``X`` lives: the first
    target's leakage check then only regroups them (the app starts this when a wide table without
    a target is read; a check asked for meanwhile waits for it and shares its work). False (and
    nothing done) for an ``X`` whose sorts are not kept."""
    memo = _sort_memo(X)
    if memo is None:
        return False
    m = min(X.shape[1], int(max_features))
    with memo[1]:
        for s in range(0, m, int(block_size)):
            _sorted_block(X, s, min(s + int(block_size), m), memo[0])
    return True


#: id(X) -> (weak reference to X, {(first, end column): (order, ties, finite)}, its lock)
_SORTED: dict[int, tuple] = {}
_SORTED_LOCK = threading.Lock()


def _sort_memo(X) -> tuple[dict, threading.Lock] | None:
    """Where the column sorts of a read-only dense ``X`` that owns its data are kept while it
    lives, with the lock its sorting holds: they do not depend on the labels, so a new target
    (the app's leakage check on each target change) only regroups them (sorting 100,000 columns
    took 2-3 s a target). None for any other X (its values could change under the same object)."""
    if not isinstance(X, np.ndarray) or X.flags.writeable or not owns_memory(X) or X.ndim != 2:
        return None
    with _SORTED_LOCK:
        entry = _SORTED.get(id(X))
        if entry is None or entry[0]() is not X:
            entry = (weakref.ref(X), {}, threading.Lock())
            _SORTED[id(X)] = entry
            weakref.finalize(X, _SORTED.pop, id(X), None)
    return entry[1], entry[2]
