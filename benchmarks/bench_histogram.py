"""Exact all-pairs correlation histograms at scale, against the BLAS limit and Dask.

Run:  python benchmarks/bench_histogram.py [--part floor|dense|sparse|dask|all] [--quick]

- floor: the shapes omics users have (n = 50 and 200 samples x m = 20,000 features): the
  time against the flop floor ``n * m**2 / (dgemm rate)`` (all pairs cost ``m**2 / 2`` dot
  products of ``2n`` flops), the dgemm rate measured in the same process (a square
  2048**3 product), beside the previous implementation (``histogram_before.py``) and with
  its counts compared bin for bin; beside it the process's CPU time against the core-seconds
  the floor's flops take on one BLAS thread (``CPU ...x``: the efficiency whatever the load,
  which the wall ratio is not: the best-of-3 square product may catch the cores free while the
  histogram shares them); float32 data against the sgemm floor; a sparse text
  matrix against its nnz-based floor (``sum_r nnz_r**2`` flops, the products of
  ``X^T X``, at the dgemm rate) and against scipy's own ``X.T @ X``. Each shape is
  repeated (``--repeats``), the load average printed beside every time.

- dense: m=20,000 features x n=2,048 samples. Times the one product ``Z^T Z`` that any
  exact all-pairs method has to pay (numpy/BLAS, float64, the whole 20,000 x 20,000
  result in memory) against ``correlation_histogram`` (float64 and float32+re-check),
  prints the ratio, the counts' agreement and the peak numpy memory of both.
- sparse: news20.binary scale (10,000 docs x 1,350,000 Zipf terms, ~3.6M non-zeros):
  the exact histogram over all 0.9 trillion pairs; time, pairs evaluated explicitly.
- dask: the same computations on a 2-worker LocalCluster against the local path: same
  counts, overhead ratio.

Figures go to docs/scale.md. Timings on a shared 2-core machine are noisy.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
import tracemalloc

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # histogram_before

from fsviz.stats import correlation_histogram


def dense_data(n: int, m: int, seed: int = 0) -> np.ndarray:
    """Grouped features: 200 latent factors, each feature = loading * factor + noise."""
    rng = np.random.default_rng(seed)
    F = rng.normal(size=(n, 200))
    owner = rng.integers(0, 200, size=m)
    load = rng.uniform(0.0, 2.0, size=m)
    X = rng.normal(size=(n, m))
    X += F[:, owner] * load
    return X


def news20_like(n_samples=10_000, n_features=1_350_000, nnz=3_600_000, seed=0):
    """Zipf counts where, as in news20.binary, EVERY term occurs at least once.

    A Zipf sample of this size leaves most rare terms unseen (empty, i.e. constant,
    columns that drop out of the pair count). news20.binary's 1,355,191 features all
    occur, which is what makes its pair count 0.92 trillion; so the terms the Zipf draw
    missed get one occurrence each in a random document, with the Zipf draw sized so
    that the total stays near ``nnz``.
    """
    rng = np.random.default_rng(seed + 1)
    nnz0 = int(nnz * 0.72)
    X, how = sparse_text(n_samples, n_features, nnz0, seed)
    seen = np.diff(X.tocsc().indptr) > 0
    missing = np.flatnonzero(~seen)
    docs = rng.integers(0, n_samples, size=missing.size)
    extra = sp.csr_matrix((np.ones(missing.size), (docs, missing)), shape=X.shape)
    X = (X + extra).tocsr()
    return X, how + f" + one occurrence for each of the {missing.size:,} terms it missed"


def sparse_text(n_samples=10_000, n_features=1_350_000, nnz=3_600_000, seed=0):
    """fsviz.data.make_sparse_text when present, else the same Zipf recipe inline."""
    try:
        from fsviz.data import make_sparse_text

        X, _ = make_sparse_text(n_samples=n_samples, n_features=n_features, nnz=nnz, random_state=seed)
        return sp.csr_matrix(X), "fsviz.data.make_sparse_text"
    except (ImportError, AttributeError):
        pass
    rng = np.random.default_rng(seed)
    p = np.arange(1, n_features + 1, dtype=np.float64) ** -1.05
    cdf = np.cumsum(p)
    cdf /= cdf[-1]
    perm = rng.permutation(n_features)
    dw = rng.lognormal(0.0, 0.7, size=n_samples)
    dcdf = np.cumsum(dw)
    dcdf /= dcdf[-1]
    ntok = int(nnz * 1.6)
    while True:
        terms = perm[np.searchsorted(cdf, rng.random(ntok))]
        docs = np.searchsorted(dcdf, rng.random(ntok))
        key = docs.astype(np.int64) * n_features + terms
        uk, cnt = np.unique(key, return_counts=True)
        if uk.size >= nnz:
            break
        ntok = int(ntok * 1.3)
    sel = np.sort(rng.choice(uk.size, size=nnz, replace=False))
    uk, cnt = uk[sel], cnt[sel]
    X = sp.csr_matrix(
        (cnt.astype(np.float64), (uk // n_features, uk % n_features)), shape=(n_samples, n_features)
    )
    return X, "inline Zipf generator (make_sparse_text not on this branch yet)"


def timed(f, *a, **k):
    gc.collect()
    tracemalloc.start()
    t = time.perf_counter()
    out = f(*a, **k)
    dt = time.perf_counter() - t
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return out, dt, peak


def bench_dense(n: int, m: int, block_size: int) -> None:
    print(f"\n== dense: n={n} samples x m={m} features ({m * (m - 1) // 2:,} pairs), block_size={block_size}")
    X = dense_data(n, m)
    print(f"X: {X.nbytes / 2**20:.0f} MiB")

    def standardise():
        Z = X - X.mean(axis=0)
        Z /= np.linalg.norm(Z, axis=0)
        return Z

    # The peer: the one product Z^T Z. numpy's `Z.T @ Z` is a SYRK (half the flops of a
    # GEMM), but in this numpy's OpenBLAS (0.3.31) the 2-thread dsyrk segfaults for
    # m >= ~16,000 (m=10,000 works), so it runs on 1 thread here; the 2-thread GEMM
    # `Z.T @ Z.copy()` (all m^2 entries) is timed too. The ratio is taken against the faster.
    from threadpoolctl import threadpool_limits

    def syrk(Z):
        return Z.T @ Z

    def gemm(Z, Zc):
        return Z.T @ Zc

    Z = standardise()
    peers = {}
    if m < 16_000:
        C, peers["syrk, 2 threads"], mem_prod = timed(syrk, Z)
    else:
        with threadpool_limits(limits=1, user_api="blas"):
            C, peers["syrk, 1 thread (2-thread dsyrk segfaults at this m)"], mem_prod = timed(syrk, Z)
        del C
        gc.collect()
        C, peers["gemm, 2 threads"], mem_prod = timed(gemm, Z, Z.copy())
    for name, t in peers.items():
        print(f"peer Z^T Z ({name}): {t:7.2f} s")
    t_prod = min(peers.values())
    print(f"peak numpy memory of the product: {mem_prod / 2**20:.0f} MiB (the m x m result)")
    del Z
    ref = np.zeros(20, dtype=np.int64)
    for s in range(0, m, 1000):  # upper triangle of |C| in row chunks (reference counts)
        rows = np.abs(C[s : s + 1000])
        keep = np.arange(m)[None, :] > np.arange(s, min(s + 1000, m))[:, None]
        ref += np.histogram(rows[keep], bins=np.linspace(0, 1, 21))[0]
    del C
    gc.collect()
    for precision in ("float64", "float32"):  # load the compiled kernels outside the timing
        correlation_histogram(X[:, :64], bins=20, precision=precision)
    for precision in ("float64", "float32"):
        h, t, mem = timed(correlation_histogram, X, bins=20, block_size=block_size, precision=precision)
        same = np.array_equal(h.counts, ref)
        print(
            f"correlation_histogram {precision}: {t:7.2f} s   peak numpy mem {mem / 2**20:5.0f} MiB"
            f"   ratio to the faster product {t / t_prod:5.2f}x   counts == np.histogram(Z^T Z): {same}"
            + (f"   re-checked {h.n_rechecked}" if precision == "float32" else "")
        )
    print("counts:", h.counts.tolist())


def _load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def gemm_rate(dtype=np.float64, size: int = 2048, repeats: int = 3, cpu: bool = False) -> float:
    """FLOP/s of this process's BLAS on a square product (the best of ``repeats``); with ``cpu``,
    FLOP per CPU second of one BLAS thread (what a core-second of the floor's product buys,
    whatever else the machine runs)."""
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(0)
    A = rng.normal(size=(size, size)).astype(dtype)
    B = rng.normal(size=(size, size)).astype(dtype)
    best = np.inf
    with threadpool_limits(1 if cpu else None, user_api="blas"):
        for _ in range(repeats):
            t = time.thread_time() if cpu else time.perf_counter()
            A @ B
            best = min(best, (time.thread_time() if cpu else time.perf_counter()) - t)
    return 2 * size**3 / best


def bench_floor(
    m: int,
    ns: tuple[int, ...],
    repeats: int,
    sparse_shape: tuple[int, int, int] | None,
    precisions: tuple[str, ...] = ("float64", "float32"),
    before: bool = True,
) -> None:
    """The histogram against the flop floor, beside the previous implementation."""
    from histogram_before import histogram_before

    def slots_now(h):
        return np.concatenate([[h.n_below], h.counts, [h.n_above]])

    def slots_before(s):  # (below, bins..., on the last edge, above) -> counts with the last bin closed
        return np.concatenate([s[:-3], [s[-3] + s[-2]], s[-1:]])

    print(f"\n== flop floor: m={m:,} features, n in {ns}; floor = n * m^2 flops at the dgemm rate")
    warm = np.random.default_rng(0).normal(size=(30, 600))
    for precision in ("float64", "float32"):
        correlation_histogram(warm, precision=precision)
        histogram_before(warm, precision=precision)
    for dtype, precision, name in ((np.float64, "float64", "dgemm"), (np.float32, "float32", "sgemm")):
        if precision not in precisions:
            continue
        cpu_rate = gemm_rate(dtype, cpu=True)
        for n in ns:
            X = dense_data(n, m).astype(dtype)
            for rep in range(repeats):
                rate = gemm_rate(dtype)
                floor = n * m**2 / rate
                t, c = time.perf_counter(), time.process_time()
                h = correlation_histogram(X, precision=precision)
                t_now, c_now = time.perf_counter() - t, time.process_time() - c
                load_now = _load()
                if before:
                    t = time.perf_counter()
                    slots = histogram_before(X, precision=precision)
                    t_before = time.perf_counter() - t
                    same = np.array_equal(slots_now(h), slots_before(slots))
                    then = f" | before {t_before:6.2f} s = {t_before / floor:5.2f}x ({_load()})"
                    then += f" | same bins: {same}"
                else:
                    then = ""
                print(
                    f"  {dtype.__name__} n={n:4d} #{rep + 1}: {name} {rate / 1e9:5.1f} GFLOP/s, "
                    f"floor {floor:6.2f} s | now {t_now:6.2f} s = {t_now / floor:5.2f}x floor ({load_now}; "
                    f"CPU {c_now / (n * m**2 / cpu_rate):4.2f}x the floor's core-seconds){then}",
                    flush=True,
                )
    if sparse_shape is None:
        return
    n_s, m_s, nnz = sparse_shape
    Xs, how = sparse_text(n_s, m_s, nnz)
    Xs = Xs.tocsr()
    correlation_histogram(Xs[:, :1000])
    row_nnz = np.diff(Xs.indptr).astype(np.float64)
    flops = float((row_nnz**2).sum())  # a multiply and an add per product pair, half of X^T X's pairs
    print(f"\n== sparse floor: {n_s:,} x {m_s:,}, nnz {Xs.nnz:,} ({how}); floor = sum_r nnz_r^2 flops")
    for rep in range(repeats):
        rate = gemm_rate()
        floor = flops / rate
        Xc = Xs.tocsc()
        t = time.perf_counter()
        Xc.T @ Xc
        t_sp = time.perf_counter() - t
        t = time.perf_counter()
        h = correlation_histogram(Xs)
        t_now = time.perf_counter() - t
        print(
            f"  #{rep + 1}: dgemm {rate / 1e9:5.1f} GFLOP/s, nnz floor {floor:6.3f} s, "
            f"scipy X^T X {t_sp:6.2f} s | histogram {t_now:6.2f} s = {t_now / floor:6.1f}x the nnz floor, "
            f"{t_now / t_sp:5.2f}x scipy's X^T X ({_load()}); {h.n_evaluated:,} co-occurring pairs",
            flush=True,
        )


def bench_dense_repeat(n: int, m: int, block_size: int, repeats: int = 3) -> None:
    """Interleaved repeats (product, float64, float32) and median ratios: robust to load spikes."""
    print(f"\n== dense, interleaved x{repeats}: n={n} x m={m}, 2-thread SYRK peer (m < 16,000 works)")
    X = dense_data(n, m, seed=2)
    Z = X - X.mean(axis=0)
    Z /= np.linalg.norm(Z, axis=0)
    for precision in ("float64", "float32"):
        correlation_histogram(X[:, :64], precision=precision)
    r64, r32 = [], []
    for _ in range(repeats):
        t = time.perf_counter()
        C = Z.T @ Z
        t_p = time.perf_counter() - t
        del C
        gc.collect()
        t = time.perf_counter()
        correlation_histogram(X, block_size=block_size)
        t64 = time.perf_counter() - t
        t = time.perf_counter()
        correlation_histogram(X, block_size=block_size, precision="float32")
        t32 = time.perf_counter() - t
        r64.append(t64 / t_p)
        r32.append(t32 / t_p)
        print(
            f"  product {t_p:6.2f} s   float64 {t64:6.2f} s "
            f"({t64 / t_p:.2f}x)   float32 {t32:6.2f} s ({t32 / t_p:.2f}x)"
        )
    print(f"median ratio to the product: float64 {np.median(r64):.2f}x, float32 {np.median(r32):.2f}x")


def bench_sparse(n: int, m: int, nnz: int, all_terms: bool = True) -> None:
    print(f"\n== sparse text: {n} docs x {m:,} terms, ~{nnz:,} non-zeros")
    t = time.perf_counter()
    X, how = news20_like(n, m, nnz) if all_terms else sparse_text(n, m, nnz)
    print(f"data from {how} in {time.perf_counter() - t:.1f} s; nnz={X.nnz:,}")
    correlation_histogram(X[:, :1000], bins=20)  # load the compiled kernels outside the timing
    h, dt, mem = timed(correlation_histogram, X, bins=20)
    est = correlation_histogram(X, bins=20, exact=False, n_sample_pairs=2_000_000, random_state=0)
    print(
        f"exact histogram over {h.n_pairs:,} pairs ({h.n_pairs / 1e12:.3f} trillion): {dt:.1f} s wall,"
        f" peak numpy mem {mem / 2**20:.0f} MiB (numba buffers not traced)"
    )
    print(
        "pairs evaluated explicitly (co-occurring): "
        f"{h.n_evaluated:,} = {h.n_evaluated / h.n_pairs:.2e} of all;"
        f" constant (empty) features: {h.constant_features.size:,}"
    )
    print(
        f"sanity: sampled estimate (2M pairs, {est.seconds:.1f} "
        "s) differs from the exact fractions by at most "
        f"{np.abs(est.fractions - h.fractions).max():.1e}"
    )
    print("fraction of pairs with |rho| >= edge (exact; sampled estimate):")
    for e, f, g in zip(h.edges[:-1], h.tail_fractions, est.tail_fractions, strict=False):
        print(f"  {e:4.2f}: {f:.3e}   {g:.3e}")
    return X, h


def bench_dask(n_dense: int, m_dense: int, Xs=None) -> None:
    from distributed import Client, LocalCluster

    print("\n== Dask LocalCluster (2 workers x 1 thread) vs local")
    Xd = dense_data(n_dense, m_dense, seed=1)
    if Xs is None:
        Xs, _ = sparse_text(2_000, 200_000, 500_000, seed=1)
    t = time.perf_counter()
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0") as lc, Client(lc) as client:
        print(f"cluster start: {time.perf_counter() - t:.1f} s")
        for name, X, kw in (
            (f"dense {Xd.shape[0]}x{Xd.shape[1]}", Xd, {"block_size": 1024}),
            (f"sparse {Xs.shape[0]}x{Xs.shape[1]} nnz={Xs.nnz}", Xs, {}),
        ):
            correlation_histogram(X, bins=20, client=client, **kw)  # warm up workers (numba, imports)
            t = time.perf_counter()
            local = correlation_histogram(X, bins=20, **kw)
            t_local = time.perf_counter() - t
            t = time.perf_counter()
            remote = correlation_histogram(X, bins=20, client=client, **kw)
            t_remote = time.perf_counter() - t
            print(
                f"{name}: local {t_local:.2f} s, dask {t_remote:.2f} s, ratio {t_remote / t_local:.2f}x,"
                f" identical counts: {np.array_equal(local.counts, remote.counts)}"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--part", choices=["floor", "dense", "dense-repeat", "sparse", "dask", "all"], default="all"
    )
    ap.add_argument("--repeats", type=int, default=2, help="runs of each floor shape")
    ap.add_argument(
        "--precisions", default="float64,float32", help="floor: dense precisions to time (comma-separated)"
    )
    ap.add_argument(
        "--no-before", action="store_true", help="floor: skip the previous implementation and the sparse part"
    )
    ap.add_argument("--quick", action="store_true", help="smaller sizes for a smoke run")
    ap.add_argument(
        "--zipf-only",
        action="store_true",
        help="also run the plain Zipf sample (its unseen terms are empty columns)",
    )
    a = ap.parse_args()
    import numba

    print(
        f"numpy {np.__version__}, numba {numba.__version__} ({numba.get_num_threads()} threads), "
        f"cpus {os.cpu_count()}; timings under contention from other jobs on the machine"
    )
    if a.part in ("floor", "all"):
        if a.quick:
            shapes = (4000, (50,), a.repeats, (2000, 50_000, 100_000))
        else:
            shapes = (20_000, (50, 200), a.repeats, (10_000, 200_000, 600_000))
        if a.no_before:
            shapes = (*shapes[:3], None)
        bench_floor(*shapes, precisions=tuple(a.precisions.split(",")), before=not a.no_before)
    if a.part in ("dense", "all"):
        bench_dense(512 if a.quick else 2048, 4000 if a.quick else 20_000, 2048)
    if a.part in ("dense-repeat", "all"):
        bench_dense_repeat(512 if a.quick else 2048, 2000 if a.quick else 8000, 2048)
    if a.part in ("sparse", "all"):
        if a.quick:
            bench_sparse(2000, 100_000, 300_000)
        else:
            bench_sparse(10_000, 1_350_000, 3_600_000, all_terms=True)
            if a.zipf_only:
                bench_sparse(10_000, 1_350_000, 3_600_000, all_terms=False)
    if a.part in ("dask", "all"):
        bench_dask(1024 if a.quick else 2048, 2000 if a.quick else 8000)


if __name__ == "__main__":
    main()
