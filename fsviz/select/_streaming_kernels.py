"""Numba kernels of the streaming baselines (:mod:`fsviz.select.streaming`).

Plain functions compiled with ``njit(cache=True)``: contiguous float64/int arrays in,
no validation inside. Each has a test comparing it with its ``.py_func``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

# --------------------------------------------------------------------------- alpha-investing


@njit(cache=True)
def alpha_investing_block(XT, Q, k, r, rss, w, i0, dw, tol, out_p, out_alpha, out_acc):
    """Alpha-investing (Zhou et al. 2006) over the columns of one block ``X`` (n x b), passed
    transposed: ``XT`` (b x n), a feature per row, C-ordered (one layout whatever ``b``: a
    stream fed one feature at a time gives one-column blocks).

    ``Q[:, :k]`` is an orthonormal basis of the current model (intercept + accepted
    features), ``r`` the residual of y on it (updated in place), ``rss = r @ r``, ``w``
    the wealth, ``i0`` the stream position of the block's first column (0-based). For
    each column: the RSS drop of adding it is ``(x_perp @ r)^2 / |x_perp|^2``, its
    p-value ``exp(-drop / (2 rss / n))``, its level ``alpha_i = w / (2 i)`` (i 1-based);
    accepted when ``p < alpha_i``. Writes p-value, level and acceptance per column and
    returns ``(k, rss, w)``.
    """
    b, n = XT.shape
    xp = np.empty(n)
    for j in range(b):
        i = i0 + j + 1
        alpha = w / (2.0 * i)
        x = XT[j]
        xx = 0.0
        for t in range(n):
            xp[t] = x[t]
            xx += x[t] * x[t]
        for c in range(k):  # modified Gram-Schmidt against the basis
            d = 0.0
            for t in range(n):
                d += Q[t, c] * xp[t]
            for t in range(n):
                xp[t] -= d * Q[t, c]
        nrm2 = 0.0
        cr = 0.0
        for t in range(n):
            nrm2 += xp[t] * xp[t]
            cr += xp[t] * r[t]
        p = 1.0
        if nrm2 > tol * xx and nrm2 > 0.0 and rss > tol:
            drop = cr * cr / nrm2
            p = math.exp(-drop / (2.0 * rss / n))
        out_p[j] = p
        out_alpha[j] = alpha
        if p < alpha and k < Q.shape[1]:
            out_acc[j] = True
            s = 1.0 / math.sqrt(nrm2)
            for t in range(n):
                Q[t, k] = xp[t] * s
            for c in range(k):  # one re-orthogonalisation pass keeps Q orthonormal
                d = 0.0
                for t in range(n):
                    d += Q[t, c] * Q[t, k]
                for t in range(n):
                    Q[t, k] -= d * Q[t, c]
            q2 = 0.0
            for t in range(n):
                q2 += Q[t, k] * Q[t, k]
            s = 1.0 / math.sqrt(q2)
            qr = 0.0
            for t in range(n):
                Q[t, k] *= s
                qr += Q[t, k] * r[t]
            rss = 0.0
            for t in range(n):
                r[t] -= qr * Q[t, k]
                rss += r[t] * r[t]
            k += 1
            w = w + dw - alpha
        else:
            out_acc[j] = False
            w = w - alpha
    return k, rss, w


# --------------------------------------------------------------------------- p-values


@njit(cache=True)
def fisher_z_p(r, n, s):
    """Two-sided p-value of Fisher's z test of a (partial) correlation ``r`` given ``s`` variables."""
    dof = n - s - 3
    if dof <= 0:
        return 1.0
    r = min(max(r, -1.0 + 1e-15), 1.0 - 1e-15)
    z = math.atanh(r) * math.sqrt(dof)
    return math.erfc(abs(z) / math.sqrt(2.0))


@njit(cache=True)
def chi2_sf(x, dof):
    """Survival function of the chi-square distribution: Q(dof / 2, x / 2) (regularised upper
    incomplete gamma; series below a + 1, Lentz continued fraction above, as in Numerical Recipes)."""
    if dof <= 0:
        return 1.0
    if x <= 0.0:
        return 1.0
    a = 0.5 * dof
    z = 0.5 * x
    gln = math.lgamma(a)
    if z < a + 1.0:
        ap = a
        s = 1.0 / a
        d = s
        for _ in range(10000):
            ap += 1.0
            d *= z / ap
            s += d
            if abs(d) < abs(s) * 1e-15:
                break
        return max(0.0, 1.0 - s * math.exp(-z + a * math.log(z) - gln))
    tiny = 1e-300
    bb = z + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / bb
    h = d
    for i in range(1, 10000):
        an = -i * (i - a)
        bb += 2.0
        d = an * d + bb
        if abs(d) < tiny:
            d = tiny
        c = bb + an / c
        if abs(c) < tiny:
            c = tiny
        d = 1.0 / d
        de = d * c
        h *= de
        if abs(de - 1.0) < 1e-15:
            break
    return math.exp(-z + a * math.log(z) - gln) * h


# --------------------------------------------------------------------------- CI tests


@njit(cache=True)
def partial_corr(R, a, b, S, s):
    """Partial correlation of variables ``a`` and ``b`` given ``S[:s]`` from the correlation matrix R."""
    m = s + 2
    idx = np.empty(m, dtype=np.int64)
    idx[0] = a
    idx[1] = b
    for i in range(s):
        idx[i + 2] = S[i]
    sub = np.empty((m, m))
    for i in range(m):
        for j in range(m):
            sub[i, j] = R[idx[i], idx[j]]
    for i in range(m):
        sub[i, i] += 1e-12
    P = np.linalg.inv(sub)
    den = P[0, 0] * P[1, 1]
    if den <= 0.0:
        return 0.0
    return -P[0, 1] / math.sqrt(den)


@njit(cache=True)
def g2_test(codes, levels, a, b, S, s, work_key, work_ord):
    """G^2 test of independence of columns ``a`` and ``b`` of ``codes`` given columns ``S[:s]``.

    Degrees of freedom: sum over the observed strata of (rows - 1)(cols - 1) with the
    rows/columns present in the stratum (0 dof: no evidence of dependence, p = 1).
    Returns ``(p, G2, dof)``.
    """
    n = codes.shape[0]
    for t in range(n):
        key = 0
        for i in range(s):
            key = key * levels[S[i]] + codes[t, S[i]]
        work_key[t] = key
    if s > 0:
        o = np.argsort(work_key, kind="mergesort")
        for t in range(n):
            work_ord[t] = o[t]
    else:
        for t in range(n):
            work_ord[t] = t
    ka = levels[a]
    kb = levels[b]
    cnt = np.zeros((ka, kb))
    na = np.zeros(ka)
    nb = np.zeros(kb)
    g2 = 0.0
    dof = 0
    start = 0
    while start < n:
        stop = start + 1
        k0 = work_key[work_ord[start]]
        while stop < n and work_key[work_ord[stop]] == k0:
            stop += 1
        cnt[:, :] = 0.0
        na[:] = 0.0
        nb[:] = 0.0
        for u in range(start, stop):
            t = work_ord[u]
            cnt[codes[t, a], codes[t, b]] += 1.0
            na[codes[t, a]] += 1.0
            nb[codes[t, b]] += 1.0
        ns = stop - start
        ra = 0
        rb = 0
        for i in range(ka):
            if na[i] > 0:
                ra += 1
        for j in range(kb):
            if nb[j] > 0:
                rb += 1
        dof += (ra - 1) * (rb - 1)
        for i in range(ka):
            if na[i] == 0:
                continue
            for j in range(kb):
                c = cnt[i, j]
                if c > 0:
                    g2 += 2.0 * c * math.log(c * ns / (na[i] * nb[j]))
        start = stop
    return chi2_sf(g2, dof), g2, dof


@njit(cache=True)
def _ci_p(mode, R, codes, levels, n, a, b, S, s, wk, wo):
    if mode == 0:
        return fisher_z_p(partial_corr(R, a, b, S, s), n, s)
    return g2_test(codes, levels, a, b, S, s, wk, wo)[0]


@njit(cache=True)
def find_sepset(mode, R, codes, levels, n, a, b, cand, ncand, must, max_k, alpha, sep):
    """Is ``a`` independent of ``b`` given some subset of ``cand[:ncand]`` of size <= ``max_k``?

    With ``must >= 0`` only the subsets containing ``must`` are tested (``must`` not in
    ``cand``). Subsets are tried by increasing size, lexicographically. ``mode`` 0: Fisher's
    z on partial correlations from the correlation matrix ``R``; 1: G^2 on ``codes``.
    Returns ``(size of the separating set or -1, p-value)``: the p-value of the first
    subset with ``p > alpha``, else the largest p-value seen. ``sep`` receives the set.
    """
    wk = np.empty(n, dtype=np.int64)
    wo = np.empty(n, dtype=np.int64)
    S = np.empty(max_k + 1, dtype=np.int64)
    idx = np.empty(max_k + 1, dtype=np.int64)
    off = 0
    if must >= 0:
        S[0] = must
        off = 1
    best = -1.0
    top = max_k - off
    if top > ncand:
        top = ncand
    for t in range(0, top + 1):  # t = number of members drawn from cand
        for i in range(t):
            idx[i] = i
        while True:
            for i in range(t):
                S[off + i] = cand[idx[i]]
            p = _ci_p(mode, R, codes, levels, n, a, b, S, off + t, wk, wo)
            if p > alpha:
                for i in range(off + t):
                    sep[i] = S[i]
                return off + t, p
            if p > best:
                best = p
            # next combination
            i = t - 1
            while i >= 0 and idx[i] == ncand - t + i:
                i -= 1
            if i < 0:
                break
            idx[i] += 1
            for j in range(i + 1, t):
                idx[j] = idx[j - 1] + 1
    return -1, best


@njit(cache=True)
def redundancy_pass(
    mode, R, codes, levels, n, target, members, alive, must, max_k, alpha, removed_p, sep_out
):
    """OSFS redundancy analysis: each alive member Y (in order, ``must`` excluded) is removed
    when ``target`` is independent of Y given a subset of the other alive members
    (containing ``must`` when ``must >= 0``). Removals take effect at once. ``removed_p``
    and ``sep_out`` (rows per member) record the p-value and the separating set."""
    m = members.shape[0]
    cand = np.empty(m, dtype=np.int64)
    sep = np.empty(max_k + 1, dtype=np.int64)
    for y in range(m):
        if not alive[y] or members[y] == must:
            continue
        nc = 0
        for z in range(m):
            if z != y and alive[z] and members[z] != must:
                cand[nc] = members[z]
                nc += 1
        size, p = find_sepset(
            mode, R, codes, levels, n, target, members[y], cand, nc, must, max_k, alpha, sep
        )
        if size >= 0:
            alive[y] = False
            removed_p[y] = p
            for i in range(size):
                sep_out[y, i] = sep[i]


@njit(cache=True)
def g2_with_target(codes, levels, target):
    """Unconditional G^2 p-value of every column of ``codes`` against the column ``target``."""
    n, m = codes.shape
    out = np.empty(m)
    wk = np.empty(n, dtype=np.int64)
    wo = np.empty(n, dtype=np.int64)
    S = np.empty(1, dtype=np.int64)
    for j in range(m):
        out[j] = g2_test(codes, levels, j, target, S, 0, wk, wo)[0]
    return out


# --------------------------------------------------------------------------- OFS


@njit(cache=True)
def _ofs_step(W, upd, eta, lam, B, scratch):
    """Projection onto the l2 ball of radius 1/sqrt(lam) of the updated rows, then truncation
    to the B features of largest weight (sum of squares over the classes)."""
    K, m = W.shape
    for c in range(K):
        if not upd[c]:
            continue
        nrm = 0.0
        for j in range(m):
            nrm += W[c, j] * W[c, j]
        nrm = math.sqrt(nrm)
        if nrm > 0.0:
            f = 1.0 / (math.sqrt(lam) * nrm)
            if f < 1.0:
                for j in range(m):
                    W[c, j] *= f
    if B >= m:
        return
    nz = 0
    for j in range(m):
        v = 0.0
        for c in range(K):
            v += W[c, j] * W[c, j]
        scratch[j] = v
        if v > 0.0:
            nz += 1
    if nz <= B:
        return
    order = np.argsort(-scratch, kind="mergesort")  # ties: lower index kept
    for u in range(B, m):
        j = order[u]
        for c in range(K):
            W[c, j] = 0.0


@njit(cache=True)
def ofs_dense(X, Y, W, eta, lam, B):
    """OFS (Wang et al. 2014, Alg. 2 'OFS with full inputs') over the rows of dense ``X``.

    ``Y`` (n x K) holds +1/-1 per class (K = 1: binary). Returns the number of updates."""
    n, m = X.shape
    K = W.shape[0]
    upd = np.zeros(K, dtype=np.bool_)
    scratch = np.empty(m)
    n_upd = 0
    for t in range(n):
        anyu = False
        for c in range(K):
            s = 0.0
            for j in range(m):
                s += W[c, j] * X[t, j]
            upd[c] = Y[t, c] * s <= 1.0
            anyu = anyu or upd[c]
        if not anyu:
            continue
        n_upd += 1
        for c in range(K):
            if upd[c]:
                for j in range(m):
                    W[c, j] += eta * Y[t, c] * X[t, j]
        _ofs_step(W, upd, eta, lam, B, scratch)
    return n_upd


@njit(cache=True)
def ofs_csr(data, indices, indptr, Y, W, eta, lam, B):
    """:func:`ofs_dense` for CSR rows."""
    n = indptr.shape[0] - 1
    K, m = W.shape
    upd = np.zeros(K, dtype=np.bool_)
    scratch = np.empty(m)
    n_upd = 0
    for t in range(n):
        anyu = False
        for c in range(K):
            s = 0.0
            for u in range(indptr[t], indptr[t + 1]):
                s += W[c, indices[u]] * data[u]
            upd[c] = Y[t, c] * s <= 1.0
            anyu = anyu or upd[c]
        if not anyu:
            continue
        n_upd += 1
        for c in range(K):
            if upd[c]:
                for u in range(indptr[t], indptr[t + 1]):
                    W[c, indices[u]] += eta * Y[t, c] * data[u]
        _ofs_step(W, upd, eta, lam, B, scratch)
    return n_upd


# --------------------------------------------------------------------------- Grafting


@njit(cache=True)
def _logistic_grad(XA, Y, W, b, binary, gW, gb, P):
    """Gradient of (1/n) sum logloss(XA W + b, Y): gW = XA' (P - Y) / n, gb = sum(P - Y) / n."""
    n, a = XA.shape
    K = Y.shape[1]
    for i in range(n):
        mx = -np.inf
        for c in range(K):
            z = b[c]
            for j in range(a):
                z += XA[i, j] * W[j, c]
            P[i, c] = z
            if z > mx:
                mx = z
        if binary:
            P[i, 0] = 1.0 / (1.0 + math.exp(-P[i, 0]))
        else:
            s = 0.0
            for c in range(K):
                P[i, c] = math.exp(P[i, c] - mx)
                s += P[i, c]
            for c in range(K):
                P[i, c] /= s
        for c in range(K):
            P[i, c] = (P[i, c] - Y[i, c]) / n
    gW[:, :] = 0.0
    gb[:] = 0.0
    for i in range(n):
        for c in range(K):
            r = P[i, c]
            gb[c] += r
            for j in range(a):
                gW[j, c] += XA[i, j] * r


@njit(cache=True)
def fista_l1_logistic(XA, Y, W, b, lam, step, tol, max_iter, binary):
    """FISTA with adaptive restart for min (1/n) sum logloss(XA W + b, Y) + lam |W|_1, b free.

    ``W`` (a x K) and ``b`` (K) are the warm start and receive the solution. Stops when the
    KKT violation (max over the subgradient optimality conditions and |grad b|) is <= tol,
    checked every 10 iterations. Returns ``(n_iter, violation)``.
    """
    n, a = XA.shape
    K = Y.shape[1]
    Wk = W.copy()
    bk = b.copy()
    Wy = W.copy()
    by = b.copy()
    Wn = np.empty_like(W)
    bn = np.empty_like(b)
    gW = np.empty_like(W)
    gb = np.empty_like(b)
    P = np.empty((n, K))
    t = 1.0
    viol = np.inf
    it = 0
    for it in range(1, max_iter + 1):
        _logistic_grad(XA, Y, Wy, by, binary, gW, gb, P)
        dot = 0.0
        for j in range(a):
            for c in range(K):
                v = Wy[j, c] - step * gW[j, c]
                th = step * lam
                Wn[j, c] = v - th if v > th else (v + th if v < -th else 0.0)
                dot += (Wy[j, c] - Wn[j, c]) * (Wn[j, c] - Wk[j, c])
        for c in range(K):
            bn[c] = by[c] - step * gb[c]
            dot += (by[c] - bn[c]) * (bn[c] - bk[c])
        if dot > 0.0:  # restart the momentum
            t = 1.0
        tn = 0.5 * (1.0 + math.sqrt(1.0 + 4.0 * t * t))
        f = (t - 1.0) / tn
        for j in range(a):
            for c in range(K):
                Wy[j, c] = Wn[j, c] + f * (Wn[j, c] - Wk[j, c])
                Wk[j, c] = Wn[j, c]
        for c in range(K):
            by[c] = bn[c] + f * (bn[c] - bk[c])
            bk[c] = bn[c]
        t = tn
        if it % 10 == 0 or it == max_iter:
            _logistic_grad(XA, Y, Wk, bk, binary, gW, gb, P)
            viol = 0.0
            for c in range(K):
                if abs(gb[c]) > viol:
                    viol = abs(gb[c])
                for j in range(a):
                    w = Wk[j, c]
                    if w > 0.0:
                        v = abs(gW[j, c] + lam)
                    elif w < 0.0:
                        v = abs(gW[j, c] - lam)
                    else:
                        v = max(abs(gW[j, c]) - lam, 0.0)
                    if v > viol:
                        viol = v
            if viol <= tol:
                break
    W[:, :] = Wk
    b[:] = bk
    return it, viol
