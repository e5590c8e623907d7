"""Helpers shared by the subset selectors (mRMR, FCBF, SAOLA): ranking from a selection order,
support mask."""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted


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
