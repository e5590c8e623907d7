"""Numba kernels of the sparse-learning selectors (block coordinate descent for LSL21).

Plain functions on contiguous arrays, no validation.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def l21_bcd_epoch(XT, RT, W, col_sq, threshold, rows):
    """One cyclic sweep of block coordinate descent over the rows ``rows`` of ``W``.

    Minimises ``1/2 ||R||_F^2 + threshold ||W||_2,1`` with ``R = Y - XW`` kept up to date: row
    ``j`` is set to its exact minimiser with the other rows fixed,
    ``W(j, :) = prox_{threshold / ||x_j||^2}(W(j, :) + x_j'R / ||x_j||^2)`` (the row-shrinkage
    prox, Liu, Ji & Ye 2009, eq. 9), then ``R -= x_j (W_new(j, :) - W(j, :))``.

    Parameters
    ----------
    XT : float64 (d, n), C order
        ``X'``, a feature per row (a Fortran ``X`` transposed, free): one layout whatever ``d``.
    RT : float64 (c, n), C order
        ``R'``, updated in place (stored transposed: the inner loops run over samples).
    W : float64 (d, c), C order; updated in place
    col_sq : float64 (d,)
        ``||x_j||^2``; rows with 0 are left at 0.
    threshold : float
        ``n * alpha`` in LSL21's ``1/(2n)`` scaling.
    rows : int64 (m,)
        The rows to update, in this order (all of them, or an active set).

    Returns
    -------
    float
        The largest change of any entry of ``W`` in the sweep.
    """
    n = XT.shape[1]
    c = RT.shape[0]
    g = np.empty(c)
    dw = np.empty(c)
    biggest = 0.0
    for jj in range(rows.size):
        j = rows[jj]
        sq = col_sq[j]
        if sq <= 0.0:
            continue
        x = XT[j]
        norm = 0.0
        for k in range(c):
            r = RT[k]
            acc = 0.0
            for i in range(n):
                acc += x[i] * r[i]
            g[k] = W[j, k] + acc / sq
            norm += g[k] * g[k]
        norm = np.sqrt(norm)
        scale = 0.0
        if norm > 0.0:
            scale = max(0.0, 1.0 - threshold / (sq * norm))
        for k in range(c):
            new = scale * g[k]
            dw[k] = new - W[j, k]
            W[j, k] = new
            step = dw[k]
            if step != 0.0:
                biggest = max(biggest, abs(step))
                r = RT[k]
                for i in range(n):
                    r[i] -= x[i] * step
    return biggest
