"""What stands in for a feature a selection left out: its most correlated selected feature.

For every feature outside a selection of ``k`` features, :func:`stand_ins` names the selected
feature most correlated with it and that correlation. It computes one k x m correlation
block and nothing else, and never holds it whole:

* dense in-memory or out-of-core data (a ``.npy``/Parquet/zarr file, a dask array, any
  :class:`fsviz.data.chunked.ChunkedSource`): column blocks of ``block_size`` features, each
  standardised and multiplied by the k standardised selected columns in one BLAS product;
* scipy.sparse data: never densified; one numba pass over the CSC columns computes
  ``x_j . z_t / ||x_j - mean_j||`` for the k selected ``z_t`` (centred, so the column means of
  ``X`` drop out) and keeps the arg-max, so the k x m block is never stored either.

Spearman's rho is Pearson's on the ranks (ties averaged). For sparse data the ranks keep the
sparsity: the zeros of a column share one rank, so the ranked column is that rank plus a
sparse column with the pattern of ``X``, and the constant drops out of the correlation.
Symmetric uncertainty (``measure="su"``) codes the features as fsviz's information-theoretic
selectors do (:func:`fsviz.stats.discretize`: the raw levels of integer data with few levels,
else ``n_bins`` equal-width bins), decided once for the whole matrix.
"""

from __future__ import annotations

from numbers import Integral
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp
from scipy.stats import rankdata

from fsviz._params import check_number
from fsviz.data.chunked import ArraySource
from fsviz.evaluate import _standin_kernels as K
from fsviz.evaluate._selection import as_indices
from fsviz.stats.correlation import dense_source
from fsviz.stats.information import Codes, discretize, is_discrete, su_cross
from fsviz.stats.moments import column_moments

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["MEASURES", "STAND_IN_COLUMNS", "stand_ins", "su_discrete"]

#: the correlation measures :func:`stand_ins` takes
MEASURES = ("pearson", "spearman", "su")
#: the columns of the table :func:`stand_ins` returns
STAND_IN_COLUMNS = ("feature", "stand_in", "stand_in_corr")
#: integer data with fewer levels than this is coded by its raw levels for SU (as ``is_discrete``)
_MAX_LEVELS = 32


def _data(X: Any, who: str) -> tuple[str, Any]:
    """``("sparse", csc float64)`` or ``("dense", ChunkedSource)``, validated; sparse X is
    copied only when it is not already canonical CSC float64."""
    if hasattr(X, "X") and hasattr(X, "fingerprint"):  # an fsviz Dataset
        X = X.X
    if sp.issparse(X):
        if X.ndim != 2:
            raise ValueError(f"{who}: X must be 2-D; got shape {X.shape}.")
        Xc = X.tocsc()
        if Xc.dtype != np.float64:
            Xc = Xc.astype(np.float64)
        if not Xc.has_canonical_format:
            Xc = Xc.copy()
            Xc.sum_duplicates()
        if not np.isfinite(Xc.data).all():
            raise ValueError(f"{who}: X holds NaN or infinite values; impute or drop them first.")
        kind, obj = "sparse", Xc
    else:
        kind, obj = "dense", dense_source(X, who)
    if obj.shape[0] < 2:
        raise ValueError(f"{who}: correlations need at least 2 samples; got X with shape {obj.shape}.")
    return kind, obj


def _columns(kind: str, data: Any, idx: np.ndarray) -> np.ndarray:
    """Columns ``idx`` (in that order) as a dense float64 (n, len(idx)) array."""
    if kind == "sparse":
        return data[:, idx].toarray()
    if isinstance(data, ArraySource):
        return np.asarray(data.X[:, idx], dtype=np.float64)
    out = np.empty((data.n_samples, idx.size))
    for t, j in enumerate(idx.tolist()):  # k reads of one column (k = the selection's size)
        out[:, t] = data.read_columns(j, j + 1)[:, 0]
    return out


def _blocks(kind: str, data: Any, block_size: int):
    """``(start, stop, dense block)`` over the columns."""
    if kind == "dense":
        yield from data.iter_column_blocks(block_size)
        return
    m = data.shape[1]
    for s in range(0, m, block_size):
        e = min(s + block_size, m)
        yield s, e, data[:, s:e].toarray()


def _pow2_scale(maxabs: np.ndarray) -> np.ndarray:
    """The power of two at or below each column's largest absolute value (1 for all-zero
    columns): dividing by it is exact and brings every value into [-1, 1], so the sums of
    squares of data near 1e300 (or 1e-300) neither overflow nor underflow."""
    _, exp = np.frexp(maxabs)
    return np.where(maxabs > 0, np.ldexp(1.0, exp - 1), 1.0)


def _standardised(B: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Centred, unit-norm columns (constant columns all zero) and the mask of constant columns,
    with the constant rule of :func:`fsviz.stats.moments.column_moments`. Each column is first
    divided by a power of two near its largest value (exact; correlations do not change), so
    finite data of any magnitude give finite correlations."""
    if B.size:
        B = B / _pow2_scale(np.max(np.abs(B), axis=0))
    mean, norm = column_moments(B)
    const = norm <= 0
    Z = (B - mean) / np.where(const, 1.0, norm)
    Z[:, const] = 0.0
    return Z, const


def _sparse_ranks(Xc: sp.csc_matrix) -> sp.csc_matrix:
    """A CSC matrix with the pattern of ``Xc`` (explicit zeros dropped) whose column ``j`` is
    the average ranks of ``X[:, j]`` minus the rank its zeros share: Spearman's rho between two
    columns is Pearson's rho between these. Vectorised; O(nnz log nnz)."""
    Xc = Xc.copy()
    Xc.eliminate_zeros()
    n, m = Xc.shape
    ptr = Xc.indptr.astype(np.int64)
    counts = np.diff(ptr)
    col = np.repeat(np.arange(m, dtype=np.int64), counts)
    order = np.lexsort((Xc.data, col))  # by column, then by value
    v, c = Xc.data[order], col[order]
    new = np.ones(v.size, dtype=bool)
    new[1:] = (c[1:] != c[:-1]) | (v[1:] != v[:-1])  # a run of equal values in one column
    starts = np.flatnonzero(new)
    run = np.cumsum(new) - 1
    first = starts[run] - ptr[c]  # 0-based position of the run's first value among the column's non-zeros
    last = np.append(starts[1:], v.size)[run] - ptr[c]  # one past its last
    zeros = n - counts
    negatives = np.bincount(col[Xc.data < 0], minlength=m)
    rank = (first + 1 + last) / 2.0 + np.where(v > 0, zeros[c], 0)  # average rank among all n values
    zero_rank = negatives + (zeros + 1) / 2.0
    Xc.data[order] = rank - zero_rank[c]
    return Xc


def _discrete(kind: str, data: Any, block_size: int) -> bool:
    """Whether every value is an integer and the values span fewer than 32 levels (as
    :func:`fsviz.stats.information.is_discrete`), over the whole matrix; dense data block by
    block, stopping at the first block that decides it (continuous data: the first)."""
    if kind == "sparse":
        return is_discrete(data)
    lo, hi = np.inf, -np.inf
    for _, _, B in data.iter_column_blocks(block_size):
        if not np.all(B == np.round(B)):
            return False
        if B.size:
            lo, hi = min(lo, float(B.min())), max(hi, float(B.max()))
    return bool(hi - lo < _MAX_LEVELS)


def _best_dense(kind, data, Zs: np.ndarray, block_size: int, spearman: bool, best, value, constant) -> None:
    for s, e, B in _blocks(kind, data, block_size):
        Zb, const = _standardised(rankdata(B, axis=0) if spearman else B)
        constant[s:e] = const
        if not Zs.shape[1]:  # every selected feature is constant: no correlation is defined
            continue
        G = Zs.T @ Zb  # (k, block): one BLAS product per block
        b = np.argmax(np.abs(G), axis=0)  # the first of equal |rho| wins
        best[s:e] = np.where(const, -1, b)
        value[s:e] = np.where(const, np.nan, np.clip(G[b, np.arange(e - s)], -1.0, 1.0))


def _scaled_columns(Xc: sp.csc_matrix) -> sp.csc_matrix:
    """``Xc`` with each column divided by a power of two near its largest absolute value
    (exact, see :func:`_pow2_scale`) when some value is out of the range where squares and sums
    of squares stay finite and normal; else ``Xc`` itself (no copy)."""
    if not Xc.nnz:
        return Xc
    a = np.abs(Xc.data)
    if a.max() < 1e150 and a[a > 0].min(initial=1.0) > 1e-150:
        return Xc
    counts = np.diff(Xc.indptr)
    maxabs = np.zeros(Xc.shape[1])
    has = counts > 0
    maxabs[has] = np.maximum.reduceat(a, Xc.indptr[:-1][has])
    out = Xc.copy()
    out.data = out.data / np.repeat(_pow2_scale(maxabs), counts)
    return out


def _best_sparse(Xc: sp.csc_matrix, sel: np.ndarray, best, value, constant) -> np.ndarray:
    """The sparse path; returns the selected positions that can stand in (not constant)."""
    Xc = _scaled_columns(Xc)
    _, norm = column_moments(Xc)
    constant[:] = norm <= 0
    inv = np.zeros_like(norm)
    np.divide(1.0, norm, out=inv, where=norm > 0)
    Zs, const = _standardised(Xc[:, sel].toarray())
    usable = np.flatnonzero(~const)
    if usable.size:
        Zs = np.ascontiguousarray(Zs[:, usable])
        kernel = K.sparse_best_par if float(Xc.nnz) * usable.size >= K.PARALLEL_WORK else K.sparse_best
        kernel(Xc.indptr, Xc.indices, Xc.data, Zs, inv, best, value)
    return usable


def _su_codes(B: np.ndarray, n_bins: int, strategy: str):
    """:func:`discretize` of a dense block, each column first divided by a power of two near
    its largest value for equal-width bins (exact: the same bins, without the overflow of
    ``max - min`` on data near 1e308)."""
    if strategy != "discrete" and B.size:
        B = B / _pow2_scale(np.max(np.abs(B), axis=0))
    return discretize(B, n_bins=n_bins, strategy=strategy)


def _best_su(
    kind, data, sel: np.ndarray, n_bins: int, block_size: int, discrete: bool | None, best, value, constant
) -> np.ndarray:
    """The SU path; returns the selected positions that can stand in (not constant)."""
    if discrete is None:
        discrete = _discrete(kind, data, block_size)
    strategy = "discrete" if discrete else "uniform"
    cs = _su_codes(_columns(kind, data, sel), n_bins, strategy)
    usable = np.flatnonzero(cs.k > 1)  # SU with a constant is 0 by convention, not a measure
    cs = Codes(np.asfortranarray(cs.codes[:, usable]), cs.k[usable])
    k = usable.size
    if kind == "sparse":  # dense column blocks of bounded size (as discretize itself reads sparse X)
        block_size = max(1, min(block_size, int(2**24 // max(data.shape[0], 1))))
    for s, e, B in _blocks(kind, data, block_size):
        cb = _su_codes(B, n_bins, strategy)
        const = cb.k <= 1
        constant[s:e] = const
        if not k:
            continue
        both = Codes(np.asfortranarray(np.hstack([cs.codes, cb.codes])), np.concatenate([cs.k, cb.k]))
        S = su_cross(both, np.arange(k), k + np.arange(e - s))  # (k, block)
        b = np.argmax(S, axis=0)
        best[s:e] = np.where(const, -1, b)
        value[s:e] = np.where(const, np.nan, S[b, np.arange(e - s)])
    return usable


def stand_ins(
    X: Any,
    selected: Any,
    *,
    measure: str = "pearson",
    n_bins: int = 10,
    block_size: int = 2048,
    discrete: bool | None = None,
) -> pd.DataFrame:
    """For every feature a selection left out, the selected feature most correlated with it.

    Parameters
    ----------
    X : {array-like, sparse matrix, dask array, zarr array, ChunkedSource, path} or Dataset
        Of shape (n_samples, n_features). Sparse X is never densified (SU reads dense column
        blocks of bounded size); out-of-core data are read one column block at a time.
    selected : array-like of int or boolean mask
        The selected features. Their order breaks ties: of two selected features equally
        correlated with a feature, the one listed first stands in for it.
    measure : {"pearson", "spearman", "su"}, default="pearson"
        Pearson's rho, Spearman's rho (Pearson's on average ranks), or the symmetric
        uncertainty ``SU = 2 I(x; z) / (H(x) + H(z))`` of the coded features (for discrete data,
        or to follow an information-theoretic selector: FCBF, mRMR, GDM-SU, SAOLA on discrete
        data). Pearson and Spearman pick the largest |rho| and report rho with its sign.
    n_bins : int, default=10
        Equal-width bins per feature for ``measure="su"`` on data that are not integers with
        few levels (:func:`fsviz.stats.discretize`, as fsviz's selectors code them).
    block_size : int, default=2048
        Features per column block of dense and out-of-core data (bounds the memory: about
        ``block_size * (n_samples + k) * 8`` bytes besides X).
    discrete : bool, optional
        ``measure="su"``: code the features by their raw levels (True) or by ``n_bins`` bins
        (False); None decides it from ``X`` (:func:`su_discrete`). Given when ``X`` holds some
        columns of a larger matrix, so that they are coded as the whole matrix would be.

    Returns
    -------
    pandas.DataFrame
        One row per unselected feature, in index order, with the columns ``feature``
        (index), ``stand_in`` (index of the most correlated selected feature; -1 when none is
        defined: no feature selected, the feature is constant, or every selected feature is
        constant) and ``stand_in_corr`` (its rho, or SU in [0, 1]; NaN when ``stand_in`` is
        -1). A constant selected feature never stands in: its correlation with anything is
        undefined (0/0), not 0. ``frame.attrs["measure"]`` names the measure and
        ``frame.attrs["constant"]`` the constant features (selected or not; in the measure's
        own terms: a single rank, a single code), by index (empty when nothing is selected).

    Raises
    ------
    ValueError
        An unknown measure, indices out of range or repeated, a boolean mask of the wrong
        length, fewer than 2 samples, or NaN/infinite values in X.

    Notes
    -----
    Finite values of any magnitude (up to float64's largest, near 1.8e308) give finite
    correlations: each column is divided by a power of two near its largest absolute value
    before its sums of squares are taken (exact, and the correlation does not change).

    Cost: one k x m correlation block, O(n k m) for dense data and O(nnz k) for sparse data
    (plus the ranks for Spearman, the coding for SU), in O(n (k + block_size)) memory.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(50, 4)); X[:, 3] = X[:, 0] + 0.1 * rng.normal(size=50)
    >>> t = stand_ins(X, [0, 1])
    >>> t["feature"].tolist(), t["stand_in"].tolist()
    ([2, 3], [0, 0])
    >>> round(float(t["stand_in_corr"].iloc[1]), 3)
    0.992
    """
    import pandas as pd

    who = "stand_ins"
    if measure not in MEASURES:
        raise ValueError(f"{who}: 'measure' must be one of {list(MEASURES)}; got {measure!r}.")
    if isinstance(n_bins, bool) or not isinstance(n_bins, Integral) or n_bins < 2:
        raise ValueError(f"{who}: 'n_bins' must be an int >= 2; got {n_bins!r}.")
    block_size = check_number(who, "block_size", block_size, integer=True, low=1)
    kind, data = _data(X, who)
    m = data.shape[1]
    sel = as_indices(selected, m, who)
    best = np.full(m, -1, dtype=np.int64)
    value = np.full(m, np.nan)
    constant = np.zeros(m, dtype=bool)
    usable = sel  # the selected features that can stand in: the constant ones cannot
    if sel.size:
        if measure == "su":
            usable = sel[_best_su(kind, data, sel, int(n_bins), block_size, discrete, best, value, constant)]
        elif kind == "sparse":
            ranked = _sparse_ranks(data) if measure == "spearman" else data
            usable = sel[_best_sparse(ranked, sel, best, value, constant)]
        else:
            raw = _columns(kind, data, sel)
            Zs, const = _standardised(rankdata(raw, axis=0) if measure == "spearman" else raw)
            usable = sel[~const]
            _best_dense(kind, data, Zs[:, ~const], block_size, measure == "spearman", best, value, constant)
    out = np.ones(m, dtype=bool)
    out[sel] = False
    rows = np.flatnonzero(out)
    b = best[rows]
    frame = pd.DataFrame(
        {
            "feature": rows.astype(np.int64),
            "stand_in": np.where(b >= 0, usable[np.maximum(b, 0)] if usable.size else -1, -1).astype(
                np.int64
            ),
            "stand_in_corr": value[rows],
        },
        columns=list(STAND_IN_COLUMNS),
    )
    frame.attrs["measure"] = measure
    frame.attrs["constant"] = np.flatnonzero(constant) if sel.size else np.array([], dtype=np.int64)
    return frame


def su_discrete(X: Any, *, block_size: int = 2048) -> bool:
    """Whether :func:`stand_ins` with ``measure="su"`` codes ``X`` by its raw levels.

    Parameters
    ----------
    X : {array-like, sparse matrix, dask array, zarr array, ChunkedSource, path} or Dataset
        Of shape (n_samples, n_features).
    block_size : int, default=2048
        Features per column block of dense data; the first block holding a value that is not
        an integer decides it.

    Returns
    -------
    bool
        True when every value is an integer and the values span fewer than 32 levels (as
        :func:`fsviz.stats.information.is_discrete`); else the features are binned.
    """
    block_size = check_number("su_discrete", "block_size", block_size, integer=True, low=1)
    return _discrete(*_data(X, "su_discrete"), block_size)
