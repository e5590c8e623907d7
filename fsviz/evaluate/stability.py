"""Stability of feature selection across data perturbations: Kuncheva, Jaccard, frequencies."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_X_y

from fsviz._dask import map_blocks
from fsviz.evaluate._selection import as_indices, select


def _membership(
    subsets: Sequence, n_features: int, who: str = "selection_stability"
) -> tuple[sp.csr_matrix, np.ndarray]:
    rows, cols = [], []
    sizes = []
    for i, s in enumerate(subsets):
        idx = as_indices(s, n_features, who)
        rows.append(np.full(idx.shape[0], i))
        cols.append(idx)
        sizes.append(idx.shape[0])
    r = np.concatenate(rows) if rows else np.empty(0, dtype=int)
    c = np.concatenate(cols) if cols else np.empty(0, dtype=int)
    M = sp.csr_matrix((np.ones(r.shape[0]), (r, c)), shape=(len(subsets), n_features))
    return M, np.asarray(sizes)


def selection_stability(subsets: Sequence, n_features: int, measure: str = "kuncheva") -> float:
    """Average pairwise similarity of several selected feature sets.

    Parameters
    ----------
    subsets : sequence of array-like of int (or boolean masks)
        At least two selections, e.g. from runs on different subsamples.
    n_features : int
        Total number of features the selections were drawn from.
    measure : {"kuncheva", "jaccard"}, default="kuncheva"
        ``"kuncheva"``: Kuncheva's consistency index
        ``KI(A, B) = (r n - k^2) / (k (n - k))`` with ``r = |A & B|``, for sets of equal
        size ``k`` (0 < k < n); corrected for chance, in [-1, 1].
        ``"jaccard"``: ``|A & B| / |A | B|`` (1 for two empty sets), any sizes.

    Returns
    -------
    float
        The mean over all pairs of selections.

    References
    ----------
    L. I. Kuncheva, "A stability index for feature selection", AIAC 2007; Kalousis et al.,
    KAIS 12(1), 2007 (Jaccard/Tanimoto).
    """
    if measure not in ("kuncheva", "jaccard"):
        raise ValueError(f"selection_stability: 'measure' must be 'kuncheva' or 'jaccard'; got {measure!r}.")
    if not isinstance(n_features, Integral) or n_features < 1:
        raise ValueError(f"selection_stability: 'n_features' must be a positive int; got {n_features!r}.")
    subsets = list(subsets)
    if len(subsets) < 2:
        raise ValueError(f"selection_stability: needs at least two selections; got {len(subsets)}.")
    M, sizes = _membership(subsets, n_features)
    inter = np.asarray((M @ M.T).todense())
    iu = np.triu_indices(len(subsets), 1)
    r = inter[iu]
    if measure == "jaccard":
        union = sizes[iu[0]] + sizes[iu[1]] - r
        return float(np.mean(np.where(union > 0, r / np.maximum(union, 1), 1.0)))
    k = sizes[0]
    if np.any(sizes != k):
        raise ValueError(
            "selection_stability: the Kuncheva index needs selections of equal size; got sizes "
            f"{sorted(set(sizes.tolist()))}. Truncate them to a common top-k or use measure='jaccard'."
        )
    if not 0 < k < n_features:
        raise ValueError(
            f"selection_stability: the Kuncheva index needs 0 < k < n_features; got k={k}, "
            f"n_features={n_features}."
        )
    n = float(n_features)
    return float(np.mean((r * n - k * k) / (k * (n - k))))


@dataclass(frozen=True)
class StabilityResult:
    """Outcome of :func:`subsample_stability`: the index and the selections it was computed from."""

    index: float
    measure: str
    subsets: tuple


def subsample_stability(
    selector: Any,
    X,
    y,
    k: int | None = None,
    n_subsamples: int = 10,
    fraction: float = 0.8,
    measure: str = "kuncheva",
    random_state: int | None = 0,
) -> StabilityResult:
    """Run a selector on stratified random subsamples and measure how stable its choice is.

    Parameters
    ----------
    selector : estimator or callable ``f(X, y) -> indices``
        Cloned and fitted on every subsample.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    k : int, optional
        Compare the top ``k`` features of each selection (needed for scorers, and for
        Kuncheva when a subset method's sizes vary).
    n_subsamples : int, default=10
    fraction : float, default=0.8
        Share of the samples in each subsample (the SAOLA paper uses 4 of 5 folds, 0.8).
    measure : {"kuncheva", "jaccard"}, default="kuncheva"
    random_state : int or None, default=0

    Returns
    -------
    StabilityResult

    References
    ----------
    SAOLA paper, section 5.2.3 (subsamples of 4/5 of the samples, repeated).
    """
    X, y = check_X_y(X, y, accept_sparse=("csr", "csc"), dtype=np.float64)
    if not isinstance(n_subsamples, Integral) or n_subsamples < 2:
        raise ValueError(f"subsample_stability: 'n_subsamples' must be an int >= 2; got {n_subsamples!r}.")
    if not 0.0 < fraction < 1.0:
        raise ValueError(f"subsample_stability: 'fraction' must be in (0, 1); got {fraction!r}.")
    sss = StratifiedShuffleSplit(n_splits=n_subsamples, train_size=fraction, random_state=random_state)
    subsets = []
    for tr, _ in sss.split(np.zeros(X.shape[0]), y):
        subsets.append(select(selector, X[tr], y[tr], k, "subsample_stability"))
    return StabilityResult(selection_stability(subsets, X.shape[1], measure), measure, tuple(subsets))


def bootstrap_selections(
    select_fn: Callable[[Any, np.ndarray], Any],
    X,
    y,
    n_boot: int = 20,
    random_state: int | None = 0,
    *,
    client: Any = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[np.ndarray]:
    """Run a selection on bootstrap resamples of the rows and collect the chosen features.

    Parameters
    ----------
    select_fn : callable ``select_fn(X_b, y_b) -> indices``
        Returns the selected feature indices (or a boolean mask) for one resample.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    n_boot : int, default=20
        Number of resamples (>= 2).
    random_state : int or None, default=0
        Seed of the resampling (converted once with ``check_random_state``).
    client : dask.distributed.Client, default=None
        Run the resamples on this cluster (one task each; ``X``, ``y`` and ``select_fn``
        are sent once; ``select_fn`` must then pickle, e.g. a module-level function or a
        :func:`fsviz.compute.fold_selector`). The resamples are drawn here, so the result
        is the same as without it.
    progress : callable, default=None
        ``progress(resamples_done, n_boot)`` after each resample.

    Returns
    -------
    list of ndarray of int
        One array of feature indices per resample: the input of
        :func:`selection_frequency`, :func:`group_frequency` and
        :func:`selection_stability` (``measure="jaccard"`` when the sizes vary).

    Examples
    --------
    >>> X = np.arange(20.0).reshape(10, 2); y = np.arange(10) % 2
    >>> subsets = bootstrap_selections(lambda Xb, yb: [0], X, y, n_boot=3)
    >>> [s.tolist() for s in subsets]
    [[0], [0], [0]]
    """
    if not callable(select_fn):
        raise ValueError(
            f"bootstrap_selections: 'select_fn' must be a callable f(X, y) -> indices; "
            f"got {type(select_fn).__name__}."
        )
    if isinstance(n_boot, bool) or not isinstance(n_boot, Integral) or n_boot < 2:
        raise ValueError(f"bootstrap_selections: 'n_boot' must be an int >= 2; got {n_boot!r}.")
    X, y = check_X_y(X, y, accept_sparse=("csr", "csc"), dtype=None)
    rng = check_random_state(random_state)
    n = X.shape[0]
    rows = rng.randint(0, n, size=(int(n_boot), n))
    return map_blocks(_resample, list(rows), client=client, shared=(X, y, select_fn), progress=progress)


def _resample(rows, X, y, select_fn) -> np.ndarray:
    """The selection on one bootstrap resample (module level: a Dask task)."""
    return select(select_fn, X[rows], y[rows], None, "bootstrap_selections")


def selection_frequency(subsets: Sequence, n_features: int) -> np.ndarray:
    """Fraction of the selections that contain each feature.

    Parameters
    ----------
    subsets : sequence of array-like of int (or boolean masks)
        E.g. from :func:`bootstrap_selections`; at least one.
    n_features : int

    Returns
    -------
    ndarray of shape (n_features,)
        Values in [0, 1].

    Examples
    --------
    >>> selection_frequency([[0, 1], [1, 2], [1, 3], [1, 0]], 5).tolist()
    [0.5, 1.0, 0.25, 0.25, 0.0]
    """
    subsets = list(subsets)
    if not isinstance(n_features, Integral) or n_features < 1:
        raise ValueError(f"selection_frequency: 'n_features' must be a positive int; got {n_features!r}.")
    if not subsets:
        raise ValueError("selection_frequency: needs at least one selection; got 0.")
    M, _ = _membership(subsets, n_features, "selection_frequency")
    return np.asarray(M.sum(axis=0), dtype=np.float64).ravel() / len(subsets)


def group_frequency(subsets: Sequence, groups: Sequence, n_features: int | None = None) -> np.ndarray:
    """Per feature group: fraction of the selections that pick at least one of its members.

    A group-aware stability view: GDM's groups are interchangeable correlated features,
    so a selection that swaps a support feature for one of its affiliated features still
    "selects the group".

    Parameters
    ----------
    subsets : sequence of array-like of int (or boolean masks)
    groups : sequence of array-like of int
        Member indices of each group (e.g. ``[support[g], *afs of g]``, or
        ``GroupResult.partition()``). A feature may belong to several groups.
    n_features : int, default=None
        Total number of features; by default ``1 + `` the largest index seen.

    Returns
    -------
    ndarray of shape (n_groups,)
        Values in [0, 1]; 0 for an empty group.

    Examples
    --------
    >>> group_frequency([[0], [2], [4]], [[0, 1, 2], [3, 4], [5]]).tolist()
    [0.6666666666666666, 0.3333333333333333, 0.0]
    """
    subsets = list(subsets)
    groups = [np.asarray(g, dtype=np.int64).ravel() for g in groups]
    if not subsets:
        raise ValueError("group_frequency: needs at least one selection; got 0.")
    if n_features is None:
        tops = [int(g.max()) for g in groups if g.size] + [
            int(np.max(np.flatnonzero(a) if np.asarray(a).dtype == bool else a))
            for a in subsets
            if np.asarray(a).size
        ]
        n_features = 1 + max(tops, default=0)
    M, _ = _membership(subsets, n_features, "group_frequency")  # (n_subsets, n_features)
    cols = np.concatenate(groups) if groups else np.zeros(0, np.int64)
    if cols.size and (cols.min() < 0 or cols.max() >= n_features):
        raise ValueError(
            f"group_frequency: group members must lie in [0, {n_features}); got min {cols.min()}, "
            f"max {cols.max()}."
        )
    rows = np.repeat(np.arange(len(groups)), [g.size for g in groups])
    G = sp.csr_matrix((np.ones(cols.size), (cols, rows)), shape=(n_features, len(groups)))
    hits = np.asarray((M @ G).todense()) > 0  # (n_subsets, n_groups): any member selected
    return hits.mean(axis=0)
