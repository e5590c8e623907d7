"""Frozen result dataclasses: plain arrays and simple fields, never fitted estimators.

Every result names the :class:`~fsviz.compute.Run` that made it and the fingerprint of
the data it ran on; results that select features give a :class:`Selection`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, fields, replace

import numpy as np
import pandas as pd

from fsviz.compute.runs import Run
from fsviz.evaluate.significance import k_fdr
from fsviz.evaluate.stable import pfer_bound

ROLES = ("SF", "AF", "selected")


def _read_only(value):
    """``value`` with every numpy array in it (also inside tuples) made read-only."""
    if isinstance(value, np.ndarray):
        value.setflags(write=False)
    elif isinstance(value, tuple):
        for v in value:
            _read_only(v)
    return value


def result(cls):
    """A frozen dataclass whose arrays are read-only once built.

    Results are cached and shared by every session of the app's process: an in-place
    operation on ``selection().indices`` must fail, not change what everyone sees
    (``ValueError: assignment destination is read-only``). Copy an array to change it.
    """

    def __post_init__(self) -> None:
        for f in fields(self):
            _read_only(getattr(self, f.name))

    cls.__post_init__ = __post_init__  # before dataclass(): its __init__ then calls it
    return dataclass(frozen=True)(cls)


@result
class Selection:
    """Chosen features in rank order, for the compare table, projections and CSV export.

    ``indices`` are the features best first; ``scores``, ``roles`` and ``groups`` are
    aligned with them. ``groups`` holds a group number ``1..K`` (GDM: the K support
    features in the order found, each with its affiliated features) and 0 for a feature
    in no group. ``k`` is the number of features asked for (None: all the method ranks).
    A selection cut by a rule (``fsviz select -k fdr:0.05``) names it in ``rule``
    (:meth:`fsviz.compute.Cut.describe`) and carries the rule's numbers per feature in
    ``columns``: ``(("p", array), ("q", array))`` for the FDR cut, aligned with ``indices``.
    """

    run: Run
    fingerprint: str
    indices: np.ndarray
    scores: np.ndarray
    roles: tuple
    groups: np.ndarray
    seconds: float
    k: int | None = None
    rule: str | None = None
    columns: tuple = ()

    @property
    def n_features(self) -> int:
        return len(self.indices)

    @property
    def method(self) -> str:
        return self.run.spec.label

    @property
    def label(self) -> str:
        """``"GDM [tau=0.3] — 52 features"``: tells two runs of one method apart."""
        return f"{self.run.label} — {self.n_features} features"

    def top(self, k: int) -> np.ndarray:
        """The first ``k`` selected features (rank order)."""
        return self.indices[: max(int(k), 0)]


def _plain_selection(run, fingerprint, idx, scores, seconds, k) -> Selection:
    idx = np.asarray(idx, dtype=np.int64)
    return Selection(
        run,
        fingerprint,
        idx,
        np.asarray(scores, dtype=np.float64),
        ("selected",) * len(idx),
        np.zeros(len(idx), dtype=np.int64),
        float(seconds),
        k,
    )


@result
class GroupResult:
    """GDM's support features and their affiliated features, as plain arrays.

    ``af`` lists every affiliated feature, ``af_sf`` the support feature of its group and
    ``af_rho`` its |rho| to that support feature (``GDM.group_corr_``).
    """

    run: Run
    fingerprint: str
    support: np.ndarray
    sf_scores: np.ndarray
    af: np.ndarray
    af_sf: np.ndarray
    af_rho: np.ndarray
    scores: np.ndarray  # |s_j| of every feature at the last iteration
    n_correlations: int
    n_features: int
    objective_history: np.ndarray
    seconds: float

    @property
    def n_pairs(self) -> int:
        """m(m-1)/2, the number of pairs a brute-force correlation matrix computes."""
        return self.n_features * (self.n_features - 1) // 2

    def group_sizes(self) -> np.ndarray:
        """Number of affiliated features of each support feature, in ``support`` order."""
        return np.bincount(self.group_positions(), minlength=len(self.support))

    def group_positions(self) -> np.ndarray:
        """Position in ``support`` of each affiliated feature's support feature."""
        if self.af.size == 0:
            return np.zeros(0, dtype=np.int64)
        order = np.argsort(self.support, kind="stable")
        return order[np.searchsorted(self.support, self.af_sf, sorter=order)]

    def partition(self) -> list[np.ndarray]:
        """Feature groups for group-SAOLA: each SF with its AFs, every other feature alone."""
        n_sf = len(self.support)
        grouped = np.concatenate([self.support, self.af]).astype(np.int64)
        pos = np.concatenate([np.arange(n_sf), self.group_positions()])
        split = np.argsort(pos, kind="stable")
        bounds = np.searchsorted(pos[split], np.arange(1, n_sf))
        groups = list(np.split(grouped[split], bounds)) if n_sf else []
        rest = np.setdiff1d(np.arange(self.n_features), grouped)
        return groups + list(rest.reshape(-1, 1))

    def selection(self, k: int | None = None) -> Selection:
        """Support features first (order found), then each group's affiliated features by |rho|."""
        pos = self.group_positions()
        order = np.lexsort((-self.af_rho, pos))
        idx = np.concatenate([self.support, self.af[order]]).astype(np.int64)
        scores = np.concatenate([self.sf_scores, self.scores[self.af[order]]])
        roles = ("SF",) * len(self.support) + ("AF",) * len(self.af)
        groups = np.concatenate([np.arange(1, len(self.support) + 1), pos[order] + 1]).astype(np.int64)
        if k is not None:
            idx, scores, roles, groups = idx[:k], scores[:k], roles[:k], groups[:k]
        return Selection(self.run, self.fingerprint, idx, scores, roles, groups, self.seconds, k)


@result
class ScoreResult:
    """A scorer's ``scores_`` (higher = better) and ``ranking_`` (1 = best) over all features."""

    run: Run
    fingerprint: str
    scores: np.ndarray
    ranking: np.ndarray
    seconds: float

    @property
    def order(self) -> np.ndarray:
        """Feature indices best first (the scorer's ``ranking_``)."""
        return np.argsort(self.ranking, kind="stable")

    def selection(self, k: int | None = None) -> Selection:
        idx = self.order if k is None else self.order[:k]
        return _plain_selection(self.run, self.fingerprint, idx, self.scores[idx], self.seconds, k)


@result
class SignificanceResult:
    """Permutation p-values and BH q-values of a score Run (``of``) on every feature.

    ``null`` states the hypothesis each p-value tests; ``batched`` says whether the permutations
    were computed as one matrix computation or by refitting (:func:`fsviz.evaluate.permutation_pvalues`).
    """

    run: Run
    fingerprint: str
    of: Run
    scores: np.ndarray
    pvalues: np.ndarray
    qvalues: np.ndarray
    n_permutations: int
    null: str
    batched: bool
    seconds: float

    @property
    def evidence(self) -> np.ndarray:
        """``-log10 q`` of every feature (higher = stronger evidence; the FDR cut's ranking)."""
        return -np.log10(np.maximum(self.qvalues, 1e-300))

    @property
    def pooled(self) -> bool:
        return self.run.get("null") == "pooled"

    def k_fdr(self, q: float) -> int:
        """How many features have q-value <= ``q``."""
        return k_fdr(self.qvalues, q)

    def selection(self, q: float) -> Selection:
        """The features with q-value <= ``q``, best score first, with their p and q."""
        idx = np.flatnonzero(self.qvalues <= q) if k_fdr(self.qvalues, q) else np.zeros(0, np.int64)
        idx = idx[np.argsort(-self.scores[idx], kind="stable")]
        sel = _plain_selection(self.of, self.fingerprint, idx, self.scores[idx], self.seconds, None)
        rule = (
            f"fdr:{q:g} (Benjamini-Hochberg q <= {q:g} on label-permutation p-values, "
            f"{self.n_permutations} permutations{', pooled over features' if self.pooled else ''})"
        )
        floor = 1.0 / (1.0 + self.n_permutations * (self.scores.size if self.pooled else 1))
        at_floor = int(np.count_nonzero(self.pvalues <= floor * (1 + 1e-9)))
        if idx.size == 0 and at_floor:  # limited by the permutations' resolution, not by the data
            warnings.warn(
                f"fdr:{q:g} kept no feature, but {at_floor} feature(s) reached the smallest p-value the "
                f"{self.n_permutations} permutations can give ({floor:.3g}); BH needs p <= {q:g} k / m over "
                f"m = {self.scores.size} features: use about {int(np.ceil(self.scores.size / q)):,} "
                "permutations, or the pooled null (CLI: --permutations B, --permutation-null pooled).",
                stacklevel=2,
            )
        return replace(sel, rule=rule, columns=(("p", self.pvalues[idx]), ("q", self.qvalues[idx])))


@result
class StabilitySelection:
    """Stability selection of a selection Run (``of``): each feature's and group's probability of
    being kept by a half of the samples (complementary pairs), ``q`` features per half.

    ``groups`` are the groups of interchangeable features counted (GDM's), ``group_probabilities``
    aligned with them; :meth:`selection` keeps the features at probability >= a threshold and
    names the PFER bound (:func:`fsviz.evaluate.pfer_bound`).
    """

    run: Run
    fingerprint: str
    of: Run
    probabilities: np.ndarray
    group_probabilities: np.ndarray
    groups: tuple
    q: float
    q_groups: float
    n_pairs: int
    seconds: float

    def pfer(self, threshold: float) -> float:
        """Meinshausen & Buehlmann's bound on the expected false selections at ``threshold``."""
        return pfer_bound(self.q, self.probabilities.size, threshold)

    def group_pfer(self, threshold: float) -> float:
        """The same bound with the groups as the variables (NaN without groups)."""
        return pfer_bound(self.q_groups, len(self.groups), threshold) if self.groups else float("nan")

    def group_of(self) -> np.ndarray:
        """Every feature's group number ``1..G`` (its first group), 0 for none."""
        out = np.zeros(self.probabilities.size, dtype=np.int64)
        for i, g in enumerate(self.groups[::-1]):
            out[np.asarray(g, dtype=np.int64)] = len(self.groups) - i
        return out

    def selection(self, threshold: float) -> Selection:
        """Features with probability >= ``threshold``, most stable first, with their probability,
        their group's probability and the rule (with the PFER bound) named."""
        idx = np.flatnonzero(self.probabilities >= threshold)
        idx = idx[np.argsort(-self.probabilities[idx], kind="stable")]
        sel = _plain_selection(self.of, self.fingerprint, idx, self.probabilities[idx], self.seconds, None)
        group = self.group_of()[idx]
        gprob = np.where(group > 0, np.r_[np.nan, self.group_probabilities][group], np.nan)
        rule = (
            f"stability:{threshold:g} (selection probability >= {threshold:g} over {2 * self.n_pairs} "
            f"complementary-pair halves, q = {self.q:g} per half; PFER <= {self.pfer(threshold):.3g}, "
            "Meinshausen-Buehlmann bound)"
        )
        return replace(
            sel,
            groups=group,
            rule=rule,
            columns=(("probability", self.probabilities[idx]), ("group_probability", gprob)),
        )


@result
class CVCurveResult:
    """Cross-validated accuracy of a selection's top k over ``ks`` (selection redone in each
    training fold) and the one-SE recommendation ``k_1se`` (:func:`fsviz.evaluate.one_se_rule`)."""

    run: Run
    fingerprint: str
    of: Run
    ks: np.ndarray
    mean: np.ndarray
    se: np.ndarray
    n_folds: int
    best_k: int
    k_1se: int
    threshold: float
    classifier: str
    seconds: float

    def describe(self) -> str:
        """The rule and its spread in words (the selection's ``rule``)."""
        i, b = int(np.searchsorted(self.ks, self.k_1se)), int(np.searchsorted(self.ks, self.best_k))
        return (
            f"cv-1se: k = {self.k_1se}, the smallest k within one standard error of the best CV accuracy "
            f"({self.mean[i]:.3f} +/- {self.se[i]:.3f} SE; best k = {self.best_k}: {self.mean[b]:.3f} "
            f"+/- {self.se[b]:.3f}; {self.n_folds}-fold, {self.classifier}, selection in each training fold)"
        )


@result
class SubsetResult:
    """A subset selector's ``selected_`` in selection order, with its ``scores_``.

    A selector that states its own rule (model-X knockoffs: FDR <= q by the knockoff+ threshold)
    names it in ``rule`` and gives its numbers in ``columns``, ``(name, array)`` pairs aligned with
    ``selected`` (the knockoff statistic ``W`` and the threshold); its selections carry both.
    """

    run: Run
    fingerprint: str
    selected: np.ndarray
    scores: np.ndarray
    seconds: float
    rule: str | None = None
    columns: tuple = ()

    def selection(self, k: int | None = None) -> Selection:
        idx = self.selected if k is None else self.selected[:k]
        sel = _plain_selection(self.run, self.fingerprint, idx, self.scores[idx], self.seconds, k)
        if self.rule is None:
            return sel
        return replace(sel, rule=self.rule, columns=tuple((n, a[: len(idx)]) for n, a in self.columns))


@result
class GRMResult:
    """GRM's refinement of a base score over its working set.

    ``candidates`` are the working-set features (GRM's ``top_``); ``base`` and ``refined``
    their base and refined scores; ``ranking`` is GRM's ``ranking_`` over all features.
    """

    run: Run
    fingerprint: str
    base_run: Run
    candidates: np.ndarray
    base: np.ndarray
    refined: np.ndarray
    ranking: np.ndarray
    refined_all: np.ndarray
    lambda_history: np.ndarray
    seconds: float

    @property
    def base_method(self) -> str:
        return self.base_run.spec.label

    @property
    def base_order(self) -> np.ndarray:
        """The working set, best base score first."""
        return self.candidates[np.argsort(-self.base, kind="stable")]

    @property
    def refined_order(self) -> np.ndarray:
        """The working set in GRM's order."""
        return self.candidates[np.argsort(self.ranking[self.candidates], kind="stable")]

    def selection(self, k: int | None = None) -> Selection:
        order = np.argsort(self.ranking, kind="stable")
        idx = order if k is None else order[:k]
        return _plain_selection(self.run, self.fingerprint, idx, self.refined_all[idx], self.seconds, k)


@result
class StreamResult:
    """An online run: per arriving feature its outcome, the reason and the set size after it.

    ``outcome[i]`` is the decision on the feature that arrived i-th (``arrival[i]``):
    ``"selected"``, ``"irrelevant"``, ``"redundant"``, ``"removed"`` (admitted, later
    displaced) or ``"ungrouped"``; ``reason[i]`` is SAOLA's own explanation
    (``SelectionHistory.explanations``); ``set_size[i]`` the selected-set size after it.
    """

    run: Run
    fingerprint: str
    arrival: np.ndarray
    outcome: tuple
    reason: tuple
    set_size: np.ndarray
    selected: np.ndarray
    scores: np.ndarray
    seconds: float

    def counts(self) -> dict[str, int]:
        """How many arriving features ended in each outcome."""
        values, counts = np.unique(np.asarray(self.outcome, dtype=str), return_counts=True)
        return {str(v): int(c) for v, c in zip(values, counts, strict=True)}

    def selection(self, k: int | None = None) -> Selection:
        idx = self.selected if k is None else self.selected[:k]
        return _plain_selection(self.run, self.fingerprint, idx, self.scores[idx], self.seconds, k)


@result
class HistogramResult:
    """Counts of |rho| per interval over all feature pairs (or a sampled estimate)."""

    run: Run
    fingerprint: str
    edges: np.ndarray
    counts: np.ndarray
    exact: bool
    n_pairs: int  # pairs counted: all of them (exact), or the uniformly sampled pairs (estimate)
    n_pairs_total: int  # m(m-1)/2 over the non-constant features
    n_constant: int
    seconds: float
    n_above: float = 0  # pairs above the last edge (explicit edges ending below 1)
    n_evaluated: int = 0  # pair correlations computed explicitly (all, co-occurring, or sampled)
    algorithm: str = ""  # how they were counted: dense-blas(-float32), sparse-cooccurrence, sampled

    @property
    def fractions(self) -> np.ndarray:
        """Share of all pairs in each interval (the bars of TPAMI Fig. 1)."""
        return self.counts / max(self.n_pairs_total, 1)

    @property
    def tail_fractions(self) -> np.ndarray:
        """Share of pairs with |rho| at least each lower edge (1 - CDF)."""
        tail = np.cumsum(self.counts[::-1])[::-1] + self.n_above
        return tail / max(self.n_pairs_total, 1)


@result
class Evaluation:
    """Quality of the first ``k`` features of a selection.

    Class labels: CV accuracy (``cv_accuracy``, ``cv_std``); a continuous target:
    CV R^2 and RMSE of a ridge regression (``cv_r2``, ``cv_rmse`` and their fold
    spreads), ``cv_accuracy`` NaN. :attr:`quality` and :attr:`quality_label` give the
    headline number and its name for either.

    ``reselected``: the selection was redone inside every training fold (no selection
    bias); otherwise the features chosen on all samples were evaluated (optimistic).
    """

    run: Run
    fingerprint: str
    k: int
    cv_accuracy: float  # NaN without labels or with a class of one sample
    redundancy: float
    reselected: bool
    seconds: float
    cv_std: float = float("nan")  # spread of the fold accuracies (population std)
    n_folds: int = 0
    # continuous targets (target == "continuous"): K-fold ridge regression instead of accuracy,
    # cv_accuracy stays NaN (fsviz.evaluate.cv_regression)
    target: str | None = "classes"
    cv_r2: float = float("nan")
    cv_r2_std: float = float("nan")
    cv_rmse: float = float("nan")
    cv_rmse_std: float = float("nan")
    #: why the CV quality is NaN (no target, one class, a class of one sample …), in words a
    #: page can show next to the missing number; empty when it was computed
    note: str = ""

    @property
    def is_regression(self) -> bool:
        """True when the quality is R^2/RMSE of a regression (continuous target)."""
        return self.target == "continuous"

    @property
    def quality(self) -> float:
        """The headline CV number: accuracy (classes) or R^2 (continuous target)."""
        return self.cv_r2 if self.is_regression else self.cv_accuracy

    @property
    def quality_std(self) -> float:
        return self.cv_r2_std if self.is_regression else self.cv_std

    @property
    def quality_label(self) -> str:
        """How to name :attr:`quality`: ``"CV R²"`` or ``"CV accuracy"`` (never accuracy for R²)."""
        return "CV R²" if self.is_regression else "CV accuracy"


@result
class PairsResult:
    """The most correlated feature pairs ``(i[t], j[t], rho[t])``, largest |rho| first."""

    run: Run
    fingerprint: str
    i: np.ndarray
    j: np.ndarray
    rho: np.ndarray
    seconds: float


@result
class CorrelationsResult:
    """Every feature's correlation with one feature or with the target (``against``)."""

    run: Run
    fingerprint: str
    rho: np.ndarray
    against: str
    seconds: float


@result
class StabilityResult:
    """A selection redone on bootstrap resamples: the subsets, per-feature frequency, indices.

    ``group_frequency`` is per GDM group (the selection's own groups) when the selection
    is GDM's, else empty. ``group_kuncheva`` and ``group_jaccard`` count two resamples as
    agreeing on a feature when they hold it or one that counts as the same: GDM's group on all
    samples (the selection is GDM's), else ``|rho| >= 1 - tau``
    (:func:`fsviz.evaluate.selection_stability` with ``X`` and ``tau``).
    """

    run: Run
    fingerprint: str
    subsets: tuple
    frequency: np.ndarray
    kuncheva: float
    jaccard: float
    group_frequency: np.ndarray
    group_support: np.ndarray
    seconds: float
    group_kuncheva: float = float("nan")
    group_jaccard: float = float("nan")
    tau: float = float("nan")  # the tolerance of the group-level indices (GDM: its own tau)


@result
class LeakageResult:
    """Features that predict the target perfectly on their own: ``(index, name, why)``."""

    run: Run
    fingerprint: str
    features: tuple
    seconds: float


@result
class Projection:
    """PCA 2-D coordinates of the samples on a feature subset."""

    run: Run
    fingerprint: str
    coords: np.ndarray
    explained: np.ndarray
    features: np.ndarray
    seconds: float = 0.0


@result
class ImagePanels:
    """Pictures for the pixel-mask view: a few example images and the class means."""

    run: Run
    fingerprint: str
    examples: np.ndarray  # (k, h, w)
    example_labels: tuple
    means: np.ndarray  # (c, h, w)
    mean_labels: tuple
    shape: tuple
    seconds: float = 0.0


@result
class BenchmarkResult:
    """The survey's protocol (:func:`fsviz.evaluate.benchmark`) on one dataset.

    ``table`` is the tidy frame (one row per method, k, classifier and fold, or per method,
    k and K-means repeat); ``notes`` say what was adjusted (ks clipped to the number of
    features).
    """

    run: Run
    fingerprint: str
    table: pd.DataFrame
    notes: tuple
    seconds: float


__all__ = [
    "ROLES",
    "BenchmarkResult",
    "Evaluation",
    "GRMResult",
    "GroupResult",
    "HistogramResult",
    "CorrelationsResult",
    "ImagePanels",
    "PairsResult",
    "StabilityResult",
    "LeakageResult",
    "Projection",
    "ScoreResult",
    "Selection",
    "StreamResult",
    "SubsetResult",
]
