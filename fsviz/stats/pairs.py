"""The strongest feature correlations: top-k pairs and every feature against one vector.

:func:`top_pairs` finds the ``k`` most correlated feature pairs exactly without ever
holding the m x m matrix: features are standardised block by block (as in
:func:`fsviz.stats.correlation_histogram`), each pair of blocks goes through one BLAS
product, and only the running top ``k`` survive a block. Spearman's rho is Pearson's
on the column ranks (average ranks for ties), ranked one block of columns at a time.
"""

from __future__ import annotations

from numbers import Integral
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.stats import rankdata

from fsviz._dask import feature_blocks
from fsviz._params import check_number
from fsviz.stats.correlation import prepare_input

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["correlations_with", "top_pairs"]

_METHODS = ("pearson", "spearman")
# |rho| equal to 12 decimals count as tied (then ordered by (i, j)), so BLAS rounding never
# reorders pairs that are equal in exact arithmetic (frequent for Spearman on tied ranks)
_TIE_DIGITS = 12
_TIE_TOL = 1e-11


def _check_method(method: Any, kind: str, who: str) -> str:
    if method not in _METHODS:
        raise ValueError(f"{who}: 'method' must be 'pearson' or 'spearman'; got {method!r}.")
    if method == "spearman" and kind == "sparse":
        raise ValueError(
            f"{who}: method='spearman' ranks every column, which densifies sparse X (the zeros get "
            "ranks too); convert X to a dense array first or use method='pearson'."
        )
    return method


def _columns(kind: str, data: Any, s: int, e: int) -> np.ndarray:
    """Columns s:e of the prepared data as a dense float64 (n, e - s) array."""
    if kind == "sparse":
        return data[:, s:e].toarray()
    return np.asarray(data.read_columns(s, e), dtype=np.float64)


def _standardise(B: np.ndarray, method: str) -> tuple[np.ndarray, np.ndarray]:
    """Centred, unit-norm columns (ranks first for Spearman) and a mask of constant columns."""
    if method == "spearman":
        B = rankdata(B, axis=0)
    Z = B - B.mean(axis=0)
    norm = np.sqrt(np.einsum("ij,ij->j", Z, Z))
    const = norm <= 1e-12 * np.maximum(np.abs(B).max(axis=0, initial=0.0), 1.0) * np.sqrt(B.shape[0])
    Z /= np.where(const, 1.0, norm)
    Z[:, const] = 0.0
    return Z, const


def top_pairs(
    X: Any,
    k: int = 50,
    *,
    method: str = "pearson",
    block_size: int = 2048,
) -> pd.DataFrame:
    """The ``k`` feature pairs with the largest |correlation|, exactly, in bounded memory.

    Parameters
    ----------
    X : {array-like, sparse matrix, dask array, zarr array, ChunkedSource, path}
        Of shape (n_samples, n_features). Sparse input is read one block of columns at a
        time (``block_size`` dense columns); an fsviz ``Dataset`` is accepted too.
    k : int, default=50
        Number of pairs (fewer when X has fewer non-constant pairs).
    method : {"pearson", "spearman"}, default="pearson"
        Spearman's rho is Pearson's rho of the column ranks (ties get average ranks);
        it is refused for sparse X (ranking densifies it).
    block_size : int, default=2048
        Features per block: peak extra memory about ``2 * block_size * n_samples * 8``
        bytes plus ``block_size**2 * 8`` for one product block.

    Returns
    -------
    pandas.DataFrame
        Columns ``i``, ``j`` (feature indices, i < j) and ``rho`` (signed), sorted by
        decreasing |rho|, ties (equal to 12 decimals) by (i, j). Constant features have no correlation and are
        never listed.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(60, 6)); X[:, 5] = 3 * X[:, 1] - 2
    >>> top_pairs(X, k=1)[["i", "j"]].values.tolist()
    [[1, 5]]
    """
    import pandas as pd

    who = "top_pairs"
    if isinstance(k, bool) or not isinstance(k, Integral) or k < 1:
        raise ValueError(f"{who}: 'k' must be a positive int; got {k!r}.")
    block_size = check_number(who, "block_size", block_size, integer=True, low=1)
    kind, data = prepare_input(X, who)
    method = _check_method(method, kind, who)
    m = data.shape[1]
    blocks = feature_blocks(m, block_size)
    best_i, best_j, best_r = np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0)
    cut = -1.0  # |rho| of the current k-th pair once k are known
    for bi, si in enumerate(blocks):
        Zi, ci = _standardise(_columns(kind, data, si.start, si.stop), method)
        for sj in blocks[bi:]:
            Zj, cj = (Zi, ci) if sj == si else _standardise(_columns(kind, data, sj.start, sj.stop), method)
            G = Zi.T @ Zj
            A = np.abs(G)
            A[ci, :] = -1.0
            A[:, cj] = -1.0
            if sj == si:
                A[np.tril_indices(A.shape[0])] = -1.0
            flat = A.ravel()
            thr = cut
            if flat.size > k:
                thr = max(thr, float(np.partition(flat, flat.size - k)[flat.size - k]))
            r_, c_ = np.nonzero((A >= thr - _TIE_TOL) & (A >= 0))
            if r_.size == 0:
                continue
            ii = np.concatenate([best_i, r_ + si.start])
            jj = np.concatenate([best_j, c_ + sj.start])
            rr = np.concatenate([best_r, np.clip(G[r_, c_], -1.0, 1.0)])
            keep = np.lexsort((jj, ii, -np.round(np.abs(rr), _TIE_DIGITS)))[:k]
            best_i, best_j, best_r = ii[keep], jj[keep], rr[keep]
            if best_r.size == k:
                cut = float(np.abs(best_r[-1]))
    return pd.DataFrame({"i": best_i, "j": best_j, "rho": best_r})


def _target_vector(X: Any, kind: str, data: Any, target: Any, who: str) -> tuple[np.ndarray, int | None]:
    """The vector to correlate with, and the column index when ``target`` names a feature."""
    n, m = data.shape
    if isinstance(target, Integral) and not isinstance(target, bool):
        t = int(target)
        if not 0 <= t < m:
            raise ValueError(f"{who}: feature index 'target' must lie in [0, {m}); got {t}.")
        return _columns(kind, data, t, t + 1)[:, 0], t
    v = np.asarray(target)
    if v.ndim != 1 or v.shape[0] != n:
        raise ValueError(
            f"{who}: 'target' must be a feature index or a vector of length n_samples={n}; "
            f"got shape {v.shape}."
        )
    if v.dtype.kind not in "biuf":
        classes, codes = np.unique(v.astype(str), return_inverse=True)
        if classes.size != 2:
            raise ValueError(
                f"{who}: a non-numeric target needs exactly 2 classes (coded 0/1, point-biserial "
                f"correlation); got {classes.size}. Use a class-aware score (Fisher, mutual "
                "information) for multi-class labels."
            )
        v = codes
    v = v.astype(np.float64)
    if not np.isfinite(v).all():
        raise ValueError(f"{who}: 'target' holds NaN or infinite values.")
    return v, None


def correlations_with(
    X: Any,
    target: int | Any,
    *,
    method: str = "pearson",
    block_size: int = 2048,
) -> np.ndarray:
    """Correlation of every feature with one feature or with a target vector.

    Parameters
    ----------
    X : {array-like, sparse matrix, dask array, zarr array, ChunkedSource, path}
        Of shape (n_samples, n_features); sparse X is never densified for Pearson.
    target : int or array-like of shape (n_samples,)
        A feature index, or a vector (e.g. the labels). A non-numeric vector with two
        classes is coded 0/1 (point-biserial correlation); more classes are refused.
    method : {"pearson", "spearman"}, default="pearson"
        Spearman (Pearson on ranks, ties averaged) is refused for sparse X.
    block_size : int, default=2048
        Dense X is read this many columns at a time.

    Returns
    -------
    ndarray of shape (n_features,)
        Signed rho of each feature with the target, in [-1, 1]; 0.0 for constant
        features (no correlation is defined; never NaN).

    Examples
    --------
    >>> X = np.array([[1.0, 2, 5], [2, 4, 5], [3, 7, 5], [4, 8, 5]])
    >>> np.round(correlations_with(X, 0), 3).tolist()
    [1.0, 0.984, 0.0]
    """
    who = "correlations_with"
    block_size = check_number(who, "block_size", block_size, integer=True, low=1)
    kind, data = prepare_input(X, who)
    method = _check_method(method, kind, who)
    v, _ = _target_vector(X, kind, data, target, who)
    z, const = _standardise(v[:, None], method)
    if const[0]:
        raise ValueError(f"{who}: the target is constant; no correlation is defined.")
    z = z[:, 0]
    m = data.shape[1]
    if kind == "sparse":
        from fsviz.stats.moments import column_moments

        _, norm = column_moments(data)
        dot = np.asarray(data.T @ z).ravel()  # z is centred, so the column means drop out
        return np.clip(np.where(norm > 0, dot / np.where(norm > 0, norm, 1.0), 0.0), -1.0, 1.0)
    out = np.empty(m)
    for b in feature_blocks(m, block_size):
        Z, _ = _standardise(_columns(kind, data, b.start, b.stop), method)
        out[b] = Z.T @ z
    return np.clip(out, -1.0, 1.0)
