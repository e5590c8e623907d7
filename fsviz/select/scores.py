"""Classic per-feature scores with one convention: higher is better, finite.

Plain functions (``fisher_score(X, y) -> ndarray``) and selector classes
(``FisherScore().fit(X, y).scores_``) compute the same numbers. Every function takes
dense or scipy.sparse input without densifying the whole matrix (dense column
blocks at most), and none uses memory quadratic in the number of features; the
sample-graph scores (Laplacian, ReliefF) use memory quadratic in the number of
samples.

Degenerate features never give NaN: a constant feature scores 0, and a ratio
score whose denominator vanishes while its numerator does not (a perfectly
separating or perfectly locally-smooth feature) is capped at ``1e12`` times its
numerator's scale, i.e. ranks first.

GRM input contract: every score is returned in the form :class:`fsviz.select.GRM`
takes as it is, with 0 meaning "no evidence" (GRM's ratio objective is invariant to
a rescaling of the scores, not to a shift, and features scoring ``<= 0`` stay out
of its working set). Fisher, F, chi-square, MI, variance and LGD are non-negative
by definition; ReliefF is its raw weight ``W`` in [-1, 1] (0 = irrelevant); the
Laplacian score is ``1 / LS - 1`` (0 = no graph structure). Do not shift a score
before GRM.

References
----------
Li et al. (2017), "Feature Selection: A Data Perspective", ACM CSUR -- sections
2.1.1 (Laplacian), 2.1.3 (Fisher), 2.1.5 (ReliefF), 2.2.1 (information gain),
2.4.1 (variance), 2.4.2 (t-score), 2.4.3 (F-score), 2.4.4 (chi-square),
2.4.5 (Gini index).
Wang, Nie & Huang (2015), "Feature Selection via Global Redundancy Minimization",
IEEE TKDE -- eq. (29)-(30) (LGD).
"""

from __future__ import annotations

from dataclasses import replace
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from scipy.linalg import blas as sla_blas
from sklearn.metrics.pairwise import manhattan_distances
from sklearn.utils import ClassifierTags, check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_array

from fsviz._params import ParamUI, check_data_bound, validate_declared
from fsviz._targets import target_kind
from fsviz.select import _score_kernels as K
from fsviz.select._base import (
    EXTREME,
    SELECTION_CONSTRAINTS,
    ScoreSelector,
    blas_limits,
    encode_labels,
    scale_extreme,
)
from fsviz.stats.information import discretize, is_discrete, mi_with_target
from fsviz.stats.moments import column_moments

_CAP = 1e-12  # a vanishing denominator is floored at _CAP * numerator -> score <= 1e12
_BLOCK_ELEMENTS = 1 << 22  # dense column blocks of ~32 MB float64

#: the declarations the sample-graph scores share (LaplacianScore, MCFS, NDFS, TraceRatio, ...):
#: neighbours of the kNN graph (at most n_samples - 1, checked against the data) and its edge weights
NEIGHBOURS: list = [Interval(Integral, 1, None, closed="left")]
GRAPH_KERNEL: dict = {
    "kernel": [StrOptions({"heat", "binary"})],
    "t": [Interval(Real, 0.0, None, closed="neither"), None],
}
#: the app's hint for a neighbourhood size (the GRM page's slider spans the methods' common range)
NEIGHBOURS_UI = ParamUI(
    "neighbourhood size",
    "Nearest neighbours of each sample (ReliefF: nearest hits and misses per class). The GRM "
    "paper finds 5 to 8 best for LGD (Fig. 3) and uses 5.",
    step=1,
    practical=(1, 50),
)


# ------------------------------------------------------------------ helpers
def _check_X(owner: str, X, scale: bool = True):
    X = check_array(X, accept_sparse=("csr", "csc"), dtype=np.float64, ensure_min_samples=2, input_name="X")
    return scale_extreme(X) if scale else X


def _check_Xy(owner: str, X, y, scale: bool = True):
    X = _check_X(owner, X, scale)
    y = np.asarray(y)
    if y.ndim != 1 and not (y.ndim == 2 and y.shape[1] == 1):
        raise ValueError(f"{owner}: 'y' must be 1-D class labels; got shape {y.shape}.")
    y = y.ravel()
    if y.shape[0] != X.shape[0]:
        raise ValueError(
            f"{owner}: 'y' has {y.shape[0]} labels but X has {X.shape[0]} samples; they must match."
        )
    return X, y


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` for non-negative parts: 0 where ``num == 0``, capped where ``den -> 0``."""
    num = np.maximum(num, 0.0)
    den = np.maximum(den, _CAP * num)
    out = np.zeros_like(num)
    np.divide(num, den, out=out, where=num > 0)
    return out


def _zero_constant(scores: np.ndarray, X) -> np.ndarray:
    """Constant features score exactly 0 (rounding in centred sums must not make them look perfect)."""
    _, norm = column_moments(X)
    scores[norm == 0] = 0.0
    return scores


def _blocks(n: int, m: int):
    step = max(1, _BLOCK_ELEMENTS // max(n, 1))
    for s in range(0, m, step):
        yield slice(s, min(s + step, m))


def _indicator(codes: np.ndarray, n_classes: int) -> sp.csr_matrix:
    n = codes.size
    return sp.csr_matrix((np.ones(n), (codes, np.arange(n))), shape=(n_classes, n))


def _class_ss(X, codes: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Between-class and within-class sums of squares of every feature, and which are constant.

    ``between = sum_c n_c (mu_c - mu)^2``, ``within = sum_c sum_{i in c} (x_i - mu_c)^2``;
    dense input is centred per class exactly (two streaming passes in a numba kernel),
    sparse input uses the moment form without densifying.
    """
    n = X.shape[0]
    if sp.issparse(X):
        Y = _indicator(codes, counts.size)
        S1 = np.asarray((Y @ X).toarray())
        S2 = np.asarray((Y @ X.multiply(X)).toarray())
        means = S1 / counts[:, None]
        within = np.maximum((S2 - S1 * means).sum(axis=0), 0.0)
        const = column_moments(X)[1] == 0
    else:
        if X.flags.f_contiguous and not X.flags.c_contiguous:
            means, within, const = K.class_ss_cols(X, codes, counts.astype(np.float64))
        else:
            means, within, const = K.class_ss_rows(np.ascontiguousarray(X), codes, counts.astype(np.float64))
    mu = (counts @ means) / n
    between = counts @ (means - mu) ** 2
    return between, within, const


# ------------------------------------------------------------------ supervised scores
def fisher_score(X, y) -> np.ndarray:
    """Fisher score: between-class over within-class scatter of every feature.

    ``F(f) = sum_c n_c (mu_c - mu)^2 / sum_c n_c sigma_c^2`` (survey eq. 8, population
    variances). Same ranking as :func:`f_score`.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Class labels (at least two classes).

    Returns
    -------
    scores : ndarray of shape (n_features,)
        Non-negative, higher = better; 0 for constant features.

    References
    ----------
    Duda, Hart & Stork (2001), Pattern Classification; Li et al. (2017), eq. (8).
    """
    X, y = _check_Xy("fisher_score", X, y)
    return _fisher(X, y)


def _fisher(X, y) -> np.ndarray:
    codes, counts = encode_labels("fisher_score", y)
    between, within, const = _class_ss(X, codes, counts)
    out = _ratio(between, within)
    out[const] = 0.0
    return out


def f_score(X, y) -> np.ndarray:
    """ANOVA F statistic of every feature (survey eq. 81); equals ``sklearn.feature_selection.f_classif``.

    ``F = [sum_c n_c (mu_c - mu)^2 / (c - 1)] / [sum_c (n_c - 1) s_c^2 / (n - c)]``.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)

    Returns
    -------
    scores : ndarray of shape (n_features,)
        Non-negative; 0 for constant features, capped (not inf) where the within-class
        variance vanishes.

    References
    ----------
    Wright (1965); Li et al. (2017), eq. (81).
    """
    X, y = _check_Xy("f_score", X, y)
    return _f(X, y)


# ------------------------------------------------------------------ regression (continuous y)
def _target_correlations(X, y: np.ndarray) -> np.ndarray:
    """Pearson ``r`` of every column of ``X`` with the real vector ``y``; 0 for constant columns.

    One product ``X^T (y - mean y)`` (sparse input stays sparse) over the centred column
    norms of :func:`fsviz.stats.moments.column_moments`.
    """
    yc = y - y.mean()
    ny = float(np.sqrt(yc @ yc))
    _, norm = column_moments(X)
    cov = np.asarray(X.T @ yc, dtype=np.float64).ravel()
    r = np.zeros(X.shape[1])
    ok = norm > 0
    if ny > 0:
        r[ok] = cov[ok] / (norm[ok] * ny)
    return np.clip(r, -1.0, 1.0)


def _continuous_y(owner: str, y) -> np.ndarray:
    y = np.asarray(y, dtype=np.float64)
    if np.ptp(y) == 0:
        raise ValueError(
            f"{owner}: the continuous target y is constant ({y[0]!r}); nothing to score against."
        )
    return y


def f_regression_score(X, y) -> np.ndarray:
    """F statistic of the univariate linear regression of ``y`` on every feature.

    ``F = r^2 / (1 - r^2) (n - 2)`` with ``r`` the Pearson correlation of the feature
    with the continuous target: equals ``sklearn.feature_selection.f_regression``.
    :func:`f_score` and :class:`FScore` use it when ``y`` is continuous
    (``type_of_target(y) == "continuous"``).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        A real-valued target.

    Returns
    -------
    scores : ndarray of shape (n_features,)
        Non-negative; 0 for constant features, capped (not inf) at ``|r| = 1``.

    References
    ----------
    Li et al. (2017), section 2.4.3 (F-score); the regression form of the F test.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 4)); y = 2 * X[:, 1] + rng.normal(size=100)
    >>> int(np.argmax(f_regression_score(X, y)))
    1
    """
    X, y = _check_Xy("f_regression_score", X, y)
    return _f_regression(X, np.asarray(y, dtype=np.float64))


def _f_regression(X, y: np.ndarray) -> np.ndarray:
    n = X.shape[0]
    if n < 3:
        raise ValueError(f"f_regression_score: needs at least 3 samples (n - 2 degrees of freedom); got {n}.")
    r2 = _target_correlations(X, _continuous_y("f_regression_score", y)) ** 2
    return _ratio(r2, 1.0 - r2) * (n - 2)


def _ranks(A: np.ndarray) -> np.ndarray:
    """Average ranks of every column (ties share their mean rank), as ``scipy.stats.rankdata``."""
    from scipy.stats import rankdata

    return rankdata(A, axis=0, method="average") if A.size else np.asarray(A, dtype=np.float64)


def correlation_score(X, y, method: str = "pearson") -> np.ndarray:
    """``|corr(x_j, y)|`` of every feature with the target: Pearson or Spearman.

    Spearman's rho is Pearson's on average ranks (ties share their mean rank), computed
    in dense column blocks (sparse input is densified one block at a time). The target
    must be ordered: continuous, or two classes (Pearson with a 0/1 target is the
    point-biserial correlation); more than two classes have no order and are refused.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    method : {"pearson", "spearman"}, default="pearson"

    Returns
    -------
    scores : ndarray of shape (n_features,)
        In [0, 1]; 0 for constant features.

    References
    ----------
    Li et al. (2017), section 2.1 (similarity-based relevance); Spearman (1904).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 4)); y = np.exp(X[:, 2]) + 0.1 * rng.normal(size=100)
    >>> s = correlation_score(X, y, method="spearman")
    >>> int(np.argmax(s)), bool(s[2] > 0.9)
    (2, True)
    """
    X, y = _check_Xy("correlation_score", X, y)
    return _correlation(X, y, method, "correlation_score")


def _correlation(X, y, method: str, owner: str) -> np.ndarray:
    if method not in ("pearson", "spearman"):
        raise ValueError(f"{owner}: 'method' must be 'pearson' or 'spearman'; got {method!r}.")
    if target_kind(y) == "classes":
        codes, counts = encode_labels(owner, y)
        if counts.size > 2:
            raise ValueError(
                f"{owner}: a correlation needs an ordered target (continuous, or two classes); "
                f"got {counts.size} classes. Use FScore, MutualInfo or ReliefF for more classes."
            )
        y = codes.astype(np.float64)
    else:
        y = _continuous_y(owner, y)
    if method == "pearson":
        return np.abs(_target_correlations(X, y))
    yr = _ranks(y)
    n, m = X.shape
    if sp.issparse(X):
        X = X.tocsc()
    out = np.empty(m)
    for b in _blocks(n, m):
        B = X[:, b]
        B = B.toarray() if sp.issparse(B) else np.asarray(B)
        out[b] = np.abs(_target_correlations(_ranks(B), yr))
    return out


def _f(X, y) -> np.ndarray:
    if target_kind(y) == "continuous":
        return _f_regression(X, np.asarray(y, dtype=np.float64))
    codes, counts = encode_labels("f_score", y)
    n, c = X.shape[0], counts.size
    if n <= c:
        raise ValueError(
            f"f_score: needs more samples than classes (n - c within-class degrees of freedom); "
            f"got {n} samples and {c} classes."
        )
    between, within, const = _class_ss(X, codes, counts)
    out = _ratio(between / (c - 1), within / (n - c))
    out[const] = 0.0
    return out


def chi2_score(X, y) -> np.ndarray:
    """Chi-square statistic of every non-negative (count/frequency) feature against the classes.

    ``chi2 = sum_c (O_c - E_c)^2 / E_c`` with ``O_c`` the feature's total in class ``c``
    and ``E_c = p(c) * total``; equals ``sklearn.feature_selection.chi2``.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Non-negative values (counts, frequencies, binary indicators).
    y : array-like of shape (n_samples,)

    Returns
    -------
    scores : ndarray of shape (n_features,)
        Non-negative; 0 for all-zero features (scikit-learn gives NaN there).

    References
    ----------
    Liu & Setiono (1995); Li et al. (2017), eq. (82).
    """
    X, y = _check_Xy("chi2_score", X, y, scale=False)
    _chi2_nonneg(X)  # before scaling: the message shows the data's own minimum
    X = scale_extreme(X)
    return _chi2(X, y)


def _chi2_nonneg(X) -> None:
    xmin = X.data.min(initial=0.0) if sp.issparse(X) else X.min(initial=0.0)
    if xmin < 0:
        raise ValueError(
            f"chi2_score: Negative values in data; 'X' must be non-negative (counts or "
            f"frequencies); got minimum {xmin:.4g}. Use f_score or mutual_info_score for signed data."
        )


def _chi2(X, y) -> np.ndarray:
    _chi2_nonneg(X)
    codes, counts = encode_labels("chi2_score", y)
    obs = _indicator(codes, counts.size) @ X
    obs = np.asarray(obs.toarray() if sp.issparse(obs) else obs, dtype=np.float64)
    total = obs.sum(axis=0)
    expected = np.outer(counts / X.shape[0], total)
    out = np.zeros_like(obs)
    np.divide((obs - expected) ** 2, expected, out=out, where=expected > 0)
    return out.sum(axis=0)


def t_score(X, y) -> np.ndarray:
    """Two-class t-score of every feature (survey eq. 80): Welch's statistic in absolute value.

    ``t = |mu_1 - mu_2| / sqrt(s_1^2 / n_1 + s_2^2 / n_2)`` with the class means ``mu_c``,
    the sample variances ``s_c^2`` (``ddof=1``) and the class sizes ``n_c``; equals
    ``abs(scipy.stats.ttest_ind(x[y == a], x[y == b], equal_var=False).statistic)``.
    (scikit-feature's ``t_score`` uses population variances, ``ddof=0``; the two rank
    alike only when the classes have equal sizes.)

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Exactly two classes, each with at least two samples. The t-score has no
        multi-class form; use :func:`f_score` (its multi-class generalisation, survey
        eq. 81) for more classes.

    Returns
    -------
    scores : ndarray of shape (n_features,)
        Non-negative; 0 when the class means are equal (constant features included),
        capped at ``1e12 * |mu_1 - mu_2|`` when both classes are constant but different.

    References
    ----------
    Davis & Sampson (1986); Li et al. (2017), eq. (80).
    """
    X, y = _check_Xy("t_score", X, y)
    return _t(X, y)


def _t(X, y, owner: str = "t_score") -> np.ndarray:
    codes, counts = encode_labels(owner, y)
    if counts.size != 2:
        raise ValueError(
            f"{owner}: the t-score compares exactly 2 classes (survey eq. 80); got {counts.size} classes "
            f"{np.unique(y).tolist()[:10]!r}. Use FScore (f_score), its multi-class generalisation."
        )
    if counts.min() < 2:
        raise ValueError(
            f"{owner}: each class needs at least 2 samples for its variance; "
            f"got class sizes {counts.tolist()}."
        )
    n_c = counts.astype(np.float64)
    if sp.issparse(X):
        Y = _indicator(codes, 2)
        S1 = np.asarray((Y @ X).toarray())
        S2 = np.asarray((Y @ X.multiply(X)).toarray())
        mean = S1 / n_c[:, None]
        var = np.maximum(S2 - S1 * mean, 0.0) / (n_c[:, None] - 1.0)
    else:
        mean = np.empty((2, X.shape[1]))
        var = np.empty((2, X.shape[1]))
        for c in range(2):  # two passes over each class's rows, in column blocks
            rows = codes == c
            for sl in _blocks(int(counts[c]), X.shape[1]):
                Xc = X[rows, sl]
                mean[c, sl] = Xc.mean(axis=0)
                var[c, sl] = Xc.var(axis=0, ddof=1)
    out = _ratio(np.abs(mean[0] - mean[1]), np.sqrt(var[0] / n_c[0] + var[1] / n_c[1]))
    return _zero_constant(out, X)


def gini_index(X, y) -> np.ndarray:
    """Gini index of every feature (survey eq. 83); LOWER is better.

    For a feature with values ``v_1 < ... < v_r`` every ``v_j`` splits the samples into
    ``W = {x <= v_j}`` and ``W' = {x > v_j}``; the Gini index is the smallest weighted
    impurity ``p(W) (1 - sum_s p(C_s|W)^2) + p(W') (1 - sum_s p(C_s|W')^2)`` over these
    splits. The split at ``v_r`` leaves ``W'`` empty and gives the impurity of the labels,
    ``1 - sum_s p(C_s)^2``, so a constant feature gets exactly that (the worst value).
    Values are used as they are (ordered), continuous or discrete.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Class labels (two or more classes).

    Returns
    -------
    gini : ndarray of shape (n_features,)
        In ``[0, 1 - sum_s p(C_s)^2]`` (at most 0.5 for two classes); see
        :func:`gini_index_score` for the higher-is-better form the selector uses.

    References
    ----------
    Gini (1912); Li et al. (2017), eq. (83).
    """
    X, y = _check_Xy("gini_index", X, y)
    return _gini(X, y)[0]


def gini_index_score(X, y) -> np.ndarray:
    """Gini gain of every feature: ``1 - sum_s p(C_s)^2 - gini_index(X, y)``; higher is better.

    The impurity of the labels is the same for every feature, so ranking by this score
    (descending) is ranking by the survey's Gini index (ascending); it is >= 0, 0 for a
    feature whose best split does not lower the impurity (e.g. a constant feature).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)

    Returns
    -------
    scores : ndarray of shape (n_features,)

    References
    ----------
    Li et al. (2017), eq. (83).
    """
    X, y = _check_Xy("gini_index_score", X, y)
    gini, parent = _gini(X, y)
    return parent - gini


def _gini(X, y) -> tuple[np.ndarray, float]:
    codes, counts = encode_labels("gini_index", y)
    n, m = X.shape
    out = np.empty(m)
    for sl in _blocks(n, m):
        Xb = X[:, sl].toarray() if sp.issparse(X) else X[:, sl]
        out[sl] = K.gini_best_split(np.asfortranarray(Xb, dtype=np.float64), codes, counts)
    parent = 1.0 - float((counts.astype(np.float64) ** 2).sum()) / n / n
    return out, parent


def mutual_info_score(X, y, n_bins: int = 10, strategy: str = "auto") -> np.ndarray:
    """Information gain ``I(X_j; Y)`` (nats) of every feature after discretisation.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    n_bins : int, default=10
        Equal-width bins per feature (10 % of its range) for continuous data.
    strategy : {"auto", "uniform", "discrete", "mdl"}, default="auto"
        "discrete" keeps every distinct value as a level (equals
        ``sklearn.feature_selection.mutual_info_classif(..., discrete_features=True)``);
        "uniform" bins; "auto" chooses "discrete" when all of ``X`` is small integers;
        "mdl" cuts each feature by Fayyad & Irani's recursive minimum-description-length
        splits on the class labels (the discretisation of Weka's ``InfoGainAttributeEval``):
        a feature with no accepted cut scores exactly 0, so 0 means no evidence, the form
        :class:`GRM` needs (docs/reproduce.md); ``n_bins`` then only bins a continuous
        target.

    Returns
    -------
    scores : ndarray of shape (n_features,)
        Non-negative; 0 for constant features.

    Notes
    -----
    Continuous ``y`` (``type_of_target(y) == "continuous"``): a binned (plug-in)
    estimate. ``y`` is cut into ``n_bins`` equal-frequency bins (:func:`bin_target`),
    the features are coded as above, and ``I(X_j; Y_binned)`` is the plug-in MI of
    the two codes. It under-estimates the MI of the continuous pair (binning loses
    information) and carries the usual positive plug-in bias of about
    ``(k_x - 1)(k_y - 1) / (2 n)`` nats, the same for every feature with the same
    number of levels; for ranking features that is what matters.
    ``sklearn.feature_selection.mutual_info_regression`` uses the Kraskov kNN
    estimator instead (continuous, less biased, one neighbour search per feature);
    the two rank strong features alike (tested on planted signals).

    References
    ----------
    Lewis (1992); Li et al. (2017), eq. (36) (MIM / information gain); Kraskov,
    Stoegbauer & Grassberger (2004) for the kNN estimator scikit-learn uses; Fayyad &
    Irani (1993), "Multi-interval discretization of continuous-valued attributes", IJCAI
    (``strategy="mdl"``).
    """
    validate_declared("mutual_info_score", MutualInfo, n_bins=n_bins, strategy=strategy)
    X, y = _check_Xy("mutual_info_score", X, y)
    return _mi(X, y, n_bins, strategy)


def bin_target(y, n_bins: int = 10) -> np.ndarray:
    """Codes ``0..n_bins-1`` of a continuous target cut at its quantiles (equal-frequency bins).

    Tied values always share a bin (so heavily tied targets get fewer, larger bins).

    Examples
    --------
    >>> bin_target([0.1, 5.0, 0.3, 2.0, 9.0, 0.2], n_bins=3).tolist()
    [0, 2, 1, 1, 2, 0]
    """
    y = np.asarray(y, dtype=np.float64).ravel()
    edges = np.quantile(y, np.linspace(0.0, 1.0, int(n_bins) + 1)[1:-1])
    return np.searchsorted(edges, y, side="right").astype(np.int64)


def _mi(X, y, n_bins, strategy) -> np.ndarray:
    if target_kind(y) == "continuous":
        y = bin_target(_continuous_y("mutual_info_score", y), n_bins)
    else:
        encode_labels("mutual_info_score", y)
    if strategy == "auto":
        strategy = "discrete" if is_discrete(X) else "uniform"
    n, m = X.shape
    if sp.issparse(X):
        X = X.tocsc()
    out = np.empty(m)
    if strategy == "mdl":
        codes, counts = encode_labels("mutual_info_score", y)
        for b in _blocks(n, m):  # sorted copies of one block of columns at a time
            Xb = X[:, b].toarray() if sp.issparse(X) else X[:, b]
            out[b] = K.mdl_ig(np.asfortranarray(Xb, dtype=np.float64), codes.astype(np.int64), counts.size)
        return out
    for b in _blocks(n, m):  # codes are dense int32: keep them to one block at a time
        out[b] = mi_with_target(discretize(X[:, b], n_bins, strategy), y)
    return np.maximum(out, 0.0)


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
    X, y = _check_Xy("relieff_score", X, y)
    return _relieff(X, y, n_neighbors, n_iterations, random_state)


def _relieff(X, y, n_neighbors, n_iterations, random_state) -> np.ndarray:
    continuous = target_kind(y) == "continuous"
    if continuous:  # RReliefF: one "class", the k nearest neighbours of every instance
        yv = _continuous_y("relieff_score", y)
        codes, counts = np.zeros(yv.size, dtype=np.int64), np.array([yv.size], dtype=np.int64)
    else:
        codes, counts = encode_labels("relieff_score", y)
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


# ------------------------------------------------------------------ unsupervised scores
def variance_score(X) -> np.ndarray:
    """Population variance of every feature (survey eq. 79); equals ``VarianceThreshold().variances_``.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)

    Returns
    -------
    scores : ndarray of shape (n_features,)

    References
    ----------
    Li et al. (2017), section 2.4.1 (low variance).
    """
    return _variance(_check_X("variance_score", X))


def _variance(X) -> np.ndarray:
    if sp.issparse(X):
        _, norm = column_moments(X)
        return norm**2 / X.shape[0]
    if X.flags.f_contiguous and not X.flags.c_contiguous:
        ss, const = K.centred_ss_cols(X)
    else:
        ss, const = K.centred_ss_rows(np.ascontiguousarray(X))
    ss[const] = 0.0
    return ss / X.shape[0]


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
    return _lgd(_check_X("lgd_score", X), n_neighbors)


def _lgd(X, n_neighbors) -> np.ndarray:
    n = X.shape[0]
    declared = LGD._parameter_constraints["n_neighbors"]
    k = check_data_bound(
        "lgd_score", "n_neighbors", n_neighbors, declared, high=n, why=f" (X has {n} samples)"
    )
    if sp.issparse(X):
        Xc = X.tocsc()
        Xc.sort_indices()
        g, loc = K.lgd_csc(Xc.data, Xc.indices.astype(np.int64), Xc.indptr.astype(np.int64), n, k)
    else:
        lgd = K.lgd_dense_par if X.size * (np.log2(max(n, 2)) + k) > K.PARALLEL_WORK else K.lgd_dense
        g, loc = lgd(np.asfortranarray(X), k)
    return _zero_constant(_ratio(g, loc), X)


def _knn_sq(X, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``k`` nearest other samples of every sample (Euclidean): ``(row, col, squared distance)``.

    Squared distances ``|x_i|^2 + |x_j|^2 - 2 x_i'x_j`` by one matrix product per block
    of rows (dense or sparse ``X``, never densified); ties broken by sample index.
    """
    n = X.shape[0]
    sq = np.asarray(X.multiply(X).sum(axis=1)).ravel() if sp.issparse(X) else np.einsum("ij,ij->i", X, X)
    step = max(1, (1 << 23) // max(n, 1))
    rows, cols, vals = [], [], []
    for s in range(0, n, step):
        e = min(s + step, n)
        upper = s == 0 and e == n and not sp.issparse(X)
        with blas_limits():
            if upper:
                # upper triangle of X X' (half the flops of a GEMM), without copying X
                G = sla_blas.dsyrk(1.0, X.T, trans=1) if X.flags.c_contiguous else sla_blas.dsyrk(1.0, X)
            else:
                G = X[s:e] @ X.T
        G = G.toarray() if sp.issparse(G) else np.asarray(G)
        c, v = K.knn_from_gram(G, sq, s, k, upper)
        rows.append(np.repeat(np.arange(s, e), k))
        cols.append(c.ravel())
        vals.append(v.ravel())
    return np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)


def _knn_affinity(owner: str, X, n_neighbors: int, kernel: str, t) -> sp.csr_matrix:
    """Symmetric kNN affinity (i~j if either is among the other's neighbours), heat or 0/1 weights."""
    n = X.shape[0]
    k = check_data_bound(
        owner, "n_neighbors", n_neighbors, NEIGHBOURS, high=n - 1, why=f" (X has {n} samples)"
    )
    rows, cols, d2 = _knn_sq(X, k)
    G = sp.csr_matrix((d2, (rows, cols)), shape=(n, n))
    d2 = G.data
    if kernel == "heat":
        width = float(t) if t is not None else float(d2.mean())
        G.data = np.exp(-d2 / width) if width > 0 else np.ones_like(d2)
    else:
        G.data = np.ones_like(d2)
    return G.maximum(G.T).tocsr()


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
    return _laplacian(_check_X("laplacian_score", X), n_neighbors, kernel, t)


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
    W = _knn_affinity("laplacian_score", X, n_neighbors, kernel, t)
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
        out = _zero_constant(_ratio(fDf, fLf) - 1.0, X)
    else:
        fDf, fLf, const = K.laplacian_dense(
            np.ascontiguousarray(X), deg, Wu.row.astype(np.int64), Wu.col.astype(np.int64), Wu.data
        )
        out = _ratio(fDf, fLf) - 1.0
        out[const] = 0.0
    # f'Lf <= 2 f'Df exactly (LS <= 2), so 1/LS - 1 >= -0.5; rounding may cross it by ulps
    return np.maximum(out, -0.5)


# ------------------------------------------------------------------ selector classes
class FisherScore(ScoreSelector):
    """Fisher score selector (supervised): between- over within-class scatter.

    Parameters
    ----------
    n_features : int or None, default=20
        Number of best features :meth:`get_support` selects (None: all).
    threshold : float or None, default=None
        If set, select every feature with ``scores_ >= threshold`` instead.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features_in_,)
        :func:`fisher_score` of every feature (higher = better, >= 0).
    ranking_ : ndarray of shape (n_features_in_,)
        1 = best; ties keep the feature order.
    n_features_in_ : int
    feature_names_in_ : ndarray

    References
    ----------
    Duda, Hart & Stork (2001); Li et al. (2017), eq. (8).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from fsviz.select import FisherScore
    >>> X, y = load_iris(return_X_y=True)
    >>> FisherScore(n_features=2).fit(X, y).get_support(indices=True)
    array([2, 3])
    """

    _supervised = True

    def _compute_scores(self, X, y):
        return _fisher(X, y)


class FScore(ScoreSelector):
    """ANOVA F-score selector (supervised); ``scores_`` equal ``sklearn.feature_selection.f_classif``.

    With a continuous ``y`` (``type_of_target``) the scores are the F-regression
    statistics :func:`f_regression_score` (equal ``sklearn.feature_selection.f_regression``).

    Parameters
    ----------
    n_features : int or None, default=20
    threshold : float or None, default=None

    Attributes
    ----------
    scores_ : ndarray of shape (n_features_in_,)
        :func:`f_score` of every feature.
    ranking_ : ndarray of shape (n_features_in_,)
    n_features_in_ : int
    feature_names_in_ : ndarray

    References
    ----------
    Li et al. (2017), eq. (81).

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from fsviz.select import FScore
    >>> X, y = load_diabetes(return_X_y=True)
    >>> y = (y - y.mean()) / y.std()      # whole numbers would be classes: standardise
    >>> FScore(n_features=2).fit(X, y).get_support(indices=True)
    array([2, 8])
    """

    _supervised = True
    _regression = True

    def _compute_scores(self, X, y):
        return _f(X, y)


class _CorrelationScore(ScoreSelector):
    """``|corr(x_j, y)|`` with an ordered target; subclasses fix the correlation."""

    _supervised = True
    _regression = True
    _method = "pearson"

    def _compute_scores(self, X, y):
        return _correlation(X, y, self._method, type(self).__name__)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # an ordered target: continuous or two classes (scikit-learn's checks then pass binary y)
        tags.classifier_tags = ClassifierTags(multi_class=False)
        return tags


class PearsonScore(_CorrelationScore):
    """Absolute Pearson correlation of every feature with the target (supervised).

    For a continuous ``y``, and for two classes (point-biserial correlation with the
    0/1 codes); more than two classes have no order and raise a ``ValueError``.
    Ranks features like :class:`FScore` does for a continuous ``y`` (``F`` grows with
    ``r^2``) and scores them on [0, 1].

    Parameters
    ----------
    n_features : int or None, default=20
    threshold : float or None, default=None

    Attributes
    ----------
    scores_ : ndarray of shape (n_features_in_,)
        ``|r|`` in [0, 1] (:func:`correlation_score` with ``method="pearson"``);
        equals ``abs(sklearn.feature_selection.r_regression(X, y))``; 0 for constant
        features.
    ranking_ : ndarray of shape (n_features_in_,)
    n_features_in_ : int
    feature_names_in_ : ndarray

    References
    ----------
    Li et al. (2017), section 2.1; Pearson (1896).

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from fsviz.select import PearsonScore
    >>> X, y = load_diabetes(return_X_y=True)
    >>> y = (y - y.mean()) / y.std()      # whole numbers would be classes: standardise
    >>> sel = PearsonScore(n_features=2).fit(X, y)
    >>> sel.get_support(indices=True), round(float(sel.scores_.max()), 3)
    (array([2, 8]), 0.586)
    """

    _method = "pearson"


class SpearmanScore(_CorrelationScore):
    """Absolute Spearman rank correlation of every feature with the target (supervised).

    Pearson's correlation of the average ranks: it sees any monotone relation, not only
    a linear one, and ignores outliers' magnitudes. Continuous ``y`` or two classes.

    Parameters
    ----------
    n_features : int or None, default=20
    threshold : float or None, default=None

    Attributes
    ----------
    scores_ : ndarray of shape (n_features_in_,)
        ``|rho_s|`` in [0, 1] (:func:`correlation_score` with ``method="spearman"``;
        equals ``abs(scipy.stats.spearmanr)`` per feature); 0 for constant features.
    ranking_ : ndarray of shape (n_features_in_,)
    n_features_in_ : int
    feature_names_in_ : ndarray

    References
    ----------
    Spearman (1904); Li et al. (2017), section 2.1.

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import SpearmanScore
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 5)); y = np.exp(3 * X[:, 4])     # monotone, very non-linear
    >>> SpearmanScore(n_features=1).fit(X, y).get_support(indices=True)
    array([4])
    """

    _method = "spearman"


class ChiSquare(ScoreSelector):
    """Chi-square selector for non-negative features (supervised); equals ``sklearn.feature_selection.chi2``.

    Parameters
    ----------
    n_features : int or None, default=20
    threshold : float or None, default=None

    Attributes
    ----------
    scores_ : ndarray of shape (n_features_in_,)
        :func:`chi2_score` of every feature.
    ranking_ : ndarray of shape (n_features_in_,)
    n_features_in_ : int
    feature_names_in_ : ndarray

    References
    ----------
    Liu & Setiono (1995); Li et al. (2017), eq. (82).
    """

    _supervised = True

    def _check_data(self, X) -> None:
        _chi2_nonneg(X)

    def _compute_scores(self, X, y):
        return _chi2(X, y)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        return tags


class TScore(ScoreSelector):
    """Two-class t-score selector (supervised); ``scores_`` are :func:`t_score` (Welch's |t|).

    Parameters
    ----------
    n_features : int or None, default=20
        Number of best features :meth:`get_support` selects (None: all).
    threshold : float or None, default=None
        If set, select every feature with ``scores_ >= threshold`` instead.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features_in_,)
        ``|mu_1 - mu_2| / sqrt(s_1^2/n_1 + s_2^2/n_2)`` of every feature (>= 0).
    ranking_ : ndarray of shape (n_features_in_,)
        1 = best; ties keep the feature order.
    n_features_in_ : int
    feature_names_in_ : ndarray

    Notes
    -----
    Binary targets only: more than two classes raise a ``ValueError`` pointing to
    :class:`FScore`.

    References
    ----------
    Davis & Sampson (1986); Li et al. (2017), eq. (80).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from fsviz.select import TScore
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> TScore(n_features=3).fit(X, y).get_support(indices=True)
    array([ 7, 22, 27])
    """

    _supervised = True

    def _compute_scores(self, X, y):
        return _t(X, y, "TScore")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # binary targets only: scikit-learn's estimator checks then pass two-class y
        tags.classifier_tags = ClassifierTags(multi_class=False)
        return tags


class GiniIndex(ScoreSelector):
    """Gini index selector (supervised); ``scores_`` is the Gini gain, higher = better.

    The survey's Gini index (eq. 83, :func:`gini_index`) is lower-is-better. ``scores_``
    reports ``gini_parent_ - gini_``, the drop in impurity of the feature's best
    threshold split: the same ranking, non-negative, 0 for features that do not help.

    Parameters
    ----------
    n_features : int or None, default=20
    threshold : float or None, default=None
        Threshold on ``scores_`` (the Gini gain), not on the Gini index.

    Attributes
    ----------
    gini_ : ndarray of shape (n_features_in_,)
        Survey eq. (83) of every feature (lower = better).
    gini_parent_ : float
        Impurity of the labels, ``1 - sum_s p(C_s)^2`` (the Gini index of a constant
        feature).
    scores_ : ndarray of shape (n_features_in_,)
        ``gini_parent_ - gini_`` (>= 0, higher = better).
    ranking_ : ndarray of shape (n_features_in_,)
        1 = best (lowest Gini index); ties keep the feature order.
    n_features_in_ : int
    feature_names_in_ : ndarray

    References
    ----------
    Gini (1912); Li et al. (2017), eq. (83).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from fsviz.select import GiniIndex
    >>> X, y = load_iris(return_X_y=True)
    >>> sel = GiniIndex(n_features=2).fit(X, y)
    >>> sel.get_support(indices=True), round(float(sel.gini_.min()), 4)
    (array([2, 3]), 0.3333)
    """

    _supervised = True

    def _compute_scores(self, X, y):
        self.gini_, self.gini_parent_ = _gini(X, y)
        return self.gini_parent_ - self.gini_


class MutualInfo(ScoreSelector):
    """Information gain selector (supervised): ``I(X_j; Y)`` after discretisation.

    Parameters
    ----------
    n_bins : int, default=10
    strategy : {"auto", "uniform", "discrete", "mdl"}, default="auto"
        As :func:`mutual_info_score`; "mdl" (Fayyad & Irani's MDL cuts, Weka's information
        gain) scores a feature without an accepted cut 0.
    n_features : int or None, default=20
    threshold : float or None, default=None

    Attributes
    ----------
    scores_ : ndarray of shape (n_features_in_,)
        :func:`mutual_info_score` of every feature (nats).
    ranking_ : ndarray of shape (n_features_in_,)
    n_features_in_ : int
    feature_names_in_ : ndarray

    References
    ----------
    Lewis (1992); Li et al. (2017), eq. (36).

    Notes
    -----
    A continuous ``y`` is cut into ``n_bins`` equal-frequency bins first: a binned
    plug-in MI estimate (see :func:`mutual_info_score`), not scikit-learn's kNN
    (Kraskov) estimate of ``mutual_info_regression``.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from fsviz.select import MutualInfo
    >>> X, y = load_diabetes(return_X_y=True)
    >>> y = (y - y.mean()) / y.std()      # whole numbers would be classes: standardise
    >>> MutualInfo(n_features=2).fit(X, y).get_support(indices=True)
    array([2, 8])
    """

    _supervised = True
    _regression = True
    _parameter_constraints: dict = {
        **SELECTION_CONSTRAINTS,
        "n_bins": [Interval(Integral, 2, None, closed="left")],
        "strategy": [StrOptions({"auto", "uniform", "discrete", "mdl"})],
    }

    def __init__(self, *, n_bins=10, strategy="auto", n_features=20, threshold=None):
        self.n_bins = n_bins
        self.strategy = strategy
        self.n_features = n_features
        self.threshold = threshold

    def _compute_scores(self, X, y):
        return _mi(X, y, self.n_bins, self.strategy)


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


class VarianceScore(ScoreSelector):
    """Variance selector (unsupervised); ``scores_`` equal ``VarianceThreshold().variances_``.

    Parameters
    ----------
    n_features : int or None, default=20
    threshold : float or None, default=None
        E.g. ``threshold=1e-8`` keeps every non-constant feature.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features_in_,)
    ranking_ : ndarray of shape (n_features_in_,)
    n_features_in_ : int
    feature_names_in_ : ndarray

    References
    ----------
    Li et al. (2017), section 2.4.1.
    """

    def _compute_scores(self, X, y):
        return _variance(X)


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
