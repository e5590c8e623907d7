"""MCFS: Multi-Cluster Feature Selection (Cai, Zhang & He, 2010) -- spectral embedding + L1 regression."""

from __future__ import annotations

import numbers

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.sparse.csgraph import connected_components
from sklearn.utils._param_validation import Interval

from fsviz._params import check_data_bound, validate_declared
from fsviz.select._base import SELECTION_CONSTRAINTS, ScoreSelector, name_canon, take_columns
from fsviz.select._graph import GRAPH_KERNEL, NEIGHBOURS, NEIGHBOURS_UI, knn_affinity
from fsviz.select._score_common import check_X

_DENSE_EIG_MAX = 3000  # up to this many samples the embedding uses a dense eigensolver


def spectral_embedding(W: sp.spmatrix, n_components: int) -> np.ndarray:
    """The ``n_components`` non-trivial generalized eigenvectors of ``L e = lambda D e`` (smallest lambda).

    Solved as the largest eigenvectors ``u`` of ``D^-1/2 W D^-1/2`` with ``e = D^-1/2 u``;
    the first (trivial, constant) one is dropped (survey eq. 64).

    A graph with ``c > 1`` connected components has eigenvalue 0 ``c`` times, and any
    D-orthonormal basis of that eigenspace is as valid as another: the one a solver returns
    depends on rounding (with this machine's BLAS, on the thread count), and so would the
    features MCFS picks. Here that eigenspace gets a canonical basis: the components'
    indicator vectors, D-orthonormalised after the constant one (Gram-Schmidt in the order of
    the components' first samples), the constant dropped as in the connected case.
    """
    n = W.shape[0]
    deg = np.asarray(W.sum(axis=1)).ravel()
    dinv = 1.0 / np.sqrt(deg)
    S = sp.diags(dinv) @ W @ sp.diags(dinv)
    k = n_components + 1
    if n <= _DENSE_EIG_MAX:
        S = S.toarray()
        vals, U = sla.eigh((S + S.T) / 2.0, subset_by_index=[n - k, n - 1])
    else:
        vals, U = spla.eigsh(S, k=k, which="LA", v0=np.full(n, 1.0 / np.sqrt(n)))
    U = U[:, np.argsort(-vals, kind="stable")]
    Q = component_basis(W, deg, k)
    if Q is not None:  # a disconnected graph: the canonical basis of the zero eigenspace
        U = np.hstack([Q, U[:, Q.shape[1] :]]) if Q.shape[1] < k else Q
    return (dinv[:, None] * U)[:, 1:k]


def component_basis(W, deg: np.ndarray, k: int) -> np.ndarray | None:
    """Canonical orthonormal basis of the zero eigenspace of ``D^-1/2 L D^-1/2`` (None if connected).

    A graph with ``c > 1`` connected components has eigenvalue 0 ``c`` times, and an
    eigensolver's basis of that space depends on rounding (with this machine's BLAS, on the
    thread count). The canonical one: ``sqrt(D)`` times ``[constant, indicators of the
    components 0..c-2]`` (components numbered by their first sample), orthonormalised in that
    order; the first column is the trivial ``sqrt(D) 1``. At most ``k`` columns.
    """
    n_comp, labels = connected_components(W, directed=False)
    if n_comp <= 1:
        return None
    c = min(n_comp, k)
    B = np.zeros((W.shape[0], c))
    B[:, 0] = 1.0
    B[:, 1:] = labels[:, None] == np.arange(c - 1)[None, :]
    return np.linalg.qr(np.sqrt(deg)[:, None] * B)[0]


def _l1_coefs(X, e: np.ndarray, n_nonzero: int) -> np.ndarray:
    """L1-regularised regression of ``e`` on ``X`` stopped at ``n_nonzero`` active features.

    Least angle regression (Efron et al. 2004; Cai et al.'s cardinality form of MCFS, the
    same path as scikit-learn's ``Lars(n_nonzero_coefs=n_nonzero, fit_intercept=True)``):
    one code path for dense and sparse ``X``. It touches ``X`` only through products
    ``Xc'v`` (one per step, ``Xc`` centred implicitly, sparse never densified) and the active
    columns, so its cost is ``O(n_nonzero * nnz(X))``, with no ``m x m`` Gram matrix.
    """
    n, m = X.shape
    q = min(int(n_nonzero), m, n - 1) if n > 1 else 0
    coef = np.zeros(m)
    if q < 1:
        return coef
    mu = np.asarray(X.mean(axis=0)).ravel()
    scale = np.sqrt(
        np.asarray(X.multiply(X).sum(axis=0)).ravel() if sp.issparse(X) else np.einsum("ij,ij->j", X, X)
    )
    ss = np.maximum(scale**2 - n * mu * mu, 0.0)

    def xt(v):  # Xc' v
        return np.asarray(X.T @ v).ravel() - mu * v.sum()

    def cols(idx):  # the centred active columns, dense (n x |A|)
        B = X[:, idx]
        B = B.toarray() if sp.issparse(B) else np.asarray(B)
        return B - mu[idx]

    r = e - e.mean()
    c = xt(r)
    tiny = np.finfo(float).eps * max(float(np.abs(c).max()), 1e-300) * 100
    usable = ss > 0  # a constant column never enters
    active: list[int] = []
    free = usable.copy()
    beta = np.zeros(0)
    for _ in range(q):
        cc = np.where(free, np.abs(c), -1.0)
        j = int(np.argmax(cc))
        if cc[j] <= tiny:
            break
        active.append(j)
        free[j] = False
        A = np.asarray(active)
        Xa = cols(A)
        C = float(np.abs(c[A]).max())
        sgn = np.sign(c[A])
        G = Xa.T @ Xa
        try:
            w = sla.solve(G, sgn, assume_a="pos")
        except (np.linalg.LinAlgError, sla.LinAlgError):
            active.pop()
            break
        AA = 1.0 / np.sqrt(max(float(sgn @ w), 1e-300))
        w *= AA
        u = Xa @ w
        a = xt(u)
        gamma = C / AA
        if free.any():  # step to where the next feature joins (sklearn's path; full step if none can)
            with np.errstate(divide="ignore", invalid="ignore"):
                g1 = (C - c) / (AA - a)
                g2 = (C + c) / (AA + a)
            g = np.concatenate([g1[free], g2[free]])
            g = g[np.isfinite(g) & (g > tiny / max(AA, 1e-300))]
            if g.size:
                gamma = min(gamma, float(g.min()))
        beta = np.concatenate([beta, [0.0]]) + gamma * w
        c = c - gamma * a
    if active:
        coef[np.asarray(active)] = beta
    return coef


def mcfs_score(
    X,
    n_clusters: int = 5,
    n_neighbors: int = 5,
    n_nonzero: int = 20,
    kernel: str = "heat",
    t: float | None = None,
) -> np.ndarray:
    """MCFS score ``max_i |W(j, i)|`` over the ``n_clusters`` sparse regressions (survey eq. 63-66).

    1. kNN affinity graph on the samples (heat-kernel or 0/1 weights, as for the
       Laplacian score);
    2. the ``n_clusters`` smallest non-trivial generalized eigenvectors of ``L e = lambda D e``;
    3. each eigenvector regressed on ``X`` with an L1 penalty stopped at ``n_nonzero``
       active features; a feature scores its largest absolute coefficient.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    n_clusters : int, default=5
        Number of eigenvectors ``K`` (the number of clusters if known).
    n_neighbors : int, default=5
    n_nonzero : int, default=20
        Cardinality of each L1 regression (Cai et al. use the number of features to select).
    kernel : {"heat", "binary"}, default="heat"
    t : float or None, default=None
        Heat-kernel width; None: mean squared kNN distance.

    Returns
    -------
    scores : ndarray of shape (n_features,)
        Non-negative; at most ``n_clusters * n_nonzero`` features are non-zero.

    References
    ----------
    Cai, Zhang & He (2010), "Unsupervised Feature Selection for Multi-Cluster Data", KDD;
    Li et al. (2017), section 2.3.4, eq. (63)-(66).
    """
    validate_declared("mcfs_score", MCFS, n_nonzero=n_nonzero, kernel=kernel, t=t)
    X = check_X("mcfs_score", X)
    return _mcfs(X, n_clusters, n_neighbors, n_nonzero, kernel, t)


def _mcfs(X, n_clusters, n_neighbors, n_nonzero, kernel, t) -> np.ndarray:
    n, m = X.shape
    declared = MCFS._parameter_constraints["n_clusters"]
    K = check_data_bound(
        "mcfs_score", "n_clusters", n_clusters, declared, high=n - 2, why=f" (X has {n} samples)"
    )
    q = min(int(20 if n_nonzero is None else n_nonzero), m)
    W = knn_affinity("mcfs_score", X, n_neighbors, kernel, t)
    E = spectral_embedding(W, K)
    if sp.issparse(X):
        X = X.tocsc()
    scores = np.zeros(m)
    for i in range(E.shape[1]):
        np.maximum(scores, np.abs(_l1_coefs(X, E[:, i], q)), out=scores)
    return scores


class MCFS(ScoreSelector):
    """Multi-Cluster Feature Selection (unsupervised): spectral embedding + L1 regression.

    Parameters
    ----------
    n_clusters : int, default=5
        Number of eigenvectors of the embedding.
    n_neighbors : int, default=5
        Neighbours of the kNN sample graph.
    n_nonzero : int or None, default=None
        Active features per L1 regression; None uses ``n_features`` (20 when
        ``n_features`` is None), as Cai et al. do.
    kernel : {"heat", "binary"}, default="heat"
    t : float or None, default=None
    n_features : int or None, default=20
    threshold : float or None, default=None

    Attributes
    ----------
    scores_ : ndarray of shape (n_features_in_,)
        :func:`mcfs_score` of every feature; features never activated score 0 and
        rank after all others in feature order.
    ranking_ : ndarray of shape (n_features_in_,)
    n_features_in_ : int
    feature_names_in_ : ndarray

    References
    ----------
    Cai, Zhang & He (2010), KDD; Li et al. (2017), eq. (63)-(66).
    """

    _parameter_constraints: dict = {
        **SELECTION_CONSTRAINTS,
        "n_clusters": [Interval(numbers.Integral, 1, None, closed="left")],  # at most n_samples - 2
        "n_neighbors": NEIGHBOURS,
        "n_nonzero": [Interval(numbers.Integral, 1, None, closed="left"), None],
        **GRAPH_KERNEL,
    }
    _parameter_ui: dict = {"n_neighbors": NEIGHBOURS_UI}

    def __init__(
        self,
        *,
        n_clusters=5,
        n_neighbors=5,
        n_nonzero=None,
        kernel="heat",
        t=None,
        n_features=20,
        threshold=None,
    ):
        self.n_clusters = n_clusters
        self.n_neighbors = n_neighbors
        self.n_nonzero = n_nonzero
        self.kernel = kernel
        self.t = t
        self.n_features = n_features
        self.threshold = threshold

    def _compute_scores(self, X, y):
        q = self.n_nonzero
        if q is None:
            q = self.n_features if isinstance(self.n_features, numbers.Integral) else 20
        # the L1 path is order-dependent among equally correlated (duplicated) columns: named
        # columns are regressed in name order, so a tie goes to the first name, not position
        canon = name_canon(getattr(self, "feature_names_in_", None))
        if canon is None:
            return _mcfs(X, self.n_clusters, self.n_neighbors, q, self.kernel, self.t)
        scores = _mcfs(take_columns(X, canon), self.n_clusters, self.n_neighbors, q, self.kernel, self.t)
        out = np.empty_like(scores)
        out[canon] = scores
        return out
