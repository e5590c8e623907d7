"""Tables for pages and exports: pure functions of results and datasets -> DataFrames / bytes.

The selection CSV written here is the one export format of a selection: the app's
download and ``fsviz select -o`` both write :func:`selection_csv`, and the reduced
dataset is :meth:`fsviz.data.Dataset.subset` written by :meth:`~fsviz.data.Dataset.to_csv`
(class names kept; the label column never takes a feature's name).
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from fsviz.compute.results import Evaluation, GRMResult, GroupResult, Selection, StreamResult
from fsviz.compute.runs import Run, params_label
from fsviz.viz.compare import CV_BIASED, CV_HONEST, CV_R2_BIASED, CV_R2_HONEST, CV_RMSE, CV_STD

#: columns of the selection CSV, in order
SELECTION_COLUMNS = ("rank", "index", "name", "score", "role", "group")


def gdm_run(form: Mapping[str, Any], seed: int = 0) -> Run:
    """The GDM Run of the Groups page's form: GDM's declared parameters by name.

    The form's own conventions map to the declaration here: ``cv_folds`` 0 means off (None),
    ``positive`` None means all classes at once. Types and defaults are the Run's business.
    """
    params = dict(form)
    if not params.get("cv_folds"):
        params["cv_folds"] = None
    return Run("gdm", params, seed)


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


# ---------------------------------------------------------------------------- dataset facts
def summary_frame(summary) -> pd.DataFrame:
    """A :class:`fsviz.data.DatasetSummary` as a two-column table (quantity, value)."""
    shape = summary.image_shape
    rows = [
        ("samples", summary.n_samples),
        ("features", summary.n_features),
        ("storage", "sparse" if summary.is_sparse else "dense"),
        ("non-zero fraction", f"{1.0 - summary.sparsity:.4f}"),
        ("constant features", summary.n_constant),
        ("missing values filled", summary.n_missing),
        ("target", summary.label_kind or "none"),
        (
            "classes",
            len(summary.classes)
            if summary.classes
            else ("none (continuous target)" if summary.label_kind == "continuous" else "none (unlabelled)"),
        ),
        ("image shape", "x".join(map(str, shape)) if shape else "none"),
        ("fingerprint", summary.fingerprint[:16]),
    ]
    return pd.DataFrame(rows, columns=["quantity", "value"]).astype({"value": str})


def classes_frame(summary) -> pd.DataFrame:
    """Class names with their sample counts and shares."""
    counts = np.asarray(summary.class_counts, dtype=np.int64)
    share = np.round(counts / max(int(counts.sum()), 1), 4)
    return pd.DataFrame({"class": [str(c) for c in summary.classes], "samples": counts, "share": share})


def roles_frame(dataset, leaks: Sequence[tuple] = ()) -> pd.DataFrame:
    """The columns that need a look, with their role: the target, constant features, leaks.

    One row for the target column, one per constant feature and per feature that predicts
    the target perfectly on its own (``leaks`` from ``fsviz.data.leaky_features``), and a
    last row counting the other features.
    """
    names = np.asarray(dataset.feature_names, dtype=object)
    rows = []
    if dataset.y is not None:
        kind = f"{len(dataset.class_labels()[0])} classes" if dataset.is_classification else "continuous"
        rows.append((dataset.label_column(), "target", kind))
    rows += [
        (str(names[j]), "constant feature", "one value: scores 0, in no group")
        for j in dataset.constant_features
    ]
    rows += [(str(name), "feature: possible leak", why) for _, name, why in leaks]
    flagged = len(dataset.constant_features) + len(leaks)
    rows.append((f"the other {dataset.n_features - flagged:,} columns", "feature", ""))
    return pd.DataFrame(rows, columns=["column", "role", "note"])


def preview_frame(dataset, n_rows: int = 8, n_cols: int = 20) -> pd.DataFrame:
    """The first rows and columns of the dataset (label column last) as a table."""
    cols = min(n_cols, dataset.n_features)
    sub = dataset.subset(features=np.arange(cols), samples=np.arange(min(n_rows, dataset.n_samples)))
    X = sub.X.toarray() if sub.is_sparse else np.asarray(sub.X)
    frame = pd.DataFrame(X, columns=[str(c) for c in sub.feature_names])
    if sub.y is not None:
        frame[sub.label_column()] = sub.labels
    return frame


# ---------------------------------------------------------------------------- selections
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


def kuncheva_text(value: float) -> str:
    """Kuncheva's index as text; "n/a (sizes differ)" where it is undefined (NaN)."""
    return "n/a (sizes differ)" if value != value else f"{value:.3f}"


#: the order of the roles in the roles table: what leaves X first
_ROLE_ORDER = {"target": 0, "identifier": 1, "ignored": 2, "feature": 3}


def column_roles_frame(roles: Sequence, current: dict, limit: int = 1000) -> pd.DataFrame:
    """The Data page's roles table: one row per column (the target, identifiers and ignored
    columns first, then features in file order, at most ``limit`` rows).

    ``roles`` are the inferred :class:`fsviz.data.ColumnRole` of each column; ``current`` the
    role each column has now (the inferred one or the user's choice).
    """
    rows = []
    for pos, r in enumerate(roles):
        name = str(r.name)
        role = current.get(name, r.role)
        note = r.reason if role == r.role else f"set by you (suggested: {r.role})"
        flags = ", ".join(r.flags)
        rows.append(
            {
                "column": name,
                "role": role,
                "type": r.dtype,
                "missing": int(r.n_missing),
                "distinct": int(r.n_unique),
                "note": "; ".join(x for x in (note, flags) if x),
                "_order": (_ROLE_ORDER.get(role, 3), pos),
            }
        )
    rows.sort(key=lambda row: row["_order"])
    frame = pd.DataFrame(
        rows[:limit], columns=["column", "role", "type", "missing", "distinct", "note", "_order"]
    )
    return frame.drop(columns="_order")


def selection_frame(selection: Selection, feature_names: Sequence[str]) -> pd.DataFrame:
    """The export table: ``rank, index, name, score, role, group``, one row per feature.

    ``group`` is the group number 1..K (GDM: the K-th support feature found and its
    affiliated features), 0 for a feature in no group.
    """
    names = np.asarray(feature_names, dtype=object)
    idx = np.asarray(selection.indices, dtype=np.int64)
    return pd.DataFrame(
        {
            "rank": np.arange(1, len(idx) + 1, dtype=np.int64),
            "index": idx,
            "name": names[idx].astype(str) if idx.size else np.array([], dtype=str),
            "score": np.asarray(selection.scores, dtype=np.float64),
            "role": np.asarray(selection.roles, dtype=object).astype(str),
            "group": np.asarray(selection.groups, dtype=np.int64),
        },
        columns=list(SELECTION_COLUMNS),
    )


def selection_csv(selection: Selection, feature_names: Sequence[str]) -> bytes:
    """CSV bytes of :func:`selection_frame`; floats with 17 significant digits (round-trips)."""
    frame = selection_frame(selection, feature_names)
    return frame.to_csv(index=False, float_format="%.17g", lineterminator="\n").encode()


def read_selection_csv(data: bytes) -> pd.DataFrame:
    """Inverse of :func:`selection_csv`."""
    from fsviz.data.formats._source import _exact_floats

    dtypes = {"rank": np.int64, "index": np.int64, "name": str, "score": np.float64, "role": str}
    return pd.read_csv(
        io.BytesIO(data),
        dtype=dtypes | {"group": np.int64},
        keep_default_na=False,
        **_exact_floats(),
    )


def provenance(selection: Selection, dataset) -> dict:
    """Where a selection comes from: dataset, method, every parameter, seed, version, date.

    Written next to the selection CSV (the app's JSON download, ``fsviz select
    --provenance``); ``Run.from_dict(provenance(...)["run"])`` gives the Run back, so the
    selection can be recomputed.
    """
    import datetime

    from fsviz import __version__

    run = selection.run
    return {
        "fsviz_version": __version__,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "dataset": {
            "name": str(dataset.name),
            "fingerprint": str(dataset.fingerprint),
            "n_samples": int(dataset.n_samples),
            "n_features": int(dataset.n_features),
            "label_column": dataset.label_column() if dataset.y is not None else None,
        },
        "method": run.spec.label,
        "run": run.to_dict(),
        "run_key": run.key,
        "k": selection.k,
        "n_selected": selection.n_features,
        "columns": {
            "rank": "1 = first in the method's order",
            "index": "0-based column index in the dataset",
            "score": "the method's score of the feature (higher = better)",
            "role": "SF support feature, AF affiliated feature (GDM), selected otherwise",
            "group": "GDM group number 1..K (the K-th support feature found and its AFs); 0 = none",
        },
    }


def provenance_json(selection: Selection, dataset) -> bytes:
    """:func:`provenance` as indented JSON bytes."""
    import json

    return json.dumps(provenance(selection, dataset), indent=2).encode()


def reduced_csv(dataset, indices: Sequence[int]) -> bytes:
    """The dataset restricted to ``indices`` as CSV (``Dataset.subset(...).to_csv()``).

    The sample names first (when the dataset has them: the identifier column it was loaded
    with), feature names as columns in selection order, then the label column with the
    class names as loaded; names holding a comma, a quote or a line break are quoted as
    Python's csv writer does; floats written so that reading back gives the same bits.
    """
    idx = np.asarray(indices, dtype=np.int64)
    return dataset.subset(features=idx).to_csv().encode()


# ---------------------------------------------------------------------------- GDM
def groups_frame(result: GroupResult, feature_names: Sequence[str]) -> pd.DataFrame:
    """One row per feature in a group: group (1..K), role, index, name, score, |rho| to its SF."""
    names = np.asarray(feature_names, dtype=object)
    sel = result.selection()
    idx = sel.indices
    sf_of = np.asarray(result.support)[sel.groups - 1] if len(idx) else idx
    rho = dict(zip(result.af.tolist(), result.af_rho.tolist(), strict=True))
    return pd.DataFrame(
        {
            "group": sel.groups,
            "support feature": names[sf_of].astype(str) if len(idx) else [],
            "role": list(sel.roles),
            "index": idx,
            "name": names[idx].astype(str) if len(idx) else [],
            "score": sel.scores,
            "|rho| to SF": [
                1.0 if r == "SF" else rho[i] for i, r in zip(idx.tolist(), sel.roles, strict=True)
            ],
        }
    )


def group_choices(result: GroupResult, image_shape: tuple | None = None) -> dict:
    """Selectbox options for highlighting a group: -1 -> all groups, SF index -> label.

    Groups are listed largest first (ties in support order), so the big regions of an
    image (e.g. a face's cheek) are at the top of a long list.
    """
    out: dict = {-1: f"all {len(result.support)} groups"}
    sizes = result.group_sizes()
    order = np.argsort(-sizes, kind="stable")
    for s, n in zip(result.support[order].tolist(), sizes[order].tolist(), strict=True):
        where = f" (row {s // image_shape[1]}, col {s % image_shape[1]})" if image_shape else ""
        out[int(s)] = f"group of feature {s}{where}: {n} affiliated"
    return out


def mask_opacity(result: GroupResult) -> float:
    """Default overlay opacity of the pixel masks: 0.6, or 0.35 when more than 30 % of the
    pixels are tinted (e.g. GDM on 32 x 32 faces), so the images stay readable under the colours."""
    tinted = (len(result.support) + len(result.af)) / max(int(result.n_features), 1)
    return 0.35 if tinted > 0.3 else 0.6


def group_names(support: Sequence[int], feature_names: Sequence[str]) -> list[str]:
    """``"group of <SF name>"`` for each support feature, as labels of per-group values."""
    names = np.asarray(feature_names, dtype=object)
    return [f"group of {names[int(s)]}" for s in support]


def gdm_prior_groups(result: GroupResult) -> list[list[int]]:
    """GDM's groups with at least one affiliated feature, as GRM prior groups (SF first)."""
    return [g.tolist() for g in result.partition() if len(g) > 1]


def parse_prior_groups(text: str, feature_names: Sequence[str]) -> list[list[int]]:
    """Prior groups from pasted text: one group per line, feature names separated by commas.

    Names must match exactly (a number is a name too, never an index); blank lines are
    skipped. Raises ValueError naming unknown names (with a close match when there is one),
    a feature given in two groups, or a group of one feature.
    """
    import difflib

    lookup = {str(n): j for j, n in enumerate(feature_names)}
    groups, seen, unknown = [], {}, []
    for line_no, line in enumerate(text.splitlines(), start=1):
        names = [n.strip() for n in line.split(",") if n.strip()]
        if not names:
            continue
        unknown += [n for n in names if n not in lookup]
        idx = [lookup[n] for n in names if n in lookup]
        for j in idx:
            if j in seen and seen[j] != line_no:
                raise ValueError(
                    f"prior groups: feature {feature_names[j]!r} is in line {seen[j]} and line {line_no}; "
                    "a feature belongs to one group."
                )
            seen[j] = line_no
        if len(set(idx)) == 1 and not unknown:
            raise ValueError(f"prior groups: line {line_no} names one feature; a group needs at least two.")
        groups.append(sorted(set(idx)))
    if unknown:
        hints = [
            f"{n!r}"
            + (f" (did you mean {m[0]!r}?)" if (m := difflib.get_close_matches(n, lookup, 1)) else "")
            for n in unknown[:5]
        ]
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        raise ValueError(
            f"prior groups: unknown feature name(s) {', '.join(hints)}{more}; names must match exactly."
        )
    return groups


def prior_groups_frame(groups: Sequence[Sequence[int]], feature_names: Sequence[str]) -> pd.DataFrame:
    """One row per prior group: its number, size and member names."""
    names = np.asarray(feature_names, dtype=object)
    return pd.DataFrame(
        {
            "group": np.arange(1, len(groups) + 1),
            "size": [len(g) for g in groups],
            "features": [", ".join(map(str, names[np.asarray(g, dtype=np.int64)])) for g in groups],
        }
    )


def prior_group_spread(ranking: np.ndarray, groups: Sequence[Sequence[int]]) -> float:
    """Mean over prior groups of the spread of their members' ranks (max − min rank).

    Small when the features of each group are ranked together (what GRM's prior term asks,
    eq. 25–26); NaN without groups.
    """
    if not groups:
        return float("nan")
    r = np.asarray(ranking)
    return float(np.mean([np.ptp(r[np.asarray(g, dtype=np.int64)]) for g in groups]))


# ---------------------------------------------------------------------------- GRM
#: a GRM top-k feature whose base score is below this fraction of the best base score has
#: "near-zero base evidence": GRM put it there for being unlike the others, not for its score
WEAK_EVIDENCE = 0.05


def grm_frame(
    result: GRMResult,
    feature_names: Sequence[str],
    prior_groups: Sequence[Sequence[int]] = (),
    k: int = 20,
) -> pd.DataFrame:
    """The working set with base and GRM scores and ranks (1 = best), sortable.

    ``base score / top`` is each base score relative to the best one; ``note`` marks the
    features of GRM's top ``k`` that it promoted from far down the base ranking (below rank
    2k) or that have near-zero base evidence (< :data:`WEAK_EVIDENCE` of the top score).
    With ``prior_groups``, a column names each feature's prior group (0 for none).
    """
    names = np.asarray(feature_names, dtype=object)
    n = len(result.candidates)
    base_rank = np.empty(n, dtype=np.int64)
    base_rank[np.argsort(-result.base, kind="stable")] = np.arange(1, n + 1)
    grm_rank = np.empty(n, dtype=np.int64)
    grm_rank[np.argsort(result.ranking[result.candidates], kind="stable")] = np.arange(1, n + 1)
    top = float(np.max(result.base)) if n else 0.0
    rel = result.base / top if top > 0 else np.zeros(n)
    notes = np.full(n, "", dtype=object)
    in_top = grm_rank <= k
    far = in_top & (base_rank > 2 * k)
    weak = in_top & (rel < WEAK_EVIDENCE)
    notes[far] = [
        f"promoted: base rank {b} → {g}" for b, g in zip(base_rank[far], grm_rank[far], strict=True)
    ]
    notes[weak] = [(t + "; " if t else "") + "near-zero base evidence" for t in notes[weak]]
    frame = pd.DataFrame(
        {
            "index": result.candidates,
            "name": names[result.candidates].astype(str),
            "base score": result.base,
            "base score / top": rel,
            "base rank": base_rank,
            "GRM score": result.refined,
            "GRM rank": grm_rank,
            "rank change": base_rank - grm_rank,
            "note": notes,
        }
    )
    if prior_groups:
        member = np.zeros(len(names), dtype=np.int64)
        for i, g in enumerate(prior_groups, start=1):
            member[np.asarray(g, dtype=np.int64)] = i
        frame["prior group"] = member[result.candidates]
    return frame.sort_values("GRM rank", kind="stable").reset_index(drop=True)


def grm_evidence_warning(frame: pd.DataFrame, k: int) -> str:
    """A warning when GRM's top ``k`` (a :func:`grm_frame`) holds features with near-zero base
    evidence ("" when it does not)."""
    weak = frame[(frame["GRM rank"] <= k) & (frame["base score / top"] < WEAK_EVIDENCE)]
    if weak.empty:
        return ""
    head = weak.head(5)
    shown = ", ".join(f"{n} (base rank {b})" for n, b in zip(head["name"], head["base rank"], strict=True))
    return (
        f"GRM's top {k} holds {plural(len(weak), 'feature')} with near-zero base evidence (base score "
        f"under {WEAK_EVIDENCE:.0%} of the top one): {shown}{' …' if len(weak) > 5 else ''}. GRM ranks "
        "them high for being unlike the others, not for predicting the target; check them, or lower "
        "n_top so that GRM re-ranks only features with some evidence."
    )


# ---------------------------------------------------------------------------- streams
def stream_frame(
    result: StreamResult, feature_names: Sequence[str], outcomes: Iterable[str] | None = None
) -> pd.DataFrame:
    """One row per arriving feature: arrival, index, name, outcome, reason, selected-set size.

    ``outcomes`` keeps only the rows with those outcomes (all when None).
    """
    names = np.asarray(feature_names, dtype=object)
    frame = pd.DataFrame(
        {
            "arrival": np.arange(len(result.arrival)),
            "index": result.arrival,
            "name": names[result.arrival].astype(str),
            "outcome": list(result.outcome),
            "reason": list(result.reason),
            "set size": result.set_size,
        }
    )
    if outcomes is not None:
        frame = frame[frame["outcome"].isin(list(outcomes))].reset_index(drop=True)
    return frame


# ---------------------------------------------------------------------------- correlations
def pairs_frame(result, feature_names: Sequence[str]) -> pd.DataFrame:
    """The most correlated pairs as a table: names, indices and rho, largest |rho| first."""
    names = np.asarray(feature_names, dtype=object)
    return pd.DataFrame(
        {
            "feature A": names[result.i].astype(str) if len(result.i) else [],
            "feature B": names[result.j].astype(str) if len(result.j) else [],
            "rho": result.rho,
            "index A": result.i,
            "index B": result.j,
        }
    )


def target_frame(ds) -> pd.DataFrame:
    """The target of a dataset in one table: its kind and, for a continuous target, its spread.

    Rows ``(statistic, value)``: kind (``classes``, ``continuous`` or ``none``), samples and
    distinct values; for a continuous target also min, quartiles, max, mean and standard
    deviation (population).
    """
    kind = getattr(ds, "target_kind", None)
    rows = [("kind", kind or "none")]
    if ds.y is not None:
        y = np.asarray(ds.y)
        rows += [("samples", f"{y.size:,}"), ("distinct values", f"{np.unique(y).size:,}")]
        if kind == "continuous":
            q = np.quantile(y, [0.0, 0.25, 0.5, 0.75, 1.0])
            names = ("min", "25 %", "median", "75 %", "max")
            rows += [(nm, f"{v:.4g}") for nm, v in zip(names, q, strict=True)]
            mean = float(y.mean())
            mean = 0.0 if abs(mean) < 1e-12 * float(np.abs(y).max()) else mean  # rounding of a centred y
            rows += [("mean", f"{mean:.4g}"), ("standard deviation", f"{y.std():.4g}")]
    return pd.DataFrame(rows, columns=["statistic", "value"])


# ---------------------------------------------------------------------------- compare
def compare_frame(
    rows: Iterable[tuple[Selection, Evaluation | None, Evaluation | None]], kept: Iterable[str] = ()
) -> pd.DataFrame:
    """The compare table: accuracy (with its fold spread), redundancy and time first.

    For a continuous target (regression evaluations) the columns are :data:`CV_R2_HONEST`
    (R², with its fold spread), :data:`CV_RMSE` and :data:`CV_R2_BIASED` instead.

    ``rows`` are ``(selection, honest evaluation, evaluation of the fixed selection)``;
    either evaluation may be None. :data:`CV_HONEST` is the accuracy with the selection
    redone in each training fold; :data:`CV_BIASED` that of the features chosen on all
    samples, labelled optimistic.
    """
    rows = list(rows)
    if any((h or b) is not None and (h or b).is_regression for _, h, b in rows):
        frame = _compare_frame_regression(rows)
    else:
        frame = _compare_frame_classes(rows)
    kept = set(kept)
    frame["kept"] = [sel.label in kept for sel, _, _ in rows]
    return frame


def _compare_frame_classes(rows: list) -> pd.DataFrame:
    """:func:`compare_frame` for class labels: CV accuracy and its fold spread."""
    out = []
    for sel, honest, biased in rows:
        any_ev = honest or biased
        out.append(
            {
                "method": sel.method,
                "parameters": params_label(sel.run) or "defaults",
                CV_HONEST: np.nan if honest is None else honest.cv_accuracy,
                CV_STD: np.nan if honest is None else honest.cv_std,
                "redundancy": np.nan if any_ev is None else any_ev.redundancy,
                "run time (s)": sel.seconds,
                "n features": sel.n_features,
                "evaluated on top": np.nan if any_ev is None else any_ev.k,
                "seed": sel.run.seed,
                CV_BIASED: np.nan if biased is None else biased.cv_accuracy,
                "note": evaluation_note(honest),
            }
        )
    # the figures first (on screen at 1,400 px); the parameters that tell runs apart next
    columns = ["method", CV_HONEST, CV_STD, "redundancy", "run time (s)", "parameters", "n features"]
    return pd.DataFrame(out, columns=columns + ["evaluated on top", "seed", CV_BIASED, "note"])


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


# ---------------------------------------------------------------------------- benchmark
def benchmark_summary(table: pd.DataFrame) -> pd.DataFrame:
    """The benchmark table averaged over folds (classifiers) or K-means repeats (clustering).

    One row per method, kind, classifier and k: ``mean`` and ``std`` (population, over the
    folds or repeats) of ``accuracy`` (classification) or of ``nmi`` and ``acc``
    (clustering), the mean ``n_used`` and the mean selection ``time``.
    """
    keys = ["method", "kind", "classifier", "k"]
    g = table.groupby(keys, sort=False)
    out = g.agg(
        accuracy=("accuracy", "mean"),
        accuracy_std=("accuracy", lambda v: float(np.std(v)) if v.notna().any() else np.nan),
        nmi=("nmi", "mean"),
        nmi_std=("nmi", lambda v: float(np.std(v)) if v.notna().any() else np.nan),
        acc=("acc", "mean"),
        acc_std=("acc", lambda v: float(np.std(v)) if v.notna().any() else np.nan),
        n_used=("n_used", "mean"),
        time=("time", "mean"),
    )
    return out.reset_index()


def benchmark_csv(table: pd.DataFrame) -> bytes:
    """CSV bytes of the benchmark table (floats with 17 significant digits, empty = missing).

    The app's download and ``fsviz benchmark -o`` both write this.
    """
    buf = io.StringIO()
    table.to_csv(buf, index=False, float_format="%.17g", lineterminator="\n")
    return buf.getvalue().encode()


def _compare_frame_regression(rows) -> pd.DataFrame:
    """:func:`compare_frame` for a continuous target: CV R² (fold spread) and RMSE, never accuracy."""
    out = []
    for sel, honest, biased in rows:
        any_ev = honest or biased
        out.append(
            {
                "method": sel.method,
                "parameters": params_label(sel.run) or "defaults",
                CV_R2_HONEST: np.nan if honest is None else honest.cv_r2,
                CV_STD: np.nan if honest is None else honest.cv_r2_std,
                CV_RMSE: np.nan if honest is None else honest.cv_rmse,
                "redundancy": np.nan if any_ev is None else any_ev.redundancy,
                "run time (s)": sel.seconds,
                "n features": sel.n_features,
                "evaluated on top": np.nan if any_ev is None else any_ev.k,
                "seed": sel.run.seed,
                CV_R2_BIASED: np.nan if biased is None else biased.cv_r2,
                "note": evaluation_note(honest),
            }
        )
    columns = ["method", CV_R2_HONEST, CV_STD, CV_RMSE, "redundancy", "run time (s)", "parameters"]
    return pd.DataFrame(
        out, columns=columns + ["n features", "evaluated on top", "seed", CV_R2_BIASED, "note"]
    )


__all__ = [
    "feature_group_text",
    "gdm_run",
    "benchmark_csv",
    "benchmark_summary",
    "CV_R2_BIASED",
    "CV_R2_HONEST",
    "CV_RMSE",
    "CV_BIASED",
    "CV_HONEST",
    "CV_STD",
    "HELP",
    "SELECTION_COLUMNS",
    "kuncheva_text",
    "share_of_pairs",
    "compare_chart_note",
    "evaluation_note",
    "quality_text",
    "classes_frame",
    "column_roles_frame",
    "plural",
    "compare_frame",
    "gdm_prior_groups",
    "parse_prior_groups",
    "prior_group_spread",
    "prior_groups_frame",
    "grm_evidence_warning",
    "grm_frame",
    "group_choices",
    "group_names",
    "groups_frame",
    "mask_opacity",
    "names_preview",
    "pairs_frame",
    "params_label",
    "provenance",
    "provenance_json",
    "preview_frame",
    "read_selection_csv",
    "reduced_csv",
    "roles_frame",
    "selection_csv",
    "selection_frame",
    "stream_frame",
    "summary_frame",
    "target_frame",
]
