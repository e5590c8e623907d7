"""Target leakage: features that predict the labels perfectly on their own (:func:`leaky_features`)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from numbers import Integral
from typing import Any

import numpy as np
import scipy.sparse as sp

from fsviz.data.validation import DataWarning

__all__ = ["leaky_features"]


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
    label, any recoding of it, and identifiers sorted by class. That is the same as every
    class's values lying in a range of their own (no two classes' ranges meet), which one
    pass of per-class minima and maxima tells, a block of columns at a time (no loop over
    features, no sort: at 300 x 100,000 about 0.1 s a target).

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
        Columns checked together (peak extra memory about ``2 * block_size * n * 8`` bytes).

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
    rows = [np.flatnonzero(codes == c) for c in range(n_classes)]
    for s in range(0, m_check, int(block_size)):
        e = min(s + int(block_size), m_check)
        B = Xc[:, s:e].toarray() if sp.issparse(Xc) else np.asarray(Xc[:, s:e], dtype=np.float64)
        for c in np.flatnonzero(_separated(B, rows)):  # only the (few) leaky columns
            j = s + int(c)
            name = str(feature_names[j]) if feature_names is not None else f"f{j}"
            col = B[:, c]
            order = np.argsort(col, kind="stable")
            n_values = int(np.unique(col).size)
            out.append((j, name, _why(col[order], codes[order], n_classes, class_names, n_values)))
    return out


def _separated(B: np.ndarray, rows: list[np.ndarray]) -> np.ndarray:
    """Which columns of ``B`` put each class (its ``rows``) in a value range of its own: sorted,
    the values then fall into one run per class with no value shared by two classes, which is
    the rule. One pass of per-class minima and maxima, no sort of any column (sorting 100,000
    columns took 1.3 s, and keeping the sorts for the next target 63 MB)."""
    lo = np.stack([B[r].min(axis=0) for r in rows])
    hi = np.stack([B[r].max(axis=0) for r in rows])
    order = np.argsort(lo, axis=0, kind="stable")
    lo, hi = np.take_along_axis(lo, order, axis=0), np.take_along_axis(hi, order, axis=0)
    # strictly apart: a value two classes share is a tie across them, never a rule
    return np.isfinite(B).all(axis=0) & (hi[:-1] < lo[1:]).all(axis=0)
