"""The GDM papers' SVM baselines: l1-regularised linear SVM and SVM-RFE.

References
----------
G.-X. Yuan, K.-W. Chang, C.-J. Hsieh, C.-J. Lin. A comparison of optimization methods and
software for large-scale l1-regularized linear classification. JMLR 11, 2010 (l1-SVM with
the squared hinge loss, the solver of liblinear).
I. Guyon, J. Weston, S. Barnhill, V. Vapnik. Gene selection for cancer classification using
support vector machines. Machine Learning 46, 2002 (SVM-RFE).
``gdm-support-and-affiliated-features.txt``, section 5 and
``gdm-making-trillion-correlations-feasible.txt``, Table 2 / Figs. 4-6 (the baselines).
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_selection import SelectorMixin
from sklearn.svm import LinearSVC, l1_min_c
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from fsviz.select._base import constant_features, zero_columns
from fsviz.select._subset_common import SelectedSubsetMixin, rank_from_selection

__all__ = ["L1SVM", "SVMRFE"]


#: what both linear-SVM selectors pass to liblinear
_SVM_CONSTRAINTS: dict = {
    "C": [Interval(Real, 0.0, None, closed="neither")],
    "tol": [Interval(Real, 0.0, None, closed="neither")],
    "max_iter": [Interval(Integral, 1, None, closed="left")],
    "random_state": ["random_state"],
}
#: a count of features, or a fraction of them in (0, 1)
_COUNT_OR_FRACTION: list = [
    Interval(Integral, 1, None, closed="left"),
    Interval(RealNotInt, 0.0, 1.0, closed="neither"),
]


def _importance(coef: np.ndarray) -> np.ndarray:
    """Per feature, the sum over classes of the squared weights (scikit-learn's RFE criterion)."""
    coef = np.atleast_2d(coef)
    return (coef * coef).sum(axis=0) if coef.shape[0] > 1 else coef[0] * coef[0]


class L1SVM(SelectedSubsetMixin, SelectorMixin, BaseEstimator):
    """l1-regularised linear SVM with the squared hinge loss (liblinear's primal solver).

    ``min_w |w|_1 + C sum_i max(0, 1 - y_i (w.x_i + b))^2``, one-vs-rest for more than
    two classes. The selected features are those with a non-zero weight. With
    ``n_features`` set, C is searched on a path instead: from scikit-learn's
    ``l1_min_c`` (the C below which every weight is 0) doubling until at least
    ``n_features`` weights are non-zero, then bisecting (in log C) for the smallest such
    C; the ``n_features`` largest weights at that C are selected (the GDM papers' way
    of giving l1-SVM a number of features).

    Parameters
    ----------
    C : float, default=1.0
        Inverse regularisation strength (used when ``n_features`` is None).
    n_features : int or None, default=None
        Number of features to reach on the C path.
    tol : float, default=1e-4
    max_iter : int, default=1000
    n_bisect : int, default=12
        Bisection steps on log C once the path has bracketed ``n_features``.
    random_state : int, RandomState instance or None, default=None
        Passed to liblinear.

    Attributes
    ----------
    selected_ : ndarray of int
        Features with non-zero weight (at most ``n_features``), by decreasing weight.
    scores_ : ndarray of shape (n_features_in_,)
        Largest ``|w_j|`` over the classes.
    ranking_ : ndarray of int
    coef_ : ndarray of shape (1 or n_classes, n_features_in_)
    intercept_ : ndarray
    C_ : float
        The C of the returned model.
    n_iter_ : int
        liblinear iterations of the returned model.
    path_ : ndarray of shape (n_fits, 2)
        (C, number of non-zero features) of every fit on the path (one row without
        ``n_features``).
    classes_ : ndarray
    n_features_in_ : int

    References
    ----------
    G.-X. Yuan et al. JMLR 11, 2010 (l1-regularised squared-hinge SVM, liblinear).
    GDM paper (ICML 2013), section 5: L1-SVM with "C varying with the number of selected
    features".

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import L1SVM
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 30)); y = (X[:, 4] - X[:, 9] > 0).astype(int)
    >>> sorted(L1SVM(n_features=2).fit(X, y).selected_.tolist())
    [4, 9]
    """

    _parameter_constraints: dict = {
        **_SVM_CONSTRAINTS,
        "n_features": [Interval(Integral, 1, None, closed="left"), None],
        "n_bisect": [Interval(Integral, 0, None, closed="left")],
    }

    def __init__(
        self,
        *,
        C: float = 1.0,
        n_features: int | None = None,
        tol: float = 1e-4,
        max_iter: int = 1000,
        n_bisect: int = 12,
        random_state=None,
    ):
        self.C = C
        self.n_features = n_features
        self.tol = tol
        self.max_iter = max_iter
        self.n_bisect = n_bisect
        self.random_state = random_state

    def _svc(self, C: float, seed: int) -> LinearSVC:
        return LinearSVC(
            penalty="l1",
            loss="squared_hinge",
            dual=False,
            C=C,
            tol=self.tol,
            max_iter=self.max_iter,
            random_state=seed,
        )

    def fit(self, X, y):
        """Fit the l1-SVM (or walk the C path to ``n_features`` features).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        self._validate_params()  # the declaration above, scikit-learn's own check
        X, y = validate_data(
            self, X, y, accept_sparse=("csr", "csc"), dtype=np.float64, ensure_all_finite=True
        )
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        if self.classes_.shape[0] < 2:
            raise ValueError(f"L1SVM: y needs at least two classes; got 1 class ({self.classes_.tolist()}).")
        # a constant column would stand in for liblinear's penalised intercept: set it aside
        X = zero_columns(X, constant_features(X))
        seed = int(check_random_state(self.random_state).randint(np.iinfo(np.int32).max))
        path = []

        def fit_at(C):
            svc = self._svc(float(C), seed)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                svc.fit(X, y)
            nnz = int(np.count_nonzero(np.any(svc.coef_ != 0, axis=0)))
            path.append((float(C), nnz))
            return svc, nnz

        if self.n_features is None:
            svc, _ = fit_at(self.C)
        else:
            k = min(int(self.n_features), X.shape[1])
            lo = float(l1_min_c(X, y, loss="squared_hinge"))
            svc, nnz = fit_at(lo)
            hi = lo
            for _ in range(60):  # double until bracketed
                if nnz >= k:
                    break
                lo, hi = hi, hi * 2.0
                svc, nnz = fit_at(hi)
            best = svc
            if nnz >= k:
                for _ in range(int(self.n_bisect)):  # smallest C with at least k features
                    mid = float(np.sqrt(lo * hi))
                    cand, c_nnz = fit_at(mid)
                    if c_nnz >= k:
                        hi, best = mid, cand
                    else:
                        lo = mid
            svc = best
        self.coef_ = np.asarray(svc.coef_, dtype=np.float64)
        self.intercept_ = np.asarray(svc.intercept_, dtype=np.float64)
        self.C_ = float(svc.C)
        self.n_iter_ = int(np.max(svc.n_iter_))
        self.path_ = np.asarray(path, dtype=np.float64)
        self.scores_ = np.abs(self.coef_).max(axis=0)
        nz = np.flatnonzero(self.scores_ > 0)
        sel = nz[np.argsort(-self.scores_[nz], kind="stable")]
        if self.n_features is not None:
            sel = sel[: int(self.n_features)]
        self.selected_ = sel
        self.ranking_ = rank_from_selection(self.selected_, self.scores_)[0]
        return self


class SVMRFE(SelectorMixin, BaseEstimator):
    """Recursive feature elimination with a linear SVM (Guyon et al. 2002).

    Fit a linear SVM (scikit-learn's ``LinearSVC``: l2 penalty, squared hinge loss by
    default) on the remaining features, remove the ``step`` features with the smallest
    ``w_j^2`` (summed over the one-vs-rest classes), repeat until
    ``n_features_to_select`` remain. The ranking is exactly that of
    ``sklearn.feature_selection.RFE(LinearSVC(...), n_features_to_select, step)`` with
    the same settings (same fits, same stable tie-break).

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Features to keep: an int, a fraction of the features (float in (0, 1)), or
        None for half (scikit-learn's conventions).
    step : int or float, default=1
        Features removed per iteration (int >= 1) or fraction of all features
        (float in (0, 1)).
    C : float, default=1.0
    loss : {"squared_hinge", "hinge"}, default="squared_hinge"
    dual : bool or "auto", default="auto"
    tol : float, default=1e-4
    max_iter : int, default=1000
    random_state : int, RandomState instance or None, default=None
        Seed of liblinear's dual coordinate descent.

    Attributes
    ----------
    ranking_ : ndarray of int of shape (n_features_in_,)
        1 for the kept features; a feature removed at the last iteration has 2, etc.
    selected_ : ndarray of int
        The kept features, by decreasing ``w_j^2`` of the final SVM.
    scores_ : ndarray of shape (n_features_in_,)
        ``(m - rank + 1) / m`` of the elimination order (higher = better; the kept
        features ordered by their final weight).
    coef_ : ndarray
        Weights of the final SVM on ``selected_`` (in column order of the kept features).
    n_iter_ : int
        Number of SVM fits (eliminations + the final fit).
    n_features_in_ : int

    Notes
    -----
    With an integer ``random_state`` and the same settings the result is
    bit-for-bit scikit-learn's: the SVM fits are the same ones and dominate the time,
    so it is about as fast (see ``docs/streaming_svm.md`` for the measured ratio).

    References
    ----------
    I. Guyon, J. Weston, S. Barnhill, V. Vapnik. Gene selection for cancer
    classification using support vector machines. Machine Learning 46:389-422, 2002.

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import SVMRFE
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 20)); y = (X[:, 2] + X[:, 15] > 0).astype(int)
    >>> sorted(SVMRFE(n_features_to_select=2, random_state=0).fit(X, y).selected_.tolist())
    [2, 15]
    """

    _parameter_constraints: dict = {
        **_SVM_CONSTRAINTS,
        "n_features_to_select": [*_COUNT_OR_FRACTION, None],
        "step": _COUNT_OR_FRACTION,
        "loss": [StrOptions({"squared_hinge", "hinge"})],
        "dual": [StrOptions({"auto"}), "boolean"],
    }

    def __init__(
        self,
        *,
        n_features_to_select=None,
        step=1,
        C: float = 1.0,
        loss: str = "squared_hinge",
        dual="auto",
        tol: float = 1e-4,
        max_iter: int = 1000,
        random_state=None,
    ):
        self.n_features_to_select = n_features_to_select
        self.step = step
        self.C = C
        self.loss = loss
        self.dual = dual
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state

    def _svc(self) -> LinearSVC:
        return LinearSVC(
            C=self.C,
            loss=self.loss,
            dual=self.dual,
            tol=self.tol,
            max_iter=self.max_iter,
            random_state=self.random_state,
        )

    def fit(self, X, y):
        """Eliminate features recursively.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        self._validate_params()  # the declaration above, scikit-learn's own check
        X, y = validate_data(self, X, y, accept_sparse="csc", dtype=np.float64, ensure_all_finite=True)
        check_classification_targets(y)
        if np.unique(y).shape[0] < 2:
            raise ValueError("SVMRFE: y needs at least two classes; got 1 class.")
        m = X.shape[1]
        k = self.n_features_to_select
        if k is None:
            k = m // 2
        elif isinstance(k, Integral):
            k = min(int(k), m)
        else:  # a fraction (declared)
            k = int(m * k)
        k = max(k, 1) if m > 1 else 1
        st = self.step
        step = int(st) if isinstance(st, Integral) else int(max(1, st * m))  # a count or a fraction
        # constant columns (a stand-in for the penalised intercept otherwise) are zeroed and
        # eliminated first
        const = constant_features(X)
        X = zero_columns(X, const)
        support = np.ones(m, dtype=bool)
        ranking = np.ones(m, dtype=np.int64)
        n_fit = 0
        while support.sum() > k:
            features = np.flatnonzero(support)
            svc = self._svc().fit(X[:, features], y)
            n_fit += 1
            ranks = np.lexsort((np.arange(features.size), _importance(svc.coef_), ~const[features]))
            drop = min(step, int(support.sum()) - k)
            support[features[ranks][:drop]] = False
            ranking[~support] += 1
        features = np.flatnonzero(support)
        svc = self._svc().fit(X[:, features], y)
        n_fit += 1
        imp = _importance(svc.coef_)
        self.coef_ = np.asarray(svc.coef_)
        self.selected_ = features[np.lexsort((np.arange(features.size), -imp, const[features]))]
        self.ranking_ = ranking
        self.n_iter_ = n_fit
        # scores: the kept features by their final weight, then elimination order
        order_key = np.lexsort((np.arange(m), ranking))
        rest = order_key[ranking[order_key] > 1]
        order = np.concatenate([self.selected_, rest])
        pos = np.empty(m, dtype=np.int64)
        pos[order] = np.arange(m)
        self.scores_ = (m - pos) / m
        self.n_features_ = int(support.sum())
        self.support_ = support
        return self

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "ranking_")
        return self.ranking_ == 1

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.sparse = True
        return tags
