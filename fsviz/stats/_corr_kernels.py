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
def slot_of(v, lo, hi):
    """Slot of one value (binary search over the lower thresholds)."""
    if v > hi:
        return lo.shape[0] + 1
    a = 0
    b = lo.shape[0]
    while a < b:  # number of thresholds <= v
        mid = (a + b) >> 1
        if lo[mid] <= v:
            a = mid + 1
        else:
            b = mid
    return a


@njit(cache=True, parallel=True)
def hist_dense_block(G, diag, lo, hi, nthreads):
    """Slot counts of |G[i, j]| over a block (only j > i when ``diag``)."""
    nr, nc = G.shape
    ns = lo.shape[0] + 2
    nchunks = min(nr, 4 * nthreads)
    local = np.zeros((max(nchunks, 1), ns), dtype=np.int64)
    for c in prange(nchunks):
        for i in range(c, nr, nchunks):
            j0 = i + 1 if diag else 0
            for j in range(j0, nc):
                local[c, slot_of(abs(G[i, j]), lo, hi)] += 1
    return local.sum(axis=0)


@njit(cache=True, parallel=True)
def hist_dense_block_f32(G, Z1T, Z2T, diag, delta, lo, hi, nthreads):
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
        for i in range(c, nr, nchunks):
            j0 = i + 1 if diag else 0
            for j in range(j0, nc):
                v = abs(np.float64(G[i, j]))
                s = slot_of(v - delta, lo, hi)
                if s != slot_of(v + delta, lo, hi):
                    acc = 0.0
                    for k in range(n):
                        acc += Z1T[i, k] * Z2T[j, k]
                    s = slot_of(abs(acc), lo, hi)
                    rech[c] += 1
                local[c, s] += 1
    return local.sum(axis=0), rech.sum()


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
            start = p if p > i + 1 else i + 1
            if start < m:
                total += m - start
        out[t] = total
    return out


@njit(cache=True, parallel=True)
def cooc_hist(feats, c_ptr, c_idx, c_val, r_ptr, r_idx, r_val, mean, inv_s, b, valid, n, lo, hi, nthreads):
    """Slot corrections for all co-occurring pairs (i, j > i), i in ``feats``.

    For every valid feature i in ``feats`` and every valid j > i that shares a stored
    row with it: add the slot of the true |rho_ij| and subtract the slot of the
    analytic value ``b[i] * b[j]`` that the sorted sweep counted for it. Gustavson
    sparse accumulation over the rows of column i (CSC ``c_*``, CSR ``r_*``, both with
    sorted indices). Returns ``(slot_deltas, n_cooccurring_pairs)``.
    """
    m = mean.shape[0]
    ns = lo.shape[0] + 2
    nf = feats.shape[0]
    nchunks = min(max(nf, 1), 4 * nthreads)
    local = np.zeros((nchunks, ns), dtype=np.int64)
    npairs = np.zeros(nchunks, dtype=np.int64)
    for c in prange(nchunks):
        acc = np.zeros(m, dtype=np.float64)
        seen = np.zeros(m, dtype=np.bool_)
        touched = np.empty(m, dtype=np.int64)
        for q in range(c, nf, nchunks):
            i = feats[q]
            if not valid[i]:
                continue
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
                    if not seen[j]:
                        seen[j] = True
                        touched[nt] = j
                        nt += 1
                    acc[j] += xi * r_val[t]
            mi = n * mean[i]
            for t in range(nt):
                j = touched[t]
                if valid[j]:
                    rho = (acc[j] - mi * mean[j]) * inv_s[i] * inv_s[j]
                    local[c, slot_of(abs(rho), lo, hi)] += 1
                    local[c, slot_of(b[i] * b[j], lo, hi)] -= 1
                    npairs[c] += 1
                acc[j] = 0.0
                seen[j] = False
    return local.sum(axis=0), npairs.sum()


@njit(cache=True)
def cooc_pairs(feats, c_ptr, c_idx, c_val, r_ptr, r_idx, r_val, mean, inv_s, valid, n, thr):
    """All co-occurring pairs (i in ``feats``, j > i) with |rho_ij| >= ``thr``.

    Same accumulation as :func:`cooc_hist`; returns ``(i, j, rho)`` arrays.
    """
    m = mean.shape[0]
    acc = np.zeros(m, dtype=np.float64)
    seen = np.zeros(m, dtype=np.bool_)
    touched = np.empty(m, dtype=np.int64)
    cap = 1024
    oi = np.empty(cap, dtype=np.int64)
    oj = np.empty(cap, dtype=np.int64)
    orho = np.empty(cap, dtype=np.float64)
    k = 0
    for q in range(feats.shape[0]):
        i = feats[q]
        if not valid[i]:
            continue
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
                if not seen[j]:
                    seen[j] = True
                    touched[nt] = j
                    nt += 1
                acc[j] += xi * r_val[t]
        mi = n * mean[i]
        for t in range(nt):
            j = touched[t]
            if valid[j]:
                rho = (acc[j] - mi * mean[j]) * inv_s[i] * inv_s[j]
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
            acc[j] = 0.0
            seen[j] = False
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
        start = p if p > s + 1 else s + 1
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
        start = p if p > s + 1 else s + 1
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
def slots_of_values(v, lo, hi):
    """Slot counts of an array of non-negative values."""
    out = np.zeros(lo.shape[0] + 2, dtype=np.int64)
    for k in range(v.shape[0]):
        out[slot_of(v[k], lo, hi)] += 1
    return out
