"""The GDM estimator and its cutting plane (TPAMI 2016, Alg. 1; eq. 11-12 for GDM-OC).

Each iteration adds ``delta^t`` (``n_per_iter`` new SFs found by the CRM walk,
:mod:`._walk`) and re-solves the master problem (eq. 6/8, :mod:`._master`); after the last,
group completion (:mod:`._complete`) gives every SF its affiliated features. The package
docstring (:mod:`fsviz.select.gdm`) maps the papers' pieces to modules.

References
----------
.. [1] Zhai, Tan, Tsang & Ong, "Discovering Support and Affiliated Features from Very High
   Dimensions", ICML 2012 (Alg. 1-2, Theorem 1).
.. [2] Zhai, Ong & Tsang, "Making Trillion Correlations Feasible in Feature Grouping and
   Selection", IEEE TPAMI 38(12), 2016 (eq. 4-12, Alg. 1-4, Proposition 1).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import ClassifierTags, assert_all_finite
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from fsviz._params import ParamUI
from fsviz.select._base import name_canon, scale_extreme, take_columns
from fsviz.select.gdm import _state
from fsviz.select.gdm._column_source import is_out_of_core, make_source
from fsviz.select.gdm._complete import _window_cost, complete_groups
from fsviz.select.gdm._ecv import _FoldVoteRanking, _MarginalRanking
from fsviz.select.gdm._master import solve_master
from fsviz.select.gdm._scan import (
    _AUTO_BLOCK,
    _blas_threads,
    _finite_stats,
    _moderate,
    _Scanner,
    _source_moments,
)
from fsviz.select.gdm._sparse_sf import SparseDesign, use_sparse_sfs
from fsviz.select.gdm._state import FitState, model_scores, start_alpha, start_vector, theorem1_window
from fsviz.select.gdm._walk import _crm_walk, _SFState
from fsviz.stats.information import is_discrete
from fsviz.stats.moments import column_moments

__all__ = ["GDM"]


# ============================================================================ estimator


class GDM(SelectorMixin, BaseEstimator):
    """Group Discovery Machine: support features + affiliated feature groups.

    A sparse squared-hinge SVM trained by a cutting-plane algorithm whose most violated
    constraint is found by Correlation Redundancy Matching (CRM): each iteration walks
    the features by decreasing score ``|s_j| = |f_j . (alpha * y)|`` and takes the first
    ``n_per_iter`` features that are not correlated at ``|corr| >= 1 - tau`` with an
    existing support feature (SF) as new SFs; a correlated one becomes an affiliated
    feature (AF) of its most correlated SF. With Pearson correlation, a candidate is only
    compared with the SFs inside the Theorem 1 window ``sqrt(2 tau) ||alpha~||`` around its
    score. After the cutting plane stops, groups are completed exactly: every feature with
    ``|corr| >= 1 - tau`` to a final SF joins the group of its most correlated SF.

    Features are standardised implicitly (centred, unit norm; sparse input is never
    densified). Constant features get score 0 and are never selected or grouped.

    Parameters
    ----------
    tau : float, default=0.3
        Correlation tolerance in [0, 1): features with ``|corr| >= 1 - tau`` are grouped
        (the paper uses 0.3 for PCC and 0.4 for SU). ``tau=0`` disables the correlation
        constraints (the paper's GDM_tau=0 baseline): no correlations, no groups.
    n_per_iter : int, default=10
        ``K_b``: new support features per cutting-plane iteration.
    max_iter : int, default=10
        ``T``: maximum cutting-plane iterations (at most ``T * K_b`` SFs).
    C : float, default=1.0
        SVM trade-off between margin and squared-hinge loss.
    corr : {"pearson", "su"}, default="pearson"
        Correlation measure: absolute Pearson correlation (GDM-PCC, Alg. 2, with the
        Theorem 1 pruning) or symmetrical uncertainty of discretised features (GDM-SU,
        Alg. 3: no pruning bound, every candidate meets every SF). Discretisation:
        ``n_bins`` equal-width bins per feature (10 % of the range), or the raw values
        when the data are already discrete (small integers).
    one_class : bool, default=False
        GDM-OC (eq. 11-12): every sample is a target (``y`` is ignored); features are
        scaled to unit (uncentred) norm so the decision function ``f(x) = w'x - gamma``
        separates the data from the origin. ``predict`` returns +1 (inlier) / -1 (outlier).
    cv_folds : int or None, default=None
        Embedded Cross Validation (Alg. 4) with this many folds: each iteration runs CRM
        on the V training splits (all samples but one fold, standardised on the split)
        with the current ``alpha``; candidates are ranked by how many folds put them in
        their ``delta_v^t``, ties by their *weakest* normalised score over the folds (a
        feature must be strong on every split), and a CRM pass over all data turns that
        ranking into the single universal ``delta^t``; the master problem is solved on
        all data. None runs plain GDM.
    random_state : int, RandomState instance or None, default=None
        Seeds the fold split of ECV (GDM itself is deterministic).
    tol : float, default=1e-3
        Stop the cutting plane when the master objective rises by less than ``tol``
        relative to its value (Alg. 1 "quit if the objective value is convergent").
    mkl_tol : float, default=1e-6
        Relative duality gap to which each master problem is solved.
    n_bins : int, default=10
        Bins per continuous feature for ``corr="su"``.
    include_affiliated : bool, default=False
        When True, ``get_support``/``transform`` keep the affiliated features as well as
        the support features.
    block_size : int or None, default=None
        Features per block of the score and group-completion scans (and per Dask task);
        None uses 16384 (out-of-core input: ``2**24 // n_samples``, at least 256, i.e.
        about 128 MB of float64 per block). Results do not depend on it, except
        ``n_correlations_``'s window bookkeeping.
    positive : object or None, default=None
        The class to separate from the others, compared with the values of ``y`` as
        given to ``fit``. With more than two classes, GDM runs one vs rest: samples of
        class ``positive`` are the +1 class, all others -1 (fitting on
        ``np.where(y == positive, 1, -1)`` gives the same model). With two classes it
        picks which one is the +1 class. None: two classes -> the larger label
        (``np.unique(y)[1]``) is the +1 class; more classes -> multiclass GDM (all classes
        at once, see ``fit``). Ignored when ``one_class=True``; a value that is not a label
        of ``y`` raises ValueError, and so does any value with a continuous ``y``.

    Attributes
    ----------
    support_ : ndarray of int
        Support feature indices, in the order they were found.
    groups_ : dict of int -> ndarray of int
        For each SF, its affiliated features ordered by decreasing ``|corr|``.
    group_corr_ : dict of int -> ndarray of float
        For each SF, the correlation of each of its affiliated features with it, in the
        same order as ``groups_[sf]`` (decreasing, ties by feature index): the absolute
        Pearson correlation ``|rho|`` on all training samples for ``corr="pearson"`` (the
        sign is not kept; equal to ``abs(np.corrcoef(X[:, af], X[:, sf])[0, 1])`` up to
        rounding), the symmetrical uncertainty of the discretised features for
        ``corr="su"``. Every value is ``>= 1 - tau``; an SF without AFs maps to an empty
        array.
    scores_ : ndarray of shape (n_features,)
        ``|s_j|`` at the last iteration (0 for constant features); higher is better.
    coef_ : ndarray of shape (n_features,) or (n_classes, n_features)
        Weights of the learned decision function on the standardised (one-class: unit-norm)
        features; non-zero only for SFs. Multiclass: one row per class (its one-vs-rest
        decision function).
    intercept_ : float or ndarray of shape (n_classes,)
        ``-gamma`` for one-class (from the KKT conditions), the mean of ``y`` for regression,
        0 otherwise (zeros for multiclass).
    offset_ : float
        One-class only: the threshold ``gamma`` (scikit-learn's outlier-detector convention:
        ``decision_function = score_samples - offset_``).
    class_support_ : dict of label -> ndarray of int
        Multiclass only: for each class, the SFs with non-zero weight in that class's row of
        ``coef_``, by decreasing ``|coef_[k, j]|``. With kernel weights shared by all classes
        an SF of a kernel in use usually has a non-zero weight for every class; the order
        (and ``coef_`` itself) says how much each SF contributes to each class.
    target_type_ : str
        ``"binary"`` (two classes, or one vs rest with ``positive``), ``"multiclass"``,
        ``"continuous"`` (regression) or ``"one_class"``.
    mu_ : ndarray
        Kernel weights of the master problem, one per cutting-plane iteration.
    alpha_ : ndarray of shape (n_samples,) or (n_samples, n_classes)
        Dual variables of the final master problem: on the simplex (one simplex per class
        for multiclass); ``C`` times the residuals for regression.
    n_correlations_ : int
        Pairwise correlations (or SU values) actually computed, CRM and group completion.
    objective_history_ : ndarray
        Master objective ``theta_t = min_alpha max_{s<=t} g_s(alpha)`` after each iteration;
        non-decreasing (Theorem 2), within ``mkl_tol``.
    gap_history_ : ndarray
        Duality gap of each master solve.
    n_iter_ : int
        Cutting-plane iterations run.
    classes_ : ndarray of shape (2,) or (n_classes,)
        Not set for one-class or regression. Multiclass: all labels (``np.unique(y)``),
        ``predict`` returns the one with the largest decision value. Binary:
        ``classes_[1]`` is the +1 class, ``predict`` returns these values: ``np.unique(y)``
        without ``positive``; ``[other label, positive]`` with ``positive`` and two
        classes; ``[False, True]`` in one vs rest (more than two classes), ``True``
        meaning "predicted to be ``positive``".
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X has string feature names. Named columns are fitted in name order (a copy),
        so the result does not depend on the column order: ties go to the first name.

    References
    ----------
    .. [1] Zhai, Tan, Tsang & Ong, ICML 2012, Alg. 1-2 and Theorem 1.
    .. [2] Zhai, Ong & Tsang, IEEE TPAMI 38(12), 2016, eq. (4)-(12), Alg. 1-4.

    Examples
    --------
    >>> from fsviz.data import make_grouped_classification
    >>> from fsviz.select import GDM
    >>> X, y, truth = make_grouped_classification(n_samples=1000, n_features=1000, random_state=0)
    >>> gdm = GDM(tau=0.3, n_per_iter=5, max_iter=4).fit(X, y)
    >>> set(truth.support.tolist()) <= set(gdm.support_.tolist())
    True
    >>> sf = int(truth.support[0])
    >>> set(gdm.groups_[sf].tolist()) == set(truth.groups[sf].tolist())
    True
    >>> y3 = (X[:, truth.support[:2]] > 0) @ [1, 2]  # 4 classes -> multiclass GDM
    >>> GDM(n_per_iter=5, max_iter=2).fit(X, y3).coef_.shape
    (4, 1000)
    """

    _parameter_constraints: dict = {
        "tau": [Interval(Real, 0.0, 1.0, closed="left")],
        "n_per_iter": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "C": [Interval(Real, 0.0, None, closed="neither")],
        "corr": [StrOptions({"pearson", "su"})],
        "one_class": ["boolean"],
        "cv_folds": [Interval(Integral, 2, None, closed="left"), None],
        "random_state": ["random_state"],
        "tol": [Interval(Real, 0.0, None, closed="left")],
        "mkl_tol": [Interval(Real, 0.0, None, closed="neither")],
        "n_bins": [Interval(Integral, 2, None, closed="left")],
        "include_affiliated": ["boolean"],
        "block_size": [Interval(Integral, 1, None, closed="left"), None],
        "positive": "no_validation",
    }
    _parameter_ui: dict = {
        "tau": ParamUI(
            "tau",
            "Features with |corr| >= 1 - tau to a support feature join its group. The papers use "
            "tau in [0, 0.5]; larger values merge weakly correlated features.",
            step=0.01,
            practical=(0.0, 0.5),
        ),
        "n_per_iter": ParamUI("Support features per iteration (K_b)", step=1),
        "max_iter": ParamUI("Cutting-plane iterations (T)", step=1),
        "C": ParamUI("C (SVM regularisation)", "Larger C fits the training data more closely."),
        "corr": ParamUI("Correlation", "pearson: linear (with the Theorem 1 window); su: nonlinear."),
        "one_class": ParamUI("One-class (no labels)", "GDM-OC: runs without a target."),
        "cv_folds": ParamUI(
            "Embedded CV folds",
            "Embedded cross-validation (Alg. 4; the TPAMI paper uses V = 5); none: off.",
            step=1,
            practical=(2, 20),
        ),
    }

    def __init__(
        self,
        *,
        tau=0.3,
        n_per_iter=10,
        max_iter=10,
        C=1.0,
        corr="pearson",
        one_class=False,
        cv_folds=None,
        random_state=None,
        tol=1e-3,
        mkl_tol=1e-6,
        n_bins=10,
        include_affiliated=False,
        block_size=None,
        positive=None,
    ):
        self.tau = tau
        self.n_per_iter = n_per_iter
        self.max_iter = max_iter
        self.C = C
        self.corr = corr
        self.one_class = one_class
        self.cv_folds = cv_folds
        self.random_state = random_state
        self.tol = tol
        self.mkl_tol = mkl_tol
        self.n_bins = n_bins
        self.include_affiliated = include_affiliated
        self.block_size = block_size
        self.positive = positive

    # ------------------------------------------------------------------ sklearn plumbing
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.required = not bool(self.one_class)
        if not self.one_class:
            # binary and multiclass labels (continuous y: regression, outside the common checks)
            tags.classifier_tags = ClassifierTags(multi_class=True)
        return tags

    def _get_support_mask(self):
        check_is_fitted(self, "support_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.support_] = True
        if self.include_affiliated:
            for g in self.groups_.values():
                mask[g] = True
        return mask

    def _check_params(self, n_samples: int):
        self._validate_params()  # the declaration above, scikit-learn's own check
        if self.cv_folds is not None and self.cv_folds > n_samples:
            raise ValueError(
                f"GDM: 'cv_folds' must be at most n_samples ({n_samples}) so every fold has a "
                f"sample; got {self.cv_folds}. Use fewer folds or cv_folds=None."
            )
        return float(self.tau)

    # ------------------------------------------------------------------ fit
    def fit(self, X, y=None, client=None, progress=None):
        """Run the cutting plane, then complete the feature groups.

        Parameters
        ----------
        X : {array-like, sparse matrix, numpy.memmap, zarr.Array} of shape (n_samples, n_features)
            Training data; sparse input (CSR/CSC) stays sparse. Out of core: a
            ``numpy.memmap`` (e.g. ``np.load(path, mmap_mode="r")``, C or Fortran order,
            any numeric dtype) or a ``zarr.Array`` is never copied whole: it is validated
            (finite values) in the statistics pass and read one column block
            (``block_size`` features; default about 128 MB of float64) at a time; only the
            ``K_a`` support columns are gathered. With ``client``, the workers reopen the
            file themselves (a memmap is sent as its file name and geometry).
        y : array-like of shape (n_samples,)
            Dispatched by :func:`sklearn.utils.multiclass.type_of_target`:

            - ``"binary"``: two classes, the binary master problem (TPAMI eq. 6);
            - ``"multiclass"``: with ``positive``, one vs rest; without, *multiclass GDM*:
              one-vs-rest squared-hinge SVMs, one per class, sharing the kernel weights
              ``mu`` of eq. 6 (``1/2 (sum_t ||W_t||_F)^2`` over the class columns), and CRM
              scores ``s_j = sqrt(n) ||z_j' (A o Y)||`` over the class duals;
            - ``"continuous"``: regression, the squared loss in the same master problem
              (scores ``s_j = sqrt(n) z_j' alpha`` with ``alpha = C * residual``).

            Ignored (may be None) when ``one_class=True``.
        client : dask.distributed.Client or None, default=None
            When given, the score scans ``X' alpha~`` and the group-completion scan run on
            the cluster, split into feature blocks of ``block_size`` and merged exactly;
            the CRM walk and the master problem stay local (they touch ``K_a`` columns).
        progress : callable or None, default=None
            Progress report of the streamed passes over ``X``: called as
            ``progress(phase, blocks_done, n_blocks)`` after every column block of the
            statistics pass (out of core) and the group completion, and after every score
            scan (``phase`` ``"statistics"``, ``"score scan <k>"``, ``"group completion"``;
            on a cluster once per pass).

        Returns
        -------
        self : GDM
        """
        ooc = is_out_of_core(X)
        sums = None  # dense in memory: column sums etc. from the statistics pass
        if ooc:  # memmap / zarr: validated block by block in the statistics pass, never copied
            X, y = self._validate_out_of_core(X, y)
        elif self.one_class:
            X = validate_data(
                self,
                X,
                accept_sparse=("csr", "csc"),
                dtype=np.float64,
                ensure_min_samples=2,
                ensure_all_finite=False,
            )
        else:
            if y is None:
                raise ValueError(
                    "GDM requires y to be passed, but the target y is None: binary GDM "
                    "(one_class=False) needs labels. Pass y, or set one_class=True."
                )
            X, y = validate_data(
                self,
                X,
                y,
                accept_sparse=("csr", "csc"),
                dtype=np.float64,
                ensure_min_samples=2,
                ensure_all_finite=False,
            )
        canon = None if ooc else name_canon(getattr(self, "feature_names_in_", None))
        X = X if canon is None else take_columns(X, canon)
        if not self.one_class:
            self.target_type_ = self._target_type(y)
            if self.target_type_ == "multiclass":
                self.classes_ = np.unique(y)
            elif self.target_type_ == "binary":
                self.classes_, y_pos = self._binary_target(y)
        n, m = X.shape
        tau = self._check_params(n)
        loss, y_mean = "squared_hinge", 0.0
        if self.one_class:
            self.target_type_ = "one_class"
            y_pm = np.ones(n)
        elif self.target_type_ == "multiclass":  # one-vs-rest codes sharing the kernel weights
            y_pm = np.where(y[:, None] == self.classes_[None, :], 1.0, -1.0)
        elif self.target_type_ == "continuous":
            loss, y_mean = "squared", float(np.mean(y))
            y_pm = np.asarray(y, dtype=np.float64) - y_mean
        else:
            y_pm = np.where(y_pos, 1.0, -1.0)
        first_scan = None  # (v, X' v) of the cutting plane's first iteration, from the stats pass
        if not ooc:
            # in memory, validation's finiteness check is the statistics pass (_finite_stats):
            # X is read once for it, the power-of-two scaling, the moments and the first scan
            v0 = start_vector(y_pm, loss, float(self.C)) if self.cv_folds is None else None
            sums = _finite_stats(X, v0)
            if sums is None or not _moderate(sums[2]):
                X, sums = scale_extreme(X), None  # extreme values: moments of the scaled X below
            elif v0 is not None and v0.ndim == 1:
                first_scan = (v0, sums[3])
        if sp.issparse(X):
            X = X.tocsc()
            X.sort_indices()

        # out of core: blocks of ~128 MB of float64 by default (one read + one product each)
        # (a sparse source: the in-memory sparse path's blocks, so n_correlations_ matches it)
        dense_ooc = ooc and not getattr(X, "sparse", False)
        auto = max(256, min(_AUTO_BLOCK, 2**24 // max(n, 1))) if dense_ooc else _AUTO_BLOCK
        block = self.block_size or auto
        scanner = _Scanner(X, block, client, progress)
        if ooc:
            try:
                mean, norm, discrete = _source_moments(scanner, self.corr == "su")
            except BaseException:
                scanner.close()
                raise
        else:
            mean, norm = column_moments(X, sums=None if sums is None else sums[:2])
            discrete = self.corr == "su" and is_discrete(X)
        const = norm <= 0
        try:
            st = FitState(
                X=X,
                y=y_pm,
                mean=mean,
                safe=np.where(const, 1.0, norm),
                const=const,
                rawnorm=np.sqrt(norm**2 + n * mean**2) if self.one_class else None,
                thr=1.0 - tau if tau > 0 else np.inf,
                strategy="discrete" if discrete else "uniform",
                scanner=scanner,
                loss=loss,
                y_mean=y_mean,
                first_scan=first_scan,
            )
            rank = _MarginalRanking(self, st) if self.cv_folds is None else _FoldVoteRanking(self, st)
            # BLAS on the cores the load leaves free (_blas_threads): on a busy machine the
            # completion product spin-waits for a core with two threads and runs slower
            with _blas_threads():
                self._cutting_plane(st, rank)
                self._finish(st)
        finally:
            scanner.close()
        if canon is not None:
            _state.map_columns_back(self, canon)
        return self

    def _target_type(self, y) -> str:
        """``"binary"``, ``"multiclass"`` (all classes at once) or ``"continuous"`` (regression),
        by :func:`sklearn.utils.multiclass.type_of_target`; ``positive`` turns multiclass data
        into one vs rest (``"binary"``)."""
        kind = type_of_target(y, input_name="y")
        if kind == "continuous":
            if self.positive is not None:
                raise ValueError(
                    f"GDM: 'positive' applies to class labels, but y is continuous (regression); "
                    f"got positive={self.positive!r}. Leave positive=None for regression."
                )
            if not np.all(np.isfinite(y)):
                raise ValueError("GDM: 'y' must be finite for regression; got NaN or infinity.")
            return "continuous"
        check_classification_targets(y)  # "Unknown label type ..." for anything else
        if kind == "multiclass" and self.positive is None:
            return "multiclass"
        if kind in ("binary", "multiclass"):
            return "binary"
        raise ValueError(
            f"GDM: 'y' must be binary, multiclass or continuous (sklearn type_of_target); got {kind!r}."
        )

    def _validate_out_of_core(self, X, y):
        """Checks of ``validate_data`` for a memmap / zarr ``X`` without reading it.

        Shape, dtype and ``n_features_in_`` here; finiteness in the statistics pass.
        """
        src = make_source(X)
        validate_data(self, X, skip_check_array=True)
        n = src.shape[0]
        if n < 2:
            raise ValueError(f"GDM: 'X' must have at least 2 samples; got {n}.")
        if src.shape[1] < 1:
            raise ValueError(f"GDM: 'X' must have at least 1 feature; got shape {src.shape}.")
        if y is None:
            if not self.one_class:
                raise ValueError(
                    "GDM requires y to be passed, but the target y is None: binary GDM "
                    "(one_class=False) needs labels. Pass y, or set one_class=True."
                )
            return src, None
        y = column_or_1d(y, warn=True)
        if self.one_class:
            return src, y
        if y.dtype.kind == "f":
            assert_all_finite(y, input_name="y")
        if y.shape[0] != n:
            raise ValueError(f"GDM: 'y' must have one label per sample of X ({n}); got {y.shape[0]}.")
        return src, y

    def _binary_target(self, y):
        """``classes_`` and the boolean +1 mask of ``y``, applying ``positive`` (one vs rest)."""
        classes = np.unique(y)
        shown = f"{classes[:10].tolist()}{' ...' if classes.size > 10 else ''}"
        if classes.size < 2:
            raise ValueError(
                f"GDM: 'y' must have exactly 2 classes for binary GDM; got {classes.size} ({shown}). "
                "Use one_class=True for a single class."
            )
        if self.positive is None:  # two classes (more without positive: multiclass GDM)
            return classes, y == classes[1]
        hit = np.array([bool(c == self.positive) for c in classes])
        if not hit.any():
            raise ValueError(
                f"GDM: 'positive' must be one of the labels of y {shown}; got {self.positive!r}."
            )
        y_pos = y == classes[hit][0]
        if classes.size == 2:
            return np.array([classes[~hit][0], classes[hit][0]]), y_pos
        return np.array([False, True]), y_pos

    # ------------------------------------------------------------------ cutting plane
    def _cutting_plane(self, st, rank):
        """Alg. 1 (and, with the fold-vote ranking, Alg. 4): add ``delta^t`` until convergence.

        Each iteration asks ``rank`` for the walk order of the features under the current
        ``alpha~ = alpha * y`` -- marginal scores ``|s_j|`` (plain GDM) or votes of the V
        training splits (ECV) -- and lets one CRM walk over all data turn it into
        ``delta^t`` (new SFs and re-met ones; correlated candidates become AFs). Stops
        when ``delta^t`` is empty, the objective converges (``tol``) or after ``max_iter``.
        Fills the cutting-plane fields of ``st``.
        """
        K_b, T = int(self.n_per_iter), int(self.max_iter)
        sparse = use_sparse_sfs(st.X, st.n, K_b * T, self.corr, self.cv_folds is not None)
        sfs = _SFState(
            st.n,
            K_b * T,
            self.corr,
            sparse=sparse,
            capacity=st.X.nnz if sparse else 0,
            n_bins=int(self.n_bins),
        )
        st.raw = sfs.raw
        st.sparse_sfs = sfs.S
        if sparse and self.corr == "su":
            st.sf_codes = (sfs.codes, sfs.k, sfs.h)
        af_owner = np.full(st.m, -1, dtype=np.intp)
        alpha = start_alpha(st.y, st.loss, float(self.C))
        it = 0
        for it in range(1, T + 1):
            v = st.signed(alpha)
            window = theorem1_window(v, self.tau)
            r = rank(v, sfs.idx)
            st.n_corr += r.n_correlations
            if it == 1:
                st.first = (r.t, window)
            delta, _, af_f, af_o, _, nc = _crm_walk(
                st.X,
                None,
                st.mean,
                st.safe,
                r.key,
                r.t,
                r.candidates & (af_owner < 0),
                sfs,
                window,
                st.thr,
                K_b,
                self.n_bins,
                st.strategy,
            )
            st.n_corr += nc
            af_owner[af_f] = af_o
            if not delta:
                it -= 1
                break
            if st.sparse_sfs is not None:
                st.sf_pos = {j: k for k, j in enumerate(sfs.idx)}
            converged = self._add_constraint(st, delta)
            alpha = st.res.A.reshape(st.y.shape)
            if converged:
                break
        st.sf = list(sfs.idx)
        st.sf_pos = {j: k for k, j in enumerate(sfs.idx)}
        st.M = None  # rebuilt where needed (one-class threshold): the design can be large
        st.alpha = alpha
        st.n_iter = it

    def _add_constraint(self, st, delta) -> bool:
        """Add ``delta^t`` as a new base kernel, re-solve the master problem (Alg. 1, steps 3-4).

        Appends to ``st.cols``, ``st.kernel_of``, ``st.hist`` and ``st.gaps`` and replaces
        ``st.res``; returns whether the objective rose by less than ``tol`` (relative).
        """
        st.cols.extend(delta)
        st.kernel_of.extend([len(st.hist)] * len(delta))
        st.res = self._master(st, st.res)
        st.hist.append(st.res.objective)
        st.gaps.append(st.res.gap)
        hist = st.hist
        return len(hist) > 1 and hist[-1] - hist[-2] <= self.tol * abs(hist[-1])

    def _master(self, st, warm):
        if st.sparse_sfs is not None:  # sparse SFs: the whole design, sparse + rank one
            st.M = None
            st.M = self._model_columns(st, st.cols)
        else:
            self._extend_design(st)
        W0 = gamma0 = None
        if warm is not None:  # previous solution; the new kernel's rows start at 0 (inactive)
            W0 = np.zeros((st.M.shape[1], warm.W.shape[1]))
            W0[: warm.W.shape[0]] = warm.W
            gamma0 = warm.gamma
        return solve_master(
            st.M,
            st.y,
            np.asarray(st.kernel_of),
            float(self.C),
            loss=st.loss,
            tol=float(self.mkl_tol),
            W0=W0,
            gamma0=gamma0,
        )

    def _extend_design(self, st):
        # design matrix of all delta^t columns, extended by the new ones only
        cols = st.cols
        have = cols[: 0 if st.M is None else st.M.shape[1]]
        new_cols = cols[len(have) :]
        col_of = {c: i for i, c in enumerate(have)}
        fresh = sorted({c for c in new_cols if c not in col_of})
        M_fresh = self._model_columns(st, fresh) if fresh else None
        pos_fresh = {c: i for i, c in enumerate(fresh)}
        parts = [st.M] if st.M is not None else []
        for c in new_cols:
            parts.append(st.M[:, [col_of[c]]] if c in col_of else M_fresh[:, [pos_fresh[c]]])
        st.M = np.hstack(parts) if len(parts) > 1 else parts[0]

    # ------------------------------------------------------------------ helpers
    def _model_columns(self, st, idx):
        """Columns of the master problem's design: standardised (binary) or unit-norm (one-class)."""
        root_n = np.sqrt(st.n)
        if st.sparse_sfs is not None:  # M = S - 1 c' from the sparse SFs' raw non-zeros
            idx = np.asarray(idx, dtype=np.intp)
            pos = np.array([st.sf_pos[int(j)] for j in idx], dtype=np.intp)
            d = root_n / (st.rawnorm[idx] if self.one_class else st.safe[idx])
            csr = st.sparse_sfs.csr(pos, scale=d)
            c = None if self.one_class else st.mean[idx] * d
            return SparseDesign.from_csr(*csr, (st.n, idx.size), c)
        Xs = st.columns(idx)
        if self.one_class:
            return Xs * (root_n / st.rawnorm[idx])
        return (Xs - st.mean[idx]) * (root_n / st.safe[idx])

    def _finish(self, st):
        sf = np.asarray(st.sf, dtype=np.intp)
        alpha = st.alpha
        v = st.signed(alpha)
        u = st.scanner.dot(v)
        s, t = model_scores(st, u, v.sum(axis=0), st.mean, st.safe, st.const, st.rawnorm, self.one_class)
        # any vector gives a valid Theorem 1 window; take the cheaper of the first scan's
        # (marginal scores: informative SFs stand out) and the final one
        cands = [(t, theorem1_window(v, self.tau))] + ([st.first] if st.first is not None else [])
        t_win, w_win = min(cands, key=lambda tw: _window_cost(np.abs(tw[0]), ~st.const, sf, tw[1]))
        # only |t_win| is needed from here: drop the other length-m vectors before completion
        # (kdd2010: 29.9 M features, 240 MB each)
        abs_t = np.abs(t_win)
        del u, t, cands, t_win
        st.first = None
        groups, gcorr, nc = complete_groups(st, sf, abs_t, w_win, self.corr, self.n_bins)
        del abs_t
        res = st.res
        multi = st.y.ndim == 2
        coef = np.zeros((st.m, st.y.shape[1]) if multi else st.m)
        self.intercept_ = np.zeros(st.y.shape[1]) if multi else (st.y_mean if st.loss == "squared" else 0.0)
        if res is not None:
            cols = np.asarray(st.cols, dtype=np.intp)
            np.add.at(coef, cols, res.coef)  # a feature in several delta^t: weights add up
            if self.one_class:
                self.intercept_ = -_kkt_threshold(self._model_columns(st, cols), res, float(self.C))
            self.mu_ = res.mu
        else:
            self.mu_ = np.empty(0)
        if self.one_class:
            self.offset_ = -float(self.intercept_)
        self.support_ = sf
        self.groups_ = groups
        self.group_corr_ = gcorr
        self.scores_ = np.abs(s)
        self.coef_ = coef.T.copy() if multi else coef
        if multi:
            self.class_support_ = {}
            for k, cls in enumerate(self.classes_):
                w = np.abs(coef[sf, k])
                keep = np.flatnonzero(w > 0)
                self.class_support_[cls.item() if hasattr(cls, "item") else cls] = sf[
                    keep[np.argsort(-w[keep], kind="stable")]
                ]
        self.alpha_ = alpha
        self.n_correlations_ = int(st.n_corr + nc)
        self.objective_history_ = np.asarray(st.hist, dtype=np.float64)
        self.gap_history_ = np.asarray(st.gaps, dtype=np.float64)
        self.n_iter_ = int(st.n_iter)
        self._mean_sf = st.mean[sf]
        self._scale_sf = (st.rawnorm[sf] if self.one_class else st.safe[sf]) / np.sqrt(st.n)

    # ------------------------------------------------------------------ prediction
    def decision_function(self, X):
        """Decision values of the learned sparse SVM on the support features.

        Binary: ``f(x) = sum_j coef_j z_j(x)``, positive for ``classes_[1]``. One-class:
        ``f(x) = sum_j coef_j x_j / ||x_j|| - gamma``, non-negative for inliers.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "support_")
        sf = self.support_
        if is_out_of_core(X):  # read the support columns only
            src = make_source(X)
            validate_data(self, X, skip_check_array=True, reset=False)
            Xs = src.gather(sf) if sf.size else np.empty((src.shape[0], 0))
            assert_all_finite(Xs, input_name="X")
        else:
            X = validate_data(self, X, accept_sparse=("csr", "csc"), dtype=np.float64, reset=False)
            Xs = X[:, sf]
            Xs = Xs.toarray() if sp.issparse(Xs) else np.asarray(Xs)
        if sf.size == 0:
            if self.coef_.ndim == 2:
                return np.zeros((Xs.shape[0], self.coef_.shape[0]))
            return np.full(Xs.shape[0], self.intercept_)
        if self.one_class:
            M = Xs / self._scale_sf
        else:
            M = (Xs - self._mean_sf) / self._scale_sf
        if self.coef_.ndim == 2:  # multiclass: one column per class
            return M @ self.coef_[:, sf].T + self.intercept_
        return M @ self.coef_[sf] + self.intercept_

    @available_if(lambda self: bool(self.one_class))
    def score_samples(self, X):
        """One-class only: ``f(x) = sum_j coef_j x_j / ||x_j||``, higher for more normal samples.

        scikit-learn's outlier-detector convention (``OneClassSVM``, ``IsolationForest``):
        ``decision_function(X) = score_samples(X) - offset_``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "offset_")
        return self.decision_function(X) + self.offset_

    def predict(self, X):
        """Class labels (binary) or +1 inlier / -1 outlier (one-class).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        f = self.decision_function(X)
        if self.one_class:
            return np.where(f >= 0, 1, -1)
        if self.target_type_ == "continuous":
            return f
        if f.ndim == 2:
            return self.classes_[np.argmax(f, axis=1)]
        return self.classes_[(f > 0).astype(int)]


def _kkt_threshold(M, res, C) -> float:
    """gamma from the KKT conditions of the one-class master problem.

    For every sample with ``alpha_i > 0`` the squared-hinge KKT conditions give
    ``alpha_i = C xi_i = C (gamma - f(x_i))``, so ``gamma = f(x_i) + alpha_i / C``;
    averaged over those samples.
    """
    f = M @ res.coef
    on = res.alpha > 1e-12 * res.alpha.max()
    return float(np.mean(f[on] + res.alpha[on] / C))
