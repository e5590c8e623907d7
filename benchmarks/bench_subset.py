"""mRMR, FCBF and MIM: fsviz against scikit-feature and mrmr-selection, side by side.

Same data, same process. Continuous data sets are discretised once into 10 equal-width
bins (fsviz.stats.information.discretize) and the *codes* are given to the
scikit-feature functions, which expect discrete input; fsviz's selectors are timed on
the raw data (their own discretisation included). ``mrmr-selection`` gets the raw data
(it uses F-statistics and Pearson correlation, its documented defaults).

For each peer: time, time ratio (peer / fsviz) and top-20 agreement (|ours & theirs|
of the first 20, and whether the ordered lists are identical). Where a peer is known to
compute something else (see docs/saola.md, "Peer bugs"), the script also checks that
the peer's output equals what fsviz's kernels give for the quantity the peer actually
computes.

    python benchmarks/bench_subset.py [--datasets GLIOMA COIL20 arcene] [--k 20]

Peers: ``pip install --no-deps skfeature-chappers`` (imports in /work/venv);
``mrmr-selection`` needs tqdm/polars/category_encoders/jinja2, installed with --target
into a separate folder given by ``--peer-path`` (default /work/peers-saola).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import scipy.io

from fsviz.select import FCBF, MRMR
from fsviz.select._mi_kernels import mi_su_one_vs_many
from fsviz.stats.information import discretize, mi_with_target, su_with_target

ROOT = Path(__file__).resolve().parents[1]


def load(name: str):
    d = Path(os.environ.get("FSVIZ_DATASETS", ROOT.parent / "shared" / "datasets" / "skfeature"))
    mat = scipy.io.loadmat(d / f"{name}.mat")
    X = np.asarray(mat["X"], dtype=np.float64)
    y = np.asarray(mat["Y"]).ravel()
    return X, y


def timed(f, repeat=1):
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t0)
    return best, out


def agree(a, b, k):
    a, b = list(map(int, a[:k])), list(map(int, b[:k]))
    return f"{len(set(a) & set(b))}/{k}{' (same order)' if a == b else ''}"


def mifs_reference(codes, y, k, beta):
    """Greedy I(f;y) - beta * sum_{s in S} I(f;s): what skfeature-chappers' 'MRMR' computes."""
    rel = mi_with_target(codes, y)
    h = codes.entropies()
    red = np.zeros(rel.shape[0])
    avail = np.ones(rel.shape[0], dtype=bool)
    sel = [int(np.argmax(rel))]
    avail[sel[0]] = False
    while len(sel) < k:
        c = np.flatnonzero(avail)
        red[c] += mi_su_one_vs_many(codes.codes, codes.k, h, sel[-1], c, False)
        j = int(c[np.argmax(rel[c] - beta * red[c])])
        sel.append(j)
        avail[j] = False
    return np.asarray(sel)


def mid_with_peer_estimator(C, y, k):
    """Textbook MID greedy (beta = 1/|S|) built from scikit-feature's own discrete MI estimator
    ``midd``: what its MRMR should return. Slow (pure Python), used only as the agreement check."""
    from skfeature.utility.entropy_estimators import midd

    m = C.shape[1]
    rel = np.array([midd(C[:, j], y) for j in range(m)])
    red = np.zeros(m)
    sel = [int(np.argmax(rel))]
    while len(sel) < k:
        last = C[:, sel[-1]]
        best, bj = -np.inf, -1
        for j in range(m):
            if j in sel:
                continue
            red[j] += midd(last, C[:, j])
            J = rel[j] - red[j] / len(sel)
            if J > best:
                best, bj = J, j
        sel.append(bj)
    return np.asarray(sel)


def fcbf_index_order(codes, y):
    """FCBF visiting candidates in index order (what skfeature-chappers' fcbf does)."""
    su = su_with_target(codes, y)
    h = codes.entropies()
    order = np.flatnonzero(su > 0)
    alive = np.ones(order.shape[0], dtype=bool)
    sel = []
    for i in range(order.shape[0]):
        if not alive[i]:
            continue
        p = int(order[i])
        sel.append(p)
        later = i + 1 + np.flatnonzero(alive[i + 1 :])
        if later.shape[0]:
            q = order[later]
            alive[later[mi_su_one_vs_many(codes.codes, codes.k, h, p, q, True) >= su[q]]] = False
    return np.asarray(sel)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", nargs="+", default=["GLIOMA", "COIL20", "arcene"])
    ap.add_argument("--k", type=int, default=20)
    ap.add_argument("--peer-path", default="/work/peers-saola")
    ap.add_argument("--skip-slow", action="store_true", help="skip scikit-feature MRMR/MIM on arcene")
    a = ap.parse_args()
    k = a.k
    try:
        from skfeature.function.information_theoretical_based import FCBF as SKF_FCBF
        from skfeature.function.information_theoretical_based import LCSI as SKF_LCSI
        from skfeature.function.information_theoretical_based import MIM as SKF_MIM
        from skfeature.function.information_theoretical_based import MRMR as SKF_MRMR
    except ImportError:
        SKF_FCBF = SKF_MIM = SKF_MRMR = None
        print("scikit-feature (skfeature-chappers) not importable: its rows are skipped")
    if a.peer_path and os.path.isdir(a.peer_path):
        sys.path.append(a.peer_path)
    try:
        import pandas as pd
        from mrmr import mrmr_classif
    except ImportError:
        mrmr_classif = None
        print("mrmr-selection not importable: its rows are skipped")

    # warm-up (numba compilation is cached on disk, but load it outside the timings)
    Xw = np.random.default_rng(0).normal(size=(40, 30))
    yw = np.arange(40) % 2
    MRMR(n_features=3).fit(Xw, yw)
    FCBF().fit(Xw, yw)

    rows = []
    for name in a.datasets:
        X, y = load(name)
        codes = discretize(X, n_bins=10)
        C = np.ascontiguousarray(codes.codes)
        print(f"\n== {name}: {X.shape[0]} samples x {X.shape[1]} features, {np.unique(y).shape[0]} classes")

        # ---------------- mRMR
        t_ours, ours = timed(lambda: MRMR(n_features=k).fit(X, y), repeat=3)
        print(f"fsviz MRMR (MID)            {t_ours:8.3f} s")
        if SKF_MRMR is not None and not (a.skip_slow and name == "arcene"):
            # the MRMR wrapper calls LCSI in its default mode="rank", whose output is not the selected
            # indices (bug 2 in docs/saola.md); LCSI in mode="index" gives the indices it selected.
            t_p, peer = timed(
                lambda: SKF_LCSI.lcsi(
                    C, y, gamma=0, function_name="MRMR", n_selected_features=k, mode="index"
                )
            )
            wrapper = SKF_MRMR.mrmr(C, y, n_selected_features=k, mode="index")
            mifs = mifs_reference(codes, y, k, 0.8)
            print(
                f"skfeature MRMR (LCSI)       {t_p:8.3f} s  ratio {t_p / t_ours:7.1f}x  top-{k} vs ours "
                f"{agree(ours.selected_, peer, k)}; vs MIFS(beta=0.8) {agree(mifs, peer, k)}; "
                f"wrapper output vs its own LCSI {agree(wrapper, peer, k)}"
            )
            rows.append(
                (
                    name,
                    "mRMR",
                    "skfeature-chappers",
                    t_p,
                    t_ours,
                    agree(ours.selected_, peer, k),
                    f"peer = MIFS(beta=0.8): {agree(mifs, peer, k)}",
                )
            )
            t_f, fixed = timed(lambda: mid_with_peer_estimator(C, y, k))
            print(
                f"MID from skfeature's midd   {t_f:8.3f} s  ratio {t_f / t_ours:7.1f}x  top-{k} vs ours "
                f"{agree(ours.selected_, fixed, k)}"
            )
            rows.append(
                (
                    name,
                    "mRMR",
                    "skfeature midd, MID fixed",
                    t_f,
                    t_ours,
                    agree(ours.selected_, fixed, k),
                    "peer's estimator, textbook MID loop",
                )
            )
        if mrmr_classif is not None:
            Xdf = pd.DataFrame(X)
            ys = pd.Series(y)
            t_p, peer = timed(lambda: mrmr_classif(X=Xdf, y=ys, K=k, show_progress=False, n_jobs=2))
            print(
                f"mrmr-selection (F/corr)     {t_p:8.3f} s  ratio {t_p / t_ours:7.1f}x  top-{k} vs ours "
                f"{agree(ours.selected_, np.asarray(peer), k)} (different criterion)"
            )
            rows.append(
                (
                    name,
                    "mRMR",
                    "mrmr-selection",
                    t_p,
                    t_ours,
                    agree(ours.selected_, np.asarray(peer), k),
                    "F-test / |corr| quotient, not MID",
                )
            )

        # ---------------- MIM
        t_ours, rel = timed(lambda: mi_with_target(discretize(X, n_bins=10), y), repeat=3)
        ours_mim = np.argsort(-rel, kind="stable")
        print(f"fsviz MIM (MI + top-k)      {t_ours:8.3f} s")
        if SKF_MIM is not None and not (a.skip_slow and name == "arcene"):
            t_p, peer = timed(
                lambda: SKF_LCSI.lcsi(C, y, beta=0, gamma=0, n_selected_features=k, mode="index")
            )
            wrapper = SKF_MIM.mim(C, y, n_selected_features=k, mode="index")
            print(
                f"skfeature MIM (LCSI)        {t_p:8.3f} s  ratio {t_p / t_ours:7.1f}x  top-{k} vs ours "
                f"{agree(ours_mim, peer, k)}; wrapper output vs its own LCSI {agree(wrapper, peer, k)}"
            )
            rows.append(
                (
                    name,
                    "MIM",
                    "skfeature-chappers",
                    t_p,
                    t_ours,
                    agree(ours_mim, peer, k),
                    f"mim() wrapper output vs LCSI: {agree(wrapper, peer, k)}",
                )
            )

        # ---------------- FCBF
        t_ours, ours = timed(lambda: FCBF().fit(X, y), repeat=3)
        print(f"fsviz FCBF                  {t_ours:8.3f} s  ({ours.selected_.shape[0]} features)")
        if SKF_FCBF is not None:
            t_p, peer = timed(lambda: SKF_FCBF.fcbf(C, y, mode="index"))
            idx_order = fcbf_index_order(codes, y)
            kk = min(k, len(peer), len(ours.selected_))
            print(
                f"skfeature FCBF              {t_p:8.3f} s  ratio {t_p / t_ours:7.1f}x  top-{kk} vs ours "
                f"{agree(ours.selected_, peer, kk)}; peer selected {len(peer)}; vs index-order FCBF "
                f"{agree(idx_order, peer, min(len(peer), len(idx_order)))}"
            )
            rows.append(
                (
                    name,
                    "FCBF",
                    "skfeature-chappers",
                    t_p,
                    t_ours,
                    agree(ours.selected_, peer, kk),
                    f"peer = FCBF in index order: {agree(idx_order, peer, min(len(peer), len(idx_order)))}",
                )
            )

    print("\n| data | method | peer | peer s | fsviz s | ratio | top-20 agreement | note |")
    print("| --- | --- | --- | ---: | ---: | ---: | --- | --- |")
    for r in rows:
        print(
            f"| {r[0]} | {r[1]} | {r[2]} | {r[3]:.3f} | {r[4]:.4f} | {r[3] / r[4]:.0f}x | {r[5]} | {r[6]} |"
        )


if __name__ == "__main__":
    main()
