"""All-pairs correlation histograms and thresholded pairs against brute force (np.corrcoef)."""

from __future__ import annotations

import os

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as hst

from fsviz.stats import CorrelationHistogram, correlated_pairs, correlation_histogram
from fsviz.stats import _corr_kernels as K

TOL = 1e-9


# ----------------------------------------------------------------------------- references
def brute_rho(X):
    """Upper-triangle (i, j, rho) over the non-constant features, via np.corrcoef."""
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    valid = np.flatnonzero(X.std(axis=0) > 0)
    C = np.corrcoef(X[:, valid].T) if valid.size > 1 else np.ones((valid.size, valid.size))
    iu, ju = np.triu_indices(valid.size, 1)
    return valid[iu], valid[ju], C[iu, ju]


def brute_hist(X, edges, tol=TOL):
    """np.histogram semantics with values within tol of an edge snapped onto it."""
    _, _, r = brute_rho(X)
    r = np.abs(r)
    edges = np.asarray(edges, float)
    k = np.clip(np.searchsorted(edges, r), 1, edges.size - 1)
    k = np.where(np.abs(r - edges[k - 1]) <= np.abs(r - edges[k]), k - 1, k)  # nearest edge
    r = np.where(np.abs(r - edges[k]) <= tol, edges[k], r)
    below = int((r < edges[0]).sum())
    above = int((r > edges[-1]).sum())
    counts, _ = np.histogram(r[(r >= edges[0]) & (r <= edges[-1])], bins=edges)
    return counts, below, above


def assert_same(h: CorrelationHistogram, X, edges=None):
    c, below, above = brute_hist(X, h.edges if edges is None else edges)
    np.testing.assert_array_equal(h.counts, c)
    assert (h.n_below, h.n_above) == (below, above)
    assert h.counts.sum() + h.n_below + h.n_above == h.n_pairs
    assert h.exact and h.counts.dtype == np.int64


def brute_pairs(X, thr):
    i, j, r = brute_rho(X)
    keep = np.abs(r) >= thr - TOL
    return i[keep], j[keep], r[keep]


# ------------------------------------------------------------------------------- fixtures
@pytest.fixture
def dense_X(rng):
    n, m = 40, 157
    latent = rng.normal(size=(n, 6))
    X = latent @ rng.normal(size=(6, m)) + rng.normal(size=(n, m)) * rng.uniform(0.2, 3, m)
    X[:, 7] = 4.0  # constant
    X[:, 20] = X[:, 3] * -2 + 1  # exact |rho| = 1 (last edge, closed)
    X[:, 150] = X[:, 3]
    return X


def edge_hitting_dense():
    """Columns whose pairwise correlations are exactly 0, 1 or 0.5 in exact arithmetic."""
    a = np.array([1, -1, 1, -1, 1, -1, 1, -1], float)
    b = np.array([1, 1, -1, -1, 1, 1, -1, -1], float)
    c = np.array([1, 1, 1, 1, -1, -1, -1, -1], float)
    # (a + b) has rho = 1/sqrt(2) with a; (a + b + c) / sqrt(3) ... and x = a, y = a*0.5 + b*sqrt(.75)
    cols = [a, b, c, a + b, 3 * a + 7, -a, a + b + c, 0.5 * a + np.sqrt(0.75) * b]
    return np.column_stack(cols)


def sparse_with_structure(rng, n=60, m=400, density=0.02):
    S = sp.random(n, m, density=density, random_state=rng, format="csc")
    S.data = np.round(S.data * 4) + 1  # counts 1..5, like term frequencies
    S = S.tolil()
    S[:, 11] = 0  # all-zero column: constant
    x = (rng.random(n) < 0.5).astype(float)
    S[:, 30] = x[:, None]  # dense binary feature
    S[:, 31] = 1 - x[:, None]  # its complement: never co-occurs, rho = -1 exactly
    S[:, 32] = 2 * x[:, None]  # exact copy (scaled) of 30
    S[:, 40] = 0
    S[5, 40] = 3.0  # singleton features in distinct rows
    S[:, 41] = 0
    S[9, 41] = 1.0
    return S.tocsr()


# ------------------------------------------------------------------------------ dense path
@pytest.mark.parametrize("block_size", [7, 16, 64, 2048])
@pytest.mark.parametrize("bins", [10, 20, np.array([0.0, 0.05, 0.3, 0.3 + 1e-6, 0.9, 1.0])])
def test_dense_counts_equal_brute_force(dense_X, block_size, bins):
    h = correlation_histogram(dense_X, bins=bins, block_size=block_size)
    assert_same(h, dense_X)
    np.testing.assert_array_equal(h.constant_features, [7])
    assert h.n_pairs == 156 * 155 // 2 and h.n_features == 157
    assert h.method == "dense-blas" and h.n_evaluated == h.n_pairs


def test_dense_float32_counts_equal_float64(dense_X):
    h64 = correlation_histogram(dense_X, bins=50, block_size=32)
    h32 = correlation_histogram(dense_X, bins=50, block_size=32, precision="float32")
    np.testing.assert_array_equal(h32.counts, h64.counts)
    assert h32.method == "dense-blas-float32"
    assert h32.n_rechecked >= 3  # the exact copies sit on the closed last edge


def test_dense_edges_exactly_hit():
    X = edge_hitting_dense()
    for bins in (10, 2, np.array([0.0, 0.5, 1 / np.sqrt(2), 1.0])):
        for precision in ("float64", "float32"):
            h = correlation_histogram(X, bins=bins, precision=precision)
            assert_same(h, X)
    h = correlation_histogram(X, bins=2)
    # pairs: exactly 0 -> [0, .5); exactly .5 and 1/sqrt2 -> [.5, 1]; exactly 1 -> [.5, 1] (closed)
    _, _, r = brute_rho(X)
    assert h.counts[0] == int((np.abs(r) < 0.5 - 1e-9).sum())
    assert np.isclose(np.abs(r), 0.5).any() and np.isclose(np.abs(r), 1.0).any()


def test_custom_edges_count_outside(dense_X):
    h = correlation_histogram(dense_X, bins=[0.2, 0.5, 0.8])
    assert_same(h, dense_X)
    assert h.n_below > 0 and h.n_above > 0


def test_fractions_and_tail(dense_X):
    h = correlation_histogram(dense_X, bins=10)
    np.testing.assert_allclose(h.fractions.sum(), 1.0)
    _, _, r = brute_rho(dense_X)
    for k, e in enumerate(h.edges[:-1]):
        assert h.tail_fractions[k] == pytest.approx(np.mean(np.abs(r) >= e - TOL))


# ----------------------------------------------------------------------------- sparse path
@pytest.mark.parametrize("bins", [10, 20, 100, np.array([0.0, 1 / 59, 0.1, 0.5, 1.0])])
def test_sparse_counts_equal_brute_force(rng, bins):
    S = sparse_with_structure(rng)
    h = correlation_histogram(S, bins=bins)
    assert_same(h, S)
    assert h.method == "sparse-cooccurrence"
    assert 11 in h.constant_features
    np.testing.assert_array_equal(h.constant_features, np.flatnonzero(S.toarray().std(axis=0) == 0))
    # far fewer pairs evaluated than exist: the rest were counted analytically
    assert 0 < h.n_evaluated < h.n_pairs / 3


def test_sparse_never_cooccurring_features_only(rng):
    """Block-diagonal support: every pair in different blocks is counted analytically."""
    n, m = 30, 60
    S = sp.lil_matrix((n, m))
    for j in range(m):
        rows = rng.choice(np.arange((j % 3) * 10, (j % 3) * 10 + 10), size=rng.integers(1, 6), replace=False)
        S[rows, j] = rng.integers(1, 4, size=rows.size)
    S = S.tocsr()
    h = correlation_histogram(S, bins=20)
    assert_same(h, S)


def test_sparse_singletons_hit_edge_exactly():
    """n = 11 singleton features in distinct rows: every rho = -1/(n-1) = -0.1 exactly."""
    S = sp.identity(11, format="csr")
    h = correlation_histogram(S, bins=10)
    assert_same(h, S)
    assert h.counts[1] == 55 and h.n_evaluated == 0


def test_sparse_equals_dense_path(rng):
    S = sparse_with_structure(rng, n=50, m=120, density=0.1)
    hs = correlation_histogram(S, bins=40)
    hd = correlation_histogram(S.toarray(), bins=40, block_size=50)
    np.testing.assert_array_equal(hs.counts, hd.counts)


@settings(max_examples=40, deadline=None)
@given(
    n=hst.integers(2, 12),
    m=hst.integers(1, 14),
    density=hst.floats(0.0, 0.6),
    seed=hst.integers(0, 2**31 - 1),
)
def test_sparse_property_matches_brute_force(n, m, density, seed):
    r = np.random.default_rng(seed)
    S = sp.random(n, m, density=density, random_state=r, format="csr")
    S.data = np.round(S.data * 3) - 1.0  # small integers incl. explicit zeros and negatives
    h = correlation_histogram(S, bins=10)
    assert_same(h, S)
    hd = correlation_histogram(S.toarray(), bins=10, block_size=3)
    np.testing.assert_array_equal(hd.counts, h.counts)


# ------------------------------------------------------------------------ correlated_pairs
@pytest.mark.parametrize("threshold", [0.3, 0.6, 1.0])
def test_correlated_pairs_dense(dense_X, threshold):
    bi, bj, br = brute_pairs(dense_X, threshold)
    M = correlated_pairs(dense_X, threshold, block_size=23)
    assert sp.issparse(M) and M.shape == (157, 157)
    coo = sp.triu(M, k=1).tocoo()
    assert coo.nnz == M.nnz == bi.size
    E = correlated_pairs(dense_X, threshold, output="edges", block_size=23)
    np.testing.assert_array_equal(E["i"], bi)
    np.testing.assert_array_equal(E["j"], bj)
    np.testing.assert_allclose(E["rho"], br, atol=1e-12)


@pytest.mark.parametrize("threshold", [0.05, 0.3, 0.9999])
def test_correlated_pairs_sparse(rng, threshold):
    S = sparse_with_structure(rng)
    bi, bj, br = brute_pairs(S, threshold)
    E = correlated_pairs(S, threshold, output="edges")
    np.testing.assert_array_equal(E["i"], bi)
    np.testing.assert_array_equal(E["j"], bj)
    np.testing.assert_allclose(E["rho"], br, atol=1e-12)
    if threshold > 0.9:  # (30, 31) never co-occur and have rho = -1: found analytically
        assert ((E["i"] == 30) & (E["j"] == 31) & np.isclose(E["rho"], -1)).any()
    M = correlated_pairs(S, threshold)
    np.testing.assert_allclose(
        M[bi, bj].A1 if hasattr(M[bi, bj], "A1") else np.asarray(M[bi, bj]).ravel(), br
    )


def test_correlated_pairs_dense_refuses_too_many_pairs(dense_X):
    with pytest.raises(ValueError, match="more than max_pairs=5 pairs"):
        correlated_pairs(dense_X, 0.01, max_pairs=5)


def test_correlated_pairs_sparse_refuses_too_many_disjoint_pairs():
    S = sp.identity(30, format="csr")  # every |rho| = 1/29
    with pytest.raises(ValueError, match="max_pairs"):
        correlated_pairs(S, 0.01, max_pairs=10)
    assert correlated_pairs(S, 0.01, output="edges").shape[0] == 435


# ---------------------------------------------------------------------------- estimate mode
@pytest.mark.parametrize("sparse", [False, True])
def test_estimate_is_flagged_and_close(rng, dense_X, sparse):
    X = sparse_with_structure(rng) if sparse else dense_X
    exact = correlation_histogram(X, bins=5)
    est = correlation_histogram(X, bins=5, exact=False, n_sample_pairs=200_000, random_state=1)
    assert est.exact is False and est.method == "sampled" and est.n_evaluated == 200_000
    assert est.counts.sum() + est.n_below + est.n_above == pytest.approx(exact.n_pairs)
    np.testing.assert_allclose(est.fractions, exact.fractions, atol=0.01)
    again = correlation_histogram(X, bins=5, exact=False, n_sample_pairs=200_000, random_state=1)
    np.testing.assert_array_equal(again.counts, est.counts)


# ---------------------------------------------------------------------------------- kernels
def test_count_products_ge_matches_python(rng):
    b = np.sort(rng.random(60) ** 2)
    b[10:14] = b[10]  # ties
    thr = np.array([0.0, 0.01, b[10] * b[40], 0.25, 0.5, 2.0])
    got = K.count_products_ge(b, thr, False)
    want = [sum(b[i] * b[j] >= t for i in range(60) for j in range(i + 1, 60)) for t in thr]
    np.testing.assert_array_equal(got, want)
    got_strict = K.count_products_ge(b, thr, True)
    assert got_strict[-2] == want[-2]
    assert got_strict[-1] == sum(b[i] * b[j] > thr[-1] for i in range(60) for j in range(i + 1, 60))


@pytest.mark.parametrize(
    "edges",
    [
        np.linspace(0, 1, 11),
        np.linspace(0.2, 0.7, 6),
        np.array([0.0, 0.1, 0.15, 0.9]),
        np.linspace(0, 1, 201),
    ],
)
def test_slot_of_matches_searchsorted(rng, edges):
    lo = edges - 1e-9
    hi = edges[-1] + 1e-9
    k = edges.size - 1
    inv_w = k / (edges[-1] - edges[0]) if np.allclose(np.diff(edges), np.diff(edges)[0]) else 0.0
    v = np.concatenate([rng.random(500), lo, lo + 2e-9, np.nextafter(lo, -1), [hi, 1.5, 0.0]])
    want = np.searchsorted(lo, v, side="right")
    want[v > hi] = lo.size + 1
    for w in {inv_w, 0.0}:  # the arithmetic guess and the generic search agree
        np.testing.assert_array_equal([K.slot_of(x, lo, hi, w) for x in v], want)


def _slots_by_slot_of(v, lo, hi, inv_w):
    return K.slots_of_values(np.ascontiguousarray(v), lo, hi, inv_w)


@pytest.mark.parametrize("n_bins", [1, 4, 20, 200])
def test_hist_tile_bins_like_slot_of_on_and_beside_every_threshold(rng, n_bins):
    """The tile kernels' threshold counts give each value the slot ``slot_of`` gives it,
    for values exactly on, one ulp beside, and tol beside every threshold, on both the
    compare path (<= 64 thresholds) and the binary-search path."""
    from fsviz.stats.correlation import _Binning

    b = _Binning(n_bins, TOL, "test")
    on = np.concatenate([b.lo, [b.hi], b.edges])
    v = np.concatenate(
        [on, np.nextafter(on, -1), np.nextafter(on, 2), on + TOL, on - TOL, rng.random(300), [0.0, 1.5]]
    )
    v = np.clip(v, 0, None)
    signs = rng.choice([-1.0, 1.0], size=v.size)
    w = 7
    G = np.zeros((-(-v.size // w), w))
    G.ravel()[: v.size] = v * signs
    ge = np.zeros(b.T.size, dtype=np.int64)
    K.hist_tile(G, False, 0, b.T, ge)
    want = _slots_by_slot_of(np.abs(G).ravel(), b.lo, b.hi, b.inv_w)
    np.testing.assert_array_equal(ge[:-1] - ge[1:], want)
    # a diagonal tile counts only c + off > r
    off = 2
    ge = np.zeros(b.T.size, dtype=np.int64)
    K.hist_tile(G, True, off, b.T, ge)
    r, c = np.indices(G.shape)
    want = _slots_by_slot_of(np.abs(G)[c + off > r], b.lo, b.hi, b.inv_w)
    np.testing.assert_array_equal(ge[:-1] - ge[1:], want)


def _edge_columns(rng, n_rep, n_cols):
    """Columns of +-1 patterns whose correlations are exactly 0, 0.5, 1/sqrt(2) or 1."""
    E = np.tile(edge_hitting_dense(), (n_rep, 1))
    return E[:, rng.integers(0, E.shape[1], size=n_cols)]


@settings(max_examples=30, deadline=None)
@given(
    n=hst.integers(2, 12),
    m=hst.integers(1, 40),
    n_edge=hst.integers(0, 12),
    block_size=hst.integers(1, 50),
    tile=hst.integers(1, 9),
    n_threads=hst.integers(1, 3),
    unit_flops=hst.sampled_from([1.0, 200.0, 1e12]),
    cache_bytes=hst.sampled_from([0, 3000, 2**30]),
    bins=hst.sampled_from([2, 10, 20, (0.0, 0.5, 1 / np.sqrt(2), 1.0), (0.25, 0.5, 0.75)]),
    precision=hst.sampled_from(["float64", "float32", "float32-generic"]),
    seed=hst.integers(0, 2**31 - 1),
)
def test_dense_tiles_match_brute_force_property(
    n, m, n_edge, block_size, tile, n_threads, unit_flops, cache_bytes, bins, precision, seed
):
    """Any blocking, tiling, run of tiles per kernel call (one tile, a few, a whole block pair),
    block reuse (none, some, all) and thread count: every pair in the brute-force bin, pairs
    exactly on an edge included (columns built so that |rho| is exactly 0, 0.5, 1/sqrt(2) or 1).
    float32 runs both tile kernels: the equal-width one (bins 2, 10, 20 and 0.25..0.75) and,
    as "float32-generic", the two-compare one it replaces there."""
    import fsviz.stats._hist_tiles as T
    import fsviz.stats.correlation as C

    r = np.random.default_rng(seed)
    X = r.normal(size=(n, m))
    if n_edge:
        E = _edge_columns(r, 1 + n // 8, n_edge)
        X = np.column_stack([r.normal(size=(E.shape[0], m)), E])
    X[:, r.integers(0, X.shape[1])] = 3.0  # a constant column
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(T, "TILE", tile)
        mp.setattr(T, "n_threads", lambda: n_threads)
        mp.setattr(T, "UNIT_FLOPS", unit_flops)
        mp.setattr(C, "Z_CACHE_BYTES", cache_bytes)
        if precision == "float32-generic":
            mp.setattr(T, "uniform_geometry", lambda T_, delta: None)
        h = correlation_histogram(
            X,
            bins=np.asarray(bins) if isinstance(bins, tuple) else bins,
            block_size=block_size,
            precision=precision.split("-")[0],
        )
    assert_same(h, X)


@pytest.mark.parametrize("budget, loads", [(2**30, 5), (0, 5 + 4 + 3 + 2 + 1 - 1)])
def test_dense_blocks_are_loaded_once_within_the_cache_budget(monkeypatch, budget, loads):
    """Within the budget each standardised block is read once for all block pairs of all the
    local tasks; with no budget a task keeps block bi and one other, as before (a block is read
    again for each pair that needs it). The counts are the same either way."""
    import fsviz.stats.correlation as C

    X = np.random.default_rng(3).normal(size=(9, 50))
    calls = []
    real = C._load_z
    monkeypatch.setattr(C, "_load_z", lambda src, bi, *a: calls.append(bi) or real(src, bi, *a))
    monkeypatch.setattr(C, "Z_CACHE_BYTES", budget)
    monkeypatch.setattr(
        C, "_dense_tasks", lambda m, bs, client: [[(bi, bj) for bi in range(5) for bj in range(bi, 5)]]
    )
    h = correlation_histogram(X, bins=10, block_size=10)
    assert_same(h, X)
    assert len(calls) == loads


def _histogram_total_in_child(q):
    X = np.random.default_rng(1).normal(size=(20, 600)).astype(np.float32)
    q.put(int(correlation_histogram(X, precision="float32", block_size=100).counts.sum()))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork: POSIX only")
def test_histogram_in_a_forked_child_after_the_parent_ran_one(monkeypatch):
    """The tile threads are the process's; a child forked after the parent used them has none
    and must make its own (its copy of the parent's pool would wait forever)."""
    import multiprocessing

    import fsviz.stats._hist_tiles as T

    monkeypatch.setattr(T, "n_threads", lambda: 2)
    correlation_histogram(np.random.default_rng(0).normal(size=(20, 600)), block_size=100)
    assert T._POOLS  # the parent's pool exists
    ctx = multiprocessing.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_histogram_total_in_child, args=(q,))
    p.start()
    p.join(120)
    if p.exitcode is None:
        p.kill()
    assert p.exitcode == 0
    assert q.get(timeout=5) == 600 * 599 // 2


def _f32_tile_reference(G, Zi, Zj, r0, c0, diag, T, A_lo, A_hi):
    """The float32 tile rule value by value (numpy): ``|g| >= A_hi[k]`` counts, a value in
    ``[A_lo[k], A_hi[k])`` counts if its float64 dot product ``>= T[k]``; ge and re-checks."""
    h, w = G.shape
    r, c = np.indices((h, w))
    keep = (c + c0 - r0 > r) if diag else np.ones((h, w), bool)
    v = np.abs(G[keep]).astype(np.float32)
    ri, ci = r[keep] + r0, c[keep] + c0
    exact = np.abs(
        np.array([sum(Zi[i, q] * Zj[j, q] for q in range(Zi.shape[1])) for i, j in zip(ri, ci, strict=True)])
    )
    ge = np.zeros(T.size, np.int64)
    ge[0] = v.size
    nre = 0
    for k in range(1, T.size - 1):
        window = (v >= A_lo[k]) & (v < A_hi[k])
        ge[k] = int((v >= A_hi[k]).sum() + (window & (exact >= T[k])).sum())
        nre += int(window.sum())
    return ge, nre


def _check_f32_uniform_kernel(bins, edge_tol, n, h, w, diag, off, seed):
    """Runs hist_tile_f32 (any bins), hist_tile_f32_uniform (equal widths) and the numpy rule on
    one tile of float32 values on, and one and two float32 ulps beside, every threshold, window
    bound and edge; asserts the same counts and re-checks; returns the number of re-checks."""
    from fsviz.stats._hist_tiles import TileCounter, uniform_geometry
    from fsviz.stats.correlation import _U32, _Binning

    r = np.random.default_rng(seed)
    b = _Binning(np.asarray(bins) if isinstance(bins, tuple) else bins, edge_tol, "test")
    delta = 1.1 * (n + 2) * _U32 / (1 - (n + 2) * _U32) + 1e-12
    c = TileCounter(b.T, "float32", delta, 1)
    geo = uniform_geometry(b.T, delta)
    assert (geo is not None) == (b.inv_w > 0)  # every equal-width case here is narrow enough
    fin = b.T[1:-1]
    marks = np.concatenate([fin, c.A_lo[1:-1], c.A_hi[1:-1], b.edges]).astype(np.float32)
    up1, dn1 = np.nextafter(marks, np.float32(2)), np.nextafter(marks, np.float32(-1))
    up2, dn2 = np.nextafter(up1, np.float32(2)), np.nextafter(dn1, np.float32(-1))
    extra = np.concatenate([r.random(50), [0.0, 1.0, 1.0000001]]).astype(np.float32)
    pool = np.abs(np.concatenate([marks, up1, dn1, up2, dn2, extra]))
    G = (r.choice(pool, size=(h, w)) * r.choice([-1, 1], size=(h, w))).astype(np.float32)
    r0 = int(r.integers(0, 5))
    c0 = r0 + max(off, -r0)
    m = max(r0 + h, c0 + w)
    Zi, Zj = np.zeros((m, 3)), np.zeros((m, 3))
    Zi[:, 0] = r.choice(np.concatenate([fin, r.random(5)]), size=m)  # dot = Zi[i, 0] (+ a tiny term)
    Zj[:, 0] = 1.0
    Zi[:, 1] = r.normal(size=m) * 1e-7 * r.integers(0, 2)
    Zj[:, 1] = r.normal(size=m)
    ge_g = np.zeros(b.T.size, np.int64)
    nre_g = K.hist_tile_f32(G, Zi, Zj, r0, c0, diag, b.T, c.A_lo, c.A_hi, ge_g)
    ge_ref, nre_ref = _f32_tile_reference(G, Zi, Zj, r0, c0, diag, b.T, c.A_lo, c.A_hi)
    np.testing.assert_array_equal(ge_g, ge_ref)
    assert nre_g == nre_ref
    if geo is not None:
        ge_u = np.zeros(b.T.size, np.int64)
        sbuf = np.empty(w, np.int32)
        nre_u = K.hist_tile_f32_uniform(G, Zi, Zj, r0, c0, diag, b.T, c.A_lo, c.A_hi, *geo, ge_u, sbuf)
        np.testing.assert_array_equal(ge_u, ge_ref)
        assert nre_u == nre_ref
    return nre_g


@settings(max_examples=60, deadline=None)
@given(
    bins=hst.sampled_from([1, 2, 7, 20, 200, (0.25, 0.5, 0.75), (0.1, 0.4, 0.7, 1.0), (0.0, 0.3, 1.0)]),
    edge_tol=hst.sampled_from([0.0, 1e-9, 1e-6, 2e-4]),
    n=hst.sampled_from([2, 50, 200, 3000]),
    shape=hst.tuples(hst.integers(1, 12), hst.integers(1, 40)),
    diag=hst.booleans(),
    off=hst.integers(-5, 5),
    seed=hst.integers(0, 2**31 - 1),
)
def test_f32_uniform_tile_kernel_equals_generic_on_every_boundary(bins, edge_tol, n, shape, diag, off, seed):
    """hist_tile_f32_uniform counts every float32 value as hist_tile_f32 and the numpy rule
    do, on and beside every threshold, window bound and edge, any tile shape and diagonal."""
    _check_f32_uniform_kernel(bins, edge_tol, n, *shape, diag, off, seed)


@pytest.mark.parametrize("bins, n", [(20, 50), (10, 200), ((0.25, 0.5, 0.75), 3000), ((0.0, 0.3, 1.0), 50)])
def test_f32_uniform_tile_kernel_rechecks_window_values(bins, n):
    """The boundary values do reach the float64 re-check (the property above is not vacuous)."""
    assert _check_f32_uniform_kernel(bins, 1e-9, n, 40, 64, False, 0, 1) > 0


# ------------------------------------------------------------------------------------ errors
@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"bins": 0}, "'bins' as an int must be in"),
        ({"bins": [0.5, 0.2]}, "strictly increasing"),
        ({"bins": [0.0, 1.5]}, r"lie in \[0, 1\]"),
        ({"bins": [0.3]}, "at least 2"),
        ({"block_size": 0}, r"'block_size' must be an int in the range \[1, inf\); got 0"),
        ({"precision": "half"}, "'precision' must be"),
        ({"edge_tol": -1.0}, "'edge_tol'"),
        ({"exact": False, "n_sample_pairs": 0}, "'n_sample_pairs'"),
    ],
)
def test_histogram_parameter_errors(dense_X, kwargs, match):
    with pytest.raises(ValueError, match=match):
        correlation_histogram(dense_X, **kwargs)


@pytest.mark.parametrize(
    "X, match",
    [
        (np.ones((1, 5)), "at least 2 samples"),
        (np.ones(5), "2-D"),
        (np.array([[1.0, np.nan], [2.0, 3.0]]), "NaN or infinite"),
        (np.array([["a", "b"], ["c", "d"]]), "real numbers"),
        (sp.csr_matrix(np.array([[1.0, np.inf], [0.0, 1.0]])), "NaN or infinite"),
    ],
)
def test_bad_input_errors(X, match):
    with pytest.raises(ValueError, match=match):
        correlation_histogram(X)


def test_correlated_pairs_errors(dense_X):
    with pytest.raises(ValueError, match=r"'threshold' must be a number in \(0, 1\]"):
        correlated_pairs(dense_X, 0.0)
    with pytest.raises(ValueError, match="'output' must be"):
        correlated_pairs(dense_X, 0.5, output="list")


def test_all_constant_gives_zero_pairs():
    h = correlation_histogram(np.ones((5, 4)), bins=4)
    assert h.n_pairs == 0 and h.counts.sum() == 0 and h.constant_features.tolist() == [0, 1, 2, 3]
    h = correlation_histogram(sp.csr_matrix((5, 4)), bins=4)
    assert h.n_pairs == 0 and h.counts.sum() == 0


def test_accepts_dataset_like(dense_X):
    class DS:
        X = dense_X
        fingerprint = "x"

    np.testing.assert_array_equal(correlation_histogram(DS()).counts, correlation_histogram(dense_X).counts)


# ------------------------------------------------------------------------------------- dask
def seen_append(seen):
    return lambda done, total: seen.append((done, total))


def test_dask_matches_local(dask_client, dense_X, rng):
    S = sparse_with_structure(rng)
    for X, kw in ((dense_X, {"block_size": 32}), (S, {})):
        local = correlation_histogram(X, bins=20, **kw)
        seen: list[tuple[int, int]] = []
        remote = correlation_histogram(X, bins=20, client=dask_client, progress=seen_append(seen), **kw)
        np.testing.assert_array_equal(remote.counts, local.counts)
        assert remote.n_evaluated == local.n_evaluated
        assert seen and seen[-1][0] == seen[-1][1] > 1  # several tasks really ran
        el = correlated_pairs(X, 0.4, output="edges", **kw)
        er = correlated_pairs(X, 0.4, output="edges", client=dask_client, **kw)
        assert el.equals(er)


# ------------------------------------------------------------------------------- real data
@pytest.mark.scale
def test_real_text_data_sparse_equals_brute_force(skfeature_path):
    """PCMAC (1,943 documents x 3,289 terms, 1.5 % non-zeros) stored sparse, as text data is."""
    import scipy.io as sio

    X = sio.loadmat(skfeature_path("PCMAC"))["X"].astype(np.float64)
    S = sp.csr_matrix(X)
    h = correlation_histogram(S, bins=20)
    assert_same(h, X)
    assert h.n_evaluated < 0.5 * h.n_pairs  # most pairs were counted analytically
    np.testing.assert_array_equal(correlation_histogram(X, bins=20, block_size=1000).counts, h.counts)
    bi, bj, br = brute_pairs(X, 0.6)
    E = correlated_pairs(S, 0.6, output="edges")
    np.testing.assert_array_equal(E["i"], bi)
    np.testing.assert_array_equal(E["j"], bj)
    np.testing.assert_allclose(E["rho"], br, atol=1e-10)


def test_dense_memory_is_bounded_by_block_size(rng):
    """Peak numpy memory follows block_size, not m^2."""
    import tracemalloc

    X = rng.normal(size=(30, 2400))
    correlation_histogram(X[:, :300], block_size=400)  # compile kernels outside the measurement
    tracemalloc.start()
    h = correlation_histogram(X, block_size=400)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert h.n_pairs == 2400 * 2399 // 2
    assert peak < 3 * 400 * 400 * 8 + 4 * X.nbytes  # a few blocks and per-feature vectors (m^2: 46 MB)
