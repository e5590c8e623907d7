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
``Dataset.meta["feature_ids"]`` (``var_names="gene_ids"`` names the features by them instead),
and, when a name differs from its symbol, the symbols in ``Dataset.feature_info["symbol"]`` (so
``MATR3`` as a GRM prior-group name takes ``MATR3-1`` too).
When a v3 matrix holds several feature types (antibody capture beside gene expression), the
gene-expression features are kept, as scanpy's ``gex_only=True`` does, with a note.

The three files handed over apart (three uploads, three buffers) are one matrix too:
:func:`triplet_roles` tells which file is which (and names what is missing or repeated),
:func:`pack_triplet` puts them in one uncompressed tar that reads exactly as 10x's ``.tar.gz``,
and :func:`read_triplet` loads them (``load_dataset`` on that tar).
"""

from __future__ import annotations

import io
import os
import tarfile
from collections.abc import Mapping, Sequence

import numpy as np
import scipy.sparse as sp

from fsviz.data.budget import sparse_bytes
from fsviz.data.filetypes import read_regular
from fsviz.data.formats.archives import compression_of, decompress
from fsviz.data.formats.mtx import mtx_header, read_mtx
from fsviz.data.formats.registry import Reader, get_reader
from fsviz.data.formats.source import Source
from fsviz.data.validation import names_preview

__all__ = [
    "H5_READER",
    "READER",
    "TRIPLET_NAME",
    "is_tenx_layout",
    "is_triplet_member",
    "make_unique",
    "pack_triplet",
    "read_triplet",
    "tenx_folder_files",
    "triplet_roles",
]

_MATRIX, _BARCODES, _FEATURES, _GENES = "matrix.mtx", "barcodes.tsv", "features.tsv", "genes.tsv"
#: the name three files handed over apart are read under, packed as one tar (:func:`read_triplet`,
#: the app's three uploads); ``Dataset.meta["tenx_files"]`` keeps the three files' own names
TRIPLET_NAME = "10x_triplet.tar"


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


#: what each member of the triplet is, for messages
_ROLE_WORDS = {
    _MATRIX: "the matrix (matrix.mtx or matrix.mtx.gz)",
    _FEATURES: "the features (features.tsv.gz, or genes.tsv for Cell Ranger 2)",
    _BARCODES: "the barcodes (barcodes.tsv or barcodes.tsv.gz)",
}


def _role(name: str) -> str | None:
    base = str(name).replace("\\", "/").rpartition("/")[2].lower().removesuffix(".gz")
    return base if base in (_MATRIX, _BARCODES, _FEATURES, _GENES) else None


def is_triplet_member(name: str) -> bool:
    """Whether a file named ``name`` is one of a 10x MTX triplet's three (by its name).

    >>> [is_triplet_member(n) for n in ("matrix.mtx.gz", "genes.tsv", "counts.csv")]
    [True, True, False]
    """
    return _role(name) is not None


def triplet_roles(names: Sequence[str]) -> dict[str, int]:
    """Which of ``names`` is the matrix, the features and the barcodes of a 10x MTX triplet.

    The names are the files' own (a folder part is ignored): ``matrix.mtx``, ``features.tsv``
    (Cell Ranger 3+) or ``genes.tsv`` (Cell Ranger 2), ``barcodes.tsv``, each with or without
    ``.gz``. Other names are left out (they are not 10x's).

    Parameters
    ----------
    names : sequence of str
        File names, e.g. the three files of an upload.

    Returns
    -------
    dict
        ``{"matrix.mtx": i, "features.tsv": j, "barcodes.tsv": k}``: positions in ``names``
        (the features entry is the ``genes.tsv`` file for a v2 triplet).

    Raises
    ------
    ValueError
        When a member is missing or given twice (two matrices; ``features.tsv`` beside
        ``genes.tsv``), naming it and the files received.

    Examples
    --------
    >>> triplet_roles(["barcodes.tsv.gz", "features.tsv.gz", "matrix.mtx.gz"])
    {'matrix.mtx': 2, 'features.tsv': 1, 'barcodes.tsv': 0}
    """
    got = [str(n) for n in names]
    found: dict[str, list[int]] = {}
    for i, n in enumerate(got):
        role = _role(n)
        if role is not None:
            found.setdefault(_FEATURES if role == _GENES else role, []).append(i)
    twice = [
        f"{' and '.join(repr(got[i]) for i in found[r])} are each {_ROLE_WORDS[r].split(' (')[0]}"
        for r in _ROLE_WORDS
        if len(found.get(r, ())) > 1
    ]
    missing = [_ROLE_WORDS[r] for r in _ROLE_WORDS if r not in found]
    if twice or missing:
        problem = "; ".join(twice + ([f"missing {' and '.join(missing)}"] if missing else []))
        raise ValueError(
            f"10x matrix: {problem} (files: {names_preview(got)}). Fix: give exactly the three files "
            "Cell Ranger writes in one folder: matrix.mtx.gz, features.tsv.gz (genes.tsv for Cell "
            "Ranger 2) and barcodes.tsv.gz."
        )
    return {r: found[r][0] for r in _ROLE_WORDS}


def _content(obj) -> bytes:
    if isinstance(obj, (bytes, bytearray, memoryview)):
        return bytes(obj)
    if hasattr(obj, "getvalue"):
        return bytes(obj.getvalue())
    if hasattr(obj, "read"):
        if hasattr(obj, "seek"):
            obj.seek(0)
        data = obj.read()
        return data.encode("utf-8") if isinstance(data, str) else bytes(data)
    raise ValueError(f"10x matrix: expected bytes or a file-like object; got {type(obj).__name__}.")


def pack_triplet(files: Mapping[str, object] | Sequence[tuple[str, object]]) -> bytes:
    """The three files of a 10x MTX triplet as one uncompressed tar archive, which
    :func:`~fsviz.data.load_dataset` reads exactly as the ``.tar.gz`` 10x serves.

    The members keep their names (gzipped or not), at the archive's top level, in a fixed
    order with fixed metadata, so the same three files always give the same bytes (the app
    keys an upload by its content).

    Parameters
    ----------
    files : mapping or sequence of ``(name, content)``
        The three files by name (see :func:`triplet_roles`); each content is bytes or a
        file-like object. Files with other names are refused.

    Returns
    -------
    bytes
        The tar archive.

    Raises
    ------
    ValueError
        A member missing or given twice, or a file that is not one of the three.

    Examples
    --------
    >>> import gzip, io
    >>> from fsviz.data import load_dataset
    >>> tar = pack_triplet({
    ...     "matrix.mtx": b"%%MatrixMarket matrix coordinate integer general\\n2 3 2\\n1 1 5\\n2 3 7\\n",
    ...     "features.tsv.gz": gzip.compress(b"ENSG1\\tTP53\\nENSG2\\tMDM2\\n"),
    ...     "barcodes.tsv": b"AAAC-1\\nAAAG-1\\nAAAT-1\\n",
    ... })
    >>> ds = load_dataset(io.BytesIO(tar), label=None)
    >>> ds.shape, list(ds.feature_names), list(ds.sample_names)
    ((3, 2), ['TP53', 'MDM2'], ['AAAC-1', 'AAAG-1', 'AAAT-1'])
    """
    items = list(files.items()) if isinstance(files, Mapping) else [tuple(f) for f in files]
    names = [str(n) for n, _ in items]
    others = [n for n in names if _role(n) is None]
    if others:
        raise ValueError(
            f"10x matrix: {', '.join(map(repr, others))} is not one of the triplet's files (matrix.mtx, "
            "features.tsv or genes.tsv, barcodes.tsv, each gzipped or not). Fix: give only those three."
        )
    roles = triplet_roles(names)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for i in roles.values():  # matrix, features, barcodes: one order for the same files
            data = _content(items[i][1])
            info = tarfile.TarInfo(os.path.basename(names[i].replace("\\", "/")))
            info.size, info.mtime, info.mode = len(data), 0, 0o644
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def read_triplet(matrix, features, barcodes, **load_kwargs):
    """Load a 10x MTX triplet given as three files or buffers: cells x genes, sparse.

    What :func:`~fsviz.data.load_dataset` gives for the folder or 10x's ``.tar.gz``: the
    barcodes as sample names, the gene symbols as feature names (repeats made unique), the
    gene ids in ``feature_info``.

    Parameters
    ----------
    matrix, features, barcodes : path, or ``(name, content)``
        Each file as a path, or as its name and its content (bytes or a file-like object).
        The names say which file is which (``matrix.mtx[.gz]``, ``features.tsv[.gz]`` or
        ``genes.tsv[.gz]``, ``barcodes.tsv[.gz]``); they are checked, so files given in the
        wrong places are refused rather than read crosswise.
    **load_kwargs
        Passed to :func:`~fsviz.data.load_dataset` (``sample_annotations=``, ``label=``,
        ``var_names="gene_ids"``, ``name=``, ...).

    Returns
    -------
    Dataset

    Raises
    ------
    ValueError
        A file missing, repeated or in the wrong place; counts that do not match the matrix.
    """
    from fsviz.data.loaders import load_dataset  # load_dataset reads through this module's registry

    given = []
    for slot, obj in (("matrix", matrix), ("features", features), ("barcodes", barcodes)):
        if isinstance(obj, (str, os.PathLike)):  # a regular file only: a FIFO would block the read
            obj = (os.path.basename(os.fspath(obj)), read_regular(obj, "read_triplet"))
        if not (isinstance(obj, tuple) and len(obj) == 2):
            raise ValueError(
                f"read_triplet: {slot} must be a path or a (name, content) pair; got {type(obj).__name__}."
            )
        given.append((str(obj[0]), obj[1]))
    roles = triplet_roles([n for n, _ in given])
    if [roles[r] for r in _ROLE_WORDS] != [0, 1, 2]:
        raise ValueError(
            f"read_triplet: the files are in the wrong places ({', '.join(repr(n) for n, _ in given)}). "
            "Fix: pass matrix, features, barcodes in this order."
        )
    buf = io.BytesIO(pack_triplet(given))
    buf.name = TRIPLET_NAME
    load_kwargs.setdefault("name", TRIPLET_NAME.removesuffix(".tar"))
    return load_dataset(buf, **load_kwargs)


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
    return names, ids, symbols, keep, notes


def _check_counts(who, n_genes, n_cells, features, barcodes, what):
    if len(features) != n_genes or len(barcodes) != n_cells:
        wrong = [
            f"{len(features):,} features for its {n_genes:,} genes" if len(features) != n_genes else "",
            f"{len(barcodes):,} barcodes for its {n_cells:,} cells" if len(barcodes) != n_cells else "",
        ]
        raise ValueError(
            f"{who}: {what} is {n_genes:,} genes x {n_cells:,} cells, but the triplet lists "
            f"{' and '.join(w for w in wrong if w)}. Fix: use the three files Cell Ranger wrote together "
            "(one run's matrix, features and barcodes)."
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
    names, ids, symbols, keep, notes = _names(src, ids, symbols, "v3" if v3 else "v2", X.shape, types, who)
    if not keep.all():
        X = X[:, np.flatnonzero(keep)]
    source = f"10x {'v3' if v3 else 'v2'} MTX ({folder or 'top level'})"
    parts = _parts(X, names, ids, symbols, barcodes, notes, source)
    given = [members[_MATRIX], members[_FEATURES if v3 else _GENES], members[_BARCODES]]
    parts["table_meta"]["tenx_files"] = [m.replace("\\", "/").rsplit("/", 1)[-1] for m in given]
    return parts


def _parts(X, names, ids, symbols, barcodes, notes, source) -> dict:
    meta = {"feature_ids": [str(v) for v in ids], "tenx": source}
    if not np.array_equal(np.asarray(names, dtype=object), symbols):  # repeats renamed, or named by ids
        meta["feature_symbols"] = [str(v) for v in symbols]  # so MATR3 finds MATR3-1 too
    return {
        "X": sp.csr_matrix(X, dtype=np.float64),
        "y": None,
        "feature_names": np.asarray(names, dtype=object),
        "label_column": None,
        "format": "10x",
        "sample_names": np.asarray(barcodes, dtype=object),
        "table_meta": meta,
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
    names, ids, symbols, keep, notes = _names(src, ids, symbols, f"{version} .h5", X.shape, types, who)
    if not keep.all():
        X = X[:, np.flatnonzero(keep)]
    return _parts(X, names, ids, symbols, barcodes, notes, f"10x {version} .h5")


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
