"""Streaming and SVM baselines against their peers.

* ``AlphaInvesting`` vs scikit-feature's ``alpha_investing`` (the only streaming method
  scikit-feature has): same parameters (w0 = dw = 0.5), y regressed on its label values as
  scikit-feature does. The whole selection, in arrival order, is compared.
* ``SVMRFE`` vs ``sklearn.feature_selection.RFE(LinearSVC(random_state=0))`` with the same
  ``n_features_to_select`` and ``step``: the ranking must be identical; the order returned
  is the kept features by their final ``w_j^2`` and then the elimination order.

No Python peer exists for OSFS / Fast-OSFS (MATLAB LOFS toolbox), Grafting or OFS
(MATLAB/C++ LIBOL); those are checked against textbook transcriptions in
``tests/test_select_streaming.py``. ``L1SVM`` *is* scikit-learn's ``LinearSVC(penalty="l1")``
(checked coefficient for coefficient in ``tests/test_select_svm.py``), so timing it
against itself would measure nothing.

Run with ``python benchmarks/bench_catalogue.py --modules streaming_svm``, or standalone:
``python benchmarks/catalogue_peers/streaming_svm.py [dataset ...]``.
"""

from __future__ import annotations

import numpy as np

from fsviz.select import SVMRFE, AlphaInvesting

K = 10
RFE_STEP = 0.05  # 5 % of the features per round, as fraction (scikit-learn's convention)


def _ai_fsviz(X, y):
    return AlphaInvesting(w0=0.5, dw=0.5).fit(X, y).selected_


def _ai_peer(X, y):
    from skfeature.function.streaming.alpha_investing import alpha_investing

    return np.asarray(alpha_investing(X, y.astype(np.float64), 0.5, 0.5), dtype=np.int64)


def _rfe_fsviz(X, y):
    est = SVMRFE(n_features_to_select=K, step=RFE_STEP, random_state=0).fit(X, y)
    return np.argsort(-est.scores_, kind="stable")


def _rfe_peer(X, y):
    from sklearn.feature_selection import RFE
    from sklearn.svm import LinearSVC

    rfe = RFE(LinearSVC(random_state=0), n_features_to_select=K, step=RFE_STEP).fit(X, y)
    kept = np.flatnonzero(rfe.support_)
    w2 = (np.atleast_2d(rfe.estimator_.coef_) ** 2).sum(axis=0)
    kept = kept[np.argsort(-w2, kind="stable")]
    rest = np.lexsort((np.arange(X.shape[1]), rfe.ranking_))
    return np.concatenate([kept, rest[rfe.ranking_[rest] > 1]])


AI_DATASETS = ("colon", "ALLAML", "leukemia", "lung_small", "Prostate-GE", "TOX-171")
RFE_DATASETS = ("colon", "ALLAML", "lung_small", "TOX-171")


def cases() -> list[dict]:
    out = [
        dict(
            method="alpha-investing",
            dataset=ds,
            k=K,
            fsviz=_ai_fsviz,
            peer=_ai_peer,
            note="whole selection compared; scikit-feature refits two regressions per feature",
        )
        for ds in AI_DATASETS
    ]
    out += [
        dict(method="SVM-RFE", dataset=ds, k=K, fsviz=_rfe_fsviz, peer=_rfe_peer, note="same LinearSVC fits")
        for ds in RFE_DATASETS
    ]
    return out


if __name__ == "__main__":  # standalone side-by-side run (bench_catalogue.py does the same for all modules)
    import os
    import sys
    import time
    from pathlib import Path

    from scipy.io import loadmat

    root = Path(__file__).resolve().parents[2]
    data = Path(os.environ.get("FSVIZ_DATASETS", root.parent / "shared" / "datasets" / "skfeature"))
    only = set(sys.argv[1:])
    print(f"load average {os.getloadavg()[0]:.2f}")
    for c in cases():
        if only and c["dataset"] not in only:
            continue
        d = loadmat(data / f"{c['dataset']}.mat")
        X = d["X"].toarray() if hasattr(d["X"], "toarray") else d["X"]
        X, y = np.asarray(X, dtype=np.float64), np.asarray(d["Y"]).ravel()
        c["fsviz"](X, y)  # warm-up (numba cache, imports)
        t0 = time.perf_counter()
        a = c["fsviz"](X, y)
        t1 = time.perf_counter()
        b = c["peer"](X, y)
        t2 = time.perf_counter()
        same = np.array_equal(a[: max(len(b), 1)] if c["method"] == "SVM-RFE" else a, b)
        n_sel = len(a) if c["method"] != "SVM-RFE" else K
        ratio = (t2 - t1) / max(t1 - t0, 1e-9)
        print(
            f"{c['method']:16s} {c['dataset']:12s} {X.shape!s:14s} fsviz {t1 - t0:8.3f}s  "
            f"peer {t2 - t1:8.3f}s  ratio {ratio:7.1f}x  same={same} n_sel={n_sel}"
        )
