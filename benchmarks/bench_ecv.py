"""Does Embedded Cross Validation (GDM ``cv_folds=5``, TPAMI Alg. 4) earn its place?

Two readings of the paper's claim (section 5.4: ECV "not only outperforms GDM in terms of
prediction accuracy, it also reports a significantly more stable results"), on real data:

* support stability: GDM with and without ECV on 10 seeded 80 % subsamples; mean pairwise
  Jaccard of the support sets and Kuncheva's index of their first ``k`` support features
  (``k`` the smallest support size over the runs of both);
* accuracy and its stability along the path, as in the paper's Fig. 8: 5-fold stratified CV,
  GDM fitted inside each training fold, a linear SVM on the first ``10, 20, ...`` support
  features (one cutting-plane iteration each at ``n_per_iter=10``) scored on the test fold;
  reported: the mean and the best accuracy over the path, and its "shake", the mean absolute
  change between consecutive points of the fold-averaged curve.

Times are the fit of one GDM on all samples, same process, side by side.

Usage::

    nice -n 19 python benchmarks/bench_ecv.py [--sets ALLAML,colon] [--folds 5]
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from itertools import combinations
from pathlib import Path

import numpy as np
from scipy.io import loadmat
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from fsviz.evaluate import selection_stability
from fsviz.select import GDM

SETS = ("ALLAML", "Prostate-GE", "colon", "leukemia", "arcene", "GLIOMA", "lung_small")
STEP = 10  # GDM's n_per_iter: the support grows by this much per cutting-plane iteration


def _root() -> Path:
    default = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "skfeature"
    return Path(os.environ.get("FSVIZ_DATASETS", default))


def _gdm(folds):
    return GDM(n_per_iter=STEP, cv_folds=folds, random_state=0)


def stability(X, y, folds, n_sub: int = 10) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    out = []
    for _ in range(n_sub):
        rows = np.concatenate(
            [
                rng.choice(np.flatnonzero(y == c), int(round(0.8 * np.sum(y == c))), replace=False)
                for c in np.unique(y)
            ]
        )
        out.append(np.asarray(_gdm(folds).fit(X[rows], y[rows]).support_))
    return out


def jaccard(sets) -> float:
    vals = [len(np.intersect1d(a, b)) / max(len(np.union1d(a, b)), 1) for a, b in combinations(sets, 2)]
    return float(np.mean(vals))


def path_accuracy(X, y, folds, n_cv: int) -> np.ndarray:
    """Fold-averaged test accuracy of a linear SVM on the first 10, 20, ... support features."""
    curves = []
    for tr, te in StratifiedKFold(n_cv, shuffle=True, random_state=0).split(X, y):
        sup = np.asarray(_gdm(folds).fit(X[tr], y[tr]).support_)
        accs = []
        for k in range(STEP, 10 * STEP + 1, STEP):
            cols = sup[: min(k, sup.size)]
            model = make_pipeline(StandardScaler(), LinearSVC(max_iter=5000)).fit(X[tr][:, cols], y[tr])
            accs.append(float(np.mean(model.predict(X[te][:, cols]) == y[te])))
        curves.append(accs)
    return np.mean(curves, axis=0)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--folds", type=int, default=5, help="ECV's V (cv_folds)")
    ap.add_argument("--cv", type=int, default=5, help="outer CV folds for the accuracy path")
    args = ap.parse_args(argv)
    warnings.filterwarnings("ignore")
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print(
        "| data set | n x m | GDM Jaccard / Kuncheva | ECV Jaccard / Kuncheva | GDM acc mean / best / shake "
        "| ECV acc mean / best / shake | fit s GDM / ECV |"
    )
    print("|---|---|---|---|---|---|---|")
    for name in args.sets.split(","):
        path = _root() / f"{name}.mat"
        if not path.is_file():
            print(f"{path} not found (set FSVIZ_DATASETS); skipped")
            continue
        d = loadmat(path)
        X, y = np.asarray(d["X"], dtype=np.float64), np.asarray(d["Y"]).ravel()
        row = {}
        for label, folds in (("GDM", None), ("ECV", args.folds)):
            t = time.perf_counter()
            _gdm(folds).fit(X, y)
            sec = time.perf_counter() - t
            sets = stability(X, y, folds)
            curve = path_accuracy(X, y, folds, args.cv)
            row[label] = (sets, curve, sec)
        k = min(s.size for label in row for s in row[label][0])
        cells = []
        for label in ("GDM", "ECV"):
            sets = row[label][0]
            kun = selection_stability([s[:k] for s in sets], X.shape[1], "kuncheva") if k else float("nan")
            cells.append(f"{jaccard(sets):.3f} / {kun:.3f}")
        for label in ("GDM", "ECV"):
            c = row[label][1]
            cells.append(f"{c.mean():.3f} / {c.max():.3f} / {np.mean(np.abs(np.diff(c))):.3f}")
        cells.append(f"{row['GDM'][2]:.1f} / {row['ECV'][2]:.1f}")
        print(f"| {name} | {X.shape[0]} x {X.shape[1]} | " + " | ".join(cells) + " |", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
