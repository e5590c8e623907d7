"""Matrices as the Dataset keeps them: dense float64, canonical sparse, or a read-only memory map
read a column block at a time (the helpers GDM's column source and the stats layer share)."""

from __future__ import annotations

import mmap

import numpy as np
import scipy.sparse as sp

__all__ = [
    "as_matrix",
    "chunks",
    "column_slices",
    "constant_columns",
    "is_dask_array",
    "is_mapped",
    "is_mapped_sparse",
    "release_map",
]


def is_dask_array(obj) -> bool:
    """A ``dask.array.Array`` (without importing dask)."""
    return type(obj).__module__.startswith("dask.array") and hasattr(obj, "chunks")


def is_mapped(X) -> bool:
    """True for a read-only 2-D numeric ``numpy.memmap``: kept out of core, never copied."""
    return (
        isinstance(X, np.memmap)
        and X.ndim == 2
        and not X.flags.writeable
        and X.dtype.kind in "biuf"
        and (X.flags.c_contiguous or X.flags.f_contiguous)
    )


def is_mapped_sparse(X) -> bool:
    """A sparse matrix whose values are a read-only memory map (a seeds text shape)."""
    return sp.issparse(X) and isinstance(X.data, np.memmap) and not X.data.flags.writeable


def release_map(a) -> None:
    """Unmap the pages a read-only memmap has faulted in (they stay in the page cache):
    reading a mapped file chunk by chunk then keeps one chunk resident, not the file."""
    base = getattr(a, "_mmap", None)
    if isinstance(a, np.memmap) and a.mode == "r" and base is not None and hasattr(base, "madvise"):
        base.madvise(mmap.MADV_DONTNEED)


def chunks(a, step: int = 1 << 24):
    """Consecutive pieces of a 1-D array; a read-only memmap's pages are released after each."""
    for s in range(0, max(a.size, 1), step):
        yield a[s : s + step]
        release_map(a)


def column_slices(X, target: int = 1 << 26):
    """Column ranges ``(a, b)`` of about ``target`` bytes of float64 each."""
    step = max(1, target // (8 * max(X.shape[0], 1)))
    return [(a, min(a + step, X.shape[1])) for a in range(0, X.shape[1], step)]


def as_matrix(X, who: str):
    """Dense -> C-contiguous float64 ndarray; sparse -> canonical float64 CSR/CSC.

    A read-only ``numpy.memmap`` (e.g. ``np.load(path, mmap_mode="r")`` or a
    :func:`fsviz.data.seeds.write_seed_shape` directory) stays as it is, in its own dtype
    and order: it is read block by block, never copied whole.
    """
    if is_mapped(X):
        return X
    if sp.issparse(X):
        fmt = X.format
        if fmt not in ("csr", "csc"):
            X = X.tocsr()
        if X.dtype != np.float64:
            if X.dtype.kind not in "biuf":
                raise ValueError(f"{who}: X must be numeric; got sparse dtype {X.dtype}.")
            X = X.astype(np.float64)
        zeros = any((c == 0).any() for c in chunks(X.data))
        if X.data.flags.writeable or not X.has_canonical_format or zeros:
            X = X.copy()
            X.sum_duplicates()
            X.eliminate_zeros()
        X.data.setflags(write=False)
        X.indices.setflags(write=False)
        X.indptr.setflags(write=False)
        return X
    if hasattr(X, "to_numpy") and hasattr(X, "columns"):  # DataFrame
        X = X.to_numpy()
    arr = np.asarray(X)
    if arr.dtype.kind not in "biuf":
        raise ValueError(
            f"{who}: X must be numeric; got dtype {arr.dtype}. Fix: convert or drop the "
            "non-numeric columns (load_dataset names them)."
        )
    out = np.ascontiguousarray(arr, dtype=np.float64)
    # never freeze (or hash) memory the caller can still write to: copy unless it is
    # already read-only or a fresh conversion
    if out.flags.writeable and np.may_share_memory(out, arr):
        out = out.copy()
    out.setflags(write=False)
    return out


def constant_columns(X) -> np.ndarray:
    """Indices of columns whose values are all equal (exact)."""
    n, m = X.shape
    if n == 0:
        return np.arange(m)
    if is_mapped(X):  # block by block: never a full-size temporary
        parts = []
        for a, b in column_slices(X):
            parts.append(a + np.flatnonzero(np.all(X[:, a:b] == X[0:1, a:b], axis=0)))
            release_map(X)  # keep one slice resident, not the file
        return np.concatenate(parts)
    if sp.issparse(X):
        if X.format == "csc":
            counts = np.diff(X.indptr)
        else:
            counts = np.bincount(X.indices, minlength=m)
        const = counts == 0  # all zero (explicit zeros were eliminated)
        full = np.flatnonzero(counts == n)
        if len(full):
            sub = X[:, full]
            lo = sub.min(axis=0).toarray().ravel()
            hi = sub.max(axis=0).toarray().ravel()
            const[full[lo == hi]] = True
        return np.flatnonzero(const)
    if X.ndim != 2 or not X.flags.c_contiguous:
        return np.flatnonzero(np.all(X == X[0:1, :], axis=0))
    # a band of rows at a time into one small buffer: a mask of the whole matrix is fresh memory
    # to fault in (0.16-0.4 s at 300 x 100,000 on a loaded VM), this is cache-sized
    rows = max(1, (4 << 20) // max(1, m))
    buf = np.empty((min(rows, n), m), dtype=bool)
    same = np.ones(m, dtype=bool)
    for a in range(0, n, rows):  # row 0 too: a NaN is not equal to itself
        part = X[a : a + rows]
        np.equal(part, X[0], out=buf[: len(part)])
        same &= buf[: len(part)].all(axis=0)
    return np.flatnonzero(same)
