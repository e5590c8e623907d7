"""How sure: permutation p-values of every feature's score, Benjamini-Hochberg q-values and
the number of features at a false discovery rate.

The p-value of feature ``j`` is the label-permutation p-value of its own score,

    p_j = (1 + #{b : T_j(X, y[pi_b]) >= T_j(X, y)}) / (1 + B),

with ``B`` permutations ``pi_b`` of the samples drawn once and shared by every feature (so the
dependence between features is kept). It tests, for each feature on its own, the null
hypothesis that the target is exchangeable across the samples given that feature's values, i.e.
that the feature and the target are independent (within each stratum when ``strata`` is
given: then ``y`` is permuted only inside each stratum, and the null is independence
conditional on the stratum). Under that null ``p_j`` is valid (``P(p_j <= a) <= a``) whatever
the score, for any ``B`` (Phipson & Smyth 2010). Unsupervised scores do not use the target, so
permuting it cannot test them: they are refused.

Scores whose value is a function of per-class sums or of a correlation with the target are
recomputed for all permutations at once, as one product of a stacked permuted one-hot
(or permuted target) matrix with ``X`` (BLAS), block by block of permutations: Fisher, F
(classes and regression), t, chi-square, |Pearson|, |Spearman| and the mutual information of
a target-independent discretisation. Every other supervised score (ReliefF, Gini, trace
ratio, MDL-discretised MI, the sparse-learning scores, ...) is refitted once per permutation
(``PermutationResult.batched`` says which happened).

References
----------
Phipson & Smyth (2010), "Permutation p-values should never be zero", SAGMB 9(1).
Storey & Tibshirani (2003), "Statistical significance for genomewide studies", PNAS 100(16).
Benjamini & Hochberg (1995), "Controlling the false discovery rate", JRSS B 57(1).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from scipy.stats import rankdata
from sklearn.base import clone
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_array

from fsviz._targets import target_kind
from fsviz.select._base import scale_extreme
from fsviz.select._score_common import ratio
from fsviz.select.correlation_scores import PearsonScore, SpearmanScore
from fsviz.select.scores import ChiSquare, FisherScore, FScore, MutualInfo, TScore, bin_target
from fsviz.stats.covariates import Covariates, check_confounding, covariate_design, residualize
from fsviz.stats.information import discretize, encode_target
from fsviz.stats.moments import column_moments

__all__ = [
    "PermutationResult",
    "bh_qvalues",
    "k_fdr",
    "label_permutations",
    "permutation_pvalues",
]

#: relative tolerance under which a permuted score counts as reaching the observed one: the
#: same score computed in another order of summation must not fall below itself
TIE_RTOL = 1e-9
_BLOCK_ELEMENTS = 1 << 22  # ~32 MB of float64 per block of permuted statistics


@dataclass(frozen=True)
class PermutationResult:
    """Permutation p-values and BH q-values of every feature's score.

    Attributes
    ----------
    scores : ndarray of shape (n_features,)
        The observed scores (the estimator's ``scores_`` on the data as given).
    pvalues : ndarray of shape (n_features,)
        ``(1 + #{b : T_j(perm b) >= T_j}) / (1 + B)``.
    qvalues : ndarray of shape (n_features,)
        Benjamini-Hochberg adjusted p-values (:func:`bh_qvalues`).
    n_permutations : int
        ``B``.
    null : str
        The null hypothesis each p-value tests, in words.
    batched : bool
        True when all permutations were computed as one matrix computation, False when the
        estimator was refitted once per permutation.
    method : str
        The estimator's class name.
    """

    scores: np.ndarray
    pvalues: np.ndarray
    qvalues: np.ndarray
    n_permutations: int
    null: str
    batched: bool
    method: str

    def k_fdr(self, q: float) -> int:
        """The number of features whose BH q-value is at most ``q`` (FDR controlled at ``q``)."""
        return k_fdr(self.qvalues, q)

    def selected(self, q: float) -> np.ndarray:
        """Indices of the features with q-value <= ``q``, best score first."""
        idx = np.flatnonzero(self.qvalues <= _check_q(q, "PermutationResult.selected"))
        return idx[np.argsort(-self.scores[idx], kind="stable")]


def _check_q(q, who: str) -> float:
    if isinstance(q, bool) or not isinstance(q, Real) or not 0.0 < float(q) <= 1.0:
        raise ValueError(f"{who}: the FDR level 'q' must be a number in (0, 1]; got {q!r}.")
    return float(q)


def bh_qvalues(pvalues) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (q-values) of ``m`` p-values.

    ``q_(i) = min_{j >= i} min(1, m p_(j) / j)`` over the p-values sorted increasingly;
    rejecting every hypothesis with ``q <= alpha`` is the BH step-up procedure at level alpha
    (FDR <= alpha for independent or positively dependent (PRDS) p-values).

    Parameters
    ----------
    pvalues : array-like of shape (m,)
        Values in [0, 1].

    Returns
    -------
    qvalues : ndarray of shape (m,)
        Non-decreasing in the p-values; ``q >= p``.

    Examples
    --------
    >>> bh_qvalues([0.01, 0.04, 0.03, 0.5]).round(4).tolist()
    [0.04, 0.0533, 0.0533, 0.5]
    """
    p = np.asarray(pvalues, dtype=np.float64).ravel()
    if p.size and (not np.isfinite(p).all() or p.min() < 0 or p.max() > 1):
        raise ValueError("bh_qvalues: p-values must be finite numbers in [0, 1].")
    m = p.size
    order = np.argsort(p, kind="stable")
    stepped = p[order] * m / np.arange(1, m + 1)
    q_sorted = np.minimum(np.minimum.accumulate(stepped[::-1])[::-1], 1.0)
    q = np.empty(m)
    q[order] = q_sorted
    return q


def k_fdr(qvalues, q: float) -> int:
    """How many features have a q-value at most ``q`` (the BH selection's size at FDR ``q``)."""
    return int(np.count_nonzero(np.asarray(qvalues) <= _check_q(q, "k_fdr")))


def label_permutations(n_samples: int, n_permutations: int, *, strata=None, random_state=None) -> np.ndarray:
    """``B`` permutations of ``n_samples`` positions, one per row (``y[perms[b]]`` is permuted ``y``).

    Parameters
    ----------
    n_samples, n_permutations : int
    strata : array-like of shape (n_samples,), default=None
        When given, every position is only exchanged with positions of the same stratum
        (a batch): the permutation null is then conditional on the strata.
    random_state : int, RandomState instance or None

    Returns
    -------
    perms : ndarray of shape (n_permutations, n_samples), int64
    """
    rng = check_random_state(random_state)
    base = np.arange(n_samples)
    perms = np.tile(base, (n_permutations, 1))
    if strata is None:
        groups = [base]
    else:
        _, codes = np.unique(np.asarray(strata).ravel(), return_inverse=True)
        if codes.size != n_samples:
            raise ValueError(f"label_permutations: 'strata' has {codes.size} values for {n_samples} samples.")
        groups = [np.flatnonzero(codes == g) for g in range(codes.max() + 1)]
    for g in groups:
        if g.size > 1:  # each row's positions of this stratum, shuffled independently (uniform keys)
            perms[:, g] = g[np.argsort(rng.random_sample((n_permutations, g.size)), axis=1, kind="stable")]
    return perms


# ----------------------------------------------------------------------------- batched statistics
# Each builder takes the validated (scaled) X and y and returns stat(perms) -> (b, m) scores of the
# permuted targets y[perms]; stat(identity) is the observed score.


def _dense_centred(X) -> np.ndarray:
    A = np.asarray(X, dtype=np.float64)
    return A - A.mean(axis=0)


def _rows_times(H: np.ndarray, X) -> np.ndarray:
    """``H @ X`` for a dense ``H`` of stacked (permuted) indicator or target rows; a sparse ``X``
    stays sparse (``(X.T @ H.T).T``: one sparse-dense product, nothing densified)."""
    if sp.issparse(X):
        return np.ascontiguousarray((X.T @ H.T).T)
    return H @ X


def _sparse_moments(X) -> tuple[np.ndarray, np.ndarray]:
    """Column means and centred sums of squares of a sparse ``X`` (from its stored values only)."""
    n = X.shape[0]
    mean = np.asarray(X.sum(axis=0)).ravel() / n
    sumsq = np.asarray(X.multiply(X).sum(axis=0)).ravel()
    return mean, np.maximum(sumsq - n * mean * mean, 0.0)


def _sparse_ranks(X) -> tuple[sp.csc_matrix, np.ndarray]:
    """Spearman's column ranks of a sparse ``X`` without densifying: ``R - r0`` (``r0_j`` the rank
    shared by column j's zeros, so the matrix keeps X's sparsity) and the centred ranks' norms.

    A rank is the average position of its value among the column's ``n`` values (ties averaged,
    as :func:`scipy.stats.rankdata`); a constant offset per column does not change a correlation
    with a centred target, so ``R - r0`` serves as ``R``.
    """
    X = sp.csc_matrix(X, dtype=np.float64)
    X.eliminate_zeros()
    n, m = X.shape
    nnz = np.diff(X.indptr)
    cols = np.repeat(np.arange(m), nnz)
    order = np.lexsort((X.data, cols))
    d, c = X.data[order], cols[order]
    new = np.r_[True, (d[1:] != d[:-1]) | (c[1:] != c[:-1])]
    gid = np.cumsum(new) - 1
    first = np.flatnonzero(new)
    avg = first + (np.bincount(gid) - 1) / 2.0  # each tie run's mean position, 0-based, global
    zeros = n - nnz
    neg = np.bincount(cols[X.data < 0], minlength=m)
    rank = np.empty(d.size)
    rank[order] = avg[gid] - X.indptr[c] + 1.0 + np.where(d > 0, zeros[c], 0)
    r0 = neg + (zeros + 1) / 2.0  # the zeros' shared rank
    R = sp.csc_matrix((rank - r0[cols], X.indices, X.indptr), shape=(n, m))
    mid = (n + 1) / 2.0
    dev = np.bincount(cols, weights=(rank - mid) ** 2, minlength=m) + zeros * (r0 - mid) ** 2
    return R, np.sqrt(dev)


def _onehot(codes_perm: np.ndarray, c: int) -> np.ndarray:
    """(b*c, n) stacked class indicators of b permuted code vectors."""
    b, n = codes_perm.shape
    H = np.zeros((b * c, n))
    rows = (np.arange(b)[:, None] * c + codes_perm).ravel()
    H[rows, np.tile(np.arange(n), b)] = 1.0
    return H


def _class_stat(X, y, kind: str):
    _, codes = np.unique(y, return_inverse=True)
    counts = np.bincount(codes).astype(np.float64)
    c, n = counts.size, X.shape[0]
    if kind == "t" and c != 2:
        raise ValueError(f"permutation_pvalues: the t-score compares exactly 2 classes; got {c}.")
    const = column_moments(X)[1] == 0
    sparse = sp.issparse(X)
    if kind == "chi2":
        A = X if sparse else np.asarray(X, dtype=np.float64)
        expected = np.outer(counts / n, np.asarray(A.sum(axis=0)).ravel())
    elif sparse:  # class sums of the raw values, centred after: X itself is never densified
        A = X.tocsc()
        mean, sst = _sparse_moments(A)
        A2 = A.multiply(A).tocsc() if kind == "t" else None
    else:
        A = _dense_centred(X)
        sst = np.einsum("ij,ij->j", A, A)
        A2 = A * A if kind == "t" else None

    def stat(perms: np.ndarray) -> np.ndarray:
        b = perms.shape[0]
        S1 = _rows_times(_onehot(codes[perms], c), A).reshape(b, c, -1)
        if kind == "chi2":
            dev = np.zeros_like(S1)
            np.divide((S1 - expected) ** 2, expected, out=dev, where=expected > 0)
            return dev.sum(axis=1)
        if sparse:  # a permutation keeps the class sizes: centre the class sums with them
            raw1 = S1[:, 1].copy() if kind == "t" else None
            S1 = S1 - counts[None, :, None] * mean[None, None, :]
        if kind == "t":
            H1 = (codes[perms] == 1).astype(np.float64)
            s1 = S1[:, 1]
            if sparse:  # sum over class 1 of (x - mean)^2, from the raw sums
                s2 = _rows_times(H1, A2) - 2.0 * mean * raw1 + counts[1] * mean * mean
            else:
                s2 = H1 @ A2
            n0, n1 = counts
            mean1, mean0 = s1 / n1, -s1 / n0  # the columns are centred: class sums add to 0
            var1 = np.maximum(s2 - s1 * mean1, 0.0) / (n1 - 1)
            var0 = np.maximum((sst - s2) - s1 * s1 / n0, 0.0) / (n0 - 1)
            out = ratio(np.abs(mean1 - mean0), np.sqrt(var0 / n0 + var1 / n1))
        else:
            between = np.einsum("bcm,c->bm", S1 * S1, 1.0 / counts)
            within = np.maximum(sst - between, 0.0)
            if kind == "fisher":
                out = ratio(between, within)
            else:
                out = ratio(between / (c - 1), within / (n - c))
        out[:, const] = 0.0
        return out

    stat.width = c * X.shape[1]
    return stat


def _standardised(A: np.ndarray) -> np.ndarray:
    A = A - A.mean(axis=0)
    norm = np.sqrt(np.einsum("ij,ij->j", A, A))
    return np.divide(A, norm, out=np.zeros_like(A), where=norm > 0)


def _correlation_stat(X, y, kind: str):
    if target_kind(y) == "classes":
        _, codes = np.unique(y, return_inverse=True)
        if codes.max() > 1:
            raise ValueError(
                "permutation_pvalues: a correlation needs an ordered target (continuous or 2 classes)."
            )
        t = codes.astype(np.float64)
    else:
        t = np.asarray(y, dtype=np.float64)
    const = column_moments(X)[1] == 0
    if sp.issparse(X):  # z is centred, so z' X / ||X - mean|| is r: X (or its ranks) stays sparse
        if kind == "spearman":
            Z, norm = _sparse_ranks(X)
            t = rankdata(t)
        else:
            Z = X.tocsc()
            norm = np.sqrt(_sparse_moments(Z)[1])
        scale = np.divide(1.0, norm, out=np.zeros_like(norm), where=norm > 0)
    else:
        A = np.asarray(X, dtype=np.float64)
        if kind == "spearman":
            A, t = rankdata(A, axis=0), rankdata(t)
        Z, scale = _standardised(A), None
    z = _standardised(t[:, None])[:, 0]
    n = X.shape[0]

    def stat(perms: np.ndarray) -> np.ndarray:
        r = _rows_times(z[perms], Z)
        r = np.clip(r if scale is None else r * scale, -1.0, 1.0)
        r[:, const] = 0.0
        if kind == "f_regression":
            r2 = r * r
            return ratio(r2, 1.0 - r2) * (n - 2)
        return np.abs(r)

    stat.width = X.shape[1]
    return stat


def _mi_stat(X, y, n_bins: int, strategy: str):
    if target_kind(y) == "continuous":
        y = bin_target(np.asarray(y, dtype=np.float64), n_bins)
    yc, ky = encode_target(y)
    codes = discretize(X, n_bins, strategy)
    n, m = codes.codes.shape
    k = codes.k.astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum(k)[:-1]])
    cols = (np.asarray(codes.codes, dtype=np.int64) + offsets).ravel()  # one-hot of every feature's level
    onehot = sp.csr_matrix((np.ones(cols.size), (np.repeat(np.arange(n), m), cols)), shape=(n, int(k.sum())))
    nx = np.asarray(onehot.sum(axis=0)).ravel()
    ny = np.bincount(yc, minlength=ky).astype(np.float64)

    def stat(perms: np.ndarray) -> np.ndarray:
        b = perms.shape[0]
        joint = (onehot.T @ _onehot(yc[perms], ky).T).T.reshape(b, ky, -1)  # (b, ky, levels)
        expect = ny[:, None] * nx[None, :]
        terms = np.zeros_like(joint)
        np.multiply(
            joint, np.log(np.divide(n * joint, expect, out=np.ones_like(joint), where=joint > 0)), out=terms
        )
        return np.maximum(np.add.reduceat(terms.sum(axis=1) / n, offsets, axis=1), 0.0)

    stat.width = ky * int(k.sum())
    return stat


def _batched(estimator, X, y) -> Callable[[np.ndarray], np.ndarray] | None:
    """The batched statistic of ``estimator``'s score, or None when it must be refitted."""
    kind = type(estimator)
    if kind is FisherScore:
        return _class_stat(X, y, "fisher")
    if kind is FScore:
        if target_kind(y) == "continuous":
            return _correlation_stat(X, y, "f_regression")
        return _class_stat(X, y, "f")
    if kind is TScore:
        return _class_stat(X, y, "t")
    if kind is ChiSquare:
        return _class_stat(X, y, "chi2")
    if kind is PearsonScore:
        return _correlation_stat(X, y, "pearson")
    if kind is SpearmanScore:
        return _correlation_stat(X, y, "spearman")
    if kind is MutualInfo and estimator.strategy != "mdl":
        return _mi_stat(X, y, estimator.n_bins, estimator.strategy)
    return None


def _null_words(strata, null: str = "feature") -> str:
    base = (
        "H0_j: feature j and the target are independent (the target is exchangeable across the samples "
        "given feature j); "
    )
    if null == "pooled":
        base += (
            "p_j compares feature j's score with the permuted scores of all features pooled, which "
            "also assumes every feature's score has the same null distribution"
        )
    else:
        base += "each p-value is the label-permutation p-value of feature j's own score"
    if strata is None:
        return base + "."
    return (
        base + ", with the target permuted only within each stratum (batch): independence given the stratum."
    )


def _supervised(estimator) -> bool:
    flag = getattr(estimator, "_supervised", None)
    if flag is not None:
        return bool(flag)
    try:
        return bool(estimator.__sklearn_tags__().target_tags.required)
    except AttributeError:
        return False


def permutation_pvalues(
    estimator,
    X,
    y,
    *,
    n_permutations: int = 1000,
    strata=None,
    random_state=None,
    batched: bool | None = None,
    null: str = "feature",
    covariates=None,
) -> PermutationResult:
    """Permutation p-values and Benjamini-Hochberg q-values of every feature's score.

    The score of ``estimator`` (a supervised scorer: its ``fit(X, y)`` sets ``scores_``, higher =
    better) is recomputed on ``n_permutations`` permutations of ``y``, the same permutations for
    every feature. ``p_j = (1 + #{b : T_j^b >= T_j}) / (1 + B)`` (a permuted score within a relative
    ``1e-9`` of the observed one counts as reaching it).

    **Null hypothesis** of ``p_j``: feature ``j`` and the target are independent (the target is
    exchangeable across the samples given feature ``j``); with ``strata``, independence given
    the stratum (``y`` is permuted within each stratum only). The q-values then control the
    false discovery rate under BH's conditions (independent or PRDS p-values; the permutation
    p-values of positively correlated features are in practice close to that).

    Parameters
    ----------
    estimator : supervised score estimator
        E.g. ``FisherScore()``, ``FScore()``, ``MutualInfo()``, ``ReliefF(random_state=0)``.
        Its parameters are kept (it is cloned, never modified).
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    n_permutations : int, default=1000
        ``B``. The smallest p-value is ``1 / (B + 1)``: BH can only select at level ``q`` when
        ``1 / (B + 1) <= q k / m`` for some ``k`` features, so ``B`` must grow with ``m``.
    strata : array-like of shape (n_samples,), default=None
        Batch labels; the permutations then stay within each batch.
    random_state : int, RandomState instance or None, default=None
        Draws the permutations (and seeds nothing else: the estimator keeps its own).
    batched : bool or None, default=None
        None: batched where the score allows, else refitted per permutation; True: batched or
        ValueError; False: always refit (the brute-force reference).
    covariates : DataFrame, mapping, array or Covariates, default=None
        Adjust for these (:func:`fsviz.stats.covariates.covariate_design`): the features (and a
        continuous target) are residualised on them, a class target the batches predict
        perfectly is refused, and, unless ``strata`` is given, the permutations stay within the
        batches of the categorical covariates. The null is then independence of feature j's
        residual and the target, given the batch.
    null : {"feature", "pooled"}, default="feature"
        "feature": each feature against its own permuted scores (exact under its null, for any
        score). "pooled": against the permuted scores of all ``m`` features,
        ``p_j = (1 + #{(b, i) : T_i^b >= T_j}) / (1 + B m)`` (Storey & Tibshirani 2003's
        pooling, as SAM does): resolution ``1 / (B m)`` instead of ``1 / B``, valid only when
        every feature's score has the same distribution under the null (true for F, t, Fisher,
        |r| of continuous features without ties, approximately; not for MI across features with
        different numbers of levels, nor chi-square of features on different scales).

    Returns
    -------
    PermutationResult

    Raises
    ------
    ValueError
        An unsupervised score (permuting the labels cannot test it), no target, a target of one
        value, ``n_permutations < 1``.

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import FisherScore
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 5)); y = np.repeat([0, 1], 30); X[y == 1, 0] += 2
    >>> res = permutation_pvalues(FisherScore(), X, y, n_permutations=199, random_state=0)
    >>> float(res.pvalues[0]), res.k_fdr(0.05)
    (0.005, 1)
    """
    name = type(estimator).__name__
    if not _supervised(estimator):
        raise ValueError(
            f"permutation_pvalues: {name} is unsupervised (its score never reads the target), so "
            "permutations of the labels cannot test it; use a supervised score (Fisher, F, MI, "
            "ReliefF, ...) or stability selection for unsupervised methods."
        )
    if isinstance(n_permutations, bool) or not isinstance(n_permutations, Integral) or n_permutations < 1:
        raise ValueError(
            f"permutation_pvalues: 'n_permutations' must be an int >= 1; got {n_permutations!r}."
        )
    if null not in ("feature", "pooled"):
        raise ValueError(f"permutation_pvalues: 'null' must be 'feature' or 'pooled'; got {null!r}.")
    if y is None:
        raise ValueError(f"permutation_pvalues: {name} needs the target y; got None.")
    X = check_array(X, accept_sparse=("csr", "csc"), dtype=np.float64, ensure_min_samples=2, input_name="X")
    y = np.asarray(y).ravel()
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"permutation_pvalues: y has {y.shape[0]} values but X has {X.shape[0]} samples.")
    if np.unique(y).size < 2:
        raise ValueError("permutation_pvalues: the target has one value; there is nothing to permute.")
    if strata is not None and np.asarray(strata).ravel().shape[0] != X.shape[0]:
        got = np.asarray(strata).ravel().shape[0]
        raise ValueError(f"permutation_pvalues: 'strata' has {got} values for {X.shape[0]} samples.")
    if covariates is not None:
        cov = (
            covariates if isinstance(covariates, Covariates) else covariate_design(covariates, X.shape[0], y)
        )
        if target_kind(y) == "classes":
            check_confounding(y, cov, who="permutation_pvalues")
        else:
            y = residualize(np.asarray(y, dtype=np.float64), cov)
        X = residualize(X, cov)
        strata = cov.strata if strata is None else strata
    fitted = clone(estimator).fit(X, y)
    scores = np.asarray(fitted.scores_, dtype=np.float64)
    perms = label_permutations(X.shape[0], int(n_permutations), strata=strata, random_state=random_state)
    stat = None if batched is False else _batched(estimator, scale_extreme(X), y)
    if stat is None and batched:
        raise ValueError(f"permutation_pvalues: {name}'s score has no batched form; pass batched=None.")
    if stat is not None:
        observed = stat(np.arange(X.shape[0])[None, :])[0]
        step = max(1, _BLOCK_ELEMENTS // max(stat.width, X.shape[0], 1))
        blocks = (stat(perms[s : s + step]) for s in range(0, perms.shape[0], step))
    else:
        observed = scores
        blocks = (np.asarray(clone(estimator).fit(X, y[p]).scores_)[None, :] for p in perms)
    floor = observed - TIE_RTOL * np.abs(observed)
    exceed = np.zeros(X.shape[1], dtype=np.int64)
    for T in blocks:
        if null == "pooled":  # every feature's permuted scores against every observed score
            flat = np.sort(T, axis=None)
            exceed += flat.size - np.searchsorted(flat, floor, side="left")
        else:
            exceed += (T >= floor).sum(axis=0)
    draws = perms.shape[0] * (X.shape[1] if null == "pooled" else 1)
    pvalues = (1.0 + exceed) / (1.0 + draws)
    for a in (scores, pvalues):
        a.setflags(write=False)
    qvalues = bh_qvalues(pvalues)
    qvalues.setflags(write=False)
    return PermutationResult(
        scores=scores,
        pvalues=pvalues,
        qvalues=qvalues,
        n_permutations=int(n_permutations),
        null=_null_words(strata, null),
        batched=stat is not None,
        method=name,
    )
