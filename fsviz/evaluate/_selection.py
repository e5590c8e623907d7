"""Turn whatever the caller passes (indices, mask, callable, estimator) into feature indices."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import clone


def is_fixed_selection(sel: Any) -> bool:
    """True for a precomputed selection: an array-like of indices or a boolean mask."""
    if hasattr(sel, "fit") or callable(sel):
        return False
    a = np.asarray(sel)
    return a.ndim == 1 and (a.size == 0 or a.dtype.kind in "biu")


def as_indices(sel, n_features: int, name: str) -> np.ndarray:
    """Indices from an index array or a boolean mask, checked against ``n_features``."""
    a = np.asarray(sel)
    if a.ndim != 1:
        raise ValueError(
            f"{name}: a selection must be a 1-D array of feature indices or a boolean mask; "
            f"got shape {a.shape}."
        )
    if a.dtype.kind == "b":
        if a.shape[0] != n_features:
            raise ValueError(
                f"{name}: boolean mask has {a.shape[0]} entries but X has {n_features} features."
            )
        return np.flatnonzero(a)
    if a.size and a.dtype.kind not in "iu":
        raise ValueError(f"{name}: feature indices must be integers; got dtype {a.dtype}.")
    a = a.astype(np.int64)
    if a.size and (a.min() < 0 or a.max() >= n_features):
        raise ValueError(
            f"{name}: feature indices must lie in [0, {n_features}); got min {a.min()}, max {a.max()}."
        )
    if np.unique(a).shape[0] != a.shape[0]:
        raise ValueError(
            f"{name}: feature indices must not repeat; got {a.shape[0]} indices, "
            f"{np.unique(a).shape[0]} distinct."
        )
    return a


def fitted_indices(est, k: int | None, name: str) -> np.ndarray:
    """Indices chosen by a fitted selector, truncated to ``k`` when given.

    Subset methods (``selected_``) keep their order, or, when they have more than ``k``
    features and a ``scores_``, the ``k`` highest scores among them (SAOLA paper,
    section 3.4.3); GDM-like (``support_``) keep the first ``k``; pure scorers
    (``scores_``) give the top ``k`` by score (stable ties).
    """
    if hasattr(est, "selected_"):
        idx = np.asarray(est.selected_, dtype=np.int64)
        if k is not None and idx.shape[0] > k:
            if hasattr(est, "scores_"):
                s = np.asarray(est.scores_)[idx]
                idx = idx[np.argsort(-s, kind="stable")]
            idx = idx[:k]
        return idx
    if hasattr(est, "support_"):
        idx = np.asarray(est.support_, dtype=np.int64)
        return idx if k is None else idx[:k]
    if hasattr(est, "scores_"):
        if k is None:
            raise ValueError(
                f"{name}: 'k' is required when the selector only scores features "
                f"({type(est).__name__} has scores_ but no selected_); pass k=20 for example."
            )
        return np.argsort(-np.asarray(est.scores_), kind="stable")[:k].astype(np.int64)
    if hasattr(est, "get_support"):
        idx = est.get_support(indices=True).astype(np.int64)
        return idx if k is None else idx[:k]
    raise ValueError(
        f"{name}: cannot read a selection from {type(est).__name__}: it has none of selected_, "
        "support_, scores_ or get_support()."
    )


def frozen_rows(X, rows):
    """``X[rows]`` (a fresh copy of a dense matrix) made read-only: a selector that wraps it in a
    Dataset then takes it as it is instead of copying it again (at 300 x 100,000 each fold or
    resample held two copies of 180-230 MiB)."""
    out = X[rows]
    if isinstance(out, np.ndarray) and out.flags.owndata:
        out.setflags(write=False)
    return out


def select(sel, X, y, k: int | None, name: str) -> np.ndarray:
    """Run a selector (estimator or callable ``f(X, y) -> indices``) on (X, y)."""
    if hasattr(sel, "fit"):
        est = clone(sel)
        est.fit(X, y)
        return fitted_indices(est, k, name)
    if callable(sel):
        idx = as_indices(sel(X, y), X.shape[1], name)
        return idx if k is None else idx[:k]
    raise ValueError(
        f"{name}: expected a selector with fit(), a callable f(X, y) -> indices, or an array of "
        f"indices; got {type(sel).__name__}."
    )
