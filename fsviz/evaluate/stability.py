"""Stability of feature selection across data perturbations: Kuncheva index and Jaccard."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.utils.validation import check_X_y

from fsviz.evaluate._selection import as_indices, select


def _membership(subsets: Sequence, n_features: int) -> tuple[sp.csr_matrix, np.ndarray]:
    rows, cols = [], []
    sizes = []
    for i, s in enumerate(subsets):
        idx = as_indices(s, n_features, "selection_stability")
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
