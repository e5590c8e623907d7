"""The relevance of arriving features to the target, shared by SAOLA (:mod:`.saola`) and the
streaming baselines (:mod:`.streaming`): the data mode (Fisher's Z test of a correlation, or
symmetrical uncertainty of discrete codes), the codes of a block of columns, and the relevance
of every column of a block (a Dask task too).

A named internal module: its names are public to the selector families, not to users.

References
----------
K. Yu, X. Wu, W. Ding, J. Pei, "Scalable and Accurate Online Feature Selection for Big
Data", ACM TKDD 11(2), 2016: section 3.4.2 (Fisher's Z test) and 3.4.3 (SU).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from fsviz._targets import target_kind
from fsviz.select import _saola_kernels as K
from fsviz.select._base import readonly
from fsviz.stats.information import Codes, is_discrete, su_with_target

__all__ = [
    "RELEVANCE_BLOCK",
    "codes_block",
    "looks_discrete",
    "relevance_block",
    "relevance_task",
    "resolve_mode",
]

RELEVANCE_BLOCK = 4096  # columns per relevance task (the same blocks locally and on Dask)


def codes_block(X, n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes per column: integral columns with < 32 levels keep their values
    (shifted to start at 0), other columns get ``n_bins`` equal-width bins. Column-wise,
    so a feature's codes do not depend on the block it arrived in."""
    if sp.issparse(X):
        X = X.toarray()
    rows = np.ascontiguousarray(np.asarray(X).T, dtype=np.float64)  # the kernel's layout
    b, n = rows.shape
    codes = np.empty((b, n), dtype=np.int32)
    k = np.empty(b, dtype=np.int64)
    if b and n:
        K.code_columns(readonly(rows), int(n_bins), codes, k)
    else:
        k[:] = 1
    return codes.T, k  # (n, b) Fortran-ordered


def relevance_block(X, mode: str, target: tuple, n_bins: int) -> np.ndarray:
    """Relevance of every column of one block (module level: shipped to Dask workers)."""
    if mode == "continuous":
        yc, ny = target
        if sp.issparse(X):
            X = X.tocsc()
            n = X.shape[0]
            s1 = np.asarray(X.sum(axis=0)).ravel()
            s2 = np.asarray(X.multiply(X).sum(axis=0)).ravel()
            mu = s1 / n
            nrm = np.sqrt(np.maximum(s2 - n * mu * mu, 0.0))
            cv = np.asarray(X.T @ yc).ravel()
            ok = nrm > 1e-12 * (np.abs(mu) * np.sqrt(n) + 1e-300)
            r = np.zeros(X.shape[1])
            r[ok] = cv[ok] / (nrm[ok] * ny)
            return np.clip(r, -1.0, 1.0)
        Xf = np.asarray(X, dtype=np.float64)
        if Xf.ndim == 2 and Xf.shape[1] > 1 and abs(Xf.strides[0]) > abs(Xf.strides[1]):  # row-major layout
            return np.clip(K.column_correlations_rowmajor(readonly(Xf), yc, ny), -1.0, 1.0)
        return np.clip(K.column_correlations(np.ascontiguousarray(Xf.T), yc, ny), -1.0, 1.0)
    yk = target[0]
    codes, k = codes_block(X, n_bins)
    return su_with_target(Codes(codes, k), yk) if codes.shape[1] else np.empty(0)


def relevance_task(block, target: tuple, *, mode: str, n_bins: int) -> np.ndarray:
    """:func:`fsviz._dask.map_blocks` task: one block of columns travels to one worker."""
    return relevance_block(block, mode, target, n_bins)


def looks_discrete(X, max_levels: int = 32) -> bool:
    """:func:`fsviz.stats.information.is_discrete` with an early exit: scans blocks of
    columns and stops at the first non-integral value (continuous data decide in the
    first block instead of a full pass with full-size temporaries)."""
    if sp.issparse(X):
        return is_discrete(X, max_levels)
    lo, hi = np.inf, -np.inf
    for s in range(0, X.shape[1], 256):
        B = X[:, s : s + 256]
        if not np.all(B == np.round(B)):
            return False
        if B.size:
            lo, hi = min(lo, B.min()), max(hi, B.max())
            if hi - lo >= max_levels:
                return False
    return True


def resolve_mode(data: str, X, y=None, name: str = "SAOLA") -> str:
    """The data mode. A continuous target (``type_of_target``) always takes the continuous
    path: Fisher's Z test of the correlation with ``y`` (section 3.4.2); SU would read
    every distinct target value as a class."""
    if y is not None and target_kind(y) == "continuous":
        if data == "discrete":
            raise ValueError(
                f"{name}: data='discrete' (SU with class labels) needs class labels; y looks continuous "
                "(type_of_target='continuous'). Use data='continuous' or 'auto' (Fisher's Z test of the "
                "correlation with y), or bin y."
            )
        return "continuous"
    if data == "auto":
        return "discrete" if looks_discrete(X) else "continuous"
    return data
