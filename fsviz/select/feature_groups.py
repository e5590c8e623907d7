"""Feature groups and trees for the structured lasso (:mod:`.structured`): index groups checked
against the data, disjoint partitions, group weights, a feature tree from hierarchical
clustering (:func:`feature_tree`) and GDM's groups as a partition (:func:`gdm_groups`).

References
----------
Liu & Ye (2010), "Moreau-Yosida Regularization for Grouped Tree Structure Learning", NIPS
(index trees); Li et al. (2017), section 3.2 (tree-guided group lasso).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from fsviz.select._base import blas_limits

__all__ = ["Tree", "as_index_groups", "feature_tree", "gdm_groups", "group_weights", "partition"]


class Tree:
    """Nodes in compressed form, leaves-to-root, with their weights (see the kernels module)."""

    def __init__(self, groups: list[np.ndarray], weights: np.ndarray):
        sizes = np.array([g.size for g in groups], dtype=np.int64)
        self.indptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.indices = (np.concatenate(groups) if groups else np.zeros(0)).astype(np.int64)
        self.weights = np.ascontiguousarray(weights, dtype=np.float64)
        self.groups = groups


def as_index_groups(owner: str, groups, m: int) -> list[np.ndarray]:
    """A list of index arrays from a list of index sequences or one label per feature."""
    if groups is None:
        return []
    if isinstance(groups, np.ndarray) and groups.ndim == 1 and groups.dtype != object:
        labels = groups
    elif (
        isinstance(groups, Sequence | np.ndarray) and len(groups) > 0 and all(np.ndim(g) == 0 for g in groups)
    ):
        labels = np.asarray(groups)
    else:
        labels = None
    if labels is not None:
        if labels.shape[0] != m:
            raise ValueError(
                f"{owner}: 'groups' given as one label per feature must have n_features = {m} labels; "
                f"got {labels.shape[0]}."
            )
        _, codes = np.unique(labels, return_inverse=True)
        order = np.argsort(codes, kind="stable")
        bounds = np.flatnonzero(np.diff(codes[order])) + 1
        return [np.asarray(g, dtype=np.int64) for g in np.split(order, bounds)]
    out = []
    for i, g in enumerate(groups):
        a = np.asarray(g)
        if a.ndim != 1 or a.size == 0 or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(
                f"{owner}: each group must be a non-empty 1-D array of feature indices; group {i} is {g!r}."
            )
        if a.min() < 0 or a.max() >= m:
            raise ValueError(
                f"{owner}: group {i} has feature index {int(a.min() if a.min() < 0 else a.max())}, "
                f"outside [0, {m - 1}] (X has {m} features)."
            )
        out.append(np.unique(a).astype(np.int64))
    return out


def partition(owner: str, groups, m: int) -> list[np.ndarray]:
    """Disjoint groups covering every feature (features in no group become singletons)."""
    gs = as_index_groups(owner, groups, m)
    count = np.zeros(m, dtype=np.int64)
    for g in gs:
        count[g] += 1
    if gs and count.max() > 1:
        j = int(np.argmax(count))
        raise ValueError(
            f"{owner}: groups must not overlap; feature {j} is in {int(count[j])} groups "
            "(use TreeLasso for nested groups)."
        )
    rest = np.flatnonzero(count == 0)
    return gs + [np.array([j], dtype=np.int64) for j in rest]


def group_weights(owner: str, groups: list[np.ndarray], weights, name: str = "group_weights") -> np.ndarray:
    sizes = np.array([g.size for g in groups], dtype=np.float64)
    if weights is None or (isinstance(weights, str) and weights == "sqrt"):
        return np.sqrt(sizes)
    if isinstance(weights, str) and weights == "ones":
        return np.ones(sizes.size)
    w = np.asarray(weights, dtype=np.float64).ravel()
    if w.shape[0] != len(groups) or not np.all(np.isfinite(w)) or w.min(initial=0.0) < 0:
        raise ValueError(
            f"{owner}: {name!r} must be 'sqrt', 'ones' or {len(groups)} finite non-negative "
            f"weights (one per group); got {weights!r}."
        )
    return w


def feature_tree(
    X, *, heights=(0.2, 0.5, 0.8), method: str = "average", max_features: int = 10000
) -> list[np.ndarray]:
    """A tree of nested feature groups from a hierarchical clustering of the features.

    The features are clustered by the distance ``1 - |rho|`` (Pearson correlation) with
    scipy's ``linkage``; cutting the dendrogram at each height gives a partition, and
    partitions at increasing heights are nested. Every cluster with at least two features
    is one node (a cluster repeated at several heights once), ordered leaves to root.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    heights : sequence of float in (0, 1], default=(0.2, 0.5, 0.8)
        Cut heights on the ``1 - |rho|`` scale, one tree level each.
    method : {"average", "complete", "single"}, default="average"
        Linkage (monotone, so the cuts nest).
    max_features : int, default=10000
        The clustering needs the ``n_features (n_features - 1) / 2`` correlations in
        memory; above this many features pass a tree of your own instead.

    Returns
    -------
    tree : list of ndarray
        Nested-or-disjoint index groups, children before parents (ready for
        :class:`TreeLasso`).

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import feature_tree
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(50, 1))
    >>> X = np.hstack([z + 0.1 * rng.normal(size=(50, 3)), rng.normal(size=(50, 2))])
    >>> [g.tolist() for g in feature_tree(X, heights=(0.3,))]
    [[0, 1, 2]]
    """
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import squareform

    if method not in ("average", "complete", "single"):
        raise ValueError(f"feature_tree: 'method' must be 'average', 'complete' or 'single'; got {method!r}.")
    hs = np.asarray(heights, dtype=np.float64).ravel()
    if hs.size == 0 or not np.all((hs > 0) & (hs <= 1)):
        raise ValueError(f"feature_tree: 'heights' must be floats in (0, 1]; got {heights!r}.")
    if sp.issparse(X):
        X = sp.csc_matrix(X, dtype=np.float64)
    else:
        X = np.asarray(X, dtype=np.float64)
    n, m = X.shape
    if m > max_features:
        raise ValueError(
            f"feature_tree: the clustering holds all {m * (m - 1) // 2:,} feature correlations in memory; "
            f"'max_features' is {max_features} and X has {m} features. Pass a tree of your own "
            "(e.g. GDM groups) or raise 'max_features'."
        )
    if m < 2:
        return []
    if sp.issparse(X):
        mu = np.asarray(X.mean(axis=0)).ravel()
        C = (X.T @ X).toarray() - n * np.outer(mu, mu)
    else:
        Z = X - X.mean(axis=0)
        with blas_limits():
            C = Z.T @ Z
    sd = np.sqrt(np.maximum(np.diag(C), 0.0))
    sd[sd == 0] = np.inf  # constant features: correlation 0 with everything
    R = np.abs(C / sd[:, None] / sd[None, :])
    D = np.clip(1.0 - R, 0.0, 1.0)
    np.fill_diagonal(D, 0.0)
    Lk = linkage(squareform(D, checks=False), method=method)
    nodes: list[np.ndarray] = []
    seen: set[tuple[int, ...]] = set()
    for h in np.sort(hs):
        lab = fcluster(Lk, t=h, criterion="distance")
        order = np.argsort(lab, kind="stable")
        bounds = np.flatnonzero(np.diff(lab[order])) + 1
        for g in np.split(order, bounds):
            key = tuple(np.sort(g).tolist())
            if len(key) >= 2 and key not in seen:
                seen.add(key)
                nodes.append(np.array(key, dtype=np.int64))
    nodes.sort(key=len)  # stable: a child (strict subset) is always smaller than its parent
    return nodes


def gdm_groups(gdm) -> list[np.ndarray]:
    """GDM's groups as prior groups: each support feature with its affiliated features.

    Parameters
    ----------
    gdm : fitted :class:`fsviz.select.GDM`

    Returns
    -------
    groups : list of ndarray
        ``[sf, *afs]`` per support feature, in the order found; other features belong to
        no group (the group selectors make them singletons).
    """
    check_is_fitted(gdm, "groups_")
    return [np.concatenate([[int(sf)], np.asarray(af, dtype=np.int64)]) for sf, af in gdm.groups_.items()]
