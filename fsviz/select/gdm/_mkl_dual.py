"""GDM's former master-problem solver, on the dual side: the SVM for fixed kernel weights ``mu``
and Newton's method on ``mu`` (:func:`solve_mkl`). GDM fits with :func:`._master.solve_master`;
this one stays as an independent cross-check of it in the tests.

After ``T`` cutting-plane iterations GDM holds feature subsets ``delta^1..delta^T`` and solves
(TPAMI eq. 6 / 8)::

    theta* = min_{alpha in A} max_t g_t(alpha)
           = max_{mu in U} min_{alpha in A} sum_t mu_t g_t(alpha),
    g_t(alpha) = 1/2 ||Z_t' (alpha * y)||^2 + 1/(2C) ||alpha||^2,

with ``A`` and ``U`` probability simplices and ``Z_t`` the (standardised) columns of
``delta^t``. The kernel ``sum_t mu_t Z_t Z_t' + I/C`` has rank at most ``p = sum_t |delta^t|``,
so nothing here is ever n x n: for fixed ``mu`` the inner problem is solved in its primal
form, a bias-free squared-hinge SVM with a learned margin,

    min_{w, gamma} 1/2 ||w||^2 - gamma + C/2 sum_i max(0, gamma - y_i w' xt_i)^2,
    xt_i = sqrt(d) * z_i (d_j = mu_t for the kernel t holding column j),

by Newton's method over ``p + 1`` variables (finite convergence; each step costs
O(n_active p^2)); the dual variables are ``alpha_i = C xi_i``. With the SVM's active set held
fixed, the inner minimum is ``1 / (2 h(mu))`` with ``h(mu) = 1'K(mu)^{-1}1`` (convex in
``mu``), minimised over the simplex by Newton's method in the ``p``-dimensional space
(``_mu_on_active_set``: ``T x T`` Hessian, active set on the kernels); if the exact SVM at the
new ``mu`` shows the true dual fell (the active set moved a lot), ``mu`` is backtracked along
the segment, which is an ascent direction of the concave true dual. The loop stops on a
rigorous duality gap::

    lower = -F(w, gamma) <= min_alpha sum_t mu_t g_t(alpha) <= theta*
          <= max_t g_t(alpha / sum(alpha)) = upper,

``upper - lower <= tol * upper``.

References
----------
.. [1] Zhai, Ong & Tsang, "Making Trillion Correlations Feasible in Feature Grouping and
   Selection", IEEE TPAMI 38(12), 2016, eq. (5)-(8) and (12).
.. [2] Tan, Wang & Tsang, "Learning sparse SVM for feature selection on very high
   dimensional datasets", ICML 2010 (the minimax relaxation and its MKL solution).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import LinAlgError, solve
from scipy.linalg.blas import dsyrk

from fsviz.select.gdm._master import _chol, _chol_solve

__all__ = ["MKLResult", "solve_mkl", "solve_svm_primal"]


@dataclass
class MKLResult:
    """Solution of the master problem."""

    alpha: np.ndarray  # (n,) dual variables on the simplex
    mu: np.ndarray  # (T,) kernel weights on the simplex
    w: np.ndarray  # (p,) weights in the scaled space (xt = sqrt(d) z)
    gamma: float  # learned margin / threshold
    objective: float  # upper bound max_t g_t(alpha)  (theta* within the gap)
    lower: float  # lower bound -F(w, gamma)
    gap: float  # upper - lower
    g: np.ndarray  # (T,) g_t(alpha)
    n_iter: int  # mu updates
    n_newton: int  # Newton steps in total
    coef: np.ndarray | None = None  # (p,) weights in the standardised space: d_j * (z_j . alpha~)
    n_inner: int = 0  # Newton steps on mu (fixed active set) in total


def _svm_objective(w, gamma, xi_pos, C):
    return 0.5 * float(w @ w) - gamma + 0.5 * C * float(xi_pos @ xi_pos)


def _active_gram(Zy, act, gram, colsum, gram_act, cache):
    """Gram matrix and column sums of the active rows, updated by the rows that changed."""
    if gram is not None:
        add = act & ~gram_act
        rem = gram_act & ~act
        k = int(add.sum() + rem.sum())
        if k < 0.25 * max(int(act.sum()), 1) and cache.get("updates", 0) < 64:
            cache["updates"] = cache.get("updates", 0) + 1
            A, R = Zy[add], Zy[rem]
            return gram + A.T @ A - R.T @ R, colsum + A.sum(axis=0) - R.sum(axis=0)
    cache["updates"] = 0
    ZI = np.asfortranarray(Zy[act])
    if ZI.shape[0] == 0:
        return np.zeros((Zy.shape[1], Zy.shape[1])), np.zeros(Zy.shape[1])
    G = dsyrk(1.0, ZI, trans=1)  # upper triangle of ZI' ZI, half the flops of a GEMM
    G = np.triu(G) + np.triu(G, 1).T
    return G, ZI.sum(axis=0)


def solve_svm_primal(
    Zy: np.ndarray,
    sqrt_d: np.ndarray,
    C: float,
    w0=None,
    gamma0=None,
    max_newton: int = 100,
    tol: float = 1e-12,
    cache: dict | None = None,
):
    """Bias-free squared-hinge SVM with a learned margin, in the primal, by Newton's method.

    Parameters
    ----------
    Zy : ndarray (n, p)
        Rows ``y_i z_i`` (labels folded in).
    sqrt_d : ndarray (p,)
        Column scales ``sqrt(d_j)``.
    C : float
    w0, gamma0 : warm start.
    cache : dict, optional
        Carries the Gram matrix of the active rows between calls (it depends on the
        active set only, not on ``sqrt_d``), so repeated solves along the ``mu`` path
        cost O(n p) when the active set stays.

    Returns
    -------
    w, gamma, xi (n,), n_steps
    """
    n, p = Zy.shape
    w = np.zeros(p) if w0 is None else np.array(w0, dtype=np.float64)
    gamma = 1.0 / (C * n) if gamma0 is None else float(gamma0)

    def margins(w_):
        return Zy @ (sqrt_d * w_)

    o = margins(w)
    xi = gamma - o
    act = xi > 0
    if not act.any():  # no active sample: move gamma up to the largest margin
        gamma = float(o.max()) + 1.0 / (C * n)
        xi = gamma - o
        act = xi > 0
    xp = np.where(act, xi, 0.0)
    F = _svm_objective(w, gamma, xp, C)
    steps = 0
    if cache is None:
        cache = {}
    gram, colsum, gram_act = cache.get("gram"), cache.get("colsum"), cache.get("act")
    for _ in range(max_newton):
        steps += 1
        xa = np.where(act, xi, 0.0)
        g_w = w - C * sqrt_d * (Zy.T @ xa)
        g_g = -1.0 + C * float(xa.sum())
        gnorm = np.sqrt(float(g_w @ g_w) + g_g * g_g)
        if gnorm <= tol * max(1.0, abs(gamma) + np.sqrt(float(w @ w))):
            break
        if gram is None or not np.array_equal(act, gram_act):
            gram, colsum = _active_gram(Zy, act, gram, colsum, gram_act, cache)
            gram_act = act.copy()
            cache.update(gram=gram, colsum=colsum, act=gram_act)
        H = np.empty((p + 1, p + 1))
        H[:p, :p] = C * (sqrt_d[:, None] * gram * sqrt_d[None, :])
        H[:p, :p].flat[:: p + 1] += 1.0
        H[:p, p] = H[p, :p] = -C * sqrt_d * colsum
        H[p, p] = C * float(act.sum())
        rhs = -np.concatenate([g_w, [g_g]])
        try:
            step = _chol_solve(_chol(H), rhs)
        except LinAlgError:
            step = solve(H + 1e-12 * np.eye(p + 1), rhs, assume_a="sym", check_finite=False)
        dw, dg = step[:p], float(step[p])
        # backtracking on the piecewise quadratic (full Newton steps are taken near the end)
        slope = float(-(rhs @ step))
        s = 1.0
        do = margins(dw)
        while True:
            w_new = w + s * dw
            gamma_new = gamma + s * dg
            xi_new = gamma_new - (o + s * do)
            xp_new = np.maximum(xi_new, 0.0)
            F_new = _svm_objective(w_new, gamma_new, xp_new, C)
            if F_new <= F + 1e-4 * s * slope or s < 1e-10:
                break
            s *= 0.5
        if F_new > F:  # no progress possible at this precision
            break
        w, gamma, o, xi, F = w_new, gamma_new, o + s * do, xi_new, F_new
        act_new = xi > 0
        same = np.array_equal(act_new, act)
        act = act_new
        if s == 1.0 and same:
            # a full Newton step that keeps the active set minimises the quadratic piece
            # exactly: the optimum (up to rounding)
            break
    return w, gamma, np.maximum(xi, 0.0), steps


def _mu_eval(G, b, n_act, kernel_of, mu, C, T):
    """``h(mu) = 1'K(mu)^{-1}1`` on the active set, ``u = B'K^{-1}1`` and ``q_t = ||u_t||^2``.

    ``K(mu) = B diag(d) B' + I/C`` (rows ``B`` of the active samples, ``d_j = mu_t``) is handled
    in the ``p``-dimensional space by Woodbury: ``K^{-1} = C I - C^2 B S M^{-1} S B'`` with
    ``M = I + C S G S``, ``S = diag(sqrt(d))``.
    """
    p = G.shape[0]
    sd = np.sqrt(mu[kernel_of])
    M = C * (sd[:, None] * G * sd[None, :])
    M.flat[:: p + 1] += 1.0
    cf = _chol(M)
    sb = sd * b
    x = _chol_solve(cf, sb)  # M^{-1} S b
    h = C * n_act - C * C * float(sb @ x)
    u = C * b - C * C * (G @ (sd * x))
    q = np.bincount(kernel_of, weights=u * u, minlength=T)
    return h, u, q, cf, sd


def _mu_on_active_set(G, b, n_act, kernel_of, mu, C, T, tol, max_iter=100):
    """Kernel weights ``mu`` of the master problem with the SVM's active set held fixed.

    On a fixed active set ``I`` (rows ``B = y_I z_I``, ``G = B'B``, ``b = B'1``) the inner
    problem ``min_{alpha in A} sum_t mu_t g_t(alpha)`` has the closed form
    ``1 / (2 h(mu))`` with ``h(mu) = 1'K(mu)^{-1}1``, ``K(mu) = sum_t mu_t B_t B_t' + I/C``,
    so maximising over ``mu`` is the smooth convex problem ``min_{mu in U} h(mu)`` with

        dh/dmu_t = -q_t = -||B_t' a||^2,   d2h/dmu_s dmu_t = 2 e_s' B'K^{-1}B e_t,

    ``a = K^{-1} 1`` and ``e_t`` the vector ``B' a`` restricted to kernel ``t``. It is solved by
    Newton's method on the simplex (active-set on the kernels, ratio test and Armijo
    backtracking; ``T x T`` systems, one ``p x p`` Cholesky factor per step) until the
    simplex optimality gap ``max_t q_t - sum_t mu_t q_t <= tol * max_t q_t``. (The former
    eta-trick fixed point ``mu_t ~ mu_t ||v_t||`` converged only linearly, with rate -> 1 when
    kernels nearly tie: thousands of steps per cutting-plane iteration.) The caller re-solves
    the exact SVM (the active set may move) and checks the true duality gap.

    Returns ``mu, w, gamma, n_steps`` with ``w = S v`` (scaled-space SVM weights,
    ``v = Z'alpha``) and ``gamma`` the margin at the returned ``mu``; ``w = None`` if the
    active set is degenerate.
    """
    mu = np.maximum(np.asarray(mu, dtype=np.float64), 0.0)
    mu = mu / mu.sum()
    onehot = np.zeros((kernel_of.size, T))
    onehot[np.arange(kernel_of.size), kernel_of] = 1.0
    try:
        h, u, q, cf, sd = _mu_eval(G, b, n_act, kernel_of, mu, C, T)
    except LinAlgError:
        return mu, None, None, 1
    k = 0
    for k in range(1, max_iter + 1):
        if not h > 0:
            return mu, None, None, k
        qmax = float(q.max())
        if float(mu @ q) >= (1.0 - tol) * qmax:
            break
        # Hessian of h in mu (T x T): 2 (C E'GE - C^2 (S G E)' M^{-1} (S G E))
        E = onehot * u[:, None]
        GE = G @ E
        SGE = sd[:, None] * GE
        H = 2.0 * (C * (E.T @ GE) - C * C * (SGE.T @ _chol_solve(cf, SGE)))
        H = 0.5 * (H + H.T)
        # free kernels: positive weight, or zero weight with a gradient pointing inwards
        free = (mu > 0) | (q > float(mu @ q))
        # the gradient centred at the weighted mean: sum(dmu) = 0 holds only to rounding, so
        # q . dmu with uncentred q ~ 1 would swamp a slope of order gap^2 near the optimum
        qc = q - float(mu @ q)
        dmu = None
        for _ in range(T + 1):
            F = np.flatnonzero(free)
            nf = F.size
            KKT = np.zeros((nf + 1, nf + 1))
            HF = H[np.ix_(F, F)]
            KKT[:nf, :nf] = HF + (1e-12 * max(float(np.abs(np.diag(HF)).max()), 1e-300)) * np.eye(nf)
            KKT[:nf, nf] = KKT[nf, :nf] = 1.0
            rhs = np.concatenate([qc[F], [0.0]])
            sol = np.linalg.lstsq(KKT, rhs, rcond=None)[0]
            d = np.zeros(T)
            d[F] = sol[:nf]
            bad = (mu[F] <= 0) & (sol[:nf] < 0)  # a zero weight would have to go negative
            if not bad.any():
                dmu = d
                break
            free[F[bad]] = False
        slope = -float(qc @ dmu) if dmu is not None else 0.0
        if dmu is None or not slope < 0:
            # no Newton descent direction (rounding level): one eta-trick step instead
            r = mu * np.sqrt(np.maximum(q, 0.0))
            dmu = r / r.sum() - mu
            slope = -float(qc @ dmu)
            if not slope < 0:
                break
        neg = dmu < 0
        s_max = float(np.min(mu[neg] / -dmu[neg])) if neg.any() else np.inf
        s = min(1.0, s_max)
        while True:
            mu_new = np.maximum(mu + s * dmu, 0.0)
            if s == s_max:
                mu_new[neg & (mu / np.where(neg, -dmu, 1.0) <= s_max * (1 + 1e-12))] = 0.0
            mu_new /= mu_new.sum()
            try:
                h_new, u_new, q_new, cf_new, sd_new = _mu_eval(G, b, n_act, kernel_of, mu_new, C, T)
                # Armijo; near the optimum the decrease of h (~ gap^2) drowns in rounding,
                # so a step that shrinks the simplex gap without raising h is taken too
                ok = h_new <= h + 1e-4 * s * slope or (
                    h_new <= h * (1.0 + 1e-13)
                    and float(q_new.max()) - float(mu_new @ q_new) < qmax - float(mu @ q)
                )
            except LinAlgError:
                ok = False
            if ok or s < 1e-12:
                break
            s *= 0.5
        if not ok:
            break
        mu, h, u, q, cf, sd = mu_new, h_new, u_new, q_new, cf_new, sd_new
    if not h > 0:
        return mu, None, None, k
    gamma = 1.0 / h
    return mu, sd * (gamma * u), gamma, k


def solve_mkl(
    Z: np.ndarray,
    y: np.ndarray,
    kernel_of: np.ndarray,
    C: float,
    tol: float = 1e-6,
    max_iter: int = 2000,
    mu0: np.ndarray | None = None,
    alpha0: np.ndarray | None = None,
    gamma0: float | None = None,
) -> MKLResult:
    """Solve the GDM master problem (TPAMI eq. 8) to relative duality gap ``tol``.

    Parameters
    ----------
    Z : ndarray of shape (n, p)
        Standardised selected columns (any order).
    y : ndarray of shape (n,)
        Labels in {-1, +1} (all +1 for one-class).
    kernel_of : ndarray of int, shape (p,)
        Cutting-plane iteration ``t`` (0..T-1) that added each column.
    C : float
        SVM trade-off.
    tol : float, default=1e-6
        Relative duality gap at which to stop.
    max_iter : int
        Maximum ``mu`` updates.
    mu0, alpha0, gamma0 : warm start (``mu0`` of length T).

    Returns
    -------
    MKLResult
    """
    Z = np.asarray(Z, dtype=np.float64)
    n, p = Z.shape
    kernel_of = np.asarray(kernel_of, dtype=np.intp)
    T = int(kernel_of.max()) + 1 if p else 1
    y = np.asarray(y, dtype=np.float64)
    Zy = Z * y[:, None]
    mu = np.full(T, 1.0 / T) if mu0 is None else np.asarray(mu0, dtype=np.float64).copy()
    mu = np.maximum(mu, 1e-300)
    mu /= mu.sum()
    if alpha0 is not None:
        at = np.asarray(alpha0, dtype=np.float64) * y
        v = Z.T @ at
    else:
        v = None
    w = None if v is None else np.sqrt(mu[kernel_of]) * v
    gamma = gamma0
    total_newton = 0
    total_inner = 0
    it = 0
    best = None
    cache: dict = {}
    stalled = 0
    prev, step = None, 1.0
    for _ in range(max_iter):
        it += 1
        d = mu[kernel_of]
        sqrt_d = np.sqrt(d)
        w, gamma, xi, k = solve_svm_primal(Zy, sqrt_d, C, w, gamma, cache=cache)
        total_newton += k
        alpha = C * xi
        s_alpha = float(alpha.sum())
        lower = -_svm_objective(w, gamma, xi, C)
        a_hat = alpha / s_alpha if s_alpha > 0 else np.full(n, 1.0 / n)
        v = Z.T @ (a_hat * y)  # z_j . alpha~ for every selected column
        q = 0.5 * np.bincount(kernel_of, weights=v * v, minlength=T)
        reg = 0.5 / C * float(a_hat @ a_hat)
        g = q + reg
        upper = float(g.max())
        gap = upper - lower
        if best is None or gap < best[0]:
            best = (gap, a_hat, mu.copy(), w.copy(), float(gamma), upper, lower, g.copy())
        if gap <= tol * abs(upper):
            break
        if prev is not None and lower < prev[1] - 1e-13 * abs(prev[1]) and step > 1e-8:
            # the active set moved so far that the true dual D(mu) = lower fell: D is concave
            # and mu_new - mu_old is an ascent direction of D at mu_old (its derivative there
            # equals that of the fixed-active-set problem mu_new maximises), so backtrack
            step *= 0.5
            mu = np.maximum(prev[0] + step * prev[2], 0.0)
            mu /= mu.sum()
            w, gamma = prev[3], prev[4]
            continue
        # mu updates on the current active set, in the p-dimensional space (no O(n) work),
        # then an exact SVM solve above refreshes the active set and the rigorous gap
        act = xi > 0
        if cache.get("act") is None or not np.array_equal(cache["act"], act):
            gram, colsum = _active_gram(
                Zy, act, cache.get("gram"), cache.get("colsum"), cache.get("act"), cache
            )
            cache.update(gram=gram, colsum=colsum, act=act.copy())
        mu_new, w_new, gamma_new, k_in = _mu_on_active_set(
            cache["gram"], cache["colsum"], int(act.sum()), kernel_of, mu, C, T, 0.1 * tol
        )
        total_inner += k_in
        if w_new is None:  # degenerate active set: one plain eta-trick step instead
            r = mu * np.sqrt(np.maximum(q, 0.0))
            if r.sum() <= 0:
                break
            mu_new = np.maximum(r / r.sum(), 1e-300)
            w_new, gamma_new = np.sqrt(mu_new[kernel_of]) * v * s_alpha, gamma
        # mu already optimal on this active set and the SVM keeps it: the gap left is the
        # rounding floor of the bounds (tol near machine precision); more rounds repeat it
        stalled = stalled + 1 if np.array_equal(mu_new, mu) else 0
        if stalled >= 3:
            break
        prev, step = (mu, lower, mu_new - mu, w, gamma), 1.0
        mu, w, gamma = mu_new, w_new, gamma_new
    gap, a_hat, mu, w, gamma, upper, lower, g = best
    return MKLResult(
        alpha=a_hat,
        mu=mu,
        w=w,
        gamma=gamma,
        objective=upper,
        lower=lower,
        gap=gap,
        g=g,
        n_iter=it,
        n_newton=total_newton,
        n_inner=total_inner,
        coef=mu[kernel_of] * (Z.T @ (a_hat * y)),
    )
