"""Numba kernels for discrete entropies; inputs are contiguous int32 codes, no validation.

The kernels over many features take the codes with a feature per row, ``(m, n)`` C-ordered (a
Fortran ``(n, m)`` code matrix transposed, free): one layout whatever ``m``, where ``(n, 1)``
codes would be typed C-ordered and ``(n, m)`` Fortran-ordered, two compilations of each kernel.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True)
def entropy_codes(a, ka):
    """Shannon entropy (nats) of one coded column with values in [0, ka)."""
    n = a.shape[0]
    counts = np.zeros(ka, dtype=np.int64)
    for i in range(n):
        counts[a[i]] += 1
    h = 0.0
    for c in counts:
        if c > 0:
            p = c / n
            h -= p * np.log(p)
    return h


@njit(cache=True)
def joint_entropy_codes(a, ka, b, kb):
    """Joint entropy (nats) of two coded columns."""
    n = a.shape[0]
    if ka * kb <= 1 << 22:
        counts = np.zeros(ka * kb, dtype=np.int64)
        for i in range(n):
            counts[a[i] * kb + b[i]] += 1
        h = 0.0
        for c in counts:
            if c > 0:
                p = c / n
                h -= p * np.log(p)
        return h
    key = np.empty(n, dtype=np.int64)
    for i in range(n):
        key[i] = np.int64(a[i]) * kb + b[i]
    key.sort()
    h = 0.0
    run = 1
    for i in range(1, n + 1):
        if i < n and key[i] == key[i - 1]:
            run += 1
        else:
            p = run / n
            h -= p * np.log(p)
            run = 1
    return h


@njit(cache=True, parallel=True)
def entropies(rows, k):
    """Entropy of every feature of an (m, n) code matrix (a feature per row)."""
    m = rows.shape[0]
    out = np.empty(m)
    for j in prange(m):
        out[j] = entropy_codes(rows[j], k[j])
    return out


@njit(cache=True, parallel=True)
def mi_su_with_target(rows, k, y, ky, hy, su):
    """MI (nats) or SU between every feature of ``rows`` (a feature per row) and a coded target."""
    m = rows.shape[0]
    out = np.empty(m)
    for j in prange(m):
        hx = entropy_codes(rows[j], k[j])
        hxy = joint_entropy_codes(rows[j], k[j], y, ky)
        mi = max(hx + hy - hxy, 0.0)
        if su:
            out[j] = 2.0 * mi / (hx + hy) if hx + hy > 0 else 0.0
        else:
            out[j] = mi
    return out


@njit(cache=True, parallel=True)
def mi_su_cross(codes, k, h, rows, cols, su):
    """MI or SU between features ``rows[i]`` and ``cols[j]`` of ``codes`` (a feature per row)
    -> (len(rows), len(cols))."""
    out = np.empty((rows.shape[0], cols.shape[0]))
    for i in prange(rows.shape[0]):
        a = rows[i]
        for j in range(cols.shape[0]):
            b = cols[j]
            hab = joint_entropy_codes(codes[a], k[a], codes[b], k[b])
            mi = max(h[a] + h[b] - hab, 0.0)
            if su:
                out[i, j] = 2.0 * mi / (h[a] + h[b]) if h[a] + h[b] > 0 else 0.0
            else:
                out[i, j] = mi
    return out
