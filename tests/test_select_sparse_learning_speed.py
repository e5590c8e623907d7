"""The fast paths of fsviz.select.sparse_learning against the paths they replace.

LSL21 on dense ``X``: numba block coordinate descent (kernel == its ``.py_func``; same minimiser as
FISTA and as the textbook row update). UDFS with ``d > 2n``: the low-rank Woodbury/Lanczos
eigensolver (certified by inertia) == LAPACK's dense ``eigh`` step by step.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sla
import scipy.sparse as sp

from fsviz.select import _sparse_learning_kernels as SLK
from fsviz.select import sparse_solvers as SL


def _problem(n=30, d=12, c=3, seed=0):
    rng = np.random.default_rng(seed)
    X = np.asfortranarray(rng.normal(size=(n, d)))
    X[:, 4] = 0.0  # a zero column stays at 0
    Y = rng.normal(size=(n, c))
    return X, Y


def test_bcd_kernel_equals_its_python_source():
    X, Y = _problem()
    rng = np.random.default_rng(1)
    W0 = rng.normal(size=(X.shape[1], Y.shape[1]))
    W0[4] = 0.0
    rows = rng.permutation(X.shape[1]).astype(np.int64)
    col_sq = np.einsum("ij,ij->j", X, X)
    out = []
    for f in (SLK.l21_bcd_epoch, SLK.l21_bcd_epoch.py_func):
        W = W0.copy()
        RT = np.ascontiguousarray((Y - X @ W).T)
        moved = f(X.T, RT, W, col_sq, 3.0, rows)
        out.append((W, RT, moved))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-12, atol=1e-12)
    assert out[0][2] == pytest.approx(out[1][2], rel=1e-12)
    # the residual is kept exact and the zero column is untouched
    np.testing.assert_allclose(out[0][1].T, Y - X @ out[0][0], atol=1e-12)
    assert not out[0][0][4].any()


def test_bcd_row_update_is_the_exact_row_minimiser():
    """Textbook: with the other rows fixed, row j minimises 1/2||R_j - x_j w'||^2 + t||w||."""
    X, Y = _problem(seed=3)
    col_sq = np.einsum("ij,ij->j", X, X)
    W = np.zeros((X.shape[1], Y.shape[1]))
    RT = np.ascontiguousarray(Y.T)
    j, t = 2, 1.5
    SLK.l21_bcd_epoch(X.T, RT, W, col_sq, t, np.array([j], dtype=np.int64))
    xj = X[:, j]
    v = xj @ Y / (xj @ xj)  # least squares of the row, then the row shrinkage
    expect = max(0.0, 1 - t / ((xj @ xj) * np.linalg.norm(v))) * v
    np.testing.assert_allclose(W[j], expect, atol=1e-12)

    def f(w):
        return 0.5 * np.sum((Y - np.outer(xj, w)) ** 2) + t * np.linalg.norm(w)

    rng = np.random.default_rng(0)
    for _ in range(30):  # no better point nearby
        assert f(W[j]) <= f(W[j] + 1e-3 * rng.normal(size=W.shape[1])) + 1e-12


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_dense_bcd_and_sparse_fista_reach_the_same_minimiser(fit_intercept):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 40))
    X[:, :5] += np.repeat(np.eye(5), 12, axis=0) * 2
    X[:, 5:10] += 0.8 * X[:, :5]  # correlated columns
    Y = SL.one_hot(np.repeat(np.arange(5), 12))
    a = 0.2 * SL.alpha_max(X, Y, fit_intercept)
    Wd, bd, hd, itd, gd = SL.lsl21_solve(X, Y, a, fit_intercept=fit_intercept, tol=1e-10, max_iter=20000)
    Ws, bs, hs, its, gs = SL.lsl21_solve(
        sp.csr_matrix(X), Y, a, fit_intercept=fit_intercept, tol=1e-10, max_iter=50000
    )
    assert itd < 20000 and its < 50000
    np.testing.assert_allclose(Wd, Ws, atol=1e-6)
    np.testing.assert_allclose(bd, bs, atol=1e-6)
    assert np.all(np.diff(hd) <= 1e-12 * np.abs(hd[:-1]))  # BCD and its extrapolation never rise
    assert len(hd) == itd
    assert 0 < np.count_nonzero(np.linalg.norm(Wd, axis=1)) < X.shape[1]


def test_lowrank_eigensolver_equals_dense_eigh():
    rng = np.random.default_rng(0)
    r, d, c = 12, 150, 4
    Z = rng.normal(size=(r, d))
    a = rng.uniform(0.5, 3.0, size=d)
    W0 = rng.normal(size=(d, c))
    Q = SL._udfs_smallest_lowrank(Z, a, c, W0)
    assert Q is not None
    _, V = sla.eigh(np.diag(a) + Z.T @ Z, subset_by_index=[0, c - 1])
    np.testing.assert_allclose(Q.T @ Q, np.eye(c), atol=1e-10)
    np.testing.assert_allclose(V @ (V.T @ Q), Q, atol=1e-8)  # same subspace


def test_lowrank_eigensolver_refuses_an_unseparated_or_missed_answer():
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(10, 120))
    # A = I: the eigenvalue 1 has multiplicity 110, the c-th and (c+1)-th cannot be separated
    assert SL._udfs_smallest_lowrank(Z, np.ones(120), 3, rng.normal(size=(120, 3))) is None


def test_udfs_lowrank_path_equals_the_dense_path(monkeypatch):
    rng = np.random.default_rng(0)
    n, d = 40, 640  # d > 2n and >= 600: the low-rank path
    X = rng.normal(size=(n, d))

    calls = []
    real, factor = SL._udfs_smallest_lowrank, SL._udfs_factor

    def counted(*args):
        out = real(*args)
        calls.append(out is not None)
        return out

    monkeypatch.setattr(SL, "_udfs_smallest_lowrank", counted)
    W, h, it = SL.udfs_solve(X, 3, 0.1, 5, 0.1, max_iter=15)
    assert calls and all(calls)  # every step after the first was low-rank and certified
    monkeypatch.setattr(SL, "_udfs_smallest_lowrank", lambda *args: None)  # every step dense
    Wd, hd, itd = SL.udfs_solve(X, 3, 0.1, 5, 0.1, max_iter=15)
    assert it == itd
    # the same first step (LAPACK's basis of the degenerate D = I problem); afterwards the paths
    # drift apart by the dense solver's rounding: D_ii reaches alpha / 2e-12 on rows near 0, and
    # LAPACK's eigenvectors are accurate only to eps ||P|| (~1e-5 here), the low-rank ones to
    # ~1e-14 (checked below on the last step)
    np.testing.assert_allclose(h[:3], hd[:3], rtol=1e-9)
    np.testing.assert_allclose(h, hd, rtol=1e-5)
    s, sd = np.linalg.norm(W, axis=1), np.linalg.norm(Wd, axis=1)
    np.testing.assert_allclose(s, sd, atol=1e-4)
    top = np.argsort(-s, kind="stable")[:20]
    assert set(top) == set(np.argsort(-sd, kind="stable")[:20])

    Lm = SL.udfs_local_matrix(X, 5, 0.1)
    M = X.T @ (Lm @ X)
    P = (M + M.T) / 2 + np.diag(0.1 / (2 * np.maximum(s, 1e-12)))
    Q = real(factor(Lm, X), np.diag(P - (M + M.T) / 2).copy(), 3, W)
    _, V = sla.eigh(P, subset_by_index=[0, 2], driver="evr")
    for U, bound in ((Q, 1e-10), (V, 1e-3)):
        T = U.T @ P @ U
        assert np.linalg.norm(P @ U - U @ T) <= bound
    assert np.trace(Q.T @ P @ Q) <= np.trace(V.T @ P @ V) + 1e-12  # the better minimiser
