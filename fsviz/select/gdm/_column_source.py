"""Out-of-core column blocks for GDM: memory-mapped ``.npy`` files and zarr arrays.

GDM touches its data in two ways only: full scans over contiguous feature blocks (score
scans ``X' v``, column moments, group completion) and gathers of a few columns (CRM
walks, the master problem's design). :class:`ColumnSource` gives exactly those two
accesses on an array that stays on disk, converting one block at a time to float64, so
memory holds ``n_samples x block`` values instead of the whole matrix.

Accepted inputs (see :func:`is_out_of_core`):

- ``numpy.memmap``, including ``np.load(path, mmap_mode="r")`` (C or Fortran order; a
  Fortran-ordered file reads a column block contiguously), any numeric dtype;
- ``zarr.Array`` (chunks spanning all rows and a few thousand columns read best).

The source pickles without its data (a memmap as file name + geometry, a zarr array as
its store), so Dask workers read their own blocks from the same file.
"""

from __future__ import annotations

import mmap

import numpy as np

from fsviz.select.gdm import _column_source_kernels as _K

__all__ = ["ColumnSource", "is_out_of_core"]


def is_out_of_core(X) -> bool:
    """True for a ``numpy.memmap`` or a ``zarr.Array`` (read block by block, never copied whole)."""
    if isinstance(X, np.memmap):
        return True
    return type(X).__module__.split(".")[0] == "zarr" and hasattr(X, "shape") and hasattr(X, "dtype")


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
            out = _K.rows_dot_any(raw, r, np.ascontiguousarray(v[r]))
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
