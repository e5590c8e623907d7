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

from collections.abc import Iterator
from dataclasses import dataclass
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
from fsviz._targets import target_kind
from fsviz.select import _saola_kernels as K
from fsviz.select._base import scale_extreme
from fsviz.select._subset_common import SelectedSubsetMixin, check_stream_y
from fsviz.stats import _info_kernels as IK
from fsviz.stats.information import Codes, encode_target, is_discrete, su_with_target
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

#: Final outcome of an arriving feature (:meth:`SelectionHistory.outcomes`).
OUTCOMES = ("selected", "irrelevant", "redundant", "removed", "ungrouped")

_DECISION_NAMES = {
    K.DEC_PENDING: "pending",
    K.DEC_IRRELEVANT: "irrelevant",
    K.DEC_REDUNDANT: "redundant",
    K.DEC_ADMITTED: "admitted",
    K.DEC_INTRA: "intra_redundant",
    K.DEC_INTER: "inter_redundant",
    K.DEC_UNGROUPED: "ungrouped",
}
_BLOCK = 512  # relevant candidates per BLAS block (bounded memory: n x _BLOCK floats)
_RELEVANCE_BLOCK = 4096  # columns per relevance task (the same blocks locally and on Dask)


# --------------------------------------------------------------------------- history
@dataclass(frozen=True)
class SaolaDecision:
    """What happened to one arriving feature.

    Attributes
    ----------
    feature : int
        Column index in the stream (0-based, continuing across ``partial_fit`` calls).
    decision : str
        ``"irrelevant"`` (eq. 2 / step 5), ``"redundant"`` (eq. 23 / step 11),
        ``"admitted"``; for group-SAOLA also ``"intra_redundant"``,
        ``"inter_redundant"`` and ``"ungrouped"``.
    relevance : float
        SU(F, C) for discrete data, |rho(F, C)| for continuous data.
    p_value : float
        Fisher's Z p-value of the relevance test (continuous data); NaN for discrete data.
    redundant_with : int
        The kept feature that made this one redundant, or -1.
    pair_value : float
        SU or |rho| between this feature and ``redundant_with`` (NaN if none).
    removed : tuple of int
        Features this one removed from the selected set when it arrived (eq. 25 / step 16).
    removed_by : int
        The later feature that removed this one after it was admitted, or -1.
    selected : bool
        Whether the feature is in the final selection.
    group : int
        Group-SAOLA: position of the feature's group in the stream; -1 for SAOLA.
    """

    feature: int
    decision: str
    relevance: float
    p_value: float
    redundant_with: int
    pair_value: float
    removed: tuple
    removed_by: int
    selected: bool
    group: int = -1

    def explain(self, measure: str = "dep") -> str:
        """One sentence saying why the feature was kept or dropped (see :func:`explain_decisions`)."""
        removed = _removed_text(1, np.zeros(len(self.removed), dtype=np.int64), self.removed)
        return str(
            explain_decisions(
                [self.feature],
                [self.decision],
                [self.relevance],
                [self.p_value],
                [self.redundant_with],
                [self.pair_value],
                [self.removed_by],
                removed,
                measure,
            )[0]
        )


_STR = np.dtypes.StringDType()
_REDUNDANT_WHERE = {
    "redundant": "",
    "intra_redundant": " within its group",
    "inter_redundant": " to a previously selected group",
}


def _g(fmt: str, x) -> np.ndarray:
    """``fmt % x`` for every float of ``x`` (``'%.4g' % x == f'{x:.4g}'``)."""
    return np.strings.mod(fmt, np.asarray(x, dtype=np.float64)).astype(_STR)


def _removed_text(n_rows: int, owner, items) -> np.ndarray:
    """Per row ``"[a, b, ...]"`` of the ``items`` owned by it (in the given order), else ``""``.

    Vectorised over the items; the only loop runs over the position within a row's list
    (as long as the longest list), never over rows.
    """
    owner = np.asarray(owner, dtype=np.int64)
    items = np.asarray(items, dtype=np.int64)
    text = np.full(n_rows, "", dtype=_STR)
    if owner.size == 0:
        return text
    o = np.argsort(owner, kind="stable")
    owner, items = owner[o], items[o]
    first = np.r_[True, owner[1:] != owner[:-1]]
    rank = np.arange(owner.size) - np.flatnonzero(first)[np.cumsum(first) - 1]
    for k in range(int(rank.max()) + 1):
        at = rank == k
        rows = owner[at]
        text[rows] = np.strings.add(np.strings.add(text[rows], ", " if k else "["), items[at].astype(_STR))
    rows = owner[first]
    text[rows] = np.strings.add(text[rows], "]")
    return text


def explain_decisions(
    feature, decision, relevance, p_value, redundant_with, pair_value, removed_by, removed, measure="dep"
) -> np.ndarray:
    """Why each feature was kept or dropped, one sentence per row (the one rule behind ``explain``).

    Every argument is an array with one entry per row, as in :class:`SelectionHistory`;
    ``removed`` holds the text ``"[a, b]"`` of the features each row removed on arrival
    (``""`` if none). Built with numpy string operations, no Python loop over rows.

    Returns
    -------
    ndarray of StringDType, one sentence per row, e.g.
    ``"feature 9: dropped as redundant with feature 2 (SU(F, Y) = 0.91 >= SU(F, C) = 0.87,
    and Y is at least as relevant)."``
    """
    dec = np.asarray(decision, dtype=object).astype(_STR)
    n = dec.shape[0]
    head = np.strings.add(np.strings.add("feature ", np.asarray(feature, dtype=np.int64).astype(_STR)), ": ")
    rel = _g("%.4g", relevance)
    pval = np.asarray(p_value, dtype=np.float64)
    m = str(measure)
    out = np.full(n, "", dtype=_STR)

    irr = dec == "irrelevant"
    if irr.any():
        extra = np.where(np.isfinite(pval[irr]), np.strings.add(", p = ", _g("%.3g", pval[irr])), "").astype(
            _STR
        )
        out[irr] = np.strings.add(
            np.strings.add(f"dropped as irrelevant to the target ({m}(F, C) = ", rel[irr]),
            np.strings.add(extra, ")."),
        )
    ung = dec == "ungrouped"
    out[ung] = "not in any group, never streamed."
    red = np.isin(dec, list(_REDUNDANT_WHERE))
    if red.any():
        where = np.select([dec[red] == k for k in _REDUNDANT_WHERE], list(_REDUNDANT_WHERE.values()), "")
        parts = [
            "dropped as redundant",
            where.astype(_STR),
            " with feature ",
            np.asarray(redundant_with, dtype=np.int64)[red].astype(_STR),
            f" ({m}(F, Y) = ",
            _g("%.4g", np.asarray(pair_value, dtype=np.float64)[red]),
            f" >= {m}(F, C) = ",
            rel[red],
            ", and Y is at least as relevant).",
        ]
        acc = parts[0]
        for p in parts[1:]:
            acc = np.strings.add(acc, p)
        out[red] = acc
    adm = ~(irr | ung | red)
    if adm.any():
        rem = np.asarray(removed, dtype=_STR)[adm]
        rb = np.asarray(removed_by, dtype=np.int64)[adm]
        acc = np.strings.add(np.strings.add(f"admitted ({m}(F, C) = ", rel[adm]), ")")
        acc = np.strings.add(acc, np.where(rem != "", np.strings.add(", removing ", rem), "").astype(_STR))
        later = np.strings.add("; later removed as redundant by feature ", rb.astype(_STR))
        acc = np.strings.add(acc, np.where(rb >= 0, later, "").astype(_STR))
        out[adm] = np.strings.add(acc, ".")
    return np.strings.add(head, out)


@dataclass(frozen=True)
class SelectionHistory:
    """Columnar record of every arriving feature (row ``i`` is feature ``i``).

    ``len(history)``, ``history[i]`` (a :class:`SaolaDecision`), iteration and
    :meth:`to_frame` (a pandas DataFrame) are supported; the arrays are read-only.
    ``arrival`` lists the features in stream order (SAOLA: ``0, 1, ...``; group-SAOLA:
    group by group as given, the ungrouped features last).

    For tables of all features, :meth:`explanations`, :meth:`outcomes` and
    :meth:`set_sizes` are vectorised over the rows; :meth:`explain` is
    ``explanations([i])[0]``.
    """

    feature: np.ndarray
    decision: np.ndarray
    relevance: np.ndarray
    p_value: np.ndarray
    redundant_with: np.ndarray
    pair_value: np.ndarray
    removed_by: np.ndarray
    selected: np.ndarray
    group: np.ndarray
    measure: str = "dep"
    arrival: np.ndarray | None = None

    def __post_init__(self):
        if self.arrival is None:
            arrival = np.asarray(self.feature, dtype=np.int64).copy()
            arrival.setflags(write=False)
            object.__setattr__(self, "arrival", arrival)
        # remover -> removed features, built once (removals are few: at most one per admission)
        rm: dict = {}
        for j in np.flatnonzero(self.removed_by >= 0):
            rm.setdefault(int(self.removed_by[j]), []).append(int(self.feature[j]))
        object.__setattr__(self, "_removed", {k: tuple(v) for k, v in rm.items()})

    def __len__(self) -> int:
        return int(self.feature.shape[0])

    def removed(self, i: int) -> tuple:
        """Features removed from the selected set by feature ``i``."""
        return self._removed.get(int(self.feature[i]), ())

    def __getitem__(self, i: int) -> SaolaDecision:
        i = int(i)
        if i < 0:
            i += len(self)
        return SaolaDecision(
            int(self.feature[i]),
            str(self.decision[i]),
            float(self.relevance[i]),
            float(self.p_value[i]),
            int(self.redundant_with[i]),
            float(self.pair_value[i]),
            self.removed(i),
            int(self.removed_by[i]),
            bool(self.selected[i]),
            int(self.group[i]),
        )

    def __iter__(self) -> Iterator[SaolaDecision]:
        return (self[i] for i in range(len(self)))

    def explain(self, i: int) -> str:
        """Why feature ``i`` was kept or dropped, as a sentence (``explanations([i])[0]``)."""
        i = int(i)
        return str(self.explanations([i + len(self) if i < 0 else i])[0])

    def _rows(self, order, who: str) -> np.ndarray:
        n = len(self)
        if order is None:
            return np.asarray(self.arrival, dtype=np.int64)
        r = np.asarray(order)
        if r.ndim != 1 or (r.size and not np.issubdtype(r.dtype, np.integer)):
            raise ValueError(f"SelectionHistory.{who}: 'order' must be a 1-D array of feature indices.")
        r = r.astype(np.int64)
        if r.size and (r.min() < 0 or r.max() >= n):
            raise ValueError(
                f"SelectionHistory.{who}: 'order' must hold feature indices in [0, {n - 1}]; "
                f"got values from {r.min()} to {r.max()}."
            )
        return r

    def explanations(self, order=None) -> np.ndarray:
        """Why each feature was kept or dropped: :meth:`explain` for many features at once.

        Parameters
        ----------
        order : array-like of int or None, default=None
            Feature indices giving the rows (any subset, any order); ``None``: all
            features in stream order (:attr:`arrival`).

        Returns
        -------
        ndarray of str (``StringDType``) of shape (len(order),)
            ``explanations(order)[k] == explain(order[k])``; vectorised, no loop over features.
        """
        rows = self._rows(order, "explanations")
        n = len(self)
        has = self.removed_by >= 0  # remover row -> "[removed, ...]" (rows are feature indices)
        removed = _removed_text(n, self.removed_by[has], self.feature[has])[rows]
        return explain_decisions(
            self.feature[rows],
            self.decision[rows],
            self.relevance[rows],
            self.p_value[rows],
            self.redundant_with[rows],
            self.pair_value[rows],
            self.removed_by[rows],
            removed,
            self.measure,
        )

    def outcomes(self, order=None) -> np.ndarray:
        """Final outcome per feature, one of :data:`OUTCOMES`.

        ``"selected"`` (admitted and kept), ``"removed"`` (admitted, later removed by
        ``removed_by``), ``"irrelevant"``, ``"redundant"`` (SAOLA's redundant and both of
        group-SAOLA's intra- and inter-group redundant; :attr:`decision` keeps the
        detail) and ``"ungrouped"``.

        Parameters
        ----------
        order : array-like of int or None, default=None
            As for :meth:`explanations`.

        Returns
        -------
        ndarray of str (``StringDType``) of shape (len(order),)
        """
        rows = self._rows(order, "outcomes")
        dec = np.asarray(self.decision, dtype=object)[rows].astype(str)
        admitted = dec == "admitted"
        return np.where(
            admitted,
            np.where(self.removed_by[rows] >= 0, "removed", "selected"),
            np.where(np.isin(dec, list(_REDUNDANT_WHERE)), "redundant", dec),
        ).astype(_STR)

    def set_sizes(self, order=None) -> np.ndarray:
        """Size of the selected set after each arrival.

        +1 at each admission; -1 for each feature removed, counted at the arrival of
        the feature that removed it (eq. 25 / Alg. 2 steps 22-26).

        Parameters
        ----------
        order : array-like of int or None, default=None
            The arrival order, a permutation of all features; ``None``: :attr:`arrival`.

        Returns
        -------
        ndarray of int64 of shape (n_features,)
            ``set_sizes(order)[k]``: selected-set size once ``order[k]`` has arrived.
            The last entry is the final number of selected features.
        """
        rows = self._rows(order, "set_sizes")
        n = len(self)
        if rows.size != n or np.unique(rows).size != n:
            raise ValueError(
                f"SelectionHistory.set_sizes: 'order' must be a permutation of all {n} features "
                f"(removals count at the arrival of their remover); got {rows.size} indices, "
                f"{np.unique(rows).size} distinct."
            )
        pos = np.empty(n, dtype=np.int64)
        pos[rows] = np.arange(n)
        delta = (np.asarray(self.decision, dtype=object)[rows] == "admitted").astype(np.int64)
        removers = self.removed_by[self.removed_by >= 0]
        if removers.size:
            delta -= np.bincount(pos[removers], minlength=n)
        return np.cumsum(delta)

    def counts(self) -> dict:
        """Number of features per decision."""
        u, c = np.unique(self.decision, return_counts=True)
        return {str(a): int(b) for a, b in zip(u, c, strict=False)}

    def to_frame(self):
        """The history as a pandas DataFrame (``removed`` as a list per row)."""
        import pandas as pd

        row = {int(f): i for i, f in enumerate(self.feature)} if self._removed else {}
        rem = [[] for _ in range(len(self))]
        for remover, gone in self._removed.items():
            rem[row[remover]] = list(gone)
        return pd.DataFrame(
            {
                "feature": self.feature,
                "group": self.group,
                "decision": self.decision,
                "relevance": self.relevance,
                "p_value": self.p_value,
                "redundant_with": self.redundant_with,
                "pair_value": self.pair_value,
                "removed": rem,
                "removed_by": self.removed_by,
                "selected": self.selected,
            }
        )


class _HistoryLog:
    """Growing per-feature arrays behind ``history_``."""

    def __init__(self):
        self.parts: list[tuple] = []
        self.removed_feat: list[np.ndarray] = []
        self.removed_by: list[np.ndarray] = []
        self.n = 0

    def add(self, rel, pval, dec, red_with, pair_val, group):
        self.parts.append((rel, pval, dec, red_with, pair_val, group))
        self.n += rel.shape[0]

    def remove(self, feats, by):
        if len(feats):
            self.removed_feat.append(np.asarray(feats, dtype=np.int64))
            self.removed_by.append(np.asarray(by, dtype=np.int64))

    def build(self, selected: np.ndarray, measure: str, arrival=None) -> SelectionHistory:
        cols = [np.concatenate([p[i] for p in self.parts]) if self.parts else np.empty(0) for i in range(6)]
        rel, pval, dec, red, pair, grp = cols
        n = self.n
        removed_by = np.full(n, -1, dtype=np.int64)
        if self.removed_feat:
            removed_by[np.concatenate(self.removed_feat)] = np.concatenate(self.removed_by)
        sel = np.zeros(n, dtype=bool)
        sel[selected] = True
        names = np.array([_DECISION_NAMES[i] for i in range(len(_DECISION_NAMES))], dtype=object)
        arrays = dict(
            feature=np.arange(n, dtype=np.int64),
            decision=names[dec.astype(np.int64)],
            relevance=rel.astype(float),
            p_value=pval.astype(float),
            redundant_with=red.astype(np.int64),
            pair_value=pair.astype(float),
            removed_by=removed_by,
            selected=sel,
            group=grp.astype(np.int64),
        )
        arrays["arrival"] = (
            np.arange(n, dtype=np.int64) if arrival is None else np.asarray(arrival, dtype=np.int64).copy()
        )
        for a in arrays.values():
            a.setflags(write=False)
        return SelectionHistory(**arrays, measure=measure)


# --------------------------------------------------------------------------- engine
def _codes_block(X, n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes per column: integral columns with < 32 levels keep their values
    (shifted to start at 0), other columns get ``n_bins`` equal-width bins. Column-wise,
    so a feature's codes do not depend on the block it arrived in."""
    if sp.issparse(X):
        X = X.toarray()
    X = np.asfortranarray(X, dtype=np.float64)
    n, b = X.shape
    codes = np.empty((n, b), dtype=np.int32, order="F")
    k = np.empty(b, dtype=np.int64)
    if b and n:
        K.code_columns(X, int(n_bins), codes, k)
    else:
        k[:] = 1
    return codes, k


def _relevance_block(X, mode: str, target: tuple, n_bins: int) -> np.ndarray:
    """Relevance of every column of one block (module level: shipped to Dask workers)."""
    if mode == "continuous":
        yc, ny = target
        if sp.issparse(X):
            X = X.tocsc()
            n = X.shape[0]
            s1 = np.asarray(X.sum(axis=0)).ravel()
            s2 = np.asarray(X.multiply(X).sum(axis=0)).ravel()
            mu = s1 / n
            nrm = np.sqrt(np.maximum(s2 - n * mu * mu, 0.0))
            cv = np.asarray(X.T @ yc).ravel()
            ok = nrm > 1e-12 * (np.abs(mu) * np.sqrt(n) + 1e-300)
            r = np.zeros(X.shape[1])
            r[ok] = cv[ok] / (nrm[ok] * ny)
            return np.clip(r, -1.0, 1.0)
        Xf = np.asarray(X, dtype=np.float64)
        if Xf.ndim == 2 and Xf.shape[1] > 1 and abs(Xf.strides[0]) > abs(Xf.strides[1]):  # row-major layout
            return np.clip(K.column_correlations_rowmajor(Xf, yc, ny), -1.0, 1.0)
        return np.clip(K.column_correlations(Xf, yc, ny), -1.0, 1.0)
    yk = target[0]
    codes, k = _codes_block(X, n_bins)
    return su_with_target(Codes(codes, k), yk) if codes.shape[1] else np.empty(0)


def _relevance_task(block, target: tuple, *, mode: str, n_bins: int) -> np.ndarray:
    """:func:`fsviz._dask.map_blocks` task: one block of columns travels to one worker."""
    return _relevance_block(block, mode, target, n_bins)


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
        blocks = [X[:, s : s + _RELEVANCE_BLOCK] for s in range(0, m, _RELEVANCE_BLOCK)]
        parts = map_blocks(
            _relevance_task,
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
        codes, k = _codes_block(X, self.n_bins)
        h = IK.entropies(codes, k) if codes.shape[1] else np.empty(0)
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
        return K.su_matrix(A[0], A[1], A[2], B[0], B[1], B[2])


def _looks_discrete(X, max_levels: int = 32) -> bool:
    """:func:`fsviz.stats.information.is_discrete` with an early exit: scans blocks of
    columns and stops at the first non-integral value (continuous data decide in the
    first block instead of a full pass with full-size temporaries)."""
    if sp.issparse(X):
        return is_discrete(X, max_levels)
    lo, hi = np.inf, -np.inf
    for s in range(0, X.shape[1], 256):
        B = X[:, s : s + 256]
        if not np.all(B == np.round(B)):
            return False
        if B.size:
            lo, hi = min(lo, B.min()), max(hi, B.max())
            if hi - lo >= max_levels:
                return False
    return True


def _resolve_mode(data: str, X, y=None, name: str = "SAOLA") -> str:
    """The data mode. A continuous target (``type_of_target``) always takes the continuous
    path: Fisher's Z test of the correlation with ``y`` (section 3.4.2); SU would read
    every distinct target value as a class."""
    if y is not None and target_kind(y) == "continuous":
        if data == "discrete":
            raise ValueError(
                f"{name}: data='discrete' (SU with class labels) needs class labels; y looks continuous "
                "(type_of_target='continuous'). Use data='continuous' or 'auto' (Fisher's Z test of the "
                "correlation with y), or bin y."
            )
        return "continuous"
    if data == "auto":
        return "discrete" if _looks_discrete(X) else "continuous"
    return data


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
        self.data_ = _resolve_mode(self.data, X, y, "SAOLA")
        self._engine = _Engine(self.data_, y, int(self.n_bins))
        self._y = y
        self._log = _HistoryLog()
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
                aliveC = K.saola_block_discrete(
                    self._S[0],
                    self._S[1],
                    self._S[2],
                    self._S_rel,
                    aliveS,
                    C[0],
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
        self.data_ = _resolve_mode(self.data, X, y, "GroupSAOLA")
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
        log = _HistoryLog()
        log.add(rel, pval, dec, red, pair, grp)
        has = removed_by >= 0
        log.remove(np.flatnonzero(has), removed_by[has])
        streamed = np.concatenate(glist) if len(glist) else np.empty(0, dtype=np.int64)
        arrival = np.concatenate([streamed, np.setdiff1d(np.arange(m), streamed)])  # ungrouped last
        self.history_ = log.build(self.selected_, eng.measure, arrival)
        return self
