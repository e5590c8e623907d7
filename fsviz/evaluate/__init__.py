"""Evaluation of selections: redundancy, CV accuracy, ground truth, stability, clustering, and
the survey's benchmark protocol."""

from fsviz._lazy import lazy_exports

_EXPORTS = {
    "redundancy_rate": ".redundancy",
    "cv_accuracy": ".classification",
    "CVResult": ".classification",
    "success_hits": ".ground_truth",
    "SuccessHits": ".ground_truth",
    "selection_stability": ".stability",
    "subsample_stability": ".stability",
    "StabilityResult": ".stability",
    "bootstrap_selections": ".stability",
    "selection_frequency": ".stability",
    "group_frequency": ".stability",
    "clustering_scores": ".clustering",
    "clustering_accuracy": ".clustering",
    "normalized_mutual_info": ".clustering",
    "ClusteringScores": ".clustering",
    "benchmark": ".benchmark",
    "BENCHMARK_COLUMNS": ".benchmark",
}
__all__ = sorted(_EXPORTS)
_getattr, __dir__ = lazy_exports(__name__, _EXPORTS)


def __getattr__(name: str) -> object:
    value = _getattr(name)
    if _EXPORTS[name] == ".benchmark":  # importing the module bound its name to it: rebind the function
        globals()["benchmark"] = _getattr("benchmark")
    return value
