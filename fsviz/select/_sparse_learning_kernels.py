"""Numba kernels of the sparse-learning selectors (block coordinate descent for LSL21).

Plain functions on contiguous arrays, no validation.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def l21_bcd_epoch(X, R, W, col_sq, threshold):
    """One cyclic sweep of block coordinate descent over the rows of ``W``.

    Minimises ``1/2 ||R||_F^2 + threshold ||W||_2,1`` with ``R = Y - XW`` kept up to date: row
    ``j`` is set to its exact minimiser with the other rows fixed,
    ``W(j, :) = prox_{threshold / ||x_j||^2}(W(j, :) + x_j'R / ||x_j||^2)`` (the row-shrinkage
    prox, Liu, Ji & Ye 2009, eq. 9), then ``R -= x_j (W_new(j, :) - W(j, :))``.

    Parameters
    ----------
    X : float64 (n, d), Fortran order
    R : float64 (n, c), C order; updated in place
    W : float64 (d, c), C order; updated in place
    col_sq : float64 (d,)
        ``||x_j||^2``; rows with 0 are left at 0.
    threshold : float
        ``n * alpha`` in LSL21's ``1/(2n)`` scaling.

    Returns
    -------
    float
        The largest change of any entry of ``W`` in the sweep.
    """
    n, d = X.shape
    c = R.shape[1]
    g = np.empty(c)
    dw = np.empty(c)
    biggest = 0.0
    for j in range(d):
        sq = col_sq[j]
        if sq <= 0.0:
            continue
        for k in range(c):
            g[k] = 0.0
        for i in range(n):
            xij = X[i, j]
            if xij != 0.0:
                for k in range(c):
                    g[k] += xij * R[i, k]
        norm = 0.0
        for k in range(c):
            g[k] = W[j, k] + g[k] / sq
            norm += g[k] * g[k]
        norm = np.sqrt(norm)
        scale = 0.0
        if norm > 0.0:
            scale = max(0.0, 1.0 - threshold / (sq * norm))
        moved = False
        for k in range(c):
            new = scale * g[k]
            dw[k] = new - W[j, k]
            if dw[k] != 0.0:
                moved = True
                if abs(dw[k]) > biggest:
                    biggest = abs(dw[k])
            W[j, k] = new
        if moved:
            for i in range(n):
                xij = X[i, j]
                if xij != 0.0:
                    for k in range(c):
                        R[i, k] -= xij * dw[k]
    return biggest
