"""What one GDM ``fit`` shares between its pieces: the fit state, the start of the cutting
plane, the model scores of a scan and Theorem 1's window.

The cutting plane (:mod:`._estimator`) and the two rankings of the CRM walk (:mod:`._ecv`)
both read these; they take the estimator's parameters as arguments, so neither module
reaches into the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from fsviz.select.gdm._master import MasterResult
from fsviz.select.gdm._scan import _gather, _Scanner

__all__ = ["FitState", "model_scores", "start_alpha", "start_vector", "theorem1_window"]


def start_alpha(y: np.ndarray, loss: str, C: float) -> np.ndarray:
    """Dual variables the cutting plane starts from (before any master problem)."""
    if loss == "squared":
        return C * y  # C * residual at W = 0
    return np.full(y.shape, 1.0 / y.shape[0])  # one uniform simplex per output column


def start_vector(y: np.ndarray, loss: str, C: float) -> np.ndarray:
    """``v`` of the first score scan: ``FitState.signed`` of :func:`start_alpha`."""
    alpha = start_alpha(y, loss, C)
    return alpha if loss == "squared" else alpha * y


@dataclass
class FitState:
    """What one ``fit`` shares between the cutting plane, the master problem and completion.

    The first block is set up by ``fit``; the rest starts empty and is filled by the
    cutting plane (``_cutting_plane``, ``_add_constraint``, ``_master``).
    """

    X: np.ndarray | sp.csc_matrix  # float64; sparse input as CSC with sorted indices
    y: np.ndarray  # (n,) +1 / -1 targets (all +1 for one-class); (n, c) one-vs-rest codes
    # (multiclass); centred reals (regression)
    mean: np.ndarray  # (m,) column means
    safe: np.ndarray  # (m,) centred column norms, 1.0 for constant features (safe divisor)
    const: np.ndarray  # (m,) bool: constant features, never scored, selected or grouped
    rawnorm: np.ndarray | None  # (m,) uncentred column norms; one-class only
    thr: float  # grouping threshold 1 - tau; inf when tau == 0 (no correlation constraints)
    strategy: str  # discretisation for corr="su": "discrete" or "uniform"
    scanner: _Scanner
    sf: list[int] = field(default_factory=list)  # support features in the order found
    cols: list[int] = field(default_factory=list)  # delta^1, delta^2, ... concatenated
    kernel_of: list[int] = field(default_factory=list)  # iteration (base kernel) of each entry of cols
    hist: list[float] = field(default_factory=list)  # master objective after each iteration
    gaps: list[float] = field(default_factory=list)  # duality gap of each master solve
    res: MasterResult | None = None  # latest master solution (None before the first)
    alpha: np.ndarray | None = None  # dual variables when the cutting plane stopped
    n_corr: int = 0  # correlations computed by the CRM walks (all folds included)
    n_iter: int = 0
    # (t, window) of the first iteration: a second Theorem 1 window offered to completion
    first: tuple[np.ndarray, float] | None = None
    M: np.ndarray | None = None  # master design, one column per entry of cols (extended each iteration)
    loss: str = "squared_hinge"  # master-problem loss: "squared_hinge" or "squared" (regression)
    y_mean: float = 0.0  # regression: mean of y (the intercept; y itself is stored centred)
    first_scan: tuple[np.ndarray, np.ndarray] | None = None  # (v, X' v) from the stats pass
    raw: dict = field(default_factory=dict)  # feature -> raw column, gathered by the CRM walks
    # sparse SFs (_sparse_sf.SparseSFs) when the data are sparse with many samples, else None;
    # sf_pos: feature -> its position in them
    sparse_sfs: object = None
    sf_pos: dict = field(default_factory=dict)
    # GDM-SU with sparse SFs: (codes (n, p_max) Fortran order, levels, entropies) in SF order
    sf_codes: tuple | None = None

    def columns(self, idx) -> np.ndarray:
        """Raw columns ``idx`` of X, dense (n, len(idx)) Fortran-ordered: from the walks'
        cache when it holds them all (the same values :func:`_gather` reads), else gathered."""
        idx = np.asarray(idx, dtype=np.intp)
        raw = self.raw
        if raw and all(int(j) in raw for j in idx):
            out = np.empty((self.n, idx.size), order="F")
            for k, j in enumerate(idx):
                out[:, k] = raw[int(j)]
            return out
        return _gather(self.X, idx)

    def signed(self, alpha: np.ndarray) -> np.ndarray:
        """The vector (matrix) the scores are taken against: ``alpha * y`` (classification)
        or ``alpha`` itself (regression: ``alpha = C * residual``)."""
        return alpha if self.loss == "squared" else alpha * self.y

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def m(self) -> int:
        return self.X.shape[1]


def model_scores(st: FitState, u, sv, mean, safe, const, rawnorm, one_class: bool):
    """Model scores ``s`` and pruning statistics ``t`` from raw products ``u = X' v``.

    Multiclass (``u`` of shape (m, c)): ``t_j = ||z_j' A~||`` over the class columns and
    ``s_j = sqrt(n) t_j`` -- the most violated constraint of the joint master problem
    takes the features with the largest ``sum_k (z_j' A~_k)^2``. One-class GDM scores by the
    uncentred norms ``rawnorm``.
    """

    if u.ndim == 2:
        T = np.where(const[:, None], 0.0, (u - mean[:, None] * sv[None, :]) / safe[:, None])
        t = np.sqrt(np.einsum("ij,ij->i", T, T))
        return np.sqrt(st.n) * t, t
    t = np.where(const, 0.0, (u - mean * sv) / safe)
    root_n = np.sqrt(st.n)
    if one_class:
        s = np.where(const, 0.0, root_n * u / np.where(rawnorm > 0, rawnorm, 1.0))
    else:
        s = root_n * t
    return s, t


def theorem1_window(v, tau: float) -> float:
    """Theorem 1 window ``sqrt(2 tau) ||v - mean(v)||``; for a matrix ``v`` (multiclass)
    the spectral norm of its column-centred version, since for unit-norm centred
    ``z_i, z_j`` with ``|z_i . z_j| >= 1 - tau``:
    ``| ||z_i' v|| - ||z_j' v|| | <= ||z_i -+ z_j|| ||v_c||_2 <= sqrt(2 tau) ||v_c||_2``."""
    if v.ndim == 2:  # spectral norm from the c x c Gram matrix (c = classes)
        vc = v - v.mean(axis=0)
        nrm = float(np.sqrt(max(np.linalg.eigvalsh(vc.T @ vc)[-1], 0.0)))
    else:
        nrm = float(np.linalg.norm(v - v.mean()))
    return np.sqrt(2.0 * tau) * nrm * (1.0 + 1e-9) + 1e-15


def map_columns_back(est, canon: np.ndarray) -> None:
    """Feature indices and per-feature arrays of a fit on ``X[:, canon]`` in ``X``'s columns."""
    inv = np.empty_like(canon)
    inv[canon] = np.arange(canon.size)
    est.support_ = canon[est.support_]
    est.groups_ = {int(canon[k]): canon[v] for k, v in est.groups_.items()}
    est.group_corr_ = {int(canon[k]): v for k, v in est.group_corr_.items()}
    est.scores_ = est.scores_[inv]
    est.coef_ = est.coef_[..., inv]
    if hasattr(est, "class_support_"):
        est.class_support_ = {c: canon[v] for c, v in est.class_support_.items()}
