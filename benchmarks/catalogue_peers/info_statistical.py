"""Information-theoretic and statistical selectors of the survey against scikit-feature.

MIFS, CIFE, JMI, CMIM, ICAP, DISR (survey section 2.2), CFS, t-score and Gini index
(section 2.4). Fisher, ReliefF and Laplacian are in ``benchmarks/bench_scores.py``; mRMR,
MIM and FCBF in ``benchmarks/bench_subset.py``.

The information-theoretic peers expect discrete data; the datasets used here (colon,
lung_small: gene expression already discretised to three values) are discrete, so both
sides see the same variables (fsviz's 10 equal-width bins keep three distinct values
apart). Known peer problems (docs/saola.md "Peer bugs", docs/benchmark.md):

* ``mifs()``/``cife()`` call ``LCSI.lcsi`` in its default ``mode="rank"`` and return ranks
  of the selected index values, not the indices; ``LCSI.lcsi(..., mode="index")`` with the
  method's (beta, gamma) is the like-for-like peer.
* ``jmi()`` passes ``function_name="JMI"``, which ``lcsi`` never reads: it runs LCSI with
  beta = 0.8, gamma = 0.5 instead of beta = gamma = 1/|S|. The wrapper is timed as it is
  and, as the like-for-like check, a textbook JMI loop built from scikit-feature's own
  ``midd``/``cmidd`` estimators.
* ``icap()`` subtracts the largest ``I(f;s) - I(f;s|Y)`` over the selected s (unclipped),
  not the survey's / Jakulin's sum of ``max(0, I(f;s) - I(f;s|Y))`` (eq. 50).
* ``disr()`` divides its sum of ``I(f,s;Y) / H(f,s,Y)`` by ``sum_s (1 + I(f;s))``, a
  normalisation eq. (51) does not have.
* ``gini_index()`` starts every feature's index at 0.5 and keeps the minimum; with more than
  two classes the impurity of any split exceeds 0.5, so every feature scores 0.5 and the
  order is arbitrary (on two classes it is the survey's eq. 83).
* ``t_score`` compares ``y == 0`` with ``y == 1``: on labels -1/+1 (colon, leukemia) both
  means are of an empty class and every score is NaN. The like-for-like row re-encodes the
  labels to 0/1. It also uses population standard deviations (ddof = 0), fsviz the sample ones
  (|Welch's t|); with unequal classes the order can differ.

Run with ``python benchmarks/bench_catalogue.py --modules info_statistical``.
"""

from __future__ import annotations

import numpy as np

from fsviz.select import CFS, CIFE, CMIM, DISR, ICAP, JMI, MIFS, GiniIndex, TScore

K = 10
CFS_FEATURES = 40
ICAP_NOTE = "peer: max over s of I(f;s)-I(f;s|Y), not the survey's sum of max(0, .) (eq. 50)"
DISR_NOTE = "peer divides sum I(f,s;Y)/H(f,s,Y) by sum (1 + I(f;s)): not eq. 51"
GINI_NOTE = "peer caps every index at 0.5 (2-class max): with > 2 classes all features tie"


def _subset(cls, k, **kw):
    def run(X, y):
        return cls(n_features=k, **kw).fit(X, y).selected_

    return run


def _ranked(cls, **kw):
    def run(X, y):
        return np.argsort(cls(**kw).fit(X, y).ranking_, kind="stable")

    return run


def _lcsi(k, beta, gamma):
    def run(X, y):
        from skfeature.function.information_theoretical_based import LCSI

        return LCSI.lcsi(X, y, beta=beta, gamma=gamma, n_selected_features=k, mode="index")

    return run


def _wrapper(module, func, k, **kw):
    def run(X, y):
        import importlib

        mod = importlib.import_module(f"skfeature.function.information_theoretical_based.{module}")
        return np.asarray(getattr(mod, func)(X, y, n_selected_features=k, mode="index", **kw), dtype=int)

    return run


def _jmi_textbook(k):
    """JMI (survey eq. 40: sum over selected s of I(f, s; Y)) greedily, from scikit-feature's
    ``midd``/``cmidd``: I(f;Y) - mean_s I(f;s) + mean_s I(f;s|Y) up to a constant."""

    def run(X, y):
        from skfeature.utility.entropy_estimators import cmidd, midd

        m = X.shape[1]
        rel = np.array([midd(X[:, j], y) for j in range(m)])
        red, cond = np.zeros(m), np.zeros(m)
        sel = [int(np.argmax(rel))]
        while len(sel) < k:
            last = X[:, sel[-1]]
            best, bj = -np.inf, -1
            for j in range(m):
                if j in sel:
                    continue
                red[j] += midd(last, X[:, j])
                cond[j] += cmidd(last, X[:, j], y)
                J = rel[j] - (red[j] - cond[j]) / len(sel)
                if J > best:
                    best, bj = J, j
            sel.append(bj)
        return np.asarray(sel)

    return run


def _statistical(func):
    def run(X, y):
        from skfeature.function.statistical_based import CFS as SK_CFS
        from skfeature.function.statistical_based import gini_index, t_score

        fn = {"cfs": SK_CFS.cfs, "t_score": t_score.t_score, "gini_index": gini_index.gini_index}[func]
        return np.asarray(fn(X, y, mode="index"), dtype=int)

    return run


def _first(m, f):
    """``f`` on the first ``m`` features (both sides alike), indices into the full X."""

    def run(X, y):
        return f(np.ascontiguousarray(X[:, :m]), y)

    return run


def _zero_one(peer):
    """The peer on labels re-encoded 0..c-1 (scikit-feature's t_score assumes 0 and 1)."""

    def run(X, y):
        return peer(X, np.unique(y, return_inverse=True)[1])

    return run


def cases() -> list[dict]:
    out = []
    for ds in ("lung_small", "colon"):
        info = [
            (
                "MIFS",
                _subset(MIFS, K, beta=1.0),
                _lcsi(K, 1.0, 0.0),
                "peer: LCSI(beta=1, gamma=0), mode=index",
            ),
            ("CIFE", _subset(CIFE, K), _lcsi(K, 1.0, 1.0), "peer: LCSI(beta=1, gamma=1), mode=index"),
            ("JMI", _subset(JMI, K), _jmi_textbook(K), "peer: textbook JMI from skfeature midd/cmidd"),
            (
                "JMI",
                _subset(JMI, K),
                _wrapper("JMI", "jmi", K),
                "peer: skfeature jmi() as it is: LCSI beta=.8, gamma=.5, returns ranks",
            ),
            ("CMIM", _subset(CMIM, K), _wrapper("CMIM", "cmim", K), "peer: skfeature cmim()"),
            ("ICAP", _subset(ICAP, K), _wrapper("ICAP", "icap", K), ICAP_NOTE),
            ("DISR", _subset(DISR, K), _wrapper("DISR", "disr", K), DISR_NOTE),
        ]
        out += [{"method": m, "dataset": ds, "k": K, "fsviz": f, "peer": p, "note": n} for m, f, p, n in info]
        out.append(
            {
                "method": "GiniIndex",
                "dataset": ds,
                "k": 20,
                "fsviz": _ranked(GiniIndex),
                "peer": _statistical("gini_index"),
                "note": GINI_NOTE,
            }
        )
    out.append(
        {
            "method": "CFS",
            "dataset": "lung_small",
            "k": K,
            "fsviz": _first(CFS_FEATURES, lambda X, y: CFS().fit(X, y).selected_),
            "peer": _first(CFS_FEATURES, _statistical("cfs")),
            "note": f"first {CFS_FEATURES} features (peer CFS is O(m k^3) in Python); both stop themselves",
        }
    )
    for ds in ("colon", "leukemia"):  # two classes, labelled -1 / +1
        out.append(
            {
                "method": "TScore",
                "dataset": ds,
                "k": 20,
                "fsviz": _ranked(TScore),
                "peer": _statistical("t_score"),
                "note": "peer as is: it hard-codes classes 0 and 1; with -1/+1 labels every t is NaN",
            }
        )
        out.append(
            {
                "method": "TScore",
                "dataset": ds,
                "k": 20,
                "fsviz": _ranked(TScore),
                "peer": _zero_one(_statistical("t_score")),
                "note": "peer given labels 0/1; it uses ddof=0 std (fsviz: Welch, ddof=1)",
            }
        )
    return out
