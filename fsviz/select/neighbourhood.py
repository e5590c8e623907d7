"""Scores from nearest neighbours: ReliefF (nearest hits and misses; RReliefF for a continuous
target), LGD (local-global discrepancy of each feature's sorted values) and the Laplacian score
(the kNN graph of the samples).

Each uses memory quadratic in the number of samples at most, never in the number of features;
one convention with :mod:`.scores`: higher is better, finite, constant features 0.

References
----------
Li et al. (2017), "Feature Selection: A Data Perspective", ACM CSUR -- sections 2.1.1
(Laplacian), 2.1.5 (ReliefF). Wang, Nie & Huang (2015), "Feature Selection via Global
Redundancy Minimization", IEEE TKDE -- eq. (27)-(30) (LGD, Laplacian score).
"""

from __future__ import annotations

from dataclasses import replace
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.metrics.pairwise import manhattan_distances
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval

from fsviz._params import check_data_bound, validate_declared
from fsviz._targets import target_kind
from fsviz.select import _score_kernels as K
from fsviz.select._base import EXTREME, SELECTION_CONSTRAINTS, ScoreSelector, class_codes, readonly
from fsviz.select._graph import GRAPH_KERNEL, NEIGHBOURS, NEIGHBOURS_UI, knn_affinity
from fsviz.select._score_common import check_X, check_Xy, continuous_target, ratio, zero_constant

__all__ = ["LGD", "LaplacianScore", "ReliefF", "laplacian_score", "lgd_score", "relieff_score"]


def relieff_score(
    X, y, n_neighbors: int = 10, n_iterations: int | None = None, random_state=None
) -> np.ndarray:
    """ReliefF weights ``W`` in [-1, 1] (higher = better), as Robnik-Sikonja & Kononenko define them.

    ``W_f = 1/m sum_i [ -sum_{h in H_i} diff_f(i, h) / k_h
    + sum_{C != y_i} p(C) / (1 - p(y_i)) sum_{j in M_i(C)} diff_f(i, j) / k_C ]``
    with ``diff_f(i, j) = |x_if - x_jf| / (max_f - min_f)``, ``H_i`` the ``n_neighbors``
    nearest hits and ``M_i(C)`` the nearest misses of class ``C`` under the Manhattan
    distance of the range-scaled features (Robnik-Sikonja & Kononenko 2003, Fig. 3).
    ``W`` lies in [-1, 1] and is returned as it is: 0 is the value of an irrelevant
    (or constant) feature, a negative ``W`` means neighbours of the same class differ
    more than neighbours of other classes. This is the form :class:`GRM` needs (its
    ratio objective is invariant to a rescaling of the scores, not to a shift): an
    affine map such as ``(1 + W) / 2`` leaves the top 1000 nearly flat (min/max ~0.8)
    and makes GRM pick features ReliefF ranks 700-980. Neighbour ties are broken by
    sample index; ``k_h``/``k_C`` are the numbers of neighbours actually available
    (fewer in small classes).

    A continuous ``y`` (``type_of_target(y) == "continuous"``) gives RReliefF
    (Robnik-Sikonja & Kononenko 2003, section 2.3, Fig. 6): with the ``k`` nearest
    neighbours ``I_j`` of each sampled instance ``R_i`` (same distance, same ties),
    each of constant influence ``d = 1/k``, and ``diff_tau`` the range-scaled
    difference of the targets, ``W_A = N_dCdA / N_dC - (N_dA - N_dCdA) / (m - N_dC)``
    where ``N_dC = sum d diff_tau(R_i, I_j)``, ``N_dA = sum d diff_A(R_i, I_j)`` and
    ``N_dCdA = sum d diff_tau diff_A`` -- the probability that the target differs
    given that A differs, minus that given that A does not. Also in [-1, 1], 0 for
    irrelevant or constant features.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    n_neighbors : int, default=10
    n_iterations : int or None, default=None
        Number of sampled instances ``m``; None uses every instance (deterministic).
    random_state : int, RandomState or None
        Used only when ``n_iterations < n_samples``.

    Returns
    -------
    scores : ndarray of shape (n_features,)
        ``W``, in [-1, 1]; 0 for constant features.

    References
    ----------
    Robnik-Sikonja & Kononenko (2003), Machine Learning 53; Li et al. (2017), eq. (24)-(25).
    """
    validate_declared(
        "relieff_score",
        ReliefF,
        n_neighbors=n_neighbors,
        n_iterations=n_iterations,
        random_state=random_state,
    )
    X, y = check_Xy("relieff_score", X, y)
    return _relieff(X, y, n_neighbors, n_iterations, random_state)


def _relieff(X, y, n_neighbors, n_iterations, random_state) -> np.ndarray:
    continuous = target_kind(y) == "continuous"
    if continuous:  # RReliefF: one "class", the k nearest neighbours of every instance
        yv = continuous_target("relieff_score", y)
        codes, counts = np.zeros(yv.size, dtype=np.int64), np.array([yv.size], dtype=np.int64)
    else:
        codes, counts = class_codes("relieff_score", y)
    n, m = X.shape
    k = int(n_neighbors)  # declared (ReliefF._parameter_constraints), checked by the caller
    if n_iterations is None or n_iterations >= n:
        rows = np.arange(n, dtype=np.int64)
    else:
        t = int(n_iterations)
        rows = np.sort(check_random_state(random_state).choice(n, t, replace=False)).astype(np.int64)
    prior = counts / n
    if sp.issparse(X):
        Xr = X.tocsr()
        # the range as the dense path sees it (scipy's min/max count implicit zeros)
        lo = np.asarray(Xr.min(axis=0).toarray()).ravel()
        hi = np.asarray(Xr.max(axis=0).toarray()).ravel()
        rng_ = hi - lo
        scale = np.where(rng_ > 0, 1.0 / np.where(rng_ > 0, rng_, 1.0), 0.0)
        Xs = (Xr @ sp.diags(scale)).tocsr()
        Xs.sort_indices()
        # scikit-learn's sparse Manhattan kernel takes 32-bit indices only
        Xs = sp.csr_matrix((Xs.data, Xs.indices.astype(np.int32), Xs.indptr.astype(np.int32)), shape=Xs.shape)
        pairs = []
        for b in range(0, rows.size, max(1, (1 << 24) // n)):
            rb = rows[b : b + max(1, (1 << 24) // n)]
            D = _snap(manhattan_distances(Xs[rb], Xs))
            pairs.append(K.relieff_neighbours(D, rb, codes, counts.size, k, prior))
        ind, ptr = Xs.indices.astype(np.int64), Xs.indptr.astype(np.int64)

        def acc(pi, pj, pw):
            return K.relieff_accumulate_csr(Xs.data, ind, ptr, m, pi, pj, pw)
    else:
        lo, hi = X.min(axis=0), X.max(axis=0)
        rng_ = hi - lo
        scale = np.where(rng_ > 0, 1.0 / np.where(rng_ > 0, rng_, 1.0), 0.0)
        Xs = np.multiply(X, scale, order="C")
        if n <= 4000:
            D = (K.manhattan_full_par if n * n * m / 2 > K.PARALLEL_WORK else K.manhattan_full)(Xs)
            pairs = [K.relieff_neighbours(_snap(D[rows]), rows, codes, counts.size, k, prior)]
        else:
            pairs = []
            step = max(1, (1 << 24) // n)
            for b in range(0, rows.size, step):
                rb = rows[b : b + step]
                pairs.append(
                    K.relieff_neighbours(_snap(K.manhattan_rows(Xs, rb)), rb, codes, counts.size, k, prior)
                )

        def acc(pi, pj, pw):
            return K.relieff_accumulate_dense(Xs, pi, pj, pw)

    if continuous:
        return _rrelieff_weights(yv, pairs, acc, rows.size, m)
    W = sum(acc(*p) for p in pairs)
    W = np.asarray(W) / rows.size
    return np.clip(W, -1.0, 1.0)


def _rrelieff_weights(y: np.ndarray, pairs, acc, n_rows: int, m: int) -> np.ndarray:
    """RReliefF's weights from the neighbour pairs (Robnik-Sikonja & Kononenko 2003, Fig. 6).

    With ``d(i, j) = 1 / k`` (constant influence of the ``k`` nearest neighbours) and
    ``diff_tau`` the range-scaled target difference, ``N_dC = sum d diff_tau``,
    ``N_dA = sum d diff_A``, ``N_dCdA = sum d diff_tau diff_A`` and
    ``W_A = N_dCdA / N_dC - (N_dA - N_dCdA) / (m - N_dC)``.
    """
    ys = (y - y.min()) / np.ptp(y)
    n_dc, n_da, n_dcda = 0.0, np.zeros(m), np.zeros(m)
    for pi, pj, pw in pairs:
        d = -pw  # relieff_neighbours gives the k nearest "hits" weight -1/k
        dc = d * np.abs(ys[pi] - ys[pj])
        n_dc += float(dc.sum())
        n_da += acc(pi, pj, d)
        n_dcda += acc(pi, pj, dc)
    far = max(n_rows - n_dc, 1e-300)
    W = n_dcda / max(n_dc, 1e-300) - (n_da - n_dcda) / far
    return np.clip(W, -1.0, 1.0)


def _snap(D: np.ndarray) -> np.ndarray:
    """Distances rounded to 1e-9: sparse (scikit-learn) and dense (numba) kernels sum in other
    orders, and the last-bit differences would break distance ties differently; rounded,
    equal distances tie exactly and the stable sort breaks them by sample index in both."""
    return np.ascontiguousarray(np.round(D, 9))


def lgd_score(X, n_neighbors: int = 5) -> np.ndarray:
    """Local and Global Discriminative score: global variance over local variance (eq. 29-30).

    For feature ``k``: ``sum_i (f_k(i) - mean_k)^2 / sum_j sum_{i in o(j)} (f_k(i) - mean_kj)^2``
    where ``o(j)`` is the set of the ``n_neighbors`` values of feature ``k`` nearest to
    ``f_k(j)``, sample ``j`` itself included (so ``|o(j)| = n_neighbors``; the paper
    calls ``n_neighbors`` "the number of data points in the set"), found on the sorted
    values -- no sample graph, O(n log n) per feature.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    n_neighbors : int, default=5
        Neighbourhood size, in [2, n_samples]; the paper recommends 5 to 8.

    Returns
    -------
    scores : ndarray of shape (n_features,)
        Positive for non-constant features, 0 for constant ones.

    References
    ----------
    Wang, Nie & Huang (2015), IEEE TKDE 27(10), eq. (29)-(30).
    """
    return _lgd(check_X("lgd_score", X), n_neighbors)


def _lgd(X, n_neighbors) -> np.ndarray:
    n = X.shape[0]
    declared = LGD._parameter_constraints["n_neighbors"]
    k = check_data_bound(
        "lgd_score", "n_neighbors", n_neighbors, declared, high=n, why=f" (X has {n} samples)"
    )
    if sp.issparse(X):
        Xc = X.tocsc()
        Xc.sort_indices()
        g, loc = K.lgd_csc(readonly(Xc.data), Xc.indices.astype(np.int64), Xc.indptr.astype(np.int64), n, k)
    else:
        lgd = K.lgd_dense_par if X.size * (np.log2(max(n, 2)) + k) > K.PARALLEL_WORK else K.lgd_dense
        g, loc = lgd(np.ascontiguousarray(X.T), k)
    return zero_constant(ratio(g, loc), X)


def laplacian_score(X, n_neighbors: int = 5, kernel: str = "heat", t: float | None = None) -> np.ndarray:
    """Laplacian score as a higher-is-better evidence score: ``1 / LS - 1``.

    He et al.'s Laplacian score ``LS = f~'L f~ / f~'D f~`` (survey eq. 2, GRM paper eq. 27)
    is lower-is-better, and ``LS ~ 1`` for a feature independent of the sample graph
    (its graph neighbours are no more alike than random pairs of samples). fsviz returns ``1 / LS - 1``:
    the ratio of the graph-weighted global variance to the local (graph) variation --
    the same shape as LGD's eq. (29) -- minus its value for a structureless feature.
    Ranking by it is ranking by LS ascending; it is 0 for a structureless feature,
    negative for a feature rougher on the graph than random, positive for one smooth
    on the graph. This is the form :class:`GRM` needs: GRM's ratio objective is
    invariant to a rescaling of the scores but not to a shift, and the shifted
    ``1 / LS`` (>= 0.5) would count the structureless baseline as evidence.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    n_neighbors : int, default=5
        ``p`` of the kNN graph on the samples: i and j are joined when either is
        among the other's ``p`` nearest neighbours (Euclidean, self excluded).
    kernel : {"heat", "binary"}, default="heat"
        Edge weights ``exp(-||x_i - x_j||^2 / t)`` or 1.
    t : float or None, default=None
        Heat-kernel width; None uses the mean squared distance over the kNN edges.

    Returns
    -------
    scores : ndarray of shape (n_features,)
        ``1 / LS - 1`` in [-0.5, 1e12]; 0 for constant features.

    References
    ----------
    He, Cai & Niyogi (2005), "Laplacian Score for Feature Selection", NIPS;
    Li et al. (2017), eq. (2)-(3); Wang et al. (2015), eq. (27)-(28).
    """
    validate_declared("laplacian_score", LaplacianScore, kernel=kernel, t=t)
    return _laplacian(check_X("laplacian_score", X), n_neighbors, kernel, t)


def _columns_by_powers_of_two(X):
    """``X`` with each column whose largest ``|value|`` is extreme (outside [1e-100, 1e100])
    multiplied by a power of two that brings it into [0.5, 1); else ``X`` itself.

    :func:`scale_extreme` scales the whole matrix by its largest value, which leaves a column
    far smaller (or larger) than the rest extreme: its squares underflow to 0 (or overflow).
    A ratio of two quadratic forms in one column, like the Laplacian score, does not change
    when that column is scaled, and a power of two changes no mantissa. Dense or sparse; the
    input is never modified.
    """
    if X.shape[0] == 0 or X.shape[1] == 0:
        return X
    hi = np.asarray(X.max(axis=0).todense() if sp.issparse(X) else X.max(axis=0)).ravel()
    lo = np.asarray(X.min(axis=0).todense() if sp.issparse(X) else X.min(axis=0)).ravel()
    top = np.maximum(hi, -lo)
    extreme = (top > 0) & np.isfinite(top) & ((top < 1.0 / EXTREME) | (top > EXTREME))
    if not extreme.any():
        return X
    shift = np.zeros(X.shape[1], dtype=np.int64)
    shift[extreme] = -np.frexp(top[extreme])[1]  # ldexp by the exponent: no 2**shift overflow
    if sp.issparse(X):
        Xc = X.tocsc(copy=True)
        Xc.data = np.ldexp(Xc.data, np.repeat(shift, np.diff(Xc.indptr)))
        return Xc.asformat(X.format)
    return np.ldexp(X, shift)


def _laplacian(X, n_neighbors, kernel, t) -> np.ndarray:
    W = knn_affinity("laplacian_score", X, n_neighbors, kernel, t)
    X = _columns_by_powers_of_two(X)  # after the graph: the score of a column is scale-free
    n = X.shape[0]
    deg = np.asarray(W.sum(axis=1)).ravel()
    vol = deg.sum()
    Wu = sp.triu(W, k=1).tocoo()
    # incidence matrix of the edges: (E f)_e = f_i - f_j, so f'Lf = sum_e w_e (f_i - f_j)^2 (>= 0 exactly)
    ne = Wu.nnz
    E = sp.csr_matrix(
        (np.r_[np.ones(ne), -np.ones(ne)], (np.r_[np.arange(ne), np.arange(ne)], np.r_[Wu.row, Wu.col])),
        shape=(ne, n),
    )
    if sp.issparse(X):
        EX = E @ X
        fLf = np.asarray(EX.multiply(EX).T @ Wu.data).ravel()
        fd = np.asarray(X.T @ deg).ravel()
        fDf = np.asarray(X.multiply(X).T @ deg).ravel() - fd**2 / vol
        out = zero_constant(ratio(fDf, fLf) - 1.0, X)
    else:
        fDf, fLf, const = K.laplacian_dense(
            readonly(np.ascontiguousarray(X)), deg, Wu.row.astype(np.int64), Wu.col.astype(np.int64), Wu.data
        )
        out = ratio(fDf, fLf) - 1.0
        out[const] = 0.0
    # f'Lf <= 2 f'Df exactly (LS <= 2), so 1/LS - 1 >= -0.5; rounding may cross it by ulps
    return np.maximum(out, -0.5)


class ReliefF(ScoreSelector):
    """ReliefF selector (supervised); ``scores_`` are the ReliefF weights ``W`` in [-1, 1].

    Parameters
    ----------
    n_neighbors : int, default=10
        Nearest hits and nearest misses per class for every instance.
    n_iterations : int or None, default=None
        Number of sampled instances (None: all, deterministic).
    random_state : int, RandomState or None, default=None
    n_features : int or None, default=20
    threshold : float or None, default=None

    Attributes
    ----------
    scores_ : ndarray of shape (n_features_in_,)
        :func:`relieff_score` of every feature: the raw weight ``W`` in [-1, 1]
        (0 = irrelevant or constant). Pass it to :class:`GRM` as it is; features with
        ``W <= 0`` stay out of GRM's working set.
    ranking_ : ndarray of shape (n_features_in_,)
    n_features_in_ : int
    feature_names_in_ : ndarray

    References
    ----------
    Robnik-Sikonja & Kononenko (2003); Li et al. (2017), eq. (24)-(25).

    Notes
    -----
    A continuous ``y`` (``type_of_target``) gives RReliefF (Robnik-Sikonja & Kononenko
    2003, Fig. 6), see :func:`relieff_score`.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from fsviz.select import ReliefF
    >>> X, y = load_diabetes(return_X_y=True)
    >>> y = (y - y.mean()) / y.std()      # a continuous target: RReliefF
    >>> ReliefF(n_features=2).fit(X, y).get_support(indices=True)
    array([2, 8])
    """

    _supervised = True
    _regression = True
    _parameter_constraints: dict = {
        **SELECTION_CONSTRAINTS,
        "n_neighbors": NEIGHBOURS,
        "n_iterations": [Interval(Integral, 1, None, closed="left"), None],
        "random_state": ["random_state"],
    }
    _parameter_ui: dict = {"n_neighbors": NEIGHBOURS_UI}

    def __init__(
        self, *, n_neighbors=10, n_iterations=None, random_state=None, n_features=20, threshold=None
    ):
        self.n_neighbors = n_neighbors
        self.n_iterations = n_iterations
        self.random_state = random_state
        self.n_features = n_features
        self.threshold = threshold

    def _compute_scores(self, X, y):
        return _relieff(X, y, self.n_neighbors, self.n_iterations, self.random_state)


class LGD(ScoreSelector):
    """Local and Global Discriminative score (unsupervised), eq. (29)-(30) of the GRM paper.

    Parameters
    ----------
    n_neighbors : int, default=5
        Size of each 1-D neighbourhood (the sample itself included), in [2, n_samples].
    n_features : int or None, default=20
    threshold : float or None, default=None

    Attributes
    ----------
    scores_ : ndarray of shape (n_features_in_,)
        :func:`lgd_score` of every feature (> 0 unless constant).
    ranking_ : ndarray of shape (n_features_in_,)
    n_features_in_ : int
    feature_names_in_ : ndarray

    References
    ----------
    Wang, Nie & Huang (2015), IEEE TKDE 27(10), eq. (29)-(30).

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import LGD
    >>> X = np.random.default_rng(0).standard_normal((50, 4))
    >>> X[:, 2] = np.repeat([0.0, 5.0], 25)  # two tight clusters: high LGD
    >>> int(LGD(n_features=1).fit(X).get_support(indices=True)[0])
    2
    """

    _parameter_constraints: dict = {
        **SELECTION_CONSTRAINTS,
        "n_neighbors": [Interval(Integral, 2, None, closed="left")],  # the sample itself and one more
    }
    _parameter_ui: dict = {
        "n_neighbors": replace(
            NEIGHBOURS_UI,
            help="Size of each 1-D neighbourhood, the sample itself included (at least 2). The GRM "
            "paper finds 5 to 8 best (Fig. 3) and uses 5.",
            practical=(2, 50),
        )
    }

    def __init__(self, *, n_neighbors=5, n_features=20, threshold=None):
        self.n_neighbors = n_neighbors
        self.n_features = n_features
        self.threshold = threshold

    def _compute_scores(self, X, y):
        return _lgd(X, self.n_neighbors)


class LaplacianScore(ScoreSelector):
    """Laplacian score selector (unsupervised); ``scores_ = 1 / LS`` so that higher is better.

    Parameters
    ----------
    n_neighbors : int, default=5
    kernel : {"heat", "binary"}, default="heat"
    t : float or None, default=None
        Heat-kernel width; None: mean squared kNN distance.
    n_features : int or None, default=20
    threshold : float or None, default=None

    Attributes
    ----------
    scores_ : ndarray of shape (n_features_in_,)
        :func:`laplacian_score` of every feature: ``1 / LS - 1``, 0 for a feature with
        no graph structure (and for constant ones), negative for one rougher than
        random. Pass it to :class:`GRM` as it is.
    ranking_ : ndarray of shape (n_features_in_,)
        1 = best = smallest textbook Laplacian score.
    n_features_in_ : int
    feature_names_in_ : ndarray

    References
    ----------
    He, Cai & Niyogi (2005); Li et al. (2017), eq. (2)-(3).
    """

    _parameter_constraints: dict = {**SELECTION_CONSTRAINTS, "n_neighbors": NEIGHBOURS, **GRAPH_KERNEL}
    _parameter_ui: dict = {"n_neighbors": NEIGHBOURS_UI}

    def __init__(self, *, n_neighbors=5, kernel="heat", t=None, n_features=20, threshold=None):
        self.n_neighbors = n_neighbors
        self.kernel = kernel
        self.t = t
        self.n_features = n_features
        self.threshold = threshold

    def _compute_scores(self, X, y):
        return _laplacian(X, self.n_neighbors, self.kernel, self.t)
