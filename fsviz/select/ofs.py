"""OFS: online feature selection over a stream of samples (Wang, Zhao, Hoi & Jin, TKDE 2014).

Unlike the feature-streaming selectors of :mod:`.streaming`, OFS streams samples: its
``partial_fit`` takes new rows, and a truncated linear model keeps at most ``n_features``
non-zero weights.

References
----------
J. Wang, P. Zhao, S. C. H. Hoi, R. Jin. Online feature selection and its applications.
IEEE TKDE 26(3), 2014 (OFS).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils._param_validation import Interval
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from fsviz.select import _streaming_kernels as K
from fsviz.select._base import constant_features, readonly, zero_columns
from fsviz.select._subset_common import SelectedSubsetMixin, rank_from_selection

#: a rate or penalty that must be positive
_POSITIVE = Interval(Real, 0.0, None, closed="neither")

__all__ = ["OFS"]


class OFS(SelectedSubsetMixin, SelectorMixin, BaseEstimator):
    """Online Feature Selection over a stream of samples (Wang et al. 2014, OFS with full inputs).

    A linear classifier ``w`` is learned one sample at a time and kept to at most
    ``n_features`` non-zero weights. On a margin error (``y_t w.x_t <= 1``):
    ``w <- w + eta y_t x_t``, then ``w <- min(1, 1 / (sqrt(lam) |w|)) w`` (projection
    onto the l2 ball), then truncation to the ``n_features`` weights of largest
    magnitude. Unlike the feature-streaming selectors, **the stream is over samples**:
    :meth:`partial_fit` takes new rows (all features every time).

    Parameters
    ----------
    n_features : int, default=10
        B, the number of non-zero weights kept.
    eta : float, default=0.2
        Step size (the paper's setting).
    lam : float, default=0.01
        Regularisation of the l2-ball projection (radius 1/sqrt(lam)).

    Attributes
    ----------
    coef_ : ndarray of shape (1 or n_classes, n_features_in_)
        The weights (one row per class, one-vs-rest, for more than two classes; then the
        truncation keeps the features with the largest sum of squared weights).
    selected_ : ndarray of int
        Features with non-zero weight, by decreasing weight magnitude.
    scores_ : ndarray of shape (n_features_in_,)
        Weight magnitude (l2 over the classes).
    ranking_ : ndarray of int
    classes_ : ndarray
    n_updates_ : int
        Margin errors so far (updates of ``w``).
    n_samples_seen_ : int
    n_features_in_ : int

    Notes
    -----
    Samples are used in the order given, once (the paper's single pass); shuffle them
    beforehand for a random order. Ties in the truncation keep the lower feature index.
    The model has no intercept, so a constant non-zero feature would act as one and be
    kept: :meth:`fit`, which sees every sample, zeroes constant features first (they are
    never selected); :meth:`partial_fit` cannot tell a constant feature in a stream of
    samples and keeps the paper's rule.

    References
    ----------
    J. Wang, P. Zhao, S. C. H. Hoi, R. Jin. Online feature selection and its
    applications. IEEE TKDE 26(3), 2014 (OFS, learning with full inputs).
    SAOLA paper, section 5.1 (OFS with k = 5, 10, ..., 100 features).

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import OFS
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(500, 50)); y = np.where(X[:, 7] + X[:, 30] > 0, 1, -1)
    >>> sorted(OFS(n_features=5).fit(X, y).selected_[:2].tolist())
    [7, 30]
    """

    _parameter_constraints: dict = {
        "n_features": [Interval(Integral, 1, None, closed="left")],
        "eta": [_POSITIVE],  # step size
        "lam": [_POSITIVE],  # l2 regularisation
    }

    def __init__(self, *, n_features: int = 10, eta: float = 0.2, lam: float = 0.01):
        self.n_features = n_features
        self.eta = eta
        self.lam = lam

    def fit(self, X, y):
        """One pass over the samples of ``X`` in order, from ``w = 0``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        self._validate_params()  # the declaration above, scikit-learn's own check
        X, y = validate_data(
            self, X, y, accept_sparse=("csr", "csc"), dtype=np.float64, ensure_all_finite=True
        )
        check_classification_targets(y)
        self._start(np.unique(y), X.shape[1])
        # without an intercept, a constant non-zero column would serve as one and be selected;
        # fit sees every sample and sets constant columns aside (partial_fit cannot know them)
        self._run(zero_columns(X, constant_features(X)), y)
        return self

    def partial_fit(self, X, y, classes=None):
        """Consume newly arriving samples (rows with all the features).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_new_samples, n_features)
        y : array-like of shape (n_new_samples,)
        classes : array-like, default=None
            All the classes of the stream, read on the first call only; None takes the
            classes of the first ``y`` (give them when a first batch may miss some).

        Returns
        -------
        self
        """
        self._validate_params()  # the declaration above, scikit-learn's own check
        first = not hasattr(self, "coef_")
        X, y = validate_data(
            self, X, y, accept_sparse=("csr", "csc"), dtype=np.float64, ensure_all_finite=True, reset=first
        )
        check_classification_targets(y)
        if first:
            self._start(np.unique(np.asarray(y if classes is None else classes)), X.shape[1])
        unknown = np.setdiff1d(np.unique(y), self.classes_)
        if unknown.size:
            raise ValueError(
                f"OFS.partial_fit: y has labels {unknown.tolist()[:5]} not in classes "
                f"{self.classes_.tolist()[:10]}."
            )
        self._run(X, y)
        return self

    def _start(self, classes, m: int) -> None:
        if classes.shape[0] < 2:
            raise ValueError(f"OFS: y needs at least two classes; got 1 class ({classes.tolist()}).")
        self.classes_ = classes
        k = 1 if classes.shape[0] == 2 else classes.shape[0]
        self.coef_ = np.zeros((k, m))
        self.n_updates_ = 0
        self.n_samples_seen_ = 0

    def _run(self, X, y) -> None:
        yk = np.searchsorted(self.classes_, y)
        if self.coef_.shape[0] == 1:
            Y = np.where(yk == 1, 1.0, -1.0)[:, None]
        else:
            Y = np.where(np.arange(self.coef_.shape[0])[None, :] == yk[:, None], 1.0, -1.0)
        Y = np.ascontiguousarray(Y)
        args = (float(self.eta), float(self.lam), int(self.n_features))
        if sp.issparse(X):
            A = X.tocsr()
            A.sort_indices()
            n_upd = K.ofs_csr(
                readonly(A.data), A.indices.astype(np.int64), A.indptr.astype(np.int64), Y, self.coef_, *args
            )
        else:
            n_upd = K.ofs_dense(readonly(np.ascontiguousarray(X)), Y, self.coef_, *args)
        self.n_updates_ += int(n_upd)
        self.n_samples_seen_ += X.shape[0]
        self.scores_ = np.sqrt(np.einsum("kj,kj->j", self.coef_, self.coef_))
        nz = np.flatnonzero(self.scores_ > 0)
        self.selected_ = nz[np.argsort(-self.scores_[nz], kind="stable")]
        self.ranking_ = rank_from_selection(self.selected_, self.scores_)[0]
