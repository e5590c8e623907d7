"""Per-feature moments for dense and sparse matrices, without densifying."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def column_moments(X) -> tuple[np.ndarray, np.ndarray]:
    """Mean and centred Euclidean norm of every column.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)

    Returns
    -------
    mean : ndarray of shape (n_features,)
    norm : ndarray of shape (n_features,)
        ``||x_j - mean_j||_2``; 0 for constant columns. Dividing a centred column
        by it gives the unit-norm standardisation GDM works with, and
        ``norm / sqrt(n)`` is the population standard deviation.
    """
    n = X.shape[0]
    if sp.issparse(X):
        X = X.tocsc()
        s1 = np.asarray(X.sum(axis=0), dtype=np.float64).ravel()
        s2 = np.asarray(X.multiply(X).sum(axis=0), dtype=np.float64).ravel()
        mean = s1 / n
        ss = s2 - n * mean * mean
    else:
        X = np.asarray(X, dtype=np.float64)
        mean = X.mean(axis=0)
        # one fast pass (sum of squares), then an exact two-pass recomputation for the
        # columns where cancellation could cost more than ~3 of float64's 16 digits
        n_mean2 = X.shape[0] * mean * mean
        ss = np.einsum("ij,ij->j", X, X) - n_mean2 if X.size else np.zeros(X.shape[1])
        bad = np.flatnonzero(n_mean2 > 1e3 * np.maximum(ss, 0.0))
        if bad.size:
            for a in range(0, bad.size, 256):
                cols = bad[a : a + 256]
                D = X[:, cols] - mean[cols]
                ss[cols] = np.einsum("ij,ij->j", D, D)
    ss = np.maximum(ss, 0.0)
    norm = np.sqrt(ss)
    # relative threshold: sums of squares at rounding level mean "constant"
    scale = np.abs(mean) * np.sqrt(n) + 1e-300
    norm[norm <= 1e-12 * scale] = 0.0
    return mean, norm
