"""Discretisation and information measures: entropy, mutual information, symmetrical uncertainty.

Everything works on *codes*: each feature mapped to integers ``0..k_j-1``. Use
:func:`discretize` once, then the vectorised measures on the result. Entropies are in
nats (as in scikit-learn's ``mutual_info_score``); SU is unit-free in [0, 1].

References
----------
Yu & Liu (2003), FCBF; Yu et al. (2016), SAOLA, eq. (2)-(4); Zhai et al., GDM-SU.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from fsviz.stats import _info_kernels as K


@dataclass(frozen=True)
class Codes:
    """Integer-coded features: ``codes`` (n, m) Fortran int32, ``k`` levels per column."""

    codes: np.ndarray
    k: np.ndarray

    @property
    def n_features(self) -> int:
        return self.codes.shape[1]

    @property
    def rows(self) -> np.ndarray:
        """The codes with a feature per row, (m, n) C-ordered: the layout of the kernels over
        many features (a view of the Fortran-ordered ``codes``)."""
        return code_rows(self.codes)

    def entropies(self) -> np.ndarray:
        return K.entropies(self.rows, self.k)


def code_rows(codes: np.ndarray) -> np.ndarray:
    """Codes ``(n, m)`` with a feature per row, ``(m, n)`` C-ordered int32: free for Fortran-ordered
    int32 codes. One layout whatever ``m`` (an ``(n, 1)`` column is typed C-ordered by numba, a
    wider Fortran matrix F-ordered), so a kernel taking it is compiled once."""
    return np.ascontiguousarray(codes.T, dtype=np.int32)


def _encode_columns(X: np.ndarray) -> Codes:
    # rank-encode each column's distinct values: exact for already-discrete data
    n, m = X.shape
    if n and m:
        lo = X.min(axis=0)
        span = X.max(axis=0) - lo
        if np.all(np.isfinite(span)) and span.max() < 64 and np.all(X == np.round(X)):
            # small integer ranges (counts, genotypes): all columns at once, no per-column sort;
            # the rank of each value among its column's distinct values, as np.unique gives
            V = (X - lo).astype(np.intp)
            cols = np.arange(m)[None, :]
            present = np.zeros((int(span.max()) + 1, m), dtype=bool)
            present[V, cols] = True
            rank = np.cumsum(present, axis=0, dtype=np.int32) - 1
            codes = np.asfortranarray(rank[V, cols])
            return Codes(codes, np.maximum(present.sum(axis=0), 1).astype(np.int64))
    codes = np.empty((n, m), dtype=np.int32, order="F")
    k = np.empty(m, dtype=np.int64)
    for j in range(m):  # per column np.unique; only used when the data are discrete
        u, inv = np.unique(X[:, j], return_inverse=True)
        codes[:, j] = inv
        k[j] = max(len(u), 1)
    return Codes(codes, k)


def is_discrete(X, max_levels: int = 32) -> bool:
    """True when every value is an integer and no column has more than ``max_levels`` levels."""
    data = X.data if sp.issparse(X) else np.asarray(X)
    if data.size == 0:
        return True
    if not np.all(np.isfinite(data)) or not np.all(data == np.round(data)):
        return False
    lo, hi = (data.min(), data.max())
    if sp.issparse(X):
        lo, hi = min(lo, 0.0), max(hi, 0.0)
    return bool(hi - lo < max_levels)


def discretize(X, n_bins: int = 10, strategy: str = "auto") -> Codes:
    """Code every feature as integers.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Sparse input is converted column block by column block; the result is dense
        (n_samples x n_features int32), so keep it to data that fits.
    n_bins : int, default=10
        Equal-width bins over each feature's range (bins of 10 % of the range, as the
        GDM-SU paper uses) when the data are continuous.
    strategy : {"auto", "uniform", "discrete"}, default="auto"
        "discrete" keeps each distinct value as its own level; "uniform" bins;
        "auto" picks "discrete" when :func:`is_discrete` holds.

    Returns
    -------
    Codes
    """
    if strategy not in ("auto", "uniform", "discrete"):
        raise ValueError(f"discretize: 'strategy' must be 'auto', 'uniform' or 'discrete'; got {strategy!r}.")
    if not isinstance(n_bins, (int, np.integer)) or n_bins < 2:
        raise ValueError(f"discretize: 'n_bins' must be an int >= 2; got {n_bins!r}.")
    if strategy == "auto":
        strategy = "discrete" if is_discrete(X) else "uniform"
    if sp.issparse(X):
        X = X.tocsc()
        blocks = []
        step = max(1, int(2**24 // max(X.shape[0], 1)))
        for s in range(0, X.shape[1], step):
            blocks.append(discretize(X[:, s : s + step].toarray(), n_bins, strategy))
        return Codes(
            np.asfortranarray(np.hstack([b.codes for b in blocks])), np.concatenate([b.k for b in blocks])
        )
    X = np.asarray(X, dtype=np.float64)
    if strategy == "discrete":
        return _encode_columns(X)
    lo = X.min(axis=0)
    width = X.max(axis=0) - lo
    safe = np.where(width > 0, width, 1.0)
    codes = np.floor((X - lo) / safe * n_bins).astype(np.int32)
    np.clip(codes, 0, n_bins - 1, out=codes)
    codes[:, width <= 0] = 0
    k = np.where(width > 0, n_bins, 1).astype(np.int64)
    return Codes(np.asfortranarray(codes), k)


def encode_target(y) -> tuple[np.ndarray, int]:
    """Code a label vector as int32 ``0..k-1``; returns ``(codes, k)``."""
    _, inv = np.unique(np.asarray(y).ravel(), return_inverse=True)
    return np.ascontiguousarray(inv, dtype=np.int32), int(inv.max()) + 1 if inv.size else 1


def _as_codes(X) -> Codes:
    return X if isinstance(X, Codes) else discretize(X)


def column_entropies(codes: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Entropy (nats) of every column of integer codes ``codes`` (n, m) with ``k`` levels each."""
    return K.entropies(code_rows(codes), k)


def entropy(x) -> float:
    """Entropy (nats) of one discrete vector."""
    a, ka = encode_target(x)
    return float(K.entropy_codes(a, ka))


def mutual_information(x, y) -> float:
    """Mutual information (nats) of two discrete vectors; equals ``sklearn.metrics.mutual_info_score``."""
    a, ka = encode_target(x)
    b, kb = encode_target(y)
    return float(
        max(K.entropy_codes(a, ka) + K.entropy_codes(b, kb) - K.joint_entropy_codes(a, ka, b, kb), 0.0)
    )


def symmetrical_uncertainty(x, y) -> float:
    """SU(x, y) = 2 I(x; y) / (H(x) + H(y)) of two discrete vectors; 0 when both are constant."""
    a, ka = encode_target(x)
    b, kb = encode_target(y)
    ha, hb = K.entropy_codes(a, ka), K.entropy_codes(b, kb)
    if ha + hb <= 0:
        return 0.0
    mi = max(ha + hb - K.joint_entropy_codes(a, ka, b, kb), 0.0)
    return float(2.0 * mi / (ha + hb))


def _with_target(X, y, su: bool) -> np.ndarray:
    c = _as_codes(X)
    yc, ky = encode_target(y)
    if yc.shape[0] != c.codes.shape[0]:
        raise ValueError(f"y has {yc.shape[0]} samples but X has {c.codes.shape[0]}; they must match.")
    return K.mi_su_with_target(c.rows, c.k, yc, ky, K.entropy_codes(yc, ky), su)


def mi_with_target(X, y) -> np.ndarray:
    """MI (nats) of every (coded) feature with the labels ``y``."""
    return _with_target(X, y, False)


def su_with_target(X, y) -> np.ndarray:
    """SU of every (coded) feature with the labels ``y``."""
    return _with_target(X, y, True)


def _cross(X, rows, cols, su: bool, h: np.ndarray | None) -> np.ndarray:
    c = _as_codes(X)
    rows = np.ascontiguousarray(np.atleast_1d(rows), dtype=np.int64)
    cols = np.ascontiguousarray(np.atleast_1d(cols), dtype=np.int64)
    if h is None:
        h = c.entropies()
    return K.mi_su_cross(c.rows, c.k, h, rows, cols, su)


def su_cross(X, rows, cols, h: np.ndarray | None = None) -> np.ndarray:
    """SU between features ``rows`` and ``cols`` -> array (len(rows), len(cols)).

    Pass ``h = codes.entropies()`` when calling repeatedly on the same codes.
    """
    return _cross(X, rows, cols, True, h)


def mi_cross(X, rows, cols, h: np.ndarray | None = None) -> np.ndarray:
    """MI (nats) between features ``rows`` and ``cols`` -> array (len(rows), len(cols))."""
    return _cross(X, rows, cols, False, h)
