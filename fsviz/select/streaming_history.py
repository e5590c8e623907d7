"""What the streaming baselines decided about every arriving feature: :class:`StreamHistory`
(one decision per feature, with the statistic and the threshold it was compared with), and
:class:`StreamLog`, which collects it while the stream runs.

References
----------
K. Yu, X. Wu, W. Ding, J. Pei, ACM TKDD 11(2), 2016, section 5.1 (the baselines recorded here).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["DECISIONS", "StreamDecision", "StreamHistory", "StreamLog"]

DECISIONS = ("admitted", "irrelevant", "redundant")


@dataclass(frozen=True)
class StreamDecision:
    """What happened to one arriving feature (one row of :class:`StreamHistory`).

    Attributes
    ----------
    feature : int
        Column index in the stream (continuing across ``partial_fit`` calls).
    decision : str
        ``"admitted"``, ``"irrelevant"`` (failed the entry test) or ``"redundant"``
        (OSFS / Fast-OSFS: independent of the target given other selected features).
    statistic : float
        The quantity the entry test used (a p-value or a gradient magnitude; see
        ``StreamHistory.measure``).
    threshold : float
        What it was compared with (alpha, alpha_i or lambda).
    given : tuple of int
        The conditioning features that made it redundant, or that later removed it.
    removed_by : int
        The later feature whose arrival removed this one from the selection, or -1.
    selected : bool
        Whether it is in the final selection.
    """

    feature: int
    decision: str
    statistic: float
    threshold: float
    given: tuple
    removed_by: int
    selected: bool


@dataclass(frozen=True)
class StreamHistory:
    """Columnar record of every arriving feature of a streaming baseline (row ``i`` = feature ``i``).

    The same reading as :class:`~fsviz.select.saola.SelectionHistory`:
    :meth:`outcomes`, :meth:`explanations`, :meth:`set_sizes`, :meth:`counts`,
    :meth:`to_frame`, ``len()``, indexing (a :class:`StreamDecision`).
    """

    feature: np.ndarray
    decision: np.ndarray
    statistic: np.ndarray
    threshold: np.ndarray
    removed_by: np.ndarray
    selected: np.ndarray
    given: tuple = ()
    measure: str = "p"
    method: str = ""
    arrival: np.ndarray | None = field(default=None)

    def __post_init__(self):
        if self.arrival is None:
            object.__setattr__(self, "arrival", np.asarray(self.feature, dtype=np.int64))

    def __len__(self) -> int:
        return int(self.feature.shape[0])

    def __getitem__(self, i: int) -> StreamDecision:
        i = int(i) + (len(self) if int(i) < 0 else 0)
        return StreamDecision(
            int(self.feature[i]),
            str(self.decision[i]),
            float(self.statistic[i]),
            float(self.threshold[i]),
            tuple(self.given[i]) if self.given else (),
            int(self.removed_by[i]),
            bool(self.selected[i]),
        )

    def _rows(self, order, who: str) -> np.ndarray:
        if order is None:
            return np.asarray(self.arrival, dtype=np.int64)
        r = np.asarray(order)
        n = len(self)
        if r.ndim != 1 or (
            r.size and (not np.issubdtype(r.dtype, np.integer) or r.min() < 0 or r.max() >= n)
        ):
            raise ValueError(
                f"StreamHistory.{who}: 'order' must be a 1-D array of feature indices in [0, {n - 1}]; "
                f"got {r!r:.80}."
            )
        return r.astype(np.int64)

    def outcomes(self, order=None) -> np.ndarray:
        """Final outcome per feature: ``"selected"``, ``"removed"``, ``"irrelevant"`` or ``"redundant"``."""
        rows = self._rows(order, "outcomes")
        dec = np.asarray(self.decision, dtype=str)[rows]
        adm = dec == "admitted"
        return np.where(adm, np.where(self.removed_by[rows] >= 0, "removed", "selected"), dec)

    def explain(self, i: int) -> str:
        """Why feature ``i`` was kept or dropped, as a sentence."""
        i = int(i)
        return str(self.explanations([i + len(self) if i < 0 else i])[0])

    def explanations(self, order=None) -> np.ndarray:
        """One sentence per feature (rows in ``order``; default: arrival order).

        Vectorised with numpy string operations; only the few rows with a conditioning set
        format it one by one.
        """
        rows = self._rows(order, "explanations")
        m = self.measure
        (a_pre, a_mid), (d_pre, d_mid) = _TESTS.get(self.method, (("", " vs "), ("", " vs ")))
        add = np.strings.add
        dec = np.asarray(self.decision, dtype=object)[rows].astype(_STR)
        s_txt = np.strings.mod("%.4g", np.asarray(self.statistic, dtype=np.float64)[rows]).astype(_STR)
        t_txt = np.strings.mod("%.4g", np.asarray(self.threshold, dtype=np.float64)[rows]).astype(_STR)
        rb = np.asarray(self.removed_by, dtype=np.int64)[rows]
        given = np.full(rows.shape[0], "", dtype=_STR)
        if self.given:
            has = np.flatnonzero([len(self.given[i]) > 0 for i in rows.tolist()])
            given[has] = [str(list(self.given[rows[k]])) for k in has.tolist()]
        adm, red = dec == "admitted", dec == "redundant"
        test = add(add(add(f"admitted ({a_pre}{m} = ", s_txt), a_mid), t_txt)
        later = add("; later removed by the arrival of feature ", rb.astype(_STR))
        cond = add(add(add(later, " (independent of the target given "), given), ")")
        later = np.where(given != "", cond, later).astype(_STR)
        test = add(add(test, ")"), np.where(rb >= 0, later, "").astype(_STR))
        red_txt = add("dropped as redundant: independent of the target given features ", given)
        red_txt = add(add(red_txt, f" ({m} = "), s_txt)
        red_txt = add(add(add(red_txt, " > "), t_txt), ")")
        drop = add(add(add(add(f"dropped ({d_pre}{m} = ", s_txt), d_mid), t_txt), ")")
        text = np.where(adm, test, np.where(red, red_txt, drop))
        head = add(add("feature ", np.asarray(self.feature, dtype=np.int64)[rows].astype(_STR)), ": ")
        return add(add(head, text), ".")

    def set_sizes(self, order=None) -> np.ndarray:
        """Size of the selected set after each arrival (removals count at their remover's arrival)."""
        rows = self._rows(order, "set_sizes")
        n = len(self)
        if rows.size != n or np.unique(rows).size != n:
            raise ValueError(f"StreamHistory.set_sizes: 'order' must be a permutation of all {n} features.")
        pos = np.empty(n, dtype=np.int64)
        pos[rows] = np.arange(n)
        delta = (np.asarray(self.decision, dtype=str)[rows] == "admitted").astype(np.int64)
        rem = self.removed_by[self.removed_by >= 0]
        if rem.size:
            delta -= np.bincount(pos[rem], minlength=n)
        return np.cumsum(delta)

    def counts(self) -> dict:
        """Number of features per decision."""
        u, c = np.unique(np.asarray(self.decision, dtype=str), return_counts=True)
        return {str(a): int(b) for a, b in zip(u, c, strict=True)}

    def to_frame(self):
        """The history as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame(
            {
                "feature": self.feature,
                "decision": self.decision,
                "statistic": self.statistic,
                "threshold": self.threshold,
                "given": [list(g) for g in self.given] if self.given else [[] for _ in range(len(self))],
                "removed_by": self.removed_by,
                "selected": self.selected,
            }
        )


#: per method: (words before the measure, text between statistic and threshold) of the
#: admitted and of the dropped entry test: "admitted (p = 0.001 < alpha_i = 0.25)"
_TESTS = {
    "alpha_investing": (("", " < alpha_i = "), ("not significant: ", " >= alpha_i = ")),
    "osfs": (("dependent on the target: ", " <= alpha = "), ("irrelevant: ", " > alpha = ")),
    "grafting": (("", " > lambda = "), ("", " <= lambda = ")),
}


_STR = np.dtypes.StringDType()


class StreamLog:
    """Growing per-feature arrays behind ``history_``."""

    def __init__(self):
        self.dec: list[np.ndarray] = []
        self.stat: list[np.ndarray] = []
        self.thr: list[np.ndarray] = []
        self.removed: dict[int, tuple[int, tuple]] = {}  # feature -> (remover, given)
        self.given: dict[int, tuple] = {}
        self.n = 0

    def add(self, dec, stat, thr) -> None:
        self.dec.append(np.asarray(dec, dtype=np.int8))
        self.stat.append(np.asarray(stat, dtype=np.float64))
        self.thr.append(np.broadcast_to(np.asarray(thr, dtype=np.float64), np.shape(dec)).copy())
        self.n += len(dec)

    def build(self, selected, measure: str, method: str) -> StreamHistory:
        n = self.n
        removed_by = np.full(n, -1, dtype=np.int64)
        given: list[tuple] = [()] * n
        for f, (by, g) in self.removed.items():
            removed_by[f] = by
            given[f] = g
        for f, g in self.given.items():
            given[f] = g
        sel = np.zeros(n, dtype=bool)
        sel[np.asarray(selected, dtype=np.int64)] = True
        cat = lambda parts, dt: np.concatenate(parts) if parts else np.empty(0, dtype=dt)  # noqa: E731
        dec = np.asarray(DECISIONS, dtype=object)[cat(self.dec, np.int8).astype(np.int64)]
        arrays = dict(
            feature=np.arange(n, dtype=np.int64),
            decision=dec,
            statistic=cat(self.stat, float),
            threshold=cat(self.thr, float),
            removed_by=removed_by,
            selected=sel,
        )
        for a in arrays.values():
            a.setflags(write=False)
        return StreamHistory(**arrays, given=tuple(given), measure=measure, method=method)
