"""Numba kernels for GRM: the exact Euclidean projection onto the probability simplex.

Plain functions on contiguous float64 arrays, no validation inside.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def simplex_project(w):
    """Projection of ``w`` onto {z >= 0, sum z = 1} by eq. (22)-(24) of Wang et al. (2015).

    ``u = w - mean(w) + 1/d``; the multiplier mean ``lbar`` is the root of the
    piecewise-linear, convex, non-increasing ``f(lbar) = mean((lbar - u)_+) - lbar``
    (eq. 24). Newton's method started at ``lbar = 0`` (where ``f >= 0``) climbs
    monotonically to the root and stops exactly after at most ``d`` steps, because
    each step lands on or before the root and ``f`` is linear between breakpoints.
    Returns ``(z, lbar, n_newton_steps)`` with ``z = (u - lbar)_+`` (eq. 22).
    """
    d = w.shape[0]
    mean_w = 0.0
    for i in range(d):
        mean_w += w[i]
    mean_w /= d
    u = np.empty(d)
    for i in range(d):
        u[i] = w[i] - mean_w + 1.0 / d
    lbar = 0.0
    steps = 0
    for _ in range(d + 2):
        steps += 1
        s = 0.0
        cnt = 0
        for i in range(d):
            if u[i] < lbar:
                s += lbar - u[i]
                cnt += 1
        f = s / d - lbar
        if f <= 0.0:
            break
        slope = cnt / d - 1.0  # < 0: at least one u_i >= lbar while f > 0
        new = lbar - f / slope
        if new <= lbar:
            break
        lbar = new
    z = np.empty(d)
    for i in range(d):
        v = u[i] - lbar
        z[i] = max(0.0, v)
    return z, lbar, steps
