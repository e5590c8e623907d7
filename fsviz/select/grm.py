"""GRM: refine any feature score by global redundancy minimization (Wang, Nie & Huang, 2015).

Problem (1) of the paper::

    min_{z >= 0, 1'z = 1}  z'(A + gamma G'G) z / z's

with ``A_ij = cos^2(f_i, f_j)`` of the centred features (eq. 2), ``s`` the input
score and ``G'G`` the Laplacian of the "same prior group" graph (eq. 25-26). It is
solved by an outer Dinkelbach loop on ``lambda = z'Mz / z's`` (Algorithm 2/4). Each
inner problem ``min z'Mz - lambda s'z`` on the simplex is a convex QP with a sparse
minimiser; by default it is solved exactly by a primal active-set method warm-started
from the previous outer iterate (a Cholesky factor of ``M`` on the support, grown one
feature at a time; no eigendecomposition). ``solver="alm"`` -- and the fallback when the
active set meets a singular block or outgrows its budget -- is the paper's inner
augmented-Lagrangian (ALM) loop, whose ``v`` step (eq. 8) is a linear solve with
``M + mu/2 I`` and whose ``z`` step is the exact simplex projection (eq. 22-24): ``M`` is
eigendecomposed once, so each ``v`` step costs one dense and one sparse matrix-vector
product with the eigenvector matrix, and every 10 ALM iterations, once the support has
nearly settled, it is handed to a small active-set KKT solve. ``kkt_violation_`` reports
the KKT residual of the last inner problem either way.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_selection import SelectorMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from fsviz._params import ParamUI
from fsviz.select._base import blas_limits, name_order, scale_extreme, support_mask
from fsviz.select._grm_kernels import simplex_project as _simplex_project_kernel


def simplex_projection(w) -> np.ndarray:
    """Euclidean projection of ``w`` onto the probability simplex, eq. (22)-(24).

    Parameters
    ----------
    w : array-like of shape (d,)

    Returns
    -------
    z : ndarray of shape (d,)
        ``argmin_{z >= 0, sum z = 1} ||z - w||``.

    References
    ----------
    Wang, Nie & Huang (2015), "Feature Selection via Global Redundancy Minimization",
    IEEE TKDE 27(10), eq. (10)-(24).
    """
    w = np.ascontiguousarray(w, dtype=np.float64).ravel()
    if w.size == 0 or not np.all(np.isfinite(w)):
        raise ValueError(f"simplex_projection: 'w' must be a non-empty finite vector; got shape {w.shape}.")
    return _simplex_project_kernel(w)[0]


def squared_cosine_matrix(X) -> np.ndarray:
    """``A_ij = (f_i'f_j / (||f_i|| ||f_j||))^2`` of the centred columns of ``X`` (eq. 2).

    Dense or sparse ``X`` (sparse is centred implicitly, never densified: only the
    ``d x d`` result is dense). A constant column gets ``A_ii = 1`` and 0 elsewhere.
    """
    n = X.shape[0]
    if sp.issparse(X):
        X = X.tocsc()
        mean = np.asarray(X.mean(axis=0)).ravel()
        C = np.asarray((X.T @ X).toarray(), dtype=np.float64) - n * np.outer(mean, mean)
    else:
        Xc = np.asarray(X, dtype=np.float64) - np.asarray(X, dtype=np.float64).mean(axis=0)
        C = Xc.T @ Xc
    diag = np.clip(np.diag(C).copy(), 0.0, None)
    scale = np.sqrt(diag)
    const = scale <= 1e-12 * max(float(scale.max(initial=0.0)), 1e-300)
    inv = np.where(const, 0.0, 1.0 / np.where(const, 1.0, scale))
    B = C * inv[:, None] * inv[None, :]
    np.clip(B, -1.0, 1.0, out=B)
    A = B * B
    np.fill_diagonal(A, 1.0)
    return A


def group_laplacian(groups, positions: dict[int, int] | np.ndarray, d: int) -> tuple[np.ndarray, int]:
    """``G'G`` as the Laplacian of the "same group" graph on the ``d`` working features.

    ``positions[j]`` is the working-set position of original feature ``j`` (-1 if
    outside). Two working features are joined by one edge when they share at least
    one group, which is exactly ``G'G`` for ``G`` with one row ``e_i - e_j`` per such
    pair (eq. 25-26) -- the ``g x d`` pair matrix itself is never built.
    Returns ``(L, n_pairs)``.
    """
    adj = np.zeros((d, d), dtype=bool)
    for g in groups:
        idx = positions[np.asarray(g, dtype=np.int64)]
        idx = np.unique(idx[idx >= 0])
        if idx.size >= 2:
            adj[np.ix_(idx, idx)] = True
    np.fill_diagonal(adj, False)
    deg = adj.sum(axis=1)
    L = -adj.astype(np.float64)
    L[np.diag_indices(d)] = deg
    return L, int(deg.sum() // 2)


class _ALMState(NamedTuple):
    """Eigendecomposition ``M = Q diag(evals) Q'`` and the ALM multipliers (updated in place)."""

    Q: np.ndarray
    evals: np.ndarray
    Qts: np.ndarray  # Q's
    mu0: float
    alpha: np.ndarray  # multiplier of z = v
    Qta: np.ndarray  # Q' alpha


def _active_set_qp(M, s, lam, z0, tol, budget, max_steps=None):
    """Exact minimiser of ``z'Mz - lam s'z`` on the simplex by a primal active-set method.

    The inner problem of Alg. 2 (problem (5) with ``lambda`` fixed) is a convex QP; this
    solves it directly (Nocedal & Wright, *Numerical Optimization*, Alg. 16.3) from the
    feasible warm start ``z0``: on the free set ``F`` (the support) the equality-constrained
    problem ``2 M_FF z_F - lam s_F = nu 1, 1'z_F = 1`` is solved with a Cholesky factor of
    ``M_FF`` that grows by one row per added feature; a step that would make a weight
    negative stops at the first zero and frees that coordinate (the factor is rebuilt); at
    the equality minimum the feature with the most negative reduced cost ``g_i - nu``
    (``g = 2Mz - lam s``) enters, until none is below ``-tol * max|g|`` -- the KKT
    conditions. Each step costs ``O(|F|^2 + d |F|)``; no eigendecomposition.

    Returns ``(z, steps)``, or None when ``M_FF`` is (numerically) singular, the method
    cycles (``max_steps``) or its flop estimate passes ``budget``: the caller falls back
    to the ALM.
    """
    d = s.size
    max_steps = 4 * d + 50 if max_steps is None else max_steps
    z = z0.copy()
    F = np.flatnonzero(z > 0)
    diagM = np.diag(M)

    def factor(F):
        try:
            L = scipy.linalg.cholesky(M[np.ix_(F, F)], lower=True, check_finite=False)
        except scipy.linalg.LinAlgError:
            return None
        dg = np.diag(L)
        return L if dg.min() ** 2 > 1e-10 * diagM[F].max() else None

    L = factor(F)
    if L is None:
        return None
    cost = F.size**3 / 3.0
    steps = 0
    at_min = False
    while steps < max_steps and cost <= budget:
        k = F.size
        if not at_min:
            steps += 1
            # equality-constrained minimum on F: z_F = (lam M^-1 s_F + nu M^-1 1) / 2, 1'z_F = 1
            X2 = scipy.linalg.cho_solve((L, True), np.column_stack([s[F], np.ones(k)]), check_finite=False)
            nu = (2.0 - lam * X2[:, 0].sum()) / X2[:, 1].sum()
            zF = 0.5 * (lam * X2[:, 0] + nu * X2[:, 1])
            cost += 2.0 * k * k
            if not np.all(np.isfinite(zF)):
                return None
            zc = z[F]
            neg = np.flatnonzero(zF < 0)
            if neg.size:  # blocked: step to the first weight that reaches 0, free it
                ratio = zc[neg] / (zc[neg] - zF[neg])
                q = neg[np.argmin(ratio)]
                a = float(ratio.min())
                z[F] = zc + a * (zF - zc)
                z[F[q]] = 0.0
                F = np.delete(F, q)
                if F.size == 0:
                    return None
                z[F] = np.maximum(z[F], 0.0)
                L = factor(F)
                if L is None:
                    return None
                cost += F.size**3 / 3.0
                continue
            z[F] = zF
            at_min = True
        g = 2.0 * (z[F] @ M[F]) - lam * s
        cost += 2.0 * d * k
        red = g - nu
        red[F] = np.inf
        j = int(np.argmin(red))
        if red[j] >= -tol * max(float(np.abs(g).max()), 1e-300):
            return z, steps
        # feature j enters: extend the Cholesky factor of M_FF by one row
        col = M[F, j]
        row = scipy.linalg.solve_triangular(L, col, lower=True, check_finite=False)
        djj = diagM[j] - row @ row
        if not djj > 1e-10 * max(diagM[j], 1e-300):
            return None
        L2 = np.zeros((k + 1, k + 1))
        L2[:k, :k] = L
        L2[k, :k] = row
        L2[k, k] = np.sqrt(djj)
        L = L2
        F = np.append(F, j)
        cost += k * k
        at_min = False
    return None


class GRM(SelectorMixin, BaseEstimator):
    """Global Redundancy Minimization: refine a feature score so top features are not redundant.

    Parameters
    ----------
    n_top : int, default=1000
        Largest size of the working set: the ``n_top`` best features among those with a
        positive input score (Algorithm 3's remark: GRM only needs the head of the
        ranking). Fewer when fewer features have a positive score.
    prior_groups : list of list of int, default=None
        Prior knowledge (section 2.4): each inner list holds original feature indices
        that belong together (any size, groups may overlap). Members outside the
        working set are ignored.
    gamma : float, default=1.0
        Weight of the group term ``gamma * ||Gz||^2`` (eq. 25).
    n_features : int or None, default=20
        Number of features selected by :meth:`get_support` (``None``: all).
    threshold : float or None, default=None
        If set, select features with refined score ``>= threshold`` instead.
    rho : float, default=1.5
        Growth of the ALM penalty ``mu`` per inner iteration (``1 < rho < 2``).
    mu0 : float or None, default=None
        Penalty scale: each inner loop starts at ``mu0 / 10`` and grows by ``rho`` up
        to ``10 * mu0``, where the iteration becomes ADMM with a fixed penalty and
        converges to the exact minimiser (an unbounded ``mu`` would freeze ``z``
        early). ``None`` uses the mean eigenvalue of ``M`` (= trace / d).
    tol : float, default=1e-7
        Outer stop: relative change of ``lambda``. Inner (ALM) stop: the max-norm of
        the constraint residual ``z - v`` and of the change of ``z``, both relative
        to ``max(z)``.
    max_iter : int, default=50
        Maximum outer (lambda) iterations.
    max_inner : int, default=2000
        Maximum ALM iterations per outer iteration.
    solver : {"auto", "alm"}, default="auto"
        How each inner problem ``min z'Mz - lambda s'z`` on the simplex is solved.
        ``"auto"``: an exact primal active-set method (no eigendecomposition), warm
        started from the previous outer iterate; should it meet a singular ``M_SS``,
        cycle, or outgrow its cost budget (a support of many hundred features), GRM
        switches to the ALM of Algorithm 2 for the remaining outer iterations.
        ``"alm"``: Algorithm 2 throughout. Both stop at the same KKT point.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features_in_,)
        Refined scores ``z`` on the simplex for the working set (they sum to 1);
        features outside the working set (including every feature whose input score
        is ``<= 0``) get 0.
    ranking_ : ndarray of shape (n_features_in_,)
        1 = best. Ordered by ``z`` (descending). The exact minimiser is sparse, so
        many working-set features have ``z = 0``: they are ordered by their reduced
        cost ``g_i - nu`` (``g = 2Mz - lambda s``, ``nu`` its value on the support,
        the KKT multiplier), i.e. by how much each would raise the objective -- a
        feature redundant with the selected ones or far from its prior-group partners
        comes late -- then by the input score. Features outside the working set rank
        after all working-set features, in input-score order (ties by feature name, or by
        index without names).
    top_ : ndarray of shape (min(n_top, n_positive),)
        The working set (original indices), best input score first: the ``n_top``
        best features among the ``n_positive`` with an input score ``> 0``.
    selected_ : ndarray
        Indices of the selected features, best first.
    lambda_history_ : list of float
        ``lambda = z'Mz / z's`` at the start of every outer iteration (Alg. 2).
    objective_history_ : list of float
        Objective (1) (or 26 with prior groups) after every outer iteration.
    inner_iterations_ : list of int
        Inner iterations of every outer iteration: active-set steps (one linear solve
        each) or ALM iterations.
    solver_ : list of str
        ``"active-set"`` or ``"alm"``: the inner solver of every outer iteration.
    n_iter_ : int
        Number of outer iterations.
    kkt_violation_ : float
        KKT residual of the last inner problem (spread of ``g`` on the support plus
        any ``g_i < nu`` off it), relative to ``max |g|``; ~0 at the exact minimiser.
    n_prior_pairs_ : int
        Distinct same-group pairs inside the working set.
    n_features_in_ : int
    feature_names_in_ : ndarray

    Notes
    -----
    Zero and negative scores. The input score must be finite, with higher = better.
    A feature whose score is ``<= 0`` carries no evidence and never enters the
    working set: it gets ``z = 0`` and ranks after every working-set feature (among
    themselves such features keep their input-score order, ties by feature name, or by
    index without names). Without
    this rule a feature with no evidence but no redundancy either -- a constant pixel,
    say, whose ``A`` row is ``e_i`` -- lowers ``z'Mz / z's`` when it takes weight from
    a redundant support, so GRM would lift it into the top. Scores are never shifted:
    problem (1) is invariant to a positive rescaling of ``s``, not to a shift, so a
    negative score counts exactly like 0 (same working set, same ``z``). At least one
    score must be positive (``ValueError`` otherwise); a single positive feature is
    the whole working set and gets ``z = 1``. A non-finite score is a ``ValueError``
    naming the feature. For a score where lower is better, pass e.g. ``1 / score``
    (see each fsviz scorer's Notes for the form it returns).

    Cost: ``A`` takes one ``n x d x d`` product. The active-set solver then costs
    ``O(|S|^2 + d |S|)`` per step for a support of ``|S|`` features (at n_top = 2,000:
    0.02-0.15x one ``d x d`` eigendecomposition on arcene, GLIOMA and ALLAML); the ALM
    pays one ``d x d`` eigendecomposition, then one dense and one sparse matrix-vector
    product per iteration (``z`` is sparse after the projection).

    References
    ----------
    Wang, Nie & Huang (2015), "Feature Selection via Global Redundancy Minimization",
    IEEE TKDE 27(10): problem (1), ALM Alg. 2, simplex projection eq. (22)-(24),
    prior groups eq. (25)-(26) and Alg. 4.

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import GRM, FisherScore
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((60, 30)); y = (X[:, 0] > 0).astype(int)
    >>> s = FisherScore().fit(X, y).scores_
    >>> grm = GRM(n_top=20, n_features=5).fit(X, s)
    >>> grm.selected_.shape
    (5,)
    """

    _parameter_constraints: dict = {
        "n_top": [Interval(Integral, 1, None, closed="left")],
        "prior_groups": ["array-like", None],
        "gamma": [Interval(Real, 0.0, None, closed="left")],
        "n_features": [Interval(Integral, 1, None, closed="left"), None],
        "threshold": [Interval(Real, None, None, closed="neither"), None],
        "rho": [Interval(Real, 1.0, 2.0, closed="neither")],
        "mu0": [Interval(Real, 0.0, None, closed="neither"), None],
        "tol": [Interval(Real, 0.0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "max_inner": [Interval(Integral, 1, None, closed="left")],
        "solver": [StrOptions({"auto", "alm"})],
    }
    _parameter_ui: dict = {
        "n_top": ParamUI("Working set n_top (top features of the base score GRM re-ranks)"),
        "prior_groups": ParamUI(
            "Prior groups", "Features known to belong together (eq. 25-26).", groups=True
        ),
        "gamma": ParamUI("gamma (weight of prior groups)", step=0.1, practical=(0.0, 10.0)),
    }

    def __init__(
        self,
        *,
        n_top=1000,
        prior_groups=None,
        gamma=1.0,
        n_features=20,
        threshold=None,
        rho=1.5,
        mu0=None,
        tol=1e-7,
        max_iter=50,
        max_inner=2000,
        solver="auto",
    ):
        self.n_top = n_top
        self.prior_groups = prior_groups
        self.gamma = gamma
        self.n_features = n_features
        self.threshold = threshold
        self.rho = rho
        self.mu0 = mu0
        self.tol = tol
        self.max_iter = max_iter
        self.max_inner = max_inner
        self.solver = solver

    # ------------------------------------------------------------------ checks
    def _check_params(self, m: int) -> None:
        self._validate_params()  # the declaration above, scikit-learn's own check
        if self.prior_groups is not None:
            try:
                groups = [np.asarray(g).ravel() for g in self.prior_groups]
            except TypeError:
                raise ValueError(
                    "GRM: 'prior_groups' must be a list of lists of feature indices; "
                    f"got {type(self.prior_groups).__name__}."
                ) from None
            for i, g in enumerate(groups):
                if g.size and (not np.issubdtype(g.dtype, np.integer) or g.min() < 0 or g.max() >= m):
                    raise ValueError(
                        f"GRM: 'prior_groups[{i}]' must hold integer feature indices in [0, {m - 1}]; "
                        f"got {g.tolist()[:10]!r}. Map feature names to column positions first."
                    )

    # --------------------------------------------------------------------- fit
    def fit(self, X, scores):
        """Refine ``scores`` by solving problem (1) (or (26) with prior groups).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data the redundancy matrix ``A`` is computed from.
        scores : array-like of shape (n_features,)
            Input score, finite, higher = better (e.g. any fsviz scorer's
            ``scores_``). Features with a score ``<= 0`` stay out of the working set
            (see Notes); at least one score must be positive.

        Returns
        -------
        self
        """
        X = scale_extreme(
            validate_data(self, X, accept_sparse=("csr", "csc"), dtype=np.float64, ensure_min_samples=2)
        )
        m = X.shape[1]
        self._check_params(m)
        if scores is None:
            raise ValueError("GRM: fit(X, scores) needs the input feature scores; got scores=None.")
        s_all = check_array(
            scores, ensure_2d=False, dtype=np.float64, ensure_all_finite=False, input_name="scores"
        ).ravel()
        if s_all.shape[0] != m:
            raise ValueError(
                f"GRM: 'scores' must hold one score per feature (length {m}); got length {s_all.shape[0]}. "
                "Pass a scorer's scores_, not the class labels."
            )
        bad = np.flatnonzero(~np.isfinite(s_all))
        if bad.size:
            j = int(bad[0])
            name = f" ({self.feature_names_in_[j]!r})" if hasattr(self, "feature_names_in_") else ""
            raise ValueError(
                f"GRM: 'scores' must be finite; feature {j}{name} has score {float(s_all[j])!r}"
                + (f" ({bad.size} non-finite in all)" if bad.size > 1 else "")
                + ". Give a feature without evidence the score 0: it then stays out of the working set."
            )
        n_pos = int(np.count_nonzero(s_all > 0))
        if n_pos == 0:
            raise ValueError(
                "GRM: 'scores' must be positive for at least one feature (features with a score <= 0 "
                f"carry no evidence and never enter the working set); got maximum {s_all.max():.4g}. "
                "Pass a score where higher = better and positive means evidence, e.g. an fsviz scorer's "
                "scores_ or 1 / score for a lower-is-better score; do not shift scores (GRM is not "
                "shift-invariant)."
            )
        # the working set: the n_top best among the features with a positive score (those come
        # first in the descending order); the others get z = 0 and rank after all of them
        d = min(int(self.n_top), n_pos)
        # ties by feature name, and the working set in that order: with equal scores (duplicated
        # columns) the solver's answer then depends on the names, not on the column order
        names = name_order(m, getattr(self, "feature_names_in_", None))
        top = np.lexsort((names, -s_all))[:d]
        s = s_all[top]
        s_scaled = s / s.max()  # GRM is invariant to rescaling s; this keeps the numbers O(1)

        Xt = X.tocsc()[:, top] if sp.issparse(X) else X[:, top]
        # one BLAS thread throughout: a LAPACK eigendecomposition (and OpenBLAS's products) round
        # differently on one thread than on two, and a result must not depend on the machine
        with blas_limits(always=True):
            M = squared_cosine_matrix(Xt)
            positions = np.full(m, -1, dtype=np.int64)
            positions[top] = np.arange(d)
            self.n_prior_pairs_ = 0
            if self.prior_groups is not None and self.gamma > 0:
                L, self.n_prior_pairs_ = group_laplacian(self.prior_groups, positions, d)
                M += self.gamma * L
            z, reduced = self._solve(M, s_scaled)

        scores_out = np.zeros(m)
        scores_out[top] = z
        # order: z descending; the working-set features with z = 0 by their reduced cost
        # (how much objective each would cost per unit of weight: redundant ones last);
        # then the input score; features outside the working set after all of them.
        key = np.full(m, -1.0)
        key[top] = z
        cost = np.full(m, np.inf)
        cost[top] = reduced
        order = np.lexsort((names, -s_all, cost, -key))
        self.scores_ = scores_out
        self.ranking_ = np.empty(m, dtype=np.int64)
        self.ranking_[order] = np.arange(1, m + 1)
        self.top_ = top
        self.selected_ = np.argsort(self.ranking_)[: int(self._get_support_mask().sum())]
        return self

    def _solve(self, M: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Dinkelbach outer loop (Alg. 2) with an exact inner solver; ``(z, reduced costs)``."""
        d = s.size
        tol = float(self.tol)
        self.lambda_history_, self.objective_history_ = [], []
        self.inner_iterations_, self.solver_ = [], []
        alm = None  # eigendecomposition + ALM multipliers, built only when the ALM runs
        if self.solver == "alm":
            alm = self._alm_setup(M, s)
        z = np.full(d, 1.0 / d)
        with blas_limits():
            if alm is not None:  # as Alg. 2 always did: z'Mz through the eigenbasis
                c = self._qt(alm.Q, z)
                lam = float(c @ (alm.evals * c)) / float(z @ s)
            else:
                lam = float(z @ (M @ z)) / float(z @ s)
        converged = False
        # the inner problems are small products and solves: one BLAS thread avoids sync overhead
        with blas_limits(always=True):
            for _ in range(int(self.max_iter)):
                self.lambda_history_.append(lam)
                res = None
                if alm is None:
                    if not self.lambda_history_[:-1]:
                        # first inner problem: start from its best vertex, not the dense uniform z
                        z = np.zeros(d)
                        z[int(np.argmin(np.diag(M) - lam * s))] = 1.0
                    # budget: about one eigendecomposition (what the ALM would pay up front)
                    res = _active_set_qp(M, s, lam, z, tol, budget=2.0 * float(d) ** 3 + 1e7)
                    if res is None:  # singular M_SS, cycling or too large a support: ALM from here
                        with blas_limits():
                            alm = self._alm_setup(M, s)
                if res is not None:
                    z, steps = res
                    self.solver_.append("active-set")
                else:
                    z, steps = self._alm_inner(alm, M, s, lam, z, tol)
                    self.solver_.append("alm")
                self.inner_iterations_.append(steps)
                S = np.flatnonzero(z)
                zs = z[S]
                lam_new = float(zs @ M[np.ix_(S, S)] @ zs) / float(zs @ s[S])
                self.objective_history_.append(lam_new)
                if abs(lam_new - lam) <= tol * abs(lam):
                    lam = lam_new
                    converged = True
                    break
                lam = lam_new
            self.n_iter_ = len(self.lambda_history_)
            self.converged_ = converged
            if not converged:
                warnings.warn(
                    f"GRM: lambda did not converge within max_iter={self.max_iter} outer iterations "
                    f"(last change {abs(self.lambda_history_[-1] - lam):.3g}); increase max_iter or tol.",
                    ConvergenceWarning,
                    stacklevel=3,
                )
            # KKT of min z'Mz - lam s'z on the simplex: g = 2Mz - lam s equals nu on the support and
            # is >= nu off it; g - nu is the reduced cost of bringing a zero feature in
            S = np.flatnonzero(z)
            g = 2.0 * (z[S] @ M[S]) - lam * s
        support = z > 0
        reduced = np.maximum(g - g[support].mean(), 0.0)
        reduced[support] = 0.0
        self.kkt_violation_ = float(
            max(np.ptp(g[support]), max(0.0, -float((g - g[support].mean()).min())))
            / max(float(np.abs(g).max()), 1e-300)
        )
        return z, reduced

    def _alm_setup(self, M: np.ndarray, s: np.ndarray) -> _ALMState:
        """Eigendecomposition of ``M`` and zero multipliers: what the ALM (Alg. 2) iterates on."""
        evals, Q = np.linalg.eigh(M)
        evals = np.clip(evals, 0.0, None)  # M is PSD (Lemma 2.1); drop rounding negatives
        Q = np.ascontiguousarray(Q)
        mu0 = float(self.mu0) if self.mu0 is not None else max(float(evals.mean()), 1e-3)
        return _ALMState(Q, evals, s @ Q, mu0, np.zeros(s.size), np.zeros(s.size))

    @staticmethod
    def _polish(
        M: np.ndarray, s: np.ndarray, lam: float, support: np.ndarray, tol: float, max_steps: int = 10
    ):
        """Exact minimiser of ``z'Mz - lam s'z`` on the simplex from a guessed support, or None.

        A primal-dual active-set refinement: solve the KKT system
        ``2 M_SS z_S - lam s_S = nu 1, 1'z_S = 1`` on the support ``S``, drop the
        coordinates with ``z_S < 0``, add those off ``S`` with ``g_i < nu``
        (``g = 2Mz - lam s``) and repeat; accept once both sets are empty, i.e. the
        KKT conditions hold.
        """
        d = s.size
        S = np.asarray(support)
        for _ in range(max_steps):
            k = S.size
            if k == 0:
                return None
            MS = M[S]  # rows of the symmetric M: contiguous, = M[:, S].T
            K = np.zeros((k + 1, k + 1))
            K[:k, :k] = 2.0 * MS[:, S]
            K[:k, k] = -1.0
            K[k, :k] = 1.0
            rhs = np.r_[lam * s[S], 1.0]
            try:
                sol = np.linalg.solve(K, rhs)
            except np.linalg.LinAlgError:  # singular M_SS (e.g. duplicated features)
                sol = np.linalg.lstsq(K, rhs, rcond=None)[0]
            if not np.all(np.isfinite(sol)):
                return None
            zs, nu = sol[:k], sol[k]
            g = 2.0 * (zs @ MS) - lam * s
            thr = tol * max(float(np.abs(g).max()), 1e-300)
            off = np.ones(d, dtype=bool)
            off[S] = False
            add = np.flatnonzero(off & (g - nu < -thr))
            drop = zs < 0
            if add.size == 0 and not drop.any():
                z = np.zeros(d)
                z[S] = zs
                return z
            S = np.union1d(S[~drop], add)
        return None

    def _alm_inner(self, alm: _ALMState, M, s, lam: float, z: np.ndarray, tol: float):
        """One inner problem by the ALM of Alg. 2 (multipliers warm-started across calls)."""
        Q, evals, Qts, alpha, Qta = alm.Q, alm.evals, alm.Qts, alm.alpha, alm.Qta
        mu0 = alm.mu0
        mu_max = 10.0 * mu0
        # Alg. 2: (re)initialise mu; alpha is warm-started from the previous lambda
        mu = mu0 / 10.0
        Qtz = self._qt(Q, z)
        last_support = np.flatnonzero(z)
        it = 0
        for it in range(1, int(self.max_inner) + 1):
            # eq. (8): v = (M + mu/2 I)^{-1} (lam/2 s + mu/2 z + alpha/2)
            c = (0.5 * lam * Qts + 0.5 * mu * Qtz + 0.5 * Qta) / (evals + 0.5 * mu)
            v = Q @ c
            # eq. (9)-(10), (22): z = P_simplex(v - alpha/mu)
            z_new = _simplex_project_kernel(v - alpha / mu)[0]
            Qtz = self._qt(Q, z_new)
            r = z_new - v
            alpha += mu * r
            Qta += mu * (Qtz - c)
            scale = z_new.max()
            rp = np.abs(r).max()
            dz = np.abs(z_new - z).max()
            done = rp <= tol * scale and dz <= tol * scale
            z = z_new
            if done:
                break
            # active-set polish every 10 iterations: from the current support, solve the
            # KKT system exactly; accepted only if it satisfies every KKT condition
            if it % 10 == 0:
                support = np.flatnonzero(z)
                # only once the support has nearly settled (a KKT solve costs O(|S|^3))
                moved = np.setxor1d(support, last_support, assume_unique=True).size
                last_support = support
                if moved <= max(5, support.size // 10) or support.size <= 300:
                    zp = self._polish(M, s, lam, support, tol)
                    if zp is not None:
                        z = zp
                        break
            # mu grows by rho (Alg. 2, step 4) up to mu_max, where the iteration is ADMM with a
            # fixed penalty and keeps converging instead of freezing z
            mu = min(mu * self.rho, mu_max)
        return z, it

    @staticmethod
    def _qt(Q: np.ndarray, z: np.ndarray) -> np.ndarray:
        """``Q'z``, using only the rows of ``Q`` where the (projected, sparse) ``z`` is non-zero."""
        nz = np.flatnonzero(z)
        if nz.size * 3 > z.size:
            return z @ Q
        return z[nz] @ Q[nz, :]

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "scores_")
        return support_mask(self.scores_, self.ranking_, self.n_features, self.threshold)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.required = True
        return tags
