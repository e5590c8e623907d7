"""Numba kernels of :func:`fsviz.evaluate.stand_ins`: the most correlated selected feature of
every column of a sparse matrix, the k x m correlation block and its arg-max fused.

Plain functions on contiguous arrays, no validation inside. A serial and a threaded
(``*_par``) version: a parallel region costs tens of milliseconds on busy cores, so the caller
takes the threaded one only for large work (:data:`PARALLEL_WORK`).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

#: element operations (non-zeros x selected features) above which the threaded kernel pays off
PARALLEL_WORK = 5e7
#: columns per task of the threaded kernel
CHUNK = 512


@njit(cache=True)
def _best_columns(indptr, indices, data, Z, inv_norm, lo, hi, acc, best, value):
    k = Z.shape[1]
    for j in range(lo, hi):
        for t in range(k):
            acc[t] = 0.0
        for p in range(indptr[j], indptr[j + 1]):
            v = data[p]
            row = indices[p]
            for t in range(k):
                acc[t] += v * Z[row, t]
        if inv_norm[j] == 0.0:  # a constant column: no correlation is defined
            best[j] = -1
            value[j] = np.nan
            continue
        b = 0
        top = -1.0
        for t in range(k):
            a = abs(acc[t])
            if a > top:  # strict: the first of equal |rho| (the earlier selected feature) wins
                top = a
                b = t
        r = acc[b] * inv_norm[j]
        best[j] = b
        value[j] = min(max(r, -1.0), 1.0)


@njit(cache=True)
def sparse_best(indptr, indices, data, Z, inv_norm, best, value):
    """For every CSC column ``j``: ``best[j]`` = arg max_t |rho(x_j, z_t)|, ``value[j]`` that rho.

    ``Z`` (n x k, C order) holds the selected features centred and scaled to unit norm, so
    ``rho = x_j . z_t / ||x_j - mean_j||`` (the column mean drops out: ``z_t`` sums to 0);
    ``inv_norm[j]`` is ``1 / ||x_j - mean_j||`` (0 for a constant column: ``best = -1``,
    ``value = NaN``). Ties go to the smaller ``t``. Cost O(nnz * k).
    """
    m = indptr.shape[0] - 1
    acc = np.empty(Z.shape[1])
    _best_columns(indptr, indices, data, Z, inv_norm, 0, m, acc, best, value)


@njit(cache=True, parallel=True)
def sparse_best_par(indptr, indices, data, Z, inv_norm, best, value):
    """:func:`sparse_best` with column chunks of :data:`CHUNK` spread over the threads."""
    m = indptr.shape[0] - 1
    n_chunks = (m + CHUNK - 1) // CHUNK
    for c in prange(n_chunks):
        acc = np.empty(Z.shape[1])
        _best_columns(
            indptr, indices, data, Z, inv_norm, c * CHUNK, min(m, (c + 1) * CHUNK), acc, best, value
        )
