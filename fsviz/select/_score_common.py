"""The per-feature arithmetic the score families share (:mod:`.scores`,
:mod:`.correlation_scores`, :mod:`.neighbourhood`, :mod:`.similarity`, :mod:`.mcfs`): input
checks, safe ratios, dense column blocks, per-class sums of squares, a continuous target's
checks and its correlation with every feature.

A named internal module: its names are public to the selector families, not to users.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_array

from fsviz.select import _score_kernels as K
from fsviz.select._base import readonly, scale_extreme
from fsviz.stats.moments import column_moments

__all__ = [
    "CAP",
    "check_X",
    "check_Xy",
    "class_ss",
    "column_blocks",
    "continuous_target",
    "indicator",
    "ratio",
    "target_correlations",
    "zero_constant",
]

CAP = 1e-12  # a vanishing denominator is floored at CAP * numerator -> score <= 1e12


_BLOCK_ELEMENTS = 1 << 22  # dense column blocks of ~32 MB float64


def check_X(owner: str, X, scale: bool = True):
    X = check_array(X, accept_sparse=("csr", "csc"), dtype=np.float64, ensure_min_samples=2, input_name="X")
    return scale_extreme(X) if scale else X


def check_Xy(owner: str, X, y, scale: bool = True):
    X = check_X(owner, X, scale)
    y = np.asarray(y)
    if y.ndim != 1 and not (y.ndim == 2 and y.shape[1] == 1):
        raise ValueError(f"{owner}: 'y' must be 1-D class labels; got shape {y.shape}.")
    y = y.ravel()
    if y.shape[0] != X.shape[0]:
        raise ValueError(
            f"{owner}: 'y' has {y.shape[0]} labels but X has {X.shape[0]} samples; they must match."
        )
    return X, y


def ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` for non-negative parts: 0 where ``num == 0``, capped where ``den -> 0``."""
    num = np.maximum(num, 0.0)
    den = np.maximum(den, CAP * num)
    out = np.zeros_like(num)
    np.divide(num, den, out=out, where=num > 0)
    return out


def zero_constant(scores: np.ndarray, X) -> np.ndarray:
    """Constant features score exactly 0 (rounding in centred sums must not make them look perfect)."""
    _, norm = column_moments(X)
    scores[norm == 0] = 0.0
    return scores


def column_blocks(n: int, m: int):
    step = max(1, _BLOCK_ELEMENTS // max(n, 1))
    for s in range(0, m, step):
        yield slice(s, min(s + step, m))


def indicator(codes: np.ndarray, n_classes: int) -> sp.csr_matrix:
    n = codes.size
    return sp.csr_matrix((np.ones(n), (codes, np.arange(n))), shape=(n_classes, n))


def class_ss(X, codes: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Between-class and within-class sums of squares of every feature, and which are constant.

    ``between = sum_c n_c (mu_c - mu)^2``, ``within = sum_c sum_{i in c} (x_i - mu_c)^2``;
    dense input is centred per class exactly (two streaming passes in a numba kernel),
    sparse input uses the moment form without densifying.
    """
    n = X.shape[0]
    if sp.issparse(X):
        Y = indicator(codes, counts.size)
        S1 = np.asarray((Y @ X).toarray())
        S2 = np.asarray((Y @ X.multiply(X)).toarray())
        means = S1 / counts[:, None]
        within = np.maximum((S2 - S1 * means).sum(axis=0), 0.0)
        const = column_moments(X)[1] == 0
    else:
        if X.flags.f_contiguous and not X.flags.c_contiguous:
            means, within, const = K.class_ss_cols(X, codes, counts.astype(np.float64))
        else:
            means, within, const = K.class_ss_rows(
                readonly(np.ascontiguousarray(X)), codes, counts.astype(np.float64)
            )
    mu = (counts @ means) / n
    between = counts @ (means - mu) ** 2
    return between, within, const


def target_correlations(X, y: np.ndarray) -> np.ndarray:
    """Pearson ``r`` of every column of ``X`` with the real vector ``y``; 0 for constant columns.

    One product ``X^T (y - mean y)`` (sparse input stays sparse) over the centred column
    norms of :func:`fsviz.stats.moments.column_moments`.
    """
    yc = y - y.mean()
    ny = float(np.sqrt(yc @ yc))
    _, norm = column_moments(X)
    cov = np.asarray(X.T @ yc, dtype=np.float64).ravel()
    r = np.zeros(X.shape[1])
    ok = norm > 0
    if ny > 0:
        r[ok] = cov[ok] / (norm[ok] * ny)
    return np.clip(r, -1.0, 1.0)


def continuous_target(owner: str, y) -> np.ndarray:
    y = np.asarray(y, dtype=np.float64)
    if np.ptp(y) == 0:
        raise ValueError(
            f"{owner}: the continuous target y is constant ({y[0]!r}); nothing to score against."
        )
    return y
