"""GDM's Correlation Redundancy Matching walk (TPAMI Alg. 2 and 3), written once.

:func:`crm_walk` is the walk rule: candidates arrive in descending order of ``|s_j|``; an
existing support feature (SF) met again joins ``delta^t`` directly; any other candidate is
compared with the SFs and becomes an affiliated feature (AF) of its most correlated SF when
that correlation reaches ``thr = 1 - tau``, a new SF otherwise; the walk stops when
``delta^t`` holds ``need`` features. Status codes per candidate: ``-1`` new SF, ``-3`` an
existing SF met again (no correlation computed), ``j >= 0`` AF of SF ``j`` (buffer order),
``-2`` not reached.

What depends on the data is how a candidate meets the SFs and how a new SF is stored: one
state per kind of data, a named tuple of its arrays, with its two steps (:func:`_compare`,
:func:`_append`) chosen at compile time by the state's type:

=============  ====================================  ==========================================
state          candidates                            support features
=============  ====================================  ==========================================
DensePCC       dense raw columns                     standardised dense columns (Theorem 1 window)
DenseSU        integer codes                         codes, levels, entropies (all SFs met)
SparsePCC      CSC chunk                             standardised dense columns and their sums
SparseSFPCC    CSC chunk                             raw non-zeros, means, inverse norms
SparseSFSU     CSC chunk (coded on the fly)          narrow codes, histograms, raw non-zeros
=============  ====================================  ==========================================

The five entry kernels (``crm_walk_pcc``, ``crm_walk_su``, ``crm_walk_pcc_sparse``,
``crm_walk_pcc_sparse_sf``, ``crm_walk_su_sparse_sf``) build their state and run the one walk;
their results are bit for bit those of the five walks they replace
(``benchmarks/bench_gdm.py --walks`` runs both side by side).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit
from numba.extending import overload

from fsviz.select.gdm._kernels import _hp, sparse_entropy, sparse_joint_entropy
from fsviz.stats._info_kernels import joint_entropy_codes

__all__ = [
    "crm_walk",
    "crm_walk_pcc",
    "crm_walk_pcc_sparse",
    "crm_walk_pcc_sparse_sf",
    "crm_walk_su",
    "crm_walk_su_sparse_sf",
    "window_sfs",
]


# ----------------------------------------------------------------------------- the walk
@njit(cache=True)
def crm_walk(state, is_sf, n_sf, thr, need, status, corr_out):
    """The walk over the candidates of ``state`` (``is_sf``: already an SF).

    Returns
    -------
    (n_sf, n_taken, n_corr, n_processed) -- ``n_taken`` counts new and re-met SFs.
    """
    c = is_sf.shape[0]
    n_corr = 0
    n_new = 0
    processed = 0
    for i in range(c):
        if n_new >= need:
            break
        processed += 1
        if is_sf[i]:
            status[i] = -3
            corr_out[i] = 0.0
            n_new += 1
            continue
        best, bj, compared = _compare(state, i, n_sf)
        n_corr += compared
        if bj >= 0 and best >= thr:
            status[i] = bj
            corr_out[i] = best
        else:
            _append(state, i, n_sf)
            status[i] = -1
            corr_out[i] = 0.0
            n_sf += 1
            n_new += 1
    for i in range(processed, c):
        status[i] = -2
    return n_sf, n_new, n_corr, processed


def _compare(state, i, n_sf):
    """``(best correlation, its SF or -1, correlations computed)`` of candidate ``i`` against the
    first ``n_sf`` SFs; compiled only, its body chosen by the type of ``state``."""
    raise NotImplementedError("compiled only: called inside crm_walk")


def _append(state, i, n_sf):
    """Store candidate ``i`` as SF number ``n_sf``; compiled only, like :func:`_compare`."""
    raise NotImplementedError("compiled only: called inside crm_walk")


@njit(cache=True)
def window_sfs(ti, t_s, n_sf, window, win) -> int:
    """The first ``n_sf`` SFs whose ``|t|`` lies within ``window`` of ``ti`` (Theorem 1), written to
    ``win`` in buffer order; returns how many. Shared by the Pearson walks."""
    nw = 0
    for j in range(n_sf):
        if abs(ti - abs(t_s[j])) <= window:
            win[nw] = j
            nw += 1
    return nw


# ----------------------------------------------------------------------------- the states
class DensePCC(NamedTuple):
    """Dense raw candidates ``Xr`` (c, n; a candidate per row, C-ordered: one layout whatever
    ``c``), their means, centred norms and statistics
    ``t``; standardised SFs ``Zs`` (n, p_max; Fortran) with their ``t_s``; the Theorem 1
    ``window``; scratch ``win`` and ``dots`` (p_max,)."""

    Xr: np.ndarray
    mean_c: np.ndarray
    norm_c: np.ndarray
    t_c: np.ndarray
    Zs: np.ndarray
    t_s: np.ndarray
    window: float
    win: np.ndarray
    dots: np.ndarray


class DenseSU(NamedTuple):
    """Candidate codes ``Cc`` (n, c; int32, Fortran) with levels ``kc`` and entropies ``hc``; SF
    codes ``Cs`` (n, p_max) with ``ks`` and ``hs``. SU = 2 I / (H_a + H_b)."""

    Cc: np.ndarray
    kc: np.ndarray
    hc: np.ndarray
    Cs: np.ndarray
    ks: np.ndarray
    hs: np.ndarray


class SparsePCC(NamedTuple):
    """A CSC chunk of candidates (``indptr, indices, data``) with means, norms and ``t``; dense
    standardised SFs ``Zs`` with their column sums ``zsum`` and ``t_s``; ``window``, ``win``."""

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    mean_c: np.ndarray
    norm_c: np.ndarray
    t_c: np.ndarray
    Zs: np.ndarray
    zsum: np.ndarray
    t_s: np.ndarray
    window: float
    win: np.ndarray


class SparseSFPCC(NamedTuple):
    """A CSC chunk of candidates against sparse SFs: their raw non-zeros (``ptr, rows, sdata``),
    means ``s_mean``, inverse norms ``s_inv``, standardised sums ``zsum`` and ``t_s``; ``n``
    rows; ``window``, ``win``; ``work`` (n,), zero on entry and exit."""

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    mean_c: np.ndarray
    norm_c: np.ndarray
    t_c: np.ndarray
    ptr: np.ndarray
    rows: np.ndarray
    sdata: np.ndarray
    s_mean: np.ndarray
    s_inv: np.ndarray
    zsum: np.ndarray
    t_s: np.ndarray
    n: int
    window: float
    win: np.ndarray
    work: np.ndarray


class SparseSFSU(NamedTuple):
    """A CSC chunk of candidates, coded on the fly, against SF codes ``Cs`` (n, p_max; narrow
    ints, Fortran) with levels ``ks``, entropies ``hs`` and histograms ``hist`` (p_max, kmax)
    and raw non-zeros (``ptr, rows, sdata``); ``tab`` of ``p log p``; scratch: the candidate's
    codes and the SFs' codes at its rows (``codes``, ``gs``), its counts ``cnt``, the
    contingency ``table`` and ``dcount`` (zero on entry and exit), and ``levels`` / ``entropy``
    (its levels and zero code, its entropy)."""

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    n: int
    n_bins: int
    discrete: bool
    Cs: np.ndarray
    ks: np.ndarray
    hs: np.ndarray
    hist: np.ndarray
    ptr: np.ndarray
    rows: np.ndarray
    sdata: np.ndarray
    tab: np.ndarray
    codes: np.ndarray
    gs: np.ndarray
    cnt: np.ndarray
    table: np.ndarray
    dcount: np.ndarray
    levels: np.ndarray
    entropy: np.ndarray


def _is(state, cls) -> bool:
    return getattr(state, "instance_class", None) is cls


# ----------------------------------------------------------------------------- dense Pearson
def _compare_dense_pcc(state, i, n_sf):
    x, Zs, win, dots = state.Xr[i], state.Zs, state.win, state.dots
    n = x.shape[0]
    mi = state.mean_c[i]
    best = -1.0
    bj = -1
    nw = window_sfs(abs(state.t_c[i]), state.t_s, n_sf, state.window, win)  # SFs inside the window
    # four SFs per sweep over the rows: four independent sums, each in the order of
    # one SF at a time (bitwise the same dot products, 4x fewer dependent additions)
    nw4 = nw - nw % 4
    for q in range(0, nw4, 4):
        j0, j1, j2, j3 = win[q], win[q + 1], win[q + 2], win[q + 3]
        d0 = 0.0
        d1 = 0.0
        d2 = 0.0
        d3 = 0.0
        for r in range(n):
            xr = x[r] - mi
            d0 += xr * Zs[r, j0]
            d1 += xr * Zs[r, j1]
            d2 += xr * Zs[r, j2]
            d3 += xr * Zs[r, j3]
        dots[q] = d0
        dots[q + 1] = d1
        dots[q + 2] = d2
        dots[q + 3] = d3
    for q in range(nw4, nw):
        j = win[q]
        dot = 0.0
        for r in range(n):
            dot += (x[r] - mi) * Zs[r, j]
        dots[q] = dot
    for q in range(nw):
        rho = abs(dots[q]) / state.norm_c[i]
        if rho > best:
            best = rho
            bj = win[q]
    return best, bj, nw


def _append_dense_pcc(state, i, n_sf):
    x, Zs = state.Xr[i], state.Zs
    mi = state.mean_c[i]
    inv = 1.0 / state.norm_c[i]
    for r in range(x.shape[0]):
        Zs[r, n_sf] = (x[r] - mi) * inv
    state.t_s[n_sf] = state.t_c[i]


# ----------------------------------------------------------------------------- dense SU
def _compare_dense_su(state, i, n_sf):
    best = -1.0
    bj = -1
    for j in range(n_sf):
        hab = joint_entropy_codes(state.Cc[:, i], state.kc[i], state.Cs[:, j], state.ks[j])
        den = state.hc[i] + state.hs[j]
        su = 0.0
        if den > 0:
            su = 2.0 * max(den - hab, 0.0) / den
        if su > best:
            best = su
            bj = j
    return best, bj, n_sf


def _append_dense_su(state, i, n_sf):
    Cc, Cs = state.Cc, state.Cs
    for r in range(Cc.shape[0]):
        Cs[r, n_sf] = Cc[r, i]
    state.ks[n_sf] = state.kc[i]
    state.hs[n_sf] = state.hc[i]


# ----------------------------------------------------------------------------- sparse candidates
def _compare_sparse_pcc(state, i, n_sf):
    """``(x - mean) . z = sum over the non-zeros of x_r z_r - mean * sum(z)``: ``O(nnz)`` per SF."""
    indices, data, Zs, win = state.indices, state.data, state.Zs, state.win
    mi = state.mean_c[i]
    best = -1.0
    bj = -1
    nw = window_sfs(abs(state.t_c[i]), state.t_s, n_sf, state.window, win)
    a = state.indptr[i]
    b = state.indptr[i + 1]
    for q in range(nw):
        j = win[q]
        dot = 0.0
        for e in range(a, b):
            dot += data[e] * Zs[indices[e], j]
        rho = abs(dot - mi * state.zsum[j]) / state.norm_c[i]
        if rho > best:
            best = rho
            bj = j
    return best, bj, nw


def _append_sparse_pcc(state, i, n_sf):
    indices, data, Zs = state.indices, state.data, state.Zs
    n = Zs.shape[0]
    mi = state.mean_c[i]
    a = state.indptr[i]
    b = state.indptr[i + 1]
    inv = 1.0 / state.norm_c[i]
    for r in range(n):
        Zs[r, n_sf] = -mi * inv
    for e in range(a, b):
        Zs[indices[e], n_sf] = (data[e] - mi) * inv
    s = 0.0
    for r in range(n):
        s += Zs[r, n_sf]
    state.zsum[n_sf] = s
    state.t_s[n_sf] = state.t_c[i]


# ----------------------------------------------------------------------------- sparse SFs, Pearson
@njit(cache=True)
def _dot_sf(indptr, indices, data, i, sumx, ptr, rows, sdata, j, mj, ij, work, scattered):
    """``x_i . z_j`` for sparse candidate ``i`` and sparse SF ``j`` (:mod:`._sparse_sf`)."""
    a = indptr[i]
    b = indptr[i + 1]
    p0 = ptr[j]
    p1 = ptr[j + 1]
    s1 = 0.0
    sx = 0.0
    if scattered:  # the candidate is in ``work``: one pass over the SF's non-zeros
        for k in range(p0, p1):
            w = work[rows[k]]
            if w != 0.0:
                s1 += w * ((sdata[k] - mj) * ij)
                sx += w
    else:  # few candidate non-zeros: binary search of each in the SF's rows
        lo = p0
        for e in range(a, b):
            r = indices[e]
            hi = p1
            while lo < hi:
                mid = (lo + hi) >> 1
                if rows[mid] < r:
                    lo = mid + 1
                else:
                    hi = mid
            if lo < p1 and rows[lo] == r:
                s1 += data[e] * ((sdata[lo] - mj) * ij)
                sx += data[e]
    return s1 + (-mj * ij) * (sumx - sx)


def _compare_sparse_sf_pcc(state, i, n_sf):
    indptr, indices, data, ptr, work, win = (
        state.indptr,
        state.indices,
        state.data,
        state.ptr,
        state.work,
        state.win,
    )
    mi = state.mean_c[i]
    best = -1.0
    bj = -1
    nw = window_sfs(abs(state.t_c[i]), state.t_s, n_sf, state.window, win)
    a = indptr[i]
    b = indptr[i + 1]
    sumx = 0.0
    for e in range(a, b):
        sumx += data[e]
    nnz_i = b - a
    scattered = False
    for q in range(nw):
        j = win[q]
        nnz_j = ptr[j + 1] - ptr[j]
        # binary search costs ~nnz_i log2(nnz_j), a pass over the SF nnz_j
        use_scatter = nnz_i * 24 >= nnz_j
        if use_scatter and not scattered:
            for e in range(a, b):
                work[indices[e]] = data[e]
            scattered = True
        dot = _dot_sf(
            indptr,
            indices,
            data,
            i,
            sumx,
            ptr,
            state.rows,
            state.sdata,
            j,
            state.s_mean[j],
            state.s_inv[j],
            work,
            use_scatter,
        )
        rho = abs(dot - mi * state.zsum[j]) / state.norm_c[i]
        if rho > best:
            best = rho
            bj = j
    if scattered:
        for e in range(a, b):
            work[indices[e]] = 0.0
    return best, bj, nw


def _append_sparse_sf_pcc(state, i, n_sf):
    indices, data, ptr = state.indices, state.data, state.ptr
    mi = state.mean_c[i]
    a = state.indptr[i]
    b = state.indptr[i + 1]
    nnz_i = b - a
    inv = 1.0 / state.norm_c[i]
    o = ptr[n_sf]
    s = 0.0
    for e in range(a, b):
        state.rows[o + e - a] = indices[e]
        state.sdata[o + e - a] = data[e]
        s += (data[e] - mi) * inv
    ptr[n_sf + 1] = o + nnz_i
    state.zsum[n_sf] = s + (-mi * inv) * (state.n - nnz_i)
    state.s_mean[n_sf] = mi
    state.s_inv[n_sf] = inv
    state.t_s[n_sf] = state.t_c[i]


# ----------------------------------------------------------------------------- sparse SFs, SU
def _compare_sparse_sf_su(state, i, n_sf):
    """Contingency counts over the candidate's non-zeros: its implicit zeros share one code ``z``,
    so its table with SF ``s`` is ``hist[s]`` in row ``z`` minus what the stored values move."""
    indptr, indices, codes, gs, n, tab = (
        state.indptr,
        state.indices,
        state.codes,
        state.gs,
        state.n,
        state.tab,
    )
    hist = state.hist
    kmax = hist.shape[1]
    a = indptr[i]
    b = indptr[i + 1]
    nz = b - a
    kx, zc, hx = sparse_entropy(state.data[a:b], n, state.n_bins, state.discrete, codes, state.cnt, tab)
    state.levels[0] = kx
    state.levels[1] = zc
    state.entropy[0] = hx
    best = -1.0
    bj = -1
    for j in range(n_sf):
        h_s = 0.0
        for u in range(state.ks[j]):
            h_s += _hp(hist[j, u], n, tab)
        for e in range(nz):  # the SF's codes at the candidate's rows
            gs[e] = state.Cs[indices[a + e], j]
        hxy = sparse_joint_entropy(codes, gs, nz, zc, hist[j], h_s, kmax, state.table, state.dcount, n, tab)
        den = hx + state.hs[j]
        su = 2.0 * max(den - hxy, 0.0) / den if den > 0 else 0.0
        if su > best:
            best = su
            bj = j
    return best, bj, n_sf


def _append_sparse_sf_su(state, i, n_sf):
    indices, data, codes, Cs, ptr, hist = (
        state.indices,
        state.data,
        state.codes,
        state.Cs,
        state.ptr,
        state.hist,
    )
    kmax = hist.shape[1]
    kx = state.levels[0]
    zc = state.levels[1]
    a = state.indptr[i]
    nz = state.indptr[i + 1] - a
    zfill = zc if zc >= 0 else 0
    for r in range(state.n):
        Cs[r, n_sf] = zfill
    o = ptr[n_sf]
    for e in range(nz):
        Cs[indices[a + e], n_sf] = codes[e]
        state.rows[o + e] = indices[a + e]
        state.sdata[o + e] = data[a + e]
    ptr[n_sf + 1] = o + nz
    for u in range(kmax):
        hist[n_sf, u] = state.cnt[u] if u < kx else 0
    state.ks[n_sf] = kx
    state.hs[n_sf] = state.entropy[0]


_STEPS = {
    DensePCC: (_compare_dense_pcc, _append_dense_pcc),
    DenseSU: (_compare_dense_su, _append_dense_su),
    SparsePCC: (_compare_sparse_pcc, _append_sparse_pcc),
    SparseSFPCC: (_compare_sparse_sf_pcc, _append_sparse_sf_pcc),
    SparseSFSU: (_compare_sparse_sf_su, _append_sparse_sf_su),
}


@overload(_compare)
def _compare_for(state, i, n_sf):
    steps = _STEPS.get(getattr(state, "instance_class", None))
    return None if steps is None else steps[0]


@overload(_append)
def _append_for(state, i, n_sf):
    steps = _STEPS.get(getattr(state, "instance_class", None))
    return None if steps is None else steps[1]


# ----------------------------------------------------------------------------- the entry kernels
@njit(cache=True)
def crm_walk_pcc(Xr, mean_c, norm_c, t_c, is_sf, Zs, t_s, n_sf, window, thr, need, status, corr_out):
    """Alg. 2 with PCC on one chunk of dense candidates ``Xr`` (a candidate per row: the chunk
    transposed; see :class:`DensePCC`): an SF ``j`` is compared with a candidate only when
    ``| |t_c| - |t_j| | <= window`` (Theorem 1).

    Returns
    -------
    (n_sf, n_taken, n_corr, n_processed)
    """
    p = Zs.shape[1]
    state = DensePCC(Xr, mean_c, norm_c, t_c, Zs, t_s, window, np.empty(p, dtype=np.int64), np.empty(p))
    return crm_walk(state, is_sf, n_sf, thr, need, status, corr_out)


@njit(cache=True)
def crm_walk_su(Cc, kc, hc, is_sf, Cs, ks, hs, n_sf, thr, need, status, corr_out):
    """Alg. 3 (symmetrical uncertainty) on one chunk: every candidate meets every SF."""
    return crm_walk(DenseSU(Cc, kc, hc, Cs, ks, hs), is_sf, n_sf, thr, need, status, corr_out)


@njit(cache=True)
def crm_walk_pcc_sparse(
    indptr,
    indices,
    data,
    mean_c,
    norm_c,
    t_c,
    is_sf,
    Zs,
    zsum,
    t_s,
    n_sf,
    window,
    thr,
    need,
    status,
    corr_out,
):
    """:func:`crm_walk_pcc` for sparse candidates (CSC chunk ``indptr, indices, data``):
    ``O(nnz)`` per compared SF instead of ``O(n)``; ``zsum[j]`` holds ``sum(Zs[:, j])``."""
    win = np.empty(Zs.shape[1], dtype=np.int64)
    state = SparsePCC(indptr, indices, data, mean_c, norm_c, t_c, Zs, zsum, t_s, window, win)
    return crm_walk(state, is_sf, n_sf, thr, need, status, corr_out)


@njit(cache=True)
def crm_walk_pcc_sparse_sf(
    indptr,
    indices,
    data,
    mean_c,
    norm_c,
    t_c,
    is_sf,
    ptr,
    rows,
    sdata,
    s_mean,
    s_inv,
    zsum,
    t_s,
    n_sf,
    n,
    window,
    thr,
    need,
    status,
    corr_out,
    work,
):
    """:func:`crm_walk_pcc_sparse` with sparse SFs (:mod:`._sparse_sf`): a new SF's raw non-zeros
    are appended to ``rows``/``sdata`` (room reserved by the caller). ``work`` is a zeroed
    float64 vector of length ``n`` (zeroed again on return)."""
    win = np.empty(t_s.shape[0], dtype=np.int64)
    state = SparseSFPCC(
        indptr,
        indices,
        data,
        mean_c,
        norm_c,
        t_c,
        ptr,
        rows,
        sdata,
        s_mean,
        s_inv,
        zsum,
        t_s,
        n,
        window,
        win,
        work,
    )
    return crm_walk(state, is_sf, n_sf, thr, need, status, corr_out)


@njit(cache=True)
def crm_walk_su_sparse_sf(
    indptr,
    indices,
    data,
    is_sf,
    n,
    n_bins,
    discrete,
    Cs,
    ks,
    hs,
    hist,
    ptr,
    rows,
    sdata,
    n_sf,
    thr,
    need,
    status,
    corr_out,
    tab,
):
    """:func:`crm_walk_su` for sparse candidates against SF codes (:class:`SparseSFSU`): codes are
    those :func:`fsviz.stats.information.discretize` gives the dense column; a new SF's codes go
    to ``Cs[:, n_sf]`` (its histogram to ``hist``) and its raw non-zeros to ``rows``/``sdata``."""
    c = is_sf.shape[0]
    kmax = hist.shape[1]
    nz_max = 1
    for i in range(c):
        nz_max = max(nz_max, indptr[i + 1] - indptr[i])
    kx_max = max(n_bins, 64)
    state = SparseSFSU(
        indptr,
        indices,
        data,
        n,
        n_bins,
        discrete,
        Cs,
        ks,
        hs,
        hist,
        ptr,
        rows,
        sdata,
        tab,
        np.empty(nz_max, dtype=np.int64),
        np.empty(nz_max, dtype=np.int64),
        np.zeros(kx_max, dtype=np.int64),
        np.zeros(kx_max * kmax, dtype=np.int64),
        np.zeros(kmax, dtype=np.int64),
        np.zeros(2, dtype=np.int64),
        np.zeros(1),
    )
    return crm_walk(state, is_sf, n_sf, thr, need, status, corr_out)
