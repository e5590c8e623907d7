# ruff: noqa: E501  (the paper tables below are kept one row per line, as printed)
"""``benchmarks/reproduce.py --only gdm,gdm-oc,orl``: GDM TPAMI (Zhai, Ong & Tsang 2016) Table 2
(success hits on the synthetic benchmark) and Table 4 (the one-class protocol), and GDM ICML'12
Fig. 1 on ORL faces, male vs female (see reproduce.py's docstring)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from reproduce_common import _optional, _timed, load

from fsviz.evaluate import cv_accuracy
from fsviz.select import FCBF, GDM, MRMR, FisherScore

# ORL (AT&T) has 4 women among its 40 subjects: s8, s10, s32 and s35 (checked by eye on
# scikit-feature's ORL.mat, whose labels 1-40 follow the s1-s40 order)
TPAMI_T2 = {  # method -> the paper's value (grouping methods: %, selection methods: SF/AF/incorrect)
    "GDM": "86.8 %", "OSCAR": "50.0 %", "ncFGS": "60.5 %", "ncTFGS": "52.6 %", "GFlasso": "71.1 %",
    "GDM tau=0": "9/3/0", "mRMR": "2/3/7", "FCBF": "6/1/5", "RCFS": "7/2/3", "SVM-RFE": "8/3/1",
    "L1-SVM": "10/2/0",
}  # fmt: skip


TPAMI_T2_TIME = {  # training time (s) as printed; C++ (GDM, l1-SVM) or MATLAB, 2016 hardware
    "GDM": "0.85 ± 0.13", "OSCAR": "130.68", "ncFGS": "455.34", "ncTFGS": "456.62", "GFlasso": "132.49",
    "GDM tau=0": "0.31 ± 0.16", "mRMR": "2.28 ± 0.25", "FCBF": "4.56 ± 0.52", "RCFS": "101.95",
    "SVM-RFE": "33.73 ± 0.98", "L1-SVM": "0.33 ± 0.07",
}  # fmt: skip


TPAMI_KW = {"SVMRFE": {"n_features_to_select": 12, "step": 0.1}, "L1SVM": {"n_features": 12}}


TPAMI_CLASS = {"SVM-RFE": "SVMRFE", "L1-SVM": "L1SVM", "OSCAR": "OSCAR", "GFlasso": "GFlasso"}


def tpami_table2(n_seeds, quick=False):
    """Table 2 over ``n_seeds`` data sets of the paper's setting: 2,048 x 10,000, 12 groups of
    0-5 affiliated features, group weights N(0, 1) with no floor (``min_weight=0``), so weak
    groups carry little signal, as in the paper. Feature-selection methods keep 12 features
    (the paper's triples sum to 12)."""
    from fsviz.data import make_grouped_classification
    from fsviz.evaluate import success_hits

    hits = {m: [] for m in TPAMI_T2}
    times = {m: [] for m in TPAMI_T2}
    n_truth, weak = [], []
    for seed in range(n_seeds):
        X, y, truth = make_grouped_classification(min_weight=0.0, random_state=seed)
        n_truth.append(len(truth.support) + sum(len(a) for a in truth.groups.values()))
        weak.append(int(np.sum(np.abs(truth.weights) < 0.5)))
        # grouping form: GDM (PCC, tau = 0.3) with 12 SFs (3 iterations of 4), groups completed
        g, t = _timed(lambda X=X, y=y: GDM(tau=0.3, n_per_iter=4, max_iter=3, tol=0.0).fit(X, y))
        hits["GDM"].append(success_hits(g.support_, g.groups_, truth))
        times["GDM"].append(t)
        g0, t = _timed(lambda X=X, y=y: GDM(tau=0.0, n_per_iter=4, max_iter=3, tol=0.0).fit(X, y))
        hits["GDM tau=0"].append(success_hits(g0.support_[:12], None, truth))
        times["GDM tau=0"].append(t)
        mr, t = _timed(lambda X=X, y=y: MRMR(n_features=12).fit(X, y))
        hits["mRMR"].append(success_hits(mr.selected_, None, truth))
        times["mRMR"].append(t)
        fc, t = _timed(lambda X=X, y=y: FCBF(delta=0.0).fit(X, y))
        hits["FCBF"].append(success_hits(fc.selected_[:12], None, truth))
        times["FCBF"].append(t)
        for m, cname in TPAMI_CLASS.items():
            cls = _optional(cname)
            if cls is None or quick:
                continue
            kw = TPAMI_KW.get(cname, {})
            est, t = _timed(lambda cls=cls, X=X, y=y, kw=kw: cls(**kw).fit(X, y))
            sel = getattr(est, "selected_", None)
            sel = est.get_support(indices=True) if sel is None else sel
            hits[m].append(success_hits(np.asarray(sel)[:12], getattr(est, "groups_", None), truth))
            times[m].append(t)
    setting = (
        f"{n_seeds} seeds; 2048 x 10000, 12 groups, weights N(0,1) without floor "
        f"({np.mean(weak):.1f} of 12 groups with |w| < 0.5), {np.mean(n_truth):.1f} true features"
    )
    for m, paper in TPAMI_T2.items():
        h = hits[m]
        if not h:
            why = "not yet in fsviz" if m in TPAMI_CLASS else "not in fsviz"
            if m in TPAMI_CLASS and _optional(TPAMI_CLASS[m]) is not None:
                why = "in fsviz; skipped by --quick"
            tp_row("success hits", m, paper, "–", why)
            continue
        t = np.array(times[m])
        tm = ""
        if paper.endswith("%"):
            rate = 100 * np.array([x.rate for x in h])
            prec = 100 * np.array([x.precision for x in h])
            ours = f"{rate.mean():.1f} ± {rate.std():.1f} % (precision {prec.mean():.1f} %){tm}"
            p = float(paper.split()[0])
            verdict = (
                "reproduced (within 1 sd)"
                if abs(rate.mean() - p) <= max(rate.std(), 2.0)
                else (f"fsviz {'higher' if rate.mean() > p else 'lower'} ({rate.mean() - p:+.1f} points)")
            )
        else:
            tri = np.array([[x.n_correct_support, x.n_correct_affiliated, x.n_incorrect] for x in h], float)
            mean = tri.mean(axis=0)
            prec = 100 * np.array([x.selection_precision for x in h])
            per_seed = " ".join(x.triple for x in h)
            ours = (
                f"{mean[0]:.1f}/{mean[1]:.1f}/{mean[2]:.1f} [{per_seed}] (precision {prec.mean():.0f} %){tm}"
            )
            p = np.array([float(v) for v in paper.split("/")])
            # the paper's claim is about correct vs incorrect: compare #incorrect (and #correct SF)
            ok = abs(mean[2] - p[2]) <= 2 and abs(mean[0] - p[0]) <= 2
            verdict = (
                "reproduced (SF and incorrect within 2)"
                if ok
                else (f"differs (SF {mean[0] - p[0]:+.1f}, incorrect {mean[2] - p[2]:+.1f})")
            )
        tp_row("success hits", m, paper, ours, verdict)
        tp_row("training time (s)", m, TPAMI_T2_TIME[m], f"{t.mean():.2f} ± {t.std():.2f}", "timing only")
    print(f"<!-- TPAMI Table 2: {setting} -->", flush=True)


TPAMI_T4 = {
    "news20.binary": ("63.11 % (nu = 0.5)", "62.90 % (55 features)"),
    "kdd2010": ("N. A.", "71.76 % (20 features)"),
    "webspam": ("74.14 % (nu = 0.5)", "76.00 % (70 features)"),
    "psoriasis": ("52.84 % (nu = 0.8)", "48.26 % (100 features)"),
}


def tpami_table4(quick=False):
    """Table 4's protocol on the data fsviz holds: one class trains (70 %), held-out samples of
    every class are scored; GDM-OC run to convergence (tol 1e-4) with the best K_b of {2, 5, 10}
    against OneClassSVM with the best nu (both chosen on the test AUC, as the paper records "a
    better result"); AUC instead of the paper's accuracy (no threshold to tune). The claim
    checked: GDM-OC is about as good as the one-class SVM (within 0.02 AUC, or better)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_one_class import one_case

    for name, (svm, oc) in TPAMI_T4.items():
        print(
            f"| GDM TPAMI | Table 4 | {name} | accuracy, OCSVM / GDM-OC | {svm} / {oc} | – | not in fsviz (data not held) |"
        )
    names = ("ALLAML", "colon") if quick else ("ALLAML", "Prostate-GE", "arcene", "colon", "leukemia")
    for name in names:
        X, y = load(name)
        for c in np.unique(y):
            r = one_case(X, y, c)
            svm = max(r["OCSVM-linear"][0], r["OCSVM-rbf"][0])
            oc, t_oc = r["GDM-OC Table 4"]
            t_svm = r["OCSVM-rbf"][1] if r["OCSVM-rbf"][0] >= r["OCSVM-linear"][0] else r["OCSVM-linear"][1]
            verdict = (
                "reproduced (GDM-OC within 0.02 AUC or above)"
                if oc >= svm - 0.02
                else f"fsviz lower ({oc - svm:+.3f} AUC)"
            )
            print(
                f"| GDM TPAMI | Table 4 protocol | {name}, class {c} normal | AUC, OCSVM / GDM-OC (time s) | – | "
                f"{svm:.3f} / {oc:.3f} ({t_svm:.2f} / {t_oc:.2f}) | {verdict} |",
                flush=True,
            )


def tp_row(metric, method, paper, ours, verdict):
    print(
        f"| GDM TPAMI | Table 2 | synthetic | {metric}, {method} | {paper} | {ours} | {verdict} |", flush=True
    )


ORL_FEMALE = (8, 10, 32, 35)


def _grid(side):
    """(row, col) of every pixel of a side x side image stored column-major (MATLAB order)."""
    j = np.arange(side * side)
    return np.stack([j % side, j // side], axis=1).astype(float)


def orl_fig1(n_perm):
    X, y = load("ORL")
    yb = np.where(np.isin(y, ORL_FEMALE), 1, -1)
    side = int(round(np.sqrt(X.shape[1])))
    pos = _grid(side)
    rng = np.random.default_rng(0)
    g = GDM(tau=0.25).fit(X, yb)  # tau = 0.25 as in the ICML paper's experiments (section 5)
    sf = np.asarray(g.support_)
    pool = np.flatnonzero(X.std(axis=0) > 0)
    # (1) affiliated groups are spatially coherent: distance SF -> its AFs vs SF -> random pixels
    pairs = [(s, a) for s, afs in g.groups_.items() for a in np.asarray(afs)]
    n_af = len(pairs)
    d_af = np.array([np.linalg.norm(pos[s] - pos[a]) for s, a in pairs])
    owners = np.array([s for s, _ in pairs])
    null = np.empty(n_perm)
    near_null = np.empty(n_perm)
    for i in range(n_perm):
        r = rng.choice(pool, size=n_af)
        d = np.linalg.norm(pos[owners] - pos[r], axis=1)
        null[i] = d.mean()
        near_null[i] = np.mean(d <= 2.0)
    p_coh = (1 + np.sum(null <= d_af.mean())) / (1 + n_perm)
    near = float(np.mean(d_af <= 2.0))
    orl_row(
        "Fig. 1 (right)",
        "mean pixel distance SF -> its AFs",
        "AFs congregate in regions (beard, moustache, silhouette)",
        f"{d_af.mean():.2f} px vs random pixels {null.mean():.2f} ± {null.std():.2f} px, "
        f"permutation p = {p_coh:.4f} ({n_af} AFs in {sum(len(a) > 0 for a in g.groups_.values())} groups)",
        "reproduced: AFs cluster around their SF" if p_coh < 0.01 else "NOT reproduced",
    )
    orl_row(
        "Fig. 1 (right)",
        "share of AFs within 2 px of their SF",
        "(same claim)",
        f"{near:.3f} vs random pixels {near_null.mean():.3f} (max over permutations {near_null.max():.3f})",
        "reproduced" if near > near_null.max() else "NOT reproduced",
    )

    # (2) support features are spread out: mean nearest-neighbour distance among SFs vs random sets
    def nn_mean(idx):
        d = np.linalg.norm(pos[idx][:, None] - pos[idx][None], axis=2)
        np.fill_diagonal(d, np.inf)
        return d.min(axis=1).mean()

    obs = nn_mean(sf)
    null_nn = np.array([nn_mean(rng.choice(pool, size=sf.size, replace=False)) for _ in range(n_perm)])
    p_more = (1 + np.sum(null_nn >= obs)) / (1 + n_perm)
    # the contrast the paper draws: a redundancy-blind filter (Fisher score) packs its top pixels
    fis = np.argsort(-FisherScore().fit(X, yb).scores_, kind="stable")[: sf.size]
    nn_fis = nn_mean(fis)
    spread = obs >= np.median(null_nn) and nn_fis < obs
    orl_row(
        "Fig. 1 (middle)",
        f"mean nearest-neighbour distance among the {sf.size} SFs",
        "SFs sparsely spread across the entire image",
        f"{obs:.2f} px vs random sets {null_nn.mean():.2f} ± {null_nn.std():.2f} px "
        f"(p(more spread than random) = {p_more:.4f}); Fisher top {sf.size}: {nn_fis:.2f} px",
        "reproduced: SFs at least as spread as random pixels" if spread else "NOT reproduced",
    )
    acc = 100 * cv_accuracy(X, yb, sf, model="svm", random_state=0).mean
    orl_row(
        "Fig. 1 (text)",
        "5-fold linear SVM accuracy on the SFs (selected once)",
        "perfect prediction",
        f"{acc:.1f} %",
        "reproduced" if acc >= 99.0 else ("close (>= 95 %)" if acc >= 95.0 else "NOT reproduced"),
    )


def orl_row(fig, metric, paper, ours, verdict):
    print(
        f"| GDM ICML'12 | {fig} | ORL (male vs female) | {metric} | {paper} | {ours} | {verdict} |",
        flush=True,
    )
