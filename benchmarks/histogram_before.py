"""The dense all-pairs histogram as fsviz computed it before the cache-sized tiles (issue 45).

Kept so that ``bench_histogram.py`` times the previous implementation beside the current one
in the same process: every pair of 2048-feature blocks went through one BLAS product written
to memory (33 MB in float64) and was then read back by a parallel numba kernel that binned
each value with :func:`fsviz.stats._corr_kernels.slot_of`. :func:`histogram_before` returns
the slot counts of the current code's convention, so the two can be compared bin for bin.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from fsviz.data.chunked import ChunkedSource
from fsviz.stats._corr_kernels import slot_of
from fsviz.stats.correlation import _U32, _Binning, _dense_tasks, _Stats, prepare_input
from fsviz.stats.moments import source_moments

__all__ = ["histogram_before"]


@njit(cache=True, parallel=True)
def hist_dense_block(G, diag, lo, hi, inv_w, nthreads):
    """Slot counts of |G[i, j]| over a block (only j > i when ``diag``)."""
    nr, nc = G.shape
    ns = lo.shape[0] + 2
    nchunks = min(nr, 4 * nthreads)
    local = np.zeros((max(nchunks, 1), ns), dtype=np.int64)
    for c in prange(nchunks):
        cnt = np.zeros(ns, dtype=np.int64)
        for i in range(c, nr, nchunks):
            j0 = i + 1 if diag else 0
            for j in range(j0, nc):
                cnt[slot_of(abs(G[i, j]), lo, hi, inv_w)] += 1
        local[c, :] = cnt
    return local.sum(axis=0)


@njit(cache=True, parallel=True)
def hist_dense_block_f32(G, Z1T, Z2T, diag, delta, lo, hi, inv_w, nthreads):
    """Slot counts from a float32 product, re-checked in float64 near thresholds.

    ``G`` (float32) approximates ``Z1T @ Z2T.T`` within ``delta`` in absolute value;
    whenever ``|G[i, j]| +- delta`` straddles a threshold the entry is recomputed in
    float64 from the rows of ``Z1T`` and ``Z2T`` (shape (b, n), C-contiguous).
    Returns ``(slot_counts, n_rechecked)``.
    """
    nr, nc = G.shape
    n = Z1T.shape[1]
    ns = lo.shape[0] + 2
    nchunks = min(nr, 4 * nthreads)
    local = np.zeros((max(nchunks, 1), ns), dtype=np.int64)
    rech = np.zeros(max(nchunks, 1), dtype=np.int64)
    for c in prange(nchunks):
        cnt = np.zeros(ns, dtype=np.int64)
        nre = 0
        for i in range(c, nr, nchunks):
            j0 = i + 1 if diag else 0
            for j in range(j0, nc):
                v = abs(np.float64(G[i, j]))
                s = slot_of(v - delta, lo, hi, inv_w)
                if s != slot_of(v + delta, lo, hi, inv_w):
                    acc = 0.0
                    for k in range(n):
                        acc += Z1T[i, k] * Z2T[j, k]
                    s = slot_of(abs(acc), lo, hi, inv_w)
                    nre += 1
                cnt[s] += 1
        local[c, :] = cnt
        rech[c] = nre
    return local.sum(axis=0), rech.sum()


def _load_z(src: ChunkedSource, bi: int, block_size: int, st: _Stats, precision: str) -> tuple:
    """Block bi standardised: global indices of its valid features and ``Z`` (n, w) float64.

    For ``precision="float32"`` also the float32 copy and the transposed float64 rows
    the re-check kernel reads contiguously.
    """
    s = bi * block_size
    e = min(s + block_size, src.n_features)
    v = st.valid[s:e]
    B = src.read_columns(s, e)
    if not v.all():
        B = B[:, v]
    Z = np.subtract(B, st.mean[s:e][v])  # a fresh C-ordered array
    Z *= st.inv_s[s:e][v]
    if precision == "float32":
        return np.arange(s, e)[v], Z, Z.astype(np.float32), np.ascontiguousarray(Z.T)
    return np.arange(s, e)[v], Z, None, None


def _dense_task(pairs, src, st, *, block_size, lo, hi, inv_w, precision):
    """One task's histogram slots over its block pairs (the previous ``mode="hist"``)."""
    cache: dict[int, tuple] = {}
    slots = np.zeros(lo.size + 2, dtype=np.int64)
    rechecked = 0
    delta = 1.1 * (st.n + 2) * _U32 / (1 - (st.n + 2) * _U32) + 1e-12 if precision == "float32" else 0.0
    nthreads = numba.get_num_threads()
    for bi, bj in pairs:
        for key in (bi, bj):
            if key not in cache:
                for old in [k for k in cache if k != bi]:  # keep block bi and at most one other
                    del cache[old]
                cache[key] = _load_z(src, key, block_size, st, precision)
        idx_i, Zi, Zi32, ZiT = cache[bi]
        idx_j, Zj, Zj32, ZjT = cache[bj]
        if idx_i.size == 0 or idx_j.size == 0:
            continue
        diag = bi == bj
        if precision == "float32":
            G = Zi32.T @ Zj32
            s, r = hist_dense_block_f32(G, ZiT, ZjT, diag, delta, lo, hi, inv_w, nthreads)
            rechecked += int(r)
        else:
            G = Zi.T @ (Zj if not diag or Zj.shape[1] <= 8192 else Zj.copy())
            s = hist_dense_block(G, diag, lo, hi, inv_w, nthreads)
        slots += s
    return slots, rechecked


def histogram_before(X, bins=20, *, block_size=2048, precision="float64"):
    """Slot counts (below, bins..., on the last edge, above) of the previous dense path."""
    binning = _Binning(bins, 1e-9, "histogram_before")
    kind, src = prepare_input(X, "histogram_before")
    if kind != "dense":
        raise ValueError("histogram_before: the previous implementation timed here is the dense path.")
    st = _Stats(*source_moments(src, block_size), src.shape[0])
    slots = np.zeros(binning.n_slots, dtype=np.int64)
    for pairs in _dense_tasks(src.shape[1], block_size, None):
        s, _ = _dense_task(
            pairs,
            src,
            st,
            block_size=block_size,
            lo=binning.lo,
            hi=binning.hi,
            inv_w=binning.inv_w,
            precision=precision,
        )
        slots += s
    return slots
