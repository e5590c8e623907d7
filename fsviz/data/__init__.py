"""Datasets: the Dataset model, loaders with validation, and data generators."""
from fsviz._lazy import lazy_exports

_EXPORTS = {
    "Dataset": ".dataset",
    "load_dataset": ".loaders",
    "make_grouped_classification": ".generators",
    "make_correlated_blocks": ".generators",
    "make_sparse_text": ".generators",
    "GroundTruth": ".generators",
    "BlockTruth": ".generators",
    "TextTruth": ".generators",
    "ChunkedSource": ".chunked",
    "open_chunked": ".chunked",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
