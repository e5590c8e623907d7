"""Helpers shared by the subset selectors (mRMR, FCBF, SAOLA): ranking from a selection order,
support mask, and the one base of the sequential information criteria (mRMR, MIFS, CIFE, ...)."""

from __future__ import annotations

from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted, validate_data

from fsviz._targets import check_class_target
from fsviz.select._base import N_BINS, class_codes
from fsviz.stats.information import discretize


def rank_from_selection(selected: np.ndarray, relevance: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``ranking_`` and ``scores_`` of a subset method.

    The selected features take ranks 1..k in selection order; the others follow by
    decreasing relevance (ties by index). ``scores_ = (m - ranking_ + 1) / m`` in (0, 1]:
    higher is better, sorting by it reproduces the selection order.
    """
    m = relevance.shape[0]
    rest_mask = np.ones(m, dtype=bool)
    rest_mask[selected] = False
    rest = np.flatnonzero(rest_mask)
    rest = rest[np.argsort(-relevance[rest], kind="stable")]
    order = np.concatenate([np.asarray(selected, dtype=np.int64), rest])
    ranking = np.empty(m, dtype=np.int64)
    ranking[order] = np.arange(1, m + 1)
    return ranking, (m - ranking + 1) / m


def check_stream_y(y, n: int, name: str) -> np.ndarray:
    """The target of a streaming selector (SAOLA, alpha-investing, OSFS, ...): 1-D, one value per
    sample, finite, and not a single value (classes or a continuous quantity)."""
    y = np.asarray(y)
    if y.ndim == 2 and 1 in y.shape:
        y = y.ravel()
    if y.ndim != 1 or y.shape[0] != n:
        raise ValueError(f"{name}: y must be 1-D with one label per sample ({n}); got shape {np.shape(y)}.")
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError(f"{name}: y contains NaN or inf; remove or impute those samples.")
    if np.unique(y).shape[0] < 2:
        raise ValueError(
            f"{name}: y has a single value (1 class); a streaming selector needs at least two classes "
            "or a varying continuous target."
        )
    return y


class SelectedSubsetMixin:
    """``get_support`` from ``selected_`` and the tags of a supervised selector that takes sparse X.

    Put it before ``SelectorMixin`` in the bases.
    """

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "selected_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.selected_] = True
        return mask

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.sparse = True
        return tags


class SequentialInfoSelector(SelectedSubsetMixin, SelectorMixin, BaseEstimator):
    """The shared declaration and ``fit`` of the greedy information-theoretic selectors: X is
    discretised, then ``_select(codes, y, n_features)`` picks features one at a time
    (``selected_``, ``criterion_``, ``relevance_``); MRMR and the survey's criteria subclass it."""

    _parameter_constraints: dict = {
        "n_features": [Interval(Integral, 1, None, closed="left")],  # at most the number of features
        "n_bins": N_BINS,
    }

    def __init__(self, *, n_features: int = 20, n_bins: int = 10):
        self.n_features = n_features
        self.n_bins = n_bins

    def _select(self, codes, y: np.ndarray, n_features: int) -> tuple:  # pragma: no cover - abstract
        raise NotImplementedError

    def fit(self, X, y):
        """Select ``n_features`` features greedily.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Continuous features are discretised into ``n_bins`` equal-width bins; integer
            data with few levels is used as is.
        y : array-like of shape (n_samples,)
            Class labels (at least two classes).

        Returns
        -------
        self
        """
        name = type(self).__name__
        self._validate_params()  # the class's declaration, scikit-learn's own check
        X, y = validate_data(self, X, y, accept_sparse=("csc", "csr"), dtype=np.float64, ensure_min_samples=2)
        check_class_target(name, y)  # a continuous y gets the 'needs class labels' error
        class_codes(name, y)  # at least two classes, as every supervised selector
        m = X.shape[1]
        k = self.n_features
        if k > m:  # the bound the data sets
            rule = f"an int in [1, {m}] (X has {m} features)"
            raise ValueError(f"{name}: 'n_features' must be {rule}; got {k!r}.")
        codes = discretize(X.tocsc() if sp.issparse(X) else X, n_bins=int(self.n_bins))
        self.selected_, self.criterion_, self.relevance_ = self._select(codes, y, int(self.n_features))
        self.ranking_, self.scores_ = rank_from_selection(self.selected_, self.relevance_)
        return self
