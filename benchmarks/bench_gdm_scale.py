"""GDM past a million features, out of core: time and memory against m, local and on Dask.

    python benchmarks/bench_gdm_scale.py [--n 2000] [--m 10000 100000 1000000] [--dir /tmp/fsviz_scale]
        [--no-dask] [--keep]

For every m it writes a float32 ``n x m`` matrix column block by column block to a
Fortran-ordered ``.npy`` file (never whole in memory) with planted groups like
:func:`fsviz.data.make_grouped_classification` (12 support features, 0-5 affiliated
noisy copies each at correlation 0.75-0.9, labels from the support features), then fits
``GDM()`` on ``np.load(path, mmap_mode="r")`` in a fresh process and reports seconds,
peak RSS (``VmHWM`` of the fitting process; pages of the file are unmapped after every
block read, so they do not accumulate) and
whether the planted support features and groups were found. With Dask (default) the
same fit runs with ``client=`` on a 2-worker ``LocalCluster`` (one thread each, separate
processes reading the same file); the results must be identical to the local fit and the
overhead is reported. Ends with the log-log slope of time against m. Check
``df -h /tmp`` first: m = 10^6 at n = 2000 needs 8 GB.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

N_GROUPS, MAX_AFF, CORR = 12, 5, (0.75, 0.9)


def write_grouped(path: Path, n: int, m: int, seed: int = 0, chunk: int = 8192) -> None:
    """Planted-group data straight to a memory-mapped float32 ``.npy``, ``chunk`` columns at a time.

    Column layout before placement follows ``make_grouped_classification``: support features
    N(0, 1), affiliated ``rho x_sf + sqrt(1 - rho^2) e``, the rest N(0, 1) noise; the planted
    columns sit at random positions. Labels and truth go to ``path.with_suffix('.truth.npz')``.
    """
    rng = np.random.default_rng(seed)
    n_aff = rng.integers(0, MAX_AFF + 1, size=N_GROUPS)
    owner = np.repeat(np.arange(N_GROUPS), n_aff)
    rho = rng.uniform(*CORR, size=owner.size)
    planted = rng.choice(m, size=N_GROUPS + owner.size, replace=False)
    sf_pos, af_pos = planted[:N_GROUPS], planted[N_GROUPS:]
    S = rng.standard_normal((n, N_GROUPS))
    A = rho * S[:, owner] + np.sqrt(1.0 - rho**2) * rng.standard_normal((n, owner.size))
    w = rng.standard_normal(N_GROUPS)
    w = np.sign(w + (w == 0)) * np.maximum(np.abs(w), 1.0)
    score = S @ w
    y = (score + 0.1 * score.std() * rng.standard_normal(n) > 0).astype(np.int64)
    cols = np.full(m, -1, dtype=np.int64)  # which planted column goes where
    cols[sf_pos] = np.arange(N_GROUPS)
    cols[af_pos] = N_GROUPS + np.arange(owner.size)
    P = np.hstack([S, A]).astype(np.float32)
    X = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(n, m), fortran_order=True)
    for a in range(0, m, chunk):
        b = min(a + chunk, m)
        B = np.random.default_rng([seed, a]).standard_normal((b - a, n), dtype=np.float32).T
        hit = np.flatnonzero(cols[a:b] >= 0)
        B[:, hit] = P[:, cols[a:b][hit]]
        X[:, a:b] = B
    X.flush()
    del X
    groups = {int(sf_pos[g]): np.sort(af_pos[owner == g]) for g in range(N_GROUPS)}
    np.savez(
        path.with_suffix(".truth.npz"),
        y=y,
        support=sf_pos,
        af=af_pos,
        owner=sf_pos[owner],
        groups=json.dumps({k: v.tolist() for k, v in groups.items()}),
    )


def peak_rss_gb() -> float:
    """Peak resident set of this process image (``VmHWM``), in GB.

    Not ``ru_maxrss``: Linux carries that across fork + exec, so a child would report the
    peak of the parent that spawned it (here: the writer that had the whole file mapped).
    """
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 2**20
    return float("nan")


def fit_child(path: str, dask: bool, out: str) -> None:
    """Run in a fresh process: one fit, results to ``out`` (npz), timings as JSON on stdout."""
    from fsviz.select import GDM

    truth = np.load(Path(path).with_suffix(".truth.npz"))
    X = np.load(path, mmap_mode="r")
    y = truth["y"]
    info = {"load": os.getloadavg()[0]}
    client = cluster = None
    if dask:
        from distributed import Client, LocalCluster

        t = time.perf_counter()
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
        client = Client(cluster)
        info["cluster_start"] = time.perf_counter() - t
    t = time.perf_counter()
    g = GDM().fit(X, y, client=client)
    info["secs"] = time.perf_counter() - t
    info["rss_gb"] = peak_rss_gb()
    if client is not None:
        peaks = client.run(peak_rss_gb)
        info["worker_rss_gb"] = max(peaks.values())
        client.close()
        cluster.close()
    groups = json.loads(str(truth["groups"]))
    found = set(g.support_.tolist())
    info["sf_found"] = int(sum(int(k) in found for k in groups))
    info["groups_exact"] = int(
        sum(int(k) in g.groups_ and set(g.groups_[int(k)].tolist()) == set(v) for k, v in groups.items())
    )
    info["n_iter"] = int(g.n_iter_)
    info["n_sf"] = int(g.support_.size)
    flat_g = np.concatenate([g.groups_[k] for k in sorted(g.groups_)]) if g.groups_ else np.empty(0)
    np.savez(
        out,
        support=g.support_,
        keys=np.array(sorted(g.groups_)),
        sizes=np.array([g.groups_[k].size for k in sorted(g.groups_)]),
        flat=flat_g,
        scores=g.scores_,
        coef=g.coef_,
        hist=g.objective_history_,
    )
    print(json.dumps(info), flush=True)


def run(path: Path, dask: bool, out: Path) -> dict:
    cmd = [sys.executable, __file__, "--child", str(path), "--out", str(out)] + (["--dask"] if dask else [])
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # Dask workers import this checkout too
    res = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=ROOT, env=env)
    if res.returncode != 0:
        raise RuntimeError(res.stderr[-3000:])
    return json.loads(res.stdout.strip().splitlines()[-1])


def same(a: Path, b: Path) -> str:
    A, B = np.load(a), np.load(b)
    exact = all(np.array_equal(A[k], B[k]) for k in ("support", "keys", "sizes", "flat"))
    ds = float(np.max(np.abs(A["scores"] - B["scores"]))) if A["scores"].size else 0.0
    dh = float(np.max(np.abs(A["hist"] - B["hist"]) / np.abs(A["hist"]))) if A["hist"].size else 0.0
    return f"{'identical' if exact else 'DIFFERENT'} SF+groups, max|d score| {ds:.1e}, rel d obj {dh:.1e}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--m", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--dir", default="/tmp/fsviz_scale")
    ap.add_argument("--no-dask", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the .npy files")
    args = ap.parse_args()
    d = Path(args.dir)
    d.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(d).free / 2**30
    print(f"GDM() out of core, n={args.n}, float32 Fortran-ordered .npy under {d} ({free:.0f} GB free)")
    print(f"{os.cpu_count()} cores, load average at start {os.getloadavg()[0]:.2f} (shared machine: noisy)")
    print(
        f"{'m':>9s} {'file GB':>7s} {'write s':>8s} {'load':>5s} {'GDM s':>7s} {'RSS GB':>7s} "
        f"{'SF':>6s} {'groups':>7s} {'iters':>5s} {'dask s':>7s} {'x local':>7s} {'wRSS GB':>8s}"
        "  dask vs local"
    )
    ms, ts = [], []
    for m in args.m:
        need = 4 * args.n * m
        if need > 0.9 * shutil.disk_usage(d).free:
            have = shutil.disk_usage(d).free / 2**30
            print(f"{m:9d} skipped: needs {need / 2**30:.1f} GB, {have:.1f} GB free")
            continue
        path = d / f"grouped_{args.n}x{m}.npy"
        t = time.perf_counter()
        if not path.exists():  # in its own process: the writer's mapped pages stay out of our RSS
            cmd = [sys.executable, __file__, "--write", str(path), "--n", str(args.n), "--m", str(m)]
            subprocess.run(cmd, check=True, cwd=ROOT)
        t_write = time.perf_counter() - t
        loc = run(path, False, d / f"res_{m}_local.npz")
        row = (
            f"{m:9d} {need / 2**30:7.2f} {t_write:8.1f} {loc['load']:5.2f} {loc['secs']:7.1f} "
            f"{loc['rss_gb']:7.2f} "
            f"{loc['sf_found']:3d}/{N_GROUPS:<2d} {loc['groups_exact']:4d}/{N_GROUPS:<2d} {loc['n_iter']:5d}"
        )
        ms.append(m)
        ts.append(loc["secs"])
        if not args.no_dask:
            dk = run(path, True, d / f"res_{m}_dask.npz")
            row += f" {dk['secs']:7.1f} {dk['secs'] / loc['secs']:7.2f} {dk['worker_rss_gb']:8.2f}  " + same(
                d / f"res_{m}_local.npz", d / f"res_{m}_dask.npz"
            )
        print(row, flush=True)
        if not args.keep:
            path.unlink()
    if len(ms) >= 2:
        slope = np.polyfit(np.log(ms), np.log(ts), 1)[0]
        print(f"log-log slope of GDM time against m: {slope:.2f} (1 = linear)")


if __name__ == "__main__":
    if "--write" in sys.argv:
        p = argparse.ArgumentParser()
        p.add_argument("--write")
        p.add_argument("--n", type=int)
        p.add_argument("--m", type=int, nargs="+")
        a = p.parse_args()
        write_grouped(Path(a.write), a.n, a.m[0])
    elif "--child" in sys.argv:
        p = argparse.ArgumentParser()
        p.add_argument("--child")
        p.add_argument("--out")
        p.add_argument("--dask", action="store_true")
        a = p.parse_args()
        fit_child(a.child, a.dask, a.out)
    else:
        main()
