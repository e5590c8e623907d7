"""Adjusting for covariates: a design matrix of covariates (categoricals one-hot), linear
residualisation of the features (and a continuous target) on it, fitted on the rows given, and
the checks that refuse what cannot be adjusted (a covariate of one value, a covariate that is
the target, more covariate columns than samples, a target the batch predicts perfectly).

The residual of a feature ``x`` on the design ``C`` (an intercept, the numeric covariates and
the one-hot levels of the categorical ones but the first) is ``x - C beta`` with ``beta`` the
least-squares fit on the training rows: what ``x`` holds that the covariates do not explain
linearly. A feature driven only by the batch becomes noise; a feature that tracks the target
within the batches keeps its signal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp

__all__ = ["Covariates", "check_confounding", "confounded_features", "covariate_design", "residualize"]


@dataclass(frozen=True)
class Covariates:
    """The covariates of the samples as a design matrix.

    Attributes
    ----------
    design : ndarray of shape (n_samples, p)
        Intercept first, then each numeric covariate, then the one-hot levels (all but the
        first) of each categorical one.
    names : tuple of str
        The covariates' names.
    strata : ndarray of shape (n_samples,) or None
        The combination of the categorical covariates' levels (a batch code per sample), or None
        when every covariate is numeric: label permutations stay within these.
    """

    design: np.ndarray
    names: tuple
    strata: np.ndarray | None


def _columns(covariates) -> dict[str, np.ndarray]:
    if isinstance(covariates, pd.DataFrame):
        return {str(c): covariates[c].to_numpy() for c in covariates.columns}
    if isinstance(covariates, Mapping):
        return {str(k): np.asarray(v).ravel() for k, v in covariates.items()}
    a = np.asarray(covariates)
    if a.ndim == 1:
        a = a[:, None]
    return {f"covariate {j}": a[:, j] for j in range(a.shape[1])}


def _is_categorical(v: np.ndarray) -> bool:
    return v.dtype.kind in "OUSb" or isinstance(v.dtype, pd.CategoricalDtype)


def covariate_design(covariates, n_samples: int, y=None) -> Covariates:
    """The design matrix of ``covariates`` with the checks the adjustment needs.

    Parameters
    ----------
    covariates : DataFrame, mapping name -> values, or array of shape (n_samples, c)
        Text (or boolean) columns are categorical (one-hot, first level dropped); numbers are
        numeric. A numeric column of few integer values (a batch number) is read as numeric:
        pass it as text to one-hot it.
    n_samples : int
    y : array-like of shape (n_samples,), default=None
        The target, to refuse a covariate equal to it.

    Returns
    -------
    Covariates

    Raises
    ------
    ValueError
        Wrong length, missing values, a covariate of one value, a covariate equal to the
        target, or a design with at least as many columns as samples.
    """
    cols = _columns(covariates)
    if not cols:
        raise ValueError("covariates: none given; name at least one covariate or pass covariates=None.")
    parts = [np.ones((n_samples, 1))]
    codes = []
    target = None if y is None else np.asarray(y).ravel()
    for name, v in cols.items():
        if v.shape[0] != n_samples:
            raise ValueError(f"covariates: {name!r} has {v.shape[0]} values for {n_samples} samples.")
        if pd.isna(pd.Series(v)).any():
            raise ValueError(f"covariates: {name!r} has missing values; fill or drop those samples first.")
        levels, inv = np.unique(v.astype(str) if _is_categorical(v) else v, return_inverse=True)
        if levels.size < 2:
            raise ValueError(
                f"covariates: {name!r} has one value ({str(levels[0])!r}) in every sample; it adjusts "
                "nothing. Leave it out."
            )
        if target is not None and target.shape[0] == n_samples:
            same = np.array_equal(v.astype(str), target.astype(str)) or (
                not _is_categorical(v) and target.dtype.kind in "fiu" and np.allclose(v, target)
            )
            if not same and _is_categorical(v):  # the classes under other names ("tumour" for 1)
                _, tcodes = np.unique(target.astype(str), return_inverse=True)
                pairs = np.unique(inv.astype(np.int64) * (tcodes.max() + 1) + tcodes).size
                same = pairs == levels.size == tcodes.max() + 1
            if same:
                raise ValueError(
                    f"covariates: {name!r} equals the target; adjusting for it would remove the very "
                    "signal asked for. Leave it out of the covariates."
                )
        if _is_categorical(v):
            parts.append(np.eye(levels.size)[inv][:, 1:])
            codes.append(inv)
        else:
            parts.append(np.asarray(v, dtype=np.float64)[:, None])
    design = np.hstack(parts)
    if design.shape[1] >= n_samples:
        raise ValueError(
            f"covariates: {design.shape[1]} design columns (intercept, numeric covariates, one-hot "
            f"levels) for {n_samples} samples; the adjustment needs fewer columns than samples. Use "
            "fewer covariates or merge rare levels."
        )
    strata = None
    if codes:
        strata = np.unique(np.stack(codes, axis=1), axis=0, return_inverse=True)[1].ravel()
    return Covariates(design=design, names=tuple(cols), strata=strata)


def check_confounding(y, covariates: Covariates, *, who: str = "covariates") -> None:
    """Refuse a class target that the categorical covariates predict perfectly.

    When every batch (combination of the categorical covariates' levels) holds one class only,
    adjusting for the batch removes every difference between the classes, and not adjusting
    cannot tell a batch effect from the signal: no selection can be trusted.

    Raises
    ------
    ValueError
        Naming the batches and their single classes.
    """
    if covariates.strata is None or y is None:
        return
    y = np.asarray(y).ravel()
    if y.dtype.kind == "f" and np.unique(y).size > max(20, y.size // 5):
        return  # a continuous target: the residualisation itself tells
    pure = []
    for s in np.unique(covariates.strata):
        classes = np.unique(y[covariates.strata == s])
        if classes.size > 1:
            return
        pure.append(classes[0])
    raise ValueError(
        f"{who}: the target is confounded with {', '.join(covariates.names)}: each batch holds a single "
        f"class ({len(pure)} batches, classes {sorted({str(c) for c in pure})}), so a batch effect "
        "cannot be told from the signal and no adjusted selection would mean anything. Fix the design "
        "(samples of every class in every batch) or leave the covariate out, knowingly."
    )


def residualize(X, covariates: Covariates | np.ndarray, *, rows: Sequence[int] | None = None):
    """``X`` minus its least-squares fit on the covariates' design, fitted on ``rows``.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features), or a 1-D target
        Sparse input is densified (residuals are dense).
    covariates : Covariates or ndarray of shape (n_samples, p)
        The design (with its intercept).
    rows : array-like of int, default=None
        The rows the fit uses (a training fold); None: all. The residuals of every row are
        returned, each computed with that fit.

    Returns
    -------
    ndarray of the shape of ``X``
    """
    C = covariates.design if isinstance(covariates, Covariates) else np.asarray(covariates, dtype=np.float64)
    A = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    one = A.ndim == 1
    A = A[:, None] if one else A
    fit = slice(None) if rows is None else np.asarray(rows)
    beta, *_ = np.linalg.lstsq(C[fit], A[fit], rcond=None)
    out = A - C @ beta
    return out[:, 0] if one else out


def confounded_features(X, residuals, threshold: float = 0.99) -> np.ndarray:
    """Indices of the features the covariates explain almost wholly: ``R^2 >= threshold`` of their
    least-squares fit (``residuals`` from :func:`residualize` of the same ``X``); constant features
    are left out. After adjustment such a feature is (nearly) noise: a batch marker, not a marker."""
    A = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    total = ((A - A.mean(axis=0)) ** 2).sum(axis=0)
    left = (np.asarray(residuals) ** 2).sum(axis=0)
    ok = total > 0
    r2 = np.zeros(A.shape[1])
    r2[ok] = 1.0 - left[ok] / total[ok]
    return np.flatnonzero(ok & (r2 >= threshold))
