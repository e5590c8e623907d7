# ruff: noqa: E501  (the paper tables below are kept one row per line, as printed)
"""Reproduce the papers' tables with fsviz and print one Markdown row per table cell.

    python benchmarks/reproduce.py --quick                  # every section, reduced (< 3 min)
    python benchmarks/reproduce.py --only saola,orl         # some sections, in full
    python benchmarks/reproduce.py --write-docs docs/reproduce.md   # full run (< 15 min)

Not run in CI. Rows are ``paper | table/figure | dataset | metric | paper value | fsviz value |
verdict``; a closing table counts the verdicts per paper. Sections (``--only``):

* ``grm``: the GRM paper (Wang, Nie & Huang, TKDE 2015), Tables 2-8, on the paper's data sets
  that ship with scikit-feature (GLIOMA, ALLAML = the paper's AMLALL, Prostate-GE = ProCancer,
  leukemia = LEU, COIL20). Protocol: top 20 features, GRM on the n_top = 1000 best base
  features, 5-fold CV with a linear SVM and 1-NN, repeated 5 times (fold seeds 0-4). Supervised
  accuracies under two protocols, labelled ``once`` (features selected once on all samples, as
  the paper) and ``in-fold`` (base score and GRM recomputed inside every training fold: honest),
  both over the 5 repetitions. Every base score is passed to GRM as its fsviz ``scores_`` (the
  GRM input contract in docs/scores.md).
* ``grm-sens``: how the 36-pair outcome moves with GRM's working-set size n_top (100-2000),
  and LGD under a sample-space reading of its neighbourhoods (measured, not fsviz's LGD).
* ``saola``: the SAOLA paper (Yu, Wu, Ding & Pei, ACM TKDD 2016), Tables III-VIII, X-XVII and
  XXII-XXIII on leukemia, madelon and arcene, with the paper's splits and classifiers.
  Baselines fsviz does not have yet print "not yet in fsviz" and run once they exist.
* ``gdm``: GDM TPAMI (Zhai, Ong & Tsang 2016) Table 2, success hits on the synthetic
  ground-truth benchmark over 5 seeds.
* ``gdm-oc``: GDM TPAMI Table 4's one-class protocol (section 5.5) on ALLAML, Prostate-GE,
  arcene, colon and leukemia, each class as the normal one: GDM-OC (best ``K_b`` of {2, 5, 10},
  run to convergence) against OneClassSVM (best nu), AUC on held-out samples; the paper's own
  data sets (news20, kdd2010, webspam, psoriasis) are not held.
* ``orl``: GDM ICML'12 Fig. 1 on ORL, quantified (affiliated groups spatially coherent,
  support features spread out).

``--quick``: GRM on GLIOMA + ALLAML with 1 repetition and no in-fold rows, 2 leukemia splits,
2 groupings, 2 synthetic seeds, Table 4's protocol on ALLAML and colon only, 200 permutations, and only fsviz's own methods of the papers
(SAOLA, group-SAOLA, FCBF, GDM, mRMR, and the cheap Sparse Group Lasso): the other
baselines are skipped. GRM rows labelled "Alg. 2 as printed" run a transcription of the
paper's inexact ALM beside fsviz's exact GRM (see ``grm_alg2_top``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy.io import loadmat

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fsviz.evaluate import cv_accuracy, redundancy_rate  # noqa: E402
from fsviz.select import (  # noqa: E402
    FCBF,
    GDM,
    GRM,
    LGD,
    MCFS,
    MRMR,
    SAOLA,
    FisherScore,
    GroupSAOLA,
    LaplacianScore,
    MutualInfo,
    ReliefF,
    SparseGroupLasso,
    VarianceScore,
    random_feature_groups,
)
from fsviz.select.grm import simplex_projection, squared_cosine_matrix  # noqa: E402

DATA = Path(
    os.environ.get(
        "FSVIZ_DATASETS", Path(__file__).resolve().parents[2] / "shared" / "datasets" / "skfeature"
    )
)
K = 20
N_TOP = 1000
ALG2 = "Alg. 2 as printed"
_TINY = np.finfo(np.float64).tiny
# scikit-feature file -> the GRM paper's name
PAPER_NAME = {
    "GLIOMA": "GLIOMA",
    "ALLAML": "AMLALL",
    "Prostate-GE": "ProCancer",
    "leukemia": "LEU",
    "COIL20": "COIL20",
}
BASES = {  # name in the paper -> (GRM name, factory(n_classes))
    "Lap": ("GLap", lambda c: LaplacianScore(n_neighbors=5)),
    "LGD": ("GLGD", lambda c: LGD(n_neighbors=5)),
    "MCFS": ("GMCFS", lambda c: MCFS(n_clusters=c)),
    "RF": ("GRF", lambda c: ReliefF(n_neighbors=10)),
    "Fscore": ("GFscore", lambda c: FisherScore()),
    # information gain on Fayyad & Irani's MDL cuts (Weka's InfoGainAttributeEval): a feature
    # without an accepted cut scores 0, GRM's "no evidence" (10-bin MI: docs/reproduce.md)
    "IG": ("GIG", lambda c: MutualInfo(strategy="mdl")),
}
SUPERVISED = ("RF", "Fscore", "IG")
# the paper's values: table -> dataset -> column -> value
_COLS_U = ("Lap", "GLap", "LGD", "GLGD", "MCFS", "GMCFS")
_COLS_S = ("RF", "GRF", "Fscore", "GFscore", "IG", "GIG", "mRMR")
_T = {
    2: (_COLS_U, {"GLIOMA": "50.00 54.00 54.00 64.00 56.00 66.00", "AMLALL": "65.18 70.71 76.25 88.93 65.00 70.18",
                  "ProCancer": "82.88 84.54 80.78 86.34 80.72 85.16", "LEU": "83.39 97.32 91.46 93.25 93.04 93.04",
                  "COIL20": "57.23 74.62 67.63 82.74 80.03 81.31"}),
    3: (_COLS_U, {"GLIOMA": "56.00 68.00 60.00 70.00 64.00 64.00", "AMLALL": "65.71 68.04 80.96 81.79 68.04 69.46",
                  "ProCancer": "80.65 81.54 75.23 83.01 83.67 85.16", "LEU": "76.43 83.21 82.89 83.21 81.14 82.71",
                  "COIL20": "68.58 77.06 75.69 80.21 80.56 83.26"}),
    4: (_COLS_U, {"GLIOMA": "0.719 0.521 0.474 0.268 0.224 0.051", "AMLALL": "0.657 0.336 0.273 0.062 0.147 0.020",
                  "ProCancer": "0.976 0.385 0.695 0.383 0.281 0.024", "LEU": "0.404 0.148 0.184 0.045 0.148 0.024",
                  "COIL20": "0.533 0.394 0.469 0.171 0.087 0.035"}),
    5: (_COLS_S, {"GLIOMA": "62.00 68.00 60.00 64.00 58.00 64.00 68.00",
                  "AMLALL": "85.89 88.93 91.61 97.14 93.04 95.54 93.04",
                  "ProCancer": "91.05 93.33 93.14 97.78 94.21 96.67 88.63",
                  "LEU": "94.46 95.21 92.57 93.04 95.71 95.89 94.14",
                  "COIL20": "59.14 82.88 45.45 85.47 20.62 50.31 55.80"}),
    6: (_COLS_S, {"GLIOMA": "56.00 66.00 62.00 66.00 70.00 74.00 62.00",
                  "AMLALL": "80.54 90.18 83.04 91.61 84.82 94.46 94.46",
                  "ProCancer": "86.67 88.76 96.67 98.89 94.44 94.44 91.96",
                  "LEU": "84.64 94.46 95.89 95.89 91.61 97.14 97.14",
                  "COIL20": "71.11 84.22 54.94 86.03 37.06 52.90 64.08"}),
    7: (_COLS_S, {"GLIOMA": "0.459 0.088 0.567 0.273 0.463 0.200 0.288",
                  "AMLALL": "0.201 0.027 0.407 0.108 0.288 0.037 0.152",
                  "ProCancer": "0.438 0.180 0.434 0.261 0.336 0.080 0.232",
                  "LEU": "0.297 0.028 0.463 0.147 0.433 0.055 0.214",
                  "COIL20": "0.576 0.161 0.390 0.149 0.248 0.044 0.110"}),
    8: (("Var", "Lap", "LGD"), {"GLIOMA": "0.908 0.732 0.872", "AMLALL": "0.952 0.932 0.924",
                                "ProCancer": "0.924 0.912 0.952"}),
}  # fmt: skip
PAPER = {
    t: {d: dict(zip(cols, map(float, v.split()), strict=True)) for d, v in rows.items()}
    for t, (cols, rows) in _T.items()
}
MODELS = {"svm": ("linear SVM", (2, 5)), "knn": ("1-NN", (3, 6))}


def load(name):
    d = loadmat(DATA / f"{name}.mat")
    return np.asarray(d["X"], dtype=np.float64), np.asarray(d["Y"]).ravel()


def base_top(est, X, y):
    s = est.fit(X, y).scores_
    return np.argsort(-s, kind="stable")[:K], s


def grm_top(X, s, n_top=N_TOP):
    return GRM(n_top=n_top, n_features=K).fit(X, s).selected_


def grm_alg2_top(X, s, n_top=N_TOP):
    """The top K features of :func:`grm_alg2` (Algorithm 2 as printed)."""
    top, z = grm_alg2(X, s, n_top)
    return top[np.argsort(-z, kind="stable")[:K]]


def grm_alg2(X, s, n_top=N_TOP, mu0=1.0, rho=1.5, max_outer=30, max_inner=500):
    """Algorithm 2 *as printed* in the GRM paper -> (working set, its z), not the exact optimum.

    A transcription: z starts uniform; each outer step sets lambda = z'Az / z's and runs
    the ALM with alpha = 0, mu = mu0 growing by rho every iteration (steps 1-4, eq. 8 and
    the simplex projection eq. 22) until ||z - v|| < 1e-8; the outer loop stops when lambda
    changes by less than 1e-8 relative. The paper gives no mu0 and says 1 < rho < 2; these
    are our choices. Because mu grows geometrically, z freezes before the inner problem is
    solved, so the output is an early, denser iterate that keeps more of the base ranking
    (fsviz's GRM solves problem (1) exactly; see docs/reproduce.md)."""
    top = np.argsort(-s, kind="stable")[:n_top]
    A = squared_cosine_matrix(X[:, top])
    ss = s[top] / s[top].max()
    evals, Q = np.linalg.eigh(A)
    z = np.full(top.size, 1.0 / top.size)
    lam_old = None
    for _ in range(max_outer):
        lam = float(z @ A @ z) / float(z @ ss)
        if lam_old is not None and abs(lam - lam_old) < 1e-8 * abs(lam):
            break
        lam_old, mu, alpha = lam, mu0, np.zeros(top.size)
        for _ in range(max_inner):
            v = Q @ ((Q.T @ (lam / 2 * ss + mu / 2 * (z + alpha / mu))) / (evals + mu / 2))
            z = simplex_projection(v - alpha / mu)
            alpha += mu * (z - v)
            mu *= rho
            if np.linalg.norm(z - v) < 1e-8:
                break
    return top, z


def accuracy(X, y, sel, model, reps):
    v = [
        100 * cv_accuracy(X, y, sel, k=K, model=model, n_neighbors=1, random_state=r).mean
        for r in range(reps)
    ]
    return float(np.mean(v)), float(np.std(v))


# the rows name a substitute as such: scikit-feature's files are other versions of these two
SUBSTITUTE = {"ProCancer": "ProCancer (as Prostate-GE)", "LEU": "LEU (as leukemia)"}


def row(table, ds, metric, paper, ours, verdict):
    p = "–" if paper is None else (f"{paper:.3f}" if paper < 1.5 else f"{paper:.2f}")
    ds = SUBSTITUTE.get(ds, ds)
    print(f"| GRM | Table {table} | {ds} | {metric} | {p} | {ours} | {verdict} |", flush=True)


def direction(paper_b, paper_g, b, g, tol):
    """Verdict on a base -> GRM pair: does fsviz go the paper's way (within tol)?"""
    ours = "gain" if g > b + tol else ("loss" if g < b - tol else "tie")
    if paper_b is None:
        return f"fsviz {ours} ({g - b:+.1f})"
    theirs = "gain" if paper_g > paper_b else ("loss" if paper_g < paper_b else "tie")
    ok = ours in ("gain", "tie") if theirs != "loss" else ours != "gain"
    verdict = "reproduced" if ok else "NOT reproduced"
    return f"{verdict}: paper {theirs} ({paper_g - paper_b:+.1f}), fsviz {ours} ({g - b:+.1f})"


def infold(X, y, make, c, model, reps, memo):
    """Honest accuracy of base top-K and GRM top-K, both recomputed inside every training
    fold, over ``reps`` repetitions of 5-fold CV (fold seeds 0..reps-1) -> (base, grm) arrays.

    The two selections of a training fold are computed once and shared by both classifiers
    (``memo``, keyed by the fold's row set), so the SVM and 1-NN rows see the same features."""

    def both(Xt, yt):
        key = (id(make), hash(Xt[:, :3].tobytes()), hash(yt.tobytes()), Xt.shape)
        if key not in memo:
            s = make(c).fit(Xt, yt).scores_
            memo[key] = (np.argsort(-s, kind="stable")[:K], grm_top(Xt, s))
        return memo[key]

    def sel_base(Xt, yt):
        return both(Xt, yt)[0]

    def sel_grm(Xt, yt):
        return both(Xt, yt)[1]

    hb = [
        100 * cv_accuracy(X, y, sel_base, k=K, model=model, n_neighbors=1, random_state=r).mean
        for r in range(reps)
    ]
    hg = [
        100 * cv_accuracy(X, y, sel_grm, k=K, model=model, n_neighbors=1, random_state=r).mean
        for r in range(reps)
    ]
    return np.asarray(hb), np.asarray(hg)


def grm_tables(name, reps, honest, summary):
    X, y = load(name)
    ds = PAPER_NAME[name]
    c = len(np.unique(y))
    t0 = time.perf_counter()
    memo = {}
    for base, (gname, make) in BASES.items():
        sup = base in SUPERVISED
        tb, s = base_top(make(c), X, y)
        tg = grm_top(X, s)
        ta = grm_alg2_top(X, s)
        rb, rg = redundancy_rate(X, tb, kind="cosine2"), redundancy_rate(X, tg, kind="cosine2")
        ra = redundancy_rate(X, ta, kind="cosine2")
        tr = 7 if sup else 4
        pb, pg = PAPER.get(tr, {}).get(ds, {}).get(base), PAPER.get(tr, {}).get(ds, {}).get(gname)
        row(tr, ds, f"Red {base}", pb, f"{rb:.3f}", "" if pb is None else f"{rb / pb:.2f}x paper")
        cut = f"cut {rb / max(rg, 1e-12):.1f}x" + ("" if pb is None else f" (paper {pb / pg:.1f}x)")
        row(tr, ds, f"Red {gname}", pg, f"{rg:.3f}", ("lower" if rg < rb else "NOT lower") + f"; {cut}")
        cut = f"cut {rb / max(ra, 1e-12):.1f}x" + ("" if pb is None else f" (paper {pb / pg:.1f}x)")
        row(
            tr,
            ds,
            f"Red {gname}, {ALG2}",
            pg,
            f"{ra:.3f}",
            ("lower" if ra < rb else "NOT lower") + f"; {cut}",
        )
        summary["red"].append((ds, base, rb, rg))
        summary["red_alg2"].append((ds, base, rb, ra))
        for model, (label, tabs) in MODELS.items():
            t = tabs[1] if sup else tabs[0]
            ab, sb = accuracy(X, y, tb, model, reps)
            ag, sg = accuracy(X, y, tg, model, reps)
            pb, pg = PAPER.get(t, {}).get(ds, {}).get(base), PAPER.get(t, {}).get(ds, {}).get(gname)
            tol = max(sg, 1.0)
            row(t, ds, f"{label} acc {base}, once", pb, f"{ab:.1f} ± {sb:.1f}", "")
            row(
                t,
                ds,
                f"{label} acc {gname}, once",
                pg,
                f"{ag:.1f} ± {sg:.1f}",
                direction(pb, pg, ab, ag, tol),
            )
            summary["acc"].append((ds, base, model, ab, ag, tol))
            aa, sa = accuracy(X, y, ta, model, reps)
            atol = max(sa, 1.0)
            row(
                t,
                ds,
                f"{label} acc {gname}, once, {ALG2}",
                pg,
                f"{aa:.1f} ± {sa:.1f}",
                direction(pb, pg, ab, aa, atol),
            )
            summary["acc_alg2"].append((ds, base, model, ab, aa, atol))
            if honest and sup:
                hb, hg = infold(X, y, make, c, model, reps, memo)
                row(
                    t,
                    ds,
                    f"{label} acc {base}, in-fold",
                    None,
                    f"{hb.mean():.1f} ± {hb.std():.1f}",
                    f"honest, {reps} repetitions",
                )
                htol = max(hg.std(), 1.0)
                row(
                    t,
                    ds,
                    f"{label} acc {gname}, in-fold",
                    None,
                    f"{hg.mean():.1f} ± {hg.std():.1f}",
                    f"honest; {direction(pb, pg, hb.mean(), hg.mean(), htol)}",
                )
                summary["honest"].append((ds, base, model, hb.mean(), hg.mean(), htol))
    print(f"<!-- {name}: {time.perf_counter() - t0:.0f} s -->", flush=True)


def mrmr_rows(name, reps):
    X, y = load(name)
    ds = PAPER_NAME[name]
    sel = MRMR(n_features=K).fit(X, y).selected_
    r = redundancy_rate(X, sel, kind="cosine2")
    row(7, ds, "Red mRMR", PAPER[7].get(ds, {}).get("mRMR"), f"{r:.3f}", "")
    for model, (label, tabs) in MODELS.items():
        a, s = accuracy(X, y, sel, model, reps)
        row(
            tabs[1],
            ds,
            f"{label} acc mRMR, once",
            PAPER[tabs[1]].get(ds, {}).get("mRMR"),
            f"{a:.1f} ± {s:.1f}",
            "",
        )


def correct_moves(name, n_seeds):
    """Table 8: top 200 by the base score, GRM ranks them; 50 random pairs from 100 random features
    as prior groups; a pair makes a correct move when its rank gap shrinks with the groups."""
    X, y = load(name)
    ds = PAPER_NAME[name]
    for base, est in (("Var", VarianceScore()), ("Lap", LaplacianScore()), ("LGD", LGD())):
        s = est.fit(X).scores_
        rates = []
        for seed in range(n_seeds):
            plain = GRM(n_top=200, n_features=None).fit(X, s)
            top = plain.top_
            if top.size < 200:
                break
            rng = np.random.default_rng(seed)
            pairs = rng.choice(top, 100, replace=False).reshape(50, 2)
            grouped = GRM(n_top=200, n_features=None, prior_groups=pairs.tolist()).fit(X, s)
            gap0 = np.abs(plain.ranking_[pairs[:, 0]] - plain.ranking_[pairs[:, 1]])
            gap1 = np.abs(grouped.ranking_[pairs[:, 0]] - grouped.ranking_[pairs[:, 1]])
            rates.append(float(np.mean(gap1 < gap0)))
        p = PAPER[8].get(ds, {}).get(base)
        if not rates:
            row(
                8,
                ds,
                f"correct-move rate {base}",
                p,
                "n/a",
                f"fewer than 200 features with a positive {base} score",
            )
            continue
        verdict = "" if p is None else ("close (±0.05)" if abs(np.mean(rates) - p) <= 0.05 else "differs")
        row(8, ds, f"correct-move rate {base}", p, f"{np.mean(rates):.3f} ± {np.std(rates):.3f}", verdict)


# ----------------------------------------------------------------------------------------
# SAOLA paper (Yu, Wu, Ding & Pei, ACM TKDD 2016): leukemia, madelon, arcene
# ----------------------------------------------------------------------------------------
# table -> (metric, columns, {dataset: values}); values as printed in the paper
_S = {
    "III": ("J48 accuracy", ("SAOLA", "FastOSFS", "AlphaInvesting", "OFS"),
            {"leukemia": "0.9583 0.9583 0.6667 0.9583", "madelon": "0.6083 0.6100 0.6067 0.6367"}),
    "IV": ("1-NN accuracy", ("SAOLA", "FastOSFS", "AlphaInvesting", "OFS"),
           {"leukemia": "0.9167 0.7917 0.6250 0.8750", "madelon": "0.5617 0.5283 0.5767 0.6433"}),
    "V": ("SVM accuracy", ("SAOLA", "FastOSFS", "AlphaInvesting", "OFS"),
          {"leukemia": "0.9583 0.7500 0.6667 0.8333", "madelon": "0.6217 0.6227 0.6383 0.6117"}),
    "VI": ("number of selected features", ("SAOLA", "FastOSFS", "AlphaInvesting", "OFS"),
           {"leukemia": "17 5 2 45", "madelon": "3 3 4 65"}),
    "VII": ("running time (s)", ("SAOLA", "FastOSFS", "AlphaInvesting", "OFS"),
            {"leukemia": "2 2 1 0.1", "madelon": "0.1 0.1 0.1 0.1"}),
    "VIII": ("AUC (mean of J48, 1-NN, SVM)", ("SAOLA", "FastOSFS", "AlphaInvesting"),
             {"leukemia": "0.9404 0.8811 0.6543", "madelon": "0.5972 0.5883 0.6072"}),
    "X": ("J48 accuracy", ("SAOLA", "FCBF", "SPSF-LAR", "GDM"),
          {"leukemia": "0.9583 0.9583 0.9583 1.0000", "madelon": "0.6083 0.6067 0.6183 0.5833"}),
    "XI": ("1-NN accuracy", ("SAOLA", "FCBF", "SPSF-LAR", "GDM"),
           {"leukemia": "0.9167 1.0000 1.0000 1.0000", "madelon": "0.5617 0.5767 0.5633 0.5833"}),
    "XII": ("SVM accuracy", ("SAOLA", "FCBF", "SPSF-LAR", "GDM"),
            {"leukemia": "0.9583 0.9167 0.9167 1.0000", "madelon": "0.6217 0.5933 0.7900 0.5833"}),
    "XIII": ("AUC (mean of J48, 1-NN, SVM)", ("SAOLA", "FCBF", "SPSF-LAR"),
             {"leukemia": "0.9404 0.9737 0.9737", "madelon": "0.5972 0.5962 0.7537"}),
    "XIV": ("SVM accuracy", ("SAOLA", "FCBF", "IAMB", "MMMB"), {"arcene": "0.6600 0.5600 0.6000 0.6700"}),
    "XIV AUC": ("SVM AUC", ("SAOLA", "FCBF", "IAMB", "MMMB"), {"arcene": "0.6526 0.500 0.5917 0.6664"}),
    "XV": ("1-NN accuracy", ("SAOLA", "FCBF", "IAMB", "MMMB"), {"arcene": "0.6900 0.5900 0.5800 0.6200"}),
    "XV AUC": ("1-NN AUC", ("SAOLA", "FCBF", "IAMB", "MMMB"), {"arcene": "0.6867 0.5804 0.5714 0.6096"}),
    "XVI": ("J48 accuracy", ("SAOLA", "FCBF", "IAMB", "MMMB"), {"arcene": "0.5600 0.5500 0.5800 0.6000"}),
    "XVI AUC": ("J48 AUC", ("SAOLA", "FCBF", "IAMB", "MMMB"), {"arcene": "0.5463 0.5252 0.5714 0.5966"}),
    "XVII": ("number of selected features", ("SAOLA", "FCBF", "IAMB", "MMMB"), {"arcene": "22 31 3 5"}),
    "XVII time": ("running time (s)", ("SAOLA", "FCBF", "IAMB", "MMMB"), {"arcene": "3 3 5 12"}),
    "XXII": ("J48 accuracy", ("GroupSAOLA", "OGFS", "SparseGroupLasso"),
             {"leukemia": "0.9583 0.7292 0.9583", "madelon": "0.6117 0.5153 0.6533"}),
    "XXII KNN": ("1-NN accuracy", ("GroupSAOLA", "OGFS", "SparseGroupLasso"),
                 {"leukemia": "0.9833 0.7792 1.0000", "madelon": "0.5317 0.4922 0.5967"}),
    "XXIII": ("running time (s)", ("GroupSAOLA", "OGFS", "SparseGroupLasso"),
              {"leukemia": "3 1 18", "madelon": "0.1 0.1 27"}),
    "XXIII n": ("selected features/groups", ("GroupSAOLA", "OGFS", "SparseGroupLasso"),
                {"leukemia": "16/14 66/47 61/28", "madelon": "2/2 15/13 5/2"}),
}  # fmt: skip
SAOLA_PAPER = {
    t: (m, {d: dict(zip(cols, v.split(), strict=True)) for d, v in rows.items()})
    for t, (m, cols, rows) in _S.items()
}
# the paper's splits: madelon and arcene are NIPS 2003 train + validation, stored in that order
# in scikit-feature's .mat files (2000 + 600 and 100 + 100 rows, class counts 1000/1000 + 300/300
# and 44/56 + 44/56 as in the challenge); leukemia is 48 train / 24 test drawn at random, 10 times
SAOLA_SPLITS = {"madelon": 2000, "arcene": 100}
CLASSIFIERS = {"J48": "J48", "KNN": "1-NN", "SVM": "SVM"}


def _classifier(name):
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC
    from sklearn.tree import DecisionTreeClassifier

    if name == "J48":  # C4.5 is not in scikit-learn: an entropy-split CART tree with J48's
        # minimum of 2 samples per leaf stands in (no confidence-based pruning)
        return DecisionTreeClassifier(criterion="entropy", min_samples_leaf=2, random_state=0)
    if name == "KNN":  # k = 1, Euclidean distance on the raw features (the paper's Spider KNN)
        return KNeighborsClassifier(n_neighbors=1)
    # libsvm with a linear kernel, C = 1; standardised on the training part for convergence
    return make_pipeline(StandardScaler(), SVC(kernel="linear", C=1.0))


def holdout(Xtr, ytr, Xte, yte, sel):
    """-> {classifier: (accuracy, AUC)} on the test part, features ``sel`` only."""
    from sklearn.metrics import roc_auc_score

    sel = np.asarray(sel, dtype=np.intp)
    out = {}
    for name in CLASSIFIERS:
        if sel.size == 0:  # nothing selected: predict the training majority class
            vals, cnt = np.unique(ytr, return_counts=True)
            out[name] = (float(np.mean(yte == vals[np.argmax(cnt)])), 0.5)
            continue
        clf = _classifier(name).fit(Xtr[:, sel], ytr)
        acc = float(np.mean(clf.predict(Xte[:, sel]) == yte))
        pos = yte == np.max(ytr)
        if hasattr(clf, "decision_function"):
            s = clf.decision_function(Xte[:, sel])
        else:
            s = clf.predict_proba(Xte[:, sel])[:, list(clf.classes_).index(np.max(ytr))]
        out[name] = (acc, float(roc_auc_score(pos, s)))
    return out


def _timed(fn):
    t0 = time.perf_counter()
    r = fn()
    return r, time.perf_counter() - t0


def saola_split_runs(name, n_splits, n_groupings):
    """-> (X, y, list of (train, test) index pairs): the NIPS split repeated ``n_groupings``
    times (madelon, arcene), or ``n_splits`` random stratified 48/24 splits (leukemia)."""
    X, y = load(name)
    if name in SAOLA_SPLITS:
        n = SAOLA_SPLITS[name]
        return X, y, [(np.arange(n), np.arange(n, X.shape[0]))] * n_groupings
    from sklearn.model_selection import StratifiedShuffleSplit

    sss = StratifiedShuffleSplit(n_splits=n_splits, train_size=48, test_size=24, random_state=0)
    return X, y, list(sss.split(X, y))


def _optional(name):
    """The fsviz selector class called ``name``, or None when fsviz does not have it yet."""
    import fsviz.select

    return getattr(fsviz.select, name) if hasattr(fsviz.select, name) else None


def _fit_selected(est, X, y, **kw):
    est.fit(X, y, **kw)
    sel = getattr(est, "selected_", None)
    return np.asarray(est.get_support(indices=True) if sel is None else sel, dtype=np.intp)


def best_of_k(cls, Xtr, ytr, Xte, yte, ks):
    """OFS as the SAOLA paper ran it: ``cls(n_features=k)`` for every k, best accuracy per
    classifier -> {classifier: (accuracy, AUC, k)}."""
    best = {c: (0.0, 0.0, 0) for c in CLASSIFIERS}
    for k in ks:
        sel = _fit_selected(cls(n_features=min(k, Xtr.shape[1])), Xtr, ytr)
        for c, (a, auc) in holdout(Xtr, ytr, Xte, yte, sel).items():
            if a > best[c][0]:
                best[c] = (a, auc, k)
    return best


def gdm_best_prefix(Xtr, ytr, Xte, yte):
    """GDM as the SAOLA paper ran it: the best accuracy per classifier over subsets of 10, 20, ...
    selected features up to 260, as the paper did: prefixes of one run's support features in the
    order found (26 cutting-plane iterations of 10; a fit that converges earlier stops there)."""
    g = GDM(tau=0.3, n_per_iter=10, max_iter=26).fit(Xtr, ytr)
    best = {c: (0.0, 0.0, 0) for c in CLASSIFIERS}
    for k in range(10, len(g.support_) + 10, 10):
        res = holdout(Xtr, ytr, Xte, yte, g.support_[:k])
        for c, (a, auc) in res.items():
            if a > best[c][0]:
                best[c] = (a, auc, min(k, len(g.support_)))
    return best


def saola_verdict(paper, ours, n_test):
    tol = max(1.0 / n_test, 0.02)
    if abs(ours - paper) <= tol + 1e-12:
        return f"reproduced (within {tol:.3f})"
    return f"fsviz {'higher' if ours > paper else 'lower'} ({ours - paper:+.3f})"


def count_verdict(paper, ours):
    if abs(ours - paper) <= max(2, 0.3 * paper):
        return "reproduced (within max(2, 30 %))"
    return f"differs ({ours / max(paper, 1e-12):.1f}x paper)"


def saola_tables(quick):
    """SAOLA Tables III-VIII, X-XVII and group-SAOLA Tables XXII-XXIII."""
    n_splits = 2 if quick else 10
    # numba warm-up so the timings below exclude compilation
    Xw = np.random.default_rng(0).normal(size=(40, 30))
    yw = (Xw[:, 0] > 0).astype(int)
    SAOLA().fit(Xw, yw)
    SAOLA().fit(np.round(Xw), yw)
    GroupSAOLA().fit(Xw, yw, groups=np.arange(30) // 10)
    GroupSAOLA().fit(np.round(Xw), yw, groups=np.arange(30) // 10)
    for name in ("leukemia", "madelon", "arcene"):
        X, y, splits = saola_split_runs(name, n_splits, 1)
        n_test = len(splits[0][1])
        how = (
            f"best of {len(splits)} random 48/24 splits (mean ± sd)"
            if name == "leukemia"
            else f"NIPS 2003 train {len(splits[0][0])} / validation {n_test}"
        )
        # per method: list over splits of (holdout result, n selected, time)
        runs = {}
        methods = {
            "SAOLA": lambda Xt, yt: _fit_selected(SAOLA(alpha=0.01, delta=0.0), Xt, yt),
            "FCBF": lambda Xt, yt: _fit_selected(FCBF(delta=0.0), Xt, yt),
        }
        # Fast-OSFS: alpha = 0.01 (fsviz's default); alpha-investing: Zhou et al.'s w0 = dw = 0.5
        # (fsviz's defaults); OFS: the best of k = 5, 10, ..., 100 (below)
        for opt in ("FastOSFS", "AlphaInvesting", "IAMB", "MMMB"):
            cls = None if quick else _optional(opt)  # --quick: SAOLA, FCBF, GDM only
            if cls is not None:
                methods[opt] = lambda Xt, yt, cls=cls: _fit_selected(cls(), Xt, yt)
        for m, fn in methods.items():
            runs[m] = []
            for tr, te in splits:
                sel, t = _timed(lambda fn=fn, tr=tr: fn(X[tr], y[tr]))
                runs[m].append((holdout(X[tr], y[tr], X[te], y[te], sel), len(sel), t))
        ofs = None if quick else _optional("OFS")
        if ofs is not None:  # the paper's OFS protocol: k = 5, 10, ..., 100, best accuracy per classifier
            runs["OFS"] = []
            for tr, te in splits:
                best, t = _timed(
                    lambda tr=tr, te=te: best_of_k(ofs, X[tr], y[tr], X[te], y[te], range(5, 105, 5))
                )
                runs["OFS"].append((best, best["SVM"][2], t))
        runs["GDM"] = []
        for tr, te in splits:
            best, t = _timed(lambda tr=tr, te=te: gdm_best_prefix(X[tr], y[tr], X[te], y[te]))
            runs["GDM"].append((best, None, t))
        tables = [t for t, (_, rows) in SAOLA_PAPER.items() if name in rows and not t.startswith("XX")]
        for t in tables:
            metric, rows = SAOLA_PAPER[t]
            for m, pv in rows[name].items():
                p = float(pv)
                label = f"{metric}, {m}"
                if m not in runs:
                    why = (
                        "not in fsviz (a different algorithm family)"
                        if m in ("SPSF-LAR",)
                        else "not yet in fsviz"
                    )
                    if _optional(m) is not None:
                        why = "in fsviz; skipped by --quick"
                    saola_row(t, name, label, pv, "–", why)
                    continue
                r = runs[m]
                if "accuracy" in metric or "AUC" in metric:
                    clf = next((c for c, lab in CLASSIFIERS.items() if metric.startswith(lab)), None)
                    j = 1 if "AUC" in metric else 0
                    if clf is None:  # mean AUC of the three classifiers
                        v = np.array([np.mean([res[c][1] for c in CLASSIFIERS]) for res, *_ in r])
                    else:
                        v = np.array([res[clf][j] for res, *_ in r])
                    best = float(v.max())
                    ours = f"{best:.4f}" + (f" ({v.mean():.4f} ± {v.std():.4f})" if len(v) > 1 else "")
                    if m in ("GDM", "OFS"):
                        ks = [res[clf][2] for res, *_ in r] if clf else []
                        ours += f"; {int(np.median(ks))} features" if ks else ""
                    saola_row(t, name, label, pv, ours, saola_verdict(p, best, n_test))
                elif "number" in metric:
                    v = np.array([n for _, n, _ in r])
                    med = float(np.median(v))
                    ours = f"{med:.0f}" + (f" (range {v.min()}-{v.max()})" if len(v) > 1 else "")
                    saola_row(t, name, label, pv, ours, count_verdict(p, med))
                else:
                    v = np.array([tt for *_, tt in r])
                    saola_row(
                        t, name, label, pv, f"{np.median(v):.3f}", "timing only (paper: MATLAB, i7-2600)"
                    )
        print(f"<!-- SAOLA {name}: {how} -->", flush=True)
        if name == "arcene":
            continue
        # group-SAOLA: 100 random non-overlapping groups, 10 groupings, averaged (section 5.6)
        n_group_runs = 2 if quick else 10
        X, y, splits = saola_split_runs(name, n_group_runs, n_group_runs)
        fits = {
            "GroupSAOLA": lambda Xt, yt, groups: GroupSAOLA(alpha=0.01).fit(Xt, yt, groups=groups),
            # the paper's range is lambda1, lambda2 in [0.01, 0.1] (SLEP); we take the sparse end
            # of both, as alpha * l1_ratio = alpha * (1 - l1_ratio) = 0.1 of fsviz's alpha_max_
            "SparseGroupLasso": lambda Xt, yt, groups: SparseGroupLasso(
                groups=groups, alpha=0.2, l1_ratio=0.5, loss="logistic", n_features=None, threshold=_TINY
            ).fit(Xt, yt),
        }
        runs = {m: {"res": [], "nsel": [], "ngrp": [], "time": []} for m in fits}
        for i, (tr, te) in enumerate(splits):
            groups = random_feature_groups(X.shape[1], 100, random_state=i)
            for m, fit in fits.items():
                est, t = _timed(lambda fit=fit, tr=tr, groups=groups: fit(X[tr], y[tr], groups))
                sel = est.selected_ if m == "GroupSAOLA" else np.flatnonzero(est.scores_ > 0)
                r = runs[m]
                r["res"].append(holdout(X[tr], y[tr], X[te], y[te], sel))
                r["nsel"].append(len(sel))
                r["ngrp"].append(sum(bool(np.isin(g, sel).any()) for g in groups))
                r["time"].append(t)
        for t in ("XXII", "XXII KNN", "XXIII", "XXIII n"):
            metric, rows = SAOLA_PAPER[t]
            for m, pv in rows[name].items():
                label = f"{metric}, {m}"
                if m not in runs:
                    saola_row(t, name, label, pv, "–", "not yet in fsviz")
                    continue
                r = runs[m]
                if "accuracy" in metric:
                    clf = "J48" if "J48" in metric else "KNN"
                    v = np.array([res[clf][0] for res in r["res"]])
                    saola_row(
                        t,
                        name,
                        label,
                        pv,
                        f"{v.mean():.4f} ± {v.std():.4f}",
                        saola_verdict(float(pv), v.mean(), n_test),
                    )
                elif "/" in pv:
                    pf, pg = (float(s) for s in pv.split("/"))
                    ours = f"{np.mean(r['nsel']):.1f}/{np.mean(r['ngrp']):.1f}"
                    saola_row(t, name, label, pv, ours, count_verdict(pf, float(np.mean(r["nsel"]))))
                else:
                    saola_row(
                        t,
                        name,
                        label,
                        pv,
                        f"{np.mean(r['time']):.3f}",
                        "timing only (paper: MATLAB, i7-2600)",
                    )
        print(
            f"<!-- group-SAOLA {name}: {len(splits)} groupings of 100 random groups, averaged -->", flush=True
        )


def saola_row(table, ds, metric, paper, ours, verdict):
    print(
        f"| SAOLA | Table {table.split()[0]} | {ds} | {metric} | {paper} | {ours} | {verdict} |", flush=True
    )


# ----------------------------------------------------------------------------------------
# GDM TPAMI (Zhai, Ong & Tsang 2016) Table 2: success hits on the synthetic benchmark
# ----------------------------------------------------------------------------------------
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
# 12 features, like the paper's triples; SVM-RFE drops 10 % of the features per step
TPAMI_KW = {"SVMRFE": {"n_features_to_select": 12, "step": 0.1}, "L1SVM": {"n_features": 12}}
# fsviz class names of the methods fsviz may have (other helpers add them); the rest have no class
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


# TPAMI Table 4: one-class accuracy, LIBSVM OCSVM vs GDM-OC, on data fsviz does not hold
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


# ----------------------------------------------------------------------------------------
# GDM ICML'12 (Zhai et al.) Fig. 1: ORL faces, male vs female
# ----------------------------------------------------------------------------------------
# ORL (AT&T) has 4 women among its 40 subjects: s8, s10, s32 and s35 (checked by eye on
# scikit-feature's ORL.mat, whose labels 1-40 follow the s1-s40 order)
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


# ----------------------------------------------------------------------------------------
# driver
# ----------------------------------------------------------------------------------------
def lgd_sample_space(X, n_neighbors=5):
    """LGD with o(j) = the ``n_neighbors`` nearest *samples* of sample j in the full space (itself
    included) instead of the 1-D reading fsviz ships (eq. 29-30; the paper's O(dn log n) by
    sorting each feature says 1-D). A reading measured for the report only."""
    from sklearn.neighbors import NearestNeighbors

    nb = NearestNeighbors(n_neighbors=n_neighbors).fit(X).kneighbors(X, return_distance=False)
    B = X[nb]  # (n, k, d): every sample's neighbourhood
    local = ((B - B.mean(axis=1, keepdims=True)) ** 2).sum(axis=(0, 1))
    glob = ((X - X.mean(axis=0)) ** 2).sum(axis=0)
    return np.where(local > 0, glob / np.maximum(local, _TINY), 0.0)


def pair_tally(pairs):
    """(gains, ties, losses) of (base, grm, tol) accuracy pairs; a tie is |grm - base| <= tol."""
    gains = sum(g > b + tol for b, g, tol in pairs)
    ties = sum(abs(g - b) <= tol for b, g, tol in pairs)
    return gains, ties, len(pairs) - gains - ties


def grm_sensitivity(quick):
    """How the 36-pair outcome moves with the working-set size n_top, and LGD's sample-space
    reading: the protocol's free choices, measured so the headline is not read as robust."""
    reps = 1 if quick else 5
    names = ("GLIOMA", "ALLAML") if quick else ("GLIOMA", "ALLAML", "COIL20")
    n_tops = (200, 1000) if quick else (100, 200, 500, 1000, 2000)
    pairs = {nt: [] for nt in n_tops}
    losses = {nt: [] for nt in n_tops}
    lgd_rows = []
    for name in names:
        X, y = load(name)
        c = len(np.unique(y))
        for base, (_, make) in BASES.items():
            s = make(c).fit(X, y).scores_
            tb = np.argsort(-s, kind="stable")[:K]
            ab = {m: accuracy(X, y, tb, m, reps)[0] for m in MODELS}
            for nt in n_tops:
                tg = grm_top(X, s, n_top=min(nt, X.shape[1]))
                for m in MODELS:
                    ag, sg = accuracy(X, y, tg, m, reps)
                    tol = max(sg, 1.0)
                    pairs[nt].append((ab[m], ag, tol))
                    if ag < ab[m] - tol:
                        losses[nt].append(f"{PAPER_NAME[name]} {base} {MODELS[m][0]}")
        s = lgd_sample_space(X)
        tb, tg = np.argsort(-s, kind="stable")[:K], grm_top(X, s)
        red = (redundancy_rate(X, tb, kind="cosine2"), redundancy_rate(X, tg, kind="cosine2"))
        for m, (label, _) in MODELS.items():
            (ab, sb), (ag, sg) = accuracy(X, y, tb, m, reps), accuracy(X, y, tg, m, reps)
            lgd_rows.append((PAPER_NAME[name], label, red, ab, sb, ag, sg))
    print(f"\nGRM's working set n_top ({', '.join(names)}; selected once; {reps} repetition(s)):\n")
    print("| n_top | gains | ties | losses | at least the base's | losses |")
    print("|---|---|---|---|---|---|")
    for nt in n_tops:
        g, t, lo = pair_tally(pairs[nt])
        print(f"| {nt} | {g} | {t} | {lo} | {g + t} of {len(pairs[nt])} | {'; '.join(losses[nt])} |")
    print("\nLGD with sample-space neighbourhoods (o(j) = the 5 nearest samples; not fsviz's LGD):\n")
    print("| data | classifier | Red LGD → GLGD | LGD acc | GLGD acc |")
    print("|---|---|---|---|---|")
    for ds, label, (rb, rg), ab, sb, ag, sg in lgd_rows:
        print(f"| {ds} | {label} | {rb:.3f} → {rg:.3f} | {ab:.1f} ± {sb:.1f} | {ag:.1f} ± {sg:.1f} |")
    print()


SECTIONS = ("grm", "grm-sens", "saola", "gdm", "gdm-oc", "orl")
ROWS_START, ROWS_END = "<!-- rows:start -->", "<!-- rows:end -->"


class _Tee:
    """Copy of everything printed, for --write-docs."""

    def __init__(self, stream):
        self.stream, self.lines = stream, []

    def write(self, s):
        self.lines.append(s)
        return self.stream.write(s)

    def flush(self):
        self.stream.flush()


def verdict_kind(verdict):
    v = verdict.strip()
    if v.startswith("honest; "):
        v = v[len("honest; ") :]
    if v.startswith(("reproduced", "lower;")):  # "lower; cut ..." = GRM's redundancy is lower, as the paper's
        return "reproduced"
    if v.startswith("NOT"):
        return "not reproduced"
    if v.startswith("close"):
        return "close"
    if v.startswith("fsviz higher"):
        return "fsviz higher"
    if v.startswith("fsviz lower"):
        return "fsviz lower"
    if v.startswith("differs"):
        return "differs"
    if v.startswith(("not yet in fsviz", "not in fsviz")):
        return "not in fsviz"
    return "no verdict (paper value or timing)"


def verdict_counts(text):
    counts = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 7 or cells[0] in ("paper", "---"):
            continue
        paper = (
            cells[0]
            + (" (in-fold)" if "in-fold" in cells[3] else "")
            + (f" ({ALG2})" if ALG2 in cells[3] else "")
        )
        d = counts.setdefault(paper, {})
        k = verdict_kind(cells[6])
        d[k] = d.get(k, 0) + 1
    return counts


def grm_section(quick):
    reps = 1 if quick else 5
    names = ("GLIOMA", "ALLAML") if quick else ("GLIOMA", "ALLAML", "COIL20", "Prostate-GE", "leukemia")
    summary = {"red": [], "acc": [], "honest": [], "red_alg2": [], "acc_alg2": []}
    for name in names:
        grm_tables(name, reps, honest=not quick and name in ("GLIOMA", "ALLAML", "COIL20"), summary=summary)
        if not quick:
            mrmr_rows(name, reps)
    for name in ("GLIOMA", "ALLAML", "Prostate-GE") if not quick else ("GLIOMA",):
        correct_moves(name, 1 if quick else 5)
    main3 = {"GLIOMA", "AMLALL", "COIL20"}

    def tally(key):
        """(gains, ties, losses, pairs) of the accuracy pairs ``summary[key]`` on the three sets."""
        pairs = [a for a in summary[key] if a[0] in main3]
        return (*pair_tally([(b, g, tol) for *_, b, g, tol in pairs]), pairs)

    def red_cuts(key):
        return [(b, g) for ds, _, b, g in summary[key] if ds in main3]

    gains, ties, losses, acc = tally("acc")
    red = red_cuts("red")
    print(
        f"\nSummary (GLIOMA, AMLALL, COIL20; selected once): accuracy {gains} gains, {ties} ties "
        f"(|GRM - base| <= max(1 sd, 1 point)), {losses} losses of {len(acc)} pairs; "
        f"redundancy lower in {sum(g < b for b, g in red)} of {len(red)} pairs."
    )
    for ds, base, model, b, g, tol in acc:
        if g < b - tol:
            print(f"- loss: {ds} {base} {model}: {b:.1f} -> {g:.1f}")
    g2, t2, l2, acc2 = tally("acc_alg2")
    red2 = red_cuts("red_alg2")
    print(
        f"\nThe same with GRM's Algorithm 2 as printed (an inexact iterate, not fsviz's GRM): accuracy "
        f"{g2} gains, {t2} ties, {l2} losses of {len(acc2)} pairs; redundancy lower in "
        f"{sum(g < b for b, g in red2)} of {len(red2)} pairs, cut "
        + ", ".join(f"{b / max(g, 1e-12):.1f}x" for b, g in red2)
        + "."
    )
    if summary["honest"]:
        hg, ht, hl, h = tally("honest")
        print(
            f"\nIn-fold (honest, {reps} repetitions; supervised bases on GLIOMA, AMLALL, COIL20): "
            f"{hg} gains, {ht} ties, {hl} losses of {len(h)} pairs."
        )
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--quick", action="store_true", help="fewer data sets, repetitions, splits and seeds (< 3 min)"
    )
    ap.add_argument(
        "--only",
        default=",".join(SECTIONS),
        help=f"comma-separated sections to run, of {', '.join(SECTIONS)} (default: all)",
    )
    ap.add_argument(
        "--write-docs",
        metavar="PATH",
        help=f"replace the rows between {ROWS_START} and {ROWS_END} in PATH (docs/reproduce.md) with this run's output",
    )
    args = ap.parse_args()
    only = [s.strip() for s in args.only.split(",") if s.strip()]
    bad = sorted(set(only) - set(SECTIONS))
    if bad:
        ap.error(f"--only: unknown section(s) {bad}; choose from {list(SECTIONS)}")
    warnings.simplefilter("ignore")
    tee = _Tee(sys.stdout)
    sys.stdout = tee
    t_all = time.perf_counter()
    try:
        print(
            f"<!-- reproduce.py {'--quick ' if args.quick else ''}--only {','.join(only)}; "
            f"load average before: {os.getloadavg()[0]:.2f} -->"
        )
        print("| paper | table/figure | dataset | metric | paper value | fsviz value | verdict |")
        print("|---|---|---|---|---|---|---|")
        timings = {}
        for sec in SECTIONS:
            if sec not in only:
                continue
            t0 = time.perf_counter()
            if sec == "grm":
                grm_section(args.quick)
            elif sec == "grm-sens":
                grm_sensitivity(args.quick)
            elif sec == "saola":
                saola_tables(args.quick)
            elif sec == "gdm":
                tpami_table2(2 if args.quick else 5, quick=args.quick)
            elif sec == "gdm-oc":
                tpami_table4(quick=args.quick)
            elif sec == "orl":
                orl_fig1(200 if args.quick else 2000)
            timings[sec] = time.perf_counter() - t0
        print("\nVerdicts per paper (all rows of this run):\n")
        print("| paper | " + " | ".join(KINDS) + " |")
        print("|---|" + "---|" * len(KINDS))
        for paper, d in verdict_counts("".join(tee.lines)).items():
            print(f"| {paper} | " + " | ".join(str(d.get(k, 0)) for k in KINDS) + " |")
        print(
            f"\nRun time {time.perf_counter() - t_all:.0f} s ("
            + ", ".join(f"{k} {v:.0f} s" for k, v in timings.items())
            + f"); load average after: {os.getloadavg()[0]:.2f}."
        )
    finally:
        sys.stdout = tee.stream
    if args.write_docs:
        path = Path(args.write_docs)
        doc = path.read_text()
        a, b = doc.index(ROWS_START) + len(ROWS_START), doc.index(ROWS_END)
        path.write_text(doc[:a] + "\n\n" + "".join(tee.lines).strip() + "\n\n" + doc[b:])


KINDS = (
    "reproduced",
    "close",
    "fsviz higher",
    "fsviz lower",
    "differs",
    "not reproduced",
    "not in fsviz",
    "no verdict (paper value or timing)",
)


if __name__ == "__main__":
    main()
