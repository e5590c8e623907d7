"""MatrixMarket ``.mtx`` files, read as sparse matrices (never as text tables).

A MatrixMarket file is a banner (``%%MatrixMarket matrix coordinate real general``), comment
lines beginning with ``%``, a size line (``rows columns entries``), then one ``row column value``
line per stored entry (1-based). The size line is checked against the memory budget before a
single entry is parsed; scipy's reader (:func:`scipy.io.mmread`) then reads it, in the sandbox
child for untrusted input. The file's rows are the samples; ``transpose=True`` makes its columns
the samples (a 10x ``matrix.mtx`` alone holds genes as rows: its folder or archive is read as
10x, :mod:`fsviz.data.formats.tenx`).
"""

from __future__ import annotations

import io

import numpy as np
import scipy.sparse as sp

from fsviz.data.formats.registry import Reader
from fsviz.data.formats.source import Source

__all__ = ["READER", "is_matrix_market", "mtx_header", "read_mtx"]

BANNER = b"%%matrixmarket"


def is_matrix_market(head: bytes) -> bool:
    """True for the first bytes of a MatrixMarket file (its ``%%MatrixMarket`` banner)."""
    return head.lstrip(b"\xef\xbb\xbf")[:14].lower() == BANNER


def mtx_header(head: bytes, who: str) -> tuple[str, int, int, int]:
    """``(format, rows, columns, entries)`` from a MatrixMarket file's banner and size line.

    ``format`` is ``"coordinate"`` (sparse) or ``"array"`` (dense: entries = rows x columns).
    """
    lines = head.decode("latin-1").splitlines()
    banner = lines[0].lower().split() if lines else []
    if len(banner) < 3 or banner[0] != "%%matrixmarket" or banner[1] != "matrix":
        raise ValueError(f"{who}: not a MatrixMarket matrix (banner {lines[0][:60] if lines else ''!r}).")
    layout = banner[2]
    field = banner[3] if len(banner) > 3 else "real"
    if field == "complex":
        raise ValueError(
            f"{who}: a complex-valued MatrixMarket matrix; fsviz reads real values. Fix: export its "
            "real part."
        )
    size = next((ln for ln in lines[1:] if ln.strip() and not ln.startswith("%")), None)
    try:
        dims = [int(v) for v in size.split()]
    except (AttributeError, ValueError):
        raise ValueError(
            f"{who}: the MatrixMarket size line is missing or not numbers ({str(size)[:60]!r})."
        ) from None
    if layout == "coordinate" and len(dims) == 3 and min(dims) >= 0:
        return "coordinate", dims[0], dims[1], dims[2]
    if layout == "array" and len(dims) == 2 and min(dims) >= 0:
        return "array", dims[0], dims[1], dims[0] * dims[1]
    raise ValueError(
        f"{who}: the MatrixMarket size line {size.strip()[:60]!r} does not fit a {layout} matrix."
    )


def read_mtx(data: bytes, who: str) -> sp.csr_matrix:
    """The matrix of a MatrixMarket file's bytes as CSR float64 (a dense ``array`` file too)."""
    import scipy.io as sio

    try:
        m = sio.mmread(io.BytesIO(data))
    except Exception as e:  # noqa: BLE001 - scipy's reader raises several types on bad bytes
        raise ValueError(
            f"{who}: the MatrixMarket file is damaged ({str(e).strip()[:160]}). Fix: write it again."
        ) from None
    m = (
        sp.csr_matrix(m, dtype=np.float64)
        if sp.issparse(m)
        else sp.csr_matrix(np.asarray(m, dtype=np.float64))
    )
    m.sum_duplicates()
    return m


def _declared(src: Source) -> tuple:
    layout, n, m, nnz = mtx_header(src.head(1 << 16), f"load_dataset: {src.label}")
    if src.transpose is True:
        n, m = m, n
    return (n, m, None) if layout == "array" else (n, m, nnz)


def _load_mtx(src: Source, label) -> dict:
    who = f"load_dataset: {src.label}"
    layout, n, m, nnz = mtx_header(src.head(1 << 16), who)
    X = read_mtx(src.bytes(), who)
    turned = src.transpose is True
    if turned:
        X = X.T.tocsr()
    rows = "columns" if turned else "rows"
    return {
        "X": X,
        "y": None,
        "feature_names": None,
        "label_column": None,
        "format": "mtx",
        "sample_names": None,
        "notes": [
            f"read as a MatrixMarket {layout} matrix: {X.shape[0]:,} samples x {X.shape[1]:,} features, "
            f"{X.nnz:,} stored values, sparse (the file's {rows} as samples"
            + ("" if turned else "; transpose for features as rows, as 10x writes them")
            + ")"
        ],
    }


def _detect(src: Source) -> bool:
    return is_matrix_market(src.head(16))


#: its registration: by its banner; scipy's parser runs in the sandbox child for untrusted input
READER = Reader(
    "mtx",
    _load_mtx,
    "MatrixMarket matrix",
    (".mtx", ".mm"),
    detect=_detect,
    declared_size=_declared,
    sandbox=True,
    aliases=("matrixmarket",),
)
