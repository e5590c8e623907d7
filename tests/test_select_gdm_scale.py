"""GDM's scale path on sparse data: the completion kernels against the dense code and brute force."""

import numpy as np
import pytest
import scipy.sparse as sp

from fsviz.select import GDM
from fsviz.select.gdm import _crm_kernels as CK
from fsviz.select.gdm import _kernels as GK
from fsviz.select.gdm._complete import _block_complete_pcc, _block_complete_su
from fsviz.stats.information import discretize, su_cross


def _sparse_counts(n=120, m=300, density=0.05, seed=0, negative=False):
    rng = np.random.default_rng(seed)
    X = sp.random(n, m, density=density, random_state=rng, format="csc")
    X.data = np.ceil(X.data * 4)  # counts 1..4
    if negative:
        X.data *= rng.choice([-1.5, 0.5, 2.25], size=X.data.size)
    X = X.tolil()
    X[:, 3] = rng.integers(1, 4, size=(n, 1))  # a column without implicit zeros
    X[: n // 3, 5] = X[: n // 3, 7]  # a copy on a third of the rows: correlated
    X[:, 9] = X[:, 11] * 2  # an exact multiple
    X[0, 12] = 1.0
    X = X.tocsc()
    a, b = X.indptr[12], X.indptr[13]
    X.data[a:b][X.indices[a:b] == 0] = 0.0  # an explicitly stored zero
    return X


def _moments(D):
    mean = D.mean(axis=0)
    norm = np.sqrt(((D - mean) ** 2).sum(axis=0))
    return mean, norm


@pytest.mark.parametrize("strategy", ["discrete", "uniform"])
def test_sparse_su_completion_equals_dense(strategy):
    X = _sparse_counts(negative=strategy == "uniform")
    D = X.toarray()
    sf = np.array([7, 11, 3, 40])
    codes = discretize(D[:, sf], n_bins=10, strategy=strategy)
    elig = np.ones(D.shape[1], dtype=bool)
    elig[sf] = False
    _, norm = _moments(D)
    elig &= norm > 0
    args = (np.asfortranarray(codes.codes), codes.k, codes.entropies(), elig, 0.0, 10, strategy)
    fs, os_, vs, ns = _block_complete_su(X, 0, *args)
    fd, od, vd, nd = _block_complete_su(D, 0, *args)
    assert ns == nd
    assert np.array_equal(fs, fd) and np.array_equal(os_, od)
    assert np.allclose(vs, vd, rtol=1e-12, atol=1e-13)
    # and against su_cross on the whole dense matrix (brute force)
    allc = discretize(D, n_bins=10, strategy=strategy)
    S = su_cross(allc, sf, np.arange(D.shape[1]))
    ref = S.max(axis=0)[elig]
    assert np.allclose(vd, ref, rtol=1e-12, atol=1e-13)
    # with a threshold, the entropy bound skips pairs that cannot reach it: the features that
    # reach it, their owners and values stay those of the dense path
    for thr in (0.05, 0.3, 0.7):
        args_t = args[:4] + (thr,) + args[5:]
        fs, os_, vs, _ = _block_complete_su(X, 0, *args_t)
        fd, od, vd, _ = _block_complete_su(D, 0, *args_t)
        assert np.array_equal(fs, fd) and np.array_equal(os_, od)
        assert np.allclose(vs, vd, rtol=1e-12, atol=1e-13)
        assert np.array_equal(np.sort(fs), np.flatnonzero(elig)[ref >= thr])


def test_su_entropy_bound_rules_out_only_impossible_pairs():
    from fsviz.select.gdm import _kernels as K

    rng = np.random.default_rng(0)
    for _ in range(200):
        a = rng.integers(0, int(rng.integers(2, 5)), size=60)
        b = np.where(rng.random(60) < rng.random(), a, rng.integers(0, 4, size=60))  # partly a copy
        codes = discretize(np.c_[a, b].astype(float), strategy="discrete")
        h = codes.entropies()
        su = su_cross(codes, np.array([0]), np.array([1]))[0, 0]
        for thr in (0.1, 0.5, 0.9):
            if su >= thr:
                assert K.su_can_reach(h[1], h[0], thr) and K.su_can_reach.py_func(h[1], h[0], thr)
    assert not K.su_can_reach(1e-4, 0.5, 0.7)  # a rare term against a common SF
    assert K.su_can_reach(0.0, 0.0, 0.0) and not K.su_can_reach(0.0, 0.0, 0.7)


@pytest.mark.parametrize("window", [0.02, 10.0])  # windowed strategy / scan of every SF
def test_sparse_pcc_completion_equals_dense(window):
    X = _sparse_counts(seed=1, m=2500, density=0.02)
    D = X.toarray()
    mean, norm = _moments(D)
    rng = np.random.default_rng(0)
    sf = np.array([j for j in (7, 11, 3, 40, 100, 41, 42, 43, 44, 45) if norm[j] > 0][:5])
    Z = (D[:, sf] - mean[sf]) / norm[sf]
    t = rng.random(D.shape[1])
    order = np.argsort(t[sf], kind="stable")
    Zs = np.ascontiguousarray(Z[:, order])
    elig = norm > 0
    elig[sf] = False
    args = (
        mean,
        np.where(norm > 0, norm, 1.0),
        t,
        elig,
        Zs,
        t[sf][order],
        order.astype(np.intp),
        Zs.sum(axis=0),
    )
    fs, os_, vs, ns = _block_complete_pcc(X, 10, *args, window, 0.3)
    fd, od, vd, nd = _block_complete_pcc(D, 10, *args, window, 0.3)
    assert ns == nd
    assert fs.size >= 5
    R = np.abs(((D - mean) / np.where(norm > 0, norm, 1.0)).T @ Zs)  # brute force
    hit = np.flatnonzero(elig & (R.max(axis=1) >= 0.3))
    if window > 1:  # every SF compared: exactly the brute-force set
        assert np.array_equal(np.sort(fs), hit + 10)
    o1, o2 = np.argsort(fs), np.argsort(fd)
    assert np.array_equal(fs[o1], fd[o2]) and np.array_equal(os_[o1], od[o2])
    assert np.allclose(vs[o1], vd[o2], rtol=1e-12)


def test_sparse_pcc_kernel_matches_python_body():
    X = _sparse_counts(seed=2)
    rng = np.random.default_rng(2)
    Zr = rng.standard_normal((X.shape[0], 6))
    Zr = (Zr - Zr.mean(axis=0)) / np.linalg.norm(Zr - Zr.mean(axis=0), axis=0)  # standardised SFs
    feat = np.arange(0, X.shape[1], 3, dtype=np.int64)
    flo = rng.integers(0, 3, size=feat.size)
    fhi = flo + rng.integers(0, 4, size=feat.size)
    mean, norm = _moments(X.toarray())
    norm = np.where(norm > 0, norm, 1.0)
    colsum, pos = Zr.sum(axis=0), np.array([5, 1, 4, 0, 2, 3])
    zmax = np.abs(Zr).max(axis=0)
    out = []
    for f in (GK.sparse_complete_pcc, GK.sparse_complete_pcc.py_func):
        best, owner = np.empty(feat.size), np.empty(feat.size, dtype=np.int64)
        f(X.indptr, X.indices, X.data, feat, flo, fhi, Zr, mean, norm, colsum, pos, best, owner, zmax, 0.0)
        out.append((best, owner))
    assert np.allclose(out[0][0], out[1][0], rtol=1e-13) and np.array_equal(out[0][1], out[1][1])
    D = X.toarray()
    brute = np.full(feat.size, -1.0)
    for q, j in enumerate(feat):
        if fhi[q] <= flo[q]:
            assert out[0][0][q] == -1 and out[0][1][q] == -1
            continue
        r = np.abs((D[:, j] @ Zr[:, flo[q] : fhi[q]] - mean[j] * colsum[flo[q] : fhi[q]]) / norm[j])
        brute[q] = r.max()
        assert np.isclose(out[0][0][q], r.max(), rtol=1e-12)
    # with a threshold, the Cauchy-Schwarz skip leaves every feature that reaches it unchanged
    for thr in (0.05, 0.2, 0.5):
        best, owner = np.empty(feat.size), np.empty(feat.size, dtype=np.int64)
        GK.sparse_complete_pcc(
            X.indptr, X.indices, X.data, feat, flo, fhi, Zr, mean, norm, colsum, pos, best, owner, zmax, thr
        )
        hit = brute >= thr
        assert np.array_equal(best >= thr, hit)
        assert np.array_equal(best[hit], out[0][0][hit]) and np.array_equal(owner[hit], out[0][1][hit])
    skipped = (best == -1) & (brute >= 0)
    assert skipped.any()  # the bound settles some features at 0.5


def test_kth_largest_matches_partition_and_python_body():
    rng = np.random.default_rng(0)
    for t in range(60):
        m = int(rng.integers(1, 30000))
        key = rng.random(m)
        if t % 3 == 0:
            key = np.round(key, int(rng.integers(0, 4)))  # heavy ties
        if t % 4 == 0:
            key = np.sort(key)
        if t % 5 == 0:
            key[rng.random(m) < 0.5] = -1.0
        k = int(rng.integers(1, m + 1))
        ref = np.partition(key, m - k)[m - k]
        assert GK.kth_largest(key, k) == ref
        if m < 10000:
            assert GK.kth_largest.py_func(key, k) == ref


@pytest.mark.parametrize("params", [dict(corr="su", tau=0.5), dict(), dict(one_class=True)])
def test_sparse_fit_equals_dense_fit(params):
    X = _sparse_counts(seed=3, n=150, m=800, density=0.04)
    rng = np.random.default_rng(3)
    y = (X[:, 7].toarray().ravel() + rng.random(X.shape[0]) > 1.5).astype(int)
    a = GDM(n_per_iter=4, max_iter=3, **params).fit(X.toarray(), y)
    b = GDM(n_per_iter=4, max_iter=3, **params).fit(X, y)
    assert np.array_equal(a.support_, b.support_)
    assert a.groups_.keys() == b.groups_.keys()
    assert all(sorted(a.groups_[k]) == sorted(b.groups_[k]) for k in a.groups_)
    assert a.n_correlations_ == b.n_correlations_


@pytest.mark.parametrize("window", [0.05, 10.0])
def test_sparse_crm_walk_equals_dense_walk(window):
    X = _sparse_counts(seed=4, n=200, m=400, density=0.05)
    D = X.toarray()
    mean, norm = _moments(D)
    rng = np.random.default_rng(4)
    chunk = np.array([j for j in range(D.shape[1]) if norm[j] > 0][:120])
    chunk = np.concatenate([chunk, [7, 5, 9, 11]])  # correlated pairs: AFs
    t = rng.random(D.shape[1]) * 0.2
    is_sf = np.zeros(chunk.size, dtype=bool)
    is_sf[3] = True
    outs = []
    for sparse in (False, True):
        Z = np.zeros((D.shape[0], 200), order="F")
        ts = np.zeros(200)
        status = np.full(chunk.size, -2, dtype=np.int64)
        corr = np.zeros(chunk.size)
        args = (mean[chunk], norm[chunk], t[chunk], is_sf)
        if sparse:
            C = X[:, chunk].tocsc()
            zsum = np.zeros(200)
            r = CK.crm_walk_pcc_sparse(
                C.indptr, C.indices, C.data, *args, Z, zsum, ts, 0, window, 0.7, 100, status, corr
            )
            assert np.allclose(zsum[: r[0]], Z[:, : r[0]].sum(axis=0), atol=1e-12)
        else:
            r = CK.crm_walk_pcc(
                np.ascontiguousarray(D[:, chunk].T), *args, Z, ts, 0, window, 0.7, 100, status, corr
            )
        outs.append((r, status, corr, Z[:, : r[0]].copy()))
    (r0, s0, c0, z0), (r1, s1, c1, z1) = outs
    assert r0 == r1 and np.array_equal(s0, s1)
    assert np.allclose(c0, c1, rtol=1e-12) and np.array_equal(z0, z1)
    assert (s0 >= 0).sum() >= 1  # an AF was found


def test_progress_reports_every_block_and_scan():
    X = _sparse_counts(seed=5, n=150, m=900, density=0.04)
    y = (X[:, 7].toarray().ravel() > 0).astype(int)
    seen = []
    g = GDM(n_per_iter=3, max_iter=3, block_size=200).fit(X, y, progress=lambda *a: seen.append(a))
    completion = [a for a in seen if a[0] == "group completion"]
    assert [a[1] for a in completion] == [1, 2, 3, 4, 5] and all(a[2] == 5 for a in completion)
    scans = [a for a in seen if a[0].startswith("score scan")]
    assert len(scans) >= g.n_iter_ - 1
    assert GDM(n_per_iter=3, max_iter=3, block_size=200).fit(X, y).support_.tolist() == g.support_.tolist()


@pytest.mark.scale
def test_column_moments_of_large_csc_without_squared_copy():
    from fsviz.stats._moments_kernels import csc_sums
    from fsviz.stats.moments import column_moments

    X = sp.random(300, 40000, density=0.1, format="csc", random_state=0)  # 1.2M non-zeros: the kernel
    X.data = X.data * 7 - 2
    mean, norm = column_moments(X)
    D = X.toarray()
    assert np.allclose(mean, D.mean(axis=0), rtol=1e-13, atol=1e-15)
    assert np.allclose(norm, np.sqrt(((D - D.mean(axis=0)) ** 2).sum(axis=0)), rtol=1e-10, atol=1e-12)
    small = X[:, :100]
    s1, s2 = csc_sums.py_func(small.indptr, small.data)
    assert np.array_equal((s1, s2), csc_sums(small.indptr, small.data))


def test_column_source_reads_fortran_file_blocks_without_the_mapping(tmp_path):
    from fsviz.select.gdm._column_source import ColumnSource

    rng = np.random.default_rng(6)
    A = np.asfortranarray(rng.integers(0, 3, size=(37, 500)).astype(np.int8))
    np.save(tmp_path / "g.npy", A)
    X = np.load(tmp_path / "g.npy", mmap_mode="r")
    src = ColumnSource(X)
    assert src._file is not None  # whole Fortran-ordered file: contiguous column ranges
    v = rng.standard_normal(37)
    for a, b in [(0, 500), (3, 4), (100, 333)]:
        assert np.array_equal(src.block(a, b), A[:, a:b].astype(np.float64))
        assert np.allclose(src.dot(a, b, v), A[:, a:b].T.astype(np.float64) @ v, rtol=1e-13)


@pytest.mark.parametrize("levels", [2, 3, 4])
def test_su_by_blas_counts_equals_su_cross(levels):
    from fsviz.select.gdm._complete import _level_indicators, _su_by_counts

    rng = np.random.default_rng(levels)
    X = rng.integers(0, levels, size=(300, 60)).astype(float)
    X[:, 5] = X[:, 3]  # identical: SU = 1
    X[:, 6] = 0.0  # constant
    X[:, 7] = (X[:, 3] > 0) * 2.0  # fewer levels
    codes = discretize(X, strategy="discrete")
    sf = np.array([3, 10, 20])
    cs = discretize(X[:, sf], strategy="discrete")
    S = _su_by_counts(codes, _level_indicators(cs.codes, int(cs.k.max())), cs.entropies())
    ref = su_cross(codes, sf, np.arange(X.shape[1]))
    assert S.shape == ref.shape
    assert np.allclose(S, ref, rtol=1e-12, atol=1e-13)
    assert np.isclose(S[0, 5], 1.0) and S[0, 6] == 0.0


def test_su_fit_on_genotypes_equals_dense_path(monkeypatch):
    from fsviz.select.gdm import _complete

    rng = np.random.default_rng(8)
    X = rng.integers(0, 3, size=(200, 300)).astype(float)
    X[:, 1] = X[:, 0]
    X[:10, 1] = 2 - X[:10, 1]
    y = (X[:, 0] + rng.random(200) > 1.5).astype(int)
    a = GDM(corr="su", tau=0.5, n_per_iter=3, max_iter=3).fit(X, y)
    monkeypatch.setattr(_complete, "_SU_GEMM_LEVELS", 0)  # the former per-pair scans
    b = GDM(corr="su", tau=0.5, n_per_iter=3, max_iter=3).fit(X, y)
    assert np.array_equal(a.support_, b.support_) and a.n_correlations_ == b.n_correlations_
    assert all(np.array_equal(a.groups_[k], b.groups_[k]) for k in a.groups_)


def test_discrete_encoding_vectorised_equals_np_unique():
    from fsviz.stats.information import _encode_columns

    rng = np.random.default_rng(9)
    for _ in range(30):
        X = rng.integers(-3, int(rng.integers(1, 40)), size=(int(rng.integers(1, 60)), 25)).astype(float)
        X[:, 0] = 5.0
        c = _encode_columns(X)
        for j in range(X.shape[1]):
            u, inv = np.unique(X[:, j], return_inverse=True)
            assert np.array_equal(c.codes[:, j], inv) and c.k[j] == len(u)
        assert c.codes.dtype == np.int32 and c.codes.flags.f_contiguous


def test_heavy_products_equal_scipy_and_python_body():
    """X_b' Zh from one ordered pass over the block's rows (fixed row chunks)."""
    from fsviz.select.gdm._sparse_sf import heavy_products

    X = _sparse_counts(n=157, m=90, seed=3).tocsr()
    Zh = np.random.default_rng(3).standard_normal((157, 5))
    ref = X.T @ Zh
    for f in (heavy_products, heavy_products.py_func):
        H = f(X.indptr, X.indices, np.asarray(X.data, dtype=np.float64), Zh, X.shape[1])
        np.testing.assert_allclose(H, ref, rtol=1e-12, atol=1e-12)
