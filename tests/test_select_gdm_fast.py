"""Exactness of GDM's fused passes (issue 14): the statistics pass, the split float32
pre-screen of group completion and the register-blocked CRM kernel give the same results as
the separate passes and the plain formulas they replace."""

import numpy as np
import pytest

from fsviz.select import GDM
from fsviz.select.gdm import _complete, _scan, _state
from fsviz.select.gdm import _crm_kernels as CK
from fsviz.select.gdm import _kernels as GK
from fsviz.stats.moments import column_moments


def _abs_corr(X):
    Z = X - X.mean(axis=0)
    Z = Z / np.linalg.norm(Z, axis=0)
    return np.abs(Z.T @ Z)


def _brute_groups(X, support, thr):
    """Every non-SF feature to its most correlated SF (first maximum) when |rho| >= thr."""
    C = _abs_corr(X)[:, support]
    groups = {int(s): [] for s in support}
    for k in range(X.shape[1]):
        if k in groups:
            continue
        j = int(np.argmax(C[k]))
        if C[k, j] >= thr:
            groups[int(support[j])].append(k)
    return {s: sorted(v) for s, v in groups.items()}


# ----------------------------------------------------------------------------- statistics pass
def _readonly(X: np.ndarray) -> np.ndarray:
    """A read-only view, as GDM passes ``dense_stats`` its data (one compiled kernel for both)."""
    X = X.view()
    X.flags.writeable = False
    return X


@pytest.mark.parametrize("n", [2048, 1023, 6])
@pytest.mark.parametrize("n_parts", [1, 2, 3])
def test_dense_stats_bitwise_numpy_and_rows_dot(n, n_parts):
    # sums bitwise numpy's axis-0 reductions (what column_moments used), min/max exact,
    # X'w bitwise rows_dot over all rows; row counts not a multiple of four; one or more parts
    rng = np.random.default_rng(n)
    X = rng.standard_normal((n, 777)) * rng.uniform(0.1, 50, 777) + rng.uniform(-5, 5, 777)
    w = rng.standard_normal(n)
    s1, s2, lo, hi, u = GK.dense_stats(_readonly(X), w, n_parts)
    assert np.array_equal(s1, X.sum(axis=0))
    assert np.array_equal(s1 / n, X.mean(axis=0))
    assert np.array_equal(s2, np.einsum("ij,ij->j", X, X))
    assert np.array_equal(lo, X.min(axis=0)) and np.array_equal(hi, X.max(axis=0))
    assert np.array_equal(u, GK.rows_dot(X, np.arange(n), w))
    assert np.allclose(u, X.T @ w, rtol=1e-12, atol=1e-12)
    Xs = _readonly(np.ascontiguousarray(X[:, :50]))  # C-ordered, as GDM passes it (the only layout it does)
    py = GK.dense_stats.py_func(Xs, w, n_parts)
    for a, b in zip(py, GK.dense_stats(Xs, w, n_parts), strict=True):
        assert np.array_equal(a, b)
    _, _, _, _, u0 = GK.dense_stats(_readonly(X), np.empty(0), n_parts)  # no vector: no product
    assert not u0.any()


def test_column_moments_from_pass_sums_equal_its_own():
    # shifted columns (mean >> spread) take the exact two-pass recomputation either way
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 400)) * 1e-3 + rng.uniform(-1e4, 1e4, 400)
    X[:, 7] = 3.0  # constant
    s1, s2, *_ = GK.dense_stats(_readonly(X), np.empty(0), 2)
    mean, norm = column_moments(X, sums=(s1, s2))
    mean0, norm0 = column_moments(X)
    assert np.array_equal(mean, mean0) and np.array_equal(norm, norm0)
    assert norm[7] == 0.0


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_statistics_pass_is_the_finiteness_check(bad):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((600, 2000))  # above _STATS_MIN_SIZE: the fused pass
    assert X.size >= _scan._STATS_MIN_SIZE
    y = rng.integers(0, 2, 600)
    X[17, 1234] = bad
    with pytest.raises(ValueError, match="Input X contains (NaN|infinity)"):
        GDM(n_per_iter=2, max_iter=1).fit(X, y)


def test_statistics_pass_overflowing_sums_and_extreme_scale():
    # values near the float64 limit: the sums overflow although every value is finite, so
    # the pass hands over to assert_all_finite and the power-of-two scaling; same fit as on
    # the unscaled data (scaling by 2^k changes no correlation)
    rng = np.random.default_rng(2)
    X = rng.standard_normal((600, 2000))
    X[:, 5] = X[:, 3] + 0.05 * rng.standard_normal(600)
    y = (X[:, 3] + 0.5 * rng.standard_normal(600) > 0).astype(int)
    ref = GDM(n_per_iter=3, max_iter=2).fit(X, y)
    for scale in (2.0**1020, 2.0**-1000, 2.0**400):
        g = GDM(n_per_iter=3, max_iter=2).fit(X * scale, y)
        assert np.array_equal(g.support_, ref.support_)
        assert all(np.array_equal(g.groups_[k], ref.groups_[k]) for k in ref.groups_)
        assert np.allclose(g.scores_, ref.scores_, rtol=1e-12)


def test_first_scan_from_the_statistics_pass(monkeypatch):
    # the cutting plane's first X'v comes from the pass: one scanner scan fewer, and the
    # vector equals the first iteration's alpha * y
    rng = np.random.default_rng(3)
    X = rng.standard_normal((700, 1600))
    y = (X[:, 0] > 0).astype(int)
    seen = []
    orig = _scan._Scanner.dot
    monkeypatch.setattr(_scan._Scanner, "dot", lambda self, V: (seen.append(V.copy()), orig(self, V))[1])
    g = GDM(n_per_iter=4, max_iter=3, tol=0.0).fit(X, y)
    assert len(seen) == g.n_iter_  # iterations 2..T and the final scan in _finish
    y_pm = np.where(y == 1, 1.0, -1.0)
    v0 = _state.start_vector(y_pm, "squared_hinge", 1.0)
    assert np.array_equal(v0, np.full(700, 1.0 / 700) * y_pm)
    assert not any(np.array_equal(v, v0) for v in seen)


# ----------------------------------------------------------------------------- split pre-screen
def _split_upper(X, Zs, mean, norm, k):
    """The pre-screen's upper bound on max |rho| per feature, as _block_complete_pcc forms it."""
    n, m = X.shape
    Z32 = np.ascontiguousarray(Zs[:k], dtype=np.float32)
    sum32 = Z32.sum(axis=0, dtype=np.float64)
    tz = np.sqrt(np.einsum("ij,ij->j", Zs[k:], Zs[k:])) * (1.0 + 1e-6) + 1e-150
    tail = np.empty(m)
    GK.tail_ss(X, 0, k, mean, tail, 2)
    tx = np.sqrt(tail + (n + 1) * 2.0**-1022) / norm * (1.0 + 1e-6)
    X32 = np.ascontiguousarray(X[:k], dtype=np.float32)
    up = np.empty(m)
    GK.prescreen_max(X32.T @ Z32, mean, sum32, norm, tx, tz, up)
    return up


@pytest.mark.parametrize(
    "n, loc, scale", [(2048, 0.0, 1.0), (1500, 5.0, 1e-3), (1100, -40.0, 1e20), (1024, 1.0, 1e-30)]
)
def test_split_prescreen_bound_holds(n, loc, scale):
    # |rho64| <= upper + _f32_bound for every feature and SF on random, shifted, badly
    # scaled and strongly correlated columns: a feature rejected by the split pre-screen
    # cannot reach the threshold. And the tails do their job on uncorrelated columns.
    rng = np.random.default_rng(n)
    base = rng.standard_normal((n, 1))
    X = (loc + rng.standard_normal((n, 400)) + rng.uniform(0, 30, 400) * base) * scale
    X[:, :50] = loc * scale + scale * rng.standard_normal((n, 50))  # uncorrelated block
    mean, norm = column_moments(X)
    sf = np.arange(0, 400, 40)
    Zs = np.ascontiguousarray((X[:, sf] - mean[sf]) / norm[sf])
    rho64 = np.abs(X.T @ Zs - mean[:, None] * Zs.sum(axis=0)[None, :]) / norm[:, None]
    k = _complete._split_rows(n, 0.7)
    assert k < n
    up = _split_upper(X, Zs, mean, norm, k)
    z_nrm = float(np.sqrt(np.max(np.einsum("ij,ij->j", Zs, Zs))))
    bound = _complete._f32_bound(n, z_nrm, mean, norm)
    assert np.all(rho64.max(axis=1) <= up + bound)
    assert np.all(up[1:40] < 0.7)  # uncorrelated features: rejected without a recheck


def test_split_prescreen_engaged_and_exact_at_the_threshold():
    # features planted at |rho| = thr +- delta (1e-9 .. 1e-4) against three SFs, n = 2048:
    # the split pre-screen runs (k < n) and the groups are float64 brute force's
    rng = np.random.default_rng(7)
    n, thr = 2048, 0.7
    S = rng.standard_normal((n, 3))
    Q, _ = np.linalg.qr(np.column_stack([np.ones(n), S - S.mean(axis=0), rng.standard_normal((n, 300))]))
    Zs = np.ascontiguousarray(Q[:, 1:4])
    E = Q[:, 4:]
    deltas = np.concatenate([s * 10.0 ** -np.arange(4, 10) for s in (1, -1)])
    deltas = np.concatenate([deltas, rng.uniform(-2e-4, 2e-4, 120 - deltas.size)])
    c = thr + deltas
    owner = np.arange(120) % 3
    X = Zs[:, owner] * c + E[:, :120] * np.sqrt(1 - c**2)
    X = 2.0 + np.column_stack([X, E[:, 120:], Zs])  # 180 uncorrelated columns, SFs last
    m = X.shape[1]
    sf = np.arange(m - 3, m)
    mean, norm = column_moments(X)
    Zsf = np.ascontiguousarray((X[:, sf] - mean[sf]) / norm[sf])
    elig = np.ones(m, bool)
    elig[sf] = False
    calls = []
    orig = GK.tail_ss
    GK.tail_ss = lambda *a: (calls.append(a[2]), orig(*a))[1]
    try:
        feats, owners, vals, nc = _complete._block_complete_pcc(
            X, 0, mean, norm, np.zeros(m), elig, Zsf, np.zeros(3), np.arange(3), Zsf.sum(axis=0), np.inf, thr
        )
    finally:
        GK.tail_ss = orig
    assert calls and all(k == _complete._split_rows(n, thr) < n for k in calls)  # the split ran
    assert nc == m * 3
    truth = np.flatnonzero(deltas >= 0)
    assert np.array_equal(np.sort(feats), truth)
    assert np.array_equal(owners[np.argsort(feats)], owner[truth])
    C = _abs_corr(X)
    assert np.allclose(np.sort(vals), np.sort(C[truth][:, sf].max(axis=1)), rtol=0, atol=1e-14)


@pytest.mark.parametrize("order", ["C", "F"])
def test_split_prescreen_falls_back_when_the_tails_are_large(order):
    # features living on the rows the split leaves out (zero on the first k rows): the tail
    # bound says nothing, too many would need a recheck, the slice is redone on all rows;
    # GDM's groups are brute force's either way
    rng = np.random.default_rng(11)
    n, m = 1200, 900
    X = rng.standard_normal((n, m))
    k = _complete._split_rows(n, 0.7)
    X[:k, : m // 2] = 0.0
    X[:, 1] = X[:, 0] + 0.3 * rng.standard_normal(n)  # one real group
    X[:, 600] = X[:, 2] * 2.0 + 0.2 * rng.standard_normal(n)
    X = np.asarray(X, order=order)
    y = (X[:, 0] + X[:, 2] + 0.5 * rng.standard_normal(n) > 0).astype(int)
    ks = []
    orig = GK.prescreen_max
    GK.prescreen_max = lambda P, *a: (ks.append(P.shape), orig(P, *a))[1]
    try:
        g = GDM(n_per_iter=5, max_iter=2).fit(X, y)
    finally:
        GK.prescreen_max = orig
    ref = _brute_groups(X, g.support_, 0.7)
    assert {s: g.groups_[s].tolist() for s in ref} == {s: sorted(v) for s, v in ref.items()}
    assert sum(len(v) for v in ref.values()) >= 2
    assert len(ks) > 1  # the first slice was screened again (fallback to all rows)


@pytest.mark.parametrize("order", ["C", "F"])
def test_tail_and_prescreen_kernels_match_numpy_and_python_body(order):
    rng = np.random.default_rng(4)
    X = np.asarray(rng.standard_normal((103, 70)) * 3 + 1, order=order)
    mean = X.mean(axis=0)
    k = 41
    ref = ((X[k:] - mean) ** 2).sum(axis=0)
    out, out_py = np.empty(70), np.empty(70)
    GK.tail_ss(X, 0, k, mean, out, 2)
    GK.tail_ss.py_func(X, 0, k, mean, out_py, 2)
    assert np.allclose(out, ref, rtol=1e-13) and np.array_equal(out, out_py)
    sub = np.empty(30)
    GK.tail_ss(X, 40, k, mean[40:], sub, 1)  # an offset slice
    assert np.allclose(sub, ref[40:], rtol=1e-13)
    P = rng.standard_normal((70, 9)).astype(np.float32)
    cs, nrm = rng.standard_normal(9), rng.uniform(1, 2, 70)
    tx, tz = rng.uniform(0, 1, 70), rng.uniform(0, 1, 9)
    R = np.abs(P.astype(np.float64) - mean[:, None] * cs[None, :]) / nrm[:, None]
    want = (R + tx[:, None] * tz).max(axis=1)
    got, got_py = np.empty(70), np.empty(70)
    GK.prescreen_max(P, mean, cs, nrm, tx, tz, got)
    GK.prescreen_max.py_func(P, mean, cs, nrm, tx, tz, got_py)
    assert np.array_equal(got, want) and np.array_equal(got_py, want)
    P[3, 4] = np.float32(np.inf)
    P[5, 0] = np.float32(np.nan)
    GK.prescreen_max(P, mean, cs, nrm, tx, tz, got)
    assert got[3] == np.inf and got[5] == np.inf  # non-finite: always rechecked


# ----------------------------------------------------------------------------- CRM kernel
def test_crm_kernel_four_sfs_per_sweep_is_bitwise_one_at_a_time():
    # the register-blocked kernel against the one-SF-at-a-time dot products (Python floats,
    # the old order of additions): same statuses, bitwise the same |rho|
    rng = np.random.default_rng(5)
    n, c, p0 = 64, 24, 11
    base = rng.standard_normal((n, 6))
    Xc = np.asfortranarray(base[:, rng.integers(0, 6, c)] + 0.4 * rng.standard_normal((n, c)))
    S = base[:, rng.integers(0, 6, p0)] + 0.4 * rng.standard_normal((n, p0))
    S = (S - S.mean(axis=0)) / np.linalg.norm(S - S.mean(axis=0), axis=0)
    mean_c = Xc.mean(axis=0)
    norm_c = np.linalg.norm(Xc - mean_c, axis=0)
    t_c = rng.standard_normal(c)
    is_sf = np.zeros(c, bool)
    is_sf[3] = True
    Z1 = np.zeros((n, p0 + c), order="F")
    Z1[:, :p0] = S
    t_s1 = np.zeros(p0 + c)
    t_s1[:p0] = np.linspace(-1, 1, p0)
    s1, c1 = np.full(c, -2, np.int64), np.zeros(c)
    r1 = CK.crm_walk_pcc(Xc.T, mean_c, norm_c, t_c, is_sf, Z1, t_s1, p0, 0.9, 0.7, 15, s1, c1)
    assert r1[0] == p0 + int(np.sum(s1 == -1)) and r1[3] == int(np.sum(s1 != -2))  # SFs, processed
    # reference: one SF at a time, replayed on the kernel's own decisions
    Zs = np.zeros((n, p0 + c), order="F")
    Zs[:, :p0] = S
    t_s = np.zeros(p0 + c)
    t_s[:p0] = np.linspace(-1, 1, p0)
    n_sf = p0
    for i in range(c):
        if s1[i] == -2:
            break
        if is_sf[i]:
            assert s1[i] == -3
            continue
        best, bj = -1.0, -1
        for j in range(n_sf):
            if abs(abs(t_c[i]) - abs(t_s[j])) > 0.9:
                continue
            dot = 0.0
            for r in range(n):
                dot += (float(Xc[r, i]) - float(mean_c[i])) * float(Zs[r, j])
            rho = abs(dot) / norm_c[i]
            if rho > best:
                best, bj = rho, j
        if bj >= 0 and best >= 0.7:
            assert s1[i] == bj and c1[i] == best
        else:
            assert s1[i] == -1
            Zs[:, n_sf] = (Xc[:, i] - mean_c[i]) * (1.0 / norm_c[i])
            t_s[n_sf] = t_c[i]
            n_sf += 1
    assert (s1 >= 0).any() and (s1 == -1).any()  # both outcomes exercised


# ----------------------------------------------------------------------------- SF column cache
@pytest.mark.parametrize("kw", [dict(), dict(one_class=True), dict(corr="su"), dict(tau=0.0)])
def test_sf_columns_from_the_walks_cache_change_nothing(monkeypatch, kw):
    # the master problem and completion take the SF columns the CRM walks gathered: X is
    # read only by the walks, and the fit is bitwise the one that gathers them again
    rng = np.random.default_rng(6)
    X = rng.standard_normal((300, 500))
    X[:, 1] = X[:, 0] + 0.2 * rng.standard_normal(300)
    y = (X[:, 0] + X[:, 9] > 0).astype(int)
    kw = dict(n_per_iter=4, max_iter=3, **kw)
    calls = []
    orig = _scan._gather
    monkeypatch.setattr(_scan, "_gather", lambda *a, **k: (calls.append(1), orig(*a, **k))[1])
    g = GDM(**kw).fit(X, y)
    n_walk = len(calls)
    gather_all = lambda self, idx: _scan._gather(self.X, np.asarray(idx, dtype=np.intp))  # noqa: E731
    monkeypatch.setattr(_state.FitState, "columns", gather_all)
    calls.clear()
    ref = GDM(**kw).fit(X, y)
    if kw.get("tau") != 0.0:
        assert n_walk < len(calls)  # fewer reads of X with the cache
    assert np.array_equal(g.support_, ref.support_)
    assert all(np.array_equal(g.groups_[k], ref.groups_[k]) for k in ref.groups_)
    assert np.array_equal(g.coef_, ref.coef_) and np.array_equal(g.scores_, ref.scores_)
    assert np.array_equal(g.objective_history_, ref.objective_history_)


# ----------------------------------------------------------------------------- thread rule
@pytest.fixture
def two_numba_threads():
    """numba at two threads (where it has them) for the test, whatever the run's limit (xdist: 1)."""
    import numba

    ambient = numba.get_num_threads()
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    yield
    numba.set_num_threads(ambient)


def test_free_threads_rule(monkeypatch, two_numba_threads):
    import numba

    monkeypatch.setattr(_scan, "_CPUS", 8)
    for load, want in [(0.0, 8), (0.4, 8), (0.6, 7), (3.2, 5), (7.6, 1), (1e9, 1)]:
        monkeypatch.setattr(_scan.os, "getloadavg", lambda load=load: (load, load, load))
        assert _scan._free_threads() == want
    monkeypatch.setattr(_scan, "_CPUS", 2)
    monkeypatch.setattr(_scan.os, "getloadavg", lambda: (1.2, 1.2, 1.2))  # one core taken
    assert _scan._free_threads() == 1
    before = numba.get_num_threads()
    with _scan._blas_threads():
        info = _scan._POOL.info()
        assert all(lib["num_threads"] == 1 for lib in info if lib["user_api"] == "blas")
    with _scan._numba_threads():
        assert numba.get_num_threads() == 1
    assert numba.get_num_threads() == before
    monkeypatch.setattr(_scan.os, "getloadavg", lambda: (0.1, 0.1, 0.1))  # idle: no limit
    assert _scan._free_threads() == 2
    with _scan._numba_threads():
        assert numba.get_num_threads() == before
