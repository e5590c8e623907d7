"""Regression (continuous-target) scores against their peers, side by side in one process.

    python benchmarks/bench_regression.py [--repeat 3] [--n 2000] [--m 5000]

Data: a planted linear signal (10 informative features of ``m``, Gaussian noise), a
sparse copy (90 % zeros), and scikit-learn's bundled diabetes data (standardised target).
Peers: scikit-learn's ``f_regression`` (F), ``r_regression`` (Pearson), ``rankdata`` +
``r_regression`` (Spearman), ``mutual_info_regression`` (Kraskov kNN MI; on a 300-feature
slice, it is slow). RReliefF has no peer installed (scikit-feature has only ReliefF for
classes): its time is printed with the n and m it ran on. Prints time ours / peer, the
ratio (peer / ours), the top-10 agreement with the peer and how many of the 10 planted
features each top-10 holds.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.stats import rankdata

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sklearn.feature_selection import f_regression, mutual_info_regression, r_regression  # noqa: E402

from fsviz.select import correlation_score, f_regression_score, mutual_info_score, relieff_score  # noqa: E402


def timed(fn, repeat):
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, np.asarray(out, dtype=np.float64)


def top(s, k=10):
    return set(np.argsort(-np.nan_to_num(s, nan=-np.inf), kind="stable")[:k].tolist())


def row(name, ours, peer, repeat, truth):
    to, so = timed(ours, repeat)
    if peer is None:
        print(f"{name:34s} {to:9.3f} {'-':>9s} {'-':>7s} {'-':>6s} {len(top(so) & truth):>7d}")
        return
    tp, sp_ = timed(peer, repeat)
    agree = len(top(so) & top(sp_)) / 10
    print(f"{name:34s} {to:9.3f} {tp:9.3f} {tp / to:7.1f} {agree:6.1f} {len(top(so) & truth):>7d}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--m", type=int, default=5000)
    a = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    n, m = a.n, a.m
    X = rng.normal(size=(n, m))
    planted = rng.choice(m, 10, replace=False)
    y = X[:, planted] @ rng.uniform(0.5, 1.5, 10) + rng.normal(size=n)
    truth = set(planted.tolist())
    Xs = sp.csc_matrix(np.where(rng.random((n, m)) < 0.9, 0.0, X))
    print(f"load average {os.getloadavg()[0]:.2f}; n={n}, m={m}; best of {a.repeat}")
    print(f"{'score':34s} {'ours s':>9s} {'peer s':>9s} {'ratio':>7s} {'top10':>6s} {'planted':>7s}")
    row(
        "F-regression (dense)",
        lambda: f_regression_score(X, y),
        lambda: f_regression(X, y)[0],
        a.repeat,
        truth,
    )
    row(
        "F-regression (sparse 90% zeros)",
        lambda: f_regression_score(Xs, y),
        lambda: f_regression(Xs, y)[0],
        a.repeat,
        set(),
    )
    row("|Pearson|", lambda: correlation_score(X, y), lambda: np.abs(r_regression(X, y)), a.repeat, truth)
    row(
        "|Spearman|",
        lambda: correlation_score(X, y, "spearman"),
        lambda: np.abs(r_regression(rankdata(X, axis=0), rankdata(y))),
        a.repeat,
        truth,
    )
    # MI and RReliefF on slices that keep the planted features (their peers / themselves are slower)
    keep = np.concatenate([planted, np.setdiff1d(np.arange(m), planted)])
    k = min(300, m)
    Xk = np.ascontiguousarray(X[:, keep[:k]])
    tk = set(range(10))
    row(
        f"MI binned vs Kraskov ({k} features)",
        lambda: mutual_info_score(Xk, y),
        lambda: mutual_info_regression(Xk, y, random_state=0),
        1,
        tk,
    )
    nr, mr = min(n, 1000), min(m, 1000)
    Xr = np.ascontiguousarray(X[:nr, keep[:mr]])
    relieff_score(Xr[:50, :20], y[:50])  # compile the kernels outside the timing
    row(f"RReliefF (n={nr}, m={mr}, no peer)", lambda: relieff_score(Xr, y[:nr]), None, a.repeat, tk)
    row(f"RReliefF (n={nr}, m=100, no peer)", lambda: relieff_score(Xr[:, :100], y[:nr]), None, a.repeat, tk)


if __name__ == "__main__":
    main()
