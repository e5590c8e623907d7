"""Plotly figure builders: pure functions from results to ``go.Figure``.

They take plain arrays, fitted estimators (``group_tree(GDM().fit(X, y))``,
``ranking_bump(grm_without, grm_with)``, ``stream_progress(saola)``, ``pixel_masks(gdm, (8, 8))``,
``correlation_sparsity(correlation_histogram(X))``) or the frozen result dataclasses of
:mod:`fsviz.compute` (any object with the same attributes will do); feature names come from the
estimator's ``feature_names_in_`` or from a pandas / polars DataFrame passed as
``feature_names``. They never run a selector, never import Streamlit (figures show inline in
Jupyter through plotly's renderers), and keep every chart readable on 10^5 features by showing
the top N and aggregating the rest.
"""

from fsviz._lazy import lazy_exports

_EXPORTS = {
    "group_tree": ".groups",
    "find_feature_group": ".groups",
    "pixel_masks": ".images",
    "correlation_sparsity": ".sparsity",
    "ranking_bump": ".ranking",
    "score_bars": ".ranking",
    "ranking_cut": ".ranking",
    "pca_pair": ".projection",
    "stream_progress": ".stream",
    "compare_scatter": ".compare",
    "class_colors": "._common",
    "stability_bars": ".stability",
    "correlation_network": ".correlation",
    "correlation_bars": ".correlation",
    "class_symbols": "._common",
    "accuracy_curves": ".benchmark",
    "clustering_curves": ".benchmark",
    "target_histogram": ".target",
    "class_balance": ".target",
    "stand_in_scatter": ".explain",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
