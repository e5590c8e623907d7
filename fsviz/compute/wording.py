"""The words pages and reports show: plurals, help texts, notes on missing numbers."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from fsviz.compute.results import Evaluation, GroupResult, HistogramResult
from fsviz.viz.compare import CV_BIASED, CV_HONEST, CV_R2_BIASED, CV_R2_HONEST


def feature_group_text(result: GroupResult, feature: int, feature_names: Sequence[str]) -> tuple[bool, str]:
    """``(in a group, sentence)`` answering "which group is this feature in?"."""
    from fsviz.viz.groups import find_feature_group

    names = [str(n) for n in feature_names]
    g = find_feature_group(result, int(feature), names)
    if g is None:
        return (
            False,
            f"{names[feature]} is in no group: not a support feature, nor affiliated to one at this tau.",
        )
    role = "support" if g["role"] == "SF" else "an affiliated"
    return True, (
        f"{g['name']} is the {role} feature of the group of {g['support_name']} (|ρ| = {g['rho']:.3f}; "
        f"{g['group_size']} features; the {g['group_rank']}. largest of {g['n_groups']} groups)."
    )


def names_preview(feature_names: Sequence[str], indices, limit: int = 12) -> str:
    """``'a, b, c … (+n more)'`` for a list of feature indices."""
    idx = np.asarray(indices, dtype=np.int64)
    names = np.asarray(feature_names, dtype=object)[idx[:limit]]
    more = f" … (+{len(idx) - limit} more)" if len(idx) > limit else ""
    return ", ".join(map(str, names)) + more


def plural(n: int, word: str, plural_form: str | None = None, *, with_count: bool = True) -> str:
    """``"1 feature"``, ``"3 features"``, ``"2 classes"``: counts that read right."""
    form = (
        word if n == 1 else (plural_form or (word + "es" if word.endswith(("s", "x", "ch")) else word + "s"))
    )
    return f"{n:,} {form}" if with_count else form


#: help texts of the abbreviations the app shows (metric helps, column helps)
HELP = {
    "tau": "τ (tau): a feature joins a support feature's group when their correlation |ρ| ≥ 1 − τ "
    "(GDM paper, Theorem 1). Small τ: only near-copies group together; the paper uses τ ≤ 0.5.",
    "SF": "Support features (SF): the features GDM's classifier uses, found iteratively by the cutting "
    "plane; each heads a group.",
    "AF": "Affiliated features (AF): features so correlated with a support feature (|ρ| ≥ 1 − τ) that "
    "they carry the same information; interchangeable with it.",
    "s_j": "|s_j|: the absolute score of feature j against GDM's dual weights (s_j = f_j·α̃); GDM picks "
    "the features with the largest |s_j| as the next support features.",
    "Kuncheva": "Kuncheva's index: agreement of selected subsets corrected for chance (0 = chance, 1 = "
    "identical). It is defined for subsets of equal size only.",
    "group_stability": "By groups: two resamples agree on a feature when both hold it, or one holds it and "
    "the other a feature that counts as the same (GDM: a member of its group; otherwise |ρ| ≥ 1 − τ), each "
    "feature paired at most once (a maximum matching). Equal to the per-feature index when no selected "
    "features are correlated; higher when a method picks different members of the same groups.",
    "ECV": "Embedded cross-validation (TPAMI Alg. 4): each iteration runs CRM on V training splits and the "
    "folds vote on the support features. Costs V + 1 CRM passes per iteration (1-4x the fit time); on 7 "
    "real sets it gave no more stable support and no better accuracy (docs/gdm.md, ECV verdict).",
    "correlations": "Feature–feature correlations GDM actually computed (the CRM walks and the group "
    "completion), against all m(m−1)/2 pairs an all-pairs method needs.",
}


def share_of_pairs(n_computed: int, n_pairs: int) -> str:
    """``"0.42% of m(m−1)/2"``; a count above all pairs (tiny data: walks recompute pairs
    across iterations) says so instead of a share over 100 %."""
    if n_pairs <= 0:
        return "no pairs (one feature)"
    if n_computed > n_pairs:
        return f"{n_computed / n_pairs:.2g}× all pairs (some recomputed across iterations)"
    return f"{100 * n_computed / n_pairs:.3g}% of m(m−1)/2"


def compact_count(n: int) -> str:
    """``"2,016"``, ``"5.00 billion"``: a count that fits a metric tile (an exact 13-digit
    count was cut off there as "4,999,950…"); exact up to ten million."""
    n = int(n)
    if abs(n) < 10_000_000:
        return f"{n:,}"
    for scale, unit in ((1e12, "trillion"), (1e9, "billion"), (1e6, "million")):
        if abs(n) >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n:,}"  # unreachable: 10 million is above a million


def gdm_all_kept_note(result: GroupResult, n_features: int) -> str | None:
    """What happened when GDM's support features are every feature of the table (a small
    table: its cutting plane adds up to ``n_per_iter`` features for ``max_iter`` iterations):
    not a selection; None otherwise."""
    n_sf = len(result.support)
    if n_features <= 0 or n_sf < n_features:
        return None
    run = result.run
    per, iters = int(run.get("n_per_iter")), int(run.get("max_iter"))
    return (
        f"GDM kept all {plural(n_features, 'feature')} as support features: it adds up to {per} per "
        f"iteration for {iters} iterations ({per * iters:,} in all), more than this table has, so "
        "nothing was left out. This is the whole table, not a selection; lower the features per "
        "iteration or the iterations for a smaller one."
    )


def top_k_in_table(k: int, n_features: int) -> tuple[int, str | None]:
    """``(k, note)``: the top k a page evaluates, at most the table's features, and a note when
    the k asked covers every feature (a ranking of everything, not a selection)."""
    k, m = int(k), int(n_features)
    if m <= 0 or k < m:
        return k, None
    asked = f"the top {k} asked covers" if k > m else "the top k covers"
    return m, (
        f"This table has {plural(m, 'feature')}: {asked} all of them, so the evaluation and the "
        "table below rank every feature rather than select some. Lower the top-k evaluated for a selection."
    )


#: column names of physiological measurements that cannot be 0 in a living person: a 0 there is
#: a missing value coded as 0 (the Pima diabetes table: glucose, blood pressure, skin thickness,
#: insulin, BMI)
_NEVER_ZERO = (
    r"gluc|pressure|\bbp\b|systolic|diastolic|skin|insulin|\bbmi\b|body.?mass|weight|height|"
    r"cholest|heart.?rate|pulse|temperature|haemoglobin|hemoglobin|creatinine|albumin|sodium|potassium"
)


def zeros_as_missing_note(X, feature_names: Sequence[str], limit: int = 8) -> str | None:
    """A note when physiological columns (by name) hold zeros among positive values: zeros
    that most likely mean "missing" (Pima-style) and would be read as measurements. None
    when there are none."""
    import re

    import scipy.sparse as sp

    names = [str(n) for n in feature_names]
    # one search over all names, lower-cased (IGNORECASE per name took 0.4 s at 100,000 names)
    low = [n.lower() for n in names]
    ends = np.cumsum([len(n) + 1 for n in low])
    hits = [m.start() for m in re.finditer(_NEVER_ZERO, "\n".join(low))]  # no match spans a "\n"
    cand = np.unique(np.searchsorted(ends, np.asarray(hits, dtype=np.int64), side="right"))
    if cand.size == 0 or sp.issparse(X) or not isinstance(X, np.ndarray):  # in memory or mapped only
        return None
    B = np.asarray(X[:, cand], dtype=np.float64)
    zeros = (B == 0).sum(axis=0)
    positive = np.where(B > 0, B, np.inf).min(axis=0)
    negative = (B < 0).any(axis=0)
    # zeros among strictly positive values, the smallest of which is well away from zero
    hit = (zeros > 0) & ~negative & np.isfinite(positive) & (positive > 0)
    if not hit.any():
        return None
    listed = ", ".join(f"{names[j]} ({int(z):,})" for j, z in zip(cand[hit], zeros[hit], strict=True))
    more = int(hit.sum()) - limit
    if more > 0:
        listed = ", ".join(listed.split(", ")[:limit]) + f" and {more} more"
    return (
        f"Zeros in physiological columns that cannot be 0 in a living person: {listed}. They are most "
        "likely missing values coded as 0, and are used as measurements now. The import plan's "
        "**Missing-value markers** can read 0 as missing (in every column: only where no other column "
        "holds real zeros); else clean the file first."
    )


def kuncheva_text(value: float) -> str:
    """Kuncheva's index as text; "n/a (sizes differ)" where it is undefined (NaN)."""
    return "n/a (sizes differ)" if value != value else f"{value:.3f}"


def group_stability_text(res) -> str:
    """What the group-level stability of a :class:`StabilityResult` counts as one feature."""
    of = res.run.get("of")
    if of is not None and of.method == "gdm":
        return f"Groups: GDM's groups on all samples (τ = {res.tau:g}), returned through any member."
    return f"Groups: features with |ρ| ≥ 1 − τ = {1 - res.tau:.2f} count as the same."


def evaluation_note(ev: Evaluation | None) -> str:
    """Why an evaluation's CV number is missing ("" when it is there): every empty cell of
    the compare table and every missing metric says why, instead of showing "nan"."""
    if ev is None:
        return "not evaluated yet: press Evaluate"
    if np.isfinite(ev.quality):
        return ""
    return ev.note or "not computed"


def compare_chart_note(frame: pd.DataFrame, biased: bool) -> str:
    """Why the compare chart has nothing to plot ("" when it has): no CV number in the table."""
    wanted = (CV_HONEST, CV_R2_HONEST) + ((CV_BIASED, CV_R2_BIASED) if biased else ())
    cols = [c for c in wanted if c in frame]
    if frame.empty or any(np.isfinite(frame[c].to_numpy(dtype=float)).any() for c in cols):
        return ""
    notes = sorted({n for n in frame["note"] if n})
    return "No CV number to plot: " + ("; ".join(notes) or "not computed") + "."


def quality_text(ev: Evaluation) -> str:
    """``"0.912 ± 0.034"``, or ``"—"`` when the CV number could not be computed (see
    :func:`evaluation_note` for why)."""
    if not np.isfinite(ev.quality):
        return "—"
    return f"{ev.quality:.3f} ± {ev.quality_std:.3f}"


def histogram_text(res: HistogramResult) -> str:
    """What the correlation histogram counted: exact over all pairs, or an estimate from a
    sample of pairs with its error (one binomial standard error per bin; a bin no sampled
    pair fell in holds less than 3/n of the pairs at 95 % confidence, the rule of three)."""
    how = f"{res.n_pairs_total:,} pairs of non-constant features"
    how += f" ({res.n_constant} constant features not counted)"
    if res.exact:
        return f"Counts are **exact over all** {how}; {res.seconds:.2f} s."
    n = max(int(res.n_pairs), 1)
    total = float(np.sum(res.counts)) or 1.0
    p = np.asarray(res.counts, dtype=float) / total
    worst = float(np.max(np.sqrt(p * (1 - p) / n))) * 100
    return (
        f"Counts are an **estimate** from {n:,} uniformly sampled pairs of {how}: each bar ± one binomial "
        f"standard error (at most ±{worst:.2g} percentage points); an empty interval holds less than "
        f"{3 / n:.1g} of the pairs (95 %). Exact counts: raise the feature limit (all pairs; on a Dask "
        f"cluster for the widest data); {res.seconds:.2f} s."
    )
