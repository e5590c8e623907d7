"""Numba kernels for all-pairs correlation histograms; contiguous inputs, no validation.

Binning convention shared by every kernel (see ``correlation._Binning``): ``lo`` holds
the ``K + 1`` lower thresholds ``edges[k] - tol`` and ``hi`` the upper threshold
``edges[K] + tol``. A value ``v`` goes to *slot* ``#{k : v >= lo[k]}`` (0..K+1), or
to slot ``K + 2`` when ``v > hi``. Slot 0 is "below the first edge", slots 1..K+1
are folded into the K bins by the caller, slot K+2 is "above the last edge".
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, inline="always")
def slot_of(v, lo, hi, inv_w):
    """Slot of one value.

    Branch-light: with equal-width bins (``inv_w = K / (e_K - e_0) > 0``) the slot is
    guessed arithmetically and corrected against the thresholds (the corrections almost
    never loop); otherwise a branch-free count for up to 64 thresholds, else a binary
    search. Mispredicted branches of a plain binary search cost more than the rest of
    the per-pair work.
    """
    nt = lo.shape[0]
    if v > hi:
        return nt + 1
    if inv_w > 0.0:
        g = int((v - lo[0]) * inv_w) + 1 if v >= lo[0] else 0
        g = max(g, 0)
        g = min(g, nt)
        while g > 0 and lo[g - 1] > v:
            g -= 1
        while g < nt and lo[g] <= v:
            g += 1
        return g
    if nt <= 64:
        s = 0
        for k in range(nt):
            s += lo[k] <= v
        return s
    a = 0
    b = nt
    while a < b:  # number of thresholds <= v
        mid = (a + b) >> 1
        if lo[mid] <= v:
            a = mid + 1
        else:
            b = mid
    return a


@njit(cache=True, nogil=True)
def _tile_row_start(r, diag, off, w):
    """First column of tile row ``r`` that holds a counted pair (``c + off > r`` on a diagonal block)."""
    if not diag:
        return 0
    return min(max(r - off + 1, 0), w)


# The bits of a float >= 0 order like its value, and integer maxima vectorise where numba's
# float max() does not (it keeps NaN checks); numba widens int32 sums to int64 unless each step
# is cast back, and int32 lanes are twice as many per vector.
_ABS32 = np.int32(0x7FFFFFFF)
_ABS64 = np.int64(0x7FFFFFFFFFFFFFFF)


@njit(cache=True, nogil=True)
def _abs_bits_max64(rowi):
    """The largest ``|v|`` of a float64 row, as bits (its int64 view)."""
    mx = np.int64(0)
    for c in range(rowi.shape[0]):
        mx = max(mx, rowi[c] & _ABS64)
    return mx


@njit(cache=True, nogil=True)
def _count_abs_ge64(row, t):
    s = np.int32(0)
    for c in range(row.shape[0]):
        s = np.int32(s + np.int32(abs(row[c]) >= t))
    return s


@njit(cache=True, nogil=True)
def hist_tile(G, diag, off, T, ge):
    """Add to ``ge[k]`` the number of counted entries with ``|G[r, c]| >= T[k]``, k >= 1.

    ``G`` is one product tile (rows = features of block I, columns = features of block J),
    small enough to stay in cache while it is binned. On a diagonal block only the pairs
    above the diagonal count: column ``c`` of row ``r`` when ``c + off > r``, ``off`` being
    the tile's column offset minus its row offset. ``ge[0]`` gets the number of counted
    entries. ``T`` holds ``-inf``, the thresholds, ``+inf`` (see :func:`hist_thresholds`);
    slot counts are ``ge[:-1] - ge[1:]``, the same slots :func:`slot_of` gives.

    Up to 64 thresholds, each row is counted one threshold at a time (``|v| >= t``, a
    vectorised compare and add, stopping at the row's maximum) instead of one slot per value:
    the per-value gather and histogram increment cost several times more. More thresholds:
    a binary search per value.
    """
    h, w = G.shape
    nt1 = T.shape[0] - 2
    if nt1 > 64:
        sc = np.zeros(nt1 + 1, dtype=np.int64)
        for r in range(h):
            c0 = _tile_row_start(r, diag, off, w)
            for c in range(c0, w):
                v = abs(G[r, c])
                a = 1
                b = nt1 + 1
                while a < b:  # first threshold above v; v's slot is a - 1
                    mid = (a + b) >> 1
                    if T[mid] <= v:
                        a = mid + 1
                    else:
                        b = mid
                sc[a - 1] += 1
        run = 0
        for k in range(nt1, -1, -1):
            run += sc[k]
            ge[k] += run
        return
    Gi = G.view(np.int64)
    tb = T.view(np.int64)  # T[k] < 0 (sign bit) and T[k] = 0 never stop the loop, as before
    for r in range(h):
        c0 = _tile_row_start(r, diag, off, w)
        row = G[r, c0:]
        nr = row.shape[0]
        ge[0] += nr
        mx = _abs_bits_max64(Gi[r, c0:])
        for k in range(1, nt1 + 1):
            if tb[k] > mx:
                break
            ge[k] += _count_abs_ge64(row, T[k])


@njit(cache=True, nogil=True)
def _abs_bits_max32(rowi):
    """The largest ``|v|`` of a float32 row, as bits (its int32 view)."""
    mx = np.int32(0)
    for c in range(rowi.shape[0]):
        mx = np.int32(max(mx, np.int32(rowi[c] & _ABS32)))
    return mx


@njit(cache=True, nogil=True)
def _count_bits_ge2(rowi, lb, hb):
    """How many ``|v|`` of a float32 row (int32 view) are at or above ``lb``, and ``hb`` (bits)."""
    s_lo = np.int32(0)
    s_hi = np.int32(0)
    for c in range(rowi.shape[0]):
        b = np.int32(rowi[c] & _ABS32)
        s_lo = np.int32(s_lo + np.int32(b >= lb))
        s_hi = np.int32(s_hi + np.int32(b >= hb))
    return s_lo, s_hi


@njit(cache=True, nogil=True)
def hist_tile_f32(G, Zi, Zj, r0, c0, diag, T, A_lo, A_hi, ge):
    """:func:`hist_tile` for a float32 product tile, with float64 re-checks near thresholds.

    ``G`` approximates ``Zi[r0 + r] . Zj[c0 + c]`` within ``delta``. ``A_hi[k]`` is the
    smallest float32 ``>= T[k] + delta`` and ``A_lo[k]`` the smallest ``>= T[k] - delta``:
    ``|G| >= A_hi[k]`` is then certainly at or above ``T[k]`` in float64, ``|G| < A_lo[k]``
    certainly below, and the entries in between are recomputed from the float64 rows of
    ``Zi`` and ``Zj`` (shape (w, n), C-contiguous) and compared with ``T[k]`` itself.
    Returns the number of recomputations.
    """
    h, w = G.shape
    nt1 = T.shape[0] - 2
    n = Zi.shape[1]
    off = c0 - r0
    nre = 0
    Gi = G.view(np.int32)
    lbs = A_lo.view(np.int32)  # A_lo[k] < 0: the sign bit, below every |v|'s bits
    hbs = A_hi.view(np.int32)
    for r in range(h):
        cs = _tile_row_start(r, diag, off, w)
        row = G[r, cs:]
        rowi = Gi[r, cs:]
        nr = row.shape[0]
        ge[0] += nr
        mx = _abs_bits_max32(rowi)
        for k in range(1, nt1 + 1):
            lb = lbs[k]
            if lb > mx:
                break
            hb = hbs[k]
            s_lo, s_hi = _count_bits_ge2(rowi, lb, hb)
            ge[k] += s_hi
            if s_lo > s_hi:
                t = T[k]
                lo = A_lo[k]
                hi = A_hi[k]
                for c in range(nr):
                    v = abs(row[c])
                    if v >= lo and v < hi:
                        i = r0 + r
                        j = c0 + cs + c
                        acc = 0.0
                        for q in range(n):
                            acc += Zi[i, q] * Zj[j, q]
                        ge[k] += abs(acc) >= t
                        nre += 1
    return nre


@njit(cache=True, nogil=True)
def _f32_row_pass(row, rowi, base, inv_w, eps, umax, sbuf):
    """One pass over a float32 row: ``sbuf[c]`` = the bits of ``|row[c]|``, or -1 when the value
    lies within ``eps`` (in bin widths) of a threshold; returns the largest bits and how many
    values were marked. ``u`` is the value's position in bin widths from the first threshold."""
    mx = np.int32(0)
    nnear = np.int32(0)
    for c in range(row.shape[0]):
        b = np.int32(rowi[c] & _ABS32)
        u = (abs(row[c]) - base) * inv_w
        d = abs(u - np.floor(u + np.float32(0.5)))  # to the nearest integer (exact: Sterbenz)
        near = (d < eps) & (u > np.float32(-0.5)) & (u < umax)
        mx = np.int32(max(mx, b))
        nnear = np.int32(nnear + np.int32(near))
        sbuf[c] = np.int32(-1) if near else b
    return mx, nnear


@njit(cache=True, nogil=True)
def _count_ge_i32(sbuf, nr, t):
    s = np.int32(0)
    for c in range(nr):
        s = np.int32(s + np.int32(sbuf[c] >= t))
    return s


@njit(cache=True, nogil=True)
def hist_tile_f32_uniform(G, Zi, Zj, r0, c0, diag, T, A_lo, A_hi, base, inv_w, eps, ge, sbuf):
    """:func:`hist_tile_f32` for equal-width bins, with one compare per threshold instead of two.

    Same arguments and the same counts as :func:`hist_tile_f32`, plus the geometry of the
    thresholds ``T[1..K+1]`` (``base`` = ``T[1]``, ``inv_w`` = 1 / width, both float32) and
    ``eps``, in bin widths, larger than the re-check window ``[A_lo[k], A_hi[k])`` plus the
    gap to the last threshold ``T[K+2]`` and the float32 error of the position ``u`` (the
    caller's :class:`fsviz.stats._hist_tiles.TileCounter` bounds it). A value farther than
    ``eps`` from every threshold is in no window, so ``|v| >= A_hi[k]`` alone decides each
    threshold; it is counted on its bits (``sbuf``, int32 scratch of a row's length). The
    few values nearer than ``eps`` take :func:`hist_tile_f32`'s path value by value: certain
    above ``A_hi[k]``, recomputed in float64 inside a window (four at a time,
    :func:`_recheck`), below ``A_lo[k]`` done.
    Returns the number of recomputations (counted as :func:`hist_tile_f32` counts them).
    """
    h, w = G.shape
    Gi = G.view(np.int32)
    tb = A_hi.view(np.int32)  # every A_hi[k] >= 0: bits order like values
    nt1 = T.shape[0] - 2
    umax = np.float32(nt1 - 2 + 0.5)  # integers 0..K: thresholds T[1..K+1] (T[K+2] is within eps of K)
    off = c0 - r0
    nre = 0
    pend = np.empty((64, 3), dtype=np.int64)  # (row, column, threshold) of values to re-check
    npend = 0
    for r in range(h):
        cs = _tile_row_start(r, diag, off, w)
        row = G[r, cs:]
        nr = row.shape[0]
        ge[0] += nr
        mx, nnear = _f32_row_pass(row, Gi[r, cs:], base, inv_w, eps, umax, sbuf)
        for k in range(1, nt1 + 1):
            if tb[k] > mx:
                break
            ge[k] += _count_ge_i32(sbuf, nr, tb[k])
        if nnear == 0:
            continue
        # a plain scan for the marked values: a slice's min() per 16 values cost 0.06-0.2 ns a
        # value of the whole tile (a row in 20 has a marked value at n = 50, 13 % of the kernel)
        for c in range(nr):
            if sbuf[c] >= 0:
                continue
            v = abs(row[c])
            k = 1
            while k <= nt1 and v >= A_hi[k]:  # certainly at or above T[k]
                ge[k] += 1
                k += 1
            if k <= nt1 and v >= A_lo[k]:  # in T[k]'s window: re-checked below, with others
                pend[npend, 0] = r
                pend[npend, 1] = cs + c
                pend[npend, 2] = k
                npend += 1
                if npend == pend.shape[0]:
                    nre += _recheck(pend, npend, G, Zi, Zj, r0, c0, T, A_lo, A_hi, ge)
                    npend = 0
    return nre + _recheck(pend, npend, G, Zi, Zj, r0, c0, T, A_lo, A_hi, ge)


@njit(cache=True, nogil=True)
def _dots4(Zi, Zj, i0, j0, i1, j1, i2, j2, i3, j3):
    """Four float64 dot products of rows of ``Zi`` and ``Zj``, each summed in index order (the
    same value as alone); four chains at once hide the add latency and the rows' cache misses."""
    a0 = 0.0
    a1 = 0.0
    a2 = 0.0
    a3 = 0.0
    for q in range(Zi.shape[1]):
        a0 += Zi[i0, q] * Zj[j0, q]
        a1 += Zi[i1, q] * Zj[j1, q]
        a2 += Zi[i2, q] * Zj[j2, q]
        a3 += Zi[i3, q] * Zj[j3, q]
    return a0, a1, a2, a3


@njit(cache=True, nogil=True)
def _recheck(pend, npend, G, Zi, Zj, r0, c0, T, A_lo, A_hi, ge):
    """The window rule for the ``npend`` values ``G[pend[p, 0], pend[p, 1]]``, each inside the
    window of threshold ``pend[p, 2]``: ``|rho|`` in float64 against ``T[k]`` for that threshold
    and the next ones whose window holds the value. Returns the number of comparisons."""
    nt1 = T.shape[0] - 2
    nre = 0
    acc = np.empty(4)
    for p0 in range(0, npend, 4):
        q0 = p0  # the last group repeats its last value
        q1 = min(p0 + 1, npend - 1)
        q2 = min(p0 + 2, npend - 1)
        q3 = min(p0 + 3, npend - 1)
        acc[0], acc[1], acc[2], acc[3] = _dots4(
            Zi, Zj,
            r0 + pend[q0, 0], c0 + pend[q0, 1], r0 + pend[q1, 0], c0 + pend[q1, 1],
            r0 + pend[q2, 0], c0 + pend[q2, 1], r0 + pend[q3, 0], c0 + pend[q3, 1],
        )  # fmt: skip
        for p in range(p0, min(p0 + 4, npend)):
            v = abs(G[pend[p, 0], pend[p, 1]])
            a = abs(acc[p - p0])
            for k in range(pend[p, 2], nt1 + 1):
                if v >= A_hi[k]:
                    ge[k] += 1
                elif v >= A_lo[k]:
                    ge[k] += a >= T[k]
                    nre += 1
                else:
                    break
    return nre


# The tile loops: a run of tiles of one block pair per call, each multiplied with BLAS (numba's
# np.dot: the same OpenBLAS sgemm/dgemm rate as numpy's matmul, 105-111 GFLOP/s a thread on
# 512 x 50 x 256 float32 tiles) and binned while in cache. One call per run instead of two per tile
# takes the GIL once per run, not twice per tile (0.2 ms at n = 50). Against per-tile calls
# (2026-12-02, m = 20,000, both cores free, with this module's other changes): n = 50 about 10 %
# faster, n = 200 the same.


@njit(cache=True, nogil=True)
def _tile(buf, Ai, Aj, r0, c0, th, tw):
    """The product tile ``Ai[r0:r0+th] @ Aj[c0:c0+tw].T`` written into ``buf``, as a 2-D view."""
    r1 = min(r0 + th, Ai.shape[0])
    c1 = min(c0 + tw, Aj.shape[0])
    G = buf[: (r1 - r0) * (c1 - c0)].reshape((r1 - r0, c1 - c0))
    np.dot(Ai[r0:r1], Aj[c0:c1].T, G)
    return G


@njit(cache=True, nogil=True)
def hist_tiles(Ai, Aj, tiles, th, tw, diag, T, ge, buf):
    """:func:`hist_tile` over the float64 tiles ``tiles[t] = (r0, c0)`` (``th`` x ``tw`` values,
    clipped at the blocks' ends) of the products of the rows of ``Ai`` and ``Aj``."""
    for t in range(tiles.shape[0]):
        r0 = tiles[t, 0]
        c0 = tiles[t, 1]
        hist_tile(_tile(buf, Ai, Aj, r0, c0, th, tw), diag, c0 - r0, T, ge)


@njit(cache=True, nogil=True)
def hist_tiles_f32(Ai, Aj, Zi, Zj, tiles, th, tw, diag, T, A_lo, A_hi, ge, buf):
    """:func:`hist_tile_f32` over float32 tiles (``Ai``, ``Aj``: the float32 rows of ``Zi``, ``Zj``),
    as :func:`hist_tiles`; returns the number of float64 re-checks."""
    nre = 0
    for t in range(tiles.shape[0]):
        r0 = tiles[t, 0]
        c0 = tiles[t, 1]
        G = _tile(buf, Ai, Aj, r0, c0, th, tw)
        nre += hist_tile_f32(G, Zi, Zj, r0, c0, diag, T, A_lo, A_hi, ge)
    return nre


@njit(cache=True, nogil=True)
def hist_tiles_f32_uniform(
    Ai, Aj, Zi, Zj, tiles, th, tw, diag, T, A_lo, A_hi, base, inv_w, eps, ge, buf, sbuf
):
    """:func:`hist_tile_f32_uniform` over float32 tiles, as :func:`hist_tiles_f32`."""
    nre = 0
    for t in range(tiles.shape[0]):
        r0 = tiles[t, 0]
        c0 = tiles[t, 1]
        G = _tile(buf, Ai, Aj, r0, c0, th, tw)
        nre += hist_tile_f32_uniform(G, Zi, Zj, r0, c0, diag, T, A_lo, A_hi, base, inv_w, eps, ge, sbuf)
    return nre


@njit(cache=True)
def count_products_ge(b, thresholds, strict_last):
    """For sorted ``b >= 0``: number of pairs i < j with ``b[i] * b[j] >= t`` per threshold.

    The product is the float64 product, exactly as :func:`cooc_hist` computes it, so the
    analytic counts and the per-pair corrections agree bit for bit. Two pointers,
    O(m) per threshold. When ``strict_last`` the last threshold uses ``>`` instead.
    """
    m = b.shape[0]
    nt = thresholds.shape[0]
    out = np.zeros(nt, dtype=np.int64)
    for t in range(nt):
        thr = thresholds[t]
        strict = strict_last and t == nt - 1
        p = m  # first j whose product with b[i] passes; non-increasing in i
        total = 0
        for i in range(m):
            bi = b[i]
            if strict:
                while p > 0 and bi * b[p - 1] > thr:
                    p -= 1
            else:
                while p > 0 and bi * b[p - 1] >= thr:
                    p -= 1
            start = max(i + 1, p)
            if start < m:
                total += m - start
        out[t] = total
    return out


@njit(cache=True, parallel=True)
def cooc_hist(feats, c_ptr, c_idx, c_val, r_ptr, r_idx, r_val, F, n, lo, hi, inv_w, nthreads):
    """Slot corrections for all co-occurring pairs (i, j > i), i in ``feats``.

    For every feature i in ``feats`` and every j > i that shares a stored row with it:
    add the slot of the true |rho_ij| and subtract the slot of the analytic value
    ``b[i] * b[j]`` that the sorted sweep counted for it. Gustavson sparse accumulation
    over the rows of column i (CSC ``c_*``, CSR ``r_*``, both with sorted indices).
    The matrix holds only non-constant features, ideally ordered by decreasing number
    of non-zeros (frequent pairs then touch a small, cache-resident part of ``acc``).
    ``F[j] = (mean_j, 1 / s_j, b_j)`` packed so one cache line serves a pair.
    Returns ``(slot_deltas, n_cooccurring_pairs)``.
    """
    m = F.shape[0]
    ns = lo.shape[0] + 2
    nf = feats.shape[0]
    nchunks = min(max(nf, 1), 4 * nthreads)
    local = np.zeros((nchunks, ns), dtype=np.int64)
    npairs = np.zeros(nchunks, dtype=np.int64)
    for c in prange(nchunks):
        acc = np.zeros(m, dtype=np.float64)
        stamp = np.full(m, -1, dtype=np.int64)
        touched = np.empty(m, dtype=np.int64)
        va = np.empty(m, dtype=np.float64)
        vb = np.empty(m, dtype=np.float64)
        cnt = np.zeros(ns, dtype=np.int64)
        pairs = 0
        for q in range(c, nf, nchunks):
            i = feats[q]
            nt = 0
            for p in range(c_ptr[i], c_ptr[i + 1]):
                r = c_idx[p]
                xi = c_val[p]
                # first position in row r with column > i
                a = r_ptr[r]
                z = r_ptr[r + 1]
                while a < z:
                    mid = (a + z) >> 1
                    if r_idx[mid] <= i:
                        a = mid + 1
                    else:
                        z = mid
                for t in range(a, r_ptr[r + 1]):
                    j = r_idx[t]
                    if stamp[j] != i:
                        stamp[j] = i
                        acc[j] = xi * r_val[t]
                        touched[nt] = j
                        nt += 1
                    else:
                        acc[j] += xi * r_val[t]
            mi = n * F[i, 0]
            si = F[i, 1]
            bi = F[i, 2]
            # gather first, bin afterwards: keeps the random loads of F and acc free of
            # data-dependent branches so they overlap (2x faster than binning inline)
            for t in range(nt):
                j = touched[t]
                va[t] = abs((acc[j] - mi * F[j, 0]) * si * F[j, 1])
                vb[t] = bi * F[j, 2]
            for t in range(nt):
                cnt[slot_of(va[t], lo, hi, inv_w)] += 1
            for t in range(nt):
                cnt[slot_of(vb[t], lo, hi, inv_w)] -= 1
            pairs += nt
        local[c, :] = cnt
        npairs[c] = pairs
    return local.sum(axis=0), npairs.sum()


@njit(cache=True)
def cooc_pairs(feats, c_ptr, c_idx, c_val, r_ptr, r_idx, r_val, F, n, thr):
    """All co-occurring pairs (i in ``feats``, j > i) with |rho_ij| >= ``thr``.

    Same accumulation and layout as :func:`cooc_hist`; returns ``(i, j, rho)`` arrays
    in the (permuted) index space of the matrix it was given.
    """
    m = F.shape[0]
    acc = np.zeros(m, dtype=np.float64)
    stamp = np.full(m, -1, dtype=np.int64)
    touched = np.empty(m, dtype=np.int64)
    cap = 1024
    oi = np.empty(cap, dtype=np.int64)
    oj = np.empty(cap, dtype=np.int64)
    orho = np.empty(cap, dtype=np.float64)
    k = 0
    for q in range(feats.shape[0]):
        i = feats[q]
        nt = 0
        for p in range(c_ptr[i], c_ptr[i + 1]):
            r = c_idx[p]
            xi = c_val[p]
            a = r_ptr[r]
            z = r_ptr[r + 1]
            while a < z:
                mid = (a + z) >> 1
                if r_idx[mid] <= i:
                    a = mid + 1
                else:
                    z = mid
            for t in range(a, r_ptr[r + 1]):
                j = r_idx[t]
                if stamp[j] != i:
                    stamp[j] = i
                    acc[j] = xi * r_val[t]
                    touched[nt] = j
                    nt += 1
                else:
                    acc[j] += xi * r_val[t]
        mi = n * F[i, 0]
        si = F[i, 1]
        for t in range(nt):
            j = touched[t]
            rho = (acc[j] - mi * F[j, 0]) * si * F[j, 1]
            if abs(rho) >= thr:
                if k == cap:
                    cap *= 2
                    oi2 = np.empty(cap, dtype=np.int64)
                    oj2 = np.empty(cap, dtype=np.int64)
                    or2 = np.empty(cap, dtype=np.float64)
                    oi2[:k] = oi[:k]
                    oj2[:k] = oj[:k]
                    or2[:k] = orho[:k]
                    oi, oj, orho = oi2, oj2, or2
                oi[k] = i
                oj[k] = j
                orho[k] = rho
                k += 1
    return oi[:k], oj[:k], orho[:k]


@njit(cache=True)
def _share_row(c_ptr, c_idx, i, j):
    """True when sparse columns i and j (sorted row indices) have a stored row in common."""
    p = c_ptr[i]
    pe = c_ptr[i + 1]
    q = c_ptr[j]
    qe = c_ptr[j + 1]
    while p < pe and q < qe:
        if c_idx[p] == c_idx[q]:
            return True
        if c_idx[p] < c_idx[q]:
            p += 1
        else:
            q += 1
    return False


@njit(cache=True)
def analytic_pairs(order, b_sorted, a, thr, c_ptr, c_idx, max_pairs):
    """Pairs that never co-occur and whose analytic |rho| = b_i * b_j >= ``thr``.

    ``order`` maps sorted positions to feature indices (b_sorted = |a|[order]).
    Returns ``(i, j, rho)`` with i < j and rho = -a_i * a_j, or ``n = -1`` arrays when
    more than ``max_pairs`` candidates would have to be checked.
    """
    m = b_sorted.shape[0]
    # count candidates first (two pointers)
    p = m
    total = 0
    for s in range(m):
        while p > 0 and b_sorted[s] * b_sorted[p - 1] >= thr:
            p -= 1
        start = max(s + 1, p)
        if start < m:
            total += m - start
    if total > max_pairs:
        e = np.empty(0, dtype=np.int64)
        return e, e, np.empty(0, dtype=np.float64), total
    oi = np.empty(total, dtype=np.int64)
    oj = np.empty(total, dtype=np.int64)
    orho = np.empty(total, dtype=np.float64)
    k = 0
    p = m
    for s in range(m):
        while p > 0 and b_sorted[s] * b_sorted[p - 1] >= thr:
            p -= 1
        start = max(s + 1, p)
        for t in range(start, m):
            i = order[s]
            j = order[t]
            if i > j:
                i, j = j, i
            if not _share_row(c_ptr, c_idx, i, j):
                oi[k] = i
                oj[k] = j
                orho[k] = -(a[i] * a[j])
                k += 1
    return oi[:k], oj[:k], orho[:k], total


@njit(cache=True, parallel=True)
def sparse_pair_rho(pi, pj, c_ptr, c_idx, c_val, mean, inv_s, n):
    """Correlations of the given feature pairs of a sparse CSC matrix (sorted indices)."""
    npairs = pi.shape[0]
    out = np.empty(npairs, dtype=np.float64)
    for k in prange(npairs):
        i = pi[k]
        j = pj[k]
        p = c_ptr[i]
        pe = c_ptr[i + 1]
        q = c_ptr[j]
        qe = c_ptr[j + 1]
        acc = 0.0
        while p < pe and q < qe:
            if c_idx[p] == c_idx[q]:
                acc += c_val[p] * c_val[q]
                p += 1
                q += 1
            elif c_idx[p] < c_idx[q]:
                p += 1
            else:
                q += 1
        out[k] = (acc - n * mean[i] * mean[j]) * inv_s[i] * inv_s[j]
    return out


@njit(cache=True)
def slots_of_values(v, lo, hi, inv_w):
    """Slot counts of an array of non-negative values."""
    out = np.zeros(lo.shape[0] + 2, dtype=np.int64)
    for k in range(v.shape[0]):
        out[slot_of(v[k], lo, hi, inv_w)] += 1
    return out
