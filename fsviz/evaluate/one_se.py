"""How many features: the cross-validated accuracy curve over k and the one-standard-error rule.

The curve is the survey's protocol (:func:`fsviz.evaluate.benchmark`) with the selection redone
inside every training fold, so the test folds never choose the features (Ambroise & McLachlan
2002). The one-standard-error rule (Breiman et al. 1984, section 3.4.3; Hastie, Tibshirani &
Friedman 2009, section 7.10) recommends the smallest ``k`` whose mean accuracy is within one
standard error of the best: ``k_1se = min{k : mean(k) >= mean(k*) - se(k*)}``, with
``se = sd over folds / sqrt(folds)``. It prefers the smaller model when the data cannot tell
the two apart. The fold errors are correlated (the training folds overlap), so the standard
error is a rough, usually optimistic, measure of the spread; it is reported beside the k.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from fsviz.evaluate.protocol import benchmark

__all__ = ["CVCurve", "cv_curve", "one_se_rule"]


@dataclass(frozen=True)
class CVCurve:
    """Mean CV accuracy over k with its standard error, and the one-SE recommendation.

    Attributes
    ----------
    ks : ndarray of int
    mean, se : ndarray of float
        Mean test-fold accuracy and its standard error (sd over folds / sqrt(folds)).
    n_folds : int
    best_k : int
        The k of the highest mean (the smallest such k on ties).
    k_1se : int
        The smallest k with ``mean >= mean(best_k) - se(best_k)``.
    threshold : float
        ``mean(best_k) - se(best_k)``.
    classifier : str
    """

    ks: np.ndarray
    mean: np.ndarray
    se: np.ndarray
    n_folds: int
    best_k: int
    k_1se: int
    threshold: float
    classifier: str

    def frame(self) -> pd.DataFrame:
        """``k, mean, se`` as a table."""
        return pd.DataFrame({"k": self.ks, "mean": self.mean, "se": self.se})

    def describe(self) -> str:
        i, b = int(np.searchsorted(self.ks, self.k_1se)), int(np.searchsorted(self.ks, self.best_k))
        return (
            f"cv-1se: k = {self.k_1se} (accuracy {self.mean[i]:.3f} +/- {self.se[i]:.3f} SE over "
            f"{self.n_folds} folds, {self.classifier}); the best k = {self.best_k} has "
            f"{self.mean[b]:.3f} +/- {self.se[b]:.3f}"
        )


def one_se_rule(table: pd.DataFrame, method: str | None = None, classifier: str | None = None) -> CVCurve:
    """The one-SE recommendation from a :func:`fsviz.evaluate.benchmark` table.

    Parameters
    ----------
    table : DataFrame
        Rows ``method, k, classifier, fold, accuracy`` (classification rows).
    method, classifier : str, default=None
        Which method's and classifier's rows; None when the table holds one.

    Returns
    -------
    CVCurve

    Examples
    --------
    >>> t = pd.DataFrame({"method": "m", "classifier": "c", "k": [1, 1, 2, 2, 3, 3],
    ...                   "fold": [0, 1] * 3, "accuracy": [0.6, 0.7, 0.8, 0.9, 0.9, 0.8]})
    >>> one_se_rule(t).k_1se
    2
    """
    rows = table[table.get("kind", pd.Series("classification", index=table.index)) == "classification"]
    for col, value in (("method", method), ("classifier", classifier)):
        values = rows[col].unique()
        if value is None:
            if len(values) != 1:
                raise ValueError(
                    f"one_se_rule: the table holds {len(values)} {col}s {list(values)}; name one."
                )
            value = values[0]
        rows = rows[rows[col] == value]
    if rows.empty:
        raise ValueError("one_se_rule: no classification rows for this method and classifier.")
    g = rows.groupby("k")["accuracy"]
    mean, sd, count = g.mean(), g.std(ddof=1).fillna(0.0), g.count()
    ks = mean.index.to_numpy(dtype=np.int64)
    se = (sd / np.sqrt(count)).to_numpy()
    mean = mean.to_numpy()
    best = int(np.argmax(mean))  # the first maximum: the smallest k on ties
    threshold = float(mean[best] - se[best])
    k_1se = int(ks[np.flatnonzero(mean >= threshold - 1e-12)[0]])
    return CVCurve(
        ks=ks,
        mean=mean,
        se=se,
        n_folds=int(count.max()),
        best_k=int(ks[best]),
        k_1se=k_1se,
        threshold=threshold,
        classifier=str(rows["classifier"].iloc[0]),
    )


def cv_curve(
    X,
    y,
    selector,
    ks,
    *,
    classifier="linear_svm",
    cv: int = 5,
    random_state: int = 0,
    n_jobs: int | None = None,
    client=None,
    progress=None,
    covariates=None,
) -> CVCurve:
    """Cross-validated accuracy of ``selector``'s top k for every k in ``ks``, selection redone in
    each training fold, and the one-SE recommendation (:func:`one_se_rule`).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features) or Dataset
    y : array-like of shape (n_samples,)
        Class labels.
    selector : estimator, Ranker or ranking callable
        As :func:`fsviz.evaluate.benchmark` takes them.
    ks : iterable of int
    classifier : str or classifier, default="linear_svm"
    cv : int, default=5
        Stratified folds.
    random_state : int, default=0
    covariates : optional
        Adjusted for inside every training fold (:func:`fsviz.evaluate.benchmark`'s ``covariates``).

    Returns
    -------
    CVCurve
    """
    table = benchmark(
        X,
        y,
        [selector],
        ks=ks,
        classifiers=[classifier],
        cv=cv,
        select_in_fold=True,
        random_state=random_state,
        n_jobs=n_jobs,
        client=client,
        progress=progress,
        covariates=covariates,
    )
    return one_se_rule(table)
