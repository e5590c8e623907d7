"""Numba kernels for SAOLA and group-SAOLA; contiguous inputs, no validation.

Conventions shared by every kernel here:

* relevance ``rel`` is SU(F, C) (discrete) or |rho(F, C)| (continuous);
* "a is stronger than b" means ``rel[a] > rel[b]``, ties going to the feature that
  arrived first (Lemma 3, case 1 of the SAOLA paper: equal-relevance features that
  make each other redundant can replace each other, so the one already kept stays);
* decisions are coded ``DEC_*`` below; indices returned are local to the arrays passed.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from fsviz.stats._info_kernels import joint_entropy_codes

DEC_PENDING = 0
DEC_IRRELEVANT = 1
DEC_REDUNDANT = 2
DEC_ADMITTED = 3
DEC_INTRA = 4  # group-SAOLA: redundant inside its own group (Alg. 2, steps 11-18)
DEC_INTER = 5  # group-SAOLA: redundant to a previously selected group (steps 22-28)
DEC_UNGROUPED = 6


@njit(cache=True, parallel=True)
def column_correlations(rows, yc, ny):
    """|rho| and rho of every feature of ``rows`` (``X`` transposed, a feature per row,
    C-ordered: one layout whatever the number of features) with a centred target ``yc`` of norm
    ``ny``.

    Feature by feature with fixed summation order, so a feature's value does not depend on
    which block it arrived in. Constant features get 0.
    """
    b, n = rows.shape
    r = np.zeros(b)
    for j in prange(b):
        x = rows[j]
        s = 0.0
        for i in range(n):
            s += x[i]
        mu = s / n
        ss = 0.0
        cv = 0.0
        for i in range(n):
            d = x[i] - mu
            ss += d * d
            cv += d * yc[i]
        scale = abs(mu) * np.sqrt(n) + 1e-300
        nrm = np.sqrt(ss)
        if nrm > 1e-12 * scale and ny > 0:
            r[j] = cv / (nrm * ny)
    return r


@njit(cache=True)
def column_correlations_rowmajor(X, yc, ny):
    """:func:`column_correlations` for a C-ordered ``X``: rows are streamed in memory order,
    each column still summed over i = 0..n-1 in order, so results are bitwise identical."""
    n, b = X.shape
    s = np.zeros(b)
    for i in range(n):
        for j in range(b):
            s[j] += X[i, j]
    mu = s / n
    ss = np.zeros(b)
    cv = np.zeros(b)
    for i in range(n):
        yi = yc[i]
        for j in range(b):
            d = X[i, j] - mu[j]
            ss[j] += d * d
            cv[j] += d * yi
    r = np.zeros(b)
    for j in range(b):
        scale = abs(mu[j]) * np.sqrt(n) + 1e-300
        nrm = np.sqrt(ss[j])
        if nrm > 1e-12 * scale and ny > 0:
            r[j] = cv[j] / (nrm * ny)
    return r


@njit(cache=True, parallel=True)
def code_columns(rows, n_bins, codes, k):
    """Integer codes of every feature of ``rows`` (``X`` transposed: (b, n), a feature per row,
    C-ordered) into ``codes`` (b, n) / ``k``: one layout whatever ``b``.

    Integral features with fewer than 32 levels keep their values shifted to start at 0;
    other features get ``n_bins`` equal-width bins ``floor((x - lo) / (hi - lo) * n_bins)``
    clipped to ``n_bins - 1``; constant features are all 0 with one level.
    """
    b, n = rows.shape
    for j in prange(b):
        x = rows[j]
        out = codes[j]
        lo = x[0]
        hi = x[0]
        integral = True
        for i in range(n):
            v = x[i]
            lo = min(lo, v)
            hi = max(hi, v)
            if integral and v != np.round(v):
                integral = False
        if not hi > lo:
            for i in range(n):
                out[i] = 0
            k[j] = 1
        elif integral and hi - lo < 32:
            for i in range(n):
                out[i] = np.int32(x[i] - lo)
            k[j] = np.int64(hi - lo) + 1
        else:
            w = hi - lo
            for i in range(n):
                c = np.floor((x[i] - lo) / w * n_bins)
                c = min(c, n_bins - 1)
                c = max(c, 0)
                out[i] = np.int32(c)
            k[j] = n_bins


@njit(cache=True)
def su_pair(ca, ka, ha, cb, kb, hb):
    """Symmetrical uncertainty of two coded columns with known entropies."""
    if ha + hb <= 0.0:
        return 0.0
    mi = ha + hb - joint_entropy_codes(ca, ka, cb, kb)
    mi = max(mi, 0.0)
    return 2.0 * mi / (ha + hb)


@njit(cache=True)
def saola_block_dense(relS, aliveS, relC, C1, C2, dec, red_with, pair_val, removed_by_S, removed_by_C):
    """Algorithm 1 over a block of relevant candidates, given all dependences up front.

    ``relS`` (s,) / ``aliveS`` (s,) the current selected set in arrival order; ``relC`` (b,)
    the candidates in arrival order; ``C1`` (s, b) |rho| selected x candidate, ``C2`` (b, b)
    |rho| among candidates. Mutates ``aliveS``; fills ``dec`` with DEC_REDUNDANT /
    DEC_ADMITTED, ``red_with`` (index into the concatenation [selected, candidates]),
    ``pair_val`` and ``removed_by_*`` (candidate index, -1 if never removed).
    """
    s = relS.shape[0]
    b = relC.shape[0]
    aliveC = np.zeros(b, dtype=np.bool_)
    for t in range(b):
        rF = relC[t]
        hit = -1
        hv = 0.0
        for j in range(s):
            if not aliveS[j]:
                continue
            rY = relS[j]
            c = C1[j, t]
            if rY >= rF and c >= rF:  # eq. (23): F is redundant given Y (Y arrived first)
                hit = j
                hv = c
                break
            if rF > rY and c >= rY:  # eq. (25): Y is redundant given F
                aliveS[j] = False
                removed_by_S[j] = t
        if hit < 0:
            for u in range(t):
                if not aliveC[u]:
                    continue
                rY = relC[u]
                c = C2[u, t]
                if rY >= rF and c >= rF:
                    hit = s + u
                    hv = c
                    break
                if rF > rY and c >= rY:
                    aliveC[u] = False
                    removed_by_C[u] = t
        if hit >= 0:
            dec[t] = DEC_REDUNDANT
            red_with[t] = hit
            pair_val[t] = hv
        else:
            dec[t] = DEC_ADMITTED
            aliveC[t] = True
    return aliveC


@njit(cache=True)
def saola_block_discrete(
    codesS, kS, hS, relS, aliveS, codesC, kC, hC, relC, dec, red_with, pair_val, removed_by_S, removed_by_C
):
    """Algorithm 1 with SU computed lazily, only for the pairs the algorithm visits.

    ``codesS`` (s, n) and ``codesC`` (b, n) hold one coded feature per row: the stores'
    Fortran-ordered codes transposed, C-ordered whatever the number of features (a store of
    one column is both C- and F-contiguous, which numba would type, and compile, apart)."""
    s = relS.shape[0]
    b = relC.shape[0]
    aliveC = np.zeros(b, dtype=np.bool_)
    for t in range(b):
        rF = relC[t]
        ct = codesC[t]
        hit = -1
        hv = 0.0
        for j in range(s):
            if not aliveS[j]:
                continue
            rY = relS[j]
            c = su_pair(ct, kC[t], hC[t], codesS[j], kS[j], hS[j])
            if rY >= rF:
                if c >= rF:
                    hit = j
                    hv = c
                    break
            elif c >= rY:
                aliveS[j] = False
                removed_by_S[j] = t
        if hit < 0:
            for u in range(t):
                if not aliveC[u]:
                    continue
                rY = relC[u]
                c = su_pair(ct, kC[t], hC[t], codesC[u], kC[u], hC[u])
                if rY >= rF:
                    if c >= rF:
                        hit = s + u
                        hv = c
                        break
                elif c >= rY:
                    aliveC[u] = False
                    removed_by_C[u] = t
        if hit >= 0:
            dec[t] = DEC_REDUNDANT
            red_with[t] = hit
            pair_val[t] = hv
        else:
            dec[t] = DEC_ADMITTED
            aliveC[t] = True
    return aliveC


@njit(cache=True, parallel=True)
def su_matrix(codesA, kA, hA, codesB, kB, hB):
    """SU between every row of A (a, n) and every row of B (b, n) -> (a, b): one coded feature
    per row, as :func:`saola_block_discrete` takes them."""
    a = codesA.shape[0]
    b = codesB.shape[0]
    out = np.empty((a, b))
    for i in prange(a):
        for j in range(b):
            out[i, j] = su_pair(codesA[i], kA[i], hA[i], codesB[j], kB[j], hB[j])
    return out


@njit(cache=True)
def _stronger(ra, ia, rb, ib):
    return ra > rb or (ra == rb and ia < ib)


@njit(cache=True)
def group_intra(rel, idx, D, alive, dec, red_with, pair_val):
    """Alg. 2 steps 10-19 inside one arriving group (all arrays local to the group).

    For each F_j in order (if still present): if some other present Y is stronger and
    D[Y, F_j] >= rel[F_j], F_j is removed (redundant with Y); otherwise F_j removes every
    present Y it is stronger than with D[F_j, Y] >= rel[Y].
    """
    g = rel.shape[0]
    for j in range(g):
        if not alive[j]:
            continue
        hit = -1
        for y in range(g):
            if y == j or not alive[y]:
                continue
            if _stronger(rel[y], idx[y], rel[j], idx[j]) and D[y, j] >= rel[j]:
                hit = y
                break
        if hit >= 0:
            alive[j] = False
            dec[j] = DEC_INTRA
            red_with[j] = hit
            pair_val[j] = D[hit, j]
            continue
        for y in range(g):
            if y == j or not alive[y]:
                continue
            if _stronger(rel[j], idx[j], rel[y], idx[y]) and D[j, y] >= rel[y]:
                alive[y] = False
                dec[y] = DEC_INTRA
                red_with[y] = j
                pair_val[y] = D[j, y]


@njit(cache=True)
def group_inter(relS, idxS, aliveS, relG, idxG, aliveG, C, dec, red_with, pair_val, removed_by_S):
    """Alg. 2 steps 21-35: the arriving group's present features against the selected ones.

    ``C`` (s, g) dependences selected x group; selected features are in group order.
    For each selected F_k and each present F_i of the new group: F_i removes F_k when it
    is stronger and C >= rel[F_k]; otherwise F_k removes F_i when it is stronger and
    C >= rel[F_i]. Stops as soon as the new group is empty.
    """
    s = relS.shape[0]
    g = relG.shape[0]
    left = 0
    for i in range(g):
        if aliveG[i]:
            left += 1
    for k in range(s):
        if left == 0:
            break
        if not aliveS[k]:
            continue
        for i in range(g):
            if not aliveG[i]:
                continue
            c = C[k, i]
            if _stronger(relG[i], idxG[i], relS[k], idxS[k]) and c >= relS[k]:
                aliveS[k] = False
                removed_by_S[k] = i
                break
            if _stronger(relS[k], idxS[k], relG[i], idxG[i]) and c >= relG[i]:
                aliveG[i] = False
                dec[i] = DEC_INTER
                red_with[i] = k
                pair_val[i] = c
                left -= 1
                if left == 0:
                    break
