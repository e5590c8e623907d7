# ruff: noqa: E501  (the paper tables below are kept one row per line, as printed)
"""``benchmarks/reproduce.py --only saola``: the SAOLA paper (Yu, Wu, Ding & Pei, ACM TKDD 2016),
Tables III-VIII, X-XVII and XXII-XXIII on leukemia, madelon and arcene, with the paper's splits
and classifiers (see reproduce.py's docstring)."""

from __future__ import annotations

import numpy as np
from reproduce_common import _TINY, _optional, _timed, load

from fsviz.select import FCBF, GDM, SAOLA, GroupSAOLA, SparseGroupLasso, random_feature_groups

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
