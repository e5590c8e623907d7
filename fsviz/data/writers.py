"""Writing a Dataset so that :func:`fsviz.data.load_dataset` reads it back exactly: CSV/TSV text
in row blocks, and the dispatch to the Parquet, .npz and svmlight writers."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import TYPE_CHECKING

import scipy.sparse as sp

from fsviz.data.csv_safety import neutralise
from fsviz.data.formats.npz import _write_npz
from fsviz.data.formats.parquet import _write_parquet
from fsviz.data.formats.source import SUFFIXES, write_bytes
from fsviz.data.formats.svmlight import _write_svmlight

if TYPE_CHECKING:
    from fsviz.data.dataset import Dataset

__all__ = ["save_dataset", "write_csv"]

_CSV_BLOCK_CELLS = 1_000_000  # cells formatted at a time by write_csv


def write_csv(
    dataset: Dataset, path_or_buffer=None, *, sep: str = ",", formula_safe: bool = False
) -> str | None:
    """:meth:`Dataset.to_csv <fsviz.data.Dataset.to_csv>` (its documentation)."""
    dataset._check_dense_export("to_csv")
    cell = neutralise if formula_safe else str
    header = [str(c) for c in dataset.feature_names]
    labels = None
    if dataset.y is not None:
        header.append(dataset.label_column())
        labels = dataset.labels
    samples = None
    if dataset.sample_names is not None:
        header.insert(0, dataset.sample_column())
        samples = [_csv_quote(cell(str(v)), sep) for v in dataset.sample_names.tolist()]
    for nm in header:
        if nm == "":
            raise ValueError(
                "Dataset.to_csv: a column name is empty (an empty feature name cannot be read back); "
                "rename it or export to Parquet/.npz instead."
            )
    head = sep.join(_csv_quote(cell(nm), sep) for nm in header)
    if labels is not None:
        quoted = {}
        labels = [quoted.setdefault(v, _csv_quote(cell(str(v)), sep)) for v in labels.tolist()]
    if path_or_buffer is None:
        out = io.StringIO()
        _csv_lines(dataset, out.write, head, labels, sep, samples)
        return out.getvalue()
    if hasattr(path_or_buffer, "write"):
        _csv_lines(dataset, lambda t: _write(path_or_buffer, t.encode("utf-8")), head, labels, sep, samples)
    else:
        with open(path_or_buffer, "w", encoding="utf-8", newline="") as fh:
            _csv_lines(dataset, fh.write, head, labels, sep, samples)
    return None


def _csv_lines(
    dataset, write, head: str, labels: list[str] | None, sep: str, samples: list[str] | None
) -> None:
    """Write the CSV text in row blocks (bounded memory: about a million cells at a time)."""
    write(head + "\n")
    n, m = dataset.X.shape
    step = max(1, _CSV_BLOCK_CELLS // max(m, 1))
    for a in range(0, n, step):
        block = dataset.X[a : a + step]
        block = block.toarray() if sp.issparse(block) else block
        # Python's float repr is the shortest string that reads back to the same double
        lines = [sep.join(map(repr, row)) for row in block.tolist()]
        if samples is not None:
            lines = [s + sep + ln for s, ln in zip(samples[a : a + step], lines, strict=True)]
        if labels is not None:
            lines = [ln + sep + lab for ln, lab in zip(lines, labels[a : a + step], strict=True)]
        write("\n".join(lines) + "\n")


def _csv_quote(text: str, sep: str) -> str:
    """A CSV field as Python's csv writer (QUOTE_MINIMAL) writes it: quoted when it holds the
    separator, a quote or a line break, inner quotes doubled."""
    if sep in text or '"' in text or "\n" in text or "\r" in text:
        return '"' + text.replace('"', '""') + '"'
    return text


def _write(path_or_buffer, data: bytes) -> None:
    if hasattr(path_or_buffer, "write"):
        try:
            path_or_buffer.write(data)
        except TypeError:
            path_or_buffer.write(data.decode("utf-8"))
    else:
        with open(path_or_buffer, "wb") as fh:
            fh.write(data)


def _format_for_save(path_or_buffer, fmt: str | None) -> str:
    if fmt is None:
        nm = (
            os.fspath(path_or_buffer)
            if isinstance(path_or_buffer, (str, os.PathLike))
            else str(getattr(path_or_buffer, "name", "") or "")
        )
        suffix = Path(nm).suffix.lower()
        fmt = SUFFIXES.get(suffix)
        if fmt not in ("csv", "tsv", "parquet", "npz", "svmlight"):
            raise ValueError(
                f"save_dataset: cannot tell the format from {nm or 'the buffer'!r}; pass fmt= one of "
                "['csv', 'tsv', 'parquet', 'npz', 'svmlight']."
            )
    fmt = {"libsvm": "svmlight", "svm": "svmlight", "pq": "parquet"}.get(fmt.lower(), fmt.lower())
    if fmt not in ("csv", "tsv", "parquet", "npz", "svmlight"):
        raise ValueError(
            f"save_dataset: cannot write fmt {fmt!r}; choose one of "
            "['csv', 'tsv', 'parquet', 'npz', 'svmlight']."
        )
    return fmt


def save_dataset(dataset: Dataset, path_or_buffer, fmt: str | None = None) -> None:
    """Write ``dataset`` so that :func:`load_dataset` reads it back exactly.

    Parameters
    ----------
    dataset : Dataset
    path_or_buffer : str, Path or binary file-like
    fmt : {"csv", "tsv", "parquet", "npz", "svmlight"}, optional
        From the file name when None.

    Notes
    -----
    Floats are written losslessly in every format (text formats use the shortest
    round-trip repr). CSV/TSV cannot carry the image shape or which class names
    look numeric; Parquet, .npz and svmlight store the names, class names and
    image shape in their metadata. Sparse data stay sparse in .npz and svmlight.
    """
    fmt = _format_for_save(path_or_buffer, fmt)
    if fmt in ("csv", "tsv"):
        write_bytes(path_or_buffer, dataset.to_csv(sep="," if fmt == "csv" else "\t").encode("utf-8"))
    elif fmt == "parquet":
        _write_parquet(dataset, path_or_buffer)
    elif fmt == "npz":
        _write_npz(dataset, path_or_buffer)
    else:
        _write_svmlight(dataset, path_or_buffer)
