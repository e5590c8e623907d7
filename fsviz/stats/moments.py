"""Per-feature moments for dense and sparse matrices (without densifying) and chunked sources."""

from __future__ import annotations

import weakref

import numpy as np
import scipy.sparse as sp


def column_moments(X, sums=None) -> tuple[np.ndarray, np.ndarray]:
    """Mean and centred Euclidean norm of every column.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
    sums : tuple of two ndarrays, optional
        Dense ``X`` only: the column sums and sums of squares, already computed in a pass
        of the caller's (``X.sum(axis=0)``, ``np.einsum("ij,ij->j", X, X)``); ``X`` is then
        read again only for the columns that need the exact two-pass recomputation.

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
        if X.dtype == np.float64 and X.nnz >= 1 << 20:  # large: no squared copy of the non-zeros
            from fsviz.stats._moments_kernels import csc_sums

            s1, s2 = csc_sums(X.indptr, X.data)
        else:
            s1 = np.asarray(X.sum(axis=0), dtype=np.float64).ravel()
            s2 = np.asarray(X.multiply(X).sum(axis=0), dtype=np.float64).ravel()
        mean = s1 / n
        ss = s2 - n * mean * mean
    else:
        X = np.asarray(X, dtype=np.float64)
        mean = X.mean(axis=0) if sums is None else sums[0] / n
        # one fast pass (sum of squares), then an exact two-pass recomputation for the
        # columns where cancellation could cost more than ~3 of float64's 16 digits
        n_mean2 = X.shape[0] * mean * mean
        if sums is not None:
            ss = sums[1] - n_mean2
        else:
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


# source -> (mean, norm); weak keys, so a cached pass lives exactly as long as its source
_SOURCE_MOMENTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def source_moments(source, block_size: int = 2048) -> tuple[np.ndarray, np.ndarray]:
    """:func:`column_moments` of an out-of-core source, from one pass over column blocks.

    Parameters
    ----------
    source : fsviz.data.chunked.ChunkedSource
        Any object with ``n_features`` and ``iter_column_blocks(block_size)`` yielding
        ``(start, stop, block)``.
    block_size : int, default=2048
        Columns read per block (bounds the memory of the pass).

    Returns
    -------
    mean, norm : ndarray of shape (n_features,)
        As :func:`column_moments` (two-pass per block, exact to rounding), so they equal
        those of the in-memory array. Cached per source object after the first call
        (whatever ``block_size`` later calls pass); the cache is dropped with the source.

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.data.chunked import ArraySource
    >>> X = np.arange(12.0).reshape(4, 3); X[:, 1] = 5.0
    >>> mean, norm = source_moments(ArraySource(X), block_size=2)
    >>> mean.tolist(), float(norm[1])
    ([4.5, 5.0, 6.5], 0.0)
    """
    try:
        return _SOURCE_MOMENTS[source]
    except (KeyError, TypeError):  # TypeError: not weak-referenceable / hashable
        pass
    m = int(source.n_features)
    mean = np.empty(m)
    norm = np.empty(m)
    for s, e, block in source.iter_column_blocks(block_size):
        mean[s:e], norm[s:e] = column_moments(block)
    try:
        _SOURCE_MOMENTS[source] = (mean, norm)
    except TypeError:
        pass
    return mean, norm
