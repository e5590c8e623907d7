"""Cross-validated R^2 and RMSE of a feature selection for a continuous target.

The regression counterpart of :func:`fsviz.evaluate.cv_accuracy`: the same selection
handling (indices, mask, callable or selector, redone inside every training fold),
K-fold instead of stratified folds, a ridge regressor instead of a classifier.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.linear_model import Ridge
from sklearn.model_selection import KFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.validation import check_X_y

from fsviz._dask import map_blocks
from fsviz._targets import target_kind
from fsviz.evaluate._selection import as_indices, frozen_rows, is_fixed_selection, select
from fsviz.stats.covariates import Covariates, covariate_design, residualize


@dataclass(frozen=True)
class RegressionCVResult:
    """Outcome of :func:`cv_regression`.

    Attributes
    ----------
    r2, r2_std : float
        Mean and (population) standard deviation of the fold R^2 (coefficient of
        determination on the test fold: 1 is perfect, 0 is as good as predicting the
        test fold's mean, negative is worse).
    rmse, rmse_std : float
        Mean and standard deviation of the fold root mean squared errors (units of y).
    fold_r2, fold_rmse : ndarray of shape (n_splits,)
    selected : tuple of ndarray
        The features used in each fold.
    model : str
    reselected : bool
        True when the selection was recomputed on each training fold (no selection bias).
    """

    r2: float
    r2_std: float
    rmse: float
    rmse_std: float
    fold_r2: np.ndarray
    fold_rmse: np.ndarray
    selected: tuple
    model: str
    reselected: bool


def _model(model, alpha):
    if model == "ridge":
        if not isinstance(alpha, Real) or isinstance(alpha, bool) or not alpha > 0:
            raise ValueError(f"cv_regression: 'alpha' must be a positive float; got {alpha!r}.")
        # ridge on features standardised with the training fold's statistics (intercept fitted)
        return make_pipeline(StandardScaler(with_mean=True), Ridge(alpha=float(alpha)))
    if hasattr(model, "fit") and hasattr(model, "predict"):
        return clone(model)
    raise ValueError(f"cv_regression: 'model' must be 'ridge' or a scikit-learn regressor; got {model!r}.")


def _fold_regression(
    fold, X, y, selector, *, k, reg, fixed_idx, design=None
) -> tuple[float, float, np.ndarray]:
    """One CV fold: (R^2, RMSE, the features used). Module level: a Dask task."""
    tr, te = fold
    if design is not None:  # features and target adjusted by a fit on the training rows only
        X, y = residualize(X, design, rows=tr), residualize(y, design, rows=tr)
    idx = fixed_idx
    if idx is None:
        idx = select(selector, frozen_rows(X, tr), y[tr], k, "cv_regression")
    idx = np.asarray(idx, dtype=np.int64)
    if idx.shape[0] == 0:
        pred = np.full(te.shape[0], y[tr].mean())
    else:
        pred = clone(reg).fit(X[tr][:, idx], y[tr]).predict(X[te][:, idx])
    resid = y[te] - pred
    ss_tot = float(np.sum((y[te] - y[te].mean()) ** 2))
    ss_res = float(resid @ resid)
    # scikit-learn's r2_score convention for a constant test fold: 1 if perfect, else 0
    r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else (1.0 if ss_res == 0 else 0.0)
    return r2, float(np.sqrt(ss_res / te.shape[0])), idx


def cv_regression(
    X,
    y,
    selector_or_indices: Any,
    k: int | None = None,
    model: Any = "ridge",
    n_splits: int = 5,
    reselect: bool = True,
    random_state: int | None = 0,
    alpha: float = 1.0,
    *,
    client: Any = None,
    progress: Callable[[int, int], None] | None = None,
    covariates: Any = None,
) -> RegressionCVResult:
    """K-fold R^2 and RMSE of a regressor on selected features.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        A continuous target (``type_of_target(y) == "continuous"``).
    selector_or_indices : estimator, callable or array-like of int / bool
        A selector with ``fit`` (cloned and fitted on every training fold), a callable
        ``f(X_train, y_train) -> indices``, or a fixed selection (indices or mask).
    k : int, optional
        Use the top ``k`` features of the selection (for pure scorers: required).
    model : "ridge" or regressor, default="ridge"
        "ridge": ``Ridge(alpha)`` on features standardised with the training fold's
        mean and standard deviation.
    n_splits : int, default=5
        Shuffled ``KFold`` splits.
    reselect : bool, default=True
        Redo the selection inside each training fold, so the test fold never influences
        which features are used. ``False`` selects once on all the data (optimistically
        biased; for comparison only). Ignored for fixed selections.
    random_state : int or None, default=0
        Seed of the fold shuffling.
    alpha : float, default=1.0
        Ridge penalty.
    client : dask.distributed.Client, default=None
        Run the folds on this cluster (one task per fold; the result is the same).
    progress : callable, default=None
        ``progress(folds_done, n_folds)`` after each fold.
    covariates : DataFrame, mapping, array or Covariates, default=None
        Adjust for these inside every fold: the features and the target are residualised on the
        covariates by a least-squares fit on the training rows only (the test rows get that fit's
        residuals); R^2 and RMSE are then those of the adjusted target.

    Returns
    -------
    RegressionCVResult
        A fold whose selection is empty predicts the training fold's mean.

    References
    ----------
    Hoerl & Kennard (1970) (ridge); Ambroise & McLachlan, PNAS 2002 (selection bias).

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from fsviz.select import FScore
    >>> X, y = load_diabetes(return_X_y=True)
    >>> y = (y - y.mean()) / y.std()      # whole numbers would be classes: standardise
    >>> res = cv_regression(X, y, FScore(), k=4)
    >>> round(res.r2, 2), round(res.rmse, 2)
    (0.46, 0.73)
    """
    X, y = check_X_y(X, y, accept_sparse=("csr", "csc"), dtype=np.float64, y_numeric=True)
    if sp.issparse(X):
        X = X.tocsc()
    if target_kind(y) != "continuous":
        raise ValueError(
            "cv_regression: y must be a continuous target (type_of_target='continuous'); got class "
            f"labels ({np.unique(y).size} distinct values). Use cv_accuracy for classes."
        )
    if not isinstance(n_splits, Integral) or isinstance(n_splits, bool) or not 2 <= n_splits <= X.shape[0]:
        raise ValueError(
            f"cv_regression: 'n_splits' must be an int in [2, n_samples={X.shape[0]}]; got {n_splits!r}."
        )
    if k is not None and (not isinstance(k, Integral) or k < 1):
        raise ValueError(f"cv_regression: 'k' must be a positive int or None; got {k!r}.")
    reg = _model(model, alpha)
    design = None
    if covariates is not None:
        cov = covariates
        if not isinstance(cov, Covariates):
            cov = covariate_design(covariates, X.shape[0], y)
        design = cov.design
    fixed = is_fixed_selection(selector_or_indices)
    if fixed:
        idx0 = as_indices(selector_or_indices, X.shape[1], "cv_regression")
        idx0 = idx0 if k is None else idx0[:k]
    elif not reselect:
        idx0 = select(selector_or_indices, X, y, k, "cv_regression")
    folds = KFold(n_splits=n_splits, shuffle=True, random_state=random_state)
    fixed_idx = idx0 if (fixed or not reselect) else None
    parts = map_blocks(
        _fold_regression,
        list(folds.split(np.zeros(X.shape[0]))),
        client=client,
        shared=(X, y, None if fixed_idx is not None else selector_or_indices),
        kwargs={"k": k, "reg": reg, "fixed_idx": fixed_idx, "design": design},
        progress=progress,
    )
    r2s, rmses, used = ([p[i] for p in parts] for i in range(3))
    r2, rmse = np.asarray(r2s), np.asarray(rmses)
    name = model if isinstance(model, str) else type(model).__name__
    return RegressionCVResult(
        float(r2.mean()),
        float(r2.std()),
        float(rmse.mean()),
        float(rmse.std()),
        r2,
        rmse,
        tuple(used),
        name,
        bool(reselect and not fixed),
    )
