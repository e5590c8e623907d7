"""Fast Correlation-Based Filter (FCBF, Yu & Liu 2003)."""

from __future__ import annotations

from numbers import Real

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
from fsviz.stats.information import discretize, su_with_target

__all__ = ["FCBF", "fcbf_select"]


def fcbf_select(codes, y, delta: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """FCBF on coded features -> (selected, su_with_class, redundant_with).

    Features with SU(f, c) >= delta are sorted by decreasing SU (ties by index). The
    first remaining one is predominant; every later remaining q with
    SU(p, q) >= SU(q, c) is removed (and remembers p); repeat with the next remaining one.
    One vectorised SU pass per predominant feature: O(|S| m) SU evaluations.
    """
    su = su_with_target(codes, y)
    h = codes.entropies()
    C, k = codes.codes, codes.k
    cand = np.flatnonzero(su >= delta)
    order = cand[np.argsort(-su[cand], kind="stable")]
    alive = np.ones(order.shape[0], dtype=bool)
    red_with = np.full(su.shape[0], -1, dtype=np.int64)
    sel = []
    for i in range(order.shape[0]):
        if not alive[i]:
            continue
        p = int(order[i])
        sel.append(p)
        later = i + 1 + np.flatnonzero(alive[i + 1 :])
        if later.shape[0] == 0:
            break
        q = order[later]
        spq = mi_su_one_vs_many(C, k, h, p, q, True)
        drop = spq >= su[q]
        alive[later[drop]] = False
        red_with[q[drop]] = p
    return np.asarray(sel, dtype=np.int64), su, red_with


class FCBF(SelectedSubsetMixin, SelectorMixin, BaseEstimator):
    """Fast Correlation-Based Filter: predominant features by symmetrical uncertainty.

    Features whose SU with the class is at least ``delta`` are visited in decreasing order
    of SU; each visited feature p that is still present is kept (predominant) and removes
    every later feature q with ``SU(p, q) >= SU(q, c)`` (q has an approximate Markov
    blanket in p). Continuous features are discretised first (``n_bins`` equal-width
    bins); integer data with few levels is used as is.

    Parameters
    ----------
    delta : float, default=0.0
        Relevance threshold on SU(f, c), in [0, 1).
    n_bins : int, default=10

    Attributes
    ----------
    selected_ : ndarray of int
        Predominant features in selection order (decreasing SU with the class).
    relevance_ : ndarray of shape (n_features_in_,)
        SU(f, c) of every feature.
    redundant_with_ : ndarray of shape (n_features_in_,)
        For a removed feature, the predominant feature that removed it; -1 for selected
        features and for those below ``delta``.
    ranking_ : ndarray of shape (n_features_in_,)
        Selected features first (1..|S| in selection order), then the rest by decreasing SU.
    scores_ : ndarray of shape (n_features_in_,)
        For this subset method a monotone image of ``ranking_``: ``(m - ranking_ + 1) / m``
        in (0, 1]; higher is better, the top |S| by score are the selected features. The
        SU values are in ``relevance_``.
    n_features_in_ : int
    feature_names_in_ : ndarray of str

    References
    ----------
    L. Yu, H. Liu, "Feature Selection for High-Dimensional Data: A Fast Correlation-Based
    Filter Solution", ICML 2003, Fig. 1 (FCBF) and Definition 3 (predominant feature);
    Li et al., "Feature Selection: A Data Perspective", 2017, section 2.2.10, eq. (52).

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import FCBF
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 3, size=(300, 20)); X[:, 15] = X[:, 2]
    >>> y = (X[:, 2] + X[:, 7] > 2).astype(int)
    >>> sel = FCBF().fit(X, y)
    >>> 15 in sel.selected_, int(sel.redundant_with_[15])
    (False, 2)
    """

    _parameter_constraints: dict = {
        "delta": [Interval(Real, 0.0, 1.0, closed="left")],  # a threshold on SU, which is in [0, 1]
        "n_bins": N_BINS,
    }

    def __init__(self, *, delta: float = 0.0, n_bins: int = 10):
        self.delta = delta
        self.n_bins = n_bins

    def fit(self, X, y) -> FCBF:
        """Select the predominant features.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        self._validate_params()  # the declaration above, scikit-learn's own check
        X, y = validate_data(self, X, y, accept_sparse=("csc", "csr"), dtype=np.float64, ensure_min_samples=2)
        check_class_target("FCBF", y)  # a continuous y gets the 'needs class labels' error
        class_codes("FCBF", y)  # at least two classes, as every supervised selector
        codes = discretize(X.tocsc() if sp.issparse(X) else X, n_bins=int(self.n_bins))
        self.selected_, self.relevance_, self.redundant_with_ = fcbf_select(codes, y, float(self.delta))
        self.ranking_, self.scores_ = rank_from_selection(self.selected_, self.relevance_)
        return self
