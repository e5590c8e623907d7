"""Peer cases for the sparse-learning selectors: fsviz against scikit-feature, same data, same k.

``cases()`` is read by ``benchmarks/bench_catalogue.py`` (which times both sides in one process and
prints the ratios and top-k agreement). Each case's ``fsviz`` and ``peer`` take ``(X, y)`` and return
feature indices, best first. scikit-feature (``skfeature``) is imported only when a peer runs.

Where the peer solves a different problem, the case says so in ``note`` (see docs/scores.md,
"Peer bugs and differences"):

* RFS, LS-l2,1: scikit-feature codes the classes as +1/-1 (``construct_label_matrix_pan``), the
  papers as one-hot 0/1; both sides are given here in the peer's coding (``*-pm`` cases call the
  fsviz solver on the +1/-1 matrix) next to the public classes.
* LS-l2,1: the peer minimises ``1/2 ||XW - Y||^2 + z ||W||_2,1`` without intercept: fsviz's
  ``alpha = z / n`` with ``fit_intercept=False`` is the same problem.
* LL-l2,1: the peer fits c one-vs-rest binary logistic losses; fsviz the multinomial loss.
* UDFS: the peer's local selection matrices are wrong (``Si[idx_new[q], q]``), so its ``M`` is not
  the paper's; agreement is not expected.
* NDFS: both sides get fsviz's kNN heat-kernel graph and the same k-means start; the peer uses the
  unnormalised Laplacian ``D - S``, fsviz the paper's normalised one.
"""

from __future__ import annotations

import numpy as np

from fsviz.select import LLL21, LSL21, NDFS, RFS, UDFS
from fsviz.select import sparse_solvers as SL
from fsviz.select._graph import knn_affinity

K = 20
SEED = 0
RFS_GAMMA = 1.0  # the peer's default
RATIO = 0.1  # LL: alpha = 0.1 alpha_max on each side (fsviz's default), in each side's own scaling
LS_RATIO = 0.03  # LS, peer's problem: at 0.1 alpha_max only 6 features of Yale are non-zero (no intercept)
UDFS_ALPHA = 0.1  # the peer's default gamma (it uses it for both alpha and lambda)
N_CLUSTERS = 5


def _top(scores, k=K):
    return np.argsort(-np.asarray(scores), kind="stable")[:k]


def _pm(y):
    return 2.0 * SL.one_hot(y) - 1.0


def _peer_rank(W, k=K):
    from skfeature.utility.sparse_learning import feature_ranking

    return np.asarray(feature_ranking(W))[:k]


# ---------------------------------------------------------------------------- RFS
def _rfs_ours(X, y):
    return _top(RFS(gamma=RFS_GAMMA).fit(X, y).scores_)


def _rfs_ours_pm(X, y):
    W, _, _ = SL.rfs_solve(X, _pm(y), RFS_GAMMA)
    return _top(np.linalg.norm(W, axis=1))


def _rfs_peer(X, y):
    from skfeature.function.sparse_learning_based.RFS import rfs

    return np.asarray(rfs(np.array(X, dtype=np.float64), y, mode="index", gamma=RFS_GAMMA))[:K]


# ---------------------------------------------------------------------------- LS-l2,1
def _ls_ours(X, y):
    return _top(LSL21().fit(X, y).scores_)  # default alpha = 0.1 alpha_max, with intercept


def _ls_ours_pm(X, y):
    Y = _pm(y)
    W, *_ = SL.lsl21_solve(X, Y, LS_RATIO * SL.alpha_max(X, Y, centre=False), fit_intercept=False)
    return _top(np.linalg.norm(W, axis=1))


def _ls_peer(X, y):
    from skfeature.function.sparse_learning_based import ls_l21

    X = np.array(X, dtype=np.float64)
    z = LS_RATIO * X.shape[0] * SL.alpha_max(X, _pm(y), centre=False)  # its 1/2 ||.||^2 is n x ours
    W, _, _ = ls_l21.proximal_gradient_descent(X, y, z, mode="raw")
    return _peer_rank(W)


# ---------------------------------------------------------------------------- LL-l2,1
def _ll_ours(X, y):
    return _top(LLL21().fit(X, y).scores_)  # default alpha = 0.1 alpha_max


class _NumpyInnerScalar:
    """numpy, except ``inner`` returns a float: scikit-feature's ``ll_l21`` takes
    ``np.inner((C - SC), GC)`` of a (1, c) and a (c,) array, a 1-element array under NumPy 2,
    which then fails as ``value_gamma[iter_step] = gamma`` (ValueError: setting an array element
    with a sequence) on every input. This shim changes nothing else."""

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def inner(a, b):
        return float(np.sum(np.inner(a, b)))


def _ll_peer_alpha_max(X, y):
    """The peer's own alpha_max: its gradient at W = 0 with its starting intercept."""
    Y = _pm(y)
    n, c = Y.shape
    pos = (Y == 1).sum(0)
    C = np.log(pos / (n - pos))
    prob = 1.0 / (1.0 + np.exp(-Y * C))
    G = X.T @ (-Y * (1 - prob)) / (n * c)
    return float(np.linalg.norm(G, axis=1).max())


def _ll_peer(X, y):
    from skfeature.function.sparse_learning_based import ll_l21

    X = np.array(X, dtype=np.float64)
    saved, ll_l21.np = ll_l21.np, _NumpyInnerScalar()
    try:
        W, _, _ = ll_l21.proximal_gradient_descent(X, y, RATIO * _ll_peer_alpha_max(X, y), mode="raw")
    finally:
        ll_l21.np = saved
    return _peer_rank(W)


# ---------------------------------------------------------------------------- UDFS
def _udfs_ours(X, y):
    return _top(UDFS(n_clusters=N_CLUSTERS, alpha=UDFS_ALPHA, reg=UDFS_ALPHA).fit(X).scores_)


def _udfs_peer(X, y):
    from skfeature.function.sparse_learning_based.UDFS import udfs

    return np.asarray(
        udfs(np.array(X, dtype=np.float64), mode="index", gamma=UDFS_ALPHA, k=5, n_clusters=N_CLUSTERS)
    )[:K]


# ---------------------------------------------------------------------------- NDFS
def _ndfs_ours(X, y):
    return _top(NDFS(n_clusters=N_CLUSTERS, random_state=SEED).fit(X).scores_)


def _ndfs_peer(X, y):
    from skfeature.function.sparse_learning_based.NDFS import ndfs
    from sklearn.utils import check_random_state

    seed = int(check_random_state(SEED).randint(np.iinfo(np.int32).max))  # NDFS's own k-means seed
    X = np.array(X, dtype=np.float64)
    S = knn_affinity("NDFS", X, 5, "heat", None)
    # ndfs(..., F0=...) fails (it reads n_clusters only when F0 is absent: UnboundLocalError), so
    # its own unseeded k-means start (same settings and +0.02 as fsviz's) is made identical to
    # fsviz's by seeding the global RandomState it draws from with the same seed.
    state = np.random.get_state()  # noqa: NPY002 - the peer draws from the legacy global state
    np.random.seed(seed)  # noqa: NPY002
    try:
        return np.asarray(ndfs(X, W=S, n_clusters=N_CLUSTERS, gamma=1e8, mode="index"))[:K]
    finally:
        np.random.set_state(state)  # noqa: NPY002


def cases() -> list[dict]:
    """The benchmark cases (method, dataset, k, fsviz, peer, note)."""
    out = []
    for dataset in ("Yale", "lung_small"):
        out += [
            dict(method="RFS", fsviz=_rfs_ours, peer=_rfs_peer, note="targets 0/1 (fsviz) vs +1/-1 (peer)"),
            dict(method="RFS-pm", fsviz=_rfs_ours_pm, peer=_rfs_peer, note="both +1/-1 targets"),
            dict(method="LS-l2,1", fsviz=_ls_ours, peer=_ls_peer, note="targets 0/1 (fsviz) vs +1/-1 (peer)"),
            dict(method="LS-l2,1-pm", fsviz=_ls_ours_pm, peer=_ls_peer, note="same problem"),
            dict(
                method="LL-l2,1",
                fsviz=_ll_ours,
                peer=_ll_peer,
                note="multinomial (fsviz) vs one-vs-rest (peer)",
            ),
            dict(method="UDFS", fsviz=_udfs_ours, peer=_udfs_peer, note="peer's M is wrong (S_i indexing)"),
            dict(
                method="NDFS",
                fsviz=_ndfs_ours,
                peer=_ndfs_peer,
                note="same graph and start; L normalised vs not",
            ),
        ]
        for c in out[-7:]:
            c.update(dataset=dataset, k=K)
    return out
