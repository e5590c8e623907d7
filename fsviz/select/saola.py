"""SAOLA and group-SAOLA: online feature selection by pairwise redundancy tests.

Features arrive one at a time (SAOLA, Alg. 1) or in groups (group-SAOLA, Alg. 2) and are
kept, dropped as irrelevant, or dropped as redundant to a feature already kept. The cost
per arriving feature is driven by the size of the current selected set, never by the
number of features seen so far, so the stream can be arbitrarily long.

References
----------
K. Yu, X. Wu, W. Ding, J. Pei, "Scalable and Accurate Online Feature Selection for Big
Data", ACM TKDD 11(2), 2016 (``saola-online-feature-selection.txt``): Alg. 1, eq. (23),
(25); Alg. 2; section 3.4.2 (Fisher's Z test for continuous data) and 3.4.3 (SU).
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from fsviz._dask import map_blocks
from fsviz._params import ParamUI
from fsviz.select import _saola_kernels as K
from fsviz.select._base import scale_extreme
from fsviz.select._relevance import RELEVANCE_BLOCK, codes_block, relevance_task, resolve_mode
from fsviz.select._subset_common import SelectedSubsetMixin, check_stream_y
from fsviz.select.saola_history import (
    OUTCOMES,
    HistoryLog,
    SaolaDecision,
    SelectionHistory,
    explain_decisions,
)
from fsviz.stats.information import column_entropies, encode_target
from fsviz.stats.tests import fisher_z_test

__all__ = [
    "OUTCOMES",
    "SAOLA",
    "GroupSAOLA",
    "SaolaDecision",
    "SelectionHistory",
    "explain_decisions",
    "random_feature_groups",
]


_BLOCK = 512  # relevant candidates per BLAS block (bounded memory: n x _BLOCK floats)


# --------------------------------------------------------------------------- history


# --------------------------------------------------------------------------- engine


class _Engine:
    """Relevance, feature storage and dependence for one data mode."""

    def __init__(self, mode: str, y: np.ndarray, n_bins: int):
        self.mode = mode
        self.n_bins = n_bins
        self.n = y.shape[0]
        if mode == "continuous":
            if y.dtype.kind in "biuf":
                yv = y.astype(np.float64)
            else:
                yv = encode_target(y)[0].astype(np.float64)
            yc = yv - yv.mean()
            self.target = (np.ascontiguousarray(yc), float(np.sqrt(yc @ yc)))
            self.measure = "|rho|"
        else:
            yk, ky = encode_target(y)
            self.target = (yk, ky)
            self.measure = "SU"

    # relevance -------------------------------------------------------------
    def relevance(self, X, client=None) -> np.ndarray:
        """Signed correlation (continuous) or SU (discrete) of every column with y."""
        m = X.shape[1]
        blocks = [X[:, s : s + RELEVANCE_BLOCK] for s in range(0, m, RELEVANCE_BLOCK)]
        parts = map_blocks(
            relevance_task,
            blocks,
            client=client,
            shared=(self.target,),
            kwargs={"mode": self.mode, "n_bins": self.n_bins},
        )
        return np.concatenate(parts) if parts else np.empty(0)

    def decide_relevant(self, r: np.ndarray, alpha: float, delta: float):
        """(relevance, p_value, relevant mask) from :meth:`relevance` output."""
        if self.mode == "continuous":
            p = fisher_z_test(r, self.n) if r.size else np.empty(0)
            p = np.where(r == 0.0, 1.0, p)
            return np.abs(r), p, p <= alpha
        return r, np.full(r.shape, np.nan), r > delta

    # feature storage -------------------------------------------------------
    def store(self, X) -> tuple:
        """What the pairwise tests need of some columns: unit-norm centred columns
        (continuous) or codes, levels and entropies (discrete)."""
        if self.mode == "continuous":
            Z = X.toarray() if sp.issparse(X) else np.array(X, dtype=np.float64)
            Z = np.asarray(Z, dtype=np.float64)
            Z -= Z.mean(axis=0)
            nrm = np.sqrt(np.einsum("ij,ij->j", Z, Z))
            Z /= np.where(nrm > 0, nrm, 1.0)
            return (np.asfortranarray(Z),)
        codes, k = codes_block(X, self.n_bins)
        h = column_entropies(codes, k) if codes.shape[1] else np.empty(0)
        return (codes, k, h)

    def empty(self) -> tuple:
        if self.mode == "continuous":
            return (np.empty((self.n, 0), order="F"),)
        return (np.empty((self.n, 0), dtype=np.int32, order="F"), np.empty(0, dtype=np.int64), np.empty(0))

    @staticmethod
    def take(st: tuple, mask) -> tuple:
        return tuple(np.asfortranarray(a[:, mask]) if a.ndim == 2 else a[mask] for a in st)

    @staticmethod
    def concat(a: tuple, b: tuple) -> tuple:
        return tuple(
            np.asfortranarray(np.hstack([u, v])) if u.ndim == 2 else np.concatenate([u, v])
            for u, v in zip(a, b, strict=False)
        )

    def dep(self, A: tuple, B: tuple) -> np.ndarray:
        """|rho| or SU between the columns of two stores -> (a, b)."""
        if self.mode == "continuous":
            D = A[0].T @ B[0]
            np.abs(D, out=D)
            np.minimum(D, 1.0, out=D)
            return D
        if A[0].shape[1] == 0 or B[0].shape[1] == 0:
            return np.zeros((A[0].shape[1], B[0].shape[1]))
        return K.su_matrix(A[0].T, A[1], A[2], B[0].T, B[1], B[2])  # a feature per row


#: SAOLA's and group-SAOLA's one declaration of their parameters (checked by scikit-learn)
_SAOLA_CONSTRAINTS: dict = {
    "alpha": [Interval(Real, 0.0, 1.0, closed="neither")],
    "delta": [Interval(Real, 0.0, 1.0, closed="left")],
    "data": [StrOptions({"auto", "continuous", "discrete"})],
    "n_bins": [Interval(Integral, 2, None, closed="left")],
}
_SAOLA_UI: dict = {
    "alpha": ParamUI("alpha (Fisher's Z / G² significance)", step=0.001, practical=(1e-6, 0.5)),
    "delta": ParamUI("delta (relevance threshold, SU)", step=0.01, practical=(0.0, 0.99)),
    "data": ParamUI("data", "discrete: SU tests (class labels); continuous: Fisher's Z tests."),
}


# --------------------------------------------------------------------------- SAOLA
class SAOLA(SelectedSubsetMixin, SelectorMixin, BaseEstimator):
    """Scalable and Accurate OnLine Approach for feature selection (Alg. 1).

    Features are consumed in column order. Each arriving feature F is dropped as
    irrelevant when it is independent of the target C (discrete data:
    ``SU(F, C) <= delta``; continuous data: Fisher's Z test of ``rho(F, C) = 0`` gives
    a p-value above ``alpha``). Otherwise it is compared with every feature Y of the
    current selected set, in their arrival order: F is dropped as redundant when Y is
    at least as relevant and ``dep(F, Y) >= rel(F)`` (eq. 23, step 11); F removes Y
    when F is more relevant and ``dep(F, Y) >= rel(Y)`` (eq. 25, step 16). ``dep``
    and ``rel`` are SU for discrete data and |rho| for continuous data.

    Parameters
    ----------
    alpha : float, default=0.01
        Significance level of Fisher's Z relevance test (continuous data).
    delta : float, default=0.0
        Relevance threshold on SU(F, C) in [0, 1) (discrete data).
    data : {"auto", "continuous", "discrete"}, default="auto"
        Which tests to run; "auto" chooses "discrete" when every value is an integer
        with fewer than 32 levels per column (decided on the data of ``fit`` or of the
        first ``partial_fit`` call).
    n_bins : int, default=10
        Equal-width bins for non-integral columns in discrete mode.

    Attributes
    ----------
    selected_ : ndarray of int
        Indices of the selected features, in arrival order.
    scores_ : ndarray of shape (n_features_in_,)
        Relevance to the target of every feature (SU or |rho|; 0 for constant
        features). Higher is better; the selection itself is ``selected_``.
    history_ : SelectionHistory
        One record per arriving feature: irrelevant / redundant (with which feature,
        by how much) / admitted (and which features it removed, and whether it was
        itself removed later). ``history_.to_frame()`` gives a DataFrame and
        ``history_.explain(j)`` a sentence.
    data_ : str
        The mode used, "continuous" or "discrete".
    n_features_in_ : int
        Number of features streamed so far.
    feature_names_in_ : ndarray of str
        Only when ``fit`` got a DataFrame with string column names.

    Notes
    -----
    Order: the column order of ``X`` is the stream (the order features arrive in), so SAOLA
    is order-dependent by definition: permuting the columns can change what is selected, as
    it can for every online method (Alg. 1 decides on each feature once, given those that
    came before). The offline methods (GDM, GRM, the scorers) give one answer whatever the
    column order.

    Ties: Alg. 1 uses strict inequalities between relevances, which keeps every exact
    duplicate of a selected feature. Here a feature that arrived earlier counts as the
    stronger one when relevances are exactly equal (Lemma 3, case 1: such features can
    replace each other), so a later exact copy is dropped as redundant. Otherwise the
    decisions are those of Alg. 1, including its sequential semantics: features that F
    removed before a later Y made F redundant stay removed.

    For continuous data the relevance test uses |rho(F, C)| with C's numeric values
    (label codes for non-numeric labels), as the paper's implementation does.

    A continuous target C (``type_of_target(y) == "continuous"``, a regression target)
    always takes this continuous path, whatever the features look like: Fisher's Z
    test of ``rho(F, C) = 0`` for relevance and ``|rho|`` comparisons for redundancy
    (section 3.4.2); ``data="discrete"`` is refused for it (SU would read every
    distinct target value as a class). Class labels keep the path chosen by ``data``.

    The work is vectorised per block of arriving relevant features: one matrix product
    against the selected set and one within the block, then a compiled sequential pass
    reproducing Alg. 1's order exactly, so the result does not depend on how
    ``partial_fit`` chunks the stream (up to floating-point rounding of correlations).

    References
    ----------
    K. Yu, X. Wu, W. Ding, J. Pei. Scalable and Accurate Online Feature Selection for
    Big Data. ACM TKDD 11(2), 2016. Alg. 1, eq. (2), (23), (25), section 3.4.2.

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import SAOLA
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 50)); y = (X[:, 3] + 0.5 * X[:, 7] > 0).astype(int)
    >>> X[:, 20] = X[:, 3] + 0.01 * rng.normal(size=300)   # a later near-copy
    >>> sel = SAOLA().fit(X, y)
    >>> 3 in sel.selected_ or 20 in sel.selected_
    True
    """

    _parameter_constraints: dict = _SAOLA_CONSTRAINTS
    _parameter_ui: dict = _SAOLA_UI

    def __init__(self, *, alpha: float = 0.01, delta: float = 0.0, data: str = "auto", n_bins: int = 10):
        self.alpha = alpha
        self.delta = delta
        self.data = data
        self.n_bins = n_bins

    # -- public API ----------------------------------------------------------
    def fit(self, X, y, client: Any = None) -> SAOLA:
        """Stream all columns of ``X`` in order.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        client : dask.distributed.Client, optional
            Compute the relevance of every feature to ``y`` on the cluster, by blocks of
            columns, merged in order (identical to the local result).

        Returns
        -------
        self
        """
        self._validate_params()
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
        y = check_stream_y(y, X.shape[0], "SAOLA")
        self._start(X, y)
        r = self._engine.relevance(X, client=client)
        self._consume(X, r)
        return self

    def partial_fit(self, X, y) -> SAOLA:
        """Consume newly arriving feature columns (same samples, same ``y`` every call).

        Feature indices continue from the features seen before.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_new_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        self._validate_params()
        X = check_array(
            X, accept_sparse=("csc", "csr"), dtype=np.float64, ensure_all_finite=True, ensure_min_features=1
        )
        if sp.issparse(X):
            X = X.tocsc()
        if not hasattr(self, "_engine"):
            y = check_stream_y(y, X.shape[0], "SAOLA.partial_fit")
            self._start(X, y)
        else:
            y = np.asarray(y).ravel()
            if (
                X.shape[0] != self._engine.n
                or y.shape[0] != self._y.shape[0]
                or not np.array_equal(y, self._y)
            ):
                raise ValueError(
                    "SAOLA.partial_fit: every call must bring new feature columns for the same samples "
                    f"and the same y ({self._engine.n} samples); got "
                    f"X with {X.shape[0]} rows and a different y. "
                    "Call fit() to start a new stream."
                )
        self._consume(X, self._engine.relevance(X))
        return self

    @property
    def history_(self) -> SelectionHistory:
        check_is_fitted(self, "selected_")
        if self._hist_cache is None:
            self._hist_cache = self._log.build(self.selected_, self._engine.measure)
        return self._hist_cache

    # -- internals -----------------------------------------------------------
    def _start(self, X, y) -> None:
        self.data_ = resolve_mode(self.data, X, y, "SAOLA")
        self._engine = _Engine(self.data_, y, int(self.n_bins))
        self._y = y
        self._log = HistoryLog()
        self._S = self._engine.empty()
        self._S_idx = np.empty(0, dtype=np.int64)
        self._S_rel = np.empty(0)
        self._rel_parts: list[np.ndarray] = []
        self._hist_cache = None
        self.n_features_in_ = 0
        self.selected_ = self._S_idx

    def _consume(self, X, r: np.ndarray) -> None:
        eng = self._engine
        b_all = X.shape[1]
        off = self.n_features_in_
        rel, pval, relevant = eng.decide_relevant(r, float(self.alpha), float(self.delta))
        dec = np.where(relevant, K.DEC_PENDING, K.DEC_IRRELEVANT).astype(np.int8)
        red = np.full(b_all, -1, dtype=np.int64)
        pair = np.full(b_all, np.nan)
        cand = np.flatnonzero(relevant)
        for s0 in range(0, cand.shape[0], _BLOCK):
            loc = cand[s0 : s0 + _BLOCK]
            C = eng.store(X[:, loc])
            relC = np.ascontiguousarray(rel[loc])
            b = loc.shape[0]
            s = self._S_idx.shape[0]
            aliveS = np.ones(s, dtype=np.bool_)
            d = np.zeros(b, dtype=np.int8)
            rw = np.full(b, -1, dtype=np.int64)
            pv = np.full(b, np.nan)
            rbS = np.full(s, -1, dtype=np.int64)
            rbC = np.full(b, -1, dtype=np.int64)
            if eng.mode == "continuous":
                C1 = eng.dep(self._S, C) if s else np.zeros((0, b))
                C2 = eng.dep(C, C)
                aliveC = K.saola_block_dense(self._S_rel, aliveS, relC, C1, C2, d, rw, pv, rbS, rbC)
            else:
                aliveC = K.saola_block_discrete(  # the codes with a feature per row
                    self._S[0].T,
                    self._S[1],
                    self._S[2],
                    self._S_rel,
                    aliveS,
                    C[0].T,
                    C[1],
                    C[2],
                    relC,
                    d,
                    rw,
                    pv,
                    rbS,
                    rbC,
                )
            gidx = loc + off
            # map local indices to stream indices
            both = np.concatenate([self._S_idx, gidx])
            dec[loc] = d
            hit = rw >= 0
            red[loc[hit]] = both[rw[hit]]
            pair[loc] = pv
            self._log.remove(self._S_idx[rbS >= 0], gidx[rbS[rbS >= 0]])
            self._log.remove(gidx[rbC >= 0], gidx[rbC[rbC >= 0]])
            self._S = eng.concat(eng.take(self._S, aliveS), eng.take(C, aliveC))
            self._S_idx = np.concatenate([self._S_idx[aliveS], gidx[aliveC]])
            self._S_rel = np.ascontiguousarray(np.concatenate([self._S_rel[aliveS], relC[aliveC]]))
        self._log.add(rel, pval, dec, red, pair, np.full(b_all, -1, dtype=np.int64))
        self._rel_parts.append(rel)
        self.n_features_in_ = off + b_all
        self.selected_ = self._S_idx.copy()
        self.scores_ = np.concatenate(self._rel_parts)
        self._hist_cache = None


# --------------------------------------------------------------------------- group-SAOLA
def random_feature_groups(n_features: int, n_groups: int, random_state=None) -> list[np.ndarray]:
    """Random partition of ``range(n_features)`` into ``n_groups`` non-overlapping groups.

    As in the SAOLA paper's group experiments (section 5.6: 100 groups for data sets up
    to 10^5 features, 10,000 for larger ones). Groups differ in size by at most one and
    list their features in increasing order.

    Parameters
    ----------
    n_features : int
    n_groups : int
        In [1, n_features].
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    list of ndarray of int
    """
    if not isinstance(n_features, Integral) or n_features < 1:
        raise ValueError(f"random_feature_groups: 'n_features' must be a positive int; got {n_features!r}.")
    if not isinstance(n_groups, Integral) or not 1 <= n_groups <= n_features:
        raise ValueError(
            f"random_feature_groups: 'n_groups' must be an int in [1, {n_features}]; got {n_groups!r}."
        )
    rng = check_random_state(random_state)
    perm = rng.permutation(n_features)
    return [np.sort(g) for g in np.array_split(perm, n_groups)]


def _normalize_groups(groups, m: int) -> tuple[list[np.ndarray], list]:
    """-> (list of index arrays in stream order, their ids)."""
    if groups is None:
        raise ValueError(
            "GroupSAOLA.fit: 'groups' is required: a list of feature-index arrays or one label per feature."
        )
    seq = list(groups) if not isinstance(groups, np.ndarray) or groups.ndim == 1 else None
    is_labels = (
        isinstance(groups, np.ndarray)
        and groups.ndim == 1
        or (seq is not None and len(seq) > 0 and all(np.ndim(g) == 0 for g in seq))
    )
    if is_labels:
        lab = np.asarray(groups)
        if lab.shape[0] != m:
            raise ValueError(
                f"GroupSAOLA.fit: 'groups' given as one label per feature must have {m} entries; "
                f"got {lab.shape[0]}."
            )
        _, first, inv = np.unique(lab, return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")  # groups arrive in order of first appearance
        members = np.argsort(inv, kind="stable")
        bounds = np.cumsum(np.bincount(inv, minlength=first.shape[0]))[:-1]
        by_label = np.split(members, bounds)
        return [by_label[g] for g in order], [lab[first[g]].item() for g in order]
    if seq is None or len(seq) == 0:
        raise ValueError(
            "GroupSAOLA.fit: 'groups' must be a non-empty list of feature-index arrays or one "
            f"label per feature; got {type(groups).__name__}."
        )
    out = []
    seen = np.zeros(m, dtype=bool)
    for gi, g in enumerate(seq):
        g = np.asarray(g)
        if g.ndim != 1 or (g.size and g.dtype.kind not in "iu"):
            raise ValueError(
                f"GroupSAOLA.fit: group {gi} must be a 1-D array of feature indices; got {g!r:.60}."
            )
        g = g.astype(np.int64)
        if g.size and (g.min() < 0 or g.max() >= m):
            raise ValueError(
                f"GroupSAOLA.fit: group {gi} has indices outside [0, {m}); got min {g.min()}, max {g.max()}."
            )
        if np.any(seen[g]) or np.unique(g).shape[0] != g.shape[0]:
            raise ValueError(
                f"GroupSAOLA.fit: groups must not overlap (Alg. 2 assumes disjoint groups); group {gi} "
                "repeats a feature. Assign every feature to one group."
            )
        seen[g] = True
        out.append(g)
    return out, list(range(len(out)))


class GroupSAOLA(SelectedSubsetMixin, SelectorMixin, BaseEstimator):
    """Online group feature selection: group-SAOLA (Alg. 2).

    Groups arrive one at a time. A group whose features are all irrelevant is dropped
    (steps 5-8); inside a relevant group, individually irrelevant features are dropped
    as in SAOLA's step 5, then redundant ones by pairwise comparisons within the group
    (steps 10-19); finally the group's survivors are compared with the features of the
    groups selected so far, in their order, each side removing the other's dominated
    features (steps 21-35). Groups left empty disappear.

    Parameters
    ----------
    alpha, delta, data, n_bins
        As for :class:`SAOLA`.

    Attributes
    ----------
    selected_groups_ : list of ndarray of int
        The selected groups, each as the array of its surviving features, in arrival order.
    selected_group_ids_ : list
        Id of each selected group: its position in ``groups`` (list input) or its label
        (label input).
    selected_ : ndarray of int
        All selected features (concatenation of ``selected_groups_``).
    scores_ : ndarray of shape (n_features_in_,)
        Relevance of every feature to the target (SU or |rho|).
    history_ : SelectionHistory
        One record per feature, with ``group`` = position of its group in the stream.
    data_ : str
    n_features_in_ : int

    Notes
    -----
    Order: the groups arrive in the order given and the features of a group in their column
    order, so group-SAOLA is order-dependent by definition (the order is the stream), as SAOLA.

    Ties in relevance go to the feature that arrived first (the earlier group, or the
    earlier position within a group), so of several identical groups at most one is kept.
    Step 16 of Alg. 2 is applied to every present Y of the group, step 22/26 to every pair
    (F_k in a selected group, F_i in the new group) in order.

    References
    ----------
    K. Yu, X. Wu, W. Ding, J. Pei. Scalable and Accurate Online Feature Selection for
    Big Data. ACM TKDD 11(2), 2016. Alg. 2, Definitions 4.1-4.3.

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import GroupSAOLA
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 30)); y = (X[:, 0] - X[:, 12] > 0).astype(int)
    >>> gs = GroupSAOLA().fit(X, y, groups=np.arange(30) // 10)
    >>> len(gs.selected_groups_) >= 1
    True
    """

    _parameter_constraints: dict = _SAOLA_CONSTRAINTS
    _parameter_ui: dict = _SAOLA_UI

    def __init__(self, *, alpha: float = 0.01, delta: float = 0.0, data: str = "auto", n_bins: int = 10):
        self.alpha = alpha
        self.delta = delta
        self.data = data
        self.n_bins = n_bins

    def fit(self, X, y, groups=None) -> GroupSAOLA:
        """Stream the groups of ``X`` in order.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        groups : list of array-like of int, or array-like of shape (n_features,)
            Either disjoint lists of feature indices (streamed in list order; features
            in no group are recorded as "ungrouped") or one group label per feature
            (groups streamed in order of first appearance). See
            :func:`random_feature_groups` for the paper's random partitions.

        Returns
        -------
        self
        """
        self._validate_params()
        X, y = validate_data(
            self, X, y, accept_sparse=("csc", "csr"), dtype=np.float64, ensure_all_finite=True
        )
        if sp.issparse(X):
            X = X.tocsc()
        X = scale_extreme(X)
        y = check_stream_y(y, X.shape[0], "GroupSAOLA")
        m = X.shape[1]
        glist, gids = _normalize_groups(groups, m)
        self.data_ = resolve_mode(self.data, X, y, "GroupSAOLA")
        eng = _Engine(self.data_, y, int(self.n_bins))
        rel, pval, relevant = eng.decide_relevant(eng.relevance(X), float(self.alpha), float(self.delta))
        dec = np.full(m, K.DEC_UNGROUPED, dtype=np.int8)
        red = np.full(m, -1, dtype=np.int64)
        pair = np.full(m, np.nan)
        grp = np.full(m, -1, dtype=np.int64)
        removed_by = np.full(m, -1, dtype=np.int64)
        S = eng.empty()
        S_idx = np.empty(0, dtype=np.int64)
        S_grp = np.empty(0, dtype=np.int64)
        for gpos, g in enumerate(glist):
            grp[g] = gpos
            dec[g] = K.DEC_IRRELEVANT
            gr = g[relevant[g]]
            if gr.shape[0] == 0:  # steps 5-8: irrelevant group
                continue
            relG = np.ascontiguousarray(rel[gr])
            G = eng.store(X[:, gr])
            aliveG = np.ones(gr.shape[0], dtype=np.bool_)
            d = np.full(gr.shape[0], K.DEC_PENDING, dtype=np.int8)
            rw = np.full(gr.shape[0], -1, dtype=np.int64)
            pv = np.full(gr.shape[0], np.nan)
            K.group_intra(relG, gr, eng.dep(G, G), aliveG, d, rw, pv)
            intra = rw >= 0
            red[gr[intra]] = gr[rw[intra]]
            s = S_idx.shape[0]
            aliveS = np.ones(s, dtype=np.bool_)
            rbS = np.full(s, -1, dtype=np.int64)
            rw2 = np.full(gr.shape[0], -1, dtype=np.int64)
            if s and aliveG.any():
                C = eng.dep(S, G)
                K.group_inter(
                    np.ascontiguousarray(rel[S_idx]), S_idx, aliveS, relG, gr, aliveG, C, d, rw2, pv, rbS
                )
                inter = rw2 >= 0
                red[gr[inter]] = S_idx[rw2[inter]]
                removed_by[S_idx[rbS >= 0]] = gr[rbS[rbS >= 0]]
            d[aliveG] = K.DEC_ADMITTED
            dec[gr] = d
            pair[gr] = pv
            S = eng.concat(eng.take(S, aliveS), eng.take(G, aliveG))
            S_idx = np.concatenate([S_idx[aliveS], gr[aliveG]])
            S_grp = np.concatenate([S_grp[aliveS], np.full(int(aliveG.sum()), gpos, dtype=np.int64)])
        order = list(dict.fromkeys(S_grp.tolist()))  # selected groups in arrival order
        self.selected_groups_ = [S_idx[S_grp == gpos] for gpos in order]
        self.selected_group_ids_ = [gids[gpos] for gpos in order]
        self.selected_ = S_idx.copy()
        self.scores_ = rel
        self.n_features_in_ = m
        log = HistoryLog()
        log.add(rel, pval, dec, red, pair, grp)
        has = removed_by >= 0
        log.remove(np.flatnonzero(has), removed_by[has])
        streamed = np.concatenate(glist) if len(glist) else np.empty(0, dtype=np.int64)
        arrival = np.concatenate([streamed, np.setdiff1d(np.arange(m), streamed)])  # ungrouped last
        self.history_ = log.build(self.selected_, eng.measure, arrival)
        return self
