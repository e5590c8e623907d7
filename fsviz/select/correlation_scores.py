"""``|corr(x_j, y)|`` scores: Pearson and Spearman correlation of every feature with the target.

The target must be ordered: continuous, or two classes (Pearson with a 0/1 target is the
point-biserial correlation).

References
----------
Li et al. (2017), "Feature Selection: A Data Perspective", ACM CSUR, section 2.1; Spearman (1904).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils import ClassifierTags

from fsviz._targets import target_kind
from fsviz.select._base import ScoreSelector, class_codes
from fsviz.select._score_common import check_Xy, column_blocks, continuous_target, target_correlations

__all__ = ["PearsonScore", "SpearmanScore", "correlation_score"]


def _ranks(A: np.ndarray) -> np.ndarray:
    """Average ranks of every column (ties share their mean rank), as ``scipy.stats.rankdata``."""
    from scipy.stats import rankdata

    return rankdata(A, axis=0, method="average") if A.size else np.asarray(A, dtype=np.float64)


def correlation_score(X, y, method: str = "pearson") -> np.ndarray:
    """``|corr(x_j, y)|`` of every feature with the target: Pearson or Spearman.

    Spearman's rho is Pearson's on average ranks (ties share their mean rank), computed
    in dense column blocks (sparse input is densified one block at a time). The target
    must be ordered: continuous, or two classes (Pearson with a 0/1 target is the
    point-biserial correlation); more than two classes have no order and are refused.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    method : {"pearson", "spearman"}, default="pearson"

    Returns
    -------
    scores : ndarray of shape (n_features,)
        In [0, 1]; 0 for constant features.

    References
    ----------
    Li et al. (2017), section 2.1 (similarity-based relevance); Spearman (1904).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 4)); y = np.exp(X[:, 2]) + 0.1 * rng.normal(size=100)
    >>> s = correlation_score(X, y, method="spearman")
    >>> int(np.argmax(s)), bool(s[2] > 0.9)
    (2, True)
    """
    X, y = check_Xy("correlation_score", X, y)
    return _correlation(X, y, method, "correlation_score")


def _correlation(X, y, method: str, owner: str) -> np.ndarray:
    if method not in ("pearson", "spearman"):
        raise ValueError(f"{owner}: 'method' must be 'pearson' or 'spearman'; got {method!r}.")
    if target_kind(y) == "classes":
        codes, counts = class_codes(owner, y)
        if counts.size > 2:
            raise ValueError(
                f"{owner}: a correlation needs an ordered target (continuous, or two classes); "
                f"got {counts.size} classes. Use FScore, MutualInfo or ReliefF for more classes."
            )
        y = codes.astype(np.float64)
    else:
        y = continuous_target(owner, y)
    if method == "pearson":
        return np.abs(target_correlations(X, y))
    yr = _ranks(y)
    n, m = X.shape
    if sp.issparse(X):
        X = X.tocsc()
    out = np.empty(m)
    for b in column_blocks(n, m):
        B = X[:, b]
        B = B.toarray() if sp.issparse(B) else np.asarray(B)
        out[b] = np.abs(target_correlations(_ranks(B), yr))
    return out


class _CorrelationScore(ScoreSelector):
    """``|corr(x_j, y)|`` with an ordered target; subclasses fix the correlation."""

    _supervised = True
    _regression = True
    _method = "pearson"

    def _compute_scores(self, X, y):
        return _correlation(X, y, self._method, type(self).__name__)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # an ordered target: continuous or two classes (scikit-learn's checks then pass binary y)
        tags.classifier_tags = ClassifierTags(multi_class=False)
        return tags


class PearsonScore(_CorrelationScore):
    """Absolute Pearson correlation of every feature with the target (supervised).

    For a continuous ``y``, and for two classes (point-biserial correlation with the
    0/1 codes); more than two classes have no order and raise a ``ValueError``.
    Ranks features like :class:`FScore` does for a continuous ``y`` (``F`` grows with
    ``r^2``) and scores them on [0, 1].

    Parameters
    ----------
    n_features : int or None, default=20
    threshold : float or None, default=None

    Attributes
    ----------
    scores_ : ndarray of shape (n_features_in_,)
        ``|r|`` in [0, 1] (:func:`correlation_score` with ``method="pearson"``);
        equals ``abs(sklearn.feature_selection.r_regression(X, y))``; 0 for constant
        features.
    ranking_ : ndarray of shape (n_features_in_,)
    n_features_in_ : int
    feature_names_in_ : ndarray

    References
    ----------
    Li et al. (2017), section 2.1; Pearson (1896).

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from fsviz.select import PearsonScore
    >>> X, y = load_diabetes(return_X_y=True)
    >>> y = (y - y.mean()) / y.std()      # whole numbers would be classes: standardise
    >>> sel = PearsonScore(n_features=2).fit(X, y)
    >>> sel.get_support(indices=True), round(float(sel.scores_.max()), 3)
    (array([2, 8]), 0.586)
    """

    _method = "pearson"


class SpearmanScore(_CorrelationScore):
    """Absolute Spearman rank correlation of every feature with the target (supervised).

    Pearson's correlation of the average ranks: it sees any monotone relation, not only
    a linear one, and ignores outliers' magnitudes. Continuous ``y`` or two classes.

    Parameters
    ----------
    n_features : int or None, default=20
    threshold : float or None, default=None

    Attributes
    ----------
    scores_ : ndarray of shape (n_features_in_,)
        ``|rho_s|`` in [0, 1] (:func:`correlation_score` with ``method="spearman"``;
        equals ``abs(scipy.stats.spearmanr)`` per feature); 0 for constant features.
    ranking_ : ndarray of shape (n_features_in_,)
    n_features_in_ : int
    feature_names_in_ : ndarray

    References
    ----------
    Spearman (1904); Li et al. (2017), section 2.1.

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import SpearmanScore
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 5)); y = np.exp(3 * X[:, 4])     # monotone, very non-linear
    >>> SpearmanScore(n_features=1).fit(X, y).get_support(indices=True)
    array([4])
    """

    _method = "spearman"
