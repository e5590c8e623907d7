"""Datasets: the Dataset model, loaders with validation, and data generators."""

from fsviz._lazy import lazy_exports

_EXPORTS = {
    "Dataset": ".dataset",
    "DatasetSummary": ".dataset",
    "load_dataset": ".loaders",
    "MemoryBudgetError": ".budget",
    "default_memory_budget": ".budget",
    "save_dataset": ".writers",
    "KNOWN_IMAGE_SHAPES": ".images",
    "infer_image_shape": ".images",
    "list_samples": ".samples",
    "load_sample": ".samples",
    "SampleInfo": ".samples",
    "DataWarning": ".validation",
    "check_classification": ".validation",
    "require_labels": ".validation",
    "make_grouped_classification": ".generators",
    "make_grouped_regression": ".generators",
    "make_correlated_blocks": ".generators",
    "make_sparse_text": ".generators",
    "GroundTruth": ".generators",
    "BlockTruth": ".generators",
    "TextTruth": ".generators",
    "suggest_targets": ".roles",
    "leaky_features": ".roles",
    "infer_column_roles": ".roles",
    "ColumnRole": ".roles",
    "inspect_table": ".inspect",
    "TableInfo": ".inspect",
    "list_sheets": ".formats.spreadsheet",
    "check_target": ".targets",
    "TargetIssue": ".targets",
    "ChunkedSource": ".chunked",
    "open_chunked": ".chunked",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
