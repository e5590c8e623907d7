"""The reader at genomics width: ``load_dataset`` on a 300 x 100,000 table against the bare parser.

A methylation-like table (float values in [0, 1], about 1 % missing, ids in a first column for
the CSV) is written to a temporary directory (never to the repository), then read by

- the bare parser: ``pyarrow.parquet.read_table`` (Parquet), ``pandas.read_csv`` (C engine) and
  ``pyarrow.csv.read_csv`` (CSV);
- one numpy pass over the float64 matrix (``np.isnan(X).sum(axis=0)``: touches every value once);
- ``load_dataset(..., missing="median")`` of this tree, and with ``--before DIR`` also of another
  source tree (e.g. ``git worktree add /tmp/before <commit>``), in a child process, same file;

and prints the times, the target ratio ``load_dataset / (bare read + numpy pass)`` (the issue's
bound is 1.5x) and the machine's load (``uptime``), one run each (the CSV ``--repeat`` times,
pandas and ``load_dataset`` alternating: each run's ratio, then their median and range). Then a
target change as the app makes it: ``parse_source`` once, ``assemble`` under the first plan and
under three other targets (a probe each, as a continuous target; median and range against the
issue's 2 s), with the parse count (it must not move) and the ratio of a re-assembly to a whole
``load_dataset``. Not part of CI; about 5 minutes at the default shape.

    python benchmarks/bench_wide_load.py [--rows 300] [--cols 100000] [--before DIR] [--csv-cols N]
        [--repeat 3] [--skip-parquet] [--skip-csv] [--skip-target]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import hashlib, sys, time, warnings
sys.path.insert(0, sys.argv[1])
from fsviz.data import load_dataset
warnings.simplefilter("ignore")
t = time.perf_counter()
ds = load_dataset(sys.argv[2], missing="median", memory_budget=0)
print(time.perf_counter() - t, ds.X.shape[1], hashlib.sha256(ds.X.tobytes()).hexdigest())
"""


def load(path: Path) -> float:
    from fsviz.data import load_dataset

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = time.perf_counter()
        ds = load_dataset(path, missing="median", memory_budget=0)
        took = time.perf_counter() - t
    load.last = ds  # the "after" dataset, compared with the "before" one
    return took


def load_in(tree: Path, path: Path) -> tuple[float, str]:
    """``load_dataset`` of another source tree, in a child process: (seconds, SHA-256 of X's bytes)."""
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(tree), str(path)], capture_output=True, text=True, check=True
    ).stdout.split()
    return float(out[0]), out[2]


def timed(fn) -> tuple[float, object]:
    t = time.perf_counter()
    got = fn()
    return time.perf_counter() - t, got


def uptime() -> str:
    return " ".join(f"{v:.1f}" for v in os.getloadavg())


def methylation(n: int, m: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    X = np.round(rng.beta(0.5, 0.5, size=(n, m)), 4)
    X[rng.random((n, m)) < 0.01] = np.nan
    return X


def write_parquet(X: np.ndarray, path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_arrays([pa.array(X[:, j]) for j in range(X.shape[1])], names=probes(X.shape[1]))
    pq.write_table(table, path)


def write_csv(X: np.ndarray, path: Path) -> None:
    with open(path, "w") as fh:
        fh.write(",".join(["sample", *probes(X.shape[1])]) + "\n")
        for i, row in enumerate(X):
            cells = np.char.mod("%.4f", row).astype(object)
            cells[np.isnan(row)] = ""
            fh.write(f"S{i:04d}," + ",".join(cells) + "\n")


def complete_probe(X: np.ndarray, k: int = 3) -> list[str]:
    """``k`` probes with no missing value (a target must be complete), spread over the columns."""
    whole = np.flatnonzero(~np.isnan(X).any(axis=0))
    return [probes(X.shape[1])[int(j)] for j in whole[np.linspace(0, len(whole) - 1, k).astype(int)]]


def probes(m: int) -> list[str]:
    return [f"cg{j:08d}" for j in range(m)]


def target_change(path: Path, load_time: float, targets: list[str]) -> None:
    """Parse once, assemble under the first plan, then once per target in ``targets`` (a probe as
    a continuous target): times (median and range of the re-assemblies), parses, ratio to a load."""
    from fsviz.data import ImportPlan, assemble, parse_count, parse_source

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        before = parse_count()
        t_parse, parsed = timed(lambda: parse_source(path, missing="median", memory_budget=0))
        t_first, _ = timed(lambda: assemble(parsed, parsed.plan))
        times = []
        for target in targets:
            other = parsed.plan.replace(label=target, target_kind="continuous")
            took, ds = timed(lambda other=other: assemble(parsed, other))
            assert ds.y is not None
            times.append(took)
            del ds
        parses = parse_count() - before
    assert isinstance(parsed.plan, ImportPlan)
    mid = float(np.median(times))
    print(f"  {'parse_source':<34} {t_parse:8.2f} s")
    print(f"  {'assemble (the first plan)':<34} {t_first:8.2f} s")
    print(
        f"  {'assemble (another target)':<34} {mid:8.2f} s   median of {len(times)} "
        f"({min(times):.2f}-{max(times):.2f} s), bound 2 s; {mid / load_time:5.2f}x load_dataset; "
        f"parses: {parses} (load {uptime()})"
    )


def report(what: str, bare: float, bare_name: str, numpy_pass: float, after: float, before) -> None:
    floor = bare + numpy_pass
    print(f"## {what}  (load {uptime()})")
    print(f"  {bare_name:<34} {bare:8.2f} s")
    print(f"  {'numpy pass over X (float64)':<34} {numpy_pass:8.2f} s")
    if before is not None:
        print(f"  {'load_dataset before':<34} {before:8.2f} s   {before / floor:5.2f}x (bare + pass)")
    print(f"  {'load_dataset now':<34} {after:8.2f} s   {after / floor:5.2f}x (bare + pass), bound 1.5x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=300)
    ap.add_argument("--cols", type=int, default=100_000)
    ap.add_argument("--csv-cols", type=int, default=None, help="columns of the CSV (default --cols)")
    ap.add_argument("--before", type=Path, default=None, help="another source tree to time too")
    ap.add_argument("--skip-csv", action="store_true")
    ap.add_argument("--skip-parquet", action="store_true")
    ap.add_argument("--skip-target", action="store_true", help="no target-change timings")
    ap.add_argument("--repeat", type=int, default=3, help="CSV runs (pandas and load_dataset alternating)")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    tmp = Path(tempfile.mkdtemp(prefix="fsviz-wide-"))
    n, m = args.rows, args.cols
    X = methylation(n, m)
    print(f"# load_dataset at width: {n} x {m:,}, {np.isnan(X).mean():.1%} missing, missing='median'")
    if not args.skip_parquet:
        parquet_part(X, tmp, args)
    if not args.skip_csv:
        csv_part(X[:, : args.csv_cols or m], tmp, args)


def parquet_part(X: np.ndarray, tmp: Path, args) -> None:
    import pyarrow.parquet as pq

    pq_path = tmp / "wide.parquet"
    write_parquet(X, pq_path)
    print(f"# Parquet {pq_path.stat().st_size / 1e6:.0f} MB in {tmp}")
    bare, table = timed(lambda: pq.read_table(pq_path))
    del table
    numpy_pass, _ = timed(lambda: np.isnan(X).sum(axis=0))
    before = None
    if args.before is not None:
        before, before_hash = load_in(args.before, pq_path)
    after = load(pq_path)
    if args.before is not None:
        same = hashlib.sha256(load.last.X.tobytes()).hexdigest() == before_hash
        print(f"# X identical before and after: {same}")
    report("Parquet", bare, "pyarrow.parquet.read_table", numpy_pass, after, before)
    if not args.skip_target:
        target_change(pq_path, after, complete_probe(X))
    pq_path.unlink()


def csv_part(Xc: np.ndarray, tmp: Path, args) -> None:
    """The CSV side by side with pandas' C parser, ``args.repeat`` times (one warm-up load first:
    numba's cache, the page cache), then once against pyarrow.csv."""
    import pandas as pd
    import pyarrow.csv as pacsv

    n, mc = Xc.shape
    csv_path = tmp / "wide.csv"
    write_csv(Xc, csv_path)
    print(f"# CSV {n} x {mc:,} + id column, {csv_path.stat().st_size / 1e6:.0f} MB")
    load(csv_path)  # warm-up
    ratios, before_ratios = [], []
    for r in range(args.repeat):
        t_pd, _ = timed(lambda: pd.read_csv(csv_path, engine="c"))
        numpy_pass, _ = timed(lambda: np.isnan(Xc).sum(axis=0))
        before = None
        if args.before is not None:
            before, before_hash = load_in(args.before, csv_path)
        after = load(csv_path)
        if args.before is not None:
            same = hashlib.sha256(load.last.X.tobytes()).hexdigest() == before_hash
            print(f"# X identical before and after: {same}")
            before_ratios.append(before / (t_pd + numpy_pass))
        report(
            f"CSV, run {r + 1} of {args.repeat}",
            t_pd,
            "pandas.read_csv (C engine)",
            numpy_pass,
            after,
            before,
        )
        ratios.append(after / (t_pd + numpy_pass))
    span = f"median {np.median(ratios):.2f}x, range {min(ratios):.2f}-{max(ratios):.2f}x"
    if before_ratios:
        lo, hi = min(before_ratios), max(before_ratios)
        span += f"; before: median {np.median(before_ratios):.2f}x ({lo:.2f}-{hi:.2f}x)"
    print(f"## CSV load_dataset / (pandas.read_csv + pass) over {args.repeat} runs: {span} (load {uptime()})")
    wide_blocks = pacsv.ReadOptions(block_size=1 << 26)  # a block must hold the 1 MB header line
    t_pa, _ = timed(lambda: pacsv.read_csv(csv_path, read_options=wide_blocks))
    again = load(csv_path)
    print(f"  {'pyarrow.csv.read_csv':<34} {t_pa:8.2f} s   load_dataset {again:.2f} s (load {uptime()})")
    if not args.skip_target:
        target_change(csv_path, load(csv_path), complete_probe(Xc))
    csv_path.unlink()


if __name__ == "__main__":
    main()
