"""Every feature explained: its rank and score, what stands in for it, and why it was kept or not.

``Run("explain", {"of": run, "k": k})`` explains the top ``k`` of ``run``'s selection: for every
feature, its rank in the method's order and its score; for every feature outside the stand-in
pool (the selection; GDM: its support features), the pool feature most correlated with it
(:func:`fsviz.evaluate.stand_ins`, one k x m correlation block, in the selection's own measure)
and the reason in the method's own terms:

* GDM: ``"affiliated to SF x (|ρ| = 0.91)"``; a feature in no group: below ``1 − τ`` to every SF;
* GRM: ``"redundant with x; its prior group already represented"``, else where GRM's refinement
  put it (base rank -> GRM rank), or outside GRM's working set;
* SAOLA and the streaming baselines: the decision at arrival, ``"dropped at arrival: redundant
  with x (test: ...)"``, irrelevant, or removed when a later feature arrived;
* rankers: ``"score below the k-th (0.41 < 0.53)"``; subset methods: not among those it chose.

The result is cached like any other (``(fingerprint, run.key)``): computed once per selection.
:meth:`ExplainResult.lookup` answers "why not this feature?", :meth:`ExplainResult.selection_frame`
is the selection CSV with the unselected features appended (``fsviz select --explain``, the app's
export) and :meth:`ExplainResult.dropped_frame` the report's table of top dropped features.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Integral

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, StrOptions

from fsviz._params import Param, signature_default
from fsviz.compute.exports import selection_frame, shown_names
from fsviz.compute.results import GRMResult, GroupResult, Selection, StreamResult, SubsetResult, result
from fsviz.compute.runs import Context, Run
from fsviz.compute.wording import plural
from fsviz.data.csv_safety import neutralise
from fsviz.evaluate import stand_ins, su_discrete

_STR = np.dtypes.StringDType()
#: selection methods whose redundancy is information-theoretic: their stand-ins use SU
_SU_METHODS = ("mrmr", "fcbf", "cfs", "mifs", "cife", "jmi", "cmim", "icap", "disr")
#: the columns the explained selection CSV adds to ``SELECTION_COLUMNS``
EXPLAIN_COLUMNS = ("stand_in", "stand_in_corr", "reason")
#: the role of a feature appended to the selection CSV by ``--explain``
UNSELECTED = "unselected"


def _s(values) -> np.ndarray:
    return np.asarray(values, dtype=object).astype(str).astype(_STR)


def _cat(*parts) -> np.ndarray:
    """Element-wise concatenation of strings and string arrays."""
    out = np.asarray(parts[0], dtype=_STR)
    for p in parts[1:]:
        out = np.strings.add(out, np.asarray(p, dtype=_STR))
    return out


def _fmt(fmt: str, x) -> np.ndarray:
    return np.strings.mod(fmt, np.asarray(x, dtype=np.float64)).astype(_STR)


def _partition(a: np.ndarray, sep: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return np.strings.partition(np.asarray(a, dtype=_STR), np.asarray(sep, dtype=_STR))


def _leading_int(a: np.ndarray) -> np.ndarray:
    """The integer a text starts with (``"12 (…"`` -> 12); -1 when it starts with no digit."""
    head = _partition(np.strings.lstrip(a), " ")[0]
    head = np.strings.rstrip(head, np.asarray(".),;:", dtype=_STR))
    ok = np.strings.isdigit(head)
    out = np.full(a.shape[0], -1, dtype=np.int64)
    if ok.any():
        out[ok] = head[ok].astype(np.int64)
    return out


_BRACKETS = re.compile(r"\[(\d+(?:, \d+)*)\]")


def _names_in(match: re.Match, names: np.ndarray) -> str:
    return "[" + ", ".join(str(names[int(i)]) for i in match.group(1).split(", ")) + "]"


def measure_of(run: Run, res) -> tuple[str, int]:
    """The correlation measure a selection's stand-ins follow and its bins (for SU).

    GDM: its ``corr`` (Pearson or SU); SAOLA and group-SAOLA: SU when they ran on discrete
    data, else Pearson (Fisher's Z test of the correlation); the information-theoretic subset
    methods (mRMR, FCBF, CFS, MIFS, CIFE, JMI, CMIM, ICAP, DISR): SU; every other: Pearson.
    """
    n_bins = run.get("n_bins")  # methods without bins: stand_ins' own default
    n_bins = int(n_bins) if n_bins else signature_default(stand_ins, "n_bins")
    if run.method == "gdm":
        return str(run.get("corr")), n_bins
    if run.method in _SU_METHODS:
        return "su", n_bins
    if run.method in ("saola", "group-saola") and isinstance(res, StreamResult) and res.reason:
        return ("su" if "SU(" in res.reason[0] else "pearson"), n_bins
    return "pearson", n_bins


def _symbol(measure: str) -> str:
    return {"pearson": "|ρ|", "spearman": "|ρ_s|", "su": "SU"}[measure]


@dataclass(frozen=True)
class WhyNot:
    """One feature explained (:meth:`ExplainResult.lookup`); ``selected``: it stands for itself
    (in the selection; GDM: a support feature; an affiliated feature has its SF as stand-in)."""

    feature: int
    name: str
    selected: bool
    rank: int
    n_features: int
    score: float
    stand_in: int  # -1: none (a selected feature, a constant one, or nothing selected)
    stand_in_name: str
    stand_in_corr: float
    reason: str
    measure: str
    n_pool: int = 1  # features that can stand in (0: nothing selected)
    constant: bool = False  # the feature itself is constant (no correlation is defined)

    @property
    def text(self) -> str:
        """One paragraph a person reads."""
        head = f"{self.name}: rank {self.rank:,} of {self.n_features:,}, score {self.score:.4g}."
        if self.selected:
            return f"{head} Selected: {self.reason}."
        if self.stand_in < 0:
            if self.n_pool == 0:
                stand = "No stand-in: nothing is selected."
            elif self.constant:
                stand = "No stand-in: it is constant (correlation undefined)."
            else:
                stand = "No stand-in: every selected feature is constant (correlation undefined)."
        else:
            corr = "ρ" if self.measure == "pearson" else ("ρ_s" if self.measure == "spearman" else "SU")
            stand = f"Stand-in: {self.stand_in_name} ({corr} = {self.stand_in_corr:+.3f})."
        return f"{head} {stand} Why: {self.reason}."


@result
class ExplainResult:
    """Every feature of a selection explained (``Run("explain", {"of": run, "k": k})``).

    Arrays are indexed by feature: ``rank`` (1 = first in the method's order: the selection,
    then the rest by score), ``score``, ``stand_in`` (the pool feature most correlated with it;
    -1 for the pool itself, a constant feature, an empty pool or a pool of constant features:
    a constant feature never stands in), ``stand_in_corr`` (signed rho, or SU; NaN where
    ``stand_in`` is -1) and ``reason``; ``constant`` lists the constant features. ``selected``
    is the top ``k`` of the selection, ``pool`` the features that stand in (the selection; GDM:
    its support features).
    """

    run: Run
    fingerprint: str
    k: int | None
    measure: str
    selected: np.ndarray
    pool: np.ndarray
    rank: np.ndarray
    score: np.ndarray
    stand_in: np.ndarray
    stand_in_corr: np.ndarray
    reason: np.ndarray
    group: np.ndarray  # GDM group number 1..K of every feature (0: none); zeros otherwise
    seconds: float
    constant: np.ndarray | None = None  # the constant features, by index (no correlation defined)

    @property
    def of(self) -> Run:
        """The Run of the selection explained."""
        return self.run.get("of")

    @property
    def n_features(self) -> int:
        return int(self.rank.shape[0])

    def unselected(self) -> np.ndarray:
        """The features outside the selection, best rank first."""
        out = np.ones(self.n_features, dtype=bool)
        out[self.selected] = False
        idx = np.flatnonzero(out)
        return idx[np.argsort(self.rank[idx], kind="stable")]

    def _stand_in_names(self, idx: np.ndarray, names: np.ndarray) -> np.ndarray:
        s = self.stand_in[idx]
        return np.where(s >= 0, names[np.maximum(s, 0)], "") if names.size else np.array([], dtype=str)

    def frame(self, feature_names: Sequence[str], features=None) -> pd.DataFrame:
        """``rank, index, name, score, stand_in, stand_in_corr, reason`` of ``features``
        (default: every unselected feature, best rank first); ``stand_in`` by name."""
        names = np.asarray([str(n) for n in feature_names], dtype=object)
        idx = self.unselected() if features is None else np.asarray(features, dtype=np.int64)
        return pd.DataFrame(
            {
                "rank": self.rank[idx],
                "index": idx,
                "name": names[idx] if idx.size else np.array([], dtype=object),
                "score": self.score[idx],
                "stand_in": self._stand_in_names(idx, names),
                "stand_in_corr": self.stand_in_corr[idx],
                "reason": np.asarray(self.reason, dtype=object)[idx]
                if idx.size
                else np.array([], dtype=object),
            }
        )

    def dropped_frame(self, feature_names: Sequence[str], top: int = 20) -> pd.DataFrame:
        """The ``top`` best-ranked features left out, with their stand-ins (the report's table)."""
        return self.frame(feature_names, self.unselected()[: max(int(top), 0)])

    def selection_frame(
        self,
        selection: Selection,
        feature_names: Sequence[str],
        *,
        raw: bool = True,
        display_names: Sequence[str] | None = None,
    ) -> pd.DataFrame:
        """The selection CSV's table (:func:`fsviz.compute.selection_frame`) with the columns
        ``stand_in, stand_in_corr, reason`` and every unselected feature appended, best rank
        first, with the role ``"unselected"``. Selected rows have an empty ``stand_in`` except
        GDM's affiliated features (their support feature's stand-in). ``raw=False``: names that
        begin like a spreadsheet formula get a quote in front (as :func:`selection_frame`)."""
        if selection.run != self.of or not np.array_equal(selection.indices, self.selected):
            raise ValueError(
                f"explanation of {self.of.label} (top {self.k}) does not match the selection "
                f"{selection.label}; explain that selection: Run('explain', {{'of': run, 'k': k}})."
            )
        names = np.asarray([str(n) for n in feature_names], dtype=object)
        if not raw:
            names = np.asarray([neutralise(n) for n in names.tolist()], dtype=object)
        top = selection_frame(selection, feature_names, raw=raw, display_names=display_names)
        idx = top["index"].to_numpy(np.int64)
        top["stand_in"] = self._stand_in_names(idx, names)
        top["stand_in_corr"] = self.stand_in_corr[idx]
        top["reason"] = np.asarray(self.reason, dtype=object)[idx] if idx.size else []
        rest = self.unselected()
        tail = pd.DataFrame(
            {
                "rank": self.rank[rest],
                "index": rest,
                "name": names[rest] if rest.size else np.array([], dtype=object),
                **({} if display_names is None else {"display_name": shown_names(display_names, rest, raw)}),
                "score": self.score[rest],
                "role": UNSELECTED,
                "group": self.group[rest],
                "stand_in": self._stand_in_names(rest, names),
                "stand_in_corr": self.stand_in_corr[rest],
                "reason": np.asarray(self.reason, dtype=object)[rest] if rest.size else [],
            },
            columns=list(top.columns),
        )
        frame = pd.concat([top, tail], ignore_index=True) if len(tail) else top
        return frame.astype({"rank": np.int64, "index": np.int64, "group": np.int64, "score": np.float64})

    def lookup(self, feature: int, feature_names: Sequence[str]) -> WhyNot:
        """Why feature ``feature`` (an index) was kept or left out."""
        j = int(feature)
        if not 0 <= j < self.n_features:
            raise ValueError(f"explain: feature index must lie in [0, {self.n_features}); got {j}.")
        names = [str(n) for n in feature_names]
        s = int(self.stand_in[j])
        return WhyNot(
            feature=j,
            name=names[j],
            selected=bool(np.isin(j, self.pool)),
            rank=int(self.rank[j]),
            n_features=self.n_features,
            score=float(self.score[j]),
            stand_in=s,
            stand_in_name=names[s] if s >= 0 else "",
            stand_in_corr=float(self.stand_in_corr[j]),
            reason=str(self.reason[j]),
            measure=self.measure,
            n_pool=int(self.pool.size),
            constant=bool(self.constant is not None and np.isin(j, self.constant)),
        )

    def find(self, name: str, feature_names: Sequence[str]) -> WhyNot:
        """:meth:`lookup` by the feature's exact name (ValueError naming close names if none)."""
        names = [str(n) for n in feature_names]
        typed = str(name).strip()
        hits = [i for i, n in enumerate(names) if n == typed]
        if not hits:
            close = [n for n in names if typed.lower() in n.lower()][:5]
            hint = f" Names containing it: {close}." if close else ""
            raise ValueError(f"No feature is named {typed!r}.{hint}")
        return self.lookup(hits[0], names)


# ---------------------------------------------------------------------------- the runner
def _order(selection_all: Selection, score: np.ndarray) -> np.ndarray:
    """Rank of every feature: the method's full selection first, then the rest by score."""
    m = score.shape[0]
    first = np.asarray(selection_all.indices, dtype=np.int64)
    rest = np.setdiff1d(np.arange(m), first)
    rest = rest[np.argsort(-np.nan_to_num(score[rest], nan=-np.inf), kind="stable")]
    rank = np.empty(m, dtype=np.int64)
    rank[np.concatenate([first, rest])] = np.arange(1, m + 1)
    return rank


def _scores(res) -> np.ndarray:
    if isinstance(res, GRMResult):
        return np.asarray(res.refined_all, dtype=np.float64)
    return np.asarray(res.scores, dtype=np.float64)


def _gdm_reasons(run, res: GroupResult, sel: Selection, names, rank, reason, group) -> None:
    symbol = "|ρ|" if str(run.get("corr")) == "pearson" else "SU"
    tau = float(run.get("tau"))
    pos = res.group_positions()
    group[res.support] = np.arange(1, len(res.support) + 1)
    if res.af.size:
        group[res.af] = pos + 1
    reason[:] = _s(f"in no group: {symbol} < 1 − τ = {1 - tau:.2f} to every support feature")
    sf = res.support
    out = ~np.isin(sf, sel.indices[np.asarray(sel.roles) == "SF"])  # SFs cut off by k
    reason[sf[~out]] = _s("support feature (SF)")
    if out.any():
        reason[sf[out]] = _cat("support feature ranked below the k-th (rank ", _s(rank[sf[out]]), ")")
    if res.af.size:
        reason[res.af] = _cat(
            "affiliated to SF ", names[res.af_sf], f" ({symbol} = ", _fmt("%.2f", res.af_rho), ")"
        )


def _grm_reasons(run, res: GRMResult, sel: Selection, names, rank, reason) -> None:
    m = rank.shape[0]
    n_top = len(res.candidates)
    reason[:] = _s(f"outside GRM's working set: not in the top {n_top:,} of {res.base_method}")
    base_rank = np.zeros(m, dtype=np.int64)
    base_rank[res.base_order] = np.arange(1, n_top + 1)
    cand = res.candidates
    reason[cand] = _cat(
        "GRM's refined score below the k-th (", res.base_method, " rank ", _s(base_rank[cand]),
        " → GRM rank ", _s(rank[cand]), ")",
    )  # fmt: skip
    prior = [np.asarray(g, dtype=np.int64) for g in (run.get("prior_groups") or ())]
    chosen = np.zeros(m, dtype=bool)
    chosen[sel.indices] = True
    for g in prior:  # a loop over the prior groups (few), not over features
        reps = g[chosen[g]]
        if not reps.size:
            continue
        rep = reps[np.argmin(rank[reps])]  # the best-ranked selected member represents the group
        left = g[~chosen[g]]
        reason[left] = _s(f"redundant with {names[rep]}; its prior group already represented")


def _stream_reasons(res: StreamResult, names, reason) -> None:
    m = reason.shape[0]
    arrival = np.asarray(res.arrival, dtype=np.int64)
    outcome = np.full(m, "", dtype=_STR)
    text = np.full(m, "", dtype=_STR)
    outcome[arrival] = _s(res.outcome)
    text[arrival] = _s(res.reason)
    body = _partition(text, ": ")[2]  # drop the "feature N: " head
    reason[:] = body
    red = np.flatnonzero(outcome == "redundant")
    if red.size:
        pre, sep, post = _partition(body[red], "with feature ")
        named = sep != ""
        who = _leading_int(post)
        named &= who >= 0
        test = np.strings.rstrip(_partition(post, " (")[2], np.asarray(".", dtype=_STR))
        test = np.strings.rstrip(test, np.asarray(")", dtype=_STR))
        where = np.strings.strip(np.strings.replace(pre, np.asarray("dropped as redundant", dtype=_STR), ""))
        where = np.where(where != "", _cat(" ", where), "").astype(_STR)
        saola = _cat(
            "dropped at arrival: redundant", where, " with ", names[np.maximum(who, 0)], " (test: ", test, ")"
        )
        other = np.strings.replace(body[red], np.asarray("dropped as ", dtype=_STR), "")
        other = _cat("dropped at arrival: ", np.strings.rstrip(other, np.asarray(".", dtype=_STR)))
        given = np.flatnonzero(~named & np.strings.find(other, np.asarray("features [", dtype=_STR)) >= 0)
        if given.size:  # the baselines' conditioning sets "[3, 17]": indices -> names (those rows only)
            other[given] = [_BRACKETS.sub(lambda mt: _names_in(mt, names), str(t)) for t in other[given]]
        reason[red] = np.where(named, saola, other)
    drop = np.flatnonzero(outcome == "irrelevant")
    if drop.size:
        plain = np.strings.replace(body[drop], np.asarray("dropped as ", dtype=_STR), "")
        plain = np.strings.replace(plain, np.asarray("dropped ", dtype=_STR), "")
        plain = np.strings.rstrip(plain, np.asarray(".", dtype=_STR))
        bare = np.strings.startswith(plain, np.asarray("(", dtype=_STR))  # "(irrelevant: p = …)"
        plain = np.where(bare, np.strings.strip(plain, np.asarray("()", dtype=_STR)), plain)
        reason[drop] = _cat("dropped at arrival: ", plain)
    gone = np.flatnonzero(outcome == "removed")
    if gone.size:
        who = _leading_int(np.strings.rpartition(body[gone], np.asarray("feature ", dtype=_STR))[2])
        by = np.where(who >= 0, names[np.maximum(who, 0)], "a later feature")
        how = np.where(
            np.strings.find(body[gone], np.asarray("removed as redundant", dtype=_STR)) >= 0,
            "as redundant ",
            "",
        )
        reason[gone] = _cat("admitted at arrival, removed ", how, "when ", by, " arrived")
    never = np.flatnonzero(outcome == "ungrouped")
    if never.size:
        reason[never] = _s("not in any group, never streamed")
    kept = np.flatnonzero(outcome == "selected")
    if kept.size:
        reason[kept] = _s("admitted at arrival and kept")


#: the "explain" view's parameters (Run fills them)
EXPLAIN_PARAMS = (
    Param(name="of", default=None, label="selection", help="The selection Run explained."),
    Param(
        name="k",
        default=None,
        constraints=(Interval(Integral, 1, None, closed="left"), None),
        label="top-k explained",
        help="How many of the selection's first features; none: the whole selection.",
    ),
    Param(
        name="measure",
        default=None,
        constraints=(StrOptions({"pearson", "spearman", "su"}), None),
        label="measure",
        help="How a stand-in is found; none: the selection's own measure.",
    ),
)


def explain(run: Run, ctx: Context) -> ExplainResult:
    """The ``"explain"`` view: every feature of ``run.get("of")``'s top ``k`` explained.

    Parameters of the Run: ``of`` (a selection Run), ``k`` (None: the whole selection) and
    ``measure`` (None: the selection's own, :func:`measure_of`).
    """
    of = run.get("of")
    if not isinstance(of, Run) or not of.spec.selects:
        raise ValueError(f"explain: 'of' must be the Run of a feature selection; got {of!r}.")
    k = run.get("k")
    return _explained(ctx.dataset, run, ctx.result(of), None if k is None else int(k), run.get("measure"))


def _columns_of(X, cols: np.ndarray):
    """Columns ``cols`` of ``X`` in that order; sparse X stays sparse (never densified)."""
    if sp.issparse(X):  # CSC and CSR slice columns in O(nnz) without a copy of X
        return X[:, cols] if X.format in ("csc", "csr") else X.tocsc()[:, cols]
    return np.asarray(X[:, cols])


def _stand_ins_of(ds, pool: np.ndarray, features, measure: str, n_bins: int):
    """``(stand_in, corr, constant)`` as :func:`stand_ins` over all of ``ds.X`` gives them, for
    ``features`` only (None: every feature). ``stand_ins`` runs on the pool's columns, in pool
    order (it breaks ties), then the features': the same ties, constants and signs, a
    k x len(features) block instead of k x m (the correlation equal to float rounding: BLAS sums
    a narrower block in another order). SU codes the columns as the whole matrix would be coded."""
    m = int(ds.n_features)
    stand_in = np.full(m, -1, dtype=np.int64)
    corr = np.full(m, np.nan)
    if features is None:
        table = stand_ins(ds.X, pool, measure=measure, n_bins=n_bins)
        cols = np.arange(m)
    elif not pool.size:  # nothing stands in and stand_ins names no constant feature
        return stand_in, corr, np.array([], dtype=np.int64)
    else:
        extra = np.setdiff1d(np.asarray(features, dtype=np.int64), pool)
        cols = np.concatenate([pool, extra])
        discrete = su_discrete(ds.X) if measure == "su" else None
        table = stand_ins(
            _columns_of(ds.X, cols), np.arange(pool.size), measure=measure, n_bins=n_bins, discrete=discrete
        )
    f = cols[table["feature"].to_numpy(np.int64)]
    s = table["stand_in"].to_numpy(np.int64)
    stand_in[f] = np.where(s >= 0, cols[np.maximum(s, 0)], -1)
    corr[f] = table["stand_in_corr"].to_numpy(np.float64)
    return stand_in, corr, cols[np.asarray(table.attrs.get("constant", ()), dtype=np.int64)]


def _explained(ds, run: Run, res, k: int | None, measure: str | None, features=None) -> ExplainResult:
    """The explanation of ``run.get("of")`` (result ``res``); stand-ins of ``features`` only
    (None: every feature; the others then have none)."""
    of = run.get("of")
    t0 = time.perf_counter()  # the explanation's own time, not the selection's
    sel = res.selection(k)
    m = int(ds.n_features)
    score = _scores(res)
    rank = _order(res.selection(None), score)
    measure_own, n_bins = measure_of(of, res)
    measure = measure or measure_own
    roles = np.asarray(sel.roles)
    pool = np.asarray(
        sel.indices[roles == "SF"] if isinstance(res, GroupResult) else sel.indices, dtype=np.int64
    )
    stand_in, corr, constant = _stand_ins_of(ds, pool, features, measure, n_bins)
    names = _s([str(n) for n in ds.feature_labels])  # reasons name symbols (feature annotations)
    reason = np.full(m, "", dtype=_STR)
    group = np.zeros(m, dtype=np.int64)
    label = of.spec.label
    chosen = sel.indices
    if isinstance(res, GroupResult):  # SFs and AFs explain themselves (reasons set for all)
        _gdm_reasons(of, res, sel, names, rank, reason, group)
    elif isinstance(res, GRMResult):
        _grm_reasons(of, res, sel, names, rank, reason)
        reason[chosen] = _s(f"in GRM's top {len(chosen):,}")
    elif isinstance(res, (StreamResult, SubsetResult)):
        if isinstance(res, StreamResult):
            _stream_reasons(res, names, reason)
        else:
            reason[:] = _s(f"not among the {plural(len(res.selected), 'feature')} {label} chose")
            reason[chosen] = _s(f"chosen by {label}")
        beyond = res.selection(None).indices[len(chosen) :]  # chosen by the method, cut by k
        if beyond.size:
            reason[beyond] = _cat(f"chosen by {label} at rank ", _s(rank[beyond]), ", below the k-th")
    else:  # a ranking of every feature
        kth = float(score[chosen[-1]]) if len(chosen) else np.nan
        below = _cat("score below the k-th (", _fmt("%.4g", score), f" < {kth:.4g})")
        tied = _cat("score tied with the k-th (", _fmt("%.4g", score), "), ranked after it")
        reason[:] = np.where(score < kth, below, tied)
        reason[chosen] = _s(f"in the top {len(chosen):,} of {label}")
    return ExplainResult(
        run,
        ds.fingerprint,
        k,
        measure,
        np.asarray(sel.indices, dtype=np.int64).copy(),
        np.asarray(pool, dtype=np.int64).copy(),
        rank,
        score.copy(),
        stand_in,
        corr,
        reason,
        group,
        time.perf_counter() - t0,
        constant,
    )


def explain_run(of: Run, k: int | None = None, measure: str | None = None) -> Run:
    """The Run that explains the top ``k`` of ``of`` (the selection's own measure by default)."""
    params = {"of": of, "k": None if k is None else int(k)}
    if measure is not None:
        params["measure"] = measure
    return Run("explain", params, of.seed)


def explain_feature(
    dataset, of: Run, res, feature: int, k: int | None = None, measure: str | None = None
) -> WhyNot:
    """Why ``feature`` was kept or left out of the top ``k`` of ``of``, without explaining the rest.

    Parameters
    ----------
    dataset : fsviz.data.Dataset
        The data ``of`` ran on.
    of : Run
        The selection Run.
    res : result
        ``of``'s result on ``dataset``.
    feature : int
        The feature's index.
    k : int, optional
        The top ``k`` of the selection explained; None: the whole selection.
    measure : {"pearson", "spearman", "su"}, optional
        How its stand-in is found; None: the selection's own (:func:`measure_of`).

    Returns
    -------
    WhyNot
        Equal to ``explain_run(of, k, measure)``'s result ``.lookup(feature,
        dataset.feature_labels)``; its stand-in is found among the pool's columns and its own
        (a k x 1 correlation block instead of the k x m block of every feature).

    Raises
    ------
    ValueError
        ``of`` is not a feature selection, or ``feature`` lies outside ``[0, n_features)``.
    """
    if not isinstance(of, Run) or not of.spec.selects:
        raise ValueError(f"explain: 'of' must be the Run of a feature selection; got {of!r}.")
    j, m = int(feature), int(dataset.n_features)
    if not 0 <= j < m:  # before slicing X: a negative index would silently pick a column
        raise ValueError(f"explain: feature index must lie in [0, {m}); got {j}.")
    run = explain_run(of, k, measure)
    ex = _explained(dataset, run, res, None if k is None else int(k), measure, features=[j])
    return ex.lookup(j, dataset.feature_labels)


def feature_pair(dataset, feature: int, stand_in: int) -> tuple[np.ndarray, np.ndarray]:
    """The two columns ``feature`` and ``stand_in`` as float64 vectors (for the scatter plot)."""
    cols = np.asarray([int(feature), int(stand_in)], dtype=np.int64)
    X = dataset.X
    part = X[:, cols].toarray() if sp.issparse(X) else np.asarray(X[:, cols], dtype=np.float64)
    return part[:, 0].copy(), part[:, 1].copy()


__all__ = [
    "EXPLAIN_COLUMNS",
    "UNSELECTED",
    "ExplainResult",
    "WhyNot",
    "explain",
    "explain_feature",
    "explain_run",
    "feature_pair",
    "measure_of",
]
