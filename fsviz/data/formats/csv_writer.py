"""CSV/TSV writer (its reader is :mod:`fsviz.data.formats.delimited`): row blocks of shortest
round-trip floats, names quoted as Python's csv writer quotes them."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

import scipy.sparse as sp

from fsviz.data.csv_safety import neutralise
from fsviz.data.formats.writer_registry import Writer

if TYPE_CHECKING:
    from fsviz.data.dataset import Dataset

__all__ = ["CSV_WRITER", "TSV_WRITER", "write_csv", "write_tsv"]

_CSV_BLOCK_CELLS = 1_000_000  # cells formatted at a time by write_csv


def write_csv(
    dataset: Dataset, path_or_buffer=None, *, sep: str = ",", formula_safe: bool = False
) -> str | None:
    """:meth:`Dataset.to_csv <fsviz.data.Dataset.to_csv>` (its documentation): the text when
    ``path_or_buffer`` is None."""
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


def write_tsv(dataset: Dataset, path_or_buffer=None, *, formula_safe: bool = False) -> str | None:
    """:func:`write_csv` with tabs between the fields."""
    return write_csv(dataset, path_or_buffer, sep="\t", formula_safe=formula_safe)


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
    try:
        path_or_buffer.write(data)
    except TypeError:  # a text buffer
        path_or_buffer.write(data.decode("utf-8"))


#: their registrations (:mod:`fsviz.data.formats.writer_registry`): text holds no feature annotations
CSV_WRITER = Writer("csv", write_csv, "CSV text", (".csv",))
TSV_WRITER = Writer("tsv", write_tsv, "TSV text", (".tsv", ".tab"))
