"""SAOLA on a stream of 100,000 continuous features x 2,000 samples (target: < 30 s).

The features arrive in chunks of 10,000 through ``partial_fit``; only the SAOLA calls
are timed (generating the random chunks is not). The stream mixes pure noise (most
features), noisy copies of 40 latent factors (correlated groups, so redundancy tests
fire) and the label depends on 8 of the factors. Also times group-SAOLA on the first
20,000 features in 200 random groups, and the discrete (SU) path on 20,000 features.

    python benchmarks/bench_saola.py [--features 100000] [--samples 2000] [--chunk 10000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from fsviz.select import SAOLA, GroupSAOLA
from fsviz.select.saola import random_feature_groups


def make_chunk(rng, Z, n_cols, copy_frac=0.02):
    n = Z.shape[0]
    X = rng.standard_normal((n, n_cols))
    k = int(copy_frac * n_cols)
    cols = rng.choice(n_cols, size=k, replace=False)
    fac = rng.integers(0, Z.shape[1], size=k)
    X[:, cols] = Z[:, fac] + rng.uniform(0.1, 1.5, size=k) * X[:, cols]
    return X


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--features", type=int, default=100_000)
    ap.add_argument("--samples", type=int, default=2_000)
    ap.add_argument("--chunk", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    Z = rng.standard_normal((a.samples, 40))
    y = (Z[:, :8] @ rng.uniform(0.5, 1.5, 8) + 0.5 * rng.standard_normal(a.samples) > 0).astype(int)

    # warm-up: compile the kernels (numba cache) outside the timing
    SAOLA().fit(make_chunk(rng, Z, 200), y)

    est = SAOLA(alpha=0.01)
    t_saola = 0.0
    cpu = 0.0
    first = None
    for start in range(0, a.features, a.chunk):
        X = make_chunk(rng, Z, min(a.chunk, a.features - start))
        if first is None:
            first = X[:, :20_000].copy()
        t0, c0 = time.perf_counter(), time.process_time()
        est.partial_fit(X, y)
        t_saola += time.perf_counter() - t0
        cpu += time.process_time() - c0
    c = est.history_.counts()
    print(
        f"SAOLA continuous stream: {a.features:,} features x {a.samples:,} samples in chunks of "
        f"{a.chunk:,}: {t_saola:.2f} s wall, {cpu:.2f} s CPU (target < 30 s)"
    )
    print(f"  selected {len(est.selected_)} | decisions {c}")

    t0 = time.perf_counter()
    gs = GroupSAOLA().fit(first, y, random_feature_groups(first.shape[1], 200, random_state=0))
    t_g = time.perf_counter() - t0
    print(
        f"group-SAOLA: {first.shape[1]:,} features in 200 random groups: {t_g:.2f} s; "
        f"{len(gs.selected_groups_)} groups / {len(gs.selected_)} features kept"
    )

    Xd = np.clip(np.round(first), -2, 2)
    t0 = time.perf_counter()
    sd = SAOLA(data="discrete").fit(Xd, y)
    t_d = time.perf_counter() - t0
    print(
        f"SAOLA discrete (SU): {Xd.shape[1]:,} features x {a.samples:,} samples: {t_d:.2f} s; "
        f"selected {len(sd.selected_)}; decisions {sd.history_.counts()}"
    )


if __name__ == "__main__":
    main()
