"""GDM's master problem (TPAMI eq. 6 / 8): KKT conditions, the former dual solver as a reference,
iteration bounds, multiclass (structured and dense Newton) and regression forms."""

import numpy as np
import pytest
from scipy.optimize import minimize

from fsviz.select import GDM
from fsviz.select.gdm import _estimator
from fsviz.select.gdm._master import solve_master
from fsviz.select.gdm._mkl_dual import solve_mkl, solve_svm_primal


def _g(Z, y, ko, C, a, t):
    v = Z[:, ko == t].T @ (a * y)
    return 0.5 * v @ v + 0.5 / C * a @ a


@pytest.mark.parametrize("solver", ["primal", "dual"])
@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_master_problem_kkt_and_reference(C, solver):
    # GDM's solver (solve_master, primal Newton) and the former mu-Newton solver (solve_mkl)
    rng = np.random.default_rng(0)
    n, p = 40, 6
    Z = rng.standard_normal((n, p))
    y = np.sign(Z[:, 0] + 0.5 * Z[:, 3] + 0.3 * rng.standard_normal(n))
    ko = np.array([0, 0, 1, 1, 2, 2])
    r = (solve_master if solver == "primal" else solve_mkl)(Z, y, ko, C, tol=1e-10)
    a, mu = r.alpha, r.mu
    # feasibility: both on their simplices
    assert np.all(a >= 0) and a.sum() == pytest.approx(1.0)
    assert np.all(mu >= 0) and mu.sum() == pytest.approx(1.0)
    g = np.array([_g(Z, y, ko, C, a, t) for t in range(3)])
    assert r.gap <= 1e-10 * r.objective + 1e-15
    # complementary slackness: kernels with weight sit at the max
    assert np.all(g[mu > 1e-6] >= g.max() - 1e-8 * g.max())
    # alpha minimises sum_t mu_t g_t over the simplex: KKT of a simplex QP
    K = sum(mu[t] * Z[:, ko == t] @ Z[:, ko == t].T for t in range(3)) + np.eye(n) / C
    grad = y * (K @ (a * y))
    lam = grad[a > 1e-9].mean()
    assert np.allclose(grad[a > 1e-9], lam, rtol=1e-5, atol=1e-9)
    assert np.all(grad[a <= 1e-9] >= lam - 1e-7)
    # and an independent solver of min_a max_t g_t(a) agrees on theta*
    x0 = np.r_[np.full(n, 1 / n), 1.0]
    cons = [{"type": "eq", "fun": lambda x: x[:n].sum() - 1}] + [
        {"type": "ineq", "fun": (lambda x, t=t: x[n] - _g(Z, y, ko, C, x[:n], t))} for t in range(3)
    ]
    ref = minimize(
        lambda x: x[n],
        x0,
        constraints=cons,
        bounds=[(0, None)] * n + [(None, None)],
        method="SLSQP",
        options=dict(ftol=1e-14, maxiter=2000),
    )
    assert r.objective == pytest.approx(ref.fun, rel=1e-6)


def test_svm_primal_dual_relation():
    rng = np.random.default_rng(5)
    Z = rng.standard_normal((60, 4))
    y = np.sign(Z[:, 0] + 0.2 * rng.standard_normal(60))
    w, gamma, xi, _ = solve_svm_primal(Z * y[:, None], np.ones(4), 2.0)
    alpha = 2.0 * xi
    assert alpha.sum() == pytest.approx(1.0)  # dgamma = 0
    assert np.allclose(w, Z.T @ (alpha * y), atol=1e-10)  # dw = 0


def _count_inner(monkeypatch):
    """Wrap GDM's master solver and count its calls and Newton steps."""
    orig, seen = _estimator.solve_master, {"calls": 0, "steps": 0}

    def counting(*args, **kwargs):
        out = orig(*args, **kwargs)
        seen["calls"] += 1
        seen["steps"] += out.n_iter
        return out

    monkeypatch.setattr(_estimator, "solve_master", counting)
    return seen


def _digits_01():
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    keep = y <= 1
    return X[keep], np.where(y[keep] == 1, 1.0, -1.0)


def test_master_problem_iterations_bounded_on_digits(monkeypatch):
    # regression: the eta-trick fixed point needed ~3,100 mu steps (each a p x p Cholesky
    # factorisation) per GDM fit on the app's default sample; the mu-Newton solver 87 mu steps
    # plus ~12 SVM Newton steps per call; the primal Newton solver ~6 steps per call
    X, y = _digits_01()
    seen = _count_inner(monkeypatch)
    g = GDM(tau=0.3).fit(X, y)
    assert seen["calls"] == g.n_iter_  # one master problem per cutting-plane iteration
    assert seen["steps"] <= 20 * seen["calls"]
    h = g.objective_history_
    assert np.all(np.diff(h) >= -1e-6 * h[1:])
    assert np.all(g.gap_history_ <= 1e-6 * h + 1e-15)


@pytest.mark.parametrize("solver", ["primal", "dual"])
def test_master_problem_digits_tight_tolerance_kkt(solver):
    # ten nearly tied kernels of pixel columns, solved to a 1e-10 gap: exact KKT
    X, y = _digits_01()
    X = X[:, X.std(axis=0) > 0]
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    rng = np.random.default_rng(3)
    cols = rng.choice(Z.shape[1], size=40, replace=False)
    Z = Z[:, cols]
    ko = np.repeat(np.arange(10), 4)
    r = (solve_master if solver == "primal" else solve_mkl)(Z, y, ko, 1.0, tol=1e-10)
    assert r.gap <= 1e-10 * r.objective
    assert r.n_iter <= 60
    g = np.array([_g(Z, y, ko, 1.0, r.alpha, t) for t in range(10)])
    assert np.all(r.mu >= 0) and r.mu.sum() == pytest.approx(1.0)
    assert r.objective == pytest.approx(g.max(), rel=1e-12)
    assert np.all(g[r.mu > 1e-6] >= g.max() * (1 - 1e-8))  # complementary slackness


def _primal_kkt(Z, Y, ko, C, r, loss):
    """Optimality of (W, gamma) for P = 1/2 (sum_t ||W_t||)^2 + loss: relative violations."""
    Y = Y[:, None] if Y.ndim == 1 else Y
    T = int(ko.max()) + 1
    F = Z @ r.W
    if loss == "squared_hinge":
        Xi = np.maximum(r.gamma[None, :] - Y * F, 0.0)
        Gw = -C * Z.T @ (Y * Xi)
        dgamma = C * Xi.sum(axis=0) - 1.0  # stationarity in the margins
    else:
        Gw = -C * Z.T @ (Y - F)
        dgamma = np.zeros(1)
    nrm = np.array([np.linalg.norm(r.W[ko == t]) for t in range(T)])
    gl = np.array([np.linalg.norm(Gw[ko == t]) for t in range(T)])
    N = nrm.sum()
    act = nrm > 1e-9 * N
    # active kernel: grad_t loss = -N W_t / ||W_t||; inactive: ||grad_t loss|| <= N
    stat = max(
        (np.linalg.norm(Gw[ko == t] + N * r.W[ko == t] / nrm[t]) for t in np.flatnonzero(act)), default=0.0
    )
    return stat / N, max(0.0, (gl[~act].max() - N) / N) if (~act).any() else 0.0, np.abs(dgamma).max()


def test_solve_master_equals_dual_solver_on_random_problems():
    # 60 random master problems (C 0.01-100, 1-7 kernels, a duplicated column across kernels
    # in every 5th): the primal Newton solver and the mu-Newton solver agree, KKT holds
    rng = np.random.default_rng(0)
    for trial in range(60):
        n, T, per = int(rng.integers(20, 150)), int(rng.integers(1, 8)), int(rng.integers(1, 5))
        Z = rng.standard_normal((n, T * per))
        if trial % 5 == 0 and T > 1:
            Z[:, per] = Z[:, 0]
        y = np.where(Z[:, 0] + 0.5 * Z[:, -1] + rng.standard_normal(n) > 0, 1.0, -1.0)
        ko = np.repeat(np.arange(T), per)
        C = float(10 ** rng.uniform(-2, 2))
        a = solve_mkl(Z, y, ko, C, tol=1e-10)
        b = solve_master(Z, y, ko, C, tol=1e-10)
        assert b.gap <= 1e-10 * b.objective
        assert b.objective == pytest.approx(a.objective, rel=1e-9)
        assert np.allclose(b.alpha, a.alpha, atol=1e-6 * a.alpha.max())
        f_a, f_b = Z @ a.coef, Z @ b.coef  # decision values (mu is not unique with a duplicate)
        assert np.allclose(f_b, f_a, atol=1e-5 * np.abs(f_a).max())
        if trial % 5:
            assert np.allclose(b.mu, a.mu, atol=1e-4)
        assert max(_primal_kkt(Z, y, ko, C, b, "squared_hinge")) <= 1e-4


def _g_multi(Z, Y, ko, C, A, t):
    V = Z[:, ko == t].T @ (A * Y)
    return 0.5 * float((V * V).sum()) + 0.5 / C * float((A * A).sum())


@pytest.mark.parametrize("hinge", [True, False])
@pytest.mark.parametrize("c", [3, 8])
def test_structured_newton_solve_equals_the_dense_one(hinge, c):
    # the multiclass Newton system solved through its structure (per-class blocks + a low-rank
    # correction, Woodbury) must give the dense Cholesky solution of the same system
    from fsviz.select.gdm._master import _dense_newton_solve, _structured_newton_solve

    rng = np.random.default_rng(c + 10 * hinge)
    n, T, per = 40, 4, 3
    q = T * per
    Z = rng.standard_normal((n, q))
    ko = np.repeat(np.arange(T), per)
    W = rng.standard_normal((q, c))
    nrm = np.sqrt(np.bincount(ko, weights=np.einsum("ij,ij->i", W, W), minlength=T))
    N = float(nrm.sum())
    u = (W / nrm[ko][:, None]).T.reshape(-1)
    C = 2.0
    blocks = []
    for _ in range(c):
        act = rng.random(n) < 0.6 if hinge else np.ones(n, dtype=bool)
        G = Z[act].T @ Z[act]
        b = Z[act].T @ rng.choice([-1.0, 1.0], act.sum())
        blocks.append((C * G, C * b, C * float(act.sum())) if hinge else (C * G, None, None))
    rhs = rng.standard_normal(q * c + (c if hinge else 0))
    active = np.ones(T, dtype=bool)
    dense = _dense_newton_solve(blocks, u, ko, nrm, N, rhs, q, c, hinge, active)
    structured = _structured_newton_solve(blocks, u, ko, nrm, N, rhs, q, c, hinge)
    assert structured is not None
    np.testing.assert_allclose(structured, dense, rtol=1e-8, atol=1e-10 * np.abs(dense).max())


def test_multiclass_gdm_same_with_structured_and_dense_newton(monkeypatch):
    # the whole multiclass fit (digits, 10 classes) with the structured solver and with the
    # dense one forced: same supports, groups and objective
    from sklearn.datasets import load_digits

    import fsviz.select.gdm._master as mkl

    X, y = load_digits(return_X_y=True)
    X = X[:, X.std(axis=0) > 0]
    orig, solved = mkl._structured_newton_solve, []

    def counting(*args):
        out = orig(*args)
        solved.append(out is not None)
        return out

    monkeypatch.setattr(mkl, "_structured_newton_solve", counting)
    fast = GDM(tau=0.3, n_per_iter=5, max_iter=4).fit(X, y)
    assert solved and all(solved)  # every Newton step went through the structure
    monkeypatch.setattr(mkl, "_STRUCTURED_MIN_CLASSES", 10**9)
    dense = GDM(tau=0.3, n_per_iter=5, max_iter=4).fit(X, y)
    np.testing.assert_array_equal(fast.support_, dense.support_)
    assert {k: list(v) for k, v in fast.groups_.items()} == {k: list(v) for k, v in dense.groups_.items()}
    assert fast.objective_history_[-1] == pytest.approx(dense.objective_history_[-1], rel=1e-10)
    np.testing.assert_allclose(fast.coef_, dense.coef_, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_multiclass_master_problem_kkt_and_reference(C):
    # one-vs-rest squared hinge with shared kernel weights: c simplices, g_t summed over classes
    rng = np.random.default_rng(1)
    n, c, T, per = 18, 3, 3, 2
    Z = rng.standard_normal((n, T * per))
    lab = rng.integers(0, c, n)
    Z[:, 0] += lab == 0
    Z[:, 2] += 1.5 * (lab == 1)
    Z[:, 5] -= lab == 2
    Y = np.where(lab[:, None] == np.arange(c)[None, :], 1.0, -1.0)
    ko = np.repeat(np.arange(T), per)
    r = solve_master(Z, Y, ko, C, tol=1e-10)
    assert r.A.shape == (n, c) and r.W.shape == (T * per, c)
    assert np.all(r.A >= 0) and np.allclose(r.A.sum(axis=0), 1.0)
    assert r.gap <= 1e-10 * r.objective
    g = np.array([_g_multi(Z, Y, ko, C, r.A, t) for t in range(T)])
    assert r.objective == pytest.approx(g.max(), rel=1e-12)
    assert np.all(g[r.mu > 1e-6] >= g.max() * (1 - 1e-8))  # complementary slackness
    assert max(_primal_kkt(Z, Y, ko, C, r, "squared_hinge")) <= 1e-5

    # an independent generic solve of min_{A_k in simplex} max_t g_t(A) (epigraph, SLSQP with
    # analytic gradients: d g_t / dA = Y o (Z_t Z_t'(A o Y)) + A / C)
    def con_t(x, t):
        return x[-1] - _g_multi(Z, Y, ko, C, x[:-1].reshape(n, c), t)

    def jac_t(x, t):
        A = x[:-1].reshape(n, c)
        Zt = Z[:, ko == t]
        dA = Y * (Zt @ (Zt.T @ (A * Y))) + A / C
        return np.r_[-dA.ravel(), 1.0]

    def simplex(k):
        e = np.zeros((n, c))
        e[:, k] = 1.0
        return {
            "type": "eq",
            "fun": lambda x: x[:-1].reshape(n, c)[:, k].sum() - 1,
            "jac": lambda x: np.r_[e.ravel(), 0.0],
        }

    cons = [simplex(k) for k in range(c)]
    cons += [{"type": "ineq", "fun": con_t, "jac": jac_t, "args": (t,)} for t in range(T)]
    ref = minimize(
        lambda x: x[-1],
        np.r_[np.full(n * c, 1 / n), 1.0],
        jac=lambda x: np.r_[np.zeros(n * c), 1.0],
        constraints=cons,
        bounds=[(0, None)] * (n * c) + [(None, None)],
        method="SLSQP",
        options=dict(ftol=1e-15, maxiter=3000),
    )
    assert r.objective == pytest.approx(ref.fun, rel=1e-6)


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_regression_master_problem_kkt_and_reference(C):
    # squared loss: theta* = min_a max_t g_t(a) - a'y = -P*, a = C * residual
    rng = np.random.default_rng(2)
    n, T, per = 30, 3, 2
    Z = rng.standard_normal((n, T * per))
    y = Z[:, 0] - 0.5 * Z[:, 3] + 0.3 * rng.standard_normal(n)
    y -= y.mean()
    ko = np.repeat(np.arange(T), per)
    r = solve_master(Z, y, ko, C, loss="squared", tol=1e-10)
    assert r.gap <= 1e-10 * abs(r.objective)
    assert np.allclose(r.alpha, C * (y - Z @ r.coef), atol=1e-10 * np.abs(r.alpha).max())
    assert max(_primal_kkt(Z, y, ko, C, r, "squared")) <= 1e-5

    def h(a, t):
        v = Z[:, ko == t].T @ a
        return 0.5 * v @ v + 0.5 / C * a @ a - a @ y

    def dh(a, t):
        Zt = Z[:, ko == t]
        return Zt @ (Zt.T @ a) + a / C - y

    cons = [
        {
            "type": "ineq",
            "fun": lambda x, t: x[-1] - h(x[:n], t),
            "jac": lambda x, t: np.r_[-dh(x[:n], t), 1.0],
            "args": (t,),
        }
        for t in range(T)
    ]
    ref = minimize(
        lambda x: x[-1],
        np.r_[np.zeros(n), 1.0],
        jac=lambda x: np.r_[np.zeros(n), 1.0],
        constraints=cons,
        method="SLSQP",
        options=dict(ftol=1e-15, maxiter=3000),
    )
    assert r.objective == pytest.approx(ref.fun, rel=1e-6)


def test_solve_master_reaches_tight_gap_on_hard_random_problems():
    # stress: one-class (uncentred, all +1), duplicated kernels, C 0.01-100, up to 11 kernels,
    # multiclass and regression; every problem to a 1e-10 relative gap in few Newton steps
    # (before the ratio test and the activation rule, duplicated kernels cycled to max_iter)
    rng = np.random.default_rng(7)
    for trial in range(90):
        n, T, per = int(rng.integers(20, 200)), int(rng.integers(1, 12)), int(rng.integers(1, 5))
        Z = rng.standard_normal((n, T * per))
        ko = np.repeat(np.arange(T), per)
        C = float(10 ** rng.uniform(-2, 2))
        kind = trial % 3
        if kind == 0:  # one-class
            Z = Z + rng.uniform(0, 2, T * per)
            Z /= np.linalg.norm(Z, axis=0) / np.sqrt(n)
            Y, loss = np.ones(n), "squared_hinge"
        elif kind == 1:  # multiclass
            c = int(rng.integers(3, 6))
            lab = rng.integers(0, c, n)
            lab[:c] = np.arange(c)
            Z[:, 0] += lab % 2
            Y, loss = np.where(lab[:, None] == np.arange(c)[None, :], 1.0, -1.0), "squared_hinge"
        else:  # regression
            Y = Z[:, 0] - Z[:, -1] + rng.standard_normal(n)
            Y, loss = Y - Y.mean(), "squared"
        if trial % 2 == 0 and T > 1:
            Z[:, per : 2 * per] = Z[:, :per]  # a duplicated kernel: mu is not unique
        r = solve_master(Z, Y, ko, C, loss=loss, tol=1e-10)
        assert r.gap <= 1e-10 * max(abs(r.objective), abs(r.lower)), (trial, r.gap)
        assert r.n_iter <= 60
        assert max(_primal_kkt(Z, Y, ko, C, r, loss)[:2]) <= 1e-4
