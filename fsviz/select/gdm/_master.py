"""The GDM cutting-plane master problem: multiple kernel learning in the selected-feature space.

After ``T`` cutting-plane iterations GDM holds feature subsets ``delta^1..delta^T`` and solves
(TPAMI eq. 6 / 8)::

    theta* = min_{alpha in A} max_t g_t(alpha)
           = max_{mu in U} min_{alpha in A} sum_t mu_t g_t(alpha),
    g_t(alpha) = 1/2 ||Z_t' (alpha * y)||^2 + 1/(2C) ||alpha||^2,

with ``A`` and ``U`` probability simplices and ``Z_t`` the (standardised) columns of
``delta^t``. GDM solves it with :func:`solve_master` (primal Newton over the selected columns;
binary, one-class, multiclass with shared kernel weights, regression).
:func:`solve_mkl` (the former solver, dual side) lives in :mod:`._mkl_dual`, where its method is
described; it stays as an independent cross-check of :func:`solve_master` in the tests.

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
from scipy.linalg.lapack import dpotrf, dpotrs
from threadpoolctl import ThreadpoolController

_EXP = 0.5
_POOLS = None  # threadpoolctl controller (scikit-learn's dependency), made on first use


def _chol(A):
    """Upper Cholesky factor by LAPACK directly (the scipy.linalg wrappers' checks cost more
    than the factorisation itself at the master problem's sizes, p <= a few hundred)."""
    c, info = dpotrf(A, lower=0, clean=0, overwrite_a=1)
    if info != 0:
        raise LinAlgError(f"matrix not positive definite (dpotrf info={info})")
    return c


def _chol_solve(c, B):
    x, info = dpotrs(c, B, lower=0)
    if info != 0:
        raise LinAlgError(f"dpotrs failed (info={info})")
    return x


# from this many classes on, the Newton system is solved through its structure (one small
# system per class plus a low-rank correction) instead of densely: the dense (q c + c)^3 / 3
# factorisation took 6.3 of ORL's 8.4 s (40 classes, q = 100: a 4,040 x 4,040 system)
_STRUCTURED_MIN_CLASSES = 3


def _dense_newton_solve(blocks, u, ko_a, nrm, N, rhs, q, c, hinge, active):
    """The Newton system ``H step = -rhs`` assembled densely and factorised by Cholesky."""
    nv = q * c + (c if hinge else 0)
    H = np.zeros((nv, nv))
    uu = np.outer(u, u)
    H[: q * c, : q * c] = uu
    # + (N / ||W_t||) (I - u_t u_t') on the variables of each active kernel t (class-major),
    # all blocks at once: the same products and one addition per entry
    kv = np.tile(ko_a, c)  # kernel of each variable
    blk = (N / nrm[kv])[:, None] * (np.eye(q * c) - uu)
    H[: q * c, : q * c] += np.where(kv[:, None] == kv[None, :], blk, 0.0)
    for k, (G, b, na) in enumerate(blocks):
        sl = slice(k * q, (k + 1) * q)
        H[sl, sl] += G
        if hinge:
            gi = q * c + k
            H[sl, gi] = H[gi, sl] = -b
            H[gi, gi] = na
    ridge = 1e-12 * max(float(np.abs(np.diag(H)).max()), 1e-300)
    H.flat[:: nv + 1] += ridge
    try:
        return -_chol_solve(_chol(H), rhs)
    except LinAlgError:
        return -np.linalg.lstsq(H, rhs, rcond=None)[0]


def _structured_newton_solve(blocks, u, ko_a, nrm, N, rhs, q, c, hinge):
    """``H step = -rhs`` by Woodbury, without forming ``H`` (``None`` if not accurate enough).

    ``H = M + V E V'`` with ``M`` block diagonal over the classes (the loss Hessian ``C G_k``
    plus the regulariser's ``diag(N / ||W_t||)``, bordered by the class's margin) and a rank
    ``T_active + 1`` correction: ``-N / ||W_t|| u_t u_t'`` per active kernel ``t`` and
    ``+u u'``. A step then costs ``c`` factorisations of size ``q + 1`` and one
    ``(T_active + 1)``-square solve instead of one factorisation of size ``q c + c``. The
    residual is checked against ``H`` applied through the same structure; one step of
    iterative refinement is allowed, otherwise the caller falls back to the dense solve.
    """
    kers = np.unique(ko_a)
    dcol = N / nrm[ko_a]  # the regulariser's diagonal on every active column (all classes)
    m = q + (1 if hinge else 0)
    uu = u * u
    diag_max = float((uu + np.tile(dcol, c) * (1.0 - uu)).max(initial=0.0))
    mats = []
    for G, b, na in blocks:
        Mk = np.empty((m, m))
        Mk[:q, :q] = G
        Mk[:q, :q].flat[:: q + 1] += dcol
        if hinge:
            Mk[:q, q] = -b
            Mk[q, :q] = -b
            Mk[q, q] = na
        diag_max = max(diag_max, float(np.abs(np.diag(G)).max(initial=0.0)), na or 0.0)
        mats.append(Mk)
    # the dense path's ridge (1e-12 of H's largest diagonal entry), on every diagonal entry
    ridge = 1e-12 * max(diag_max, 1e-300)
    factors = []
    try:
        for Mk in mats:
            Mk.flat[:: m + 1] += ridge
            factors.append(_chol(Mk.copy()))
    except LinAlgError:
        return None
    Uq = u.reshape(c, q)
    V = np.zeros((c, m, kers.size + 1))  # the low-rank factors in the per-class layout
    for i, t in enumerate(kers):
        loc = ko_a == t
        V[:, :q, i][:, loc] = Uq[:, loc]
    V[:, :q, -1] = Uq
    e = np.concatenate([-N / nrm[kers], [1.0]])

    def split(x):
        xs = np.zeros((c, m))
        xs[:, :q] = x[: q * c].reshape(c, q)
        if hinge:
            xs[:, q] = x[q * c :]
        return xs

    def join(xs):
        w = xs[:, :q].reshape(-1)
        return np.concatenate([w, xs[:, q]]) if hinge else w

    MinvV = np.stack([_chol_solve(f, V[k]) for k, f in enumerate(factors)])  # (c, m, r)
    K = np.diag(1.0 / e) + np.einsum("kmi,kmj->ij", V, MinvV)

    def apply_inv(x):
        xs = split(x)
        y = np.stack([_chol_solve(f, xs[k]) for k, f in enumerate(factors)])
        try:
            w = solve(K, np.einsum("kmi,km->i", V, y), assume_a="sym")
        except (LinAlgError, ValueError):
            return None
        return join(y - MinvV @ w)

    def apply_H(x):
        xs = split(x)
        y = np.stack([mats[k] @ xs[k] for k in range(c)])  # the ridge is in mats now
        y += V @ (e * np.einsum("kmi,km->i", V, xs))
        return join(y)

    x = apply_inv(rhs)
    if x is None or not np.all(np.isfinite(x)):
        return None
    scale = float(np.linalg.norm(rhs)) + 1e-300
    res = rhs - apply_H(x)
    if float(np.linalg.norm(res)) > 1e-10 * scale:
        dx = apply_inv(res)
        if dx is None:
            return None
        x = x + dx
        if float(np.linalg.norm(rhs - apply_H(x))) > 1e-8 * scale:
            return None
    return -x


# ============================================================================ primal solver
@dataclass
class MasterResult:
    """Solution of the (possibly multi-output) master problem, from :func:`solve_master`.

    ``c`` is the number of output columns (1 for binary / one-class / regression, the number
    of classes for multiclass one-vs-rest with shared kernel weights).
    """

    A: np.ndarray  # (n, c) dual variables: hinge -> each column on its simplex; squared -> C r
    mu: np.ndarray  # (T,) kernel weights ||W_t|| / sum_s ||W_s||
    W: np.ndarray  # (p, c) primal weights on the columns of Z (decision f = Z W - 0)
    gamma: np.ndarray  # (c,) learned margins (hinge); zeros (squared)
    objective: float  # upper bound on theta*
    lower: float  # lower bound -P(W, gamma)
    gap: float  # upper - lower
    g: np.ndarray  # (T,) g_t(A) (minus A'y for the squared loss)
    n_iter: int  # Newton steps (including kernel activations)
    n_gram: int = 0  # Gram matrices (re)built from scratch

    @property
    def alpha(self) -> np.ndarray:
        """``A[:, 0]`` for single-output problems (the binary master problem's ``alpha``)."""
        return self.A[:, 0]

    @property
    def coef(self) -> np.ndarray:
        """Weights per column of ``Z`` (single output: ``W[:, 0]``; otherwise ``W``)."""
        return self.W[:, 0] if self.W.shape[1] == 1 else self.W


def _group_norms(W, kernel_of, T):
    return np.sqrt(np.bincount(kernel_of, weights=np.einsum("ij,ij->i", W, W), minlength=T))


def _primal_value(W, gamma, R, kernel_of, T, C, loss):
    """``P = 1/2 (sum_t ||W_t||_F)^2 + loss``; ``R`` are the hinge slacks ``gamma - Y o (Z W)``
    (clipped at 0 here) or the residuals ``Y - Z W``."""
    N = float(_group_norms(W, kernel_of, T).sum())
    if loss == "squared_hinge":
        Xi = np.maximum(R, 0.0)
        return 0.5 * N * N - float(gamma.sum()) + 0.5 * C * float(np.einsum("ij,ij->", Xi, Xi))
    return 0.5 * N * N + 0.5 * C * float(np.einsum("ij,ij->", R, R))


def solve_master(
    Z: np.ndarray,
    Y: np.ndarray,
    kernel_of: np.ndarray,
    C: float,
    loss: str = "squared_hinge",
    tol: float = 1e-6,
    max_iter: int = 200,
    W0: np.ndarray | None = None,
    gamma0: np.ndarray | None = None,
) -> MasterResult:
    """Solve GDM's master problem (TPAMI eq. 6/8) in the primal over the selected columns.

    Linear MKL whose base kernels are the column blocks ``Z_t`` (one per cutting-plane
    iteration) is, by the variational identity
    ``(sum_t ||W_t||)^2 = min_{mu in simplex} sum_t ||W_t||^2 / mu_t``, the primal problem

    * ``loss="squared_hinge"`` (binary ``c = 1``; multiclass one-vs-rest with ``c`` columns of
      ``Y`` in {-1, +1} sharing the kernel weights)::

          P(W, gamma) = 1/2 (sum_t ||W_t||_F)^2
                        + sum_k [ -gamma_k + C/2 sum_i max(0, gamma_k - Y_ik z_i' W_k)^2 ],

      whose dual is ``max_{A_k in simplex} -max_t g_t(A)`` with
      ``g_t(A) = 1/2 ||Z_t'(A o Y)||_F^2 + ||A||_F^2 / (2C)`` (eq. 6 for ``c = 1``);
    * ``loss="squared"`` (regression, ``Y`` centred)::

          P(W) = 1/2 (sum_t ||W_t||_F)^2 + C/2 ||Y - Z W||_F^2,

      dual ``max_A A'Y - max_t g_t(A)``.

    ``theta* = -P*`` is the master objective (non-decreasing over the cutting plane). ``P`` is
    convex; it is smooth in ``W_t`` away from ``W_t = 0`` and piecewise quadratic in the loss,
    so it is minimised by Newton's method over the *active* kernels (``W_t != 0``) and the
    margins (``p c + c`` variables, Gram matrices of the active rows, updated by the rows that
    changed), with Armijo backtracking; an inactive kernel enters when its KKT condition
    ``||grad_t loss||_F <= sum_s ||W_s||`` fails, and an active one leaves when setting it to
    zero lowers ``P``. The dual point ``A = C * slack`` (hinge: each column renormalised onto
    its simplex) gives the rigorous stop::

        lower = -P(W, gamma) <= theta* <= max_t g_t(A) (- A'Y) = upper,
        upper - lower <= tol * max(|upper|, |lower|).

    Kernel weights are ``mu_t = ||W_t|| / sum_s ||W_s||``.

    Parameters
    ----------
    Z : ndarray of shape (n, p)
        Selected columns (a column may appear in several kernels).
    Y : ndarray of shape (n,) or (n, c)
        Targets: {-1, +1} for the squared hinge, centred reals for the squared loss.
    kernel_of : ndarray of int, shape (p,)
        Kernel (cutting-plane iteration, 0..T-1) of each column.
    C : float
        Loss weight.
    loss : {"squared_hinge", "squared"}
    tol : float, default=1e-6
        Relative duality gap at which to stop.
    max_iter : int, default=200
        Newton steps at most.
    W0, gamma0 : warm start (``W0`` of shape (p, c); rows of new columns may be 0).

    Returns
    -------
    MasterResult
    """
    # the systems are small (p c + c <= a few thousand): multithreaded BLAS only adds
    # synchronisation, and on a loaded machine a 600 x 600 Cholesky factorisation measured
    # 0.9 s with two OpenBLAS threads against 5 ms with one
    global _POOLS
    if _POOLS is None:  # finding the BLAS libraries costs ~1 ms: once per process
        _POOLS = ThreadpoolController()
    with _POOLS.limit(limits=1, user_api="blas"):
        return _solve_master(Z, Y, kernel_of, C, loss, tol, max_iter, W0, gamma0)


def _cols(Z, idx):
    """``Z[:, idx]`` of a dense design or a :class:`~fsviz.select.gdm._sparse_sf.SparseDesign`."""
    return Z.take(idx) if hasattr(Z, "tmat") else Z[:, idx]


def _tmat(Z, V):
    """``Z.T @ V`` of a dense or sparse design."""
    return Z.tmat(V) if hasattr(Z, "tmat") else Z.T @ V


def _solve_master(Z, Y, kernel_of, C, loss, tol, max_iter, W0, gamma0) -> MasterResult:
    sparse_design = hasattr(Z, "tmat")  # sparse SFs: M = S - 1 c' (never dense n x p)
    if not sparse_design:
        Z = np.asarray(Z, dtype=np.float64)
    Y = np.asarray(Y, dtype=np.float64)
    Y = Y[:, None] if Y.ndim == 1 else Y
    n, p = Z.shape
    c = Y.shape[1]
    kernel_of = np.asarray(kernel_of, dtype=np.intp)
    T = int(kernel_of.max()) + 1 if p else 1
    hinge = loss == "squared_hinge"
    if not hinge and loss != "squared":
        raise ValueError(f"solve_master: 'loss' must be 'squared_hinge' or 'squared'; got {loss!r}.")
    W = np.zeros((p, c)) if W0 is None else np.array(W0, dtype=np.float64).reshape(p, c)
    gamma = np.zeros(c) if gamma0 is None else np.array(gamma0, dtype=np.float64).reshape(c)
    members = [np.flatnonzero(kernel_of == t) for t in range(T)]
    # Gram of the active rows, one per output column (squared loss: all rows, computed once)
    grams: list = [None] * c
    gram_rows: list = [None] * c
    n_gram = 0

    def gram(k, act):
        nonlocal n_gram
        G, b, rows = grams[k], None, gram_rows[k]
        if rows is not None and np.array_equal(rows, act):
            return grams[k]
        if rows is not None:
            add, rem = act & ~rows, rows & ~act
            nch = int(add.sum() + rem.sum())
            if nch < 0.25 * max(int(act.sum()), 1) and sparse_design:
                G0, b0 = G
                Ga, ba = Z.gram(add, Y[:, k])
                Gr, br = Z.gram(rem, Y[:, k])
                G = (G0 + Ga - Gr, b0 + ba - br)
                grams[k], gram_rows[k] = G, act.copy()
                return G
            if nch < 0.25 * max(int(act.sum()), 1):
                A_, R_ = Z[add], Z[rem]
                G0, b0 = G
                yk = Y[:, k]
                G = (G0 + A_.T @ A_ - R_.T @ R_, b0 + A_.T @ yk[add] - R_.T @ yk[rem])
                grams[k], gram_rows[k] = G, act.copy()
                return G
        n_gram += 1
        if sparse_design:
            grams[k], gram_rows[k] = Z.gram(act, Y[:, k]), act.copy()
            return grams[k]
        ZI = np.asfortranarray(Z[act])
        if ZI.shape[0]:
            G0 = dsyrk(1.0, ZI, trans=1)
            G0 = np.triu(G0) + np.triu(G0, 1).T
        else:
            G0 = np.zeros((p, p))
        b = ZI.T @ Y[act, k]
        grams[k], gram_rows[k] = (G0, b), act.copy()
        return grams[k]

    def residuals(F_):
        return gamma[None, :] - Y * F_ if hinge else Y - F_

    F = Z @ W
    if hinge and W0 is None and gamma0 is None:
        gamma = np.full(c, 1.0 / (C * n))
    R = residuals(F)
    P = _primal_value(W, gamma, R, kernel_of, T, C, loss)
    best = None
    it = 0
    A = None
    while it < max_iter:
        it += 1
        # ---- duals, bounds, gap
        if hinge:
            Xi = np.maximum(R, 0.0)
            S = Xi.sum(axis=0)
            A = np.where(S > 0, Xi / np.where(S > 0, S, 1.0), 1.0 / n)
            V = _tmat(Z, A * Y)
            g = 0.5 * np.bincount(kernel_of, weights=np.einsum("ij,ij->i", V, V), minlength=T)
            g = g + 0.5 / C * float(np.einsum("ij,ij->", A, A))
        else:
            A = C * R
            V = _tmat(Z, A)
            g = 0.5 * np.bincount(kernel_of, weights=np.einsum("ij,ij->i", V, V), minlength=T)
            g = g + 0.5 / C * float(np.einsum("ij,ij->", A, A)) - float(np.einsum("ij,ij->", A, Y))
        upper, lower = float(g.max()), -P
        gap = upper - lower
        if best is None or gap < best[0]:
            best = (gap, A, W.copy(), gamma.copy(), upper, lower, g)
        if gap <= tol * max(abs(upper), abs(lower)):
            break
        # ---- gradient of the loss part; group norms
        if hinge:
            Gw = -C * (V * S[None, :])  # -C Z'(Y o Xi): V = Z'(Y o Xi) / S (where S > 0)
            if not np.all(S > 0):
                Gw = -C * _tmat(Z, Y * Xi)
            Gg = C * S - 1.0
        else:
            Gw = -V  # -C Z'R
            Gg = np.zeros(c)
        nrm = _group_norms(W, kernel_of, T)
        N = float(nrm.sum())
        gl = _group_norms(Gw, kernel_of, T)  # ||grad_t loss||_F
        active = nrm > 0
        # ---- kernels that want to shrink (||grad_t loss|| < N; = N at an active optimum): try
        # W_t = 0 outright -- Newton alone approaches a zero block only linearly
        shrink = np.flatnonzero(active & (gl < N * (1.0 - 1e-6)))
        dropped = False
        for t in shrink[np.argsort(gl[shrink] / N)]:
            idx = members[t]
            F_new = F - _cols(Z, idx) @ W[idx]
            W_new = W.copy()
            W_new[idx] = 0.0
            R_new = residuals(F_new)
            P_new = _primal_value(W_new, gamma, R_new, kernel_of, T, C, loss)
            if P_new < P:
                W, F, R, P, dropped = W_new, F_new, R_new, P_new, True
        if dropped:
            continue
        # ---- kernels that must enter (KKT violated at W_t = 0): largest violation first
        # (only when the violation exceeds the active kernels' own KKT residual |gl - N|: a
        # duplicate of an active kernel then never enters while that kernel is still moving)
        resid = float(np.abs(gl[active] - N).max()) if active.any() else 0.0
        viol = (~active) & (gl > N * (1.0 + 1e-9)) & (gl - N > resid)
        if viol.any():
            t = int(np.flatnonzero(viol)[np.argmax(gl[viol])])
            idx = members[t]
            D = -Gw[idx] / gl[t]  # unit direction in the kernel's block
            ZD = _cols(Z, idx) @ D
            if hinge:
                curv = C * float(np.einsum("ij,ij->", ZD * (R > 0), ZD))
            else:
                curv = C * float(np.einsum("ij,ij->", ZD, ZD))
            s = (gl[t] - N) / (1.0 + curv)
            while True:
                W_new = W.copy()
                W_new[idx] = s * D
                F_new = F + s * ZD
                R_new = residuals(F_new)
                P_new = _primal_value(W_new, gamma, R_new, kernel_of, T, C, loss)
                if P_new < P or s < 1e-300:
                    break
                s *= 0.5
            if P_new < P:
                W, F, R, P = W_new, F_new, R_new, P_new
                continue
        if not active.any():
            break
        # ---- Newton step over the active kernels' columns and the margins
        cols = np.flatnonzero(active[kernel_of])
        q = cols.size
        # regulariser: grad N * W_t / ||W_t||; Hessian u u' + N blockdiag((I - w w') / ||W_t||)
        Wa = W[cols]  # (q, c)
        kn = nrm[kernel_of[cols]]
        U = Wa / kn[:, None]  # unit directions per kernel
        u = U.T.reshape(-1)  # class-major: variable (k, j) at k * q + j
        ko_a = kernel_of[cols]
        blocks = []  # per class: (C * Gram of the active columns, C * b, C * number of active rows)
        for k in range(c):
            if hinge:
                act = R[:, k] > 0
                G0, b0 = gram(k, act)
                blocks.append((C * G0[np.ix_(cols, cols)], C * b0[cols], C * float(act.sum())))
            else:
                G0, _ = gram(k, np.ones(n, dtype=bool))
                blocks.append((C * G0[np.ix_(cols, cols)], None, None))
        rhs = N * u + Gw[cols].T.reshape(-1)
        if hinge:
            rhs = np.concatenate([rhs, Gg])
        step = None
        if c >= _STRUCTURED_MIN_CLASSES:
            step = _structured_newton_solve(blocks, u, ko_a, nrm, N, rhs, q, c, hinge)
        if step is None:
            step = _dense_newton_solve(blocks, u, ko_a, nrm, N, rhs, q, c, hinge, active)
        dW = np.zeros((p, c))
        dW[cols] = step[: q * c].reshape(c, q).T
        dg = step[q * c :] if hinge else np.zeros(c)
        slope = float(rhs @ step)
        if not slope < 0:
            break
        dF = Z @ dW if q == p else _cols(Z, cols) @ dW[cols]
        s, ok = 1.0, False
        scale = 0.5 * N * N + float(np.abs(gamma).sum()) + abs(P) + 1e-300  # rounding scale of P
        # ratio test on the kink at W_t = 0: the quadratic model knows nothing of it, so a block
        # whose radial component would pass through zero (r_t < -||W_t||) stops there, is set
        # to 0 (leaves the active set) and may re-enter later through its KKT condition
        radial = np.bincount(kernel_of, weights=np.einsum("ij,ij->i", W, dW), minlength=T)
        radial = np.where(active, radial / np.where(active, nrm, 1.0), 0.0)
        cross = active & (radial < -nrm)
        snap = None
        if cross.any() and active.sum() > 1:
            hit = np.flatnonzero(cross)
            s_hit = nrm[hit] / -radial[hit]
            j = int(np.argmin(s_hit))
            s, snap = float(s_hit[j]), members[hit[j]]
        while True:
            W_new = W + s * dW
            g_new = gamma + s * dg
            F_new = F + s * dF
            if snap is not None:
                F_new = F_new - _cols(Z, snap) @ W_new[snap]
                W_new[snap] = 0.0
            R_new = g_new[None, :] - Y * F_new if hinge else Y - F_new
            P_new = _primal_value(W_new, g_new, R_new, kernel_of, T, C, loss)
            if snap is not None:
                if P_new < P:
                    ok = True
                    break
                snap, s = None, 1.0  # snapping did not pay: plain backtracking instead
                continue
            if P_new <= P + 1e-4 * s * slope:
                ok = True
                break
            if s < 1e-12:
                break
            if s == 1.0 and -slope <= 1e-12 * scale and P_new <= P + 1e-12 * scale:
                # the full Newton step near the optimum: its decrease (~ Newton decrement,
                # below rounding of P) cannot be seen, but it is what brings the duals (whose
                # error is ~ sqrt of P's) to the gap; the rigorous gap judges it
                ok = True
                break
            s *= 0.5
        if not ok:
            # no decrease along the Newton direction: the weakest active kernel is typically a
            # vanishing one (norm ~ 1e-12, curvature N / ||W_t|| ~ 1e9 spoils the step) -- drop it;
            # a negligible one goes even if P rises at rounding level
            t = int(np.flatnonzero(active)[np.argmin(nrm[active])])
            W_new = W.copy()
            W_new[members[t]] = 0.0
            F_new = Z @ W_new
            R_new = residuals(F_new)
            P_new = _primal_value(W_new, gamma, R_new, kernel_of, T, C, loss)
            tiny_t = nrm[t] <= 1e-6 * N and P_new <= P + 1e-10 * scale
            if not (P_new < P or tiny_t):
                break
            W, F, R, P = W_new, F_new, R_new, P_new
            continue
        W, gamma, F, R, P = W_new, g_new, F_new, R_new, P_new
        # kernels shrunk to nothing leave the active set when that does not raise P
        nrm = _group_norms(W, kernel_of, T)
        tiny = (nrm > 0) & (nrm <= 1e-10 * nrm.sum())
        for t in np.flatnonzero(tiny):
            W_new = W.copy()
            W_new[members[t]] = 0.0
            F_new = Z @ W_new
            R_new = residuals(F_new)
            P_new = _primal_value(W_new, gamma, R_new, kernel_of, T, C, loss)
            if P_new <= P:
                W, F, R, P = W_new, F_new, R_new, P_new
    gap, A, W, gamma, upper, lower, g = best
    nrm = _group_norms(W, kernel_of, T)
    mu = nrm / nrm.sum() if nrm.sum() > 0 else np.full(T, 1.0 / T)
    return MasterResult(
        A=A, mu=mu, W=W, gamma=gamma, objective=upper, lower=lower, gap=gap, g=g, n_iter=it, n_gram=n_gram
    )
