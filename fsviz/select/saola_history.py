"""What SAOLA and group-SAOLA decided about every arriving feature, and why.

:class:`SelectionHistory` is the record a SAOLA fit keeps (one row per decision: the arriving
feature, its relevance, the test and the feature it was redundant to), :func:`explain_decisions`
turns it into sentences, and :class:`HistoryLog` collects it while the stream runs.

References
----------
K. Yu, X. Wu, W. Ding, J. Pei, "Scalable and Accurate Online Feature Selection for Big
Data", ACM TKDD 11(2), 2016: Alg. 1 and 2 (the decisions recorded here).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from fsviz.select import _saola_kernels as K

__all__ = ["OUTCOMES", "HistoryLog", "SaolaDecision", "SelectionHistory", "explain_decisions"]

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


class HistoryLog:
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
