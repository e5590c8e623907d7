"""Correlation-based Feature Selection (CFS, Hall 1999) with symmetrical uncertainty."""

from __future__ import annotations

from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import validate_data

from fsviz._targets import check_class_target
from fsviz.select._base import N_BINS, class_codes
from fsviz.select._mi_kernels import mi_su_one_vs_many
from fsviz.select._subset_common import SelectedSubsetMixin, rank_from_selection
from fsviz.stats.information import Codes, discretize, su_with_target

__all__ = ["CFS", "cfs_select"]

_TIE = 1e-12  # merits within this of the best count as tied: lowest index wins


def cfs_select(
    codes: Codes, y, n_features: int | None = None, patience: int = 5
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Greedy forward CFS on coded features -> (selected, merit, relevance).

    The merit of a subset ``F`` of ``k`` features is (survey eq. (84))
    ``k r_cf / sqrt(k + k (k - 1) r_ff) = sum_{f in F} SU(f, Y) / sqrt(k + 2 sum_{pairs in F} SU(f, g))``
    with ``r_cf`` the mean feature-class and ``r_ff`` the mean feature-feature
    symmetrical uncertainty. Starting from the empty set, each step adds the feature that
    gives the largest merit (ties to the lowest index). Per candidate the sum of its SU
    with the selected features is kept and updated with the last one only, so a step is
    one SU pass over the remaining features.

    With ``n_features=None`` the search stops after ``patience`` consecutive additions
    that do not improve the best merit (Hall's stale-search rule, 5 in Weka and
    scikit-feature) or when no feature is left, and returns the prefix with the best
    merit. With an int it makes exactly ``n_features`` additions.

    Returns
    -------
    selected : ndarray of int64
    merit : ndarray
        ``merit[i]`` is the merit of ``selected[: i + 1]``.
    relevance : ndarray of shape (m,)
        ``SU(f, Y)`` of every feature.
    """
    rel = su_with_target(codes, y)
    h = codes.entropies()
    C, k = codes.codes, codes.k
    m = rel.shape[0]
    steps = m if n_features is None else int(n_features)
    avail = np.ones(m, dtype=bool)
    su_sel = np.zeros(m)  # sum over selected s of SU(f, s), per candidate f
    num = 0.0  # sum of SU(f, Y) over the selected
    pairs = 0.0  # sum of SU(f, g) over the selected pairs
    sel: list[int] = []
    merits: list[float] = []
    best, best_len, stale = -np.inf, 0, 0
    for t in range(steps):
        cands = np.flatnonzero(avail)
        if t > 0:
            su_sel[cands] += mi_su_one_vs_many(C, k, h, sel[-1], cands, True)
        merit = (num + rel[cands]) / np.sqrt((t + 1) + 2.0 * (pairs + su_sel[cands]))
        i = int(np.flatnonzero(merit >= merit.max() - _TIE)[0])
        f = int(cands[i])
        sel.append(f)
        merits.append(float(merit[i]))
        num += rel[f]
        pairs += su_sel[f]
        avail[f] = False
        if n_features is None:
            if merit[i] > best + _TIE:
                best, best_len, stale = float(merit[i]), t + 1, 0
            else:
                stale += 1
                if stale >= patience:
                    break
    if n_features is None:
        sel, merits = sel[:best_len], merits[:best_len]
    return np.asarray(sel, dtype=np.int64), np.asarray(merits), rel


class CFS(SelectedSubsetMixin, SelectorMixin, BaseEstimator):
    """Correlation-based Feature Selection: greedy forward search on the CFS merit.

    The merit of a subset of ``k`` features is ``k r_cf / sqrt(k + k (k - 1) r_ff)``
    (survey eq. (84)) with ``r_cf`` the mean symmetrical uncertainty between the features
    and the class and ``r_ff`` the mean SU between pairs of features: high for subsets
    whose features predict the class and are not redundant with each other. Starting from
    the empty set, each step adds the feature that maximises the merit of the enlarged
    subset (the survey's forward search; no backtracking). Continuous features are
    discretised into ``n_bins`` equal-width bins first; integer data with few levels is
    used as is.

    Parameters
    ----------
    n_features : int or None, default=None
        None: search until ``patience`` consecutive additions fail to improve the best
        merit (or no feature is left) and keep the best-merit prefix -- CFS decides how
        many features to keep. An int: make exactly that many additions.
    patience : int, default=5
        Non-improving additions tolerated before stopping (Hall's stale-search limit);
        only used when ``n_features`` is None.
    n_bins : int, default=10
        Equal-width bins per continuous feature.

    Attributes
    ----------
    selected_ : ndarray of int
        Selected feature indices in selection order.
    merit_ : ndarray of shape (len(selected_),)
        ``merit_[i]`` is the merit of ``selected_[: i + 1]``.
    relevance_ : ndarray of shape (n_features_in_,)
        SU(f, Y) of every feature.
    ranking_ : ndarray of shape (n_features_in_,)
        Selected features first (1..|S| in selection order), then the rest by decreasing
        SU with the class (ties by index).
    scores_ : ndarray of shape (n_features_in_,)
        For this subset method a monotone image of ``ranking_``: ``(m - ranking_ + 1) / m``
        in (0, 1]; higher is better, the top |S| by score are the selected features.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X had string column names.

    References
    ----------
    M. A. Hall, L. A. Smith, "Feature selection for machine learning: comparing a
    correlation-based filter approach to the wrapper", FLAIRS 1999; M. A. Hall,
    "Correlation-based feature selection for machine learning", PhD thesis, 1999;
    Li et al., "Feature Selection: A Data Perspective", 2017, section 2.4.6, eq. (84).

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import CFS
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 3, size=(300, 20)); X[:, 15] = X[:, 2]
    >>> y = (X[:, 2] + X[:, 7] > 2).astype(int)
    >>> CFS().fit(X, y).selected_.tolist()
    [2, 7]
    """

    _parameter_constraints: dict = {
        "n_features": [Interval(Integral, 1, None, closed="left"), None],  # at most the number of features
        "patience": [Interval(Integral, 1, None, closed="left")],
        "n_bins": N_BINS,
    }

    def __init__(self, *, n_features: int | None = None, patience: int = 5, n_bins: int = 10):
        self.n_features = n_features
        self.patience = patience
        self.n_bins = n_bins

    def fit(self, X, y) -> CFS:
        """Search for the subset.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels (at least two classes).

        Returns
        -------
        self
        """
        self._validate_params()  # the declaration above, scikit-learn's own check
        X, y = validate_data(self, X, y, accept_sparse=("csc", "csr"), dtype=np.float64, ensure_min_samples=2)
        check_class_target("CFS", y)  # a continuous y gets the 'needs class labels' error
        m = X.shape[1]
        nf, p = self.n_features, self.patience
        if nf is not None and nf > m:  # the bound the data sets
            raise ValueError(
                f"CFS: 'n_features' must be None or an int in [1, {m}] (X has {m} features); got {nf!r}."
            )
        class_codes("CFS", y)  # at least two classes, as every supervised selector
        codes = discretize(X.tocsc() if sp.issparse(X) else X, n_bins=int(self.n_bins))
        self.selected_, self.merit_, self.relevance_ = cfs_select(
            codes, y, None if nf is None else int(nf), int(p)
        )
        self.ranking_, self.scores_ = rank_from_selection(self.selected_, self.relevance_)
        return self
