"""What a notebook user holds, read as what the figure builders draw.

The builders draw from plain arrays and the run layer's frozen results; a notebook user holds
fitted estimators (``GDM().fit(X, y)``, ``GRM``, ``SAOLA``, any scorer) and DataFrames. These
helpers read either by duck typing, so ``fsviz.viz`` imports neither :mod:`fsviz.compute` nor
:mod:`fsviz.select` (a fitted estimator is known by its trailing-underscore attributes).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np


def _fitted(obj: Any, *names: str) -> bool:
    return all(hasattr(obj, n) for n in names)


def feature_names_of(obj: Any, feature_names: Any = None) -> Any:
    """The names to label features with: ``feature_names`` as given (a sequence, or a pandas /
    polars DataFrame whose columns are the features), else ``obj.feature_names_in_`` (set by a
    selector fitted on a DataFrame), else None (labels ``f<i>``)."""
    if feature_names is not None:
        columns = getattr(feature_names, "columns", None)
        if columns is not None and not isinstance(feature_names, np.ndarray):
            return np.asarray([str(c) for c in columns], dtype=object)
        return feature_names
    names = getattr(obj, "feature_names_in_", None)
    return None if names is None else np.asarray(names, dtype=object)


def _scores_of(obj: Any, who: str) -> np.ndarray:
    for attr in ("scores_", "scores"):
        v = getattr(obj, attr, None)
        if v is not None:
            return np.asarray(v, dtype=np.float64)
    raise ValueError(
        f"{who}: {type(obj).__name__} has no scores; pass a fitted scorer, a result or an array."
    )


def _selected_of(obj: Any) -> np.ndarray | None:
    """Indices a fitted selector keeps (``selected_``, else ``get_support(indices=True)``)."""
    for attr in ("selected_", "selected", "indices"):
        v = getattr(obj, attr, None)
        if v is not None:
            return np.asarray(v, dtype=np.int64).ravel()
    if callable(getattr(obj, "get_support", None)):
        return np.asarray(obj.get_support(indices=True), dtype=np.int64)
    return None


def as_groups(obj: Any, who: str) -> Any:
    """A GroupResult-like (``support``, ``sf_scores``, ``af``, ``af_sf``, ``af_rho``, ``scores``)
    from a GroupResult, a fitted GDM (``support_``, ``groups_``, ``group_corr_``, ``scores_``) or
    any fitted selector (its selected features as groups of one)."""
    if _fitted(obj, "support", "af", "af_sf"):
        return obj
    if _fitted(obj, "support_", "groups_"):
        support = np.asarray(obj.support_, dtype=np.int64)
        parts = [np.asarray(obj.groups_.get(int(s), ()), dtype=np.int64) for s in support]
        corr = getattr(obj, "group_corr_", {}) or {}
        rhos = [
            np.abs(np.asarray(corr.get(int(s), np.full(p.size, np.nan)), dtype=np.float64))
            for s, p in zip(support, parts, strict=True)
        ]
        scores = np.abs(_scores_of(obj, who))
        empty_i, empty_f = np.zeros(0, dtype=np.int64), np.zeros(0)
        return SimpleNamespace(
            support=support,
            sf_scores=scores[support],
            af=np.concatenate(parts) if parts else empty_i,
            af_sf=np.repeat(support, [p.size for p in parts]) if parts else empty_i,
            af_rho=np.concatenate(rhos) if rhos else empty_f,
            scores=scores,
        )
    selected = _selected_of(obj)
    if selected is not None:
        n = int(getattr(obj, "n_features_in_", selected.max() + 1 if selected.size else 0))
        scores = getattr(obj, "scores_", None)
        scores = np.zeros(n) if scores is None else np.abs(np.asarray(scores, dtype=np.float64))
        return SimpleNamespace(
            support=selected,
            sf_scores=scores[selected],
            af=np.zeros(0, dtype=np.int64),
            af_sf=np.zeros(0, dtype=np.int64),
            af_rho=np.zeros(0),
            scores=scores,
        )
    raise ValueError(
        f"{who}: expected a fitted GDM (or any fitted selector), a GroupResult or an object with "
        f"'support', 'af', 'af_sf' and 'af_rho'; got {type(obj).__name__}. Fit the estimator first."
    )


def as_order(obj: Any, who: str) -> np.ndarray:
    """Feature indices best first, from an index array, a GRM (its working set in GRM's order),
    a GRMResult (``refined_order``), a result with ``ranking`` or a fitted scorer (``ranking_``,
    else ``scores_`` descending)."""
    if isinstance(obj, np.ndarray | list | tuple):
        return np.asarray(obj, dtype=np.int64)
    if hasattr(obj, "refined_order"):
        return np.asarray(obj.refined_order, dtype=np.int64)
    ranking = getattr(obj, "ranking_", getattr(obj, "ranking", None))
    if ranking is not None:
        ranking = np.asarray(ranking, dtype=np.int64)
        top = getattr(obj, "top_", None)  # GRM: the working set; the rest carries no refined score
        if top is not None:
            top = np.asarray(top, dtype=np.int64)
            return top[np.argsort(ranking[top], kind="stable")]
        return np.argsort(ranking, kind="stable")
    if hasattr(obj, "scores_"):
        return np.argsort(-_scores_of(obj, who), kind="stable")
    raise ValueError(
        f"{who}: expected feature indices best first, a fitted GRM or scorer, or a GRMResult; "
        f"got {type(obj).__name__}."
    )


def as_scores(obj: Any, who: str) -> np.ndarray:
    """Per-feature scores from an array, a fitted scorer (``scores_``) or a result (``scores``)."""
    if hasattr(obj, "scores_") or hasattr(obj, "scores"):
        return _scores_of(obj, who)
    return np.asarray(obj, dtype=np.float64)


def as_stream(obj: Any, who: str) -> tuple[np.ndarray, np.ndarray]:
    """(set size after each arrival, outcome per arrival) from a StreamResult or a fitted
    SAOLA / group-SAOLA (its ``history_`` in the order the features arrived)."""
    if _fitted(obj, "set_size", "outcome"):
        return np.asarray(obj.set_size), np.asarray(obj.outcome, dtype=object)
    hist = getattr(obj, "history_", None)
    if hist is not None and callable(getattr(hist, "set_sizes", None)):
        return hist.set_sizes(), hist.outcomes()  # both in the order the features arrived
    raise ValueError(
        f"{who}: expected (set_size, decision) arrays, a fitted SAOLA / GroupSAOLA or a StreamResult; "
        f"got {type(obj).__name__}."
    )


def as_histogram(obj: Any) -> dict:
    """``correlation_sparsity``'s keyword arguments from a CorrelationHistogram
    (:func:`fsviz.stats.correlation_histogram`) or a HistogramResult."""
    exact = bool(getattr(obj, "exact", True))
    total = getattr(obj, "n_pairs_total", None)
    if total is None:
        total = getattr(obj, "n_pairs", None)
    sampled = None if exact else getattr(obj, "n_evaluated", None) or getattr(obj, "n_pairs", None)
    return {"exact": exact, "n_pairs_total": None if total is None else int(total), "n_sampled": sampled}
