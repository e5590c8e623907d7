"""The one run layer: a registry of methods, frozen ``Run`` values, results and tables.

The app, the CLI and cross-validation's fold refits all compute through here::

    from fsviz.compute import Run
    result = Run("gdm", {"tau": 0.3}, seed=0).execute(dataset)
    csv = selection_csv(result.selection(), dataset.feature_names)

``(dataset.fingerprint, run.key)`` identifies a result; the app caches on it. Nothing
here imports Streamlit.
"""

from fsviz.compute.registry import (
    METHODS,
    NEIGHBOUR_METHODS,
    Method,
    fold_selector,
    method,
    score_methods,
    score_params,
    selection_methods,
)
from fsviz.compute.results import (
    Evaluation,
    GRMResult,
    GroupResult,
    HistogramResult,
    ImagePanels,
    Projection,
    ScoreResult,
    Selection,
    StreamResult,
    SubsetResult,
)
from fsviz.compute.runs import Context, Progress, Run
from fsviz.compute.tables import (
    CV_BIASED,
    CV_HONEST,
    CV_STD,
    SELECTION_COLUMNS,
    classes_frame,
    compare_frame,
    gdm_prior_groups,
    grm_frame,
    group_choices,
    groups_frame,
    mask_opacity,
    names_preview,
    params_label,
    parse_prior_groups,
    preview_frame,
    prior_group_spread,
    prior_groups_frame,
    provenance,
    provenance_json,
    read_selection_csv,
    reduced_csv,
    selection_csv,
    selection_frame,
    stream_frame,
    summary_frame,
)

__all__ = [
    "CV_BIASED",
    "CV_HONEST",
    "CV_STD",
    "METHODS",
    "NEIGHBOUR_METHODS",
    "SELECTION_COLUMNS",
    "Context",
    "Evaluation",
    "GRMResult",
    "GroupResult",
    "HistogramResult",
    "ImagePanels",
    "Method",
    "Progress",
    "Projection",
    "Run",
    "ScoreResult",
    "Selection",
    "StreamResult",
    "SubsetResult",
    "classes_frame",
    "compare_frame",
    "fold_selector",
    "gdm_prior_groups",
    "parse_prior_groups",
    "prior_group_spread",
    "prior_groups_frame",
    "grm_frame",
    "group_choices",
    "groups_frame",
    "mask_opacity",
    "method",
    "names_preview",
    "params_label",
    "provenance",
    "provenance_json",
    "preview_frame",
    "read_selection_csv",
    "reduced_csv",
    "score_methods",
    "score_params",
    "selection_csv",
    "selection_frame",
    "selection_methods",
    "stream_frame",
    "summary_frame",
]
