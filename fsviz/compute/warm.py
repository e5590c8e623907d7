"""Compile the numba kernels ahead of their first real use.

Every kernel is compiled on its first call in a process and kept in numba's disk cache
(``cache=True``, next to the sources). On a fresh install each one is compiled by the first
process that needs it: the app's first visitors, each Dask worker, each CLI run, and every test
worker at once. :func:`warm_up` runs each registered method once, at its declared defaults and
in the variants the kernels are specialised for (dense, float32 memory-mapped and sparse
columns; two classes, several, a continuous target and none), on tiny generated data, so that
the cache holds them before anyone waits: ``jobs`` processes share the methods.

    python -m fsviz.compute.warm --jobs 2

The test command runs it first (``make test``); a server can run it once after installing.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator

__all__ = ["warm_up"]

#: methods in the order of their compile time on a cold cache (the longest first), so that a
#: round robin over ``jobs`` processes gives each a similar share; the rest follow
_SLOW_FIRST = (
    "histogram", "osfs", "gdm", "laplacian", "mi", "grafting", "relieff", "lgd", "gini", "mrmr",
    "saola", "group-saola", "fast-osfs", "ofs", "mifs", "fisher", "alpha-investing", "grm",
)  # fmt: skip

#: methods with no run at their defaults alone (a base score, groups or a selection to look at)
_NEEDS_PARAMS = frozenset(
    {"grm", "group-saola", "explain", "stability", "projection", "images", "benchmark", "evaluation"}
)


def _variants(name: str) -> tuple[dict, ...]:
    """Parameter sets beyond the defaults: the kernels' other specialisations."""
    from fsviz.compute import Run

    return {
        "gdm": ({"corr": "su"}, {"one_class": True}),
        "saola": ({"data": "discrete"},),
        "histogram": ({"precision": "float32"},),
        "grm": ({"base": Run("lgd", {})}, {"base": Run("fisher", {})}),
        "group-saola": ({"groups": Run("gdm", {})},),
        "explain": ({"of": Run("gdm", {})},),
    }.get(name, ())


def _datasets(folder: str, random_state: int = 0):
    """Tiny datasets of every kind the kernels are specialised for."""
    import numpy as np
    import scipy.sparse as sp

    from fsviz.data import Dataset, load_dataset

    rng = np.random.default_rng(random_state)
    X = rng.standard_normal((60, 40))
    X[:, 1] = X[:, 0] + 0.05 * rng.standard_normal(60)  # a correlated pair: GDM and SAOLA find a group
    y2 = (X[:, 0] > 0).astype(np.int64)
    y3 = np.digitize(X[:, 2], [-0.5, 0.5]).astype(np.int64)
    yc = X[:, 3] + 0.1 * rng.standard_normal(60)
    S = sp.random(60, 40, density=0.2, random_state=random_state, format="csr")
    np.save(os.path.join(folder, "w.npy"), X.astype(np.float32))
    np.save(os.path.join(folder, "w.y.npy"), y2)
    yield Dataset(X, y=y2, name="two classes")
    yield Dataset(X, y=y3, name="three classes")
    yield Dataset(X, y=yc, name="continuous")
    yield Dataset(X, name="no target")
    yield Dataset(S, y=y2, name="sparse")
    yield Dataset(S, y=yc, name="sparse continuous")
    yield load_dataset(os.path.join(folder, "w.npy"), memory_budget=1)  # memory-mapped float32


def _runs(methods: list[str]) -> Iterator:
    from fsviz.compute import Run

    for name in methods:
        if name not in _NEEDS_PARAMS:
            yield Run(name, {})
        for params in _variants(name):
            try:
                yield Run(name, params)
            except (ValueError, TypeError):  # a variant the declarations no longer take
                continue


def _share(part: int, parts: int) -> list[str]:
    from fsviz.compute.registry import METHODS

    names = [m for m in _SLOW_FIRST if m in METHODS] + [m for m in METHODS if m not in _SLOW_FIRST]
    return names[part::parts]


def _warm(methods: list[str]) -> tuple[int, int]:
    """Run ``methods`` on every tiny dataset they apply to; returns (runs done, runs that failed)."""
    from fsviz.compute.registry import methods_for

    done = skipped = 0
    with tempfile.TemporaryDirectory() as folder:
        for ds in _datasets(folder):
            applies = set(methods_for(ds.target_kind))
            for run in _runs(methods):
                if run.method not in applies or ds.meta.get("format") == "npy-mmap" and run.method != "gdm":
                    continue  # only GDM reads columns from the memory map
                try:
                    run.execute(ds)
                    done += 1
                except Exception:  # noqa: BLE001 - a method that does not apply to this kind of data
                    skipped += 1
    return done, skipped


def warm_up(jobs: int = 1, verbose: bool = False) -> float:
    """Compile every kernel the registered methods use into numba's disk cache.

    Parameters
    ----------
    jobs : int, default=1
        Processes that share the methods (each compiles its own share; the cache is shared).
    verbose : bool, default=False
        Print what each process did.

    Returns
    -------
    float
        Seconds taken.
    """
    t = time.perf_counter()
    jobs = max(1, int(jobs))
    if jobs == 1:
        done, skipped = _warm(_share(0, 1))
        if verbose:
            print(f"warm-up: {done} runs ({skipped} failed)")
        return time.perf_counter() - t
    cmd = [sys.executable, "-m", "fsviz.compute.warm", "--part"]
    procs = [subprocess.Popen([*cmd, f"{i}/{jobs}"] + (["-v"] if verbose else [])) for i in range(jobs)]
    codes = [p.wait() for p in procs]
    if any(codes):
        raise RuntimeError(f"warm-up: a process failed (exit codes {codes})")
    return time.perf_counter() - t


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fsviz.compute.warm", description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=1, help="processes sharing the work (default 1)")
    parser.add_argument("--part", default=None, help=argparse.SUPPRESS)  # i/n: one process's share
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    if args.part:
        i, n = (int(v) for v in args.part.split("/"))
        t = time.perf_counter()
        done, skipped = _warm(_share(i, n))
        if args.verbose:
            took = time.perf_counter() - t
            print(f"warm-up part {i + 1}/{n}: {done} runs ({skipped} failed) in {took:.0f} s")
        return 0
    took = warm_up(args.jobs, args.verbose)
    print(f"numba kernels compiled or loaded from the cache in {took:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
