"""Sparse-learning selectors of the survey (section 2.3): l2,1-norm models, supervised and not.

=========  =================================================================  ======================
class      problem (W has one row per feature; score = ``||W(j, :)||_2``)      solver
=========  =================================================================  ======================
LSL21      ``1/(2n) ||Y - XW||_F^2 + alpha ||W||_2,1`` (one-hot ``Y``)         BCD (dense) / FISTA, gap
LLL21      ``1/n sum_i CE(softmax(x_i W + b), y_i) + alpha ||W||_2,1``         FISTA + backtracking, KKT
RFS        ``||XW - Y||_2,1 + gamma ||W||_2,1`` (Nie et al. 2010, eq. 62)      iterative reweighting
UDFS       ``min_{W'W=I} tr(W'MW) + alpha ||W||_2,1`` (Yang et al. 2011)       reweighted eigenproblem
NDFS       ``tr(F'LF) + alpha(||XW-F||^2 + beta||W||_2,1) + gamma/2||F'F-I||^2``  alternating updates
=========  =================================================================  ======================

All five take dense or scipy.sparse ``X`` and never densify it. What they build instead:

* LSL21 and LLL21 only multiply by ``X`` and ``X'`` (``X`` centred implicitly: ``Xc W = XW -
  1 (mu'W)``), memory O((n + d) c). On dense ``X`` LSL21 runs block coordinate descent (numba,
  a centred copy of ``X``).
* RFS and NDFS solve one reweighted least-squares system per iteration on the smaller side:
  ``X'DX + gamma D_w`` (d x d) when ``d < n``, else its Woodbury form ``X D_w^-1 X' + ...``
  (n x n). Memory is ``min(n, d)^2`` floats (sparse products, then a dense Cholesky).
* UDFS's matrix ``M = X' L X`` is d x d by definition and its eigenvectors are taken every
  iteration: memory d^2, O(d^3) time per iteration, O(n^2 d) when ``d > 2n`` (``M`` then has
  rank < n and a Woodbury/Lanczos solver replaces the dense one; ``L`` itself is a sparse n x n matrix with
  at most ``n (k+1)^2`` entries). NDFS's Laplacian is the sparse kNN graph; its
  ``M = L + alpha (I - X T X')`` is never formed (``MF = LF + alpha (F - XW)``).
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval

from fsviz._params import check_data_bound
from fsviz.select._base import SELECTION_CONSTRAINTS, ScoreSelector
from fsviz.select._graph import GRAPH_KERNEL, NEIGHBOURS, knn_affinity
from fsviz.select.sparse_solvers import (
    NON_NEGATIVE,
    POSITIVE,
    alpha_max,
    kmeans_indicator,
    lll21_solve,
    lsl21_solve,
    ndfs_solve,
    normalized_laplacian,
    one_hot,
    rfs_solve,
    row_norms,
    udfs_solve,
    warn_zero,
)

__all__ = ["LLL21", "LSL21", "NDFS", "RFS", "UDFS"]


class _SparseLearning(ScoreSelector):
    """Common tail: ``coef_`` -> ``scores_`` (row norms), ``n_iter_``, ``objective_history_``."""

    _zero_constants = True  # RFS and NDFS have no intercept: a non-zero constant column would be one
    _parameter_constraints: dict = {
        **SELECTION_CONSTRAINTS,
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [POSITIVE],
    }

    def _finish(self, W, history, n_iter):
        self.coef_ = W
        self.n_iter_ = int(n_iter)
        self.objective_history_ = np.asarray(history, dtype=np.float64)
        warn_zero(type(self).__name__, W, self._zero_reason())
        return row_norms(W)

    def _zero_reason(self) -> str:
        return "the regularisation is too strong"


class LSL21(_SparseLearning):
    """Least squares with an l2,1 regulariser on a one-hot target (survey section 2.3.2).

    Solves ``min_W 1/(2n) ||Y - XW - 1b'||_F^2 + alpha ||W||_2,1`` (``Y`` the one-hot class
    matrix, ``b`` an unpenalised intercept when ``fit_intercept``) by block coordinate descent
    over the rows of ``W`` (dense ``X``; active set, Anderson extrapolation) or monotone FISTA
    (sparse ``X``), both with the exact row-shrinkage prox and stopping on the duality gap.
    Scores are the row norms ``||W(j, :)||_2``. Dense or sparse ``X`` (sparse never densified:
    only products with ``X``).

    Parameters
    ----------
    alpha : float or None, default=None
        Regularisation, in the scaling of scikit-learn's ``MultiTaskLasso`` (the survey's
        ``||XW - Y||_F^2 + a ||W||_2,1`` is ``alpha = a / (2n)``). ``W = 0`` for ``alpha >=
        alpha_max = ||Xc'Yc||_2,inf / n``. None: ``0.1 * alpha_max``, a default that follows
        the scale of ``X``.
    fit_intercept : bool, default=True
        Centre ``X`` and ``Y`` (implicitly for sparse ``X``).
    max_iter : int, default=1000
    tol : float, default=1e-4
        Stop when the duality gap is ``<= tol`` times the objective at ``W = 0``.
    n_features : int or None, default=20
    threshold : float or None, default=None

    Attributes
    ----------
    scores_ : ndarray of shape (n_features_in_,)
        ``||W(j, :)||_2``; 0 for features the model drops.
    ranking_ : ndarray of shape (n_features_in_,)
    coef_ : ndarray of shape (n_features_in_, n_classes)
        ``W``.
    intercept_ : ndarray of shape (n_classes,)
    alpha_ : float
        The ``alpha`` used.
    n_iter_ : int
    objective_history_ : ndarray of shape (n_iter_,)
        Objective after each iteration, non-increasing.
    duality_gap_ : float
    n_features_in_ : int
    feature_names_in_ : ndarray

    References
    ----------
    Liu, Ji & Ye (2009), "Multi-Task Feature Learning via Efficient l2,1-Norm Minimization", UAI;
    Beck & Teboulle (2009), FISTA; Li et al. (2017), section 2.3.2.

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import LSL21
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(90, 8)); y = np.repeat([0, 1, 2], 30)
    >>> X[:, 2] += 3 * (y == 1); X[:, 5] += 3 * (y == 2)
    >>> LSL21(alpha=0.05, n_features=2).fit(X, y).get_support(indices=True)
    array([2, 5])
    """

    _supervised = True

    _parameter_constraints: dict = {
        **_SparseLearning._parameter_constraints,
        "alpha": [NON_NEGATIVE, None],  # None: 0.1 alpha_max
        "fit_intercept": ["boolean"],
    }

    def __init__(
        self, *, alpha=None, fit_intercept=True, max_iter=1000, tol=1e-4, n_features=20, threshold=None
    ):
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.n_features = n_features
        self.threshold = threshold

    def _compute_scores(self, X, y):
        Y = one_hot(y)
        a = self.alpha
        self.alpha_ = 0.1 * alpha_max(X, Y, bool(self.fit_intercept)) if a is None else float(a)
        W, b, hist, it, gap = lsl21_solve(
            X,
            Y,
            self.alpha_,
            fit_intercept=bool(self.fit_intercept),
            max_iter=self.max_iter,
            tol=self.tol,
        )
        self.intercept_, self.duality_gap_ = b, gap
        return self._finish(W, hist, it)


class LLL21(_SparseLearning):
    """Multinomial logistic loss with an l2,1 regulariser (survey section 2.3.2, logistic loss).

    Solves ``min_{W,b} 1/n sum_i -log softmax(x_i W + b)_{y_i} + alpha ||W||_2,1`` by monotone
    FISTA with the exact prox and a backtracking step; stops on the KKT residual. Scores are
    ``||W(j, :)||_2``. Dense or sparse ``X`` (centred implicitly, never densified).

    Parameters
    ----------
    alpha : float or None, default=None
        ``W = 0`` for ``alpha >= alpha_max = ||Xc'(Y - mean(Y))||_2,inf / n``. None:
        ``0.1 * alpha_max``, a default that follows the scale of ``X``.
    max_iter : int, default=1000
    tol : float, default=1e-4
        Stop when the KKT residual is ``<= tol`` times that ``alpha_max``.
    n_features : int or None, default=20
    threshold : float or None, default=None

    Attributes
    ----------
    scores_ : ndarray of shape (n_features_in_,)
    ranking_ : ndarray of shape (n_features_in_,)
    coef_ : ndarray of shape (n_features_in_, n_classes)
    intercept_ : ndarray of shape (n_classes,)
    alpha_ : float
        The ``alpha`` used.
    n_iter_ : int
    objective_history_ : ndarray of shape (n_iter_,)
        Non-increasing.
    kkt_residual_ : float
    n_features_in_ : int
    feature_names_in_ : ndarray

    References
    ----------
    Liu, Ji & Ye (2009), UAI; Li et al. (2017), section 2.3.2.

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import LLL21
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(90, 8)); y = np.repeat([0, 1, 2], 30)
    >>> X[:, 2] += 3 * (y == 1); X[:, 5] += 3 * (y == 2)
    >>> LLL21(alpha=0.05, n_features=2).fit(X, y).get_support(indices=True)
    array([2, 5])
    """

    _supervised = True

    _parameter_constraints: dict = {**_SparseLearning._parameter_constraints, "alpha": [NON_NEGATIVE, None]}

    def __init__(self, *, alpha=None, max_iter=1000, tol=1e-4, n_features=20, threshold=None):
        self.alpha = alpha
        self.max_iter = max_iter
        self.tol = tol
        self.n_features = n_features
        self.threshold = threshold

    def _compute_scores(self, X, y):
        Y = one_hot(y)
        self.alpha_ = 0.1 * alpha_max(X, Y) if self.alpha is None else float(self.alpha)
        W, b, hist, it, kkt = lll21_solve(X, Y, self.alpha_, max_iter=self.max_iter, tol=self.tol)
        self.intercept_, self.kkt_residual_ = b, kkt
        return self._finish(W, hist, it)


class RFS(_SparseLearning):
    """Robust feature selection: joint l2,1 loss and regulariser (Nie et al. 2010; survey eq. 62).

    Solves ``min_W ||XW - Y||_2,1 + gamma ||W||_2,1`` (``Y`` one-hot, no intercept, as in the
    paper) by the paper's iterative reweighting (Algorithm 1), each step one linear system on the
    smaller side of ``X``; the objective never increases. Dense or sparse ``X`` (sparse products;
    the system is a dense ``min(n, d)`` square).

    Parameters
    ----------
    gamma : float, default=1.0
    max_iter : int, default=100
    tol : float, default=1e-6
        Stop when the objective decreases by ``<= tol`` relative.
    n_features : int or None, default=20
    threshold : float or None, default=None

    Attributes
    ----------
    scores_ : ndarray of shape (n_features_in_,)
    ranking_ : ndarray of shape (n_features_in_,)
    coef_ : ndarray of shape (n_features_in_, n_classes)
    n_iter_ : int
    objective_history_ : ndarray of shape (n_iter_,)
        Non-increasing.
    n_features_in_ : int
    feature_names_in_ : ndarray

    References
    ----------
    Nie, Huang, Cai & Ding (2010), "Efficient and Robust Feature Selection via Joint l2,1-Norms
    Minimization", NIPS, Algorithm 1; Li et al. (2017), eq. (62).

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import RFS
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(90, 8)); y = np.repeat([0, 1, 2], 30)
    >>> X[:, 2] += 3 * (y == 1); X[:, 5] += 3 * (y == 2)
    >>> RFS(gamma=1.0, n_features=2).fit(X, y).get_support(indices=True)
    array([2, 5])
    """

    _supervised = True

    _parameter_constraints: dict = {**_SparseLearning._parameter_constraints, "gamma": [POSITIVE]}

    def __init__(self, *, gamma=1.0, max_iter=100, tol=1e-6, n_features=20, threshold=None):
        self.gamma = gamma
        self.max_iter = max_iter
        self.tol = tol
        self.n_features = n_features
        self.threshold = threshold

    def _compute_scores(self, X, y):
        W, hist, it = rfs_solve(X, one_hot(y), float(self.gamma), max_iter=self.max_iter, tol=self.tol)
        return self._finish(W, hist, it)


class UDFS(_SparseLearning):
    """Unsupervised discriminative feature selection (Yang et al. 2011; survey eq. 67-71).

    ``min_{W'W = I} tr(W'MW) + alpha ||W||_2,1`` with ``M = X' L X`` built from the local
    discriminative scores of every sample's kNN neighbourhood; solved by the paper's
    reweighted eigenproblem. Scores are ``||W(j, :)||_2``. Sparse ``X`` is never densified, but
    ``M`` is a dense d x d matrix (memory d^2, an O(d^3) eigensolve per iteration; O(n^2 d)
    after the first when ``d > 2n`` and ``d >= 600``: ``M`` has rank < n, see ``udfs_solve``).

    Parameters
    ----------
    n_clusters : int, default=5
        Columns of ``W`` (the number of pseudo classes).
    alpha : float, default=0.1
        Weight of ``||W||_2,1``.
    reg : float, default=0.1
        The ``lambda`` making the local scatter ``X~_i'X~_i + lambda I`` invertible (eq. 69).
    n_neighbors : int, default=5
        ``k``: each local set is a sample and its ``k`` nearest others.
    max_iter : int, default=100
    tol : float, default=1e-6
    random_state : int, RandomState or None, default=None
        Unused by the solver (deterministic: the eigenvectors are unique up to sign, which the
        scores ignore); accepted for the run layer's uniform seeding.
    n_features : int or None, default=20
    threshold : float or None, default=None

    Attributes
    ----------
    scores_ : ndarray of shape (n_features_in_,)
    ranking_ : ndarray of shape (n_features_in_,)
    coef_ : ndarray of shape (n_features_in_, min(n_clusters, n_features_in_))
    n_iter_ : int
    objective_history_ : ndarray of shape (n_iter_,)
        Non-increasing.
    n_features_in_ : int
    feature_names_in_ : ndarray

    References
    ----------
    Yang, Shen, Ma, Huang & Zhou (2011), "l2,1-Norm Regularized Discriminative Feature Selection
    for Unsupervised Learning", IJCAI, Algorithm 1; Li et al. (2017), eq. (67)-(71).

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import UDFS
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 6))
    >>> X[:, 1] = np.where(np.arange(60) < 30, 2.0, -2.0) + 0.3 * rng.normal(size=60)
    >>> UDFS(n_clusters=2, n_features=1).fit(X).get_support(indices=True)
    array([1])
    """

    _parameter_constraints: dict = {
        **_SparseLearning._parameter_constraints,
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "alpha": [NON_NEGATIVE],
        "reg": [POSITIVE],
        "n_neighbors": NEIGHBOURS,
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        n_clusters=5,
        alpha=0.1,
        reg=0.1,
        n_neighbors=5,
        max_iter=100,
        tol=1e-6,
        random_state=None,
        n_features=20,
        threshold=None,
    ):
        self.n_clusters = n_clusters
        self.alpha = alpha
        self.reg = reg
        self.n_neighbors = n_neighbors
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.n_features = n_features
        self.threshold = threshold

    def _compute_scores(self, X, y):
        W, hist, it = udfs_solve(
            X,
            self.n_clusters,
            float(self.alpha),
            self.n_neighbors,
            float(self.reg),
            max_iter=self.max_iter,
            tol=self.tol,
        )
        return self._finish(W, hist, it)


class NDFS(_SparseLearning):
    """Nonnegative discriminative feature selection (Li et al. 2012; survey eq. 72-75).

    ``min_{F >= 0, W} tr(F'LF) + alpha (||XW - F||_F^2 + beta ||W||_2,1) + gamma/2 ||F'F - I||_F^2``
    with ``L`` the normalised Laplacian of a kNN heat-kernel graph and ``F`` the nonnegative
    pseudo labels, started from k-means (seeded by ``random_state``); solved by the paper's
    alternating updates. Scores are ``||W(j, :)||_2``. Sparse ``X`` is never densified: the
    graph is sparse, ``M`` is never formed, the W-step is a dense ``min(n, d)`` square system.

    Parameters
    ----------
    n_clusters : int, default=5
        Number of pseudo classes (columns of ``F`` and ``W``).
    alpha : float, default=1.0
    beta : float, default=1.0
    gamma : float, default=1e8
        Weight of the orthogonality penalty (Li et al. use a large value).
    n_neighbors : int, default=5
    kernel : {"heat", "binary"}, default="heat"
    t : float or None, default=None
        Heat-kernel width; None: mean squared kNN distance.
    max_iter : int, default=100
    tol : float, default=1e-6
    random_state : int, RandomState or None, default=None
        Seeds the k-means start.
    n_features : int or None, default=20
    threshold : float or None, default=None

    Attributes
    ----------
    scores_ : ndarray of shape (n_features_in_,)
    ranking_ : ndarray of shape (n_features_in_,)
    coef_ : ndarray of shape (n_features_in_, n_clusters)
    pseudo_labels_ : ndarray of shape (n_samples, n_clusters)
        ``F``.
    n_iter_ : int
    objective_history_ : ndarray of shape (n_iter_,)
    n_features_in_ : int
    feature_names_in_ : ndarray

    References
    ----------
    Li, Yang, Liu, Zhou & Lu (2012), "Unsupervised Feature Selection Using Nonnegative Spectral
    Analysis", AAAI, Algorithm 1; Li et al. (2017), eq. (72)-(75).

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import NDFS
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 6))
    >>> X[:, 1] = np.where(np.arange(60) < 30, 2.0, -2.0) + 0.3 * rng.normal(size=60)
    >>> NDFS(n_clusters=2, random_state=0, n_features=1).fit(X).get_support(indices=True)
    array([1])
    """

    _parameter_constraints: dict = {
        **_SparseLearning._parameter_constraints,
        "n_clusters": [Interval(Integral, 1, None, closed="left")],  # at most n_samples
        "alpha": [NON_NEGATIVE],
        "beta": [POSITIVE],
        "gamma": [POSITIVE],
        "n_neighbors": NEIGHBOURS,
        **GRAPH_KERNEL,
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        n_clusters=5,
        alpha=1.0,
        beta=1.0,
        gamma=1e8,
        n_neighbors=5,
        kernel="heat",
        t=None,
        max_iter=100,
        tol=1e-6,
        random_state=None,
        n_features=20,
        threshold=None,
    ):
        self.n_clusters = n_clusters
        self.alpha = alpha
        self.beta = beta
        self.gamma = gamma
        self.n_neighbors = n_neighbors
        self.kernel = kernel
        self.t = t
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.n_features = n_features
        self.threshold = threshold

    def _compute_scores(self, X, y):
        n = X.shape[0]
        declared = self._parameter_constraints["n_clusters"]
        c = check_data_bound(
            "NDFS", "n_clusters", self.n_clusters, declared, high=n, why=f" (X has {n} samples)"
        )
        seed = int(check_random_state(self.random_state).randint(np.iinfo(np.int32).max))
        Lap = normalized_laplacian(knn_affinity("NDFS", X, self.n_neighbors, self.kernel, self.t))
        F0 = kmeans_indicator(X, c, seed)
        W, F, hist, it = ndfs_solve(
            X,
            F0,
            Lap,
            float(self.alpha),
            float(self.beta),
            float(self.gamma),
            max_iter=self.max_iter,
            tol=self.tol,
        )
        self.pseudo_labels_ = F
        return self._finish(W, hist, it)
