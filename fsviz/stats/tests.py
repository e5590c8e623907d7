"""Significance tests used by the online selectors."""

from __future__ import annotations

import numpy as np
from scipy.stats import norm


def fisher_z_test(r, n_samples: int, n_conditioning: int = 0) -> np.ndarray:
    """Two-sided p-value of H0: rho = 0 from Fisher's z transform of correlations ``r``.

    ``z = atanh(r) * sqrt(n - |S| - 3)`` is approximately standard normal under H0
    (SAOLA paper, section 4.2: Fisher's Z test for continuous data).
    """
    r = np.clip(np.asarray(r, dtype=np.float64), -1 + 1e-15, 1 - 1e-15)
    dof = n_samples - n_conditioning - 3
    if dof <= 0:
        raise ValueError(f"fisher_z_test: needs n_samples > n_conditioning + 3; got n_samples={n_samples}.")
    z = np.arctanh(r) * np.sqrt(dof)
    return 2.0 * norm.sf(np.abs(z))
