"""Numba kernel for per-column sums of a CSC matrix without a squared copy of its values."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def csc_sums(indptr, data):
    """Per-column ``sum(x)`` and ``sum(x * x)`` of a CSC matrix, each in stored order."""
    m = indptr.shape[0] - 1
    s1 = np.zeros(m)
    s2 = np.zeros(m)
    for j in range(m):
        a = 0.0
        b = 0.0
        for e in range(indptr[j], indptr[j + 1]):
            x = data[e]
            a += x
            b += x * x
        s1[j] = a
        s2[j] = b
    return s1, s2
