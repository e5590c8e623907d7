"""Numba kernels for the information-theoretic subset selectors (mRMR, FCBF, CFS, MIFS ... DISR).

Inputs: int32 code matrices, Fortran (n, m) for :func:`mi_su_one_vs_many`, a feature per row
(m, n) for :func:`joint_entropies_with` (``Codes.rows``); int64 level counts, float64 entropies;
no validation inside.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from fsviz.stats._info_kernels import joint_entropy_codes

_SMALL = 1 << 16  # joint tables up to this many cells are counted directly


@njit(cache=True)
def mi_su_one_vs_many(codes, k, h, j, cands, su):
    """MI (nats) or SU between column ``j`` and each column in ``cands``.

    Joint entropies from one reused count table, H = log n - (1/n) sum c log c with
    ``c log c`` looked up in a table of the n+1 possible counts (no log per cell).
    Serial on purpose: a call is ~1 ms of work, less than a parallel region costs on a
    busy 2-core machine (measured 20x slower with ``prange``).
    """
    n = codes.shape[0]
    clogc = np.zeros(n + 1)
    for c in range(2, n + 1):
        clogc[c] = c * np.log(c)
    logn = np.log(n) if n > 0 else 0.0
    m = cands.shape[0]
    out = np.empty(m)
    cj = codes[:, j]
    kj = k[j]
    kmax = 1
    for t in range(m):
        kmax = max(kmax, k[cands[t]])
    counts = np.zeros(min(kj * kmax, _SMALL), dtype=np.int64)
    for t in range(m):
        c = cands[t]
        kc = k[c]
        size = kj * kc
        if size <= _SMALL:
            col = codes[:, c]
            for i in range(n):
                counts[cj[i] * kc + col[i]] += 1
            s = 0.0
            for v in range(size):
                s += clogc[counts[v]]
                counts[v] = 0
            hab = logn - s / n
        else:
            hab = joint_entropy_codes(cj, kj, codes[:, c], kc)
        mi = h[j] + h[c] - hab
        mi = max(mi, 0.0)
        if su:
            den = h[j] + h[c]
            out[t] = 2.0 * mi / den if den > 0.0 else 0.0
        else:
            out[t] = mi
    return out


_LARGE = 1 << 22  # joint tables up to this many cells are counted in one reused array


@njit(cache=True)
def joint_entropies_with(a, ka, rows, k, cands):
    """Joint entropy H(a, X_c) (nats) of one coded vector ``a`` with each feature ``c`` in
    ``cands`` of the codes ``rows`` (a feature per row: ``Codes.rows``).

    ``a`` holds int64 codes in ``[0, ka)``; pass a feature column for pairwise entropies
    or the combined code ``x_s * k_y + y`` for the three-way H(X_s, Y, X_c). One count table
    is reused for all candidates; a table larger than the sample emptied by revisiting the
    samples (O(n) per candidate whatever its size); beyond ``_LARGE`` cells the sort-based
    :func:`joint_entropy_codes` takes over. Serial, like :func:`mi_su_one_vs_many`.
    """
    n = rows.shape[1]
    clogc = np.zeros(n + 1)
    for c in range(2, n + 1):
        clogc[c] = c * np.log(c)
    logn = np.log(n) if n > 0 else 0.0
    m = cands.shape[0]
    out = np.empty(m)
    kmax = 1
    for t in range(m):
        kmax = max(kmax, k[cands[t]])
    counts = np.zeros(min(ka * kmax, _LARGE), dtype=np.int64)
    for t in range(m):
        c = cands[t]
        kc = k[c]
        size = ka * kc
        col = rows[c]
        if size <= _LARGE:
            for i in range(n):
                counts[a[i] * kc + col[i]] += 1
            s = 0.0
            if size <= n:
                for v in range(size):
                    s += clogc[counts[v]]
                    counts[v] = 0
            else:
                for i in range(n):
                    v = a[i] * kc + col[i]
                    if counts[v] > 0:
                        s += clogc[counts[v]]
                        counts[v] = 0
            out[t] = logn - s / n if n > 0 else 0.0
        else:
            out[t] = joint_entropy_codes(a, ka, col, kc)
    return out
