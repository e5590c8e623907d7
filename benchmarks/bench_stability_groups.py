"""Unstable, or stable up to the choice of group member? Feature- and group-level stability on real data.

For GDM, Fisher score, mRMR and ReliefF on scikit-feature sets: the selection redone on
bootstrap resamples of the samples (``--boot``, default 20), its top ``k`` (default 20) each
time, and the mean pairwise Kuncheva and Jaccard indices counted per feature and by groups
(:func:`fsviz.evaluate.selection_stability`): two resamples agree on a feature when they hold it
or a feature that counts as the same. For GDM that is a member of the same GDM group (its
groups on all samples, tau = 0.3); for the others ``|rho| >= 1 - tau`` with tau = 0.3, GDM's
default tolerance. A second GDM row reads GDM's resamples that way too (any two features with
``|rho| >= 1 - tau`` count as the same, in a GDM group on all samples or not).

Every number is the app's Stability page for the same Run (``Run("stability", ...)``), so the
table can be reproduced there. Prints a Markdown table (docs/evaluate.md) and the load average.

Usage::

    nice -n 10 python benchmarks/bench_stability_groups.py [--sets colon,leukemia] [--boot 20] [--k 20]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import fsviz.compute as fc
from fsviz.data import load_dataset
from fsviz.evaluate import selection_stability

SETS = ("colon", "leukemia", "ALLAML", "GLIOMA", "Prostate-GE", "lung_small")
METHODS = ("gdm", "fisher", "mrmr", "relieff")


def _root() -> Path:
    default = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "skfeature"
    return Path(os.environ.get("FSVIZ_DATASETS", default))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--boot", type=int, default=20)
    ap.add_argument("--k", type=int, default=20)
    ap.add_argument("--tau", type=float, default=0.3)
    args = ap.parse_args()

    print(f"bootstrap resamples: {args.boot}; top k = {args.k}; tau = {args.tau} (|rho| >= {1 - args.tau:g})")
    print(f"load average at start: {', '.join(f'{v:.2f}' for v in os.getloadavg())}\n")
    head = "| data set | n × m | method | Kuncheva | by groups | Jaccard | by groups | time (s) |"
    print(head)
    print("|" + "|".join(["---"] * (head.count("|") - 1)) + "|")
    t_all = time.perf_counter()
    for name in args.sets.split(","):
        ds = load_dataset(_root() / f"{name}.mat")
        for method in args.methods.split(","):
            of = fc.Run(method, {"n_features": args.k} if method == "mrmr" else {}, 0)
            run = fc.Run("stability", {"of": of, "k": args.k, "n_boot": args.boot, "tau": args.tau}, 0)
            res = run.execute(ds)
            cells = [name, f"{ds.n_samples} × {ds.n_features:,}", of.spec.label, f"{res.kuncheva:.3f}"]
            cells += [f"{res.group_kuncheva:.3f}", f"{res.jaccard:.3f}", f"{res.group_jaccard:.3f}"]
            print("| " + " | ".join([*cells, f"{res.seconds:.1f}"]) + " |", flush=True)
            if method == "gdm":  # the same resamples read the way the other methods are read
                same = {"X": ds.X, "tau": args.tau}
                kun = selection_stability(res.subsets, ds.n_features, "kuncheva", **same)
                jac = selection_stability(res.subsets, ds.n_features, "jaccard", **same)
                cells = [name, "", "GDM, by \\|ρ\\| ≥ 1 − τ", f"{res.kuncheva:.3f}", f"{kun:.3f}"]
                print("| " + " | ".join([*cells, f"{res.jaccard:.3f}", f"{jac:.3f}", ""]) + " |")
    print(f"\ntotal {time.perf_counter() - t_all:.0f} s; load average at end: "
          f"{', '.join(f'{v:.2f}' for v in os.getloadavg())}")  # fmt: skip


if __name__ == "__main__":
    main()
