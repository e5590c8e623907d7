"""Passes over X for GDM: column statistics, ``X' v`` products, thread limits.

The :class:`_Scanner` streams column blocks from memory, an out-of-core column source or a
Dask cluster; thread counts are chosen so a cached result does not depend on machine load.
"""

from __future__ import annotations

import contextlib
import os

import numba
import numpy as np
import scipy.sparse as sp
from sklearn.utils import assert_all_finite
from threadpoolctl import ThreadpoolController

from fsviz.select._base import EXTREME, readonly
from fsviz.select.gdm import _kernels as GK
from fsviz.select.gdm._column_source import ColumnSource, block_stats, sparse_block_stats
from fsviz.stats.moments import column_moments

_AUTO_BLOCK = 16384  # features per scan block (and per Dask task)


def _gather(X, cols, rows=None) -> np.ndarray:
    """Raw columns ``cols`` (optionally rows ``rows``) as a dense Fortran-ordered array."""
    if isinstance(X, ColumnSource):
        return X.gather(cols, rows)
    if sp.issparse(X):
        B = X[:, cols]
        if rows is not None:
            B = B[rows]
        return np.asfortranarray(B.toarray(), dtype=np.float64)
    B = X[:, cols] if rows is None else X[np.ix_(rows, cols)]
    return np.asfortranarray(B, dtype=np.float64)


def _block_dot(Xb, V: np.ndarray) -> np.ndarray:
    """``Xb' V`` for one feature block (dense or sparse)."""
    out = Xb.T @ V
    return np.asarray(out, dtype=np.float64)


_CPUS = os.cpu_count() or 1  # read once: os.cpu_count() costs ~0.1 ms a call
_STATS_MIN_SIZE = 1 << 20  # smaller X: numpy's passes (waking numba's threads costs more)


def _finite_stats(X, v=None):
    """Validation's finiteness check of an in-memory ``X``, fused with the statistics pass.

    Dense C-ordered ``X`` of at least :data:`_STATS_MIN_SIZE` values: one pass of
    :func:`~fsviz.select.gdm._kernels.dense_stats` gives the column sums and sums of squares
    (bitwise numpy's, so :func:`~fsviz.stats.moments.column_moments` gets the same moments
    from them), the largest ``|value|`` (what :func:`scale_extreme` looks at) and, for a
    vector ``v`` (the first iteration's ``alpha * y``), the first score scan ``X' v``; all
    sums finite means all values finite. Returns ``(sums, sums_of_squares, largest |value|,
    X' v or zeros)``, or None (other input, or a non-finite sum from values near the float64
    limit) after :func:`sklearn.utils.assert_all_finite` -- which raises validation's usual
    error for NaN or infinity.
    """
    if isinstance(X, np.ndarray) and X.flags.c_contiguous and X.size >= _STATS_MIN_SIZE:
        w = np.ascontiguousarray(v) if v is not None and v.ndim == 1 else np.empty(0)
        with _numba_threads():
            s1, s2, lo, hi, u = GK.dense_stats(readonly(X), w, numba.get_num_threads())
        if np.isfinite(s1).all():
            return s1, s2, float(max(hi.max(), -lo.min())), u
    with np.errstate(over="ignore", invalid="ignore"):  # its fast sum overflows near the limit
        assert_all_finite(X, allow_nan=False, estimator_name="GDM", input_name="X")
    return None


def _moderate(top: float) -> bool:
    """:func:`scale_extreme` leaves data whose largest ``|value|`` is ``top`` unchanged."""
    return top == 0.0 or 1.0 / EXTREME <= top <= EXTREME


def _free_threads() -> int:
    """Threads GDM's parallel parts use: the cores the load average leaves free, at least one.

    ``cores - round(load)``, clipped to ``[1, cores]``. The load average counts GDM's own
    process once it has run for a while, so on this project's 2-core machine a fit gets both
    cores only when nothing else ran in the last minute (load < 0.5). Measured on the
    2,048 x 10,000 benchmark (issue 14, fits alternating between thread settings in one
    process, best of 12): at load 0.9-1.1 two threads made the memory-bound numba passes
    faster (statistics pass 11 -> 7 ms, score scans 18 -> 12 ms) but the completion product
    slower (42 -> 45 ms): best totals 114 vs 109 ms, medians 123 vs 137 ms; at load 1.7-2.2
    the medians were 154 ms with one thread and 496 ms with two (threads waiting for a core).
    """
    try:
        load = os.getloadavg()[0]
    except OSError:  # platform without load average
        return _CPUS
    return max(1, min(_CPUS, _CPUS - int(load + 0.5)))


_POOL = None  # threadpoolctl controller, made on first use (inspecting the libraries costs ms)


def _blas_threads():
    """Context: BLAS limited to :func:`_free_threads` threads (no limit when all cores are free).

    GDM's own rule, stricter than :func:`~fsviz.select._base.blas_limits` (one thread only from
    a load of ``cores``), see :func:`_free_threads` for the measurements.
    """
    k = _free_threads()
    if k >= _CPUS:
        return contextlib.nullcontext()
    global _POOL
    if _POOL is None:
        _POOL = ThreadpoolController()
    return _POOL.limit(limits=k, user_api="blas")


@contextlib.contextmanager
def _numba_threads():
    """numba limited to :func:`_free_threads` threads while the machine is busy.

    Like :func:`_blas_threads` for BLAS: on a loaded 2-core machine the 2-thread
    :func:`~fsviz.select.gdm._kernels.rows_dot` waits for a free core and runs 3-5x slower
    than the 1-thread one (2048 x 10,000, load 4-5: 0.010-0.020 s vs 0.004 s).
    """
    before = numba.get_num_threads()
    k = min(_free_threads(), before)
    if k >= before:
        yield
        return
    numba.set_num_threads(k)
    try:
        yield
    finally:
        numba.set_num_threads(before)


class _Scanner:
    """Runs block functions over contiguous feature blocks, locally or on a Dask cluster."""

    def __init__(self, X, block_size: int, client=None, progress=None):
        m = X.shape[1]
        self.X = X
        self.progress = progress  # progress(phase, blocks_done, n_blocks) or None
        self.n_scans = 0
        self.bounds = [(a, min(a + block_size, m)) for a in range(0, m, block_size)]
        self.client = client
        self._futures = None
        self._source = isinstance(X, ColumnSource)  # out of core: blocks are read, never held
        if client is not None and self._source:
            self._futures = client.scatter(X, broadcast=True)  # pickles the file reference only
        elif client is not None:
            blocks = []
            for a, b in self.bounds:
                blk = X[:, a:b]
                blocks.append(blk.tocsc() if sp.issparse(blk) else np.ascontiguousarray(blk))
            self._futures = client.scatter(blocks)

    def _block(self, i):
        a, b = self.bounds[i]
        return self.X[:, a:b]

    def _tick(self, phase: str, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(phase, done, total)

    def dot(self, V: np.ndarray) -> np.ndarray:
        """``X' V`` (m,) or (m, k)."""
        self.n_scans += 1
        out = self._dot(V)
        self._tick(f"score scan {self.n_scans}", len(self.bounds), len(self.bounds))
        return out

    def _dot(self, V: np.ndarray) -> np.ndarray:
        if self._source:
            rows = np.flatnonzero(V) if V.ndim == 1 else None
            if rows is not None and (rows.size >= 0.5 * V.size or not self.X.row_major):
                rows = None  # read only the active rows (alpha_i > 0) when they are few
            if self.client is None:
                return np.concatenate([_source_dot(self.X, a, b, rows, V) for a, b in self.bounds], axis=0)
            vf = self.client.scatter(V, broadcast=True)
            futs = [
                self.client.submit(_source_dot, self._futures, a, b, rows, vf, pure=False)
                for a, b in self.bounds
            ]
            return np.concatenate(self.client.gather(futs), axis=0)
        if self.client is None:
            X = self.X
            if V.ndim == 1 and not sp.issparse(X) and X.flags.c_contiguous and X.dtype == np.float64:
                rows = np.flatnonzero(V)
                if rows.size < 0.5 * V.size:  # stream only the active rows (alpha_i > 0)
                    if rows.size * X.shape[1] < 1 << 20:
                        # small scan (e.g. 360 x 64 digits): waking numba's thread pool costs
                        # more than the product, and far more on a loaded machine
                        return X[rows].T @ V[rows]
                    with _numba_threads():
                        return GK.rows_dot(X, rows, np.ascontiguousarray(V[rows]))
            return np.asarray(X.T @ V, dtype=np.float64)
        vf = self.client.scatter(V, broadcast=True)
        futs = [self.client.submit(_block_dot, f, vf, pure=False) for f in self._futures]
        return np.concatenate(self.client.gather(futs), axis=0)

    def run(self, func, per_block, common):
        """``func(block, *per_block[i], *common)`` for every block, results in block order."""
        phase = "statistics" if func is _source_stats_block else "group completion"
        total = len(self.bounds)
        if self.client is None:
            out = []
            for i in range(total):
                out.append(func(self._block(i), *per_block[i], *common))
                self._tick(phase, i + 1, total)
            return out
        # large arrays, and the SFs' row forms (NamedTuples of arrays: SparseZ, SplitZ), go to
        # every worker once instead of with every block's task
        common_f = [
            self.client.scatter(c, broadcast=True)
            if isinstance(c, np.ndarray) and c.size > 1024
            else self.client.scatter([c], broadcast=True)[0]
            if isinstance(c, tuple) and hasattr(c, "_fields")
            else c
            for c in common
        ]
        if self._source:
            src = self._futures
            futs = [
                self.client.submit(_source_run, func, src, a, b, *per_block[i], *common_f, pure=False)
                for i, (a, b) in enumerate(self.bounds)
            ]
        else:
            futs = [
                self.client.submit(func, f, *per_block[i], *common_f, pure=False)
                for i, f in enumerate(self._futures)
            ]
        out = self.client.gather(futs)
        self._tick(phase, total, total)
        return out

    def close(self):
        if self.client is not None and self._futures is not None:
            self.client.cancel(self._futures)
            self._futures = None


def _source_dot(src: ColumnSource, a: int, b: int, rows, V: np.ndarray) -> np.ndarray:
    """``X[rows, a:b]' V[rows]`` read from an out-of-core source (all rows when ``rows`` is None)."""
    if V.ndim == 1:
        return src.dot(a, b, V, rows)
    return np.asarray(src.block(a, b).T @ V, dtype=np.float64)


def _source_run(func, src: ColumnSource, a: int, b: int, *args):
    """``func(block a:b, *args)`` with the block read from an out-of-core source."""
    return func(src.block(a, b), *args)


def _source_stats_block(Xb, want_discrete: bool, big: bool = False):
    """Statistics pass over one out-of-core block: moments plus :func:`block_stats`.

    A sparse block (``big``: the whole matrix has at least 2**20 non-zeros) gets the moments
    :func:`column_moments` computes for the whole in-memory matrix, bit for bit.
    """
    if sp.issparse(Xb):
        return (*_sparse_moments(Xb, big), sparse_block_stats(Xb, want_discrete))
    mean, norm = column_moments(Xb)
    return mean, norm, block_stats(Xb, want_discrete)


def _sparse_moments(Xb, big: bool):
    """:func:`column_moments` of a CSC block, by the branch it takes for the whole matrix."""
    if not big or Xb.nnz >= 1 << 20:
        return column_moments(Xb)
    from fsviz.stats._moments_kernels import csc_sums

    n = Xb.shape[0]
    s1, s2 = csc_sums(Xb.indptr, Xb.data)
    mean = s1 / n
    ss = np.maximum(s2 - n * mean * mean, 0.0)
    norm = np.sqrt(ss)
    scale = np.abs(mean) * np.sqrt(n) + 1e-300
    norm[norm <= 1e-12 * scale] = 0.0
    return mean, norm


def _source_moments(scanner: _Scanner, want_discrete: bool):
    """One pass over an out-of-core source: validation, scaling, moments, discreteness.

    Raises the ``ValueError`` of in-memory validation for a non-finite value, sets the
    source's power-of-two ``shift`` like :func:`scale_extreme` and returns
    ``(mean, norm, discrete)`` of the scaled data.
    """
    src = scanner.X
    big = getattr(src, "nnz", 0) >= 1 << 20
    out = scanner.run(_source_stats_block, [() for _ in scanner.bounds], (bool(want_discrete), big))
    for (a, b), (_, _, (finite, *_)) in zip(scanner.bounds, out, strict=True):
        if not finite:
            raise ValueError(
                f"GDM: Input X contains NaN or infinity (in columns {a}..{b - 1}); "
                "out-of-core input must be finite."
            )
    mean = np.concatenate([o[0] for o in out]) if out else np.empty(0)
    norm = np.concatenate([o[1] for o in out]) if out else np.empty(0)
    top = max((o[2][1] for o in out), default=0.0)
    discrete = all(o[2][2] for o in out)
    lo = min((o[2][3] for o in out), default=0.0)
    hi = max((o[2][4] for o in out), default=0.0)
    discrete = discrete and hi - lo < 32
    if top > 0.0 and not 1.0 / EXTREME <= top <= EXTREME:
        src.shift = -int(np.frexp(top)[1])  # exactly what scale_extreme does in memory
        mean, norm = np.ldexp(mean, src.shift), np.ldexp(norm, src.shift)
        discrete = False  # scaled values lie in (-1, 1): only all-zero data would be integer
    return mean, norm, discrete
