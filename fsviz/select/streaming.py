"""Streaming-feature baselines of the SAOLA paper: alpha-investing, OSFS, Fast-OSFS,
Grafting, and OFS (whose stream is over samples).

The feature-streaming selectors (:class:`AlphaInvesting`, :class:`OSFS`,
:class:`FastOSFS`, :class:`Grafting`) take the columns of ``X`` in order, as
:class:`~fsviz.select.SAOLA` does: ``fit(X, y)`` streams all of them, and
``partial_fit(X_new_columns, y)`` consumes newly arriving columns for the same samples;
``fit`` on all columns and ``partial_fit`` on any chunking give the same decisions.
Each records a :class:`StreamHistory` (one decision per arriving feature, with the
statistic and the threshold it was compared with). :class:`OFS` streams samples
instead: its ``partial_fit`` takes new rows.

References
----------
J. Zhou, D. Foster, R. Stine, L. Ungar. Streaming feature selection using alpha-investing.
KDD 2005/2006 (JMLR 7, 2006: "Streamwise feature selection").
X. Wu, K. Yu, W. Ding, H. Wang, X. Zhu. Online feature selection with streaming features.
IEEE TPAMI 35(5), 2013 (OSFS and Fast-OSFS).
S. Perkins, J. Theiler. Online feature selection using grafting. ICML 2003.
J. Wang, P. Zhao, S. C. H. Hoi, R. Jin. Online feature selection and its applications.
IEEE TKDE 26(3), 2014 (OFS).
K. Yu, X. Wu, W. Ding, J. Pei. Scalable and accurate online feature selection for big data.
ACM TKDD 11(2), 2016 (``saola-online-feature-selection.txt``): section 5.1, the baselines
and their parameters (alpha = 0.01 for Fast-OSFS; alpha-investing as in Zhou et al.).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from fsviz._params import ParamUI
from fsviz.select import _streaming_kernels as K
from fsviz.select._base import N_BINS, scale_extreme
from fsviz.select._relevance import codes_block, relevance_block, resolve_mode
from fsviz.select._subset_common import SelectedSubsetMixin, check_stream_y, rank_from_selection
from fsviz.select.streaming_history import StreamDecision, StreamHistory, StreamLog
from fsviz.stats.information import encode_target
from fsviz.stats.tests import fisher_z_test

#: a rate, penalty or wealth that must be positive
_POSITIVE = Interval(Real, 0.0, None, closed="neither")

__all__ = ["OSFS", "AlphaInvesting", "FastOSFS", "Grafting", "StreamDecision", "StreamHistory"]

_ADM, _IRR, _RED = 0, 1, 2
_BLOCK = 256  # arriving columns handled together (bounded memory: n x _BLOCK floats)


# --------------------------------------------------------------------------- history


# --------------------------------------------------------------------------- shared streaming base


class _FeatureStream(SelectedSubsetMixin, SelectorMixin, BaseEstimator):
    """fit / partial_fit over arriving columns; subclasses implement ``_begin`` and ``_consume``."""

    _method = ""
    _measure = "p"

    def fit(self, X, y):
        """Stream all columns of ``X`` in order.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        self._validate_params()  # the class's declaration, scikit-learn's own check
        X, y = validate_data(
            self,
            X,
            y,
            accept_sparse=("csc", "csr"),
            dtype=np.float64,
            ensure_all_finite=True,
            y_numeric=False,
        )
        if sp.issparse(X):
            X = X.tocsc()
        X = scale_extreme(X)
        y = check_stream_y(y, X.shape[0], type(self).__name__)
        self._reset(X, y)
        self._feed(X)
        return self

    def partial_fit(self, X, y):
        """Consume newly arriving feature columns (same samples and same ``y`` at every call).

        Feature indices continue from the features seen before. Call :meth:`fit` to start
        a new stream.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_new_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        name = type(self).__name__
        self._validate_params()
        X = check_array(
            X, accept_sparse=("csc", "csr"), dtype=np.float64, ensure_all_finite=True, ensure_min_features=1
        )
        if sp.issparse(X):
            X = X.tocsc()
        if not hasattr(self, "_y"):
            y = check_stream_y(y, X.shape[0], f"{name}.partial_fit")
            self._reset(X, y)
        else:
            y = np.asarray(y).ravel()
            if X.shape[0] != self._y.shape[0] or y.shape != self._y.shape or not np.array_equal(y, self._y):
                raise ValueError(
                    f"{name}.partial_fit: every call must bring new feature columns for the same samples and "
                    f"the same y ({self._y.shape[0]} samples); got X with {X.shape[0]} rows"
                    " (or a different y). "
                    "Call fit() to start a new stream."
                )
        self._feed(X)
        return self

    @property
    def history_(self) -> StreamHistory:
        check_is_fitted(self, "selected_")
        if self._hist is None:
            self._hist = self._log.build(self.selected_, self._measure, self._method)
        return self._hist

    def _reset(self, X, y) -> None:
        self._y = y
        self._log = StreamLog()
        self._hist = None
        self._scores: list[np.ndarray] = []
        self.n_features_in_ = 0
        self._begin(X, y)
        self.selected_ = np.empty(0, dtype=np.int64)

    def _feed(self, X) -> None:
        m = X.shape[1]
        for s0 in range(0, m, _BLOCK):
            blk = X[:, s0 : s0 + _BLOCK]
            dec, stat, thr, score = self._consume(blk, self.n_features_in_)
            self._log.add(dec, stat, thr)
            self._scores.append(score)
            self.n_features_in_ += blk.shape[1]
        self._hist = None
        self.selected_ = np.asarray(self._selected(), dtype=np.int64).copy()
        self.scores_ = np.concatenate(self._scores)
        self.ranking_ = rank_from_selection(self.selected_, self.scores_)[0]


def _dense(B) -> np.ndarray:
    return np.asfortranarray(B.toarray() if sp.issparse(B) else B, dtype=np.float64)


# --------------------------------------------------------------------------- alpha-investing
class AlphaInvesting(_FeatureStream):
    """Streamwise feature selection by alpha-investing (Zhou et al. 2006).

    Features arrive one at a time. The i-th feature (1-based) is tested at level
    ``alpha_i = w / (2 i)`` where ``w`` is the current wealth; it is added to the linear
    model when the p-value of its entry is below ``alpha_i``, and then
    ``w <- w + dw - alpha_i``, otherwise ``w <- w - alpha_i``. The p-value of adding
    ``x`` to the least-squares model M (intercept + the features added so far) is
    ``exp(-(RSS(M) - RSS(M + x)) / (2 sigma^2))`` with ``sigma^2 = RSS(M) / n`` (the
    penalised-likelihood approximation of the paper, as transcribed by scikit-feature).

    Parameters
    ----------
    w0 : float, default=0.5
        Initial wealth. 0.5 and 0.5 are fsviz's defaults: the SAOLA paper uses "the values used in
        [Zhou et al. 2006]" without restating them.
    dw : float, default=0.5
        Wealth earned by each added feature.

    Attributes
    ----------
    selected_ : ndarray of int
        Added features, in arrival order (alpha-investing never removes one).
    scores_ : ndarray of shape (n_features_in_,)
        ``1 - p`` of each feature at its arrival (higher = more significant).
    ranking_ : ndarray of int
        Selected features first (arrival order), then by ``scores_``.
    wealth_ : float
        The wealth after the last feature.
    history_ : StreamHistory
        Per feature: the p-value and its level ``alpha_i``.
    n_features_in_ : int

    Notes
    -----
    The model is kept as an orthonormal basis (Gram-Schmidt) and the residual of y, so
    testing a feature costs O(n k) for k added features instead of refitting a
    regression (O(n k^2)) as scikit-feature does; the decisions are the same. y is
    regressed on its numeric values (label codes for non-numeric labels), as in
    scikit-feature. Once y is fitted exactly (RSS = 0) no further feature is added.
    Sparse input is processed in blocks of 256 densified columns.

    References
    ----------
    J. Zhou, D. P. Foster, R. A. Stine, L. H. Ungar. Streamwise feature selection.
    JMLR 7, 2006 (alpha-investing). SAOLA paper, section 5.1.

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import AlphaInvesting
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 40)); y = X[:, 2] - 2 * X[:, 5] + 0.1 * rng.normal(size=200)
    >>> AlphaInvesting().fit(X, y).selected_.tolist()
    [2, 5]
    """

    _method = "alpha_investing"
    _measure = "p"

    _parameter_constraints: dict = {
        "w0": [_POSITIVE],
        "dw": [Interval(Real, 0.0, None, closed="left")],
    }
    _parameter_ui: dict = {
        "w0": ParamUI(
            "initial wealth w0", "The alpha-wealth the stream starts with.", practical=(0.01, 10.0)
        ),
        "dw": ParamUI(
            "wealth per selection dw", "Wealth earned back by each accepted feature.", practical=(0.01, 10.0)
        ),
    }

    def __init__(self, *, w0: float = 0.5, dw: float = 0.5):
        self.w0 = w0
        self.dw = dw

    def _begin(self, X, y) -> None:
        n = y.shape[0]
        yv = y.astype(np.float64) if y.dtype.kind in "biuf" else encode_target(y)[0].astype(np.float64)
        self._r = yv - yv.mean()
        self._rss = float(self._r @ self._r)
        self._Q = np.zeros((n, min(n, 16)), order="F")
        self._Q[:, 0] = 1.0 / np.sqrt(n)
        self._k = 1
        self._w = float(self.w0)
        self._sel: list[np.ndarray] = []

    def _consume(self, B, off):
        X = _dense(B)
        n, b = X.shape
        need = min(n, self._k + b)
        if need > self._Q.shape[1]:
            Q = np.zeros((n, min(n, max(need, 2 * self._Q.shape[1]))), order="F")
            Q[:, : self._k] = self._Q[:, : self._k]
            self._Q = Q
        p = np.empty(b)
        alpha = np.empty(b)
        acc = np.zeros(b, dtype=np.bool_)
        self._k, self._rss, self._w = K.alpha_investing_block(
            X.T, self._Q, self._k, self._r, self._rss, self._w, off, float(self.dw), 1e-10, p, alpha, acc
        )
        self.wealth_ = self._w
        self._sel.append(off + np.flatnonzero(acc))
        return np.where(acc, _ADM, _IRR), p, alpha, 1.0 - p

    def _selected(self):
        return np.concatenate(self._sel) if self._sel else np.empty(0, dtype=np.int64)


# --------------------------------------------------------------------------- OSFS / Fast-OSFS
class _CIStream(_FeatureStream):
    """Shared engine of OSFS and Fast-OSFS: conditional-independence tests with the target."""

    _method = "osfs"
    _measure = "p"
    _fast = False

    _parameter_constraints: dict = {
        "alpha": [Interval(Real, 0.0, 1.0, closed="neither")],  # a significance level
        "max_k": [Interval(Integral, 0, None, closed="left")],  # largest conditioning set tested
        "data": [StrOptions({"auto", "continuous", "discrete"})],
        "n_bins": N_BINS,
    }

    def __init__(self, *, alpha: float = 0.01, max_k: int = 3, data: str = "auto", n_bins: int = 10):
        self.alpha = alpha
        self.max_k = max_k
        self.data = data
        self.n_bins = n_bins

    def _begin(self, X, y) -> None:

        self.data_ = resolve_mode(self.data, X)
        self._mode = 0 if self.data_ == "continuous" else 1
        levels = max(32, int(self.n_bins))
        if self._mode == 1 and levels ** (int(self.max_k) + 1) >= 2**62:
            raise ValueError(
                f"{type(self).__name__}: 'max_k' is too large for the G^2 test's stratum keys "
                f"(up to {levels} levels per feature: at most {int(62 / np.log2(levels)) - 1}); "
                f"got {self.max_k}."
            )
        n = y.shape[0]
        self._n = n
        if self._mode == 0:
            yv = y.astype(np.float64) if y.dtype.kind in "biuf" else encode_target(y)[0].astype(np.float64)
            yc = yv - yv.mean()
            ny = float(np.sqrt(yc @ yc))
            self._target = (yc, ny)
            self._W = np.asfortranarray((yc / ny)[:, None])  # [target, BCF...] unit-norm centred
            self._R = np.ones((1, 1))
        else:
            yk, ky = encode_target(y)
            self._target = (yk, ky)
            self._codes = np.asfortranarray(yk[:, None].astype(np.int32))
            self._levels = np.array([ky], dtype=np.int64)
        self._bcf = np.empty(0, dtype=np.int64)  # stream indices of the current selection

    def _store(self, X):

        if self._mode == 0:
            Z = _dense(X).copy()
            Z -= Z.mean(axis=0)
            nrm = np.sqrt(np.einsum("ij,ij->j", Z, Z))
            Z /= np.where(nrm > 0, nrm, 1.0)
            return Z
        return codes_block(X, int(self.n_bins))

    def _consume(self, B, off):

        b = B.shape[1]
        mode = "continuous" if self._mode == 0 else "discrete"
        rel = relevance_block(B, mode, self._target, int(self.n_bins))
        if self._mode == 0:
            p0 = np.where(rel == 0.0, 1.0, fisher_z_test(rel, self._n)) if b else np.empty(0)
            score = np.abs(rel)
            st = self._store(B)
        else:
            codes, lv = self._store(B)
            allc = np.asfortranarray(np.hstack([codes, self._codes[:, :1]]))
            p0 = K.g2_with_target(allc, np.r_[lv, self._levels[:1]].astype(np.int64), b)[:b]
            score = rel
            st = (codes, lv)
        alpha = float(self.alpha)
        dec = np.where(p0 > alpha, _IRR, _ADM).astype(np.int8)
        stat = p0.copy()
        for j in np.flatnonzero(
            p0 <= alpha
        ):  # relevant arrivals only: each runs CI searches on the selection
            dec[j], stat[j] = self._arrive(st, j, off + j, p0[j])
        return dec, stat, alpha, score

    def _append(self, st, j) -> int:
        """Add column j of the store to the working matrices; returns its index there."""
        if self._mode == 0:
            z = st[:, j]
            rz = self._W.T @ z
            s = self._W.shape[1]
            R = np.empty((s + 1, s + 1))
            R[:s, :s] = self._R
            R[:s, s] = R[s, :s] = np.clip(rz, -1.0, 1.0)
            R[s, s] = 1.0
            self._R = R
            self._W = np.asfortranarray(np.column_stack([self._W, z]))
            return s
        codes, lv = st
        self._codes = np.asfortranarray(np.column_stack([self._codes, codes[:, j]]))
        self._levels = np.r_[self._levels, lv[j]].astype(np.int64)
        return self._codes.shape[1] - 1

    def _keep(self, alive_cols: np.ndarray) -> None:
        """Keep the target (column 0) and the given working columns."""
        cols = np.r_[0, alive_cols]
        if self._mode == 0:
            self._R = self._R[np.ix_(cols, cols)]
            self._W = np.asfortranarray(self._W[:, cols])
        else:
            self._codes = np.asfortranarray(self._codes[:, cols])
            self._levels = self._levels[cols]

    def _args(self):
        if self._mode == 0:  # the unused codes Fortran-ordered too: one compiled kernel per mode, not two
            return self._R, np.zeros((2, 2), dtype=np.int32, order="F"), np.zeros(1, dtype=np.int64)
        return np.zeros((1, 1)), self._codes, self._levels

    def _arrive(self, st, j, feat, p0):
        alpha, max_k, n = float(self.alpha), int(self.max_k), self._n
        s = self._bcf.shape[0]
        x = self._append(st, j)  # working index s + 1
        R, codes, levels = self._args()
        members_old = np.arange(1, s + 1, dtype=np.int64)
        if self._fast and s:
            sep = np.empty(max_k + 1, dtype=np.int64)
            size, p = K.find_sepset(
                self._mode, R, codes, levels, n, 0, x, members_old, s, -1, max_k, alpha, sep
            )
            if size >= 0:  # Fast-OSFS step 1: X is redundant given a subset of the selection
                self._log.given[feat] = tuple(self._bcf[sep[:size] - 1].tolist())
                self._keep(members_old)
                return _RED, p
        members = np.arange(1, s + 2, dtype=np.int64)
        alive = np.ones(s + 1, dtype=np.bool_)
        rp = np.full(s + 1, np.nan)
        sep_out = np.full((s + 1, max_k + 1), -1, dtype=np.int64)
        K.redundancy_pass(
            self._mode,
            R,
            codes,
            levels,
            n,
            0,
            members,
            alive,
            x if self._fast else -1,
            max_k,
            alpha,
            rp,
            sep_out,
        )
        ids = np.r_[self._bcf, feat]
        p_new = np.nan
        dec = _ADM
        for y in np.flatnonzero(~alive):
            g = tuple(ids[sep_out[y][sep_out[y] >= 0] - 1].tolist())
            if y == s:  # OSFS: the arriving feature itself is redundant
                self._log.given[feat] = g
                dec, p_new = _RED, rp[y]
            else:
                self._log.removed[int(ids[y])] = (int(feat), g)
        self._bcf = ids[alive]
        self._keep(members[alive])
        if dec == _RED:
            return dec, p_new
        return _ADM, p0

    def _selected(self):
        return self._bcf


class OSFS(_CIStream):
    """Online Streaming Feature Selection (Wu et al. 2013, Alg. "OSFS").

    Each arriving feature X is dropped as irrelevant when it is independent of the
    target C (p-value of the test above ``alpha``). Otherwise it joins the current
    selection (the "best candidate features", BCF), and every member Y of the BCF
    (in order, X included) is removed when C is independent of Y given some subset S
    of the other members with ``|S| <= max_k``. Removals take effect at once.

    Tests: Fisher's z on partial correlations for continuous data, G^2 for discrete
    data (the tests of :class:`~fsviz.select.SAOLA`'s paper, section 3.4).

    Parameters
    ----------
    alpha : float, default=0.01
        Significance level of every test (the SAOLA paper's setting for Fast-OSFS).
    max_k : int, default=3
        Largest conditioning set tried (the paper's k-greedy bound, iota in the SAOLA
        paper's complexity analysis).
    data : {"auto", "continuous", "discrete"}, default="auto"
        Which test; "auto" as in :class:`~fsviz.select.SAOLA`.
    n_bins : int, default=10
        Equal-width bins for non-integral columns in discrete mode.

    Attributes
    ----------
    selected_ : ndarray of int
        The final selection, in arrival order.
    scores_ : ndarray of shape (n_features_in_,)
        Relevance of each feature (|rho| with y, or SU for discrete data), as SAOLA's.
    ranking_ : ndarray of int
    history_ : StreamHistory
        Per feature: the p-value of its marginal test (admitted / irrelevant) or of the
        conditional test that made it redundant, the separating set, and which later
        arrival removed it.
    data_ : str
    n_features_in_ : int

    Notes
    -----
    G^2 degrees of freedom are summed over the strata of the conditioning set actually
    observed, (rows - 1)(cols - 1) with the rows and columns present in each; a test
    with 0 degrees of freedom gives p = 1. The cost grows as ``|BCF|^(max_k + 1)`` per
    relevant arrival; this is the method the SAOLA paper could run only on its smaller
    data sets.

    References
    ----------
    X. Wu, K. Yu, W. Ding, H. Wang, X. Zhu. Online feature selection with streaming
    features. IEEE TPAMI 35(5), 2013. SAOLA paper, sections 5.1-5.2.

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import OSFS
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 20)); y = X[:, 1] + X[:, 4] + 0.3 * rng.normal(size=300)
    >>> X[:, 9] = X[:, 1] + X[:, 4] + 0.5 * rng.normal(size=300)  # explained by 1 and 4
    >>> OSFS().fit(X, y).selected_.tolist()
    [1, 4]
    """

    _fast = False


class FastOSFS(_CIStream):
    """Fast-OSFS (Wu et al. 2013): OSFS that tests the arriving feature first.

    An arriving relevant feature X is first tested against the current selection: it
    is dropped as redundant when C is independent of X given some subset (size <=
    ``max_k``) of the selection. Otherwise it is added, and each older member Y is
    removed when C is independent of Y given a subset of the other members that
    *contains X* (subsets without X were already tested before X arrived).

    Parameters
    ----------
    alpha, max_k, data, n_bins
        As for :class:`OSFS`.

    Attributes
    ----------
    selected_, scores_, ranking_, history_, data_, n_features_in_
        As for :class:`OSFS`.

    References
    ----------
    X. Wu, K. Yu, W. Ding, H. Wang, X. Zhu. Online feature selection with streaming
    features. IEEE TPAMI 35(5), 2013 (Fast-OSFS). SAOLA paper, Tables III-VII.

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import FastOSFS
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 20)); y = X[:, 1] + X[:, 4] + 0.3 * rng.normal(size=300)
    >>> X[:, 9] = X[:, 1] + X[:, 4] + 0.5 * rng.normal(size=300)
    >>> FastOSFS().fit(X, y).selected_.tolist()
    [1, 4]
    """

    _fast = True


# --------------------------------------------------------------------------- Grafting
def _probs(Z, binary: bool) -> np.ndarray:
    if binary:
        return 1.0 / (1.0 + np.exp(-Z))
    Z = Z - Z.max(axis=1, keepdims=True)
    E = np.exp(Z)
    return E / E.sum(axis=1, keepdims=True)


def _l1_logistic(XA, Y, W, b, lam: float, tol: float, max_iter: int, binary: bool):
    """min (1/n) sum logloss(XA W + b, Y) + lam |W|_1 (b free) by FISTA with restart
    (:func:`~fsviz.select._streaming_kernels.fista_l1_logistic`), warm-started at (W, b).

    Step 1/L with L = sigma_max([XA, 1])^2 / n times 1/4 (sigmoid) or 1/2 (softmax).
    Returns ``(W, b, n_iter, kkt_violation)``.
    """
    n = XA.shape[0]
    A1 = np.column_stack([XA, np.ones(n)])
    L = np.linalg.norm(A1, 2) ** 2 / n * (0.25 if binary else 0.5)
    W = np.ascontiguousarray(W, dtype=np.float64).copy()
    b = np.ascontiguousarray(b, dtype=np.float64).copy()
    it, viol = K.fista_l1_logistic(
        np.ascontiguousarray(XA),
        np.ascontiguousarray(Y),
        W,
        b,
        lam,
        1.0 / max(L, 1e-12),
        tol,
        max_iter,
        binary,
    )
    return W, b, int(it), float(viol)


class Grafting(_FeatureStream):
    """Online feature selection by grafting (Perkins & Theiler 2003).

    The model is an l1-regularised logistic regression (multinomial for more than two
    classes), ``min (1/n) sum_i loss_i + lam * |W|_1`` with a free intercept, on
    features scaled to unit standard deviation. Each arriving feature enters when the
    gradient test passes: ``|dL/dw| > lam`` at ``w = 0`` (for several classes: the
    largest over the classes), which is exactly when adding it can lower the
    objective. After each entry the whole model is re-optimised (warm-started FISTA to
    a KKT tolerance); features whose weights become 0 leave the model.

    Parameters
    ----------
    lam : float, default=0.05
        The l1 penalty lambda (and the gradient threshold).
    tol : float, default=1e-6
        KKT tolerance of each re-optimisation.
    max_iter : int, default=2000
        FISTA iterations per re-optimisation.

    Attributes
    ----------
    selected_ : ndarray of int
        Features in the model, in the order they entered.
    coef_ : ndarray of shape (n_classes or 1, len(selected_))
        Weights of the selected features (on unit-std features).
    intercept_ : ndarray
    classes_ : ndarray
    scores_ : ndarray of shape (n_features_in_,)
        ``|gradient|`` of each feature at its arrival.
    ranking_ : ndarray of int
    history_ : StreamHistory
        Per feature the gradient statistic, lambda, and which later entry removed it.
    n_features_in_ : int

    Notes
    -----
    The gradient of a centred or uncentred feature is the same at the optimal
    intercept, so scaling (never centring) is enough: sparse columns stay sparse in
    the test (the selected columns are densified for the re-optimisation).

    References
    ----------
    S. Perkins, J. Theiler. Online feature selection using grafting. ICML 2003.
    S. Perkins, K. Lacker, J. Theiler. Grafting: fast, incremental feature selection by
    gradient descent in function space. JMLR 3, 2003 (the gradient test).

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import Grafting
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 30)); y = (X[:, 3] - X[:, 11] > 0).astype(int)
    >>> sorted(Grafting(lam=0.05).fit(X, y).selected_.tolist())
    [3, 11]
    """

    _method = "grafting"
    _measure = "|gradient|"

    _parameter_constraints: dict = {
        "lam": [_POSITIVE],
        "tol": [_POSITIVE],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
    }
    _parameter_ui: dict = {
        "lam": ParamUI(
            "lambda (l1 penalty)",
            "A feature enters when its gradient exceeds lambda.",
            practical=(1e-4, 10.0),
        )
    }

    def __init__(self, *, lam: float = 0.05, tol: float = 1e-6, max_iter: int = 2000):
        self.lam = lam
        self.tol = tol
        self.max_iter = max_iter

    def _begin(self, X, y) -> None:
        check_classification_targets(y)
        self.classes_, yk = np.unique(y, return_inverse=True)
        n = y.shape[0]
        self._binary = self.classes_.shape[0] == 2
        if self._binary:
            self._Y = yk.astype(np.float64)[:, None]
            p = self._Y.mean()
            b = np.array([np.log(p / (1.0 - p))])
        else:
            self._Y = np.eye(self.classes_.shape[0])[yk]
            b = np.log(self._Y.mean(axis=0))
        self._A = np.empty(0, dtype=np.int64)
        self._XA = np.empty((n, 0))
        self._Wm = np.empty((0, self._Y.shape[1]))
        self._b = b
        self._set_residual()
        self.coef_ = self._Wm.T.copy()
        self.intercept_ = self._b.copy()

    def _set_residual(self) -> None:
        n = self._Y.shape[0]
        self._Rm = (_probs(self._XA @ self._Wm + self._b, self._binary) - self._Y) / n

    def _consume(self, B, off):
        n, b = B.shape
        if sp.issparse(B):
            mu = np.asarray(B.mean(axis=0)).ravel()
            sd = np.sqrt(np.maximum(np.asarray(B.multiply(B).mean(axis=0)).ravel() - mu * mu, 0.0))
        else:
            mu, sd = B.mean(axis=0), B.std(axis=0)
        inv = np.where(sd > 1e-12 * (np.abs(mu) + 1e-300), 1.0 / np.where(sd > 0, sd, 1.0), 0.0)
        Xs = B @ sp.diags(inv) if sp.issparse(B) else B * inv
        Xs = sp.csc_matrix(Xs) if sp.issparse(B) else np.asarray(Xs)
        lam = float(self.lam)
        stat = np.abs(np.asarray(Xs.T @ self._Rm)).max(axis=1)
        dec = np.full(b, _IRR, dtype=np.int8)
        pos = 0
        while pos < b:
            hit = np.flatnonzero(stat[pos:] > lam)
            if hit.size == 0:
                break
            j = pos + int(hit[0])
            feat = off + j
            dec[j] = _ADM
            col = Xs[:, [j]].toarray().ravel() if sp.issparse(Xs) else Xs[:, j]
            XA = np.column_stack([self._XA, col])
            W0 = np.vstack([self._Wm, np.zeros((1, self._Wm.shape[1]))])
            W, bb, self.n_iter_, self.kkt_violation_ = _l1_logistic(
                XA, self._Y, W0, self._b, lam, float(self.tol), int(self.max_iter), self._binary
            )
            A = np.r_[self._A, feat]
            keep = np.any(W != 0.0, axis=1)
            for gone in A[~keep]:
                self._log.removed[int(gone)] = (int(feat), ())
            self._A, self._XA, self._Wm, self._b = A[keep], np.ascontiguousarray(XA[:, keep]), W[keep], bb
            self._set_residual()
            if j + 1 < b:
                stat[j + 1 :] = np.abs(np.asarray(Xs[:, j + 1 :].T @ self._Rm)).max(axis=1)
            pos = j + 1
        self.coef_ = self._Wm.T.copy()
        self.intercept_ = self._b.copy()
        return dec, stat, lam, stat.copy()

    def _selected(self):
        return self._A


# --------------------------------------------------------------------------- OFS
