"""The l2,1 problems of the sparse-learning selectors (:mod:`.sparse_learning`) and their solvers:
FISTA with backtracking (LSL21, LLL21), block coordinate descent with Anderson extrapolation
(LSL21 on dense data), iterative reweighting (RFS), the reweighted eigenproblem (UDFS) and
NDFS's alternating updates; the helpers they share (row norms, the l2,1 prox, one-hot targets,
implicitly centred ``X``).
"""

from __future__ import annotations

import warnings
from numbers import Real

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from sklearn.cluster import KMeans
from sklearn.utils._param_validation import Interval

from fsviz._params import check_data_bound
from fsviz.select import _sparse_learning_kernels as _SLK
from fsviz.select._base import blas_limits
from fsviz.select._graph import NEIGHBOURS
from fsviz.stats.moments import column_moments

_EPS = 1e-12  # floor of the row norms whose inverse weights a reweighted problem
POSITIVE = Interval(Real, 0.0, None, closed="neither")  # a weight that must not vanish
NON_NEGATIVE = Interval(Real, 0.0, None, closed="left")  # a weight that may switch its term off


# ------------------------------------------------------------------ helpers
def row_norms(W: np.ndarray) -> np.ndarray:
    return np.sqrt(np.einsum("ij,ij->i", W, W))


def l21_norm(W) -> float:
    """``||W||_2,1``: the sum of the Euclidean norms of the rows of ``W``."""
    return float(row_norms(np.asarray(W, dtype=np.float64)).sum())


def prox_l21(V: np.ndarray, threshold: float) -> np.ndarray:
    """Exact proximal operator of ``threshold * ||.||_2,1``: each row shrunk towards 0 by ``threshold``.

    ``argmin_W 1/2 ||W - V||_F^2 + threshold ||W||_2,1`` has the closed form
    ``W(j, :) = max(0, 1 - threshold / ||V(j, :)||) V(j, :)`` (Liu, Ji & Ye 2009, eq. 9).
    """
    norms = row_norms(V)
    scale = np.zeros_like(norms)
    np.divide(threshold, norms, out=scale, where=norms > 0)
    scale = np.maximum(0.0, 1.0 - scale)
    return V * scale[:, None]


def one_hot(y) -> np.ndarray:
    _, codes = np.unique(np.asarray(y), return_inverse=True)
    Y = np.zeros((codes.size, int(codes.max()) + 1))
    Y[np.arange(codes.size), codes.ravel()] = 1.0
    return Y


class _Centred:
    """``X - 1 mu'`` as an operator (dense: centred copy; sparse: implicit, never densified)."""

    def __init__(self, X, centre: bool):
        self.sparse = sp.issparse(X)
        n, d = X.shape
        self.shape = (n, d)
        mu = np.asarray(X.mean(axis=0)).ravel() if centre else np.zeros(d)
        if self.sparse:
            self.X, self.mu = X.tocsr(), mu
        else:
            self.X, self.mu = (X - mu if centre else np.asarray(X)), np.zeros(d)
        self.mean = mu

    def dot(self, W: np.ndarray) -> np.ndarray:
        out = np.asarray(self.X @ W)
        if self.sparse:
            out = out - self.mu @ W
        return out

    def tdot(self, R: np.ndarray) -> np.ndarray:
        out = np.asarray(self.X.T @ R)
        if self.sparse:
            out = out - np.outer(self.mu, R.sum(axis=0))
        return out

    def sq_norm2(self) -> float:
        """Largest squared singular value of the centred matrix."""
        n, d = self.shape
        if min(n, d) == 0:
            return 0.0
        if min(n, d) <= 300:  # largest eigenvalue of the smaller Gram matrix (never densifies X)
            A, mu = self.X, self.mu
            if n <= d:  # Xc Xc' = X X' - (X mu) 1' - 1 (X mu)' + (mu'mu) 11'
                G = A @ A.T
                G = G.toarray() if sp.issparse(G) else np.asarray(G)
                if self.sparse:
                    Xm = np.asarray(A @ mu).ravel()
                    G = G - Xm[:, None] - Xm[None, :] + float(mu @ mu)
            else:  # Xc'Xc = X'X - n mu mu'
                G = A.T @ A
                G = G.toarray() if sp.issparse(G) else np.asarray(G)
                if self.sparse:
                    G = G - n * np.outer(mu, mu)
            G = (G + G.T) / 2.0
            return float(sla.eigvalsh(G, subset_by_index=[G.shape[0] - 1, G.shape[0] - 1])[0]) * (1.0 + 1e-10)
        op = spla.LinearOperator(
            (n, d),
            matvec=lambda v: self.dot(v.reshape(-1, 1)).ravel(),
            rmatvec=lambda v: self.tdot(v.reshape(-1, 1)).ravel(),
            dtype=np.float64,
        )
        v0 = np.full(min(n, d), 1.0 / np.sqrt(min(n, d)))
        s = spla.svds(op, k=1, return_singular_vectors=False, tol=1e-6, v0=v0)
        return float(s[0]) ** 2 * (1.0 + 1e-5)  # svds at tol 1e-6: a safe step size


def warn_zero(owner: str, W: np.ndarray, what: str) -> None:
    if not np.any(W):
        warnings.warn(
            f"{owner}: every row of W is zero ({what}); all scores are 0 and the ranking is the "
            "feature order. Use a smaller regularisation.",
            UserWarning,
            stacklevel=4,
        )


# ------------------------------------------------------------------ LSL21 / LLL21 (FISTA)
def _fista(apply, adjoint, loss, penalty, prox, V0, L, max_iter, tol, stop, adaptive=False):
    """Monotone FISTA (Beck & Teboulle 2009, MFISTA) with step ``1/L`` and adaptive restart.

    The smooth part is ``loss(apply(V))`` with ``apply`` linear (``V -> Xc W + 1 b'``):
    ``loss(Z) -> (value, dvalue/dZ)``, ``adjoint`` maps ``dvalue/dZ`` back to a gradient in ``V``.
    Images ``apply(V)`` are carried along linearly, so an iteration costs one product with ``X``
    and one with ``X'``. A step whose objective would rise is not taken; the momentum restarts
    from the current point instead (function-value restart, O'Donoghue & Candes 2015), which keeps
    the objective history non-increasing and removes FISTA's oscillations on ill-conditioned
    ``X``. ``stop(V, image, dloss) -> float`` (duality gap or KKT residual, relative) is checked
    every 5 iterations against ``tol``. Returns ``V``, the history and the number of iterations.

    ``adaptive``: ``L`` is then only an upper bound (the global Lipschitz constant); each step
    first tries ``L_k = 0.8 L_{k-1}`` and doubles it (capped at ``L``) until the sufficient
    decrease ``f(U) <= f(Z) + <grad f(Z), U - Z> + L_k/2 ||U - Z||^2`` holds (backtracking that
    can also decrease, Scheinberg, Goldfarb & Bai 2014). Where the local curvature is below the
    global bound (the softmax Hessian is far below ``I/2`` once the classes are fitted) the steps
    are longer; every accepted step still satisfies the descent lemma.
    """
    V, AV = V0, apply(V0)
    f_V, g_V = loss(AV)
    F_V = f_V + penalty(V)
    Z, AZ = V, AV
    t = 1.0
    history = []
    it = 0
    L_k = L
    for it in range(1, max_iter + 1):
        f_Z, g_Z = loss(AZ)
        grad = adjoint(g_Z)
        if adaptive:
            L_k = 0.8 * L_k
            while True:
                U = prox(Z - grad / L_k, 1.0 / L_k)
                AU = apply(U)
                f_U, g_U = loss(AU)
                D = U - Z
                if L_k >= L or f_U <= f_Z + float(np.sum(grad * D)) + 0.5 * L_k * float(np.sum(D * D)):
                    break
                L_k = min(2.0 * L_k, L)
        else:
            U = prox(Z - grad / L, 1.0 / L)
            AU = apply(U)
            f_U, g_U = loss(AU)
        F_U = f_U + penalty(U)
        if F_U <= F_V:
            t_new = (1.0 + np.sqrt(1.0 + 4.0 * t * t)) / 2.0
            beta = (t - 1.0) / t_new
            Z, AZ = U + beta * (U - V), AU + beta * (AU - AV)
            V, AV, F_V, g_V, t = U, AU, F_U, g_U, t_new
        else:  # the momentum overshot: keep V, restart from it
            Z, AZ, t = V, AV, 1.0
        history.append(F_V)
        if (it % 5 == 0 or it == max_iter) and stop(V, AV, g_V) <= tol:
            break
    return V, np.asarray(history), it


def alpha_max(X, Y, centre: bool = True) -> float:
    """``||Xc'(Y - mean Y)||_2,inf / n``: the smallest ``alpha`` at which LSL21 (and, with
    ``centre``, LLL21) give ``W = 0`` (``X``, ``Y`` uncentred when not ``centre``)."""
    A = _Centred(X, centre)
    R = Y - Y.mean(axis=0) if centre else Y
    return float(row_norms(A.tdot(R)).max()) / A.shape[0] if A.shape[1] else 0.0


def lsl21_solve(X, Y, alpha: float, *, fit_intercept: bool = True, max_iter: int = 1000, tol: float = 1e-4):
    """Solve ``min_W 1/(2n) ||Yc - Xc W||_F^2 + alpha ||W||_2,1``: BCD (dense X), FISTA (sparse).

    ``Xc``, ``Yc`` are centred when ``fit_intercept`` (the intercept is then
    ``mean(Y) - mean(X) W``). Stops when the duality gap is ``<= tol * P(0)``: the dual point
    is the scaled residual ``Theta = s R / n`` with ``s`` making ``||Xc' Theta||_2,inf <= alpha``,
    ``D(Theta) = <Theta, Yc> - n/2 ||Theta||^2`` (Liu, Ji & Ye 2009; the survey's eq. in 2.3.2
    with the 1/(2n) scaling of scikit-learn's ``MultiTaskLasso``).

    Returns
    -------
    W : ndarray of shape (n_features, n_targets)
    intercept : ndarray of shape (n_targets,)
    history : ndarray, objective after each iteration (non-increasing)
    n_iter : int
    gap : float, the last duality gap
    """
    A = _Centred(X, fit_intercept)
    n, d = A.shape
    Yc = Y - Y.mean(axis=0) if fit_intercept else Y
    P0 = 0.5 * float(np.sum(Yc * Yc)) / n
    state = {"gap": np.inf, "dual": -np.inf}

    def loss(Z):
        R = Z - Yc
        return 0.5 * float(np.sum(R * R)) / n, R / n

    def penalty(W):
        return alpha * l21_norm(W)

    def gap(W, XW, G):  # G = (XW - Yc) / n = -Theta before scaling
        XtG = A.tdot(G)
        top = float(row_norms(XtG).max()) if d else 0.0
        s = 1.0 if top <= alpha else alpha / top
        theta = -s * G
        R = XW - Yc
        primal = 0.5 * float(np.sum(R * R)) / n + alpha * l21_norm(W)
        dual = float(np.sum(theta * Yc)) - 0.5 * n * float(np.sum(theta * theta))
        state["dual"] = dual = max(dual, state["dual"])  # every feasible Theta bounds: keep the best
        state["gap"] = max(primal - dual, 0.0)
        return state["gap"] / max(P0, np.finfo(float).tiny)

    W0 = np.zeros((d, Y.shape[1]))
    zero_b = np.zeros(Y.shape[1])
    if P0 == 0 or d == 0:
        return W0, Y.mean(axis=0) if fit_intercept else zero_b, np.array([P0]), 0, 0.0
    # FISTA (sparse X: products only) needs the Lipschitz constant; dense X: BCD needs none
    with blas_limits():
        L = A.sq_norm2() / n if A.sparse else float(np.max(np.einsum("ij,ij->j", A.X, A.X)))
    if L <= 0:  # constant X: W = 0 is optimal
        return W0, Y.mean(axis=0) if fit_intercept else zero_b, np.array([P0]), 0, 0.0
    with blas_limits():
        if A.sparse:
            W, history, it = _fista(
                A.dot, A.tdot, loss, penalty, prox_l21_scaled(alpha), W0, L, max_iter, tol, gap
            )
        else:
            W, history, it = _lsl21_bcd(A.X, Yc, alpha, max_iter, tol, gap)
        gap(W, A.dot(W), (A.dot(W) - Yc) / n)
    intercept = Y.mean(axis=0) - A.mean @ W if fit_intercept else zero_b
    return W, intercept, history, it, state["gap"]


def _lsl21_bcd(X: np.ndarray, Yc: np.ndarray, alpha: float, max_iter: int, tol: float, gap):
    """Dense LSL21 by cyclic block coordinate descent over the rows of ``W`` (numba kernel).

    Each sweep sets every row it visits to its exact minimiser with the others fixed
    (:func:`~fsviz.select._sparse_learning_kernels.l21_bcd_epoch`; the method of scikit-learn's
    ``MultiTaskLasso``), so the objective never increases. Active-set strategy (as glmnet): a
    sweep over all rows, then sweeps over the non-zero rows only until they move by ``<= tol``
    relative (or ``_FULL_EVERY`` sweeps have passed), then a full sweep again. Every
    ``_ANDERSON`` sweeps the last iterates are combined by Anderson extrapolation (Bertrand &
    Massias 2021, "Anderson acceleration of coordinate descent", AISTATS), kept only when it
    lowers the objective. The duality gap ``gap(W, XW, G)`` is evaluated after every full sweep
    against ``tol`` (the stop of the FISTA path), so the answer is the same ``tol``-accurate
    minimiser. ``max_iter`` bounds the sweeps of either kind. O(n c) per row visited, no Python
    loop over features.
    """
    n, d = X.shape
    Xf = np.asfortranarray(X, dtype=np.float64)
    col_sq = np.einsum("ij,ij->j", Xf, Xf)
    every = np.flatnonzero(col_sq > 0).astype(np.int64)
    W = np.zeros((d, Yc.shape[1]))
    RT = np.ascontiguousarray(Yc.T, dtype=np.float64)  # R' = (Yc - XW)', samples contiguous
    R = RT.T
    threshold = alpha * n

    def objective():
        return 0.5 * float(np.sum(R * R)) / n + alpha * l21_norm(W)

    history: list[float] = []
    iterates: list[np.ndarray] = []
    active = every
    full = True
    it = 0
    while it < max_iter:
        it += 1
        moved = _SLK.l21_bcd_epoch(Xf.T, RT, W, col_sq, threshold, every if full else active)
        history.append(objective())
        iterates.append(W.ravel().copy())
        if len(iterates) == _ANDERSON + 1:
            Wa = _anderson(np.asarray(iterates)).reshape(W.shape)
            nz = np.flatnonzero(np.any(Wa != 0, axis=1))
            Ra = Yc - Xf[:, nz] @ Wa[nz]
            trial = 0.5 * float(np.sum(Ra * Ra)) / n + alpha * l21_norm(Wa)
            if trial < history[-1]:  # kept only when it lowers the objective
                W[:], RT[:] = Wa, Ra.T
                history[-1] = trial
            iterates = [W.ravel().copy()]
        if full:
            if gap(W, Yc - R, -R / n) <= tol:
                break
            active = np.flatnonzero(np.any(W != 0, axis=1)).astype(np.int64)
            full = active.size == 0
        else:  # all rows again when the active set has converged, and every _FULL_EVERY sweeps
            full = moved <= tol * float(np.abs(W).max()) or it % _FULL_EVERY == 0
    return W, np.asarray(history), it


_FULL_EVERY = 10  # a sweep over all rows (and a duality-gap check) every this many sweeps
_ANDERSON = 5  # sweeps between two Anderson extrapolations


def _anderson(iterates: np.ndarray) -> np.ndarray:
    """Anderson extrapolation of ``K + 1`` iterates (rows): ``sum_k c_k w_k`` with ``c`` minimising
    ``||sum_k c_k (w_k - w_{k-1})||`` under ``sum c = 1`` (Bertrand & Massias 2021, eq. 4)."""
    U = np.diff(iterates, axis=0)
    C = U @ U.T
    C[np.diag_indices_from(C)] += 1e-12 * max(float(np.trace(C)), np.finfo(float).tiny)
    try:
        z = np.linalg.solve(C, np.ones(C.shape[0]))
    except np.linalg.LinAlgError:
        return iterates[-1]
    if not np.all(np.isfinite(z)) or z.sum() == 0:
        return iterates[-1]
    return (z / z.sum()) @ iterates[1:]


def prox_l21_scaled(alpha: float):
    """``V, step -> prox_l21(V, alpha * step)`` (the prox of the FISTA step)."""
    return lambda V, step: prox_l21(V, alpha * step)


def _softmax_loss(Z: np.ndarray, Y: np.ndarray) -> tuple[float, np.ndarray]:
    """Mean cross-entropy of ``softmax(Z)`` against one-hot ``Y`` and the probabilities."""
    Zs = Z - Z.max(axis=1, keepdims=True)
    lse = np.log(np.exp(Zs).sum(axis=1))
    P = np.exp(Zs - lse[:, None])
    loss = float(np.mean(lse - np.einsum("ij,ij->i", Zs, Y)))
    return loss, P


def lll21_solve(X, Y, alpha: float, *, max_iter: int = 1000, tol: float = 1e-4):
    """Solve ``min_{W,b} 1/n sum_i -log softmax(x_i W + b)_{y_i} + alpha ||W||_2,1`` by monotone FISTA.

    The intercept ``b`` is not penalised; ``X`` is centred implicitly, which only re-parameterises
    ``b``, so that the Lipschitz constant of the gradient is exactly bounded by
    ``max(sigma_max(Xc)^2, n) / (2n)`` (the softmax Hessian is ``<= I/2``). Stops when the KKT
    residual -- ``||g_j + alpha w_j/||w_j||||`` on non-zero rows, ``max(0, ||g_j|| - alpha)`` on zero
    rows, ``||g_b||`` for the intercept -- is ``<= tol * alpha_max`` with
    ``alpha_max = ||Xc'(Y - mean(Y))||_2,inf / n`` (the smallest ``alpha`` with ``W = 0``).

    Returns
    -------
    W : ndarray of shape (n_features, n_classes)
    intercept : ndarray of shape (n_classes,)
    history : ndarray, objective after each iteration (non-increasing)
    n_iter : int
    kkt : float, the last relative KKT residual
    """
    A = _Centred(X, True)
    n, d = A.shape
    c = Y.shape[1]
    prior = Y.mean(axis=0)
    alpha_max = float(row_norms(A.tdot(Y - prior)).max()) / n if d else 0.0
    state = {"kkt": np.inf}

    def apply(V):
        return A.dot(V[:d]) + V[d]

    def adjoint(G):
        return np.vstack([A.tdot(G), G.sum(axis=0)])

    def loss(Z):
        value, P = _softmax_loss(Z, Y)
        return value, (P - Y) / n

    def penalty(V):
        return alpha * l21_norm(V[:d])

    def prox(V, step):
        out = V.copy()
        out[:d] = prox_l21(V[:d], alpha * step)
        return out

    def kkt(V, _, G):
        W = V[:d]
        Gv = adjoint(G)
        Gw, gb = Gv[:d], Gv[d]
        norms = row_norms(W)
        nz = norms > 0
        res = np.zeros(d)
        res[nz] = row_norms(Gw[nz] + alpha * W[nz] / norms[nz, None])
        res[~nz] = np.maximum(0.0, row_norms(Gw[~nz]) - alpha)
        worst = max(float(res.max()) if d else 0.0, float(np.linalg.norm(gb)))
        state["kkt"] = worst / max(alpha_max, np.finfo(float).tiny)
        return state["kkt"]

    V0 = np.zeros((d + 1, c))
    V0[d] = np.log(np.maximum(prior, np.finfo(float).tiny))  # the optimal b for W = 0
    V0[d] -= V0[d].mean()
    if d == 0:
        return V0[:0], V0[0], np.array([_softmax_loss(apply(V0), Y)[0]]), 0, 0.0
    with blas_limits():
        L = max(A.sq_norm2(), float(n)) / (2.0 * n)
        V, history, it = _fista(apply, adjoint, loss, penalty, prox, V0, L, max_iter, tol, kkt, adaptive=True)
        kkt(V, None, loss(apply(V))[1])
    W, b = V[:d], V[d]
    return W, b - A.mean @ W, history, it, state["kkt"]


# ------------------------------------------------------------------ RFS (Nie et al. 2010)
def _weighted_gram(X, left: np.ndarray | None, right_side: str) -> np.ndarray:
    """``X' diag(left) X`` (``right_side='d'``) or ``X diag(left) X'`` (``'n'``), dense result."""
    if right_side == "d":
        XL = X.multiply(left[:, None]).tocsr() if sp.issparse(X) else X * left[:, None]
        G = X.T @ XL
    else:
        XL = X.multiply(left[None, :]).tocsr() if sp.issparse(X) else X * left[None, :]
        G = XL @ X.T
    G = G.toarray() if sp.issparse(G) else np.asarray(G)
    return (G + G.T) / 2.0


def _solve_spd(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``A^-1 B`` for a symmetric positive (semi)definite ``A``: Cholesky, least squares if singular."""
    jitter = 1e-12 * max(float(np.trace(A)) / max(A.shape[0], 1), np.finfo(float).tiny)
    try:
        return sla.cho_solve(sla.cho_factor(A + jitter * np.eye(A.shape[0]), check_finite=False), B)
    except np.linalg.LinAlgError:
        return sla.lstsq(A, B, check_finite=False)[0]


def _reweighted_ls(X, Y, reg, w_norms, r_norms=None):
    """One reweighted step: ``argmin_W sum_j ||r_j||^2 / (2 a_j) + reg sum_i ||w_i||^2 / (2 b_i)``.

    ``a_j = r_norms[j]`` (residual rows; None: 1/2, i.e. plain least squares ``||XW - Y||_F^2``),
    ``b_i = w_norms[i]``. Normal equations ``(X' D_r X + reg D_w) W = X' D_r Y`` (d x d) when
    ``d < n``, else the Woodbury form ``W = D_w^-1 X' (X D_w^-1 X' + reg D_r^-1)^-1 Y`` (n x n),
    whose weights are the norms themselves (zero rows need no floor).
    """
    n, d = X.shape
    inv_dr = np.ones(n) if r_norms is None else 2.0 * r_norms  # D_r^-1
    if d < n:
        dr = 1.0 / np.maximum(inv_dr, _EPS)
        A = _weighted_gram(X, dr, "d")
        A[np.diag_indices(d)] += reg / (2.0 * np.maximum(w_norms, _EPS))
        rhs = np.asarray(X.T @ (Y * dr[:, None]))
        return _solve_spd(A, rhs)
    inv_dw = 2.0 * w_norms  # D_w^-1
    K = _weighted_gram(X, inv_dw, "n")
    K[np.diag_indices(n)] += reg * inv_dr
    return inv_dw[:, None] * np.asarray(X.T @ _solve_spd(K, Y))


def rfs_solve(X, Y, gamma: float, *, max_iter: int = 100, tol: float = 1e-6):
    """Solve ``min_W ||XW - Y||_2,1 + gamma ||W||_2,1`` (survey eq. 62) by Nie et al.'s reweighting.

    Nie et al.'s Algorithm 1 solves ``min ||U||_2,1 s.t. [X, gamma I] U = Y`` with
    ``U = D^-1 A' (A D^-1 A')^-1 Y``, ``D_ii = 1 / (2 ||U(i, :)||)``; written in ``W`` this is
    the reweighted least-squares step of :func:`_reweighted_ls` with residual weights, solved on
    the smaller side (n x n or d x d), and its objective never increases (their Theorem 1); when
    rounding makes it rise (rows of ``W`` near 0 make the system ill-conditioned), the previous
    ``W`` is kept and the loop stops.
    Starts from the ridge solution (``D = I``, as the paper). Stops when the relative decrease
    of the objective is ``<= tol``.
    """
    n, d = X.shape
    w_norms, r_norms = np.full(d, 0.5), np.full(n, 0.5)
    history: list[float] = []
    W = np.zeros((d, Y.shape[1]))
    it = 0
    with blas_limits():
        for it in range(1, max_iter + 1):
            W_new = _reweighted_ls(X, Y, gamma, w_norms, r_norms)
            R = np.asarray(X @ W_new) - Y
            wn, rn = row_norms(W_new), row_norms(R)
            obj = float(rn.sum() + gamma * wn.sum())
            if history and obj > history[-1]:  # rounding floor reached (exact steps never increase it)
                it -= 1
                break
            W, w_norms, r_norms = W_new, wn, rn
            history.append(obj)
            if it > 1 and history[-2] - history[-1] <= tol * abs(history[-2]):
                break
    return W, np.asarray(history), it


# ------------------------------------------------------------------ UDFS (Yang et al. 2011)
def _self_and_neighbours(owner: str, X, n_neighbors: int) -> np.ndarray:
    """``(n, k+1)`` sample indices: each sample followed by its ``k`` nearest others (Euclidean)."""
    from fsviz.select._graph import knn_sq

    n = X.shape[0]
    k = check_data_bound(
        owner, "n_neighbors", n_neighbors, NEIGHBOURS, high=n - 1, why=f" (X has {n} samples)"
    )
    rows, cols, d2 = knn_sq(X, k)
    order = np.lexsort((cols, d2, rows))  # per sample: nearest first, ties by index
    nbrs = cols[order].reshape(n, k)
    return np.hstack([np.arange(n)[:, None], nbrs])


def udfs_local_matrix(X, n_neighbors: int = 5, reg: float = 0.1) -> sp.csr_matrix:
    """UDFS's ``sum_i S_i H (X~_i' X~_i + reg I)^-1 H S_i'`` (survey eq. 71), sparse n x n.

    ``S_i`` selects sample ``i`` and its ``k`` nearest neighbours, ``H = I - 11'/(k+1)`` and
    ``X~_i' X~_i = H G_i H`` with ``G_i`` the local Gram matrix (``k+1`` squared). All ``n``
    local inverses are taken in one batched call; ``G_i`` comes from ``(k+1)^2`` row-wise
    products of ``X`` (dense or sparse), never from an n x n Gram matrix.
    """
    idx = _self_and_neighbours("UDFS", X, n_neighbors)
    n, k1 = idx.shape
    G = np.empty((n, k1, k1))
    if sp.issparse(X):
        Xr = X.tocsr()
        for a in range(k1):
            Xa = Xr[idx[:, a]]
            for b in range(a, k1):
                g = np.asarray(Xa.multiply(Xr[idx[:, b]]).sum(axis=1)).ravel()
                G[:, a, b] = G[:, b, a] = g
    else:
        step = max(1, (1 << 22) // max(k1 * X.shape[1], 1))
        for s in range(0, n, step):
            Xi = X[idx[s : s + step]]  # (b, k+1, d)
            G[s : s + step] = Xi @ Xi.transpose(0, 2, 1)
    H = np.eye(k1) - 1.0 / k1
    B = np.linalg.inv(H @ G @ H + reg * np.eye(k1))
    Q = H @ B @ H
    rows = np.repeat(idx, k1, axis=1).ravel()
    cols = np.tile(idx, (1, k1)).ravel()
    Lm = sp.csr_matrix((Q.ravel(), (rows, cols)), shape=(n, n))
    return ((Lm + Lm.T) / 2.0).tocsr()


def udfs_solve(X, n_clusters: int, alpha: float, n_neighbors: int, reg: float, *, max_iter=100, tol=1e-6):
    """UDFS (Yang et al. 2011, Algorithm 1): ``min_{W'W = I} tr(W'MW) + alpha ||W||_2,1``.

    ``M = X' L X`` with ``L`` from :func:`udfs_local_matrix`. Each iteration takes the
    ``n_clusters`` eigenvectors of ``M + alpha D`` with the smallest eigenvalues and sets
    ``D_ii = 1 / (2 ||W(i, :)||)``; the objective never increases (their Theorem 1; a rise from
    rounding keeps the previous ``W`` and stops). Constant features are left out (their rows of
    ``W`` are 0): ``tr(W'MW)`` is 0 on them, so the eigenproblem would otherwise pick exactly the
    features that carry no information.

    Eigensolver: LAPACK's dense ``eigh`` (O(d^3)) in general. When ``d > 2n`` and
    ``d >= _UDFS_LOWRANK_MIN_D``, ``M = Z'Z`` with ``Z`` r x d, ``r < n``
    (:func:`_udfs_factor`), and every step after the first uses :func:`_udfs_smallest_lowrank`
    (Woodbury + Lanczos, O(r^2 d), certified by inertia, dense fallback otherwise). The first
    step (``D = I``) stays dense: its smallest eigenvalue ``alpha`` then has multiplicity
    ``d - r`` and LAPACK's choice of basis is kept. Later steps agree with the dense ones to the
    dense solver's accuracy (``eps ||P||``, large once rows of ``W`` approach 0: the low-rank
    eigenvectors are the more accurate ones).
    Returns ``W, history, n_iter``.
    """
    with blas_limits():
        Lm = udfs_local_matrix(X, n_neighbors, reg)
    d_all = X.shape[1]
    keep = np.flatnonzero(column_moments(X)[1] > 0)  # constant features: zero rows of W
    X = X[:, keep]
    d = keep.size
    c = min(n_clusters, d)
    if c == 0:
        return np.zeros((d_all, min(n_clusters, d_all))), np.zeros(1), 0
    with blas_limits():
        LX = Lm @ X
        M = X.T @ LX
        M = M.toarray() if sp.issparse(M) else np.asarray(M)
        M = (M + M.T) / 2.0
        # d > 2n: M = Z'Z with Z of rank r < n, and the eigenproblem of M + alpha D is solved in
        # O(r^2 d) per iteration instead of O(d^3) (see _udfs_smallest_lowrank); below
        # _UDFS_LOWRANK_MIN_D features LAPACK's dense eigh is faster (measured: 325 features, 73
        # samples: 1.4 s low-rank against 0.8 s dense; 1024 features, 165 samples: 1.6 s against 11.8 s)
        lowrank = alpha > 0 and 2 * X.shape[0] < d and d >= _UDFS_LOWRANK_MIN_D and c + 1 < d
        Z = _udfs_factor(Lm, X) if lowrank else None
        dvec = np.ones(d)
        history: list[float] = []
        W = np.zeros((d, c))
        it = 0
        for it in range(1, max_iter + 1):
            W_new = None
            if Z is not None and it > 1:  # the first step (D = I) keeps LAPACK's choice of basis
                W_new = _udfs_smallest_lowrank(Z, alpha * dvec, c, W)
            if W_new is None:
                P = M.copy()
                P[np.diag_indices(d)] += alpha * dvec
                _, W_new = sla.eigh(P, subset_by_index=[0, c - 1], check_finite=False, driver="evr")
            norms = row_norms(W_new)
            if it == 1:  # basis-free row norms when W spans part of a null space (see below)
                norms = _udfs_first_norms(Lm, X, c, norms)
            if Z is not None:  # tr(W'MW) = ||ZW||^2
                quad = float(np.sum((Z @ W_new) ** 2))
            else:
                quad = float(np.einsum("ij,ij->", W_new, M @ W_new))
            obj = quad + alpha * float(norms.sum())
            if history and obj > history[-1]:  # rounding floor reached (exact steps never increase it)
                it -= 1
                break
            W = W_new
            dvec = 1.0 / (2.0 * np.maximum(norms, _EPS))
            history.append(obj)
            if it > 1 and history[-2] - history[-1] <= tol * abs(history[-2]):
                break
    W_all = np.zeros((d_all, c))
    W_all[keep] = W
    return W_all, np.asarray(history), it


_UDFS_LOWRANK_MIN_D = 600


def _udfs_first_norms(Lm: sp.spmatrix, X, c: int, norms: np.ndarray) -> np.ndarray:
    """Row norms of UDFS's first ``W`` (``D = I``), independent of the eigensolver's basis.

    The first step takes the ``c`` smallest eigenvectors of ``M + alpha I``. When ``M = X'LX``
    has a null space of dimension ``p > c`` (always when there are more features than samples),
    they are any ``c`` orthonormal vectors of it, chosen by rounding (by the BLAS thread count),
    and so are the row norms that weight every later step. Those row norms are replaced by their
    basis-free value, the root mean square over all ``c``-frames of the null space:
    ``sqrt(c / p) ||P_null e_i|| = sqrt(c / p (1 - h_i))``, with ``h_i`` the leverage of feature
    ``i`` in the range of ``M`` (from ``M = Z'Z``, ``Z`` at most n x d: O(n^2 d)). Otherwise the
    norms are returned unchanged.
    """
    d = X.shape[1]
    if d <= c:
        return norms
    Z = _udfs_factor(Lm, X)
    if Z.shape[0] == 0:
        return np.full(d, np.sqrt(c / d))
    _, sv, Vt = np.linalg.svd(Z, full_matrices=False)
    rank = int(np.sum(sv > sv[0] * max(Z.shape) * np.finfo(float).eps)) if sv.size and sv[0] > 0 else 0
    p = d - rank
    if p <= c:
        return norms
    h = np.einsum("ij,ij->j", Vt[:rank], Vt[:rank])
    return np.sqrt(c / p * np.maximum(1.0 - h, 0.0))


def _udfs_factor(Lm: sp.spmatrix, X) -> np.ndarray:
    """``Z`` (r x d) with ``Z'Z = X'LX``: ``L = Q diag(lam) Q'`` (n x n, PSD), ``Z = (Q lam^1/2)' X``.

    Eigenvalues below ``1e-12 * max`` are rounding (``L`` is a sum of PSD terms) and dropped, so
    ``r <= n - 1`` (``L 1 = 0``).
    """
    lam, Q = sla.eigh(Lm.toarray(), check_finite=False)
    keep = lam > 1e-12 * max(float(lam.max()), np.finfo(float).tiny)
    C = Q[:, keep] * np.sqrt(lam[keep])
    return np.ascontiguousarray(np.asarray(X.T @ C).T)


def _udfs_smallest_lowrank(Z: np.ndarray, a: np.ndarray, c: int, W0: np.ndarray):
    """The ``c`` smallest eigenvectors of ``P = diag(a) + Z'Z`` (``a > 0``), or None if uncertified.

    Lanczos (ARPACK ``eigsh``) on ``P^-1`` applied by Woodbury,
    ``P^-1 = A^-1 - A^-1 Z' (I + Z A^-1 Z')^-1 Z A^-1`` (one r x r Cholesky, O(r^2 d)), for the
    ``c + 1`` largest eigenvalues of ``P^-1``, started from the previous ``W``. The answer is then
    certified by Sylvester's law of inertia: with ``sigma`` midway between the ``c``-th and
    ``(c+1)``-th eigenvalues found, the number of eigenvalues of ``P`` below ``sigma`` is
    ``neg(A - sigma I) + neg(-I - Z (A - sigma I)^-1 Z') - r`` (Haynsworth's inertia additivity
    on ``[[A - sigma I, Z'], [Z, -I]]``), which must be exactly ``c``: no smaller eigenvalue was
    missed. None (the caller then takes the dense eigendecomposition) when the certificate
    fails, the ``c``-th and ``(c+1)``-th eigenvalues are too close to separate, or ARPACK fails.
    """
    r, d = Z.shape
    ainv = 1.0 / a
    try:
        cho = sla.cho_factor(np.eye(r) + (Z * ainv) @ Z.T, check_finite=False)
    except np.linalg.LinAlgError:
        return None

    def solve(V):
        U = V * ainv[:, None] if V.ndim == 2 else V * ainv
        T = Z.T @ sla.cho_solve(cho, Z @ U, check_finite=False)
        return U - (T * ainv[:, None] if V.ndim == 2 else T * ainv)

    op = spla.LinearOperator((d, d), matvec=solve, matmat=solve, dtype=np.float64)
    v0 = W0.sum(axis=1) + 1e-3 / np.sqrt(d)  # warm start, never the zero vector
    try:
        mu, V = spla.eigsh(op, k=c + 1, which="LA", v0=v0, tol=1e-13)
    except spla.ArpackError:
        return None
    order = np.argsort(-mu)
    lam, V = 1.0 / mu[order], V[:, order]
    lo, hi = float(lam[c - 1]), float(lam[c])
    if not (hi - lo > 1e-8 * abs(hi)):
        return None
    sigma = 0.5 * (lo + hi)
    shift = a - sigma
    if np.any(np.abs(shift) <= 1e-12 * max(abs(sigma), 1.0)):
        return None
    S = -np.eye(r) - (Z / shift) @ Z.T
    below = int(np.sum(shift < 0)) + int(np.sum(sla.eigvalsh((S + S.T) / 2.0, check_finite=False) < 0)) - r
    if below != c:
        return None
    Q, _ = np.linalg.qr(V[:, :c])  # orthonormal to rounding, as LAPACK's
    return Q


# ------------------------------------------------------------------ NDFS (Li et al. 2012)
def normalized_laplacian(S: sp.csr_matrix) -> sp.csr_matrix:
    deg = np.asarray(S.sum(axis=1)).ravel()
    dinv = np.zeros_like(deg)
    np.divide(1.0, np.sqrt(deg), out=dinv, where=deg > 0)
    return (sp.eye(S.shape[0]) - sp.diags(dinv) @ S @ sp.diags(dinv)).tocsr()


def ndfs_objective(X, F, W, Lap, alpha, beta, gamma) -> float:
    """NDFS objective (survey eq. 75 with the penalty form of Li et al.'s eq. 9)."""
    R = np.asarray(X @ W) - F
    FtF = F.T @ F
    E = FtF - np.eye(F.shape[1])
    return float(
        np.einsum("ij,ij->", F, Lap @ F)
        + alpha * (np.sum(R * R) + beta * l21_norm(W))
        + gamma / 2.0 * np.sum(E * E)
    )


def ndfs_solve(X, F0, Lap, alpha, beta, gamma, *, max_iter=100, tol=1e-6):
    """NDFS alternating updates (Li et al. 2012, Algorithm 1).

    With ``D`` fixed, ``W = (X'X + beta D)^-1 X'F`` (solved on the smaller side, see
    :func:`_reweighted_ls`); ``F <- F * (gamma F) / (MF + gamma F F'F)`` with
    ``MF = LF + alpha (F - XW)`` (M is never formed), columns of ``F`` rescaled to unit norm,
    then ``D_ii = 1 / (2 ||W(i, :)||)``. Returns ``W, F, history, n_iter``.

    ``M`` has negative entries, so the paper's denominator ``MF + gamma F F'F`` can be <= 0
    where ``F`` is small (it then blows ``F`` up: seen on the digits sample with 5 clusters).
    The negative part of ``MF`` is moved to the numerator instead,
    ``F <- F * (gamma F + [MF]^-) / ([MF]^+ + gamma F F'F)`` -- the usual multiplicative rule for
    a mixed-sign matrix (Ding, Li & Jordan 2010, semi-NMF); it keeps ``F >= 0`` and has the same
    fixed points (``MF + gamma (F F'F - F) = 0`` where ``F > 0``), and it is the paper's rule
    wherever ``MF >= 0``.
    """
    F = F0.copy()
    d = X.shape[1]
    w_norms = np.full(d, 0.5)
    history: list[float] = []
    tiny = np.finfo(float).tiny
    it = 0
    with blas_limits():
        W = _reweighted_ls(X, F, beta, w_norms)
        for it in range(1, max_iter + 1):
            MF = Lap @ F + alpha * (F - np.asarray(X @ W))
            num = gamma * F + np.maximum(-MF, 0.0)
            den = np.maximum(MF, 0.0) + gamma * (F @ (F.T @ F))
            F = F * num / np.maximum(den, tiny)
            F = F / np.maximum(np.linalg.norm(F, axis=0), tiny)
            W = _reweighted_ls(X, F, beta, w_norms)
            w_norms = row_norms(W)
            history.append(ndfs_objective(X, F, W, Lap, alpha, beta, gamma))
            if it > 1 and abs(history[-2] - history[-1]) <= tol * abs(history[-2]):
                break
    return W, F, np.asarray(history), it


def kmeans_indicator(X, n_clusters: int, seed: int) -> np.ndarray:
    """NDFS's start: the scaled k-means indicator ``Y (Y'Y)^-1/2 + 0.02`` (Li et al.'s code)."""
    labels = KMeans(n_clusters=n_clusters, n_init=10, random_state=seed).fit(X).labels_
    Y = np.zeros((X.shape[0], n_clusters))
    Y[np.arange(X.shape[0]), labels] = 1.0
    sizes = np.maximum(Y.sum(axis=0), 1.0)
    return Y / np.sqrt(sizes) + 0.02


# ------------------------------------------------------------------ selectors
