"""Structured sparse learning (survey section 3): group lasso, sparse group lasso, tree lasso.

Each selector fits a linear model with a structured penalty (survey eq. 50, 52, 54)

    min_{W, b}  loss(X W + b, Y) / n  +  alpha * alpha_max * Omega(W)

and scores every feature by the norm of its coefficient row. ``loss`` is the squared loss
``||X W + b - Y||_F^2 / 2`` (regression; classes coded ``+-1`` for two and one-hot for
more, as the survey's repository does) or the logistic loss (binary: ``log(1 + exp(-y
(x'w + b)))``; several classes: the multinomial one). ``alpha`` is relative:
``alpha_max`` is the smallest strength at which ``W = 0`` is optimal, so ``alpha`` in
(0, 1) always gives a non-trivial model and ``alpha >= 1`` the empty one.

``Omega`` is a weighted sum of Euclidean norms of coefficient groups (rows of ``W`` for
several targets) that are nested or disjoint, optionally plus ``||W||_1``. Its prox is
exact: the composition of the elementwise soft threshold and the group shrinkages from
the leaves to the root (Liu & Ye 2010, Theorem 2), one compiled pass over the tree.

Solver: accelerated proximal gradient (FISTA with backtracking on the Lipschitz constant
and adaptive restart, as SLEP), stopped by the KKT residual: ``W`` is optimal exactly
when ``W = prox_{Omega / L}(W - grad / L)``, and the solver stops when
``L * ||W - prox(W - grad / L)||_F <= tol * ||grad at W = 0||_F``.

Dense or scipy.sparse ``X`` (features are centred implicitly, never densified).

References
----------
Yuan & Lin (2006), "Model selection and estimation in regression with grouped variables";
Friedman, Hastie & Tibshirani (2010), "A note on the group lasso and a sparse group lasso";
Liu & Ye (2010), "Moreau-Yosida Regularization for Grouped Tree Structure Learning", NIPS;
Beck & Teboulle (2009), FISTA; Li et al. (2017), section 3.1-3.2, eq. (50)-(54).
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_selection import SelectorMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from fsviz.select import _structured_kernels as K
from fsviz.select._base import (
    SELECTION_CONSTRAINTS,
    blas_limits,
    constant_features,
    rank_scores,
    scale_extreme,
    support_mask,
)
from fsviz.select.feature_groups import (
    Tree,
    as_index_groups,
    feature_tree,
    group_weights,
    partition,
)

# ------------------------------------------------------------------ structures


# ------------------------------------------------------------------ losses
class _Problem:
    """Smooth part: loss over centred ``X`` (implicitly for sparse), gradient, intercept."""

    def __init__(self, X, Y: np.ndarray, loss: str):
        n = X.shape[0]
        self.n, self.loss = n, loss
        if sp.issparse(X):
            self.X = sp.csr_matrix(X)
            self.XT = self.X.T.tocsr()
            self.mu = np.asarray(self.X.mean(axis=0)).ravel()
        else:
            self.mu = X.mean(axis=0)
            self.X = np.ascontiguousarray(X - self.mu)
            self.XT = None
        self.Y = Y

    def columns(self, ws: np.ndarray) -> _Problem:
        """The same loss on the columns ``ws`` only (centred the same way)."""
        out = _Problem.__new__(_Problem)
        out.n, out.loss, out.Y = self.n, self.loss, self.Y
        out.mu = self.mu[ws]
        if self.XT is None:
            out.X, out.XT = np.ascontiguousarray(self.X[:, ws]), None
        else:
            out.X = self.X[:, ws].tocsr()
            out.XT = out.X.T.tocsr()
        return out

    def matvec(self, W: np.ndarray) -> np.ndarray:
        if self.XT is None:
            return self.X @ W
        return np.asarray(self.X @ W) - (self.mu @ W)[None, :]

    def rmatvec(self, R: np.ndarray) -> np.ndarray:
        if self.XT is None:
            return self.X.T @ R
        return np.asarray(self.XT @ R) - self.mu[:, None] * R.sum(axis=0)[None, :]

    def value_grad_z(self, Z: np.ndarray, b: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        """Loss and its gradient with respect to the linear predictor ``Z = X W + b`` (both / n)."""
        n, Y = self.n, self.Y
        if self.loss == "squared":
            R = Z + b - Y
            return 0.5 * float(np.sum(R * R)) / n, R / n, R.sum(axis=0) / n
        if Y.shape[1] == 1:  # binary logistic, y in {-1, +1}
            m = Y * (Z + b)
            val = float(np.logaddexp(0.0, -m).sum()) / n
            G = -Y * _sigmoid(-m) / n
            return val, G, G.sum(axis=0)
        S = Z + b  # multinomial, Y one-hot
        smax = S.max(axis=1, keepdims=True)
        lse = smax + np.log(np.exp(S - smax).sum(axis=1, keepdims=True))
        val = float((lse - (S * Y).sum(axis=1, keepdims=True)).sum()) / n
        G = (np.exp(S - lse) - Y) / n
        return val, G, G.sum(axis=0)

    def intercept0(self) -> np.ndarray:
        """The optimal intercept at ``W = 0``."""
        Y = self.Y
        if self.loss == "squared":
            return Y.mean(axis=0)
        if Y.shape[1] == 1:
            p = np.clip((Y[:, 0] > 0).mean(), 1e-12, 1 - 1e-12)
            return np.array([np.log(p / (1 - p))])
        p = np.clip(Y.mean(axis=0), 1e-12, None)
        return np.log(p) - np.log(p).mean()


def _sigmoid(x):
    return np.exp(-np.logaddexp(0.0, -x))


def _restrict(tree: Tree, ws: np.ndarray, m: int) -> Tree:
    """The tree on the columns ``ws`` (nodes intersected with ``ws``, renumbered, empty ones dropped).

    Exact for a subproblem whose other coefficients are 0: ``||w_G|| = ||w_{G & ws}||`` then.
    """
    pos = np.full(m, -1, dtype=np.int64)
    pos[ws] = np.arange(ws.size)
    sizes = np.diff(tree.indptr)
    node = np.repeat(np.arange(sizes.size), sizes)
    local = pos[tree.indices]
    keep = local >= 0
    counts = np.bincount(node[keep], minlength=sizes.size)
    alive = counts > 0
    out = Tree.__new__(Tree)
    out.indptr = np.concatenate([[0], np.cumsum(counts[alive])]).astype(np.int64)
    out.indices = np.ascontiguousarray(local[keep], dtype=np.int64)
    out.weights = np.ascontiguousarray(tree.weights[alive])
    out.groups = None
    return out


def _lipschitz(prob: _Problem) -> tuple[float, bool]:
    """A Lipschitz constant of the loss gradient and whether it is exact.

    ``c * max(sigma_max(X_c)^2, n) / n`` (``c`` = 1 squared, 1/4 binary logistic, 1/2
    multinomial; ``n`` for the intercept's column of ones, orthogonal to centred ``X``). Dense
    data whose smaller Gram matrix costs at most 4e9 flops: ``sigma_max`` exactly from it;
    otherwise a power-iteration estimate (a lower bound, so the solver backtracks).
    """
    m, n = prob.mu.size, prob.n
    exact = prob.XT is None and min(n, m) ** 2 * max(n, m) <= 4e9  # the Gram matrix is cheap
    if exact:
        Xc = prob.X
        G = Xc @ Xc.T if n <= m else Xc.T @ Xc
        sig = float(sla.eigvalsh(G, subset_by_index=[G.shape[0] - 1, G.shape[0] - 1])[0]) * (1 + 1e-10)
    else:
        v = np.random.default_rng(0).normal(size=(m, 1))
        sig = 0.0
        for _ in range(30):
            v /= np.linalg.norm(v)
            w = prob.rmatvec(prob.matvec(v))
            new = float(np.linalg.norm(w))
            v = w
            done = abs(new - sig) <= 1e-3 * new
            sig = new
            if done:
                break
    sig = max(sig, float(n))
    c = 1.0 if prob.loss == "squared" else (0.25 if prob.Y.shape[1] == 1 else 0.5)
    return max(c * sig / n, 1e-12), exact


#: size of the first working set (it grows by at most its own size per round)
_WS_START = 64


def _largest_rows(P: np.ndarray, cap: int) -> np.ndarray:
    """Indices of the non-zero rows of ``P``, the ``cap`` largest (row norm) if there are more."""
    norms = np.sqrt(np.sum(P * P, axis=1))
    nz = np.flatnonzero(norms > 0)
    if nz.size > cap:
        nz = nz[np.argpartition(-norms[nz], cap - 1)[:cap]]
    return np.sort(nz)


def _solve(prob: _Problem, tree: Tree, l1: float, lam: float, tol: float, max_iter: int):
    """Working-set FISTA: solve on the features the KKT conditions call for, add violators, repeat.

    The first working set is the support of one proximal step from ``W = 0`` (its 64 largest
    rows); after each solve the KKT conditions of the FULL problem are checked by one prox step
    over all features, and the features that step would move from 0 join (the largest, at most
    as many as the working set holds). Stops when no feature violates them (then
    the full KKT residual equals the subproblem's, below ``tol``). Returns
    ``W, b, n_iter, relative residual, full gradient``.
    """
    m, t = prob.mu.size, prob.Y.shape[1]
    b = prob.intercept0()
    _, Gz, _ = prob.value_grad_z(prob.matvec(np.zeros((m, t))), b)
    G = prob.rmatvec(Gz)
    scale = max(float(np.linalg.norm(G)), 1e-300)
    W = np.zeros((m, t))
    if lam <= 0:
        ws = np.arange(m)
    else:
        P = K.tree_prox(np.ascontiguousarray(-G), l1 * lam, tree.indptr, tree.indices, tree.weights * lam)
        ws = _largest_rows(P, _WS_START)
        if ws.size == 0:  # lam >= alpha_max: W = 0 is optimal
            return W, b, 0, 0.0, G
    n_iter = 0
    while True:
        full = ws.size == m
        sub = prob if full else prob.columns(ws)
        subtree = tree if full else _restrict(tree, ws, m)
        Wsub, b, it, L = _tree_fista(sub, subtree, l1, lam, tol * scale, max_iter - n_iter, W[ws], b)
        n_iter += it
        W[:] = 0.0
        W[ws] = Wsub
        # the subproblem's step: the residual is 0 exactly at the optimum for any step, and
        # whether a feature outside the set moves does not depend on it (W is 0 there)
        res, G, P = _kkt_residual(prob, tree, l1, lam, W, b, L)
        if full or n_iter >= max_iter:
            break
        P[ws] = 0.0
        viol = _largest_rows(P, max(ws.size, _WS_START))  # at most doubles the working set
        if viol.size == 0:
            break
        ws = np.union1d(ws, viol)
    return W, b, n_iter, res / scale, G


def _tree_fista(prob: _Problem, tree: Tree, l1: float, lam: float, atol: float, max_iter: int, W0, b0):
    """FISTA (exact Lipschitz step, or backtracking from an estimate; adaptive restart) until the
    KKT residual ``L ||W - prox(W - grad / L)||`` is at most ``atol``."""
    thresh_w = tree.weights * lam
    l1_lam = l1 * lam
    W, b = np.ascontiguousarray(W0, dtype=np.float64), np.asarray(b0, dtype=np.float64)
    XW = prob.matvec(W)
    L, exact = _lipschitz(prob)
    Wp, bp, XWp = W, b, XW
    tk = 1.0
    Z, bz, XZ = W, b, XW
    n_iter = 0
    for n_iter in range(1, max(max_iter, 1) + 1):  # noqa: B007 - returned
        fz, Gz, gbz = prob.value_grad_z(XZ, bz)
        Gw = prob.rmatvec(Gz)
        while True:
            Wn = K.tree_prox(
                np.ascontiguousarray(Z - Gw / L), l1_lam / L, tree.indptr, tree.indices, thresh_w / L
            )
            bn = bz - gbz / L
            XWn = prob.matvec(Wn)
            if exact:  # L bounds the curvature everywhere: no line search needed
                break
            fn = prob.value_grad_z(XWn, bn)[0]
            dW, db = Wn - Z, bn - bz
            quad = (
                fz
                + float(np.sum(Gw * dW))
                + float(gbz @ db)
                + 0.5 * L * (float(np.sum(dW * dW)) + float(db @ db))
            )
            if fn <= quad + 1e-12 * abs(fz):
                break
            L *= 2.0
        # adaptive restart, gradient scheme (O'Donoghue & Candes 2015): drop the momentum when
        # the step goes against it
        if float(np.sum((Z - Wn) * (Wn - W))) + float((bz - bn) @ (bn - b)) > 0:
            tk = 1.0
        tn = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * tk * tk))
        beta = (tk - 1.0) / tn
        Wp, bp, XWp, W, b, XW = W, b, XW, Wn, bn, XWn
        Z = W + beta * (W - Wp)
        bz = b + beta * (b - bp)
        XZ = XW + beta * (XW - XWp)
        tk = tn
        if n_iter % 10 == 0 and _kkt_residual(prob, tree, l1, lam, W, b, L)[0] <= atol:
            break
    return W, b, n_iter, L


def _kkt_residual(prob, tree, l1, lam, W, b, L):
    """``L ||W - prox(W - grad / L)||`` (with the intercept's gradient): 0 exactly at the optimum.

    Returns the residual, the gradient and the prox step ``P``.
    """
    _, Gz, gb = prob.value_grad_z(prob.matvec(W), b)
    G = prob.rmatvec(Gz)
    P = K.tree_prox(
        np.ascontiguousarray(W - G / L), l1 * lam / L, tree.indptr, tree.indices, tree.weights * lam / L
    )
    return L * float(np.sqrt(np.sum((W - P) ** 2) + float(gb @ gb) / L**2)), G, P


def _alpha_max(prob: _Problem, tree: Tree, l1: float) -> float:
    """Smallest ``lam`` with ``W = 0`` optimal: ``prox_{lam Omega}(-grad(0)) = 0`` (bisection)."""
    b0 = prob.intercept0()
    _, Gz, _ = prob.value_grad_z(prob.matvec(np.zeros((prob.mu.size, prob.Y.shape[1]))), b0)
    V = np.ascontiguousarray(-prob.rmatvec(Gz))
    if not np.any(V):
        return 0.0

    def zero(lam):
        return not np.any(K.tree_prox(V, l1 * lam, tree.indptr, tree.indices, tree.weights * lam))

    hi = 1.0
    if zero(hi):
        while zero(0.5 * hi) and hi > 1e-300:
            hi *= 0.5
    else:
        for _ in range(2100):
            hi *= 2.0
            if zero(hi):
                break
        else:  # pragma: no cover - every feature is penalised, so a finite strength zeroes W
            raise ValueError("structured lasso: no penalty strength makes W = 0; a group has weight 0.")
    lo = 0.5 * hi
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if zero(mid) else (mid, hi)
    return hi


# ------------------------------------------------------------------ estimators
class _StructuredLasso(SelectorMixin, BaseEstimator):
    """Shared fit: targets, penalty structure, alpha_max, solve, scores."""

    _parameter_constraints: dict = {
        **SELECTION_CONSTRAINTS,
        "alpha": [Interval(Real, 0.0, None, closed="left")],  # a fraction of alpha_max
        "loss": [StrOptions({"squared", "logistic"})],
        "tol": [Interval(Real, 0.0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
    }
    #: "sqrt", "ones" or one weight per group (the number of groups is checked against the data)
    _WEIGHTS: list = [StrOptions({"sqrt", "ones"}), "array-like"]

    def _tree(self, X) -> tuple[Tree, float]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _targets(self, y) -> tuple[np.ndarray, np.ndarray | None]:
        name = type(self).__name__
        kind = type_of_target(y, input_name="y", raise_unknown=True)
        if kind in ("binary", "multiclass"):
            classes, codes = np.unique(y, return_inverse=True)
            if classes.size < 2:
                raise ValueError(f"{name}: 'y' must contain at least 2 classes; got {classes.tolist()!r}.")
            if classes.size == 2:
                return (2.0 * codes - 1.0).reshape(-1, 1), classes
            return np.eye(classes.size)[codes], classes
        if kind == "continuous" and self.loss == "squared":
            return np.asarray(y, dtype=np.float64).reshape(-1, 1), None
        raise ValueError(
            f"{name}: 'y' must be class labels (binary or multiclass) or, with loss='squared', a continuous "
            f"target; got a {kind!r} target."
        )

    def fit(self, X, y):
        """Fit the penalised model and score every feature.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels or (``loss="squared"``) a continuous target.

        Returns
        -------
        self
        """
        name = type(self).__name__
        self._validate_params()  # the class's declaration, scikit-learn's own check
        a = self.alpha
        X, y = validate_data(self, X, y, accept_sparse=("csr", "csc"), dtype=np.float64, ensure_min_samples=2)
        X = scale_extreme(X)
        Y, classes = self._targets(y)
        if classes is not None:
            self.classes_ = classes
        tree, l1 = self._tree(X)
        prob = _Problem(X, Y, self.loss)
        with blas_limits():
            amax = _alpha_max(prob, tree, l1)
            lam = float(a) * amax
            W, b, n_iter, res, G = _solve(prob, tree, l1, lam, float(self.tol), int(self.max_iter))
        if res > self.tol:
            warnings.warn(
                f"{name}: stopped after max_iter={self.max_iter} iterations with KKT residual {res:.2e} "
                f"above tol={self.tol:g}; raise max_iter or alpha.",
                ConvergenceWarning,
                stacklevel=2,
            )
        self.alpha_max_ = amax
        self.n_iter_ = n_iter
        self.kkt_residual_ = res
        self.structure_ = tree.groups
        self.coef_ = W[:, 0].copy() if W.shape[1] == 1 else W.T.copy()
        b = b - prob.mu @ W  # back to uncentred X
        self.intercept_ = float(b[0]) if b.size == 1 else b
        self.scores_ = np.sqrt(np.sum(W * W, axis=1))
        # zero coefficients: the closer a feature's gradient is to entering, the better it ranks;
        # constant features (gradient 0 up to rounding of the centring) last
        self.ranking_ = rank_scores(
            self.scores_,
            tie_break=np.sqrt(np.sum(G * G, axis=1)),
            last=constant_features(X),
            names=getattr(self, "feature_names_in_", None),
        )
        return self

    def _get_support_mask(self):
        check_is_fitted(self, "scores_")
        return support_mask(self.scores_, self.ranking_, self.n_features, self.threshold)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.required = True
        return tags


_COMMON_PARAMS = """
    loss : {"squared", "logistic"}, default="squared"
        Squared loss (classes coded +-1, or one-hot for more than two) or logistic loss
        (binary, multinomial for more classes).
    n_features : int or None, default=20
        Number of best features :meth:`get_support` selects (None: all).
    threshold : float or None, default=None
        Select every feature whose score (coefficient norm) is ``>= threshold`` instead.
    tol : float, default=1e-5
        Stop when the KKT residual is below ``tol`` times the gradient norm at ``W = 0``.
    max_iter : int, default=2000
        Bound on the accelerated proximal-gradient iterations."""

_COMMON_ATTRS = """
    scores_ : ndarray of shape (n_features_in_,)
        Euclidean norm of each feature's coefficients (over the targets); 0 outside the model.
    ranking_ : ndarray of shape (n_features_in_,)
        1 = best; features with zero coefficients are ordered by the norm of their gradient
        (how close each is to entering the model), then by index.
    coef_ : ndarray of shape (n_features_in_,) or (n_targets, n_features_in_)
    intercept_ : float or ndarray of shape (n_targets,)
    alpha_max_ : float
        The absolute strength at which ``W = 0`` becomes optimal; the fit used
        ``alpha * alpha_max_``.
    kkt_residual_ : float
        The final KKT residual relative to the gradient norm at ``W = 0``.
    n_iter_ : int
    structure_ : list of ndarray
        The groups (tree nodes) the penalty used, leaves to root, singletons included.
    classes_ : ndarray
        Class labels (classification targets only).
    n_features_in_ : int
    feature_names_in_ : ndarray"""


class GroupLasso(_StructuredLasso):
    __doc__ = f"""Group lasso (Yuan & Lin 2006; survey eq. 50): whole groups of features in or out.

    ``Omega(W) = sum_g h_g ||W_g||``, disjoint groups ``g`` with weights ``h_g``.

    Parameters
    ----------
    groups : list of index arrays, array of one label per feature, or None, default=None
        Disjoint feature groups (``Dataset.categorical_groups``, :func:`gdm_groups`, or
        any prior grouping); features in no group are singletons. None: every feature is
        its own group (the lasso, or the l2,1 multi-task lasso for several targets).
    alpha : float, default=0.1
        Penalty strength as a fraction of ``alpha_max_`` (>= 1 gives the empty model).
    group_weights : "sqrt", "ones" or array of shape (n_groups,), default="sqrt"
        ``h_g``: ``sqrt(|g|)`` (Yuan & Lin), 1, or given (groups first, then the singletons
        of ungrouped features in index order).{_COMMON_PARAMS}

    Attributes
    ----------{_COMMON_ATTRS}

    References
    ----------
    Yuan & Lin (2006), JRSS-B; Meier, van de Geer & Buhlmann (2008) (logistic);
    Li et al. (2017), section 3.1, eq. (50).

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import GroupLasso
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 6))
    >>> y = X[:, 0] + X[:, 1] + 0.1 * rng.normal(size=80)
    >>> gl = GroupLasso(groups=[[0, 1], [2, 3], [4, 5]], alpha=0.3).fit(X, y)
    >>> np.flatnonzero(gl.scores_).tolist()
    [0, 1]
    """

    _parameter_constraints: dict = {
        **_StructuredLasso._parameter_constraints,
        "groups": ["array-like", None],
        "group_weights": _StructuredLasso._WEIGHTS,
    }

    def __init__(
        self,
        *,
        groups=None,
        alpha=0.1,
        group_weights="sqrt",
        loss="squared",
        n_features=20,
        threshold=None,
        tol=1e-5,
        max_iter=2000,
    ):
        self.groups = groups
        self.alpha = alpha
        self.group_weights = group_weights
        self.loss = loss
        self.n_features = n_features
        self.threshold = threshold
        self.tol = tol
        self.max_iter = max_iter

    def _tree(self, X):
        gs = partition("GroupLasso", self.groups, X.shape[1])
        return Tree(gs, group_weights("GroupLasso", gs, self.group_weights)), 0.0


class SparseGroupLasso(_StructuredLasso):
    __doc__ = f"""Sparse group lasso (Friedman et al. 2010; survey eq. 52): groups and features within them.

    ``Omega(W) = l1_ratio ||W||_1 + (1 - l1_ratio) sum_g h_g ||W_g||``; its prox is the
    soft threshold followed by the group shrinkage.

    Parameters
    ----------
    groups : list of index arrays, array of one label per feature, or None, default=None
        Disjoint groups, as :class:`GroupLasso`.
    alpha : float, default=0.1
        Penalty strength as a fraction of ``alpha_max_``.
    l1_ratio : float in [0, 1], default=0.5
        Share of the l1 part (1: lasso, 0: group lasso).
    group_weights : "sqrt", "ones" or array of shape (n_groups,), default="sqrt"{_COMMON_PARAMS}

    Attributes
    ----------{_COMMON_ATTRS}

    References
    ----------
    Friedman, Hastie & Tibshirani (2010), arXiv:1001.0736; Liu & Ye (2010) (prox);
    Li et al. (2017), section 3.1, eq. (52).

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import SparseGroupLasso
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 6))
    >>> y = X[:, 0] + 0.1 * rng.normal(size=80)
    >>> sgl = SparseGroupLasso(groups=[[0, 1], [2, 3], [4, 5]], alpha=0.3).fit(X, y)
    >>> np.flatnonzero(sgl.scores_).tolist()
    [0]
    """

    _parameter_constraints: dict = {
        **_StructuredLasso._parameter_constraints,
        "groups": ["array-like", None],
        "l1_ratio": [Interval(Real, 0.0, 1.0, closed="both")],
        "group_weights": _StructuredLasso._WEIGHTS,
    }

    def __init__(
        self,
        *,
        groups=None,
        alpha=0.1,
        l1_ratio=0.5,
        group_weights="sqrt",
        loss="squared",
        n_features=20,
        threshold=None,
        tol=1e-5,
        max_iter=2000,
    ):
        self.groups = groups
        self.alpha = alpha
        self.l1_ratio = l1_ratio
        self.group_weights = group_weights
        self.loss = loss
        self.n_features = n_features
        self.threshold = threshold
        self.tol = tol
        self.max_iter = max_iter

    def _tree(self, X):
        r = self.l1_ratio
        gs = partition("SparseGroupLasso", self.groups, X.shape[1])
        w = group_weights("SparseGroupLasso", gs, self.group_weights) * (1.0 - r)
        return Tree(gs, w), float(r)


class TreeLasso(_StructuredLasso):
    __doc__ = f"""Tree-structured group lasso (Liu & Ye 2010; survey eq. 54): nested groups.

    ``Omega(W) = sum_nodes h_G ||W_G||`` over a tree of index groups (any two nested or
    disjoint); the exact prox composes the group shrinkages from the leaves to the root.

    Parameters
    ----------
    tree : list of index arrays or None, default=None
        The nodes, any order (sorted leaves-to-root by size); features in no node become
        singleton leaves. None: :func:`feature_tree` of ``X`` (a hierarchical clustering of
        the features cut at ``1 - |rho|`` = 0.2, 0.5, 0.8).
    alpha : float, default=0.1
        Penalty strength as a fraction of ``alpha_max_``.
    node_weights : "sqrt", "ones" or array of shape (n_nodes,), default="sqrt"
        ``h_G`` (given weights follow the tree's nodes in the order passed, then the
        singletons added).{_COMMON_PARAMS}

    Attributes
    ----------{_COMMON_ATTRS}

    References
    ----------
    Liu & Ye (2010), NIPS, eq. (1)-(2) and Theorem 2; Kim & Xing (2010);
    Li et al. (2017), section 3.2, eq. (54).

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import TreeLasso
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 8))
    >>> y = X[:, 0] - X[:, 1] + 0.1 * rng.normal(size=80)
    >>> tree = [[0, 1], [2, 3], [0, 1, 2, 3], [4, 5, 6, 7]]
    >>> tl = TreeLasso(tree=tree, alpha=0.3).fit(X, y)
    >>> np.flatnonzero(tl.scores_).tolist()
    [0, 1]
    """

    _parameter_constraints: dict = {
        **_StructuredLasso._parameter_constraints,
        "tree": ["array-like", None],
        "node_weights": _StructuredLasso._WEIGHTS,
    }

    def __init__(
        self,
        *,
        tree=None,
        alpha=0.1,
        node_weights="sqrt",
        loss="squared",
        n_features=20,
        threshold=None,
        tol=1e-5,
        max_iter=2000,
    ):
        self.tree = tree
        self.alpha = alpha
        self.node_weights = node_weights
        self.loss = loss
        self.n_features = n_features
        self.threshold = threshold
        self.tol = tol
        self.max_iter = max_iter

    def _tree(self, X):
        m = X.shape[1]
        nodes = feature_tree(X) if self.tree is None else as_index_groups("TreeLasso", self.tree, m)
        w = group_weights("TreeLasso", nodes, self.node_weights, "node_weights") if nodes else np.zeros(0)
        if isinstance(self.node_weights, str) or self.node_weights is None:
            w = None
        covered = np.zeros(m, dtype=bool)
        for g in nodes:
            covered[g] = True
        leaves = [np.array([j], dtype=np.int64) for j in np.flatnonzero(~covered)]
        allnodes = nodes + leaves
        if w is None:
            weights = group_weights("TreeLasso", allnodes, self.node_weights)
        else:
            weights = np.concatenate([w, np.ones(len(leaves))])
        order = np.argsort([g.size for g in allnodes], kind="stable")  # leaves to root
        allnodes = [allnodes[i] for i in order]
        weights = weights[order]
        tree = Tree(allnodes, weights)
        bad = K.tree_check(tree.indptr, tree.indices, m)
        if bad >= 0:
            raise ValueError(
                f"TreeLasso: tree nodes must be nested or disjoint; node {allnodes[bad].tolist()[:10]} "
                "overlaps another node partly (or repeats one)."
            )
        return tree, 0.0
