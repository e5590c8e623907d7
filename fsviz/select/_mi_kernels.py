"""Numba kernels for the information-theoretic subset selectors (mRMR, FCBF).

Inputs: Fortran int32 code matrices (n, m), int64 level counts, float64 entropies;
no validation inside.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from fsviz.stats._info_kernels import joint_entropy_codes


@njit(cache=True, parallel=True)
def mi_su_one_vs_many(codes, k, h, j, cands, su):
    """MI (nats) or SU between column ``j`` and each column in ``cands``."""
    out = np.empty(cands.shape[0])
    cj = codes[:, j]
    for t in prange(cands.shape[0]):
        c = cands[t]
        hab = joint_entropy_codes(cj, k[j], codes[:, c], k[c])
        mi = h[j] + h[c] - hab
        if mi < 0.0:
            mi = 0.0
        if su:
            den = h[j] + h[c]
            out[t] = 2.0 * mi / den if den > 0.0 else 0.0
        else:
            out[t] = mi
    return out
