"""Peer cases for the similarity and structured selectors: TraceRatio, SPEC, (sparse) group and tree lasso.

``cases()`` lists dicts with ``method``, ``dataset`` (stem of a scikit-feature ``.mat``), ``k`` and two
callables ``fsviz(X, y)`` / ``peer(X, y)`` returning feature indices, best first. The peer is
scikit-feature (benchmark only), called so that it solves the same problem where it can:

* SPEC: scikit-feature ranks all three criteria in the wrong direction and its label graph uses
  ``n_l / n`` instead of ``1 / n_l`` (docs/scores.md); the peer callable passes the paper's graph
  as ``W`` and orders its raw scores the paper's way (lower phi_1/phi_2, higher phi_3 first).
* Trace ratio: scikit-feature only searches inside the k best single-feature ratios, so it can
  return a worse subset (lower trace ratio); the answers are compared as they are.
* group_fs / tree_fs minimise ``1/2 ||Xw - y||^2 + penalty`` without an intercept on contiguous
  index groups: both sides get the same centred data (two classes as +-1), the same groups, and
  the peer's absolute strengths ``z`` are fsviz's ``alpha * alpha_max * n``.

Run it on its own: ``python benchmarks/catalogue_peers/similarity_structured.py [--repeat 1]``.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from fsviz.select import SPEC, GroupLasso, SparseGroupLasso, TraceRatio, TreeLasso  # noqa: E402
from fsviz.select.feature_groups import Tree  # noqa: E402
from fsviz.select.similarity import _label_affinity, _rbf  # noqa: E402
from fsviz.select.structured import _alpha_max, _Problem  # noqa: E402

K = 20
BLOCK = 10  # contiguous groups of 10 features; tree: blocks of 10 inside blocks of 100


def _top(scores, k=K, higher=True):
    s = np.asarray(scores, dtype=np.float64)
    return np.argsort(-s if higher else s, kind="stable")[:k]


def _best(est):
    return np.argsort(est.ranking_, kind="stable")[:K]


# ------------------------------------------------------------------ similarity
def _trace_fsviz(X, y):
    return _best(TraceRatio(n_features=K).fit(X, y))


def _trace_peer(X, y):
    from skfeature.function.similarity_based.trace_ratio import trace_ratio

    return np.asarray(trace_ratio(X, y, K, mode="index"))[:K]


def _spec_fsviz(X, y):
    return _best(SPEC(style=0).fit(X, y))


def _spec_peer(X, y):
    from skfeature.function.similarity_based.SPEC import spec

    W = _label_affinity(y).toarray()
    return _top(spec(X, y, mode="raw", style=0, W=W), higher=False)


def _gamma(X):
    return 1.0 / (X.shape[1] * X.var())


def _spec_rbf_fsviz(X, y):
    return _best(SPEC(style=5).fit(X))


def _spec_rbf_peer(X, y):
    from skfeature.function.similarity_based.SPEC import spec

    return _top(spec(X, None, mode="raw", style=5, W=_rbf(X, _gamma(X))), higher=True)


# ------------------------------------------------------------------ structured
def _blocks(m, size):
    return [np.arange(s, min(s + size, m)) for s in range(0, m, size)]


def _tree_nodes(m):
    return _blocks(m, BLOCK) + [b for b in _blocks(m, 10 * BLOCK) if b.size > BLOCK]


def _pm1(y):
    return np.where(y == np.unique(y)[0], -1.0, 1.0)


def _abs_strength(X, y, nodes, weights, l1):
    """fsviz's alpha_max for the problem both sides solve (centred X, +-1 y)."""
    prob = _Problem(np.asarray(X, dtype=np.float64), _pm1(y).reshape(-1, 1), "squared")
    return _alpha_max(prob, Tree(nodes, weights), l1)


def _idx(nodes, weights):
    return np.array([[g[0] + 1 for g in nodes], [g[-1] + 1 for g in nodes], list(weights)], dtype=np.float64)


def _sgl_case(alpha, l1_ratio):
    def ours(X, y):
        groups = _blocks(X.shape[1], BLOCK)
        return _best(SparseGroupLasso(groups=groups, alpha=alpha, l1_ratio=l1_ratio).fit(X, y))

    def peer(X, y):
        from skfeature.function.structure.group_fs import group_fs

        groups = _blocks(X.shape[1], BLOCK)
        h = np.sqrt([g.size for g in groups])
        lam = alpha * _abs_strength(X, y, groups, h * (1 - l1_ratio), l1_ratio) * X.shape[0]
        Xc, yc = X - X.mean(axis=0), _pm1(y) - _pm1(y).mean()
        w, _, _ = group_fs(Xc, yc, lam * l1_ratio, lam * (1 - l1_ratio), _idx(groups, h))
        return _top(np.abs(w))

    return ours, peer


def _gl_case(alpha):
    def ours(X, y):
        return _best(GroupLasso(groups=_blocks(X.shape[1], BLOCK), alpha=alpha).fit(X, y))

    def peer(X, y):
        from skfeature.function.structure.group_fs import group_fs

        groups = _blocks(X.shape[1], BLOCK)
        h = np.sqrt([g.size for g in groups])
        lam = alpha * _abs_strength(X, y, groups, h, 0.0) * X.shape[0]
        Xc, yc = X - X.mean(axis=0), _pm1(y) - _pm1(y).mean()
        w, _, _ = group_fs(Xc, yc, 0.0, lam, _idx(groups, h))
        return _top(np.abs(w))

    return ours, peer


def _tree_case(alpha):
    def ours(X, y):
        return _best(TreeLasso(tree=_tree_nodes(X.shape[1]), alpha=alpha).fit(X, y))

    def peer(X, y):
        from skfeature.function.structure.tree_fs import tree_fs

        nodes = _tree_nodes(X.shape[1])
        h = np.sqrt([g.size for g in nodes])
        lam = alpha * _abs_strength(X, y, nodes, h, 0.0) * X.shape[0]
        Xc, yc = X - X.mean(axis=0), _pm1(y) - _pm1(y).mean()
        w, _, _ = tree_fs(Xc, yc, lam, _idx(nodes, h))
        return _top(np.abs(w))

    return ours, peer


def cases() -> list[dict]:
    out = []
    for ds in ("colon", "lymphoma", "warpPIE10P"):
        out.append(
            {"method": "trace-ratio", "dataset": ds, "k": K, "fsviz": _trace_fsviz, "peer": _trace_peer}
        )
    for ds in ("colon", "Yale", "warpPIE10P"):
        out.append({"method": "spec", "dataset": ds, "k": K, "fsviz": _spec_fsviz, "peer": _spec_peer})
    for ds in ("colon", "Yale"):
        out.append(
            {"method": "spec-rbf-k5", "dataset": ds, "k": K, "fsviz": _spec_rbf_fsviz, "peer": _spec_rbf_peer}
        )
    for ds in ("colon", "Prostate-GE"):
        f, p = _gl_case(0.3)
        out.append({"method": "group-lasso", "dataset": ds, "k": K, "fsviz": f, "peer": p})
        f, p = _sgl_case(0.1, 0.5)
        out.append({"method": "sparse-group-lasso", "dataset": ds, "k": K, "fsviz": f, "peer": p})
        f, p = _tree_case(0.3)
        out.append({"method": "tree-lasso", "dataset": ds, "k": K, "fsviz": f, "peer": p})
    return out


def _load(stem):
    from scipy.io import loadmat

    root = Path(
        os.environ.get(
            "FSVIZ_DATASETS", Path(__file__).resolve().parents[3] / "shared" / "datasets" / "skfeature"
        )
    )
    d = loadmat(root / f"{stem}.mat")
    X = d["X"]
    X = X.toarray() if hasattr(X, "toarray") else X
    return np.asarray(X, dtype=np.float64), np.asarray(d["Y"]).ravel()


def main(repeat: int = 1) -> None:
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'method':<20}{'dataset':<13}{'fsviz s':>9}{'peer s':>9}{'ratio':>8}{'top-k agree':>13}")
    cache: dict[str, tuple] = {}
    for c in cases():
        X, y = cache.setdefault(c["dataset"], _load(c["dataset"]))
        times = {}
        got = {}
        for side in ("fsviz", "peer"):
            best = np.inf
            for _ in range(repeat):
                t = time.perf_counter()
                got[side] = np.asarray(c[side](X, y))
                best = min(best, time.perf_counter() - t)
            times[side] = best
        agree = len(set(got["fsviz"].tolist()) & set(got["peer"].tolist())) / c["k"]
        print(
            f"{c['method']:<20}{c['dataset']:<13}{times['fsviz']:9.3f}{times['peer']:9.3f}"
            f"{times['peer'] / times['fsviz']:8.1f}{agree:13.2f}",
            flush=True,
        )
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main(int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 1)
