"""Stability of feature selection across data perturbations: Kuncheva, Jaccard (per feature or per
group of correlated features), frequencies."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_X_y

from fsviz._dask import map_blocks
from fsviz.evaluate._selection import as_indices, frozen_rows, select


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


def _similar_by_correlation(X, subsets: list[np.ndarray], tau: float, who: str):
    """``similar(a, b) -> bool (len(a), len(b))``: ``|rho(x_a, x_b)| >= 1 - tau`` for the features of
    the selections (their union's columns standardised once; constant features are similar to none)."""
    if hasattr(X, "X") and hasattr(X, "fingerprint"):  # an fsviz Dataset
        X = X.X
    union = np.unique(np.concatenate(subsets)) if subsets else np.zeros(0, np.int64)
    if sp.issparse(X):
        cols = sp.csc_matrix(X)[:, union].toarray().astype(np.float64)
    else:
        cols = np.asarray(np.asarray(X)[:, union], dtype=np.float64)
    if not np.isfinite(cols).all():
        raise ValueError(f"{who}: X holds NaN or infinite values; impute or drop them first.")
    Z = cols - cols.mean(axis=0)
    norm = np.sqrt(np.einsum("ij,ij->j", Z, Z))
    const = norm <= 1e-12 * (np.abs(cols.mean(axis=0)) * np.sqrt(max(cols.shape[0], 1)) + 1e-300)
    Z /= np.where(const, 1.0, norm)
    Z[:, const] = 0.0
    threshold = 1.0 - float(tau) - 1e-12  # exact duplicates stay similar at tau = 0 despite rounding

    def similar(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        za, zb = Z[:, np.searchsorted(union, a)], Z[:, np.searchsorted(union, b)]
        return np.abs(za.T @ zb) >= threshold

    return similar


def _similar_by_groups(groups: Sequence, n_features: int, who: str):
    """``similar(a, b)``: ``a`` and ``b`` lie in one of ``groups`` (features in none: only themselves)."""
    label = np.arange(n_features, dtype=np.int64) + len(groups)  # singletons after the groups
    for g, members in enumerate(groups):
        idx = np.asarray(members, dtype=np.int64).ravel()
        if idx.size and (idx.min() < 0 or idx.max() >= n_features):
            raise ValueError(
                f"{who}: group members must lie in [0, {n_features}); got min {idx.min()}, max {idx.max()}."
            )
        label[idx] = g

    def similar(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return label[a][:, None] == label[b][None, :]

    return similar


def _matched_intersections(subsets: list[np.ndarray], similar) -> np.ndarray:
    """For every pair of selections (upper triangle, row-major): ``|A & B| + MBM(A - B, B - A)``,
    MBM the size of a maximum matching of the bipartite graph whose edges join similar features."""
    from scipy.sparse.csgraph import maximum_bipartite_matching

    out = []
    for i in range(len(subsets)):
        for j in range(i + 1, len(subsets)):  # a loop over pairs of selections, not over features
            A, B = subsets[i], subsets[j]
            common = np.intersect1d(A, B).size
            a, b = np.setdiff1d(A, B), np.setdiff1d(B, A)
            extra = 0
            if a.size and b.size:
                E = similar(a, b)
                if E.any():
                    match = maximum_bipartite_matching(sp.csr_matrix(E), perm_type="column")
                    extra = int(np.count_nonzero(match >= 0))
            out.append(common + extra)
    return np.asarray(out, dtype=np.float64)


def selection_stability(
    subsets: Sequence,
    n_features: int,
    measure: str = "kuncheva",
    *,
    X=None,
    tau: float | None = None,
    groups: Sequence | None = None,
) -> float:
    """Average pairwise similarity of several selected feature sets, per feature or per group.

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
    X : {array-like, sparse matrix} of shape (n_samples, n_features) or Dataset, optional
        With ``tau``: count agreement by groups of correlated features (below).
    tau : float in [0, 1), optional
        Two different features count as the same when ``|rho| >= 1 - tau`` (GDM's tolerance:
        an affiliated feature lies within it of its support feature).
    groups : sequence of array-like of int, optional
        Instead of ``X`` and ``tau``: two different features count as the same when one of these
        groups holds both (GDM's groups, ``GroupResult.partition()``: two selections agree on a
        group when they return it through any member).

    Returns
    -------
    float
        The mean over all pairs of selections.

    Notes
    -----
    The group-level index replaces the overlap ``r = |A & B|`` by the matched overlap

    ``r_tau(A, B) = |A & B| + MBM(A - B, B - A)``,

    where MBM is the size of a maximum matching of the bipartite graph that joins a feature of
    ``A - B`` to a feature of ``B - A`` when they count as the same (``|rho| >= 1 - tau``, or
    one group). A matching pairs each feature at most once, so ``|A & B| <= r_tau <= min(|A|,
    |B|)`` and both indices keep their ranges; Kuncheva's and Jaccard's formulas are unchanged
    otherwise (``KI = (r_tau n - k^2) / (k (n - k))``, ``J = r_tau / (|A| + |B| - r_tau)``). When
    no two selected features count as the same (uncorrelated features), ``r_tau = |A & B|``
    and the group-level index equals the feature-level one; otherwise it is at least as large.
    The chance term ``k^2 / n`` is Kuncheva's, for independent features: with groups, chance
    agreement is higher, so read the group index as an upper reading (Bommert and
    Rahnenführer correct it by simulation).

    References
    ----------
    L. I. Kuncheva, "A stability index for feature selection", AIAC 2007; Kalousis et al.,
    KAIS 12(1), 2007 (Jaccard/Tanimoto). The matched overlap: L. Yu, C. Ding and S. Loscalzo,
    "Stable feature selection via dense feature groups", KDD 2008 (bipartite matching of
    correlated features); A. Bommert and J. Rahnenführer, "Adjusted measures for feature
    selection stability for data sets with similar features", LOD 2020 (the intersection
    ``|A & B| + MBM``); see also K. Sechidis et al., "On the stability of feature selection in
    the presence of feature correlations", ECML PKDD 2019.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 6)); X[:, 5] = X[:, 0] + 0.05 * rng.normal(size=100)
    >>> selection_stability([[0, 1], [5, 1]], 6, "jaccard")  # feature 0 or its copy 5
    0.3333333333333333
    >>> selection_stability([[0, 1], [5, 1]], 6, "jaccard", X=X, tau=0.1)
    1.0
    """
    who = "selection_stability"
    if measure not in ("kuncheva", "jaccard"):
        raise ValueError(f"{who}: 'measure' must be 'kuncheva' or 'jaccard'; got {measure!r}.")
    if not isinstance(n_features, Integral) or n_features < 1:
        raise ValueError(f"{who}: 'n_features' must be a positive int; got {n_features!r}.")
    if (X is None) != (tau is None):
        raise ValueError(
            f"{who}: the group-level index needs both X and tau (features with |rho| >= 1 - tau count "
            f"as the same); got {'X' if tau is None else 'tau'} alone."
        )
    if groups is not None and X is not None:
        raise ValueError(f"{who}: give either X and tau or groups, not both.")
    if tau is not None and (isinstance(tau, bool) or not isinstance(tau, Real) or not 0.0 <= tau < 1.0):
        raise ValueError(f"{who}: 'tau' must be a number in [0, 1); got {tau!r}.")
    subsets = list(subsets)
    if len(subsets) < 2:
        raise ValueError(f"{who}: needs at least two selections; got {len(subsets)}.")
    M, sizes = _membership(subsets, n_features)
    iu = np.triu_indices(len(subsets), 1)
    if X is None and groups is None:
        inter = np.asarray((M @ M.T).todense())
        r = inter[iu]
    else:
        idx = [as_indices(s, n_features, who) for s in subsets]
        if X is not None:
            shape = getattr(getattr(X, "X", X), "shape", None)
            if shape is None or len(shape) != 2 or shape[1] != n_features:
                raise ValueError(f"{who}: X must have n_features={n_features} columns; got shape {shape}.")
            similar = _similar_by_correlation(X, idx, float(tau), who)
        else:
            similar = _similar_by_groups(groups, n_features, who)
        r = _matched_intersections(idx, similar)
    if measure == "jaccard":
        union = sizes[iu[0]] + sizes[iu[1]] - r
        return float(np.mean(np.where(union > 0, r / np.maximum(union, 1), 1.0)))
    k = sizes[0]
    if np.any(sizes != k):
        raise ValueError(
            f"{who}: the Kuncheva index needs selections of equal size; got sizes "
            f"{sorted(set(sizes.tolist()))}. Truncate them to a common top-k or use measure='jaccard'."
        )
    if not 0 < k < n_features:
        raise ValueError(
            f"{who}: the Kuncheva index needs 0 < k < n_features; got k={k}, n_features={n_features}."
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
        subsets.append(select(selector, frozen_rows(X, tr), y[tr], k, "subsample_stability"))
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
    return select(select_fn, frozen_rows(X, rows), y[rows], None, "bootstrap_selections")


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
