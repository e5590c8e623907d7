"""Cross-validated accuracy of a feature selection, with selection redone inside each fold."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.model_selection import LeaveOneOut, StratifiedKFold
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from sklearn.utils.validation import check_X_y

from fsviz._dask import map_blocks
from fsviz._targets import target_kind
from fsviz.evaluate._selection import as_indices, frozen_rows, is_fixed_selection, select
from fsviz.stats.covariates import Covariates, check_confounding, covariate_design, residualize


@dataclass(frozen=True)
class CVResult:
    """Outcome of :func:`cv_accuracy`.

    Attributes
    ----------
    mean, std : float
        Mean and (population) standard deviation of the fold accuracies.
    fold_scores : ndarray of shape (n_splits,)
    selected : tuple of ndarray
        The features used in each fold (the same array repeated for a fixed selection).
    model : str
    reselected : bool
        True when the selection was recomputed on each training fold (no selection bias).
    """

    mean: float
    std: float
    fold_scores: np.ndarray
    selected: tuple
    model: str
    reselected: bool


def _model(model, n_neighbors: int):
    if model == "svm":
        # linear SVM on features standardised with the training fold's statistics
        return make_pipeline(StandardScaler(), LinearSVC(C=1.0, max_iter=20000))
    if model == "knn":
        return make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=n_neighbors))
    if hasattr(model, "fit") and hasattr(model, "predict"):
        return clone(model)
    raise ValueError(
        f"cv_accuracy: 'model' must be 'svm', 'knn' or a scikit-learn classifier; got {model!r}."
    )


def _fold_accuracy(fold, X, y, selector, *, k, clf, fixed_idx, design=None) -> tuple[float, np.ndarray]:
    """One CV fold: (accuracy on the test part, the features used), the selection redone on
    the training part unless ``fixed_idx`` is given. Module level: a Dask task."""
    tr, te = fold
    if design is not None:  # adjusted by a fit on the training rows only; the test rows get its residuals
        X = residualize(X, design, rows=tr)
    idx = fixed_idx
    if idx is None:
        idx = select(selector, frozen_rows(X, tr), y[tr], k, "cv_accuracy")
    idx = np.asarray(idx, dtype=np.int64)
    if idx.shape[0] == 0:
        vals, cnt = np.unique(y[tr], return_counts=True)
        return float(np.mean(y[te] == vals[np.argmax(cnt)])), idx
    c = clone(clf).fit(_columns(X, tr, idx), y[tr])
    return float(np.mean(c.predict(_columns(X, te, idx)) == y[te])), idx


def cv_accuracy(
    X,
    y,
    selector_or_indices: Any,
    k: int | None = None,
    model: Any = "svm",
    n_splits: int | str = 5,
    reselect: bool = True,
    random_state: int | None = 0,
    n_neighbors: int = 1,
    *,
    client: Any = None,
    progress: Callable[[int, int], None] | None = None,
    covariates: Any = None,
) -> CVResult:
    """Stratified k-fold accuracy of a classifier on selected features.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    selector_or_indices : estimator, callable or array-like of int / bool
        A selector with ``fit`` (cloned and fitted on every training fold), a callable
        ``f(X_train, y_train) -> indices``, or a fixed selection (indices or mask).
    k : int, optional
        Use the top ``k`` features of the selection (for pure scorers: required).
    model : {"svm", "knn"} or classifier, default="svm"
        "svm": linear SVM (``LinearSVC``, C=1); "knn": k-nearest neighbours with
        ``n_neighbors`` (1, as in the SAOLA paper). Both on features standardised with the
        training fold's mean and standard deviation.
    n_splits : int or "loo", default=5
        Stratified folds, or ``"loo"``: leave-one-out (one fold per sample; works with
        classes of a single sample, where stratified folds cannot).
    reselect : bool, default=True
        Redo the selection inside each training fold, so the test fold never influences
        which features are used. ``False`` selects once on all the data (optimistically
        biased; for comparison only). Ignored for fixed selections.
    random_state : int or None, default=0
        Seed of the fold shuffling.
    n_neighbors : int, default=1
    client : dask.distributed.Client, default=None
        Run the folds on this cluster (one task per fold; ``X`` and ``y`` are scattered
        once). The result is the same as without it: each fold computes the same thing.
    progress : callable, default=None
        ``progress(folds_done, n_folds)`` after each fold.
    covariates : DataFrame, mapping, array or Covariates, default=None
        Adjust for these inside every fold (:mod:`fsviz.stats.covariates`): the features are
        residualised on the covariates by a least-squares fit on the training rows only, and the
        test rows get that fit's residuals, before the selection and the classifier see them.
        A class target the covariates' batches predict perfectly is refused.

    Returns
    -------
    CVResult
        A fold whose selection is empty is scored by predicting the training fold's
        majority class.

    References
    ----------
    Ambroise & McLachlan, PNAS 2002 (selection bias); SAOLA paper section 5.1 (KNN with
    k=1, linear SVM).
    """
    X, y = check_X_y(X, y, accept_sparse=("csr", "csc"), dtype=np.float64)
    if sp.issparse(X):
        X = X.tocsc()
    loo = isinstance(n_splits, str) and n_splits == "loo"
    if not loo and (not isinstance(n_splits, Integral) or n_splits < 2):
        raise ValueError(f"cv_accuracy: 'n_splits' must be an int >= 2 or 'loo'; got {n_splits!r}.")
    if target_kind(y) == "continuous":
        raise ValueError(
            "cv_accuracy: y looks continuous (type_of_target='continuous'); accuracy needs class "
            "labels. Use fsviz.evaluate.cv_regression (R^2 and RMSE) for a continuous target."
        )
    _, counts = np.unique(y, return_counts=True)
    if counts.shape[0] < 2:
        raise ValueError("cv_accuracy: y has a single class; accuracy needs at least two.")
    if not loo and counts.min() < n_splits:
        raise ValueError(
            f"cv_accuracy: 'n_splits' must be <= the smallest class size ({counts.min()}) for "
            f"stratified folds; got {n_splits}."
        )
    if k is not None and (not isinstance(k, Integral) or k < 1):
        raise ValueError(f"cv_accuracy: 'k' must be a positive int or None; got {k!r}.")
    clf = _model(model, n_neighbors)
    design = None
    if covariates is not None:
        cov = covariates
        if not isinstance(cov, Covariates):
            cov = covariate_design(covariates, X.shape[0], y)
        check_confounding(y, cov, who="cv_accuracy")
        design = cov.design
    fixed = is_fixed_selection(selector_or_indices)
    if fixed:
        idx0 = as_indices(selector_or_indices, X.shape[1], "cv_accuracy")
        idx0 = idx0 if k is None else idx0[:k]
    elif not reselect:
        idx0 = select(selector_or_indices, X, y, k, "cv_accuracy")
    if loo:
        folds = LeaveOneOut()
    else:
        folds = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=random_state)
    fixed_idx = idx0 if (fixed or not reselect) else None
    parts = map_blocks(
        _fold_accuracy,
        list(folds.split(np.zeros(X.shape[0]), y)),
        client=client,
        shared=(X, y, None if fixed_idx is not None else selector_or_indices),
        kwargs={"k": k, "clf": clf, "fixed_idx": fixed_idx, "design": design},
        progress=progress,
    )
    scores = [p[0] for p in parts]
    used = [p[1] for p in parts]
    s = np.asarray(scores)
    name = model if isinstance(model, str) else type(model).__name__
    return CVResult(float(s.mean()), float(s.std()), s, tuple(used), name, bool(reselect and not fixed))


def _columns(X, rows, idx):
    """The selected columns of some rows, dense: k columns are few, and the scaler centres them."""
    import scipy.sparse as sp

    part = X[rows][:, idx]
    return part.toarray() if sp.issparse(part) else part
