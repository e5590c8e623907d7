"""GDM at the seed paper's own data shapes: news20, kdd2010, webspam, psoriasis (TPAMI Tables 3-4).

    python benchmarks/bench_seeds_scale.py [--shapes news20 psoriasis] [--modes oc binary su]
        [--dir /work/scale-data] [--scale 1.0] [--dask] [--keep]

For every shape it writes synthetic data of the paper's shape with
:func:`fsviz.data.seeds.write_seed_shape` (one column block at a time, outside the git tree;
check ``df -h`` first: kdd2010 needs ~7 GB, webspam ~12.5 GB), then fits ``GDM`` on
``load_dataset(dir)`` -- memory-mapped, never copied -- in a fresh process per fit and
prints one table: shape, mode, wall and CPU (user + sys) seconds, peak RSS (``VmHWM`` of the
fitting process), SF / AF, correlations computed against m(m-1)/2, planted groups
recovered, the paper's C++ GDM-OC time, and where the time went (statistics pass, score
scans, CRM walks, master problem, group completion). With ``--dask`` every fit is repeated
with ``client=`` on a 2-worker ``LocalCluster`` and the supports and groups are compared
with the local fit's. The load average is printed with every row: on a shared machine the
wall time alone says little.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MODES = {
    "oc": {"one_class": True},
    "binary": {},
    "su": {"corr": "su"},
}


def _vmhwm() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024 / 1e9
    return float("nan")


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def fit_child(path: str, mode: str, dask: bool, block_size: int | None) -> dict:
    """One fit in this process; returns the row as a dict (printed as JSON by ``--fit``)."""
    import numpy as np

    from fsviz.data import load_dataset
    from fsviz.select import GDM
    from fsviz.select.gdm import _ecv, _estimator, _scan, _walk

    phases: dict[str, float] = {}

    def timed(name, fn):
        def wrap(*a, **k):
            t = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                phases[name] = phases.get(name, 0.0) + time.perf_counter() - t

        return wrap

    # the names the estimator modules call (they import the functions themselves)
    crm = timed("crm", _walk._crm_walk)
    _walk._crm_walk = _estimator._crm_walk = _ecv._crm_walk = crm
    _scan._Scanner.dot = timed("scans", _scan._Scanner.dot)
    _estimator.GDM._master = timed("master", _estimator.GDM._master)
    _estimator.complete_groups = timed("completion", _estimator.complete_groups)
    _scan._source_moments = _estimator._source_moments = timed("stats", _scan._source_moments)
    _estimator.column_moments = timed("stats", _estimator.column_moments)
    _scan._finite_stats = _estimator._finite_stats = timed("stats", _scan._finite_stats)

    t0, c0 = time.perf_counter(), _cpu()
    ds = load_dataset(path)
    t_load = time.perf_counter() - t0
    client = cluster = None
    if dask:
        from distributed import Client, LocalCluster

        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
        client = Client(cluster)
    params = dict(MODES[mode])
    if block_size:
        params["block_size"] = block_size
    warm = GDM(**params)  # compile / load numba caches outside the timing
    warm.fit(ds.X[:, :2000], ds.y)
    c1 = _cpu()
    phases.clear()
    t1 = time.perf_counter()
    g = GDM(**params).fit(ds.X, None if mode == "oc" else ds.y, client=client)
    wall = time.perf_counter() - t1
    cpu = _cpu() - c1
    if client is not None:
        client.close()
        cluster.close()
    m = ds.n_features
    groups = {int(k): sorted(int(a) for a in v) for k, v in g.groups_.items()}
    digest = hashlib.sha256(json.dumps([g.support_.tolist(), sorted(groups.items())]).encode()).hexdigest()
    return {
        "shape": ds.meta.get("name"),
        "mode": mode,
        "dask": dask,
        "n": ds.n_samples,
        "m": m,
        "nnz": int(getattr(ds.X, "nnz", 0)) or None,
        "dtype": str(ds.X.dtype),
        "load_s": t_load,
        "wall_s": wall,
        "cpu_s": cpu,
        "peak_rss_gb": _vmhwm(),
        "n_sf": len(g.support_),
        "n_af": int(sum(len(v) for v in g.groups_.values())),
        "n_corr": int(g.n_correlations_),
        "pairs": m * (m - 1) // 2,
        "recovered": ds.truth.recovered(g.support_, g.groups_),
        "planted": len(ds.truth.support),
        "phases": phases,
        "digest": digest,
        "load_avg": os.getloadavg(),
        "cpu_before_fit_s": c1 - c0,
        "np_version": np.__version__,
    }


def _write(shape: str, d: Path, scale: float) -> float:
    from fsviz.data.seeds import write_seed_shape

    t = time.perf_counter()

    def progress(done, total, _last=[0.0]):  # noqa: B006 - a tiny throttle
        if time.perf_counter() - _last[0] > 10:
            _last[0] = time.perf_counter()
            print(f"  writing {shape}: {done:,}/{total:,} features", file=sys.stderr, flush=True)

    write_seed_shape(shape, d, scale=scale, progress=progress)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shapes", nargs="+", default=["news20", "psoriasis", "webspam", "kdd2010"])
    ap.add_argument("--modes", nargs="+", default=["oc", "binary", "su"], choices=sorted(MODES))
    ap.add_argument("--dir", default="/work/scale-data")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--dask", action="store_true", help="repeat every fit on a 2-worker LocalCluster")
    ap.add_argument("--block-size", type=int, default=None)
    ap.add_argument("--keep", action="store_true", help="keep the written data")
    ap.add_argument("--fit", nargs=2, metavar=("DIR", "MODE"), help=argparse.SUPPRESS)
    ap.add_argument("--fit-dask", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.fit:
        print(json.dumps(fit_child(args.fit[0], args.fit[1], args.fit_dask, args.block_size)))
        return

    from fsviz.data.seeds import SEED_SHAPES

    print(f"# {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores, load {os.getloadavg()}")
    rows = []
    for shape in args.shapes:
        d = Path(args.dir) / (shape if args.scale == 1 else f"{shape}-x{args.scale:g}")
        if not (d / "meta.json").exists():
            if d.exists():
                shutil.rmtree(d)
            t_write = _write(shape, d, args.scale)
            print(f"# {shape}: written in {t_write:.1f} s to {d}", flush=True)
        size = sum(f.stat().st_size for f in d.iterdir()) / 1e9
        for mode in args.modes:
            for dask in [False, True] if args.dask else [False]:
                cmd = [sys.executable, __file__, "--fit", str(d), mode]
                if dask:
                    cmd.append("--fit-dask")
                if args.block_size:
                    cmd += ["--block-size", str(args.block_size)]
                p = subprocess.run(cmd, capture_output=True, text=True)
                if p.returncode != 0:
                    print(
                        f"# {shape} {mode} {'dask' if dask else 'local'} FAILED:\n{p.stderr[-3000:]}",
                        flush=True,
                    )
                    continue
                row = json.loads(p.stdout.strip().splitlines()[-1])
                row["size_gb"] = size
                row["paper_s"] = SEED_SHAPES[shape].paper_gdm_oc_seconds if mode == "oc" else None
                rows.append(row)
                ph = ", ".join(
                    f"{k} {v:.2f}" for k, v in sorted(row["phases"].items(), key=lambda kv: -kv[1])
                )
                la = "/".join(f"{x:.1f}" for x in row["load_avg"])
                print(
                    f"| {row['shape']} | {mode}{' (Dask)' if dask else ''} | {row['wall_s']:.2f} s | "
                    f"{row['cpu_s']:.2f} s | {row['peak_rss_gb']:.2f} GB (data {size:.2f} GB) | "
                    f"{row['n_sf']} / {row['n_af']} | {row['n_corr']:.3g} / {row['pairs']:.3g} "
                    f"({row['n_corr'] / row['pairs']:.2g}) | {row['recovered']}/{row['planted']} | "
                    f"{row['paper_s'] if row['paper_s'] else '-'} | {ph} | {la} |",
                    flush=True,
                )
                if dask:
                    local = [
                        r for r in rows if r["shape"] == row["shape"] and r["mode"] == mode and not r["dask"]
                    ]
                    same = bool(local) and local[-1]["digest"] == row["digest"]
                    print(
                        f"#   Dask vs local: {'identical' if same else 'DIFFERENT'} supports and groups",
                        flush=True,
                    )
        if not args.keep:
            shutil.rmtree(d)
    out = Path(args.dir) / "bench_seeds_scale.json"
    out.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
