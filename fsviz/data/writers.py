"""Writing a Dataset so that :func:`fsviz.data.load_dataset` reads it back exactly, through the
writer registry (:mod:`fsviz.data.formats.writer_registry`): :meth:`Dataset.save
<fsviz.data.Dataset.save>` and :meth:`Dataset.to_csv <fsviz.data.Dataset.to_csv>` come here, and
this module names no format; each format's writer lives beside its reader and is registered in
:mod:`fsviz.data.formats`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fsviz.data.formats.writer_registry import get_writer, save

if TYPE_CHECKING:
    from fsviz.data.dataset import Dataset

__all__ = ["save_dataset", "write_csv"]


def write_csv(
    dataset: Dataset, path_or_buffer=None, *, sep: str = ",", formula_safe: bool = False
) -> str | None:
    """:meth:`Dataset.to_csv <fsviz.data.Dataset.to_csv>` (its documentation): the registered
    ``csv`` writer with ``sep``."""
    return get_writer("csv").write(dataset, path_or_buffer, sep=sep, formula_safe=formula_safe)


def save_dataset(dataset: Dataset, path_or_buffer, fmt: str | None = None, **options) -> None:
    """Write ``dataset`` so that :func:`load_dataset` reads it back exactly.

    Parameters
    ----------
    dataset : Dataset
    path_or_buffer : str, Path or binary file-like
    fmt : str, optional
        A registered writer (``fsviz.data.formats.writers()``: csv, tsv, parquet, npz, svmlight
        and any registered since), by name or alias; from the file name's suffix when None.
    **options
        The writer's own options (CSV/TSV: ``formula_safe``).

    Raises
    ------
    ValueError
        No writer for ``fmt`` or for the file name (the message lists the registered writers).

    Warns
    -----
    DataWarning
        The dataset has feature annotations (``Dataset.feature_info``) and the format cannot hold
        them (CSV, TSV): they are not written.

    Notes
    -----
    Floats are written losslessly in every format (text formats use the shortest
    round-trip repr). CSV/TSV cannot carry the image shape, which class names
    look numeric, nor the feature annotations; Parquet, .npz and svmlight store the names,
    class names, sample names, image shape and feature annotations in their metadata. Sparse
    data stay sparse in .npz and svmlight.
    """
    save(dataset, path_or_buffer, fmt, **options)
