"""Shared base for per-feature scorers: ``scores_`` -> ``ranking_`` -> ``get_support``.

Every scorer in :mod:`fsviz.select` derives from :class:`ScoreSelector`. A subclass
implements ``_compute_scores(X, y)`` on validated input and returns one finite,
non-negative score per feature, higher = better. The base class

* validates ``X`` (dense or scipy.sparse CSR/CSC, float64, finite) and, for
  supervised scorers, ``y`` (classification targets, at least two classes; a
  continuous target, by ``type_of_target``, only for scorers with a regression form,
  ``_regression = True``, which receive it as float64);
* stores ``scores_`` and ``ranking_`` (scikit-learn's meaning: 1 = best) with a
  stable tie-break (equal scores keep the feature order);
* sets constant features aside: they rank after every non-constant feature whatever their
  score (a constant carries no information, while a negative score, e.g. ReliefF's or the
  trace ratio's, only says "worse than average"), and selectors that fit a joint model
  (``_zero_constants = True``: the sparse-learning ones) see them zeroed, so a non-zero
  constant column is no stand-in for a missing intercept;
* selects either the ``n_features`` best features or, when ``threshold`` is given,
  every feature whose score is ``>= threshold``.
"""

from __future__ import annotations

import contextlib
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import ThreadpoolController

from fsviz._targets import check_class_target, target_kind

_CONTROLLER: ThreadpoolController | None = None


def blas_limits(always: bool = False):
    """Context: one BLAS thread when ``always``, no limit otherwise -- never chosen by the load.

    Multithreaded OpenBLAS spin-waits for its threads, so small products and solves run
    faster on one (``always=True``, e.g. GRM's inner problems). The limit used to follow the
    load average as well (one thread on a busy machine), but a LAPACK eigendecomposition
    rounds differently on one thread than on two: GRM's refined scores then depended on how
    busy the server was when a cached result was made. Thread counts that change a result
    must not depend on the load (``tests/test_thread_determinism.py``).
    """
    if not always:
        return contextlib.nullcontext()
    global _CONTROLLER
    if _CONTROLLER is None:  # inspecting the loaded libraries costs ms: do it once
        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER.limit(limits=1, user_api="blas")


#: data whose largest |value| is above this (or below its inverse) are scaled by a power of
#: two before scoring: squares of values near 1e200 overflow float64, near 1e-200 underflow
EXTREME = 1e100


def scale_extreme(X):
    """``X`` times a power of two when its largest ``|value|`` is above :data:`EXTREME` or below
    ``1/EXTREME`` (so that it lands in [0.5, 1)), else ``X`` itself.

    A power of two changes no value's mantissa, so sums of squares and distances neither
    overflow (|x| ~ 1e200) nor underflow (|x| ~ 1e-200) and nothing is rounded (only
    values below about 1e-300 times the largest could underflow). Every fsviz score and selection is
    invariant to multiplying ``X`` by a constant except the scale of ``VarianceScore``
    and ``ChiSquare`` scores (their ranking is unchanged); those are then reported for
    the scaled data. Dense or sparse input; the input is never modified.
    """
    data = X.data if hasattr(X, "tocsr") else X
    if data.size == 0:
        return X
    top = float(max(np.max(data), -np.min(data)))  # largest |value| without an |X| temporary
    if not np.isfinite(top) or top == 0.0 or 1.0 / EXTREME <= top <= EXTREME:
        return X
    shift = -int(np.frexp(top)[1])  # top * 2**shift in [0.5, 1)
    if hasattr(X, "tocsr"):
        X = X.copy()
        X.data = np.ldexp(X.data, shift)
        return X
    return np.ldexp(X, shift)


def constant_features(X) -> np.ndarray:
    """Boolean mask of the columns of ``X`` whose values are all equal (dense or sparse).

    Exact: a column is constant when its largest value equals its smallest (for sparse
    input, counting the implicit zeros), not when a rounded variance is small.
    """
    if sp.issparse(X):
        Xc = X.tocsc()
        nnz = np.diff(Xc.indptr)
        if Xc.shape[0] == 0:
            return np.ones(Xc.shape[1], dtype=bool)
        mx = np.asarray(Xc.max(axis=0).toarray()).ravel()
        mn = np.asarray(Xc.min(axis=0).toarray()).ravel()
        return (mx == mn) & ((nnz == 0) | (nnz == Xc.shape[0]) | (mx == 0))
    X = np.asarray(X)
    if X.shape[0] == 0:
        return np.ones(X.shape[1], dtype=bool)
    if X.dtype != np.float64 or np.isnan(X[0]).any():  # the kernel compares float64 values, NaN != NaN
        return np.max(X, axis=0) == np.min(X, axis=0)
    from fsviz.select._score_kernels import constant_columns

    return constant_columns(X)


def zero_columns(X, mask: np.ndarray):
    """``X`` with the columns in ``mask`` set to 0 (a copy when any is; ``X`` itself otherwise)."""
    mask = np.asarray(mask, dtype=bool)
    if not mask.any():
        return X
    if sp.issparse(X):
        fmt = X.format
        Xc = X.tocsc(copy=True)
        keep = ~mask[np.repeat(np.arange(Xc.shape[1]), np.diff(Xc.indptr))]
        Xc.data = Xc.data * keep
        Xc.eliminate_zeros()
        return Xc.asformat(fmt)
    X = np.array(X, dtype=np.float64, copy=True)
    X[:, mask] = 0.0
    return X


def readonly(a: np.ndarray) -> np.ndarray:
    """A read-only view of ``a`` (free). A numba kernel compiles once per argument type, and
    read-only arrays (the app's data, a memory map opened for reading) have types of their own:
    a kernel's callers pass every input array read-only, so one compiled kernel serves both."""
    a = a.view()
    a.flags.writeable = False
    return a


def name_order(n: int, names=None) -> np.ndarray:
    """Each feature's position in the sorted order of ``names`` (its position when ``names`` is
    None): the last key of every tie-break, so that a result does not depend on the column order
    of a DataFrame (without names, a feature's position is its name)."""
    if names is None:
        return np.arange(n)
    names = np.asarray(names).astype(str)
    if names.size != n:
        return np.arange(n)
    pos = np.empty(n, dtype=np.int64)
    pos[np.argsort(names, kind="stable")] = np.arange(n)
    return pos


def name_canon(names) -> np.ndarray | None:
    """The column order that sorts ``names``; None without names or when they are sorted. A
    method whose answer depends on the column order beyond ties of a final sort (a path, a walk)
    works on ``X[:, name_canon(names)]`` and maps its indices back."""
    if names is None:
        return None
    order = np.argsort(np.asarray(names).astype(str), kind="stable")
    return None if np.array_equal(order, np.arange(order.size)) else order


def take_columns(X, order: np.ndarray):
    """``X[:, order]``; sparse input comes back CSR/CSC as it came, with sorted indices (the
    same matrix whatever the column order it was built from, down to the order of its sums)."""
    if not sp.issparse(X):
        return X[:, order]
    out = X.tocsc()[:, order].asformat(X.format)
    out.sort_indices()
    return out


def tie_key(scores: np.ndarray, digits: int = 12) -> np.ndarray:
    """``scores`` rounded to ``digits`` significant digits: the key ranks compare, so two scores
    that differ only by rounding (a duplicated column summed in another position) tie, and the tie
    goes to the name."""
    s = np.asarray(scores, dtype=np.float64)
    ok = np.isfinite(s) & (s != 0)
    mag = np.floor(np.log10(np.abs(np.where(ok, s, 1.0))))
    q = 10.0 ** (mag - (digits - 1))
    return np.where(ok, np.round(s / q) * q, s)


def rank_scores(
    scores: np.ndarray,
    tie_break: np.ndarray | None = None,
    last: np.ndarray | None = None,
    names=None,
) -> np.ndarray:
    """Ranks of ``scores`` in scikit-learn's meaning: 1 = best (highest score).

    Ties are broken by feature name (``names``, e.g. ``feature_names_in_``), or by feature order
    when there are no names, so permuting a DataFrame's columns permutes the ranking with them;
    scores equal to 12 significant digits tie (:func:`tie_key`). With ``tie_break`` given, ties
    are first broken by ``tie_break`` (higher first). Features in the boolean mask ``last``
    (constant features) rank after all the others, whatever their score, and among themselves by
    name (feature order).
    """
    scores = tie_key(scores)
    keys = [name_order(scores.size, names)]
    if last is not None:  # among themselves, the last features keep the name order
        last = np.asarray(last, dtype=bool)
    if tie_break is not None:
        tb = -tie_key(tie_break)
        keys.append(tb if last is None else np.where(last, 0.0, tb))
    keys.append(-scores if last is None else np.where(last, 0.0, -scores))
    if last is not None:
        keys.append(last)
    if len(keys) == 2 and names is None:
        order = np.argsort(-scores, kind="stable")
    else:
        order = np.lexsort(tuple(keys))
    ranking = np.empty(scores.size, dtype=np.int64)
    ranking[order] = np.arange(1, scores.size + 1)
    return ranking


#: the k-best / threshold selection every scorer shares (scikit-learn constraints)
SELECTION_CONSTRAINTS: dict = {
    "n_features": [Interval(Integral, 1, None, closed="left"), None],
    "threshold": [Interval(Real, None, None, closed="neither"), None],
}
#: equal-width bins per continuous feature of the information-theoretic selectors
N_BINS: list = [Interval(Integral, 2, None, closed="left")]


def support_mask(scores: np.ndarray, ranking: np.ndarray, n_features, threshold) -> np.ndarray:
    """Boolean mask: ``scores >= threshold`` if a threshold is set, else the ``n_features`` best."""
    if threshold is not None:
        return scores >= threshold
    k = scores.size if n_features is None else min(int(n_features), scores.size)
    return ranking <= k


def class_codes(owner: str, y) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes ``0..c-1`` of the class labels and the class sizes; needs >= 2 classes.

    A continuous ``y`` (``type_of_target``) is refused with a message naming the scores
    that have a regression form: 200 distinct floats are never 200 classes.
    """
    check_class_target(owner, y)
    classes, codes = np.unique(np.asarray(y), return_inverse=True)
    if classes.size < 2:
        raise ValueError(
            f"{owner}: 'y' must contain at least 2 classes to score features against; got {classes.size} "
            f"({classes.tolist()!r}). Use an unsupervised scorer "
            "(LGD, LaplacianScore, VarianceScore) instead."
        )
    codes = np.ascontiguousarray(codes.ravel(), dtype=np.int64)
    return codes, np.bincount(codes, minlength=classes.size).astype(np.int64)


class ScoreSelector(SelectorMixin, BaseEstimator):
    """Base class: a per-feature score, higher is better, and a k-best or threshold selection.

    A scorer without parameters of its own inherits ``__init__`` (``n_features``,
    ``threshold``); others define theirs (storing their parameters plus those two) and declare
    them in ``_parameter_constraints`` (``SELECTION_CONSTRAINTS`` plus their own; checked in
    :meth:`fit`). Every subclass sets ``_supervised`` and implements ``_compute_scores(X, y)``.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features_in_,)
        Finite, non-negative scores, higher = better.
    ranking_ : ndarray of shape (n_features_in_,)
        Rank of every feature, 1 = best; ties keep the feature order; constant features
        rank last whatever their score.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Only when ``X`` has string column names.
    """

    _supervised = False
    _regression = False  # accepts a continuous y (type_of_target == "continuous")
    _zero_constants = False  # zero constant columns before _compute_scores (a copy of X when any)
    _name = "ScoreSelector"
    _parameter_constraints: dict = SELECTION_CONSTRAINTS

    def __init__(self, *, n_features=20, threshold=None):
        self.n_features = n_features
        self.threshold = threshold

    def _check_data(self, X) -> None:
        """Hook: subclasses check the validated data here, before any rescaling."""

    def _compute_scores(self, X, y) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def fit(self, X, y=None):
        """Score every feature.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), default=None
            Class labels (or a continuous target for scorers with a regression form);
            required by supervised scorers, ignored by unsupervised ones.

        Returns
        -------
        self
        """
        name = type(self).__name__
        self._validate_params()  # the subclass's declaration, scikit-learn's own check
        if self._supervised:
            if y is None:
                raise ValueError(
                    f"{name}: requires y to be passed, but the target y is None; "
                    "call fit(X, y) with the class labels."
                )
            X, y = validate_data(
                self, X, y, accept_sparse=("csr", "csc"), dtype=np.float64, ensure_min_samples=2
            )
            if self._regression and target_kind(y) == "continuous":
                y = np.asarray(y, dtype=np.float64)
            else:
                check_class_target(name, y)
        else:
            X = validate_data(self, X, accept_sparse=("csr", "csc"), dtype=np.float64, ensure_min_samples=2)
        self._check_data(X)
        X = scale_extreme(X)
        constant = constant_features(X)
        if self._zero_constants:
            X = zero_columns(X, constant)
        scores = np.asarray(self._compute_scores(X, y), dtype=np.float64)
        self.scores_ = scores
        self.ranking_ = rank_scores(scores, last=constant, names=getattr(self, "feature_names_in_", None))
        return self

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "scores_")
        return support_mask(
            self.scores_, self.ranking_, getattr(self, "n_features", None), getattr(self, "threshold", None)
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.required = self._supervised
        return tags
