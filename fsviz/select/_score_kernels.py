"""Numba kernels for the per-feature scores (LGD, ReliefF).

Plain functions on contiguous float64/int64 arrays; no validation inside. The hot
kernels come in a serial and a threaded (``*_par``) version: a parallel region costs
tens of milliseconds when the cores are busy, so callers use the threaded one only
when the work is large (:data:`PARALLEL_WORK`).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

PARALLEL_WORK = 2e8  # element operations above which the threaded kernels pay off


# ----------------------------------------------------------------------------- LGD
@njit(cache=True)
def lgd_sorted(v, k):
    """Global and local sums of squares of one feature whose values ``v`` are sorted.

    Global: ``sum_i (v_i - mean)^2`` (two-pass). Local (eq. 29-30): for every sample
    its neighbourhood is the ``k`` values nearest to its own, itself included -- a
    contiguous window of the sorted values grown one step at a time towards the
    closer side (ties towards the smaller value) -- and the window's sum of squared
    deviations from its own mean is added.
    """
    n = v.shape[0]
    mean = 0.0
    for i in range(n):
        mean += v[i]
    mean /= n
    g = 0.0
    for i in range(n):
        t = v[i] - mean
        g += t * t
    loc = 0.0
    for p in range(n):
        lo = p
        hi = p
        while hi - lo + 1 < k:
            if lo == 0:
                hi += 1
            elif hi == n - 1 or v[p] - v[lo - 1] <= v[hi + 1] - v[p]:
                lo -= 1
            else:
                hi += 1
        wm = 0.0
        for i in range(lo, hi + 1):
            wm += v[i]
        wm /= k
        for i in range(lo, hi + 1):
            t = v[i] - wm
            loc += t * t
    return g, loc


@njit(cache=True)
def lgd_dense(rows, k):
    """``(global, local)`` sums of squares of every feature of ``rows`` (``X`` transposed, a
    feature per row, C-ordered: one layout whatever the number of features)."""
    m = rows.shape[0]
    g = np.empty(m)
    loc = np.empty(m)
    for j in range(m):
        v = np.sort(rows[j])
        a, b = lgd_sorted(v, k)
        g[j] = a
        loc[j] = b
    return g, loc


@njit(cache=True, parallel=True)
def lgd_dense_par(rows, k):
    """:func:`lgd_dense` with the features spread over threads (for large inputs)."""
    m = rows.shape[0]
    g = np.empty(m)
    loc = np.empty(m)
    for j in prange(m):
        v = np.sort(rows[j])
        a, b = lgd_sorted(v, k)
        g[j] = a
        loc[j] = b
    return g, loc


@njit(cache=True)
def lgd_csc(data, indices, indptr, n, k):
    """LGD sums of squares of every column of a CSC matrix (implicit zeros included).

    Each column is rebuilt sorted as ``[negatives, zeros, positives]`` in O(n).
    """
    m = indptr.shape[0] - 1
    g = np.empty(m)
    loc = np.empty(m)
    for j in range(m):
        vals = np.sort(data[indptr[j] : indptr[j + 1]])
        v = np.zeros(n)
        nneg = 0
        for t in range(vals.shape[0]):
            if vals[t] < 0:
                nneg += 1
        for t in range(nneg):
            v[t] = vals[t]
        npos = vals.shape[0] - nneg
        for t in range(npos):
            v[n - npos + t] = vals[nneg + t]
        a, b = lgd_sorted(v, k)
        g[j] = a
        loc[j] = b
    return g, loc


# ------------------------------------------------------------------------- ReliefF
@njit(cache=True, parallel=True, fastmath=True)
def manhattan_rows(Xc, rows):
    """Manhattan distances of the rows ``rows`` of C-ordered ``Xc`` to every row -> (len(rows), n).

    Used for large ``n`` only (row blocks of the distance matrix), hence threaded.
    """
    b = rows.shape[0]
    n, m = Xc.shape
    D = np.empty((b, n))
    for a in prange(b):
        i = rows[a]
        xi = Xc[i]
        for j in range(n):
            xj = Xc[j]
            acc = 0.0
            for f in range(m):
                acc += abs(xi[f] - xj[f])
            D[a, j] = acc
    return D


@njit(cache=True)
def relieff_neighbours(D, rows, y, n_classes, k, prior):
    """Pairs and weights of ReliefF for the sampled instances ``rows``.

    ``D[a]`` holds the distances of instance ``rows[a]`` to all instances. Neighbours
    are taken in order of distance, ties by index (stable sort), the instance itself
    excluded: the ``k`` nearest hits get weight ``-1/k_hit`` and the ``k`` nearest
    misses of every other class ``C`` weight ``p(C)/(1 - p(y_i)) / k_C``, where
    ``k_hit``/``k_C`` are the numbers actually found (fewer when a class is small).
    Returns ``(i, j, w)`` arrays; the caller divides by the number of instances.
    """
    b = rows.shape[0]
    cap = b * k * n_classes
    pi = np.empty(cap, dtype=np.int64)
    pj = np.empty(cap, dtype=np.int64)
    pw = np.empty(cap)
    cnt = np.zeros(n_classes, dtype=np.int64)
    start = np.empty(n_classes, dtype=np.int64)
    npairs = 0
    for a in range(b):
        i = rows[a]
        order = np.argsort(D[a], kind="mergesort")
        cnt[:] = 0
        base = npairs
        for c in range(n_classes):
            start[c] = base + c * k
        filled = 0
        for t in range(order.shape[0]):
            j = order[t]
            if j == i:
                continue
            c = y[j]
            if cnt[c] < k:
                pi[start[c] + cnt[c]] = i
                pj[start[c] + cnt[c]] = j
                cnt[c] += 1
                if cnt[c] == k:
                    filled += 1
                    if filled == n_classes:
                        break
        yi = y[i]
        for c in range(n_classes):
            for t in range(cnt[c]):
                if c == yi:
                    pw[start[c] + t] = -1.0 / cnt[c]
                else:
                    pw[start[c] + t] = prior[c] / (1.0 - prior[yi]) / cnt[c]
        # compact: move the used slots of this instance together
        w = base
        for c in range(n_classes):
            for t in range(cnt[c]):
                src = start[c] + t
                pi[w] = pi[src]
                pj[w] = pj[src]
                pw[w] = pw[src]
                w += 1
        npairs = w
    return pi[:npairs].copy(), pj[:npairs].copy(), pw[:npairs].copy()


@njit(cache=True)
def relieff_accumulate_dense(Xc, pi, pj, pw):
    """``score_f = sum_p pw_p |Xc[pi_p, f] - Xc[pj_p, f]|`` for C-ordered ``Xc`` (rows streamed)."""
    m = Xc.shape[1]
    out = np.zeros(m)
    for p in range(pi.shape[0]):
        a = Xc[pi[p]]
        b = Xc[pj[p]]
        w = pw[p]
        for f in range(m):
            out[f] += w * abs(a[f] - b[f])
    return out


@njit(cache=True)
def relieff_accumulate_csr(data, indices, indptr, m, pi, pj, pw):
    """Same as :func:`relieff_accumulate_dense` for a CSR matrix with sorted indices."""
    out = np.zeros(m)
    for p in range(pi.shape[0]):
        w = pw[p]
        a, ae = indptr[pi[p]], indptr[pi[p] + 1]
        b, be = indptr[pj[p]], indptr[pj[p] + 1]
        while a < ae or b < be:
            if b >= be or (a < ae and indices[a] < indices[b]):
                out[indices[a]] += w * abs(data[a])
                a += 1
            elif a >= ae or indices[b] < indices[a]:
                out[indices[b]] += w * abs(data[b])
                b += 1
            else:
                out[indices[a]] += w * abs(data[a] - data[b])
                a += 1
                b += 1
    return out


@njit(cache=True, fastmath=True)
def manhattan_full(Xc):
    """All-pairs Manhattan distances of the rows of C-ordered ``Xc``, computing each pair once."""
    n, m = Xc.shape
    D = np.zeros((n, n))
    for i in range(n):
        xi = Xc[i]
        for j in range(i + 1, n):
            xj = Xc[j]
            acc = 0.0
            for f in range(m):
                acc += abs(xi[f] - xj[f])
            D[i, j] = acc
            D[j, i] = acc
    return D


@njit(cache=True, parallel=True, fastmath=True)
def manhattan_full_par(Xc):
    """:func:`manhattan_full` with balanced row pairs spread over threads (large inputs)."""
    n, m = Xc.shape
    D = np.zeros((n, n))
    half = (n + 1) // 2
    for t in prange(half):  # rows t and n-1-t together: balanced triangular work
        tt = np.int64(t)
        for r in range(2):
            i = tt if r == 0 else np.int64(n - 1) - tt
            if r == 1 and i == tt:
                break
            xi = Xc[i]
            for j in range(i + 1, n):
                xj = Xc[j]
                acc = 0.0
                for f in range(m):
                    acc += abs(xi[f] - xj[f])
                D[i, j] = acc
    for i in prange(n):
        for j in range(i):
            D[i, j] = D[j, i]
    return D


# ---------------------------------------------------------------- class statistics
@njit(cache=True, fastmath=False)
def class_ss_rows(X, codes, counts):
    """Class means, within-class sums of squares and a constant-column flag of C-ordered ``X``.

    Two streaming passes over the rows (sums, then squared deviations from the class
    mean), no temporary of the size of ``X``.
    """
    n, m = X.shape
    c = counts.shape[0]
    means = np.zeros((c, m))
    lo = X[0].copy()
    hi = X[0].copy()
    for i in range(n):
        row = X[i]
        acc = means[codes[i]]
        for j in range(m):
            v = row[j]
            acc[j] += v
            if v < lo[j]:
                lo[j] = v
            elif v > hi[j]:
                hi[j] = v
    for a in range(c):
        inv = 1.0 / counts[a]
        for j in range(m):
            means[a, j] *= inv
    within = np.zeros(m)
    for i in range(n):
        row = X[i]
        mu = means[codes[i]]
        for j in range(m):
            t = row[j] - mu[j]
            within[j] += t * t
    const = hi <= lo
    return means, within, const


# ---------------------------------------------------------------- Laplacian score
@njit(cache=True)
def laplacian_dense(X, deg, er, ec, ew):
    """``f'Df`` of the D-centred columns, ``f'Lf = sum_e w_e (f_i - f_j)^2`` and a constant flag.

    C-ordered ``X``, rows streamed: one pass for the D-weighted mean (and min/max), one
    for ``f'Df``, one over the edges.
    """
    n, m = X.shape
    vol = 0.0
    for i in range(n):
        vol += deg[i]
    mu = np.zeros(m)
    lo = X[0].copy()
    hi = X[0].copy()
    for i in range(n):
        row = X[i]
        w = deg[i] / vol
        for j in range(m):
            v = row[j]
            mu[j] += w * v
            if v < lo[j]:
                lo[j] = v
            elif v > hi[j]:
                hi[j] = v
    fdf = np.zeros(m)
    for i in range(n):
        row = X[i]
        w = deg[i]
        for j in range(m):
            t = row[j] - mu[j]
            fdf[j] += w * t * t
    flf = np.zeros(m)
    for e in range(er.shape[0]):
        a = X[er[e]]
        b = X[ec[e]]
        w = ew[e]
        for j in range(m):
            t = a[j] - b[j]
            flf[j] += w * t * t
    return fdf, flf, hi <= lo


# ---------------------------------------------------------------- variance
@njit(cache=True)
def centred_ss_rows(X):
    """Centred sum of squares and a constant flag of every column of C-ordered ``X`` (two passes)."""
    n, m = X.shape
    mu = np.zeros(m)
    lo = X[0].copy()
    hi = X[0].copy()
    for i in range(n):
        row = X[i]
        for j in range(m):
            v = row[j]
            mu[j] += v
            if v < lo[j]:
                lo[j] = v
            elif v > hi[j]:
                hi[j] = v
    for j in range(m):
        mu[j] /= n
    ss = np.zeros(m)
    for i in range(n):
        row = X[i]
        for j in range(m):
            t = row[j] - mu[j]
            ss[j] += t * t
    return ss, hi <= lo


@njit(cache=True)
def centred_ss_cols(X):
    """Same as :func:`centred_ss_rows` for Fortran-ordered ``X`` (column by column)."""
    n, m = X.shape
    ss = np.zeros(m)
    const = np.zeros(m, dtype=np.bool_)
    for j in range(m):
        mu = 0.0
        lo = X[0, j]
        hi = X[0, j]
        for i in range(n):
            v = X[i, j]
            mu += v
            lo = min(lo, v)
            hi = max(hi, v)
        mu /= n
        acc = 0.0
        for i in range(n):
            t = X[i, j] - mu
            acc += t * t
        ss[j] = acc
        const[j] = hi <= lo
    return ss, const


# ---------------------------------------------------------------- kNN from a Gram matrix
@njit(cache=True)
def knn_from_gram(G, sq, start, k, lower):
    """The ``k`` nearest other samples of rows ``start .. start + len(G)`` from Gram entries.

    ``d2(i, j) = sq_i + sq_j - 2 G[i, j]`` (clipped at 0); with ``lower`` only the lower
    triangle of a full ``n x n`` ``G`` is read. Ties are broken by the smaller index.
    ``G`` is C-ordered either way (one compiled layout). Returns ``(cols, d2)`` of shape
    ``(b, k)``, nearest first.
    """
    b = G.shape[0]
    n = sq.shape[0]
    cols = np.empty((b, k), dtype=np.int64)
    vals = np.empty((b, k))
    for r in range(b):
        i = start + r
        bd = np.full(k, np.inf)
        bj = np.full(k, -1, dtype=np.int64)
        for j in range(n):
            if j == i:
                continue
            if lower:
                g = G[j, i] if j >= i else G[i, j]
            else:
                g = G[r, j]
            d = sq[i] + sq[j] - 2.0 * g
            d = max(d, 0.0)
            if d < bd[k - 1]:
                p = k - 1
                while p > 0 and bd[p - 1] > d:
                    bd[p] = bd[p - 1]
                    bj[p] = bj[p - 1]
                    p -= 1
                bd[p] = d
                bj[p] = j
        cols[r] = bj
        vals[r] = bd
    return cols, vals


@njit(cache=True)
def class_ss_cols(X, codes, counts):
    """:func:`class_ss_rows` for Fortran-ordered ``X``: column by column, no copy of ``X``."""
    n, m = X.shape
    c = counts.shape[0]
    means = np.zeros((c, m))
    within = np.zeros(m)
    const = np.zeros(m, dtype=np.bool_)
    acc = np.zeros(c)
    for j in range(m):
        acc[:] = 0.0
        lo = X[0, j]
        hi = X[0, j]
        for i in range(n):
            v = X[i, j]
            acc[codes[i]] += v
            lo = min(lo, v)
            hi = max(hi, v)
        for a in range(c):
            acc[a] /= counts[a]
            means[a, j] = acc[a]
        w = 0.0
        for i in range(n):
            t = X[i, j] - acc[codes[i]]
            w += t * t
        within[j] = w
        const[j] = hi <= lo
    return means, within, const


# ----------------------------------------------------------------------------- Gini index
@njit(cache=True)
def gini_best_split(rows, codes, total):
    """Survey eq. (83) for every feature of ``rows`` (a feature per row, C-ordered: one layout
    whatever the number of features): the smallest weighted Gini impurity
    ``p(W) (1 - sum_s p(s|W)^2) + p(W') (1 - sum_s p(s|W')^2)`` over the splits
    ``W = {x <= v}``, ``W' = {x > v}`` at every distinct value ``v`` (the largest gives
    ``W' = {}``, i.e. the impurity of the labels themselves).

    ``codes`` are int64 class codes, ``total`` the class sizes. Each column is sorted once
    and swept with the class counts left of the split; ``sum_s n_s^2`` on either side is
    updated in O(1) per sample in exact integer arithmetic.
    """
    m, n = rows.shape
    c = total.shape[0]
    out = np.empty(m)
    left = np.zeros(c, dtype=np.int64)
    sum_t = np.int64(0)
    for s in range(c):
        sum_t += total[s] * total[s]
    parent = 1.0 - (sum_t / n) / n
    for j in range(m):
        col = rows[j]
        order = np.argsort(col, kind="mergesort")
        left[:] = 0
        sum_l = np.int64(0)
        sum_r = sum_t
        best = parent
        for t in range(n - 1):
            i = order[t]
            s = codes[i]
            sum_l += 2 * left[s] + 1
            left[s] += 1
            sum_r -= 2 * (total[s] - left[s]) + 1
            if col[order[t + 1]] > col[i]:
                nl = t + 1
                nr = n - nl
                g = 1.0 - (sum_l / nl + sum_r / nr) / n
                if g < best:
                    best = g
        out[j] = best
    return out


@njit(cache=True)
def _entropy_bits(counts, total):
    h = 0.0
    for c in range(counts.size):
        if counts[c] > 0:
            p = counts[c] / total
            h -= p * np.log2(p)
    return h


@njit(cache=True)
def _mdl_ig_column(x, codes, n_classes):
    """Information gain (bits) of one feature cut by Fayyad & Irani's recursive MDLP.

    Sorted values; a segment is split at the boundary (between two distinct values) of
    lowest class entropy when the gain passes the MDL criterion
    ``gain > (log2(N - 1) + log2(3^k - 2) - [k Ent(S) - k1 Ent(S1) - k2 Ent(S2)]) / N``;
    the gain of the final partition is ``Ent(Y) - sum_leaves N_leaf / N Ent(leaf)``
    (exactly 0 when no cut is accepted).
    """
    n = x.size
    order = np.argsort(x, kind="mergesort")
    xs = x[order]
    ys = codes[order]
    tot = np.zeros(n_classes)
    for i in range(n):
        tot[ys[i]] += 1.0
    h_all = _entropy_bits(tot, float(n))
    cond = 0.0
    stack = np.empty((n + 1, 2), dtype=np.int64)
    stack[0, 0], stack[0, 1] = 0, n
    top = 1
    left = np.zeros(n_classes)
    seg = np.zeros(n_classes)
    best_left = np.zeros(n_classes)
    log2_3 = np.log2(3.0)
    while top > 0:
        top -= 1
        lo, hi = stack[top, 0], stack[top, 1]
        m = hi - lo
        seg[:] = 0.0
        for i in range(lo, hi):
            seg[ys[i]] += 1.0
        h = _entropy_bits(seg, float(m))
        best, cut = np.inf, -1
        left[:] = 0.0
        for i in range(lo, hi - 1):
            left[ys[i]] += 1.0
            if xs[i + 1] > xs[i]:
                nl = i - lo + 1
                hl = _entropy_bits(left, float(nl))
                hr = 0.0
                for c in range(n_classes):
                    r = seg[c] - left[c]
                    if r > 0:
                        p = r / (m - nl)
                        hr -= p * np.log2(p)
                e = (nl * hl + (m - nl) * hr) / m
                if e < best:
                    best, cut = e, i
                    best_left[:] = left
        accepted = False
        if cut >= 0:
            nl = cut - lo + 1
            hl = _entropy_bits(best_left, float(nl))
            k = k1 = k2 = 0
            for c in range(n_classes):
                r = seg[c] - best_left[c]
                k += seg[c] > 0
                k1 += best_left[c] > 0
                k2 += r > 0
            for c in range(n_classes):
                best_left[c] = seg[c] - best_left[c]
            hr = _entropy_bits(best_left, float(m - nl))
            delta = k * log2_3 + np.log2(1.0 - 2.0 / 3.0**k) - (k * h - k1 * hl - k2 * hr)
            accepted = h - best > (np.log2(m - 1.0) + delta) / m
        if accepted:
            stack[top, 0], stack[top, 1] = lo, cut + 1
            stack[top + 1, 0], stack[top + 1, 1] = cut + 1, hi
            top += 2
        else:
            cond += m / n * h
    return max(h_all - cond, 0.0)


@njit(cache=True, parallel=True)
def mdl_ig(X, codes, n_classes):
    """:func:`_mdl_ig_column` of every column of the Fortran-ordered ``X``, in nats."""
    m = X.shape[1]
    out = np.empty(m)
    for j in prange(m):
        out[j] = _mdl_ig_column(np.ascontiguousarray(X[:, j]), codes, n_classes) * np.log(2.0)
    return out


@njit(cache=True)
def constant_columns(X):
    """Which columns of the 2-D array ``X`` hold one value only (early exit per column).

    A varying column is usually told apart within its first rows, so the typical cost is
    O(m) rather than the O(n m) of a max/min reduction; constant columns are read in full.
    """
    n, m = X.shape
    out = np.ones(m, dtype=np.bool_)
    for j in range(m):
        v = X[0, j]
        for i in range(1, n):
            if X[i, j] != v:
                out[j] = False
                break
    return out
