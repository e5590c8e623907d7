"""Tables for pages: pure functions of results and datasets -> DataFrames."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from fsviz.compute.results import Evaluation, GRMResult, GroupResult, Selection, StreamResult
from fsviz.compute.runners.evaluation import TOP_K
from fsviz.compute.runs import params_label
from fsviz.compute.wording import evaluation_note, plural
from fsviz.viz.compare import CV_BIASED, CV_HONEST, CV_R2_BIASED, CV_R2_HONEST, CV_RMSE, CV_STD


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


#: the order of the roles in the roles table: what leaves X first
_ROLE_ORDER = {"target": 0, "identifier": 1, "ignored": 2, "feature": 3}


def column_roles_frame(roles: Sequence, current: dict, limit: int = 1000) -> pd.DataFrame:
    """The Data page's roles table: one row per column (the target, identifiers and ignored
    columns first, then features in file order, at most ``limit`` rows).

    ``roles`` are the inferred :class:`fsviz.data.ColumnRole` of each column; ``current`` the
    role each column has now (the inferred one or the user's choice).
    """
    roles = list(roles)
    now = [current.get(str(r.name), r.role) for r in roles] if current else [r.role for r in roles]
    # the rows shown only: a row per column of 100,000 took 0.3 s of each target change
    order = np.argsort(np.fromiter((_ROLE_ORDER.get(x, 3) for x in now), np.int64, len(now)), kind="stable")
    rows = []
    for pos in order[: max(int(limit), 0)].tolist():
        r, role = roles[pos], now[pos]
        note = r.reason if role == r.role else f"set by you (suggested: {r.role})"
        flags = ", ".join(r.flags)
        rows.append(
            {
                "column": str(r.name),
                "role": role,
                "type": r.dtype,
                "missing": int(r.n_missing),
                "distinct": int(r.n_unique),
                "note": "; ".join(x for x in (note, flags) if x),
            }
        )
    return pd.DataFrame(rows, columns=["column", "role", "type", "missing", "distinct", "note"])


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


#: a GRM top-k feature whose base score is below this fraction of the best base score has
#: "near-zero base evidence": GRM put it there for being unlike the others, not for its score
WEAK_EVIDENCE = 0.05


def grm_frame(
    result: GRMResult,
    feature_names: Sequence[str],
    prior_groups: Sequence[Sequence[int]] = (),
    k: int = TOP_K.default,
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


def benchmark_summary(table: pd.DataFrame) -> pd.DataFrame:
    """The benchmark table averaged over folds (classifiers) or K-means repeats (clustering).

    One row per method, kind, classifier and k: ``mean`` and ``std`` (population, over the
    folds or repeats) of ``accuracy`` (classification) or of ``nmi`` and ``acc``
    (clustering), the mean ``n_used`` and the mean selection ``time``; with the benchmark's
    ``stability_tau``, the stability of the fold selections (``kuncheva``, ``group_kuncheva``).
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
        **{c: (c, "first") for c in ("kuncheva", "group_kuncheva") if c in table},  # one per method, k
    )
    return out.reset_index()


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


def evidence_n_top(scores, cap: int, k: int = 2) -> int:
    """GRM's working-set size that holds only features with some base evidence (a score of at least
    :data:`WEAK_EVIDENCE` of the top one), between ``k`` and ``cap``: GRM at that ``n_top`` never
    ranks a feature without evidence into its top ``k`` while ``k`` of them have some."""
    s = np.asarray(scores, dtype=np.float64)
    top = float(np.nanmax(s)) if s.size else 0.0
    if top <= 0:
        return int(min(cap, max(k, 2)))
    have = int(np.count_nonzero(s >= WEAK_EVIDENCE * top))
    return int(min(cap, max(have, k, 2)))


def prior_groups_outside(scores, groups, n_top: int, feature_names) -> list[str]:
    """Sentences for the prior groups GRM cannot use: fewer than two of their features among the
    ``n_top`` best base scores (GRM's working set), so the group changes nothing."""
    s = np.asarray(scores, dtype=np.float64)
    order = np.argsort(-s, kind="stable")
    positive = order[s[order] > 0]
    rank = np.full(s.size, s.size + 1, dtype=np.int64)
    rank[positive] = np.arange(1, positive.size + 1)
    names = np.asarray(feature_names, dtype=object)
    out = []
    for i, g in enumerate(groups, start=1):
        g = np.asarray(list(g), dtype=np.int64)
        inside = int(np.count_nonzero(rank[g] <= n_top))
        if inside >= 2:
            continue
        need = int(np.sort(rank[g])[1]) if g.size >= 2 else n_top
        shown = ", ".join(str(names[j]) for j in g[:4]) + (" …" if g.size > 4 else "")
        fix = (
            f"raise n_top to {need:,} to bring it in"
            if need <= positive.size
            else "its features have no positive base score, so no n_top brings them in"
        )
        out.append(
            f"Prior group {i} ({shown}) has {inside} of its {g.size} features among the top {n_top:,} base "
            f"scores, GRM's working set: it changes nothing; {fix}."
        )
    return out


def groups_in_words(groups, feature_names, limit: int = 3) -> str:
    """``"{TP53, MDM2}, {BRCA1, BRCA2} (+2 more)"``: prior groups by feature name."""
    names = np.asarray(feature_names, dtype=object)
    parts = [
        "{" + ", ".join(str(names[j]) for j in list(g)[:6]) + (", …" if len(g) > 6 else "") + "}"
        for g in groups
    ]
    more = f" (+{len(parts) - limit} more)" if len(parts) > limit else ""
    return ", ".join(parts[:limit]) + more
