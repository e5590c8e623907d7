"""Batched permutation p-values on sparse X: kept sparse against the same X densified.

The batched statistics multiply the stacked permuted one-hot labels (or permuted targets) with
``X`` (``X.T @ H.T`` for scipy.sparse), so a sparse ``X`` is never densified. Prints, for Fisher
(class sums) and Spearman (ranks of the non-zero values), time and peak traced memory of the
sparse input against the same matrix as a dense array, from the same process, with the ratio;
and the largest p-value difference (0 apart from exact-zero scores, tied only up to rounding).

    python benchmarks/bench_sparse_permutations.py [--samples 2000] [--features 20000]
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc

import numpy as np
import scipy.sparse as sp

from fsviz.evaluate import permutation_pvalues
from fsviz.select import FisherScore, SpearmanScore


def _measure(est, X, y, b: int, seed: int):
    tracemalloc.start()
    t0 = time.perf_counter()
    res = permutation_pvalues(est, X, y, n_permutations=b, random_state=seed)
    seconds = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return res, seconds, peak


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--features", type=int, default=20_000)
    ap.add_argument("--density", type=float, default=0.005)
    ap.add_argument("--permutations", type=int, default=199)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    n, m = a.samples, a.features
    X = sp.random(n, m, density=a.density, format="csr", random_state=a.seed)
    y = np.arange(n) % 2
    print(f"load {os.getloadavg()[0]:.2f}; n = {n}, m = {m}, density {a.density:g}, B = {a.permutations}")
    print(f"dense X would be {n * m * 8 / 1e6:.0f} MB")
    print(
        "| score | sparse s | dense s | time ratio | sparse peak MB | dense peak MB "
        "| memory ratio | max |dp| |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for est in (FisherScore(), SpearmanScore()):
        rs, ts, ms = _measure(est, X, y, a.permutations, a.seed)
        rd, td, md = _measure(est, X.toarray(), y, a.permutations, a.seed)
        live = np.abs(rd.scores) > 1e-12
        dp = float(np.max(np.abs(rs.pvalues - rd.pvalues)[live], initial=0.0))
        print(
            f"| {type(est).__name__} | {ts:.2f} | {td:.2f} | {ts / td:.2f} | {ms / 1e6:.0f} | {md / 1e6:.0f} "
            f"| {ms / md:.2f} | {dp:.3g} |"
        )
    print(f"load after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
