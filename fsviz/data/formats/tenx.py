"""10x Genomics Cell Ranger matrices: the MTX triplet (a folder, or 10x's ``.tar.gz``) and the ``.h5``.

Cell Ranger writes a feature-barcode matrix two ways:

- **the MTX triplet**, a folder ``filtered_feature_bc_matrix/`` of ``matrix.mtx.gz`` (genes x
  cells, MatrixMarket), ``features.tsv.gz`` (v3: gene id, symbol, feature type) or
  ``genes.tsv`` (v2: gene id, symbol) and ``barcodes.tsv.gz`` (one cell barcode per line), each
  gzipped or not. It opens as a folder (the server folder, ``load_dataset(folder)``) or as an
  archive holding that folder (``.tar.gz``, ``.zip``: :mod:`fsviz.data.formats.archives`
  recognises the layout);
- **the HDF5 file** ``filtered_feature_bc_matrix.h5`` (v3: group ``matrix`` with ``data``,
  ``indices``, ``indptr``, ``shape``, ``barcodes``, ``features/{id,name,feature_type}``; v2: a
  group per genome with ``genes`` and ``gene_names``), read through the hardened HDF5 path
  (:mod:`fsviz.data.formats.hdf5`: nothing may point outside the file; declared sizes checked
  against the memory budget first), in the sandbox child for untrusted input.

Either way the cells become the samples (their barcodes the sample names, so a
``cell_annotations.csv`` joins by barcode) and the genes the features, kept sparse (CSR). The
gene symbols name the features, repeats made unique as scanpy's ``var_names_make_unique`` does
(``MATR3``, ``MATR3-1``), and the plan's note says so; the gene ids (Ensembl) stay in
``Dataset.meta["feature_ids"]`` (``var_names="gene_ids"`` names the features by them instead).
When a v3 matrix holds several feature types (antibody capture beside gene expression), the
gene-expression features are kept, as scanpy's ``gex_only=True`` does, with a note.
"""

from __future__ import annotations

import os

import numpy as np
import scipy.sparse as sp

from fsviz.data.budget import sparse_bytes
from fsviz.data.formats.archives import compression_of, decompress
from fsviz.data.formats.mtx import mtx_header, read_mtx
from fsviz.data.formats.registry import Reader, get_reader
from fsviz.data.formats.source import Source
from fsviz.data.validation import names_preview

__all__ = ["H5_READER", "READER", "is_tenx_layout", "make_unique", "tenx_folder_files"]

_MATRIX, _BARCODES, _FEATURES, _GENES = "matrix.mtx", "barcodes.tsv", "features.tsv", "genes.tsv"


def _folders(names) -> dict[str, dict[str, str]]:
    """Each folder's triplet: folder -> {"matrix.mtx": member, "barcodes.tsv": member, ...}."""
    by_dir: dict[str, dict[str, str]] = {}
    for n in names:
        d, _, base = str(n).replace("\\", "/").rpartition("/")
        key = base.lower().removesuffix(".gz")
        if key in (_MATRIX, _BARCODES, _FEATURES, _GENES):
            by_dir.setdefault(d, {})[key] = n
    return {
        d: f for d, f in by_dir.items() if _MATRIX in f and _BARCODES in f and (_FEATURES in f or _GENES in f)
    }


def is_tenx_layout(names) -> bool:
    """Whether member names hold a 10x MTX triplet (all three in one folder)."""
    return bool(_folders(names))


def tenx_folder_files(path) -> dict[str, str] | None:
    """The triplet's files in folder ``path`` (name -> path), or None when it holds none."""
    try:
        names = [e.name for e in os.scandir(path) if e.is_file(follow_symlinks=False)]
    except OSError:
        return None
    found = _folders(names).get("")
    return None if found is None else {key: os.path.join(os.fspath(path), n) for key, n in found.items()}


def make_unique(names) -> np.ndarray:
    """Repeated names made unique as scanpy's ``var_names_make_unique`` (anndata's
    ``make_index_unique``) does: the first stays, the next get ``-1``, ``-2``, ... (skipping a
    suffix another name already has).

    >>> make_unique(["A", "B", "A", "A", "A-1"]).tolist()
    ['A', 'B', 'A-2', 'A-3', 'A-1']
    """
    import pandas as pd

    index = pd.Index(np.asarray(names, dtype=object))
    dup = index.duplicated(keep="first")
    values = index.to_numpy(dtype=object).copy()
    if not dup.any():
        return values
    taken, counter = set(values.tolist()), {}
    for i in np.flatnonzero(dup):  # the repeats only (a few of a genome's names)
        v = values[i]
        while True:
            counter[v] = counter.get(v, 0) + 1
            candidate = f"{v}-{counter[v]}"
            if candidate not in taken:
                taken.add(candidate)
                values[i] = candidate
                break
    return values


def _lines(data: bytes, limit: int, who: str, what: str) -> list[list[str]]:
    kind = compression_of(data)
    if kind == "gzip":
        data = decompress(kind, data, limit, who, what)
    if compression_of(data) is not None:
        raise ValueError(f"{who}: {what} is itself an archive or compressed twice; refused. Fix: unpack it.")
    text = data.decode("utf-8-sig", errors="replace")
    return [ln.split("\t") for ln in text.splitlines() if ln.strip()]


def _names(src: Source, ids: np.ndarray, symbols: np.ndarray, version: str, counts: tuple, types, who: str):
    """Feature names (symbols made unique, or ids), the kept features' mask, and the notes."""
    keep = np.ones(len(ids), dtype=bool)
    notes = []
    if types is not None:
        distinct = list(dict.fromkeys(types.tolist()))
        if len(distinct) > 1 and "Gene Expression" in distinct:
            keep = types == "Gene Expression"
            notes.append(
                f"kept the {int(keep.sum()):,} 'Gene Expression' features of {len(ids):,} (also "
                f"{names_preview([t for t in distinct if t != 'Gene Expression'])}), as scanpy's "
                "gex_only does"
            )
    ids, symbols = ids[keep], symbols[keep]
    by_ids = src.var_names in ("gene_ids", "id", "ids")
    names = ids if by_ids else make_unique(symbols)
    n_cells, n_genes = counts[0], int(keep.sum())
    repeated = int(len(symbols) - len(set(symbols.tolist())))
    how = (
        "gene ids as feature names (var_names='gene_ids')"
        if by_ids
        else "gene symbols as feature names"
        + (
            f" ({repeated:,} repeated symbol(s) made unique as scanpy's var_names_make_unique does, "
            f"e.g. {names[np.flatnonzero(names != symbols)[0]]!r})"
            if repeated
            else ""
        )
        + "; gene ids in meta['feature_ids'] (var_names='gene_ids' names features by them)"
    )
    notes.insert(
        0,
        f"read as a 10x {version} matrix: {n_cells:,} cells x {n_genes:,} genes, sparse; barcodes as "
        f"sample names; {how}",
    )
    return names, ids, keep, notes


def _check_counts(who, n_genes, n_cells, features, barcodes, what):
    if len(features) != n_genes or len(barcodes) != n_cells:
        raise ValueError(
            f"{who}: {what} is {n_genes:,} genes x {n_cells:,} cells, but the folder lists {len(features):,} "
            f"features and {len(barcodes):,} barcodes. Fix: use the three files Cell Ranger wrote together."
        )


def _load_triplet(src: Source, label) -> dict:
    who = f"load_dataset: {src.label}"
    files = src.files or {}
    folders = _folders(files)
    if len(folders) > 1:
        filtered = [d for d in folders if "filtered" in d.lower()]
        if len(filtered) != 1:
            raise ValueError(
                f"{who}: the archive holds {len(folders)} 10x matrices ({names_preview(sorted(folders))}). "
                f"Fix: choose one with member= (its matrix.mtx member)."
            )
        folders = {filtered[0]: folders[filtered[0]]}
    folder, members = next(iter(folders.items()))
    budget = src.budget
    matrix = files[members[_MATRIX]]
    if compression_of(matrix) == "gzip":
        matrix = decompress("gzip", matrix, budget, who, repr(members[_MATRIX]))
    if compression_of(matrix) is not None:
        raise ValueError(f"{who}: {members[_MATRIX]!r} is itself an archive or compressed twice; refused.")
    _, n_genes, n_cells, nnz = mtx_header(matrix[: 1 << 16], who)
    src.check(sparse_bytes(n_cells, n_genes, nnz), f"a sparse {n_cells:,} cells x {n_genes:,} genes matrix")
    v3 = _FEATURES in members
    features = _lines(files[members[_FEATURES if v3 else _GENES]], budget, who, "the features file")
    barcodes = [row[0].strip() for row in _lines(files[members[_BARCODES]], budget, who, "the barcodes file")]
    _check_counts(who, n_genes, n_cells, features, barcodes, repr(members[_MATRIX]))
    ids = np.array([row[0].strip() for row in features], dtype=object)
    symbols = np.array([(row[1] if len(row) > 1 else row[0]).strip() for row in features], dtype=object)
    types = np.array([row[2].strip() for row in features], dtype=object) if v3 and features[0][2:] else None
    X = read_mtx(matrix, who).T.tocsr()  # genes x cells in the file: cells as rows
    names, ids, keep, notes = _names(src, ids, symbols, "v3" if v3 else "v2", X.shape, types, who)
    if not keep.all():
        X = X[:, np.flatnonzero(keep)]
    return _parts(X, names, ids, barcodes, notes, f"10x {'v3' if v3 else 'v2'} MTX ({folder or 'top level'})")


def _parts(X, names, ids, barcodes, notes, source) -> dict:
    return {
        "X": sp.csr_matrix(X, dtype=np.float64),
        "y": None,
        "feature_names": np.asarray(names, dtype=object),
        "label_column": None,
        "format": "10x",
        "sample_names": np.asarray(barcodes, dtype=object),
        "table_meta": {"feature_ids": [str(v) for v in ids], "tenx": source},
        "notes": notes,
    }


def _detect_triplet(src: Source) -> bool:
    return src.layout == "10x"


#: the MTX triplet, from an archive or a folder (``Source.files``): recognised by its members
READER = Reader("10x", _load_triplet, "10x Genomics MTX triplet", detect=_detect_triplet, aliases=("tenx",))


# ---------------------------------------------------------------------------- the .h5 file
def _text(values) -> np.ndarray:
    return np.array(
        [v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v) for v in values], dtype=object
    )


def _load_h5(src: Source, label) -> dict:
    from fsviz.data.formats.hdf5 import check_hdf5, open_hdf5

    who = f"load_dataset: {src.label}"
    with open_hdf5(src.handle()) as f:
        sizes = check_hdf5(f, who, allow_external=src.allow_external)
        group, version = None, None
        if "matrix" in f and "indptr" in f["matrix"] and "barcodes" in f["matrix"]:
            group, version = f["matrix"], "v3"
        else:
            genomes = [k for k in f if hasattr(f[k], "keys") and {"indptr", "barcodes", "genes"} <= set(f[k])]
            if genomes:
                group, version = f[genomes[0]], "v2"
        if group is None:  # an HDF5 file that is not 10x's: AnnData's reader says what it is
            return get_reader("h5ad").read(src, label)
        prefix = group.name.strip("/")
        needed = sum(v for k, v in sizes.items() if k.startswith(prefix + "/"))
        n_genes, n_cells = (int(v) for v in group["shape"][:2])
        src.check(needed, f"the 10x matrix's arrays ({n_cells:,} cells x {n_genes:,} genes)")
        data, indices, indptr = (np.asarray(group[k][:]) for k in ("data", "indices", "indptr"))
        if (
            len(indptr) != n_cells + 1
            or len(indices) != len(data)
            or (len(indices) and indices.max() >= n_genes)
        ):
            raise ValueError(
                f"{who}: the 10x matrix's arrays do not fit its shape {n_genes} x {n_cells}. Fix: "
                "re-export it."
            )
        barcodes = _text(group["barcodes"][:])
        if version == "v3":
            feat = group["features"]
            ids, symbols = _text(feat["id"][:]), _text(feat["name"][:])
            types = _text(feat["feature_type"][:]) if "feature_type" in feat else None
        else:
            ids, symbols, types = _text(group["genes"][:]), _text(group["gene_names"][:]), None
    _check_counts(who, n_genes, n_cells, ids, barcodes, "the .h5 matrix")
    X = sp.csr_matrix((data.astype(np.float64), indices, indptr), shape=(n_cells, n_genes))
    names, ids, keep, notes = _names(src, ids, symbols, f"{version} .h5", X.shape, types, who)
    if not keep.all():
        X = X[:, np.flatnonzero(keep)]
    return _parts(X, names, ids, barcodes, notes, f"10x {version} .h5")


def _detect_h5(src: Source) -> bool:
    head = src.head(1 << 16)
    if (
        not head.startswith(b"\x89HDF\r\n\x1a\n")
        or src.filename.lower().endswith(".h5ad")
        or b"anndata" in head
    ):
        return False
    return b"barcodes" in head or src.filename.lower().endswith(".h5")


#: the .h5 file, through the hardened HDF5 path, in the sandbox child for untrusted input
H5_READER = Reader(
    "10x_h5", _load_h5, "10x Genomics .h5 matrix", detect=_detect_h5, sandbox=True, aliases=("tenx_h5",)
)
