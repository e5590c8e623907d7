"""Similarity-based selectors of the survey's section 2.1: the trace ratio criterion and SPEC.

Both score a feature by how well it preserves a similarity graph on the samples. The
trace ratio criterion (Nie et al. 2008) chooses the *subset* of ``k`` features that
maximises ``sum_F f'L_b f / sum_F f'L_w f`` (survey eq. 13) by Dinkelbach's fixed-point
iteration, which reaches the global maximum over all subsets of size ``k``. SPEC
(Zhao & Liu 2007) ranks features by their spectrum on the normalised graph Laplacian
with one of its three ranking functions (survey eq. 6).

Every quantity is a per-feature quadratic form ``f'Af`` of a sample-by-sample matrix,
computed for all features at once (BLAS on dense column blocks, sparse products for
scipy.sparse ``X``); no Python loop over features.

References
----------
Nie, Xiang, Jia, Zhang & Yan (2008), "Trace Ratio Criterion for Feature Selection", AAAI.
Zhao & Liu (2007), "Spectral Feature Selection for Supervised and Unsupervised Learning", ICML.
Li et al. (2017), "Feature Selection: A Data Perspective", ACM CSUR, sections 2.1.2 and 2.1.4.
"""

from __future__ import annotations

import numbers
from numbers import Integral, Real

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, StrOptions

from fsviz._params import validate_declared
from fsviz.select._base import (
    SELECTION_CONSTRAINTS,
    ScoreSelector,
    blas_limits,
    class_codes,
    constant_features,
)
from fsviz.select._graph import GRAPH_KERNEL, NEIGHBOURS, knn_affinity
from fsviz.select._score_common import class_ss, column_blocks, ratio
from fsviz.select.mcfs import component_basis

_TINY = 1e-12


# ------------------------------------------------------------------ quadratic forms
def _quad_forms(X, W: np.ndarray | sp.spmatrix, d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``f'Wf``, ``f'Df`` and ``d'f`` of every column ``f`` of ``X`` (``D = diag(d)``).

    Dense ``X``: ``W @ X_block`` by BLAS, one column block at a time. Sparse ``X``:
    ``W @ X`` as a sparse-dense product per block, never densifying ``X`` itself.
    """
    n, m = X.shape
    fWf = np.empty(m)
    if sp.issparse(X):
        Xc = X.tocsc()
        fDf = np.asarray(Xc.multiply(Xc).T @ d).ravel()
        df = np.asarray(Xc.T @ d).ravel()
        for sl in column_blocks(n, m):
            B = Xc[:, sl]
            WB = np.asarray(W @ B.toarray()) if not sp.issparse(W) else (W @ B).toarray()
            fWf[sl] = np.asarray(B.multiply(WB).sum(axis=0)).ravel()
        return fWf, fDf, df
    fDf = d @ (X * X)
    df = d @ X
    with blas_limits():
        for sl in column_blocks(n, m):
            B = X[:, sl]
            WB = W @ B
            fWf[sl] = np.einsum("ij,ij->j", B, np.asarray(WB))
    return fWf, fDf, df


# ------------------------------------------------------------------ trace ratio
def _trace_ratio_parts(X, y, style: str, n_neighbors: int, t) -> tuple[np.ndarray, np.ndarray]:
    """Per-feature ``a = f'L_b f`` and ``b = f'L_w f`` (survey eq. 14-16 or 19-21)."""
    if style == "fisher":
        # S_w = 1/n_l within class l (eq. 14), D_w = I: f'L_w f = within-class sum of squares;
        # S_b of eq. 15 has zero row sums, so f'L_b f = f'(S_w - 11'/n)f = between-class SS.
        codes, counts = class_codes("TraceRatio", y)
        between, within, const = class_ss(X, codes, counts)
        between[const] = 0.0
        within[const] = 0.0
        return np.maximum(between, 0.0), np.maximum(within, 0.0)
    # "laplacian": heat-kernel kNN graph S_w (eq. 19), S_b = D_w 11' D_w / 1'D_w 1 (eq. 20),
    # whose degree matrix is D_w: f'L_b f = f'D_w f - (d'f)^2 / vol, f'L_w f = f'D_w f - f'S_w f.
    S = knn_affinity("TraceRatio", X, n_neighbors, "heat", t)
    d = np.asarray(S.sum(axis=1)).ravel()
    fWf, fDf, df = _quad_forms(X, S, d)
    vol = d.sum()
    a = np.maximum(fDf - df**2 / vol, 0.0)
    b = np.maximum(fDf - fWf, 0.0)
    const = constant_features(X)
    a[const] = 0.0
    b[const] = 0.0
    return a, b


def trace_ratio_select(
    a: np.ndarray, b: np.ndarray, k: int, max_iter: int = 100
) -> tuple[np.ndarray, float, int]:
    """Global maximiser of ``sum_F a / sum_F b`` over subsets ``F`` of size ``k`` (Nie et al. 2008, Alg. 1).

    Dinkelbach's iteration: with ``lam`` the ratio of the current subset, the next subset is
    the ``k`` largest ``a_i - lam b_i``; ``lam`` increases strictly until the subset repeats,
    and then no subset has a larger ratio (the largest ``sum_F (a - lam b)`` is 0).

    Parameters
    ----------
    a, b : ndarray of shape (n_features,)
        Non-negative numerators and denominators (``b`` is floored at ``1e-12 * a`` so a
        feature with ``b = 0 < a`` ranks first instead of dividing by zero).
    k : int
        Subset size, ``1 <= k <= n_features``.
    max_iter : int, default=100

    Returns
    -------
    subset : ndarray of int
        The ``k`` chosen features (sorted by ``a - lam b``, best first). Features with
        ``a = b = 0`` (constant ones) are chosen only when fewer than ``k`` others exist,
        last; they do not change ``lam``.
    lam : float
        The optimal trace ratio.
    n_iter : int
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.maximum(np.asarray(b, dtype=np.float64), _TINY * a)
    # features with a = b = 0 (constant ones) add 0/0: they never compete, since their
    # a - lam b = 0 would beat every negative one; they only fill a k beyond the others
    live = np.flatnonzero((a > 0) | (b > 0))
    dead = np.setdiff1d(np.arange(a.size), live)
    kl = min(k, live.size)
    if kl == 0:
        return dead[:k], 0.0, 0
    a_l, b_l = a[live], b[live]
    m = live.size
    # start from the k best individual ratios (the authors' initialisation)
    start = np.argsort(-ratio(a_l, b_l), kind="stable")[:kl]
    lam = _subset_ratio(a_l, b_l, start)
    subset = np.sort(start)
    n_iter = 0
    for n_iter in range(1, max_iter + 1):  # noqa: B007 - returned
        s = a_l - lam * b_l
        cand = np.sort(np.argsort(-s, kind="stable")[:kl]) if kl < m else np.arange(m)
        new = _subset_ratio(a_l, b_l, cand)
        if np.array_equal(cand, subset) or new <= lam * (1.0 + 1e-14):
            if new > lam:
                lam, subset = new, cand
            break
        lam, subset = new, cand
    s = a_l - lam * b_l
    chosen = live[subset[np.argsort(-s[subset], kind="stable")]]
    return np.concatenate([chosen, dead[: k - kl]]), float(lam), n_iter


def _subset_ratio(a, b, idx) -> float:
    den = float(b[idx].sum())
    num = float(a[idx].sum())
    return num / den if den > 0 else 0.0


class TraceRatio(ScoreSelector):
    """Trace ratio criterion (Nie et al. 2008): the globally best subset of ``n_features`` features.

    The subset ``F`` of size ``k = n_features`` maximises
    ``trace_ratio(F) = sum_{f in F} f'L_b f / sum_{f in F} f'L_w f`` (survey eq. 13);
    :func:`trace_ratio_select` finds it by Dinkelbach's fixed-point iteration.

    Parameters
    ----------
    n_features : int or None, default=20
        Subset size ``k`` (None: all features). Unlike a per-feature score, the scores
        depend on ``k``: it enters the optimal ratio ``lam``.
    style : {"fisher", "laplacian"}, default="fisher"
        "fisher" (supervised, batch-mode Fisher score, survey eq. 14-16): within-class
        similarity ``1/n_l``, between-class its complement. "laplacian" (unsupervised,
        batch-mode Laplacian score, eq. 19-21): a heat-kernel kNN graph ``S_w`` and
        ``S_b = D_w 11'D_w / 1'D_w 1``; ``y`` is ignored.
    n_neighbors : int, default=5
        Neighbours of the kNN graph (style "laplacian").
    t : float or None, default=None
        Heat-kernel width (style "laplacian"); None: mean squared kNN distance.
    max_iter : int, default=100
        Bound on the fixed-point iterations (it stops on its own, typically in < 10).

    Attributes
    ----------
    scores_ : ndarray of shape (n_features_in_,)
        ``f'L_b f - lam * f'L_w f`` at the optimal ``lam``: the selected subset is the ``k``
        highest, their sum is 0 and no subset of size ``k`` has a positive sum (Dinkelbach's
        optimality condition). May be negative. 0 for constant features, which rank last
        and never enter the subset unless fewer than ``k`` features vary.
    ranking_ : ndarray of shape (n_features_in_,)
        1 = best.
    trace_ratio_ : float
        The optimal trace ratio ``lam`` (survey eq. 13) of the selected subset.
    n_iter_ : int
        Fixed-point iterations run.
    n_features_in_ : int
    feature_names_in_ : ndarray

    References
    ----------
    Nie et al. (2008), "Trace Ratio Criterion for Feature Selection", AAAI, Alg. 1;
    Li et al. (2017), eq. (13)-(22).

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import TraceRatio
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 20)
    >>> X = rng.normal(size=(40, 6)); X[:, 2] += 3 * y
    >>> sel = TraceRatio(n_features=2).fit(X, y)
    >>> int(np.argmin(sel.ranking_))
    2
    """

    _parameter_constraints: dict = {
        "n_features": SELECTION_CONSTRAINTS["n_features"],
        "style": [StrOptions({"fisher", "laplacian"})],
        "n_neighbors": NEIGHBOURS,
        "t": GRAPH_KERNEL["t"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, *, n_features=20, style="fisher", n_neighbors=5, t=None, max_iter=100):
        self.n_features = n_features
        self.style = style
        self.n_neighbors = n_neighbors
        self.t = t
        self.max_iter = max_iter

    @property
    def _supervised(self):  # type: ignore[override]
        return self.style == "fisher"

    def _compute_scores(self, X, y):
        a, b = _trace_ratio_parts(X, y, self.style, self.n_neighbors, self.t)
        m = a.size
        k = m if self.n_features is None else min(int(self.n_features), m)
        _, lam, n_iter = trace_ratio_select(a, b, k, self.max_iter)
        self.trace_ratio_ = lam
        self.n_iter_ = n_iter
        return a - lam * np.maximum(b, _TINY * a)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = self.style == "fisher"
        return tags


# ------------------------------------------------------------------ SPEC
def _rbf(X, gamma: float) -> np.ndarray:
    """Dense RBF affinity ``exp(-gamma ||x_i - x_j||^2)`` (survey eq. 4, ``gamma = 1/2 sigma^2``)."""
    with blas_limits():
        G = X @ X.T
    G = G.toarray() if sp.issparse(G) else np.asarray(G)
    sq = np.diag(G).copy()
    D2 = np.maximum(sq[:, None] + sq[None, :] - 2.0 * G, 0.0)
    np.fill_diagonal(D2, 0.0)
    return np.exp(-gamma * D2)


def _label_affinity(y) -> sp.csr_matrix:
    """``S(i, j) = 1/n_l`` when ``y_i = y_j = l``, else 0 (survey eq. 5)."""
    codes, counts = class_codes("SPEC", y)
    n = codes.size
    Y = sp.csr_matrix((1.0 / np.sqrt(counts[codes]), (np.arange(n), codes)), shape=(n, counts.size))
    return (Y @ Y.T).tocsr()


def _spec_affinity(X, y, gamma):
    if y is not None:
        return _label_affinity(y)
    if gamma is None:
        # scikit-learn's "scale": 1 / (n_features * Var(X)) over all entries
        if sp.issparse(X):
            mean = X.sum() / (X.shape[0] * X.shape[1])
            var = X.multiply(X).sum() / (X.shape[0] * X.shape[1]) - mean**2
        else:
            var = X.var()
        gamma = 1.0 / (X.shape[1] * var) if var > 0 else 1.0
    return _rbf(X, float(gamma))


def spec_score(X, y=None, *, style: int = 0, gamma: float | None = None) -> np.ndarray:
    """SPEC score of every feature (Zhao & Liu 2007; survey eq. 6), higher = better.

    With ``f^ = D^{1/2} f / ||D^{1/2} f||`` and ``(lambda_j, xi_j)`` the eigenpairs of
    ``L_norm = D^{-1/2}(D - S)D^{-1/2}`` (ascending, ``lambda_1 = 0``,
    ``xi_1 ∝ D^{1/2} 1``), ``alpha_j = f^'xi_j`` and ``gamma(x) = x``:

    * ``style=-1``: ``phi_1 = f^'L_norm f^ = sum_j alpha_j^2 lambda_j`` (lower = better);
      returned as ``2 - phi_1``.
    * ``style=0``: ``phi_2 = phi_1 / (1 - (f^'xi_1)^2)`` (lower = better; Laplacian score
      on this graph); returned as ``2 - phi_2``.
    * ``style=k >= 2``: ``phi_3 = sum_{j=2..k} (2 - lambda_j) alpha_j^2`` (higher = better),
      returned as it is.

    Since every ``lambda_j`` lies in [0, 2], all three returned scores are >= 0. Styles -1
    and 0 need no eigendecomposition (``phi_1 = 1 - f'Sf / f'Df``, and the ``j = 1``
    term vanishes); style ``k`` computes the ``k`` smallest eigenpairs only.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,) or None, default=None
        Class labels: supervised graph ``S(i, j) = 1/n_l`` within class ``l`` (eq. 5).
        None: unsupervised RBF graph (eq. 4).
    style : int, default=0
        -1, 0, or the number ``k >= 2`` of eigenpairs (scikit-feature's ``style``).
    gamma : float or None, default=None
        RBF ``1 / (2 sigma^2)``; None: ``1 / (n_features * Var(X))`` (scikit-learn's "scale").

    Returns
    -------
    scores : ndarray of shape (n_features,)
        0 for constant features (and features that vanish on the graph).

    References
    ----------
    Zhao & Liu (2007), ICML, eq. (6)-(9) and Alg. 1; Li et al. (2017), eq. (4)-(6).
    """
    from fsviz.select._score_common import check_X

    X = check_X("spec_score", X)
    if y is not None:
        y = np.asarray(y).ravel()
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"spec_score: 'y' has {y.shape[0]} labels but X has {X.shape[0]} samples.")
    validate_declared("spec_score", SPEC, gamma=gamma)
    _check_style("spec_score", style, X.shape[0])
    return _spec(X, y, style, gamma)


def _check_style(owner, style, n):
    """``style`` against the data: -1, 0 or a number of eigenpairs ``k`` in ``[2, n_samples]``."""
    ok = (
        isinstance(style, numbers.Integral)
        and not isinstance(style, bool)
        and (style in (-1, 0) or 2 <= style <= n)
    )
    if not ok:
        raise ValueError(
            f"{owner}: 'style' must be -1, 0 or an int k in [2, n_samples={n}] (eigenpairs used); "
            f"got {style!r}."
        )


def _spec(X, y, style: int, gamma) -> np.ndarray:
    S = _spec_affinity(X, y, gamma)
    d = np.asarray(S.sum(axis=1)).ravel()
    fWf, fDf, df = _quad_forms(X, S, d)
    zero = (fDf <= 0) | constant_features(X)
    fDf_safe = np.where(zero, 1.0, fDf)
    if style == -1:
        out = 1.0 + fWf / fDf_safe  # 2 - phi_1, phi_1 = 1 - f'Sf / f'Df
    elif style == 0:
        # phi_2 = (f'Df - f'Sf) / (f'Df - (d'f)^2 / vol): the D-centred Laplacian score
        vol = d.sum()
        num = np.maximum(fDf - fWf, 0.0)
        den = np.maximum(fDf - df**2 / vol, 0.0)
        out = 2.0 - np.minimum(ratio(num, den), 2.0)
    else:
        sq = np.sqrt(d)
        inv = np.where(sq > 0, 1.0 / np.where(sq > 0, sq, 1.0), 0.0)
        Sd = S.toarray() if sp.issparse(S) else S
        M = inv[:, None] * Sd * inv[None, :]
        xi1 = sq / np.linalg.norm(sq)
        # deflate xi_1 (eigenvalue 1 of M, lambda_1 = 0 of L_norm) to -1 so that the k - 1
        # largest eigenpairs of M are exactly lambda_2..lambda_k, even when lambda = 0 is
        # repeated (a graph with several components, e.g. the supervised one)
        M -= 2.0 * np.outer(xi1, xi1)
        n = M.shape[0]
        with blas_limits():
            mu, U = sla.eigh(M, subset_by_index=[n - style + 1, n - 1])
        order = np.argsort(-mu, kind="stable")
        lam, U = 1.0 - mu[order], U[:, order]
        # a disconnected graph (the label graph always is) has lambda = 0 once per component:
        # any basis of that eigenspace is valid, and a cut through it (k < components) would make
        # the score depend on the solver's choice; take the canonical one MCFS uses
        Q = component_basis(sp.csr_matrix(S), d, style)
        if Q is not None and Q.shape[1] > 1:
            z = Q.shape[1] - 1
            U = np.hstack([Q[:, 1:], U[:, z:]])
            lam = np.concatenate([np.zeros(z), lam[z:]])
        # alpha_j = f^'xi_j with f^ = D^{1/2} f / ||D^{1/2} f||
        if sp.issparse(X):
            A = np.asarray(sp.csc_matrix(X).T @ (sq[:, None] * U))
        else:
            with blas_limits():
                A = X.T @ (sq[:, None] * U)
        out = ((A**2) @ (2.0 - lam)) / fDf_safe
    out = np.maximum(out, 0.0)
    out[zero] = 0.0
    return out


class SPEC(ScoreSelector):
    """Spectral feature selection (Zhao & Liu 2007), supervised (y given) or unsupervised.

    Parameters
    ----------
    style : int, default=0
        The ranking function (scikit-feature's ``style``): -1 for ``phi_1``, 0 for
        ``phi_2``, ``k >= 2`` for ``phi_3`` over the eigenpairs 2..k. See :func:`spec_score`.
    gamma : float or None, default=None
        RBF ``1 / (2 sigma^2)`` of the unsupervised graph; None: ``1 / (n_features * Var(X))``.
    n_features : int or None, default=20
    threshold : float or None, default=None

    Attributes
    ----------
    scores_ : ndarray of shape (n_features_in_,)
        :func:`spec_score`: ``2 - phi_1``, ``2 - phi_2`` or ``phi_3``; higher = better, >= 0,
        0 for constant features.
    ranking_ : ndarray of shape (n_features_in_,)
    n_features_in_ : int
    feature_names_in_ : ndarray

    References
    ----------
    Zhao & Liu (2007), "Spectral Feature Selection for Supervised and Unsupervised
    Learning", ICML; Li et al. (2017), section 2.1.2, eq. (4)-(6).

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import SPEC
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 20)
    >>> X = rng.normal(size=(40, 6)); X[:, 4] += 3 * y
    >>> int(np.argmin(SPEC(n_features=1).fit(X, y).ranking_))
    4
    """

    _parameter_constraints: dict = {
        **SELECTION_CONSTRAINTS,
        # -1, 0, or k >= 2 eigenpairs (at most n_samples: checked against the data)
        "style": [Interval(Integral, -1, 0, closed="both"), Interval(Integral, 2, None, closed="left")],
        "gamma": [Interval(Real, 0.0, None, closed="neither"), None],  # None: 1 / (m Var(X))
    }

    def __init__(self, *, style=0, gamma=None, n_features=20, threshold=None):
        self.style = style
        self.gamma = gamma
        self.n_features = n_features
        self.threshold = threshold

    def _compute_scores(self, X, y):
        if y is not None:
            from sklearn.utils.multiclass import check_classification_targets

            y = np.asarray(y)
            if y.ndim == 2 and y.shape[1] == 1:
                y = y.ravel()
            if y.ndim != 1 or y.shape[0] != X.shape[0]:
                raise ValueError(
                    f"SPEC: 'y' has {y.shape[0] if y.ndim else 0} labels but X has {X.shape[0]} samples; "
                    "they must match (or pass y=None for the unsupervised RBF graph)."
                )
            check_classification_targets(y)
        _check_style("SPEC", self.style, X.shape[0])
        return _spec(X, y, self.style, self.gamma)
