"""GDM's five CRM walk kernels as they were before they shared one walk (fsviz 0.1.0, commit
6ec31e6: ``fsviz/select/gdm/_kernels.py`` and ``_sparse_sf.py``), kept verbatim for
``benchmarks/bench_gdm.py --walks``, which times them side by side with the shared walk of
``fsviz/select/gdm/_crm_kernels.py`` and checks that both give identical results."""

from __future__ import annotations

import numpy as np
from numba import njit

from fsviz.select.gdm._kernels import _hp, sparse_entropy, sparse_joint_entropy
from fsviz.stats._info_kernels import joint_entropy_codes


@njit(cache=True)
def window_sfs(ti, t_s, n_sf, window, win) -> int:
    """The first ``n_sf`` SFs whose ``|t|`` lies within ``window`` of ``ti`` (Theorem 1), written to
    ``win`` in buffer order; returns how many. Shared by every CRM walk kernel."""
    nw = 0
    for j in range(n_sf):
        if abs(ti - abs(t_s[j])) <= window:
            win[nw] = j
            nw += 1
    return nw


@njit(cache=True)
def crm_walk_pcc(Xc, mean_c, norm_c, t_c, is_sf, Zs, t_s, n_sf, window, thr, need, status, corr_out):
    """Alg. 2 with PCC on one chunk of candidates.

    Parameters
    ----------
    Xc : float64 (n, c), Fortran order
        Raw candidate columns, in walk order.
    mean_c, norm_c : float64 (c,)
        Mean and centred norm of each candidate (norm > 0).
    t_c : float64 (c,)
        Pruning statistic ``z_j . v`` of each candidate (unit-norm centred features).
    is_sf : bool (c,)
        Candidate is already an SF: it enters ``delta^t`` directly.
    Zs : float64 (n, p_max), Fortran order
        Standardised SF columns; the first ``n_sf`` are filled, new SFs are appended.
    t_s : float64 (p_max,)
        Pruning statistic of the SFs (appended too).
    window : float
        Theorem 1 window ``sqrt(2 tau) ||v - mean(v)||``: an SF ``j`` is compared with a
        candidate only when ``| |t_c| - |t_j| | <= window``.
    thr : float
        ``1 - tau``.
    need : int
        Stop when ``delta^t`` has this many features (new or existing SFs).
    status : int64 (c,), out
    corr_out : float64 (c,), out
        ``|rho|`` to the assigned SF for AFs.

    Returns
    -------
    (n_sf, n_taken, n_corr, n_processed) -- ``n_taken`` counts new and re-met SFs.
    """
    n = Xc.shape[0]
    c = Xc.shape[1]
    n_corr = 0
    n_new = 0
    processed = 0
    win = np.empty(Zs.shape[1], dtype=np.int64)
    dots = np.empty(Zs.shape[1])
    for i in range(c):
        if n_new >= need:
            break
        processed += 1
        if is_sf[i]:
            status[i] = -3
            corr_out[i] = 0.0
            n_new += 1
            continue
        ti = abs(t_c[i])
        mi = mean_c[i]
        best = -1.0
        bj = -1
        nw = window_sfs(ti, t_s, n_sf, window, win)  # SFs inside the Theorem 1 window
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
                xr = Xc[r, i] - mi
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
                dot += (Xc[r, i] - mi) * Zs[r, j]
            dots[q] = dot
        for q in range(nw):
            rho = abs(dots[q]) / norm_c[i]
            n_corr += 1
            if rho > best:
                best = rho
                bj = win[q]
        if bj >= 0 and best >= thr:
            status[i] = bj
            corr_out[i] = best
        else:
            inv = 1.0 / norm_c[i]
            for r in range(n):
                Zs[r, n_sf] = (Xc[r, i] - mi) * inv
            t_s[n_sf] = t_c[i]
            status[i] = -1
            corr_out[i] = 0.0
            n_sf += 1
            n_new += 1
    for i in range(processed, c):
        status[i] = -2
    return n_sf, n_new, n_corr, processed


@njit(cache=True)
def crm_walk_su(Cc, kc, hc, is_sf, Cs, ks, hs, n_sf, thr, need, status, corr_out):
    """Alg. 3 (symmetrical uncertainty) on one chunk: every candidate meets every SF.

    ``Cc`` (n, c) and ``Cs`` (n, p_max) are Fortran-ordered int32 codes with ``kc``/``ks``
    levels and entropies ``hc``/``hs`` (nats); SU = 2 I / (H_a + H_b).
    """
    c = Cc.shape[1]
    n = Cc.shape[0]
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
        best = -1.0
        bj = -1
        for j in range(n_sf):
            hab = joint_entropy_codes(Cc[:, i], kc[i], Cs[:, j], ks[j])
            den = hc[i] + hs[j]
            su = 0.0
            if den > 0:
                su = 2.0 * max(den - hab, 0.0) / den
            n_corr += 1
            if su > best:
                best = su
                bj = j
        if bj >= 0 and best >= thr:
            status[i] = bj
            corr_out[i] = best
        else:
            for r in range(n):
                Cs[r, n_sf] = Cc[r, i]
            ks[n_sf] = kc[i]
            hs[n_sf] = hc[i]
            status[i] = -1
            corr_out[i] = 0.0
            n_sf += 1
            n_new += 1
    for i in range(processed, c):
        status[i] = -2
    return n_sf, n_new, n_corr, processed


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
    """:func:`crm_walk_pcc` for sparse candidates (CSC chunk ``indptr, indices, data``).

    ``(x - mean) . z = sum over the non-zeros of x_r z_r - mean * sum(z)``: ``O(nnz)`` per
    compared SF instead of ``O(n)``. ``zsum[j]`` holds ``sum(Zs[:, j])`` for the first
    ``n_sf`` SFs; a new SF's column and sum are appended like ``crm_walk_pcc`` appends.
    """
    n = Zs.shape[0]
    c = mean_c.shape[0]
    n_corr = 0
    n_new = 0
    processed = 0
    win = np.empty(Zs.shape[1], dtype=np.int64)
    for i in range(c):
        if n_new >= need:
            break
        processed += 1
        if is_sf[i]:
            status[i] = -3
            corr_out[i] = 0.0
            n_new += 1
            continue
        ti = abs(t_c[i])
        mi = mean_c[i]
        best = -1.0
        bj = -1
        nw = window_sfs(ti, t_s, n_sf, window, win)  # SFs inside the Theorem 1 window
        a = indptr[i]
        b = indptr[i + 1]
        for q in range(nw):
            j = win[q]
            dot = 0.0
            for e in range(a, b):
                dot += data[e] * Zs[indices[e], j]
            rho = abs(dot - mi * zsum[j]) / norm_c[i]
            n_corr += 1
            if rho > best:
                best = rho
                bj = j
        if bj >= 0 and best >= thr:
            status[i] = bj
            corr_out[i] = best
        else:
            inv = 1.0 / norm_c[i]
            for r in range(n):
                Zs[r, n_sf] = -mi * inv
            for e in range(a, b):
                Zs[indices[e], n_sf] = (data[e] - mi) * inv
            s = 0.0
            for r in range(n):
                s += Zs[r, n_sf]
            zsum[n_sf] = s
            t_s[n_sf] = t_c[i]
            status[i] = -1
            corr_out[i] = 0.0
            n_sf += 1
            n_new += 1
    for i in range(processed, c):
        status[i] = -2
    return n_sf, n_new, n_corr, processed


@njit(cache=True)
def _dot_sf(indptr, indices, data, i, sumx, ptr, rows, sdata, j, mj, ij, work, scattered):
    """``x_i . z_j`` for sparse candidate ``i`` and sparse SF ``j`` (see the module docstring)."""
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
    """:func:`~fsviz.select.gdm._kernels.crm_walk_pcc_sparse` with sparse SFs.

    The same walk (status codes, windows, ``n_correlations``); ``x . z_s`` by
    :func:`_dot_sf`; a new SF's raw non-zeros are appended to ``rows``/``sdata`` (room
    reserved by the caller). ``work`` is a zeroed float64 vector of length ``n`` (zeroed
    again on return).
    """
    c = mean_c.shape[0]
    n_corr = 0
    n_new = 0
    processed = 0
    win = np.empty(t_s.shape[0], dtype=np.int64)
    for i in range(c):
        if n_new >= need:
            break
        processed += 1
        if is_sf[i]:
            status[i] = -3
            corr_out[i] = 0.0
            n_new += 1
            continue
        ti = abs(t_c[i])
        mi = mean_c[i]
        best = -1.0
        bj = -1
        nw = window_sfs(ti, t_s, n_sf, window, win)  # SFs inside the Theorem 1 window
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
                indptr, indices, data, i, sumx, ptr, rows, sdata, j, s_mean[j], s_inv[j], work, use_scatter
            )
            rho = abs(dot - mi * zsum[j]) / norm_c[i]
            n_corr += 1
            if rho > best:
                best = rho
                bj = j
        if scattered:
            for e in range(a, b):
                work[indices[e]] = 0.0
        if bj >= 0 and best >= thr:
            status[i] = bj
            corr_out[i] = best
        else:
            inv = 1.0 / norm_c[i]
            o = ptr[n_sf]
            s = 0.0
            for e in range(a, b):
                rows[o + e - a] = indices[e]
                sdata[o + e - a] = data[e]
                s += (data[e] - mi) * inv
            ptr[n_sf + 1] = o + nnz_i
            zsum[n_sf] = s + (-mi * inv) * (n - nnz_i)
            s_mean[n_sf] = mi
            s_inv[n_sf] = inv
            t_s[n_sf] = t_c[i]
            status[i] = -1
            corr_out[i] = 0.0
            n_sf += 1
            n_new += 1
    for i in range(processed, c):
        status[i] = -2
    return n_sf, n_new, n_corr, processed


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
    """:func:`~fsviz.select.gdm._kernels.crm_walk_su` for sparse candidates: every candidate
    meets every SF through a sparsity-aware contingency count.

    The SF codes ``Cs`` (n, p_max; Fortran order, int8/int16/int32) are read only at the
    candidate's non-zero rows: its implicit zeros share one code ``z``, so its table with SF
    ``s`` is ``hist[s]`` in row ``z`` minus what the stored values move to other rows (as
    :func:`~fsviz.select.gdm._kernels.sparse_complete_su`), ``O(nnz)`` per SF instead of
    ``O(n)``. Codes are those :func:`fsviz.stats.information.discretize` gives the dense
    column. A new SF's codes go to ``Cs[:, n_sf]`` (its histogram to ``hist``) and its raw
    non-zeros to ``rows``/``sdata`` for the master problem (room reserved by the caller).
    """
    c = is_sf.shape[0]
    kmax = hist.shape[1]
    n_corr = 0
    n_new = 0
    processed = 0
    nz_max = 1
    for i in range(c):
        nz_max = max(nz_max, indptr[i + 1] - indptr[i])
    codes = np.empty(nz_max, dtype=np.int64)
    gs = np.empty(nz_max, dtype=np.int64)
    kx_max = max(n_bins, 64)
    cnt = np.zeros(kx_max, dtype=np.int64)
    table = np.zeros(kx_max * kmax, dtype=np.int64)
    dcount = np.zeros(kmax, dtype=np.int64)
    for i in range(c):
        if n_new >= need:
            break
        processed += 1
        if is_sf[i]:
            status[i] = -3
            corr_out[i] = 0.0
            n_new += 1
            continue
        a = indptr[i]
        b = indptr[i + 1]
        nz = b - a
        kx, zc, hx = sparse_entropy(data[a:b], n, n_bins, discrete, codes, cnt, tab)
        best = -1.0
        bj = -1
        for j in range(n_sf):
            h_s = 0.0
            for u in range(ks[j]):
                h_s += _hp(hist[j, u], n, tab)
            for e in range(nz):  # the SF's codes at the candidate's rows
                gs[e] = Cs[indices[a + e], j]
            hxy = sparse_joint_entropy(codes, gs, nz, zc, hist[j], h_s, kmax, table, dcount, n, tab)
            den = hx + hs[j]
            su = 2.0 * max(den - hxy, 0.0) / den if den > 0 else 0.0
            n_corr += 1
            if su > best:
                best = su
                bj = j
        if bj >= 0 and best >= thr:
            status[i] = bj
            corr_out[i] = best
        else:
            zfill = zc if zc >= 0 else 0
            for r in range(n):
                Cs[r, n_sf] = zfill
            o = ptr[n_sf]
            for e in range(nz):
                Cs[indices[a + e], n_sf] = codes[e]
                rows[o + e] = indices[a + e]
                sdata[o + e] = data[a + e]
            ptr[n_sf + 1] = o + nz
            for u in range(kmax):
                hist[n_sf, u] = cnt[u] if u < kx else 0
            ks[n_sf] = kx
            hs[n_sf] = hx
            status[i] = -1
            corr_out[i] = 0.0
            n_sf += 1
            n_new += 1
    for i in range(processed, c):
        status[i] = -2
    return n_sf, n_new, n_corr, processed
