"""Out-of-core column blocks for GDM: memory-mapped ``.npy`` files and zarr arrays.

GDM touches its data in two ways only: full scans over contiguous feature blocks (score
scans ``X' v``, column moments, group completion) and gathers of a few columns (CRM
walks, the master problem's design). :class:`ColumnSource` gives exactly those two
accesses on an array that stays on disk, converting one block at a time to float64, so
memory holds ``n_samples x block`` values instead of the whole matrix.

Accepted inputs (see :func:`is_out_of_core`):

- ``numpy.memmap``, including ``np.load(path, mmap_mode="r")`` (C or Fortran order; a
  Fortran-ordered file reads a column block contiguously), any numeric dtype;
- ``zarr.Array`` (chunks spanning all rows and a few thousand columns read best);
- a scipy CSC matrix whose ``data`` / ``indices`` are memory maps (e.g. a
  :func:`fsviz.data.seeds.write_seed_shape` text shape opened by ``load_dataset``):
  :class:`SparseColumnSource` reads each column block's non-zeros from the files with
  ``readinto`` / ``pread`` (copies from the page cache), so no mapped page stays resident
  -- a memory-mapped scipy matrix would keep every page it has read in the process.

The source pickles without its data (a memmap as file name + geometry, a zarr array as
its store), so Dask workers read their own blocks from the same file.
"""

from __future__ import annotations

import mmap
import os

import numpy as np
import scipy.sparse as sp

from fsviz.data.columns import release_map
from fsviz.select._base import readonly
from fsviz.select.gdm import _column_source_kernels as _K

__all__ = ["ColumnSource", "SparseColumnSource", "is_out_of_core", "make_source"]


def is_out_of_core(X) -> bool:
    """True for a ``numpy.memmap``, a ``zarr.Array`` or a CSC matrix over memory maps
    (read block by block, never copied whole)."""
    if isinstance(X, np.memmap):
        return True
    if sp.issparse(X):
        return X.format == "csc" and X.ndim == 2 and isinstance(X.data, np.memmap)
    return type(X).__module__.split(".")[0] == "zarr" and hasattr(X, "shape") and hasattr(X, "dtype")


def make_source(X):
    """The column source of an out-of-core ``X`` (see :func:`is_out_of_core`)."""
    if sp.issparse(X):
        return SparseColumnSource(X)
    return ColumnSource(X)


def _memmap_geometry(X: np.memmap):
    """``(filename, dtype, shape, order, offset)`` to reopen a whole-file memmap, else None."""
    base = X.base
    if X.filename is None or base is None or type(base).__name__ != "mmap":
        return None  # a view of a memmap: its own offset is unknown, pickle the data instead
    order = "F" if (X.flags.f_contiguous and not X.flags.c_contiguous) else "C"
    if not (X.flags.c_contiguous or X.flags.f_contiguous):
        return None
    return (str(X.filename), X.dtype.str, tuple(X.shape), order, int(X.offset))


class ColumnSource:
    """Read-only float64 column blocks of an out-of-core 2-D array.

    Parameters
    ----------
    X : numpy.memmap or zarr.Array of shape (n_samples, n_features)
        Numeric, two-dimensional. Never modified, never read whole.

    Attributes
    ----------
    shape : tuple of int
    shift : int
        Power of two applied to every value read (set by GDM after its statistics pass,
        like :func:`fsviz.select._base.scale_extreme` for in-memory data).
    """

    ndim = 2
    dtype = np.dtype(np.float64)

    def __init__(self, X):
        if len(X.shape) != 2:
            raise ValueError(f"GDM: out-of-core 'X' must be 2-D; got shape {tuple(X.shape)}.")
        kind = np.dtype(X.dtype).kind
        if kind not in "biuf":
            raise ValueError(
                f"GDM: out-of-core 'X' must hold numbers (bool, int or float); got dtype {X.dtype}."
            )
        self.X = X
        self.shape = (int(X.shape[0]), int(X.shape[1]))
        self.shift = 0
        self._zarr = not isinstance(X, np.memmap)
        #: reading only some rows saves I/O only when rows are contiguous on disk (C order)
        self.row_major = not self._zarr and bool(X.flags.c_contiguous) and X.shape[1] > 1
        # a read-only whole-file memmap: after each read, its pages are unmapped again
        # (MADV_DONTNEED; they stay in the page cache) so the resident set stays one block
        base = None if self._zarr else X.base
        self._release = (
            base
            if getattr(X, "mode", None) == "r" and type(base).__name__ == "mmap" and hasattr(base, "madvise")
            else None
        )
        # a whole Fortran-ordered file: a column block is one contiguous byte range, read
        # with readinto (a copy from the page cache) instead of faulting in the mapping's
        # pages and unmapping them again (~1 s per 1.15 GB at psoriasis' shape)
        geo = None if self._zarr else _memmap_geometry(X)
        self._file = geo if geo is not None and geo[3] == "F" and X.shape[1] > 1 else None

    # ------------------------------------------------------------------ pickling
    def __reduce__(self):
        if not self._zarr:
            geo = _memmap_geometry(self.X)
            if geo is not None:
                return (_reopen_memmap, (*geo, self.shift))
        return (_rebuild, (self.X, self.shift))

    # ------------------------------------------------------------------ reads
    def _read(self, a: int, b: int):
        """Raw columns ``a:b`` (stored dtype, Fortran order) read from the file, or None."""
        if self._file is None:
            return None
        filename, dtype, shape, _, offset = self._file
        dt = np.dtype(dtype)
        out = np.empty((shape[0], b - a), dtype=dt, order="F")
        with open(filename, "rb", buffering=0) as f:
            f.seek(offset + a * shape[0] * dt.itemsize)
            view = memoryview(out.reshape(-1, order="F").view(np.uint8))
            got = 0
            while got < view.nbytes:
                k = f.readinto(view[got:])
                if not k:
                    raise OSError(f"ColumnSource: {filename} ended early (columns {a}..{b - 1}).")
                got += k
        return out

    def _scale(self, B: np.ndarray) -> np.ndarray:
        if self._release is not None:
            self._release.madvise(mmap.MADV_DONTNEED)
        if self.shift:
            np.ldexp(B, self.shift, out=B)
        return B

    def block(self, a: int, b: int, rows=None) -> np.ndarray:
        """Columns ``a:b`` (optionally only ``rows``) as a new float64 array (C or F order)."""
        if rows is None:
            raw = self._read(a, b)
            if raw is not None:  # a fresh array of ours: convert (or scale) in place
                return self._scale(raw.astype(np.float64, order="F", copy=False))
            raw = self.X[:, a:b]
        elif self._zarr:
            raw = self.X.get_orthogonal_selection((np.asarray(rows, dtype=np.intp), slice(a, b)))
        else:
            raw = self.X[np.asarray(rows, dtype=np.intp), a:b]
        # keep the file's layout: a Fortran-ordered file gives an F block without a transpose
        return self._scale(np.array(raw, dtype=np.float64, order="K"))

    def dot(self, a: int, b: int, v: np.ndarray, rows=None) -> np.ndarray:
        """``X[rows, a:b]' v[rows]`` (all rows when None) in float64, ``v`` of length n.

        A memmap block is read once in its stored dtype by a numba kernel (no float64 copy
        of the block); ``rows`` limits the read to those rows of a C-ordered file. Other
        sources go through :meth:`block`.
        """
        if self._zarr:
            B = self.block(a, b)
            return B.T @ v
        raw = self._read(a, b) if rows is None else None
        if raw is not None:
            out = _K.cols_dot(raw, np.ascontiguousarray(v))
            return np.ldexp(out, self.shift) if self.shift else out
        raw = np.asarray(self.X[:, a:b])  # a view: nothing read yet
        if raw.flags.f_contiguous and rows is None:
            out = _K.cols_dot(raw, np.ascontiguousarray(v))
        else:
            r = np.arange(raw.shape[0]) if rows is None else np.asarray(rows, dtype=np.intp)
            out = _K.rows_dot_any(readonly(raw), r, np.ascontiguousarray(v[r]))
        if self._release is not None:
            self._release.madvise(mmap.MADV_DONTNEED)
        return np.ldexp(out, self.shift) if self.shift else out

    def gather(self, cols, rows=None) -> np.ndarray:
        """Columns ``cols`` (any order, repeats allowed) as a Fortran-ordered float64 array."""
        cols = np.asarray(cols, dtype=np.intp)
        uniq, inv = np.unique(cols, return_inverse=True)  # sorted reads: one pass over the file
        if self._zarr:
            sel = (slice(None) if rows is None else np.asarray(rows, dtype=np.intp), uniq)
            raw = self.X.get_orthogonal_selection(sel)
        else:
            raw = self.X[:, uniq] if rows is None else self.X[np.ix_(np.asarray(rows, dtype=np.intp), uniq)]
        B = np.asfortranarray(np.asarray(raw, dtype=np.float64)[:, inv])
        return self._scale(B)

    def __getitem__(self, key):
        """``src[:, a:b]`` (a block) and ``src[:, cols]`` (a gather); nothing else."""
        if isinstance(key, tuple) and len(key) == 2 and key[0] == slice(None):
            c = key[1]
            if isinstance(c, slice):
                a, b, step = c.indices(self.shape[1])
                if step == 1:
                    return self.block(a, b)
            else:
                return self.gather(c)
        raise IndexError("ColumnSource supports only X[:, a:b] and X[:, cols].")


def _reopen_memmap(filename, dtype, shape, order, offset, shift):
    X = np.memmap(filename, dtype=np.dtype(dtype), mode="r", shape=shape, order=order, offset=offset)
    src = ColumnSource(X)
    src.shift = shift
    return src


def _rebuild(X, shift):
    src = ColumnSource(X)
    src.shift = shift
    return src


def block_stats(Xb: np.ndarray, want_discrete: bool):
    """One block's statistics pass: finiteness, largest ``|x|``, integrality and range.

    Returns ``(finite, top, integer, lo, hi)`` (``integer``/``lo``/``hi`` only meaningful
    when ``want_discrete``).
    """
    if Xb.size == 0:
        return True, 0.0, True, 0.0, 0.0
    lo, hi = float(Xb.min()), float(Xb.max())  # NaN propagates, inf shows: no temporaries
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return False, 0.0, True, 0.0, 0.0
    top = max(abs(lo), abs(hi))
    if want_discrete:
        return True, top, bool(np.all(Xb == np.round(Xb))), lo, hi
    return True, top, True, lo, hi


# ============================================================================ sparse (CSC) source
def _file_ref(a):
    """``(filename, offset, dtype, length)`` of a whole-file 1-D memmap, else None."""
    if not isinstance(a, np.memmap) or a.ndim != 1 or a.filename is None:
        return None
    if a.base is None or type(a.base).__name__ != "mmap" or not a.flags.c_contiguous:
        return None
    return (str(a.filename), int(a.offset), a.dtype.str, int(a.shape[0]))


class _Reader:
    """Ranges of a 1-D on-disk array: ``pread`` from its file (no mapped page ever resident),
    or slices of the memmap released again after every read when the file is unknown."""

    def __init__(self, a):
        self.a = a
        self.ref = _file_ref(a)
        self.dtype = np.dtype(a.dtype)
        self._fd = None

    def __getstate__(self):
        return {"a": None if self.ref else self.a, "ref": self.ref, "dtype": self.dtype.str}

    def __setstate__(self, st):
        self.ref, self.dtype, self._fd = st["ref"], np.dtype(st["dtype"]), None
        self.a = st["a"]

    def _file(self) -> int:
        if self._fd is None:
            self._fd = os.open(self.ref[0], os.O_RDONLY)
        return self._fd

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown  # pragma: no cover
            pass

    def read(self, lo: int, hi: int) -> np.ndarray:
        """Elements ``lo:hi`` as a new in-memory array (stored dtype)."""
        if self.ref is None:
            out = np.array(self.a[lo:hi])
            release_map(self.a)
            return out
        out = np.empty(max(hi - lo, 0), dtype=self.dtype)
        self.read_into(out, lo)
        return out

    def read_into(self, out: np.ndarray, lo: int) -> None:
        """Fill ``out`` (contiguous, stored dtype) with elements ``lo:lo + out.size``."""
        if self.ref is None:
            out[...] = self.a[lo : lo + out.size]
            return
        view = memoryview(out.view(np.uint8).reshape(-1))
        fd, pos, got = self._file(), self.ref[1] + lo * self.dtype.itemsize, 0
        while got < view.nbytes:
            k = os.preadv(fd, [view[got:]], pos + got)
            if not k:
                raise OSError(f"SparseColumnSource: {self.ref[0]} ended early.")
            got += k


class SparseColumnSource(ColumnSource):
    """Read-only float64 CSC column blocks of a sparse matrix whose arrays are on disk.

    ``X`` is a ``scipy.sparse`` CSC matrix whose ``data`` and ``indices`` are memory maps
    (``load_dataset`` of a :func:`fsviz.data.seeds.write_seed_shape` text shape). Its
    ``indptr`` (8 bytes per feature) is copied to memory once; a block ``a:b`` reads the
    non-zeros ``indptr[a]:indptr[b]`` of both files with ``pread`` into new arrays, so the
    process holds one block, never the mapped files (a memory-mapped scipy matrix keeps
    every page it has read resident: RSS >= the data's size). Blocks and gathers are the
    same CSC columns ``X[:, a:b]`` / ``X[:, cols]`` an in-memory matrix gives, converted to
    float64 and scaled by ``2**shift``, so GDM's results equal the in-memory sparse path's.
    """

    sparse = True

    def __init__(self, X):
        if not sp.issparse(X) or X.format != "csc":
            raise ValueError("SparseColumnSource: 'X' must be a scipy.sparse CSC matrix.")
        kind = np.dtype(X.dtype).kind
        if kind not in "biuf":
            raise ValueError(f"GDM: sparse 'X' must hold numbers; got dtype {X.dtype}.")
        self.X = None
        self.shape = (int(X.shape[0]), int(X.shape[1]))
        self.shift = 0
        self._zarr = False
        self.row_major = False
        self._release = None
        self._file = None
        self.indptr = np.array(X.indptr, dtype=np.int64)
        release_map(X.indptr)
        self.nnz = int(self.indptr[-1])
        self._data = _Reader(X.data)
        self._indices = _Reader(X.indices)

    def __reduce__(self):
        return (_rebuild_sparse, (self.shape, self.indptr, self._data, self._indices, self.shift))

    def _csc(self, data, indices, indptr, width: int) -> sp.csc_matrix:
        data = data.astype(np.float64, copy=False)
        if self.shift:
            np.ldexp(data, self.shift, out=data)
        B = sp.csc_matrix((data, indices, indptr), shape=(self.shape[0], width))
        B.sort_indices()  # in place; a no-op for canonical files
        return B

    def block(self, a: int, b: int, rows=None):
        """Columns ``a:b`` as a new float64 CSC matrix (``rows``: only those rows)."""
        lo, hi = int(self.indptr[a]), int(self.indptr[b])
        B = self._csc(self._data.read(lo, hi), self._indices.read(lo, hi), self.indptr[a : b + 1] - lo, b - a)
        return B if rows is None else B[np.asarray(rows, dtype=np.intp)]

    def dot(self, a: int, b: int, v: np.ndarray, rows=None) -> np.ndarray:
        """``X[:, a:b]' v`` in float64 (the in-memory sparse product, block by block)."""
        return np.asarray(self.block(a, b).T @ v, dtype=np.float64)

    def gather_sparse(self, cols) -> sp.csc_matrix:
        """Columns ``cols`` (any order, repeats allowed) as a float64 CSC matrix, like ``X[:, cols]``."""
        cols = np.asarray(cols, dtype=np.intp).ravel()
        starts, ends = self.indptr[cols], self.indptr[cols + 1]
        counts = ends - starts
        ip = np.zeros(cols.size + 1, dtype=np.int64)
        np.cumsum(counts, out=ip[1:])
        data = np.empty(int(ip[-1]), dtype=self._data.dtype)
        ind = np.empty(int(ip[-1]), dtype=self._indices.dtype)
        for k in range(cols.size):  # one pread per column and file (a few dozen columns)
            if counts[k]:
                self._data.read_into(data[ip[k] : ip[k + 1]], int(starts[k]))
                self._indices.read_into(ind[ip[k] : ip[k + 1]], int(starts[k]))
        return self._csc(data, ind, ip, cols.size)

    def gather(self, cols, rows=None) -> np.ndarray:
        """Columns ``cols`` (optionally rows ``rows``) as a dense Fortran-ordered float64 array."""
        B = self.gather_sparse(cols)
        if rows is not None:
            B = B[np.asarray(rows, dtype=np.intp)]
        return np.asfortranarray(B.toarray(), dtype=np.float64)


def _rebuild_sparse(shape, indptr, data, indices, shift):
    src = SparseColumnSource.__new__(SparseColumnSource)
    src.X, src.shape, src.shift = None, tuple(shape), shift
    src._zarr, src.row_major, src._release, src._file = False, False, None, None
    src.indptr, src.nnz = indptr, int(indptr[-1])
    src._data, src._indices = data, indices
    return src


def sparse_block_stats(Xb, want_discrete: bool):
    """:func:`block_stats` of a sparse block, as :func:`~fsviz.stats.information.is_discrete`
    sees sparse data (its stored values and 0)."""
    d = Xb.data
    if d.size == 0:
        return True, 0.0, True, 0.0, 0.0
    lo, hi = float(d.min()), float(d.max())
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return False, 0.0, True, 0.0, 0.0
    top = max(abs(lo), abs(hi))
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    if want_discrete:
        return True, top, bool(np.all(d == np.round(d))), lo, hi
    return True, top, True, lo, hi
