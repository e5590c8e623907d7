"""Statistics engines: correlation (dense, sparse, all-pairs histograms), information, tests."""

from fsviz._lazy import lazy_exports

_EXPORTS = {
    "correlation_histogram": ".correlation",
    "correlated_pairs": ".correlation",
    "CorrelationHistogram": ".correlation",
    "top_pairs": ".pairs",
    "correlations_with": ".pairs",
    "column_moments": ".moments",
    "source_moments": ".moments",
    "discretize": ".information",
    "entropy": ".information",
    "mutual_information": ".information",
    "symmetrical_uncertainty": ".information",
    "su_with_target": ".information",
    "su_cross": ".information",
    "mi_with_target": ".information",
    "mi_cross": ".information",
    "fisher_z_test": ".tests",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
