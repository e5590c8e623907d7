"""Empirical FDR and power of the cuts with an error rate, on the planted-group generator.

For each of ``--seeds`` seeds, ``make_grouped_classification`` draws support features, their
affiliated copies and noise; every rule selects, and the selection is scored against the truth:

- the permutation FDR cut (F-score, BH at q; per-feature and pooled nulls). Its null is marginal
  independence, so the truth is the support AND the affiliated features (both depend on y);
- model-X knockoffs (lasso statistic, knockoff+ at q; n >= 2m here). Their null is conditional
  independence given the other features, so an affiliated feature is a false discovery: the
  truth is the support only;
- stability selection (F-score top q per half, threshold 0.8, complementary pairs): the number
  of false selections V (marginal truth) against the PFER bound;
- a planted batch effect: a batch associated with y shifts some noise features; Fisher's top k
  (k = number of true features) before and after adjustment for the batch: the share of
  batch-only features that leave the top k and of true features that stay.

Prints a Markdown table (mean over seeds, +/- one standard error) for docs/significance.md.

    python benchmarks/bench_fdr.py [--seeds 20] [--q 0.1] [--permutations 999]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from fsviz.data import make_grouped_classification
from fsviz.evaluate import permutation_pvalues, stability_selection
from fsviz.select import FisherScore, FScore, Knockoffs


def _truth(truth) -> tuple[set[int], set[int]]:
    support = {int(s) for s in truth.support}
    return support, support | {int(a) for g in truth.groups.values() for a in g}


def _rates(selected, true: set[int]) -> tuple[float, float, int]:
    sel = [int(i) for i in selected]
    false = sum(i not in true for i in sel)
    fdp = false / len(sel) if sel else 0.0
    power = sum(i in true for i in sel) / max(len(true), 1)
    return fdp, power, false


def _batch(X, y, rng, n_batch_features: int, noise: np.ndarray):
    """A batch (P(y=1 | batch 1) = 0.8, 0.2 otherwise) that shifts some noise features by 1.5 sd."""
    batch = (rng.uniform(size=y.size) < np.where(y == 1, 0.8, 0.2)).astype(int)
    hit = rng.choice(noise, size=n_batch_features, replace=False)
    Xb = X.copy()
    Xb[:, hit] += 1.5 * batch[:, None]
    return Xb, batch, set(hit.tolist())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--q", type=float, default=0.1)
    ap.add_argument("--permutations", type=int, default=999)
    ap.add_argument("--n-samples", type=int, default=400)
    ap.add_argument("--n-features", type=int, default=150)
    args = ap.parse_args()
    q = args.q
    rows: dict[str, list[tuple[float, float, int]]] = {}
    pfer, batch_rows = [], []
    t0 = time.perf_counter()
    for seed in range(args.seeds):
        X, y, truth = make_grouped_classification(
            n_samples=args.n_samples,
            n_features=args.n_features,
            n_groups=5,
            max_affiliates=3,
            random_state=seed,
        )
        support, marginal = _truth(truth)
        for null in ("feature", "pooled"):
            res = permutation_pvalues(
                FScore(), X, y, n_permutations=args.permutations, random_state=seed, null=null
            )
            rows.setdefault(f"permutation F, BH q <= {q:g} ({null} null)", []).append(
                _rates(res.selected(q), marginal)
            )
        ko = Knockoffs(fdr=q, random_state=seed).fit(X, y)
        rows.setdefault(f"knockoffs (lasso W, knockoff+ q = {q:g}); truth = support only", []).append(
            _rates(ko.selected_, support)
        )
        k_half = int(np.sqrt(0.6 * args.n_features))
        st = stability_selection(FScore(), X, y, k=k_half, n_pairs=25, random_state=seed)
        rows.setdefault(f"stability selection (F top {k_half} per half, pi >= 0.8)", []).append(
            _rates(st.selected(0.8), marginal)
        )
        pfer.append(st.pfer(0.8))
        rng = np.random.default_rng(1000 + seed)
        noise = np.setdiff1d(np.arange(args.n_features), np.fromiter(marginal, int))
        Xb, batch, batch_only = _batch(X, y, rng, 10, noise)
        k = len(marginal)
        clean = set(np.argsort(-FisherScore().fit(X, y).scores_, kind="stable")[:k].tolist()) & marginal
        before = set(np.argsort(-FisherScore().fit(Xb, y).scores_, kind="stable")[:k].tolist())
        adj = permutation_pvalues(
            FisherScore(),
            Xb,
            y,
            n_permutations=args.permutations,
            random_state=seed,
            covariates={"batch": batch.astype(str)},
        )
        after = set(np.argsort(-adj.scores, kind="stable")[:k].tolist())
        batch_rows.append(
            (
                len(before & batch_only) / len(batch_only),
                len(after & batch_only) / len(batch_only),
                len(before & marginal) / k,
                len(after & marginal) / k,
                _rates(adj.selected(q), marginal)[0],
                _rates(adj.selected(q), marginal)[1],
                len(before & clean) / max(len(clean), 1),
                len(after & clean) / max(len(clean), 1),
            )
        )
    seconds = time.perf_counter() - t0

    def ms(values) -> str:
        v = np.asarray(values, dtype=float)
        return f"{v.mean():.3f} +/- {v.std(ddof=1) / np.sqrt(v.size):.3f}"

    print(
        f"{args.seeds} seeds, n = {args.n_samples}, m = {args.n_features}, 5 groups (<= 3 affiliates), "
        f"{args.permutations} permutations, q = {q:g}; {seconds:.0f} s\n"
    )
    print("| rule | empirical FDR | power | mean false selections |")
    print("| --- | --- | --- | --- |")
    for name, vals in rows.items():
        fdp, power, false = zip(*vals, strict=True)
        print(f"| {name} | {ms(fdp)} | {ms(power)} | {np.mean(false):.2f} |")
    fdp, power, false = zip(*rows[next(k for k in rows if k.startswith("stability"))], strict=True)
    print(f"\nstability selection: mean V = {ms(false)} against the PFER bound {np.mean(pfer):.3f}\n")
    b = np.asarray(batch_rows)
    print("| planted batch (10 batch-only features) | before adjustment | after adjustment |")
    print("| --- | --- | --- |")
    print(f"| batch-only features in Fisher's top k | {ms(b[:, 0])} | {ms(b[:, 1])} |")
    print(f"| true features in Fisher's top k | {ms(b[:, 2])} | {ms(b[:, 3])} |")
    print(f"| true features of the batch-free top k still in the top k | {ms(b[:, 6])} | {ms(b[:, 7])} |")
    print(
        "\nadjusted permutation cut (batch covariate, permutations within batches): "
        f"FDR {ms(b[:, 4])}, power {ms(b[:, 5])}"
    )


if __name__ == "__main__":
    main()
