"""Evaluation of selections: redundancy, CV accuracy, ground truth, stability, clustering."""
from fsviz._lazy import lazy_exports

_EXPORTS = {
    "redundancy_rate": ".metrics",
    "cv_accuracy": ".metrics",
    "success_hits": ".metrics",
    "selection_stability": ".metrics",
    "clustering_scores": ".metrics",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
