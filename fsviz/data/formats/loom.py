"""Loom files (``.loom``: HDF5 with ``matrix``, ``row_attrs``, ``col_attrs``), through the hardened HDF5 path.

A Loom file holds a genes x cells ``matrix`` (dense on disk), the genes' attributes in
``row_attrs`` (``Gene``, ``Accession``) and the cells' in ``col_attrs`` (``CellID``, cluster and
sample labels). The reader opens it as untrusted HDF5 (:mod:`fsviz.data.formats.hdf5`: nothing
may point outside the file; the declared sizes are checked against the memory budget before a
value is read), in the sandbox child for untrusted input, and returns the cells as the samples
(``CellID`` as their names), the genes as the features (``Gene`` symbols made unique as scanpy
does; ``Accession`` in ``meta["feature_ids"]``), kept sparse, and the other per-cell attributes as
the sample annotations (a cluster label can be the target).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from fsviz.data.formats.registry import Reader
from fsviz.data.formats.source import Source
from fsviz.data.formats.tenx import make_unique

__all__ = ["READER"]

_ID_ATTRS = ("CellID", "cell_id", "obs_names", "CellId")
_GENE_ATTRS = ("Gene", "gene", "var_names", "GeneName")
_ACCESSION_ATTRS = ("Accession", "gene_ids", "GeneID")
#: rows of the matrix read at a time (a dense block of genes, sparsified before the next)
_BLOCK_ROWS = 2048


def _text(values) -> np.ndarray:
    return np.array(
        [v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v) for v in values], dtype=object
    )


def _load_loom(src: Source, label) -> dict:
    import pandas as pd

    from fsviz.data.budget import sparse_bytes
    from fsviz.data.formats.hdf5 import check_hdf5, open_hdf5

    who = f"load_dataset: {src.label}"
    with open_hdf5(src.handle()) as f:
        check_hdf5(f, who, allow_external=src.allow_external)
        if "matrix" not in f or len(f["matrix"].shape) != 2:
            raise ValueError(
                f"{who}: a Loom file holds a 2-D 'matrix'; this one does not. Fix: write it again (loompy)."
            )
        m = f["matrix"]
        n_genes, n_cells = (int(v) for v in m.shape)
        block = max(1, min(_BLOCK_ROWS, (64 << 20) // max(8 * n_cells, 1)))
        src.check(8 * block * n_cells, f"a block of {block:,} genes x {n_cells:,} cells")
        parts, nnz = [], 0
        for a in range(0, n_genes, block):  # dense on disk: a block of genes at a time, kept sparse
            chunk = sp.csr_matrix(np.asarray(m[a : a + block], dtype=np.float64))
            nnz += chunk.nnz
            src.check(sparse_bytes(n_cells, n_genes, nnz), f"a sparse {n_cells:,} x {n_genes:,} matrix")
            parts.append(chunk)
        X = sp.vstack(parts, format="csr").T.tocsr() if parts else sp.csr_matrix((n_cells, 0))
        rows = f.get("row_attrs", {})
        cols = f.get("col_attrs", {})
        gene_key = next((k for k in _GENE_ATTRS if k in rows), None)
        acc_key = next((k for k in _ACCESSION_ATTRS if k in rows), None)
        id_key = next((k for k in _ID_ATTRS if k in cols), None)
        genes = _text(rows[gene_key][:]) if gene_key else None
        accessions = _text(rows[acc_key][:]) if acc_key else None
        cells = _text(cols[id_key][:]) if id_key else None
        annotations = {}
        for k in cols:
            if k == id_key or len(cols[k].shape) != 1 or cols[k].shape[0] != n_cells:
                continue
            values = cols[k][:]
            annotations[k] = _text(values) if values.dtype.kind in "SOU" else np.asarray(values)
    by_ids = src.var_names in ("gene_ids", "Accession") and accessions is not None
    names = (
        None
        if genes is None and accessions is None
        else make_unique(accessions if by_ids or genes is None else genes)
    )
    meta = {"feature_ids": [str(v) for v in accessions]} if accessions is not None else {}
    if genes is not None and names is not None and not np.array_equal(names, genes):
        meta["feature_symbols"] = [str(v) for v in genes]  # a symbol finds all made unique from it
    frame = None
    if annotations and cells is not None:
        frame = pd.DataFrame({"CellID": cells, **annotations})
    notes = [
        f"read as a Loom file: {n_cells:,} cells x {n_genes:,} genes, sparse ({X.nnz:,} stored values); "
        + ("CellID as sample names; " if cells is not None else "")
        + (
            f"{'Accession' if by_ids else gene_key} as feature names (made unique as scanpy does)"
            if names is not None
            else ""
        )
        + (
            f"; per-cell attributes {list(annotations)[:8]} are the sample annotations"
            if frame is not None
            else ""
        )
    ]
    return {
        "X": X,
        "y": None,
        "feature_names": names,
        "label_column": None,
        "format": "loom",
        "sample_names": cells,
        "annotations": frame,
        "table_meta": meta,
        "notes": notes,
    }


def _detect(src: Source) -> bool:
    head = src.head(1 << 16)
    return head.startswith(b"\x89HDF\r\n\x1a\n") and (
        src.filename.lower().endswith(".loom") or (b"row_attrs" in head and b"col_attrs" in head)
    )


#: its registration: HDF5, so read in the sandbox child for untrusted input
READER = Reader("loom", _load_loom, "Loom file", (".loom",), detect=_detect, sandbox=True)
