"""Minimum Redundancy Maximum Relevance (mRMR), MID criterion, incremental."""

from __future__ import annotations

import numpy as np

from fsviz.select._mi_kernels import mi_su_one_vs_many
from fsviz.select._subset_common import SequentialInfoSelector
from fsviz.stats.information import mi_with_target

__all__ = ["MRMR", "mrmr_select"]


def mrmr_select(codes, y, n_features: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Greedy MID on already coded features -> (selected, criterion, relevance).

    ``codes`` is a :class:`fsviz.stats.information.Codes`. Each step adds the feature
    maximising ``I(f; y) - 1/|S| sum_{s in S} I(f; s)``; the redundancy sums are updated
    with the MI of the last selected feature only, so the whole run costs O(k m) MI
    evaluations. Ties go to the lowest index; constant features come last.
    """
    rel = mi_with_target(codes, y)
    m = rel.shape[0]
    h = codes.entropies()
    C, k = codes.codes, codes.k
    avail = np.ones(m, dtype=bool)
    red = np.zeros(m)
    # a constant feature (J = 0 - 0) would beat every redundant one (J < 0): it is picked
    # only when nothing else is left, as in the other information criteria
    informative = h > 0.0
    first = _best_informative(rel, informative)
    sel = [first]
    crit = [float(rel[first])]
    avail[first] = False
    for t in range(1, n_features):
        cands = np.flatnonzero(avail)
        red[cands] += mi_su_one_vs_many(C, k, h, sel[-1], cands, False)
        J = rel[cands] - red[cands] / t
        i = _best_informative(J, informative[cands])
        sel.append(int(cands[i]))
        crit.append(float(J[i]))
        avail[cands[i]] = False
    return np.asarray(sel, dtype=np.int64), np.asarray(crit), rel


def _best_informative(J: np.ndarray, informative: np.ndarray) -> int:
    """Position of the largest ``J`` (ties to the lowest), among the non-constant candidates if any."""
    if informative.any() and not informative.all():
        J = np.where(informative, J, -np.inf)
    return int(np.argmax(J))


class MRMR(SequentialInfoSelector):
    """mRMR feature selection with the MID criterion on discretised data.

    Starting from the feature of highest mutual information with the labels, each step
    adds the unselected feature ``f`` maximising
    ``J(f) = I(f; y) - (1/|S|) sum_{s in S} I(f; s)`` (survey eq. (40); Peng et al. 2005,
    MID). Continuous features are discretised first into ``n_bins`` equal-width bins;
    integer data with few levels is used as is.

    Parameters
    ----------
    n_features : int, default=20
        Number of features to select (at most the number of features).
    n_bins : int, default=10
        Equal-width bins per continuous feature.

    Attributes
    ----------
    selected_ : ndarray of shape (n_features,)
        Selected feature indices in selection order.
    criterion_ : ndarray of shape (n_features,)
        J of each selected feature at the step it was selected (nats; the first is its
        relevance).
    relevance_ : ndarray of shape (n_features_in_,)
        I(f; y) of every feature (nats).
    ranking_ : ndarray of shape (n_features_in_,)
        1..n_features for the selected features in selection order, then the others by
        decreasing relevance (ties by index).
    scores_ : ndarray of shape (n_features_in_,)
        For this subset method a monotone image of ``ranking_``: ``(m - ranking_ + 1) / m``
        in (0, 1], so higher is better and the top k by score are the first k selected.
        The information-theoretic values are in ``criterion_`` and ``relevance_``.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X had string column names.

    References
    ----------
    H. Peng, F. Long, C. Ding, "Feature selection based on mutual information: criteria of
    max-dependency, max-relevance, and min-redundancy", IEEE TPAMI 27(8), 2005, eq. (6)-(7);
    Li et al., "Feature Selection: A Data Perspective", 2017, eq. (40).

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import MRMR
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 3, size=(200, 30)); y = (X[:, 4] + X[:, 9] > 2).astype(int)
    >>> MRMR(n_features=2).fit(X, y).selected_.tolist()
    [9, 4]
    """

    def _select(self, codes, y, n_features):
        return mrmr_select(codes, y, n_features)
