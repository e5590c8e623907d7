"""Exact all-pairs Pearson correlation histograms and thresholded pair lists.

The TPAMI GDM paper (Fig. 1) shows that in big-dimensional data almost all feature
pairs are nearly uncorrelated ("sparse correlation"). :func:`correlation_histogram`
measures that exactly, over **all** m(m-1)/2 pairs, in bounded memory:

- **dense** data (in memory, memory-mapped ``.npy``, Parquet, zarr or a dask array) is
  standardised block by block and every pair of feature blocks (``I <= J``) is multiplied
  one cache-sized tile at a time: a 256 x 256 BLAS product ``Z_I[a]^T Z_J[b]`` that stays
  in L2 is binned at once by a numba kernel (counting ``|rho| >= t`` per threshold, a
  vectorised compare) and overwritten by the next tile, on ``numba.get_num_threads()``
  Python threads with one BLAS thread each, each taking a run of tiles into one nogil numba
  call (product and binning). No product block is written to memory. With
  ``precision="float32"`` the product runs in single precision and every value whose
  rounding error bound straddles a bin threshold is recomputed in float64, so the counts
  stay those of the float64 computation.
- **sparse** data (scipy.sparse, never densified): for features i and j that never have
  a non-zero in the same sample, ``x_i . x_j = 0`` and

  .. math:: \\rho_{ij} = \\frac{-n\\,\\mu_i\\mu_j}{s_i s_j} = -a_i a_j,
            \\qquad a_j = \\sqrt{n}\\,\\mu_j / s_j,

  with ``s_j`` the centred norm. So all pairs are first counted *as if* none
  co-occurred, by sorting ``|a|`` and sweeping two pointers per bin threshold
  (O(m log m + K m)); then only the co-occurring pairs are visited (a Gustavson sparse
  ``X^T X`` restricted to the upper triangle, one feature at a time in bounded
  memory), each one moving its count from the bin of ``|a_i a_j|`` to the bin of its
  true ``|rho_ij|``. The cost is that of the co-occurrences, not of the m^2 pairs.

Counting convention (the same on every path, including the brute-force reference in the
tests): bins are ``[e_k, e_{k+1})`` with the last one closed; a value within
``edge_tol`` (default 1e-9) of an edge counts as lying on that edge. Floating-point
summation order (BLAS blocking, Dask partitioning, float32 re-checks) therefore never
moves a pair between bins, and a correlation that is exactly 0.5 in exact arithmetic is
counted in ``[0.5, 0.6)`` whatever rounding produced. Constant features have no
correlation: they are listed in ``constant_features`` and their pairs are excluded from
``n_pairs``.

Both functions accept ``client=`` (a ``dask.distributed.Client``): the blocks (dense) or
interleaved feature sets (sparse) become tasks whose integer counts are added exactly.

References
----------
.. [1] Y. Zhai, Y.-S. Ong, I. W. Tsang, "Making trillion correlations feasible in feature
   grouping and selection", IEEE TPAMI 38(12), 2016: Section 1 and Fig. 1 (sparse
   correlation: the share of feature pairs per correlation interval).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numba
import numpy as np
import scipy.sparse as sp

from fsviz._dask import feature_blocks, map_blocks, n_tasks_hint, strided_blocks
from fsviz._params import check_number
from fsviz.data.chunked import ArraySource, ChunkedSource, open_chunked
from fsviz.data.columns import is_dask_array
from fsviz.stats import _corr_kernels as K
from fsviz.stats import _hist_tiles
from fsviz.stats.moments import column_moments, source_moments

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CorrelationHistogram", "correlated_pairs", "correlation_histogram"]

DEFAULT_BINS = 20
DEFAULT_EDGE_TOL = 1e-9
_U32 = 2.0**-24


@dataclass(frozen=True)
class CorrelationHistogram:
    """Histogram of |Pearson correlation| over all pairs of non-constant features.

    Attributes
    ----------
    edges : ndarray of shape (n_bins + 1,)
        Bin edges in [0, 1]; bins are ``[edges[k], edges[k+1])``, the last one closed.
    counts : ndarray of shape (n_bins,)
        Number of pairs per bin: int64 when ``exact``, a float64 estimate otherwise.
    n_pairs : int
        ``m'(m'-1)/2`` for the ``m'`` non-constant features: what the counts refer to.
    n_features : int
        All features, constant ones included.
    constant_features : ndarray of int
        Indices of constant features (zero variance); their pairs are not counted.
    exact : bool
        True for exact counts, False for the sampled estimate.
    n_below, n_above : int or float
        Pairs with |rho| below ``edges[0]`` / above ``edges[-1]`` (0 for the default
        edges 0..1), so ``counts.sum() + n_below + n_above == n_pairs``.
    n_evaluated : int
        Pair correlations computed explicitly: all pairs (dense), the co-occurring pairs
        (sparse; the others are counted analytically), or the sampled pairs (estimate).
    method : str
        ``"dense-blas"``, ``"dense-blas-float32"``, ``"sparse-cooccurrence"`` or ``"sampled"``.
    seconds : float
        Wall time of the computation.
    edge_tol : float
        Values within this distance of an edge count as lying on the edge.
    n_rechecked : int
        float32 path only: values recomputed in float64 because they were near a threshold.
    """

    edges: np.ndarray
    counts: np.ndarray
    n_pairs: int
    n_features: int
    constant_features: np.ndarray
    exact: bool
    n_below: int | float = 0
    n_above: int | float = 0
    n_evaluated: int = 0
    method: str = ""
    seconds: float = 0.0
    edge_tol: float = DEFAULT_EDGE_TOL
    n_rechecked: int = 0

    @property
    def fractions(self) -> np.ndarray:
        """Fraction of all pairs falling in each bin (the bars of TPAMI Fig. 1)."""
        return self.counts / max(self.n_pairs, 1)

    @property
    def tail_fractions(self) -> np.ndarray:
        """Fraction of pairs with |rho| >= ``edges[k]`` for each lower edge (1 - CDF)."""
        tail = np.cumsum(self.counts[::-1])[::-1] + self.n_above
        return tail / max(self.n_pairs, 1)


# --------------------------------------------------------------------------- binning
class _Binning:
    """Edges plus the thresholds the kernels use (see ``_corr_kernels`` docstring)."""

    def __init__(self, bins: Any, edge_tol: float, who: str):
        if not (isinstance(edge_tol, (int, float)) and 0 <= edge_tol < 1e-3):
            raise ValueError(f"{who}: 'edge_tol' must be a float in [0, 1e-3); got {edge_tol!r}.")
        if isinstance(bins, (int, np.integer)) and not isinstance(bins, bool):
            if not 1 <= int(bins) <= 100_000:
                raise ValueError(f"{who}: 'bins' as an int must be in [1, 100000]; got {bins}.")
            edges = np.linspace(0.0, 1.0, int(bins) + 1)
        else:
            try:
                edges = np.asarray(bins, dtype=np.float64)
            except (TypeError, ValueError):
                raise ValueError(
                    f"{who}: 'bins' must be an int or a 1-D sequence of edges; got {bins!r}."
                ) from None
            if edges.ndim != 1 or edges.size < 2:
                raise ValueError(
                    f"{who}: 'bins' edges must be 1-D with at least 2 values; got shape {edges.shape}."
                )
            if not np.isfinite(edges).all() or edges[0] < 0 or edges[-1] > 1:
                raise ValueError(f"{who}: 'bins' edges must lie in [0, 1] (|rho| is); got {edges.tolist()}.")
            if np.any(np.diff(edges) <= 4 * edge_tol):
                raise ValueError(
                    f"{who}: 'bins' edges must be strictly increasing "
                    f"with gaps > 4*edge_tol; got {edges.tolist()}."
                )
        self.edges = edges
        self.tol = float(edge_tol)
        self.lo = np.ascontiguousarray(edges - edge_tol)
        self.hi = float(edges[-1] + edge_tol)
        k = edges.size - 1
        uniform = np.allclose(np.diff(edges), (edges[-1] - edges[0]) / k, rtol=1e-12, atol=0)
        # equal widths: kernels guess the slot arithmetically (then correct it exactly)
        self.inv_w = float(k / (edges[-1] - edges[0])) if uniform else 0.0
        # the dense tile kernels count v >= T[k]: slot #{k : v >= lo[k]}, or the last one when
        # v > hi, is the number of T[1:-1] at or below v (the smallest float above hi stands in
        # for "> hi")
        self.T = np.concatenate([[-np.inf], self.lo, [np.nextafter(self.hi, np.inf)], [np.inf]])

    @property
    def n_slots(self) -> int:
        return self.edges.size + 2

    def fold(self, slots: np.ndarray) -> tuple[np.ndarray, Any, Any]:
        """Slots (below, bins..., on-last-edge, above) -> (counts, below, above)."""
        k = self.edges.size - 1
        counts = slots[1 : k + 1].copy()
        counts[-1] += slots[k + 1]
        return counts, slots[0], slots[k + 2]


# ----------------------------------------------------------------------- input handling
def dense_source(X: Any, who: str) -> ChunkedSource:
    """A dense X (array, path, zarr, dask array or ChunkedSource) as a validated ChunkedSource."""
    if (
        isinstance(X, (ChunkedSource, str))
        or is_dask_array(X)
        or hasattr(X, "__fspath__")
        or type(X).__module__.startswith("zarr")
    ):
        return open_chunked(X)
    try:
        arr = np.asarray(X)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{who}: X must be an array-like of numbers; got {type(X).__name__}: {e}") from None
    if arr.ndim != 2:
        raise ValueError(f"{who}: X must be 2-D (n_samples, n_features); got shape {arr.shape}.")
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.number) or np.iscomplexobj(arr):
        raise ValueError(f"{who}: X must hold real numbers; got dtype {arr.dtype}.")
    if not np.isfinite(arr).all():
        raise ValueError(f"{who}: X holds NaN or infinite values; impute or drop them first.")
    return ArraySource(arr)


def prepare_input(X: Any, who: str) -> tuple[str, Any]:
    """Return ``("sparse", csc)`` or ``("dense", ChunkedSource)`` after validation."""
    if hasattr(X, "X") and hasattr(X, "fingerprint"):  # an fsviz Dataset
        X = X.X
    if sp.issparse(X):
        if X.ndim != 2:
            raise ValueError(f"{who}: X must be 2-D; got shape {X.shape}.")
        Xc = sp.csc_matrix(X, dtype=np.float64, copy=True)
        Xc.sum_duplicates()
        Xc.sort_indices()
        if not np.isfinite(Xc.data).all():
            raise ValueError(f"{who}: X holds NaN or infinite values; impute or drop them first.")
        kind, obj = "sparse", Xc
    else:
        kind, obj = "dense", dense_source(X, who)
    n = obj.shape[0]
    if n < 2:
        raise ValueError(f"{who}: correlations need at least 2 samples; got X with shape {obj.shape}.")
    return kind, obj


class _Stats:
    """Per-feature quantities shared by all tasks (picklable, small)."""

    def __init__(self, mean: np.ndarray, norm: np.ndarray, n: int):
        self.n = int(n)
        self.mean = np.ascontiguousarray(mean, dtype=np.float64)
        self.valid = norm > 0
        self.inv_s = np.zeros_like(self.mean)
        self.inv_s[self.valid] = 1.0 / norm[self.valid]
        self.a = np.sqrt(float(n)) * self.mean * self.inv_s  # analytic rho of disjoint pairs = -a_i a_j
        self.b = np.abs(self.a)
        self.constant = np.flatnonzero(~self.valid)
        mv = int(self.valid.sum())
        self.n_pairs = mv * (mv - 1) // 2


# --------------------------------------------------------------------------- dense path
def _dense_tasks(m: int, block_size: int, client: Any) -> list[list[tuple[int, int]]]:
    blocks = feature_blocks(m, block_size)
    nb = len(blocks)
    pairs = [(bi, bj) for bi in range(nb) for bj in range(bi, nb)]
    ntask = nb if client is None else max(nb, n_tasks_hint(client))
    ntask = max(1, min(ntask, len(pairs)))
    bounds = np.linspace(0, len(pairs), ntask + 1).astype(int)
    return [pairs[bounds[t] : bounds[t + 1]] for t in range(ntask) if bounds[t + 1] > bounds[t]]


def _load_z(src: ChunkedSource, bi: int, block_size: int, st: _Stats, precision: str) -> tuple:
    """Block bi standardised, a feature per row: global indices of its valid features,
    ``Z`` (w, n) float64 C-ordered, and for ``precision="float32"`` its float32 copy."""
    s = bi * block_size
    e = min(s + block_size, src.n_features)
    v = st.valid[s:e]
    B = src.read_columns(s, e)
    if not v.all():
        B = B[:, v]
    Z = np.empty((B.shape[1], B.shape[0]))
    np.subtract(B.T, st.mean[s:e][v, None], out=Z)
    Z *= st.inv_s[s:e][v, None]
    return np.arange(s, e)[v], Z, Z.astype(np.float32) if precision == "float32" else None


#: standardised blocks kept for reuse by the dense path, in bytes (float64 and float32 copies);
#: beyond it a task keeps block bi and one other. Every block pair but a block's first needs a
#: block loaded: 61 loads for m = 20,000 (10 blocks), 7 % of the CPU time at n = 50, serial.
Z_CACHE_BYTES = 64 * 2**20


class _ZCache:
    """Standardised blocks by index, within ``budget`` bytes (besides the two in use)."""

    def __init__(self, budget: int | None = None):
        self.budget = Z_CACHE_BYTES if budget is None else budget
        self.blocks: dict[int, tuple] = {}

    def get(self, key, keep, src, st, block_size, precision) -> tuple:
        if key not in self.blocks:
            z = _load_z(src, key, block_size, st, precision)
            size = sum(a.nbytes for a in z[1:] if a is not None)
            used = sum(a.nbytes for b in self.blocks.values() for a in b[1:] if a is not None)
            for old in [k for k in self.blocks if k != keep]:  # oldest first
                if used + size <= self.budget:
                    break
                used -= sum(a.nbytes for a in self.blocks.pop(old)[1:] if a is not None)
            self.blocks[key] = z
        return self.blocks[key]


def _block_pairs(pairs, src, st, block_size, precision, cache=None):
    """``(idx_i, Zi, Zi32, idx_j, Zj, Zj32, diag)`` for each block pair with features on both
    sides, loading each block when first needed (kept in ``cache``, a :class:`_ZCache`)."""
    cache = _ZCache() if cache is None else cache
    for bi, bj in pairs:
        idx_i, Zi, Zi32 = cache.get(bi, bi, src, st, block_size, precision)
        idx_j, Zj, Zj32 = cache.get(bj, bi, src, st, block_size, precision)
        if idx_i.size and idx_j.size:
            yield idx_i, Zi, Zi32, idx_j, Zj, Zj32, bi == bj


def _dense_task(pairs, src, st, *, block_size, mode, T, precision, thr, max_pairs=0, cache=None):
    """One task: histogram slots (mode="hist") or thresholded pairs over block pairs; ``cache``
    (a :class:`_ZCache`) carries standardised blocks from one local task to the next."""
    blocks = _block_pairs(pairs, src, st, block_size, precision, cache)
    if mode == "hist":
        delta = 1.1 * (st.n + 2) * _U32 / (1 - (st.n + 2) * _U32) + 1e-12 if precision == "float32" else 0.0
        counter = _hist_tiles.TileCounter(T, precision, delta, _hist_tiles.n_threads())
        # the tiles run one BLAS thread each, on the counter's threads
        with _hist_tiles.one_blas_thread():
            counter.count((Zi, Zj, Zi32, Zj32, diag) for _, Zi, Zi32, _, Zj, Zj32, diag in blocks)
        return counter.slots()
    found = 0
    out_i, out_j, out_r = [], [], []
    for idx_i, Zi, _, idx_j, Zj, _, diag in blocks:
        G = Zi @ Zj.T
        mask = np.abs(G) >= thr
        if diag:
            mask = np.triu(mask, k=1)
        r_, c_ = np.nonzero(mask)
        found += r_.size
        if found > max_pairs:
            raise ValueError(
                f"correlated_pairs: more than max_pairs={max_pairs} pairs pass the threshold "
                "(the output would not fit comfortably in memory). Raise 'threshold' or 'max_pairs'."
            )
        out_i.append(idx_i[r_])
        out_j.append(idx_j[c_])
        out_r.append(G[r_, c_])
    if not out_i:
        return np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0)
    return np.concatenate(out_i), np.concatenate(out_j), np.concatenate(out_r)


# -------------------------------------------------------------------------- sparse path
def _sparse_parts(Xc: sp.csc_matrix) -> tuple:
    """CSC and CSR index arrays (int64, sorted) of a sparse matrix."""
    Xr = Xc.tocsr()
    Xr.sort_indices()
    return (
        Xc.indptr.astype(np.int64),
        Xc.indices.astype(np.int64),
        Xc.data,
        Xr.indptr.astype(np.int64),
        Xr.indices.astype(np.int64),
        Xr.data,
    )


def _sparse_setup(Xc: sp.csc_matrix, st: _Stats) -> tuple[np.ndarray, tuple, np.ndarray]:
    """The non-constant features ordered by decreasing non-zeros, as the kernels want them.

    Returns ``perm`` (kernel index -> feature index), the CSC/CSR arrays of ``X[:, perm]``
    and ``F[k] = (mean, 1/s, b)`` of feature ``perm[k]``. Frequent features first keeps the
    accumulator accesses of the many frequent-frequent pairs in cache.
    """
    vidx = np.flatnonzero(st.valid)
    nnz = np.diff(Xc.indptr)[vidx]
    perm = vidx[np.argsort(-nnz, kind="stable")]
    Xp = Xc[:, perm]
    Xp.sort_indices()
    F = np.ascontiguousarray(np.column_stack([st.mean[perm], st.inv_s[perm], st.b[perm]]))
    return perm, _sparse_parts(Xp), F


def _block_features(block: slice, m: int) -> np.ndarray:
    # contiguous, so a strided Dask block calls the kernels' one compiled (C-ordered) signature
    return np.ascontiguousarray(np.arange(m, dtype=np.int64)[block])


def _sparse_hist_task(block, parts, F, n, *, lo, hi, inv_w):
    feats = _block_features(block, F.shape[0])
    return K.cooc_hist(feats, *parts, F, float(n), lo, hi, inv_w, numba.get_num_threads())


def _sparse_pairs_task(block, parts, F, n, *, thr):
    feats = _block_features(block, F.shape[0])
    return K.cooc_pairs(feats, *parts, F, float(n), thr)


def _sparse_blocks(m: int, client: Any) -> list[slice]:
    if m == 0:
        return []
    if client is None:
        return [slice(0, m)]  # one call; the kernel runs its own threads
    return strided_blocks(m, n_tasks_hint(client))


# --------------------------------------------------------------------------- public API
def correlation_histogram(
    X: Any,
    bins: int | np.ndarray = DEFAULT_BINS,
    *,
    block_size: int = 2048,
    client: Any = None,
    exact: bool = True,
    n_sample_pairs: int = 1_000_000,
    random_state: int | None = 0,
    precision: Literal["float64", "float32"] = "float64",
    edge_tol: float = DEFAULT_EDGE_TOL,
    progress: Callable[[int, int], None] | None = None,
) -> CorrelationHistogram:
    """Histogram of |Pearson rho| over all m(m-1)/2 feature pairs, exact, in bounded memory.

    Parameters
    ----------
    X : {array-like, sparse matrix, dask array, zarr array, ChunkedSource, path}
        Of shape (n_samples, n_features). The data. scipy.sparse input is never densified;
        a path to a ``.npy`` / ``.parquet`` / zarr store is read out of core (see
        :func:`fsviz.data.chunked.open_chunked`); an fsviz ``Dataset`` is accepted too.
    bins : int or array-like, default=20
        Number of equal-width bins on [0, 1] (default: steps of 0.05, the TPAMI Fig. 1
        view at twice its resolution), or the bin edges (increasing, within [0, 1]).
    block_size : int, default=2048
        Dense path: features per block. Peak extra memory is about
        ``3 * block_size * n_samples * 8`` bytes for the standardised blocks in use (x1.5
        with ``precision="float32"``), up to 64 MB more of blocks kept for reuse, and one
        512 KB product tile per thread. While the tiles run, BLAS is held to one thread per
        calling thread (threadpoolctl).
    client : dask.distributed.Client, default=None
        Run the blocks on this cluster; counts are merged exactly (integer sums).
    exact : bool, default=True
        False: estimate the histogram from ``n_sample_pairs`` uniformly sampled pairs
        (in-memory data only); ``counts`` are then float estimates of the pair counts.
    n_sample_pairs : int, default=1_000_000
        Pairs sampled when ``exact=False``.
    random_state : int or None, default=0
        Seed of the pair sample when ``exact=False``.
    precision : {"float64", "float32"}, default="float64"
        Dense path: float32 BLAS with float64 re-checks of every value whose error bound
        ``(n+2)·2^-24`` straddles a threshold; the counts equal the float64 ones.
    edge_tol : float, default=1e-9
        Values within ``edge_tol`` of an edge count as on the edge (see module notes).
    progress : callable, default=None
        ``progress(done, total)`` after each finished task.

    Returns
    -------
    CorrelationHistogram

    References
    ----------
    Y. Zhai, Y.-S. Ong, I. W. Tsang, "Making trillion correlations feasible in feature
    grouping and selection", IEEE TPAMI 2016, Fig. 1: the percentage of feature pairs per
    correlation interval.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(50, 30))
    >>> h = correlation_histogram(X, bins=10)
    >>> int(h.counts.sum()) == 30 * 29 // 2
    True
    """
    who = "correlation_histogram"
    t0 = time.perf_counter()
    binning = _Binning(bins, edge_tol, who)
    block_size = check_number(who, "block_size", block_size, integer=True, low=1)
    if precision not in ("float64", "float32"):
        raise ValueError(f"{who}: 'precision' must be 'float64' or 'float32'; got {precision!r}.")
    kind, data = prepare_input(X, who)
    n, m = data.shape
    if kind == "sparse":
        st = _Stats(*column_moments(data), n)
    else:
        st = _Stats(*source_moments(data, block_size), n)
    lo, hi = binning.lo, binning.hi

    if not exact:
        return _estimate(data, kind, st, binning, n_sample_pairs, random_state, t0, m)

    if kind == "sparse":
        bv = np.sort(st.b[st.valid])
        ge = K.count_products_ge(bv, np.append(lo, hi), True)
        slots = np.empty(binning.n_slots, dtype=np.int64)
        slots[0] = st.n_pairs - ge[0]
        slots[1 : lo.size] = ge[: lo.size - 1] - ge[1 : lo.size]
        slots[lo.size] = ge[lo.size - 1] - ge[lo.size]
        slots[lo.size + 1] = ge[lo.size]
        perm, parts, F = _sparse_setup(data, st)
        res = map_blocks(
            _sparse_hist_task,
            _sparse_blocks(perm.size, client),
            client=client,
            shared=(parts, F, st.n),
            kwargs={"lo": lo, "hi": hi, "inv_w": binning.inv_w},
            progress=progress,
        )
        n_eval = 0
        for s, c in res:
            slots += s
            n_eval += int(c)
        method, rechecked = "sparse-cooccurrence", 0
    else:
        tasks = _dense_tasks(m, block_size, client)
        res = map_blocks(
            _dense_task,
            tasks,
            client=client,
            shared=(data, st),
            progress=progress,
            kwargs={
                "block_size": block_size,
                "mode": "hist",
                "T": binning.T,
                "precision": precision,
                "thr": 0.0,
                "cache": _ZCache() if client is None else None,
            },
        )
        slots = np.zeros(binning.n_slots, dtype=np.int64)
        rechecked = 0
        for s, r in res:
            slots += s
            rechecked += r
        n_eval = st.n_pairs
        method = "dense-blas" if precision == "float64" else "dense-blas-float32"
    counts, below, above = binning.fold(slots)
    if counts.sum() + below + above != st.n_pairs or (counts < 0).any():  # internal invariant
        raise RuntimeError(
            f"{who}: internal count mismatch ({counts.sum() + below + above} != {st.n_pairs})."
        )
    return CorrelationHistogram(
        edges=binning.edges,
        counts=counts.astype(np.int64),
        n_pairs=st.n_pairs,
        n_features=m,
        constant_features=st.constant,
        exact=True,
        n_below=int(below),
        n_above=int(above),
        n_evaluated=n_eval,
        method=method,
        seconds=time.perf_counter() - t0,
        edge_tol=binning.tol,
        n_rechecked=int(rechecked),
    )


def _estimate(data, kind, st, binning, n_sample_pairs, random_state, t0, m) -> CorrelationHistogram:
    who = "correlation_histogram"
    if (
        isinstance(n_sample_pairs, bool)
        or not isinstance(n_sample_pairs, (int, np.integer))
        or n_sample_pairs < 1
    ):
        raise ValueError(f"{who}: 'n_sample_pairs' must be a positive int; got {n_sample_pairs!r}.")
    from sklearn.utils import check_random_state

    rng = check_random_state(random_state)
    vidx = np.flatnonzero(st.valid)
    mv = vidx.size
    if mv < 2:
        rho = np.empty(0)
    else:
        ns = int(n_sample_pairs)
        a = rng.randint(0, mv, size=ns)
        b = rng.randint(0, mv - 1, size=ns)
        b = b + (b >= a)
        pi, pj = vidx[np.minimum(a, b)], vidx[np.maximum(a, b)]
        if kind == "sparse":
            rho = K.sparse_pair_rho(
                pi,
                pj,
                data.indptr.astype(np.int64),
                data.indices.astype(np.int64),
                data.data,
                st.mean,
                st.inv_s,
                float(st.n),
            )
        elif isinstance(data, ArraySource):
            # the sampled features standardised once, one contiguous row each: a pair then reads
            # two short rows instead of 2n strided values of X (200 x 200,000, 10^6 pairs: 31 s ->
            # about 1 s on a loaded 2-core machine)
            X = data.X
            seen = np.zeros(m, dtype=bool)
            seen[pi] = True
            seen[pj] = True
            used = np.flatnonzero(seen)
            row = np.cumsum(seen) - 1  # feature -> its row of Zt
            Zt = np.empty((used.size, st.n), dtype=np.float32)  # an estimate: float32 halves the copy
            for s in range(0, used.size, 4096):
                cols = used[s : s + 4096]
                Zt[s : s + 4096] = ((X[:, cols] - st.mean[cols]) * st.inv_s[cols]).T
            ri, rj = row[pi], row[pj]
            rho = np.empty(ns)
            step = max(1, 4_000_000 // max(st.n, 1))
            for s in range(0, ns, step):
                rho[s : s + step] = np.einsum(
                    "ij,ij->i", Zt[ri[s : s + step]], Zt[rj[s : s + step]], dtype=np.float64
                )
        else:
            raise ValueError(
                f"{who}: exact=False samples random pairs and needs X in memory; got an out-of-core "
                f"{type(data).__name__}. Use exact=True (bounded memory) instead."
            )
    slots = K.slots_of_values(np.abs(rho), binning.lo, binning.hi, binning.inv_w)
    counts, below, above = binning.fold(slots)
    scale = st.n_pairs / max(rho.size, 1)
    return CorrelationHistogram(
        edges=binning.edges,
        counts=counts * scale,
        n_pairs=st.n_pairs,
        n_features=m,
        constant_features=st.constant,
        exact=False,
        n_below=float(below * scale),
        n_above=float(above * scale),
        n_evaluated=int(rho.size),
        method="sampled",
        seconds=time.perf_counter() - t0,
        edge_tol=binning.tol,
    )


def correlated_pairs(
    X: Any,
    threshold: float,
    *,
    output: Literal["sparse", "edges"] = "sparse",
    block_size: int = 2048,
    client: Any = None,
    edge_tol: float = DEFAULT_EDGE_TOL,
    max_pairs: int = 50_000_000,
    progress: Callable[[int, int], None] | None = None,
) -> sp.csr_matrix | pd.DataFrame:
    """Every feature pair with |Pearson rho| >= ``threshold``, exactly.

    Same machinery as :func:`correlation_histogram`: BLAS blocks for dense data;
    co-occurring pairs plus analytically known disjoint pairs for sparse data.

    Parameters
    ----------
    X : {array-like, sparse matrix, dask array, zarr array, ChunkedSource, path}
        Of shape (n_samples, n_features).
    threshold : float
        In (0, 1]. A pair within ``edge_tol`` below the threshold is included.
    output : {"sparse", "edges"}, default="sparse"
        ``"sparse"``: a ``scipy.sparse.csr_matrix`` of shape (m, m) holding the signed
        rho of each pair in its upper triangle (i < j). ``"edges"``: a pandas DataFrame
        with columns ``i``, ``j`` (i < j) and ``rho``, sorted by (i, j).
    block_size : int, default=2048
    client : dask.distributed.Client, default=None
    edge_tol : float, default=1e-9
    max_pairs : int, default=50_000_000
        Refuse (ValueError) when more pairs than this would be listed (dense: per task;
        sparse: among the never-co-occurring pairs); raise ``threshold`` instead.
    progress : callable, default=None

    Returns
    -------
    scipy.sparse.csr_matrix or pandas.DataFrame

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(40, 5)); X[:, 4] = X[:, 0] * 2 + 1
    >>> correlated_pairs(X, 0.9, output="edges")[["i", "j"]].values.tolist()
    [[0, 4]]
    """
    who = "correlated_pairs"
    if (
        isinstance(threshold, bool)
        or not isinstance(threshold, (int, float, np.floating))
        or not 0 < float(threshold) <= 1
    ):
        raise ValueError(f"{who}: 'threshold' must be a number in (0, 1]; got {threshold!r}.")
    if output not in ("sparse", "edges"):
        raise ValueError(f"{who}: 'output' must be 'sparse' or 'edges'; got {output!r}.")
    _Binning(1, edge_tol, who)  # validates edge_tol
    block_size = check_number(who, "block_size", block_size, integer=True, low=1)
    thr = float(threshold) - edge_tol
    kind, data = prepare_input(X, who)
    n, m = data.shape
    if kind == "sparse":
        st = _Stats(*column_moments(data), n)
        perm, pparts, F = _sparse_setup(data, st)
        res = map_blocks(
            _sparse_pairs_task,
            _sparse_blocks(perm.size, client),
            client=client,
            shared=(pparts, F, st.n),
            kwargs={"thr": thr},
            progress=progress,
        )
        res = [(np.minimum(perm[i], perm[j]), np.maximum(perm[i], perm[j]), r) for i, j, r in res]
        parts = (data.indptr.astype(np.int64), data.indices.astype(np.int64))
        vidx = np.flatnonzero(st.valid)
        order = vidx[np.argsort(st.b[vidx], kind="stable")]
        ai, aj, ar, total = K.analytic_pairs(
            order, np.ascontiguousarray(st.b[order]), st.a, thr, parts[0], parts[1], int(max_pairs)
        )
        if total > max_pairs:
            raise ValueError(
                f"{who}: {total} feature pairs that never co-occur have |rho| >= {threshold}; listing them "
                f"exceeds max_pairs={max_pairs}. Raise 'threshold' or 'max_pairs'."
            )
        res = list(res) + [(ai, aj, ar)]
    else:
        st = _Stats(*source_moments(data, block_size), n)
        tasks = _dense_tasks(m, block_size, client)
        res = map_blocks(
            _dense_task,
            tasks,
            client=client,
            shared=(data, st),
            progress=progress,
            kwargs={
                "block_size": block_size,
                "mode": "pairs",
                "T": np.zeros(0),
                "precision": "float64",
                "thr": thr,
                "max_pairs": int(max_pairs),
            },
        )
    ii = np.concatenate([r[0] for r in res]) if res else np.empty(0, np.int64)
    jj = np.concatenate([r[1] for r in res]) if res else np.empty(0, np.int64)
    rr = np.concatenate([r[2] for r in res]) if res else np.empty(0)
    order = np.lexsort((jj, ii))
    ii, jj, rr = ii[order], jj[order], rr[order]
    if output == "edges":
        import pandas as pd

        return pd.DataFrame({"i": ii.astype(np.int64), "j": jj.astype(np.int64), "rho": rr})
    return sp.csr_matrix((rr, (ii, jj)), shape=(m, m))
