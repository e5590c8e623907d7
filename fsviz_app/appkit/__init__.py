"""The app's Streamlit helpers, one module per concern; this package re-exports what the views use.

Views stay thin: they read widgets into a :class:`fsviz.compute.Run`, ask :func:`page_result`
or :func:`result` for its result, and hand that to an ``fsviz.viz`` builder.

Caching
-------
* One process-wide store maps :class:`ResultKey` ``(fingerprint, run key)`` to results;
  every computation of the app (selectors, GRM, streams, histograms, evaluations,
  projections, image panels) goes through it, so a cached result returns at once and
  display-only widgets never recompute. The dataset itself is never hashed.
* Datasets live in a second store keyed by :class:`DatasetKey` (fingerprint, name, image
  shape), so two sessions that upload the same bytes under different names see their own.
* The session keeps only keys: its dataset's, the Run each page shows
  (``st.session_state["shown"]``) and the selections made (``["selections"]``), so
  results survive page switches and feed the compare page.

Tunable constants (``results.LIVE_SECONDS``, ``results.PREFETCH_SECONDS``,
``state.AUTO_RUN_CELLS``) are not re-exported: patch them in the module that reads them.
"""

from fsviz_app.appkit.cluster import compute_sidebar
from fsviz_app.appkit.cut import adjust_for, cut_control, cut_title
from fsviz_app.appkit.data_folder import folder_upload, open_folder_file, sources
from fsviz_app.appkit.explain import explanation, export_csv, why_not
from fsviz_app.appkit.grm_panels import (
    gamma_sweep,
    grm_form_defaults,
    grm_table,
    prior_effect,
    prior_groups_editor,
    prior_groups_warnings,
)
from fsviz_app.appkit.import_widgets import (
    DECIMALS,
    NO_TARGET,
    ORIENTATIONS,
    ROLES_ROWS,
    SEPARATORS,
    copy_label_text,
    copy_target,
    dataset_notes,
    import_key,
    import_panel,
    load_error_fixes,
    roles_editor,
    target_checks,
    target_choice,
    target_options,
)
from fsviz_app.appkit.intake import (
    IMPORT_DEFAULTS,
    ROLES,
    Upload,
    adopt_pending_options,
    annotation_frame,
    annotation_upload,
    apply_target_fixes,
    attach_annotations,
    attach_feature_annotations,
    current_upload,
    default_sample,
    detach_annotations,
    detach_feature_annotations,
    effective_plan,
    inspect_upload,
    load_sample,
    load_upload,
    parse_label,
    parse_shape,
    plan_of,
    read_cancelled_note,
    receive_upload,
    sample_fixes,
    sample_names,
    set_aside_roles,
    set_import_option,
    set_role,
    set_target,
)
from fsviz_app.appkit.report import report_download
from fsviz_app.appkit.results import (
    compare_rows,
    cv_help,
    cv_scheme,
    default_pair,
    evaluation,
    export_default,
    file_name,
    forget_kept,
    image_panels,
    keep_shown,
    kept_labels,
    last_shown,
    page_result,
    prefetch_neighbours,
    projection,
    reduced_csv,
    result,
    selections,
    stored,
)
from fsviz_app.appkit.scale import WIDE_FEATURES, feature_picker, wide
from fsviz_app.appkit.session_file import (
    apply_pending_session,
    pending_session_note,
    read_session_upload,
    sample_fixes_of,
    session_download,
    source_of,
)
from fsviz_app.appkit.state import (
    APP_KEY_PREFIXES,
    APP_KEYS,
    DatasetKey,
    ResultKey,
    activate,
    add_selection,
    current,
    dataset_key,
    failed,
    is_form_key,
    require_dataset,
    seed,
    show,
    shown,
    small,
)
from fsviz_app.appkit.uploads import receive_files
from fsviz_app.appkit.url import restore_from_url, restore_runs, sync_url
from fsviz_app.appkit.warmup import note as warm_up_note
from fsviz_app.appkit.warmup import warm_up
from fsviz_app.appkit.widgets import (
    GDM_ALL_CLASSES,
    TARGET_NEEDS,
    busy,
    class_labels,
    default_gdm,
    gdm_form_defaults,
    param_number,
    param_options,
    param_slider,
    saola_form_defaults,
    seed_form,
    show_error,
    stream_run,
    target_kind_label,
    target_note,
)

__all__ = [
    "prior_groups_warnings",
    # state
    "APP_KEYS",
    "APP_KEY_PREFIXES",
    "DatasetKey",
    "ResultKey",
    "activate",
    "add_selection",
    "current",
    "dataset_key",
    "failed",
    "is_form_key",
    "require_dataset",
    "seed",
    "show",
    "shown",
    "small",
    # widgets
    "GDM_ALL_CLASSES",
    "TARGET_NEEDS",
    "busy",
    "class_labels",
    "default_gdm",
    "gdm_form_defaults",
    "grm_form_defaults",
    "param_number",
    "param_options",
    "param_slider",
    "saola_form_defaults",
    "seed_form",
    "show_error",
    "stream_run",
    "target_kind_label",
    "target_note",
    # intake
    "IMPORT_DEFAULTS",
    "ROLES",
    "Upload",
    "adopt_pending_options",
    "apply_target_fixes",
    "set_aside_roles",
    "current_upload",
    "default_sample",
    "inspect_upload",
    "annotation_frame",
    "annotation_upload",
    "attach_annotations",
    "attach_feature_annotations",
    "detach_annotations",
    "detach_feature_annotations",
    "effective_plan",
    "plan_of",
    "load_sample",
    "load_upload",
    "read_cancelled_note",
    "parse_label",
    "parse_shape",
    "receive_files",
    "receive_upload",
    "sample_fixes",
    "sample_names",
    "set_import_option",
    "set_role",
    "set_target",
    # import_widgets
    "DECIMALS",
    "NO_TARGET",
    "ORIENTATIONS",
    "ROLES_ROWS",
    "SEPARATORS",
    "copy_label_text",
    "copy_target",
    "dataset_notes",
    "import_key",
    "import_panel",
    "load_error_fixes",
    "roles_editor",
    "target_checks",
    "target_choice",
    "target_options",
    # cluster, data_folder
    "compute_sidebar",
    "adjust_for",
    "cut_control",
    "cut_title",
    "folder_upload",
    "open_folder_file",
    "sources",
    # scale
    "WIDE_FEATURES",
    "feature_picker",
    "wide",
    # url, session_file
    "restore_from_url",
    "restore_runs",
    "sync_url",
    "apply_pending_session",
    "pending_session_note",
    "read_session_upload",
    "sample_fixes_of",
    "session_download",
    "source_of",
    # results
    "compare_rows",
    "cv_help",
    "cv_scheme",
    "default_pair",
    "evaluation",
    "export_default",
    "file_name",
    "forget_kept",
    "image_panels",
    "keep_shown",
    "kept_labels",
    "last_shown",
    "page_result",
    "prefetch_neighbours",
    "projection",
    "reduced_csv",
    "result",
    "selections",
    "stored",
    # explain
    "explanation",
    "export_csv",
    "why_not",
    # warmup
    "warm_up",
    "warm_up_note",
    # grm_panels, report
    "gamma_sweep",
    "grm_table",
    "prior_effect",
    "prior_groups_editor",
    "report_download",
]
