"""Numba kernels for out-of-core column blocks: ``X' v`` straight from the file's dtype.

Reading a float32 block and converting it to float64 before a BLAS product writes three
times the bytes it reads; these kernels read each stored value once (any float/int dtype)
and accumulate in float64. Plain functions, no validation inside.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def cols_dot(X, v):
    """``X.T @ v`` in float64 for a Fortran-ordered ``X`` (each column read contiguously).

    Threads split the columns; every column is one dot product of length ``n``, summed
    in float64 with eight interleaved partial sums (rows ``i mod 8``; combined pairwise,
    then the remaining rows in order) so the loop is not bound by one addition's latency
    (1.5x on int8 genotypes).
    """
    n, m = X.shape
    out = np.zeros(m)
    n8 = n - n % 8
    for j in prange(m):
        a = np.zeros(8)
        for i in range(0, n8, 8):
            for k in range(8):
                a[k] += np.float64(X[i + k, j]) * v[i + k]
        acc = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]))
        for i in range(n8, n):
            acc += np.float64(X[i, j]) * v[i]
        out[j] = acc
    return out


@njit(cache=True, parallel=True)
def rows_dot_any(X, rows, w):
    """``X[rows].T @ w`` in float64 for a row-major (C-ordered, possibly sliced) ``X``.

    Threads split the columns into chunks of 2048; each row segment is read contiguously,
    rows in the order given.
    """
    m = X.shape[1]
    out = np.zeros(m)
    n_chunks = (m + 2047) // 2048
    for c in prange(n_chunks):
        a = c * 2048
        b = min(a + 2048, m)
        for k in range(rows.shape[0]):
            i = rows[k]
            wi = w[k]
            for j in range(a, b):
                out[j] += wi * np.float64(X[i, j])
    return out
