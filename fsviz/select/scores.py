"""Classic per-feature scores with one convention: higher is better, finite.

This module holds the class-statistics scores (Fisher, F, chi-square, t, Gini, MI) and the
variance; the neighbourhood scores (ReliefF, LGD, Laplacian) are in :mod:`.neighbourhood`, the
target correlations (Pearson, Spearman) in :mod:`.correlation_scores`, and what they share in
the internal modules ``_score_common`` (checks, ratios, class sums of squares) and ``_graph``
(kNN graphs of the samples). The conventions below hold for all of them.

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

from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.utils import ClassifierTags
from sklearn.utils._param_validation import Interval, StrOptions

from fsviz._params import validate_declared
from fsviz._targets import target_kind
from fsviz.select import _score_kernels as K
from fsviz.select._base import (
    SELECTION_CONSTRAINTS,
    ScoreSelector,
    class_codes,
    readonly,
    scale_extreme,
)
from fsviz.select._score_common import (
    check_X,
    check_Xy,
    class_ss,
    column_blocks,
    continuous_target,
    indicator,
    ratio,
    target_correlations,
    zero_constant,
)
from fsviz.stats.information import discretize, is_discrete, mi_with_target
from fsviz.stats.moments import column_moments


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
    X, y = check_Xy("fisher_score", X, y)
    return _fisher(X, y)


def _fisher(X, y) -> np.ndarray:
    codes, counts = class_codes("fisher_score", y)
    between, within, const = class_ss(X, codes, counts)
    out = ratio(between, within)
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
    X, y = check_Xy("f_score", X, y)
    return _f(X, y)


# ------------------------------------------------------------------ regression (continuous y)


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
    X, y = check_Xy("f_regression_score", X, y)
    return _f_regression(X, np.asarray(y, dtype=np.float64))


def _f_regression(X, y: np.ndarray) -> np.ndarray:
    n = X.shape[0]
    if n < 3:
        raise ValueError(f"f_regression_score: needs at least 3 samples (n - 2 degrees of freedom); got {n}.")
    r2 = target_correlations(X, continuous_target("f_regression_score", y)) ** 2
    return ratio(r2, 1.0 - r2) * (n - 2)


def _f(X, y) -> np.ndarray:
    if target_kind(y) == "continuous":
        return _f_regression(X, np.asarray(y, dtype=np.float64))
    codes, counts = class_codes("f_score", y)
    n, c = X.shape[0], counts.size
    if n <= c:
        raise ValueError(
            f"f_score: needs more samples than classes (n - c within-class degrees of freedom); "
            f"got {n} samples and {c} classes."
        )
    between, within, const = class_ss(X, codes, counts)
    out = ratio(between / (c - 1), within / (n - c))
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
    X, y = check_Xy("chi2_score", X, y, scale=False)
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
    codes, counts = class_codes("chi2_score", y)
    obs = indicator(codes, counts.size) @ X
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
    X, y = check_Xy("t_score", X, y)
    return _t(X, y)


def _t(X, y, owner: str = "t_score") -> np.ndarray:
    codes, counts = class_codes(owner, y)
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
        Y = indicator(codes, 2)
        S1 = np.asarray((Y @ X).toarray())
        S2 = np.asarray((Y @ X.multiply(X)).toarray())
        mean = S1 / n_c[:, None]
        var = np.maximum(S2 - S1 * mean, 0.0) / (n_c[:, None] - 1.0)
    else:
        mean = np.empty((2, X.shape[1]))
        var = np.empty((2, X.shape[1]))
        for c in range(2):  # two passes over each class's rows, in column blocks
            rows = codes == c
            for sl in column_blocks(int(counts[c]), X.shape[1]):
                Xc = X[rows, sl]
                mean[c, sl] = Xc.mean(axis=0)
                var[c, sl] = Xc.var(axis=0, ddof=1)
    out = ratio(np.abs(mean[0] - mean[1]), np.sqrt(var[0] / n_c[0] + var[1] / n_c[1]))
    return zero_constant(out, X)


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
    X, y = check_Xy("gini_index", X, y)
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
    X, y = check_Xy("gini_index_score", X, y)
    gini, parent = _gini(X, y)
    return parent - gini


def _gini(X, y) -> tuple[np.ndarray, float]:
    codes, counts = class_codes("gini_index", y)
    n, m = X.shape
    out = np.empty(m)
    for sl in column_blocks(n, m):
        Xb = X[:, sl].toarray() if sp.issparse(X) else X[:, sl]
        out[sl] = K.gini_best_split(np.ascontiguousarray(Xb.T, dtype=np.float64), codes, counts)
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
    X, y = check_Xy("mutual_info_score", X, y)
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
        y = bin_target(continuous_target("mutual_info_score", y), n_bins)
    else:
        class_codes("mutual_info_score", y)
    if strategy == "auto":
        strategy = "discrete" if is_discrete(X) else "uniform"
    n, m = X.shape
    if sp.issparse(X):
        X = X.tocsc()
    out = np.empty(m)
    if strategy == "mdl":
        codes, counts = class_codes("mutual_info_score", y)
        for b in column_blocks(n, m):  # sorted copies of one block of columns at a time
            Xb = X[:, b].toarray() if sp.issparse(X) else X[:, b]
            out[b] = K.mdl_ig(np.asfortranarray(Xb, dtype=np.float64), codes.astype(np.int64), counts.size)
        return out
    for b in column_blocks(n, m):  # codes are dense int32: keep them to one block at a time
        out[b] = mi_with_target(discretize(X[:, b], n_bins, strategy), y)
    return np.maximum(out, 0.0)


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
    return _variance(check_X("variance_score", X))


def _variance(X) -> np.ndarray:
    if sp.issparse(X):
        _, norm = column_moments(X)
        return norm**2 / X.shape[0]
    if X.flags.f_contiguous and not X.flags.c_contiguous:
        ss, const = K.centred_ss_cols(X)
    else:
        ss, const = K.centred_ss_rows(readonly(np.ascontiguousarray(X)))
    ss[const] = 0.0
    return ss / X.shape[0]


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
