"""GDM against the full correlation matrix it avoids, on the paper's synthetic benchmark and
on news20.binary-scale sparse text.

Run: ``python benchmarks/bench_gdm.py [--skip-sparse]``. Prints, from one run:

1. 2,048 x 10,000 synthetic data (TPAMI section 5.2): GDM time, ``n_correlations_`` as a
   fraction of the m(m-1)/2 pairs, the time of ``np.corrcoef`` on the same X, their ratio,
   and the success hits against the ground truth.
2. Sparse Zipf text, 10,000 documents x 1,350,000 terms, 3.6M non-zeros (news20.binary
   scale): GDM time and peak resident memory, never densifying X.

Targets (issue 2): < 1 % of pairs, >= 20x faster than np.corrcoef, < 1 s on 2 cores;
sparse: well under 24 GiB, < 60 s.

``--walks``: the CRM walk, written once (``fsviz/select/gdm/_crm_kernels.py``), side by side
with the five walks it replaced (``benchmarks/crm_walk_before.py``, verbatim): every kernel
call of GDM fits on dense, dense-SU, sparse, sparse-SF and sparse-SF-SU data is recorded,
replayed through both, checked bit for bit (returns and every array the kernel writes) and
timed (best of ``--repeats``, the calls' total).
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # crm_walk_before

from fsviz.data import make_grouped_classification, make_sparse_text
from fsviz.select import GDM


def peak_rss_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB -> GiB (Linux)


def success(g, truth):
    sf = set(g.support_.tolist())
    hit_sf = len(sf & set(truth.support.tolist()))
    hit_af = sum(
        len(set(truth.groups[int(s)].tolist()) & set(g.groups_.get(int(s), np.empty(0)).tolist()))
        for s in truth.support
    )
    return hit_sf, hit_af, truth.n_affiliated


def dense(repeats: int) -> None:
    X, y, truth = make_grouped_classification()
    n, m = X.shape
    pairs = m * (m - 1) / 2
    print(
        f"synthetic: {n} x {m}, {len(truth.support)} SF + {truth.n_affiliated} AF planted, "
        f"{pairs:.3g} feature pairs"
    )
    GDM(n_per_iter=2, max_iter=1).fit(X[:, :200], y)  # numba compile / warm caches
    configs = [
        ("GDM(tau=0.3) defaults: K_b=10, T<=10", dict(tau=0.3)),
        ("GDM(tau=0.3, n_per_iter=4, max_iter=5)", dict(tau=0.3, n_per_iter=4, max_iter=5)),
    ]
    results = []
    for label, kw in configs:
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            g = GDM(**kw).fit(X, y)
            times.append(time.perf_counter() - t)
        results.append((label, min(times), g))
        print(f"  {label} phases: {phases(X, y, **kw)}")
    t = time.perf_counter()
    C = np.corrcoef(X, rowvar=False)
    t_corr = time.perf_counter() - t
    del C
    print(f"  np.corrcoef (all {pairs:.3g} pairs): {t_corr:.2f} s")
    for label, t_gdm, g in results:
        sf, af, n_af = success(g, truth)
        print(
            f"  {label}: {t_gdm:.3f} s (best of {repeats}), {g.n_iter_} iterations, "
            f"{len(g.support_)} SF, n_correlations_ = {g.n_correlations_} = "
            f"{100 * g.n_correlations_ / pairs:.2f} % of pairs, corrcoef / GDM = {t_corr / t_gdm:.1f}x; "
            f"success hits: {sf}/12 SF, {af}/{n_af} AF "
            f"({100 * (sf + af) / (12 + n_af):.1f} %)"
        )


def phases(X, y, **kw) -> str:
    """Where one fit's time goes: wall seconds of GDM's phases, timed by wrapping them (no
    profiler overhead; the score scans run on numba's threads, so CPU time would miss them)."""
    import functools

    from fsviz.select.gdm import _estimator, _scan

    acc: dict[str, float] = {}
    wrapped = [
        (_estimator, "validate_data", "validation"),
        (_estimator, "_finite_stats", "statistics pass"),  # finiteness, max |x|, sums, first scan
        (_estimator, "scale_extreme", "scaling"),
        (_estimator, "column_moments", "moments"),
        (_scan._Scanner, "dot", "score scans X'v"),
        (_estimator, "_crm_walk", "CRM walks"),
        (_estimator, "solve_master", "master problem"),
        (_estimator, "complete_groups", "group completion (K_a*m*n)"),
    ]
    saved = []
    for owner, name, label in wrapped:
        f = getattr(owner, name)
        saved.append((owner, name, f))

        def timed(*a, _f=f, _label=label, **k):
            t = time.perf_counter()
            out = _f(*a, **k)
            acc[_label] = acc.get(_label, 0.0) + time.perf_counter() - t
            return out

        setattr(owner, name, functools.wraps(f)(timed))
    try:
        t = time.perf_counter()
        GDM(**kw).fit(X, y)
        total = time.perf_counter() - t
    finally:
        for owner, name, f in saved:
            setattr(owner, name, f)
    rest = total - sum(acc.values())
    parts = ", ".join(f"{k} {v:.3f} s" for k, v in acc.items())
    return f"total {total:.3f} s = {parts}, rest {rest:.3f} s"


def digits(repeats: int) -> None:
    """The app's default sample: a tau-slider move re-runs GDM, which must stay well under 0.3 s."""
    from fsviz.data import load_sample
    from fsviz.select.gdm import _estimator

    ds = load_sample("digits-0-vs-1")
    X, y = np.asarray(ds.X, dtype=np.float64), np.asarray(ds.y)
    GDM(tau=0.3).fit(X, y)  # warm caches
    orig, seen = _estimator.solve_master, [0, 0]

    def counting(*a, **k):
        out = orig(*a, **k)
        seen[0] += 1
        seen[1] += out.n_iter
        return out

    _estimator.solve_master = counting
    try:
        walls, cpus = [], []
        for _ in range(5 * repeats):
            t, c = time.perf_counter(), time.process_time()
            g = GDM(tau=0.3).fit(X, y)
            walls.append(time.perf_counter() - t)
            cpus.append(time.process_time() - c)
    finally:
        _estimator.solve_master = orig
    k = 5 * repeats
    print(
        f"digits-0-vs-1 ({X.shape[0]} x {X.shape[1]}): GDM(tau=0.3) wall best {min(walls):.3f} s, "
        f"median {np.median(walls):.3f} s, CPU best {min(cpus):.3f} s; {len(g.support_)} SF; "
        f"master problem {seen[0] // k} calls / {seen[1] // k} Newton steps per fit"
    )
    print(f"  phases: {phases(X, y, tau=0.3)}")


def multiclass() -> None:
    """Multiclass GDM (all classes at once) against one-vs-rest supports of the same size on
    COIL20 and ORL: 5-fold CV accuracy of a linear SVM on the selected features."""
    import os

    from scipy.io import loadmat
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC

    root = Path(
        os.environ.get(
            "FSVIZ_DATASETS", Path(__file__).resolve().parents[2] / "shared" / "datasets" / "skfeature"
        )
    )

    def acc(X, y, cols):
        model = make_pipeline(StandardScaler(), LinearSVC(max_iter=5000))
        return cross_val_score(
            model, X[:, cols], y, cv=StratifiedKFold(5, shuffle=True, random_state=0)
        ).mean()

    for name in ("COIL20", "ORL"):
        path = root / f"{name}.mat"
        if not path.is_file():
            print(f"multiclass: {path} not found (set FSVIZ_DATASETS); skipped")
            continue
        d = loadmat(path)
        X, y = np.asarray(d["X"], dtype=np.float64), np.asarray(d["Y"]).ravel()
        classes = np.unique(y)
        for K_b, T in ((5, 4), (10, 5)):
            t = time.perf_counter()
            g = GDM(n_per_iter=K_b, max_iter=T).fit(X, y)
            t_multi = time.perf_counter() - t
            k = g.support_.size
            t = time.perf_counter()
            sups = [GDM(n_per_iter=K_b, max_iter=T, positive=c).fit(X, y).support_ for c in classes]
            t_ovr = time.perf_counter() - t
            first = sups[0][:k]  # what the app ran before: one class (the first) against the rest
            rr: list[int] = []  # every class's one-vs-rest support, interleaved (c fits)
            for i in range(max(s.size for s in sups)):
                for s in sups:
                    if i < s.size and int(s[i]) not in rr:
                        rr.append(int(s[i]))
            rr_k = np.asarray(rr[:k])
            print(
                f"{name} {X.shape[0]} x {X.shape[1]}, {classes.size} classes, K_b={K_b}, T={T}: "
                f"multiclass {k} SF in {t_multi:.2f} s, CV accuracy {acc(X, y, g.support_):.3f}; "
                f"one-vs-rest (positive={classes[0]}) {first.size} SF {acc(X, y, first):.3f}; "
                f"all {classes.size} one-vs-rest supports interleaved ({t_ovr:.2f} s) "
                f"{rr_k.size} SF {acc(X, y, rr_k):.3f}"
            )


def regression() -> None:
    """Regression GDM (squared loss) on the synthetic benchmark with a continuous target."""
    from fsviz.data import make_grouped_regression

    X, y, truth = make_grouped_regression()
    for kw in (dict(tau=0.3), dict(tau=0.3, n_per_iter=4, max_iter=5)):
        t = time.perf_counter()
        g = GDM(**kw).fit(X, y)
        dt = time.perf_counter() - t
        sf, af, n_af = success(g, truth)
        r2 = 1.0 - float(np.mean((g.predict(X) - y) ** 2) / np.var(y))
        print(
            f"regression {X.shape[0]} x {X.shape[1]} GDM({kw}): {dt:.2f} s, {g.support_.size} SF, "
            f"success hits {sf}/12 SF, {af}/{n_af} AF, training R^2 {r2:.3f}"
        )


def sparse() -> None:
    t = time.perf_counter()
    X, y = make_sparse_text(format="csc")
    t_gen = time.perf_counter() - t
    n, m = X.shape
    print(
        f"sparse text: {n} x {m}, nnz = {X.nnz}, generated in {t_gen:.1f} s; "
        f"peak RSS so far {peak_rss_gib():.2f} GiB"
    )
    t = time.perf_counter()
    g = GDM(tau=0.3).fit(X, y)
    t_gdm = time.perf_counter() - t
    pairs = m * (m - 1) / 2
    n_af = sum(v.size for v in g.groups_.values())
    print(
        f"  GDM(tau=0.3): {t_gdm:.1f} s, {g.n_iter_} iterations, {len(g.support_)} SF, {n_af} AF, "
        f"n_correlations_ = {g.n_correlations_:.3g} = {100 * g.n_correlations_ / pairs:.4f} % of "
        f"{pairs:.3g} pairs; peak RSS {peak_rss_gib():.2f} GiB"
    )


def dask_overhead() -> None:
    from distributed import Client, LocalCluster

    X, y, _ = make_grouped_classification()
    kw = dict(tau=0.3, n_per_iter=4, max_iter=5, block_size=2500)
    t = time.perf_counter()
    local = GDM(**kw).fit(X, y)
    t_local = time.perf_counter() - t
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster,
        Client(cluster) as client,
    ):
        t = time.perf_counter()
        remote = GDM(**kw).fit(X, y, client=client)
        t_remote = time.perf_counter() - t
    same = (
        np.array_equal(local.support_, remote.support_)
        and all(np.array_equal(local.groups_[k], remote.groups_[k]) for k in local.groups_)
        and local.n_correlations_ == remote.n_correlations_
    )
    print(
        f"dask: LocalCluster(2 processes) {t_remote:.2f} s vs local {t_local:.2f} s "
        f"(overhead {t_remote / t_local:.1f}x, includes scattering "
        f"X once); identical SF/groups/counts: {same}; "
        f"max |score difference| {np.abs(local.scores_ - remote.scores_).max():.1e}"
    )


#: the walk kernels GDM calls (names in ``fsviz.select.gdm._walk``) and the data that reaches each
WALKS = (
    "crm_walk_pcc",
    "crm_walk_su",
    "crm_walk_pcc_sparse",
    "crm_walk_pcc_sparse_sf",
    "crm_walk_su_sparse_sf",
)


def _walk_calls() -> dict[str, list[tuple]]:
    """Every walk kernel call of five GDM fits, with copies of its arguments before the call."""
    import copy

    import scipy.sparse as sp

    from fsviz.select.gdm import _sparse_sf, _walk

    rng = np.random.default_rng(0)
    X, y, _ = make_grouped_classification(random_state=0)  # the paper's 2,048 x 10,000
    Xs, ys = make_sparse_text(
        n_samples=10_000, n_features=200_000, nnz=1_000_000, random_state=0, format="csc"
    )
    Xs = sp.csc_matrix(Xs)
    calls: dict[str, list[tuple]] = {name: [] for name in WALKS}
    saved = {name: getattr(_walk, name) for name in WALKS}
    budget = _sparse_sf.SPARSE_SF_BYTES
    try:
        for name in WALKS:
            setattr(_walk, name, lambda *a, _n=name: (calls[_n].append(copy.deepcopy(a)), saved[_n](*a))[1])
        GDM(tau=0.3).fit(X, y)
        GDM(tau=0.3, corr="su").fit(X[:, :3000], y)
        GDM(tau=0.3).fit(Xs, ys)
        _sparse_sf.SPARSE_SF_BYTES = 0  # sparse SFs whatever the size
        GDM(tau=0.3).fit(Xs, ys)
        GDM(tau=0.3, corr="su").fit(Xs[:, rng.permutation(Xs.shape[1])[:50_000]], ys)
    finally:
        _sparse_sf.SPARSE_SF_BYTES = budget
        for name, f in saved.items():
            setattr(_walk, name, f)
    return calls


def walks(repeats: int) -> None:
    """The shared CRM walk against the five walks it replaced: identical results, time side by side."""
    import copy

    import crm_walk_before as before

    from fsviz.select.gdm import _crm_kernels as now

    calls = _walk_calls()
    for name, recorded in calls.items():
        if not recorded:
            print(f"  {name}: not reached")
            continue
        new = getattr(now, name)
        if name == "crm_walk_pcc":  # the walk before took the chunk (n, c), now a candidate per row

            def old(Xr, *rest, _f=before.crm_walk_pcc):
                return _f(Xr.T, *rest)
        else:
            old = getattr(before, name)
        for args in recorded[:1]:  # compile both outside the timing
            old(*copy.deepcopy(args))
            new(*copy.deepcopy(args))
        times = {"before": [], "shared walk": []}
        for _ in range(repeats):
            for label, f in (("before", old), ("shared walk", new)):
                inputs = [copy.deepcopy(a) for a in recorded]
                t = time.perf_counter()
                outs = [f(*a) for a in inputs]
                times[label].append(time.perf_counter() - t)
                if label == "before":
                    ref = (outs, inputs)
                else:
                    same = outs == ref[0] and all(
                        np.array_equal(u, v)
                        for a, b in zip(inputs, ref[1], strict=True)
                        for u, v in zip(a, b, strict=True)
                        if isinstance(u, np.ndarray)
                    )
                    assert same, f"{name}: the shared walk differs from the walk it replaced"
        t_old, t_new = min(times["before"]), min(times["shared walk"])
        print(
            f"  {name}: {len(recorded)} calls, bit-identical; before {1e3 * t_old:.1f} ms, "
            f"shared walk {1e3 * t_new:.1f} ms ({t_new / t_old:.2f}x)"
        )


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skip-sparse", action="store_true")
    ap.add_argument("--dask", action="store_true", help="also time the Dask LocalCluster path")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--multiclass", action="store_true", help="also multiclass (COIL20, ORL) and regression")
    ap.add_argument(
        "--walks", action="store_true", help="only the CRM walk side by side with the five it replaced"
    )
    args = ap.parse_args(argv)
    print(f"load average at start: {' '.join(f'{x:.1f}' for x in __import__('os').getloadavg())}")
    if args.walks:
        walks(args.repeats)
        return
    digits(args.repeats)
    dense(args.repeats)
    if args.multiclass:
        multiclass()
        regression()
    if args.dask:
        dask_overhead()
    if not args.skip_sparse:
        sparse()


if __name__ == "__main__":
    main()
