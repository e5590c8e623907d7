"""Model-X knockoffs for Gaussian-like features: second-order knockoffs with equicorrelated ``s``,
a lasso-coefficient-difference or marginal-score statistic, and the knockoff+ threshold.

A knockoff copy ``X~`` of ``X`` is drawn so that ``(X, X~)`` has the same first two moments
whichever features are swapped with their copies, and ``X~`` is drawn without looking at ``y``.
With ``Sigma`` the features' correlation matrix (estimated; features standardised) and
``S = diag(s)``, the second-order Gaussian construction (Candes et al. 2018, section 3.1) draws

    X~ | X ~ N(X - X Sigma^{-1} S, 2 S - S Sigma^{-1} S),

equicorrelated: ``s_j = min(1, 2 lambda_min(Sigma))`` (slightly shrunk so the covariance stays
positive definite). A statistic ``W_j`` compares feature ``j`` with its copy (large positive:
``j`` matters more than its copy) and flips sign when the two are swapped; knockoff+ selects
``{j : W_j >= T}`` with

    T = min{t > 0 : (1 + #{j : W_j <= -t}) / max(1, #{j : W_j >= t}) <= q},

which controls the FDR at ``q`` exactly when the knockoffs are exact (Theorem 3.4), i.e. when
``X`` is Gaussian with the covariance used. Here the covariance is estimated from the same
data (a Ledoit-Wolf shrunk correlation), so control is approximate (Barber, Candes &
Samworth 2020 bound the excess by the estimation error); it needs many more samples than
features: ``n >= 2 m`` is required.

References
----------
Candes, Fan, Janson & Lv (2018), "Panning for gold: model-X knockoffs for high dimensional
controlled variable selection", JRSS B 80(3), 551-577.
Barber & Candes (2015), "Controlling the false discovery rate via knockoffs", Ann. Statist. 43(5).
"""

from __future__ import annotations

import warnings
from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.covariance import ledoit_wolf
from sklearn.feature_selection import SelectorMixin
from sklearn.linear_model import LassoCV
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from fsviz._targets import check_class_target, target_kind
from fsviz.select._base import class_codes

__all__ = ["Knockoffs", "gaussian_knockoffs", "knockoff_threshold"]


def _standardise(X: np.ndarray) -> np.ndarray:
    Z = X - X.mean(axis=0)
    sd = Z.std(axis=0)
    if np.any(sd == 0):
        first = int(np.flatnonzero(sd == 0)[0])
        raise ValueError(
            f"knockoffs: {int(np.sum(sd == 0))} constant feature(s) (e.g. column {first}); drop them "
            "first: a constant has no knockoff."
        )
    return Z / sd


def gaussian_knockoffs(X, *, random_state=None) -> np.ndarray:
    """Second-order Gaussian model-X knockoffs of ``X`` (equicorrelated), on standardised features.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        ``n_samples >= 2 n_features`` (the covariance is estimated from ``X``).
    random_state : int, RandomState instance or None

    Returns
    -------
    X_tilde : ndarray of shape (n_samples, n_features)
        Knockoffs of the standardised ``X`` (the columns of ``X`` centred and scaled to unit
        variance), so compare them with that standardised ``X``.
    """
    X = np.asarray(X, dtype=np.float64)
    n, m = X.shape
    if n < 2 * m:
        raise ValueError(
            f"knockoffs: model-X knockoffs estimate the features' covariance and need n >= 2 m samples; "
            f"got n = {n}, m = {m}: with fewer samples the estimated covariance, which the knockoffs are "
            "drawn from, is too noisy (or singular). Use them on fewer features chosen on other data, or "
            "use the permutation FDR cut of a score (e.g. fsviz select --method f -k fdr:Q) or stability "
            "selection (-k stability:PI) instead (docs/significance.md)."
        )
    Z = _standardise(X)
    # Ledoit-Wolf shrinkage of the correlation, as the R knockoff package shrinks it: the sample
    # correlation's smallest eigenvalue, pulled down by sampling noise, would make s (and so the
    # knockoffs' independence from X) needlessly small and V singular in its direction
    cov, _ = ledoit_wolf(Z, assume_centered=True)
    d = np.sqrt(np.diag(cov))
    Sigma = cov / np.outer(d, d)
    lam = float(np.linalg.eigvalsh(Sigma)[0])
    s = min(1.0, 2.0 * lam) * (1.0 - 1e-6)
    Sinv_S = np.linalg.solve(Sigma, np.eye(m)) * s  # Sigma^{-1} S, S = s I
    mu = Z - Z @ Sinv_S
    V = 2.0 * s * np.eye(m) - s * Sinv_S
    V = (V + V.T) / 2.0
    w, U = np.linalg.eigh(V)
    root = U * np.sqrt(np.clip(w, 0.0, None))  # V = root root^T
    rng = check_random_state(random_state)
    return mu + rng.standard_normal((n, m)) @ root.T


def knockoff_threshold(W, q: float, *, offset: int = 1) -> float:
    """The knockoff(+) threshold ``T`` of the statistics ``W`` at FDR level ``q``.

    ``offset=1`` is knockoff+ (exact FDR control), ``offset=0`` the knockoff filter (a modified
    FDR). ``inf`` when no threshold qualifies (nothing is selected).

    Examples
    --------
    >>> knockoff_threshold([5, 4, 3, 2, -1, 0.5], 0.5)
    0.5
    """
    W = np.asarray(W, dtype=np.float64).ravel()
    for t in np.sort(np.abs(W[W != 0])):
        if (offset + np.sum(W <= -t)) / max(1, np.sum(W >= t)) <= q:
            return float(t)
    return float("inf")


class Knockoffs(SelectorMixin, BaseEstimator):
    """Model-X knockoff selection at a target FDR (second-order Gaussian knockoffs, knockoff+).

    Parameters
    ----------
    fdr : float, default=0.1
        The target false discovery rate ``q``.
    statistic : {"lasso", "score"}, default="lasso"
        "lasso": ``W_j = |b_j| - |b_j~|`` from a cross-validated lasso of the target (class codes
        for two classes, a continuous target as it is) on ``[X, X~]``; "score": ``W_j = |r_j| -
        |r_j~|``, the absolute correlations with the target (cheap, marginal).
    random_state : int, RandomState instance or None, default=None
        Draws the knockoffs (and the lasso's folds).

    Attributes
    ----------
    selected_ : ndarray of int
        Features with ``W_j >= threshold_``, largest ``W`` first.
    W_ : ndarray of shape (n_features,)
        The knockoff statistics; 0 for a constant feature (left out with a warning).
    scores_ : ndarray of shape (n_features,)
        ``max(W, 0)`` (higher = better).
    threshold_ : float
        The knockoff+ threshold (``inf`` when nothing is selected).
    n_features_in_ : int

    Notes
    -----
    Needs ``n >= 2 m`` (the covariance is estimated from the data) and Gaussian-like features;
    two classes or a continuous target. knockoff+ selects nothing unless at least ``1 / q``
    features can be selected (its offset of 1): at ``q = 0.1``, ten.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 30)); y = X[:, :6].sum(axis=1) + rng.normal(size=400)
    >>> sorted(Knockoffs(fdr=0.2, random_state=0).fit(X, y).selected_.tolist())
    [0, 1, 2, 3, 4, 5]
    """

    _parameter_constraints: dict = {
        "fdr": [Interval(Real, 0.0, 1.0, closed="right")],
        "statistic": [StrOptions({"lasso", "score"})],
        "random_state": ["random_state"],
    }

    def __init__(self, *, fdr: float = 0.1, statistic: str = "lasso", random_state=None):
        self.fdr = fdr
        self.statistic = statistic
        self.random_state = random_state

    def fit(self, X, y) -> Knockoffs:
        """Draw knockoffs, compute ``W`` and select at the knockoff+ threshold.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=4)
        if target_kind(y) == "continuous":
            t = np.asarray(y, dtype=np.float64)
        else:
            check_class_target("Knockoffs", y)
            codes, counts = class_codes("Knockoffs", y)
            if counts.size != 2:
                raise ValueError(
                    f"Knockoffs: the lasso and score statistics take two classes or a continuous target; "
                    f"got {counts.size} classes."
                )
            t = codes.astype(np.float64)
        seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        const = X.std(axis=0) == 0
        if const.all():
            raise ValueError("Knockoffs: every feature is constant; there is nothing to select.")
        if const.any():  # a constant has no knockoff and tells nothing: W = 0, never selected
            shown = np.flatnonzero(const)[:10].tolist()
            warnings.warn(
                f"Knockoffs: {int(const.sum())} constant feature(s) left out (W = 0, never selected), "
                f"e.g. columns {shown}.",
                UserWarning,
                stacklevel=2,
            )
        live = np.flatnonzero(~const)
        Xk = gaussian_knockoffs(X[:, live], random_state=seed)
        Z = _standardise(X[:, live])
        m = live.size
        if self.statistic == "lasso":
            model = LassoCV(cv=5, alphas=40, random_state=seed, max_iter=5000).fit(np.hstack([Z, Xk]), t)
            b = np.abs(model.coef_)
        else:
            tc = t - t.mean()
            A = np.hstack([Z, Xk])
            A = A - A.mean(axis=0)
            b = np.abs(A.T @ tc) / (np.linalg.norm(A, axis=0) * np.linalg.norm(tc) + 1e-300)
        W = np.zeros(X.shape[1])
        W[live] = b[:m] - b[m:]
        self.W_ = W
        self.threshold_ = knockoff_threshold(W, float(self.fdr))
        sel = np.flatnonzero(W >= self.threshold_)
        self.selected_ = sel[np.argsort(-W[sel], kind="stable")].astype(np.int64)
        self.scores_ = np.maximum(W, 0.0)
        return self

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "selected_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.selected_] = True
        return mask
