"""The dense histogram's cache-sized tiles: each BLAS product tile is binned while it is in L2.

:class:`TileCounter` takes the standardised blocks of :func:`fsviz.stats.correlation_histogram`
(a feature per row) and counts ``|rho| >= T[k]`` for every threshold over all their pairs, a run of
tiles at a time, on Python threads that each call a nogil numba loop (one BLAS thread): it
multiplies each tile and bins it at once (:mod:`fsviz.stats._corr_kernels`: ``hist_tiles``,
``hist_tiles_f32``, ``hist_tiles_f32_uniform``).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numba
import numpy as np

# numba's np.dot calls scipy's BLAS: loaded before the BLAS thread limit looks for libraries
import scipy.linalg.cython_blas  # noqa: F401
from threadpoolctl import ThreadpoolController

from fsviz.stats import _corr_kernels as K

# A product tile of TILE x TILE float64 (512 KB) stays in a core's L2 (1 MB on the
# measured machine) while it is binned; a whole 2048 x 2048 block (33 MB) went to memory and
# back, and the skinny products (n of 50) were bound by that traffic. Against 128 x 512 and
# 256 x 512 tiles (m = 20,000, n = 50 and 200, load 10-11), 256 x 256 was as fast or faster.
TILE = 256
#: float32 tiles have this many times TILE rows: 512 x 256 float32 is the float64 tile's 512 KB,
#: and halves the BLAS and kernel calls per pair (CPU time at m = 20,000, load 3.5: -9 % at
#: n = 50, -4 % at n = 200 against 256 x 256; 1024 rows gained nothing more)
F32_ROWS = 2
#: product flops (2 n per pair) a thread takes per call: about 4 float32 tiles of 512 x 256 at
#: n = 50; fewer, larger calls at larger n. Enough for the GIL hand-over between calls to cost
#: nothing, few enough that the last calls of a task keep both threads busy.
UNIT_FLOPS = 60e6

_LOCK = threading.Lock()
_POOLS: dict[int, ThreadPoolExecutor] = {}
_BLAS: list[ThreadpoolController] = []


def _pool(nthreads: int) -> ThreadPoolExecutor:
    """The process's pool of ``nthreads`` tile threads, made once (a pool per task cost about
    1 ms; 10 tasks at m = 20,000)."""
    with _LOCK:
        if nthreads not in _POOLS:
            _POOLS[nthreads] = ThreadPoolExecutor(nthreads, thread_name_prefix="fsviz-hist")
        return _POOLS[nthreads]


def _after_fork() -> None:
    # a forked child has none of the parent's threads: its copy of a pool would queue the tiles
    # for threads that do not exist and wait forever; the lock may have been held at the fork
    global _LOCK
    _LOCK = threading.Lock()
    _POOLS.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def one_blas_thread() -> Any:
    """Context holding every loaded BLAS to one thread (the tiles' threads are the parallelism).

    threadpoolctl's library scan is made once (3 ms a ``threadpool_limits``; 20 us a limit).
    """
    with _LOCK:
        if not _BLAS:
            _BLAS.append(ThreadpoolController())
    return _BLAS[0].limit(limits=1, user_api="blas")


def n_threads() -> int:
    """Threads for the tiles: numba's setting (NUMBA_NUM_THREADS, ``numba.set_num_threads``)."""
    return numba.get_num_threads()


def ceil32(x: np.ndarray) -> np.ndarray:
    """The smallest float32 at or above each float64 value."""
    f = x.astype(np.float32)
    up = f.astype(np.float64) < x
    f[up] = np.nextafter(f[up], np.float32(np.inf))
    return f


def uniform_geometry(T: np.ndarray, delta: float) -> tuple | None:
    """``(base, inv_w, eps)`` for :func:`~fsviz.stats._corr_kernels.hist_tile_f32_uniform`, or
    None when the thresholds are too unequal (or too dense) for it.

    ``T`` = (-inf, T[1..K+1] (the lower edges minus tol), T[K+2] (the last edge plus tol, plus an
    ulp), +inf). The kernel measures a float32 value ``a`` in bin widths, ``u = (a - base) *
    inv_w`` in float32, and takes the slow path within ``eps`` of an integer. ``eps`` covers,
    in value units: the re-check window (``delta`` and the ulp ``A_hi`` rounds up by, < 1.2e-7),
    the thresholds' distance from an exact arithmetic sequence, the gap from ``T[K+1]`` to
    ``T[K+2]`` (both near the integer K), and the float32 error of ``u`` (base and inv_w
    rounded, a subtraction and a product: < 6.1 * 2**-24 = 3.7e-7 for |a|, |base| <= ~1;
    the distance to the nearest integer is then exact). 1e-6 covers the ulp and ``u``'s error.
    """
    lo = T[1:-2]
    k = lo.size - 1
    if k < 1 or not np.isfinite(lo).all():
        return None
    w = (lo[-1] - lo[0]) / k
    dev = float(np.max(np.abs(lo - (lo[0] + w * np.arange(k + 1)))))
    margin = delta + dev + float(T[-2] - T[-3]) + 1e-6
    eps = margin / w * (1 + 1e-6)
    if not eps < 0.25:  # windows cover much of each bin: the two-compare kernel is as fast
        return None
    return np.float32(lo[0]), np.float32(1.0 / w), ceil32(np.array([eps]))[0]


class TileCounter:
    """Counts ``v >= T[k]`` over all pairs of standardised blocks, one cache-sized tile at a time.

    :meth:`count` takes block pairs from an iterator and cuts each into runs of tiles; each of
    ``nthreads`` Python threads takes the next run (the iterator is read under a lock, so a
    thread that runs out of tiles loads the next blocks while the others multiply) and hands it
    to one nogil numba call that multiplies each tile with BLAS (one thread, so the threads do
    not oversubscribe the cores; the caller limits BLAS, :func:`one_blas_thread`) into its own
    buffer and bins it while it is in cache. The counts per threshold are integers, so neither
    the tiling nor the thread that took a tile changes them.
    """

    def __init__(self, T: np.ndarray, precision: str, delta: float, nthreads: int):
        self.T = T
        self.f32 = precision == "float32"
        self.uniform = None
        if self.f32:
            self.A_lo = ceil32(T - delta)
            self.A_hi = ceil32(T + delta)
            # |rho| >= 0 > T[k]: counted whatever the rounding, no re-check
            nonpos = T <= 0
            self.A_lo[nonpos] = 0.0
            self.A_hi[nonpos] = 0.0
            self.uniform = uniform_geometry(T, delta)
        self.nthreads = max(1, int(nthreads))
        self.ge = np.zeros((self.nthreads, T.size), dtype=np.int64)
        self.rechecked = np.zeros(self.nthreads, dtype=np.int64)
        dtype = np.float32 if self.f32 else np.float64
        self.th = TILE * (F32_ROWS if self.f32 else 1)  # tile rows
        self.tw = TILE
        self.bufs = [np.empty(self.th * self.tw, dtype=dtype) for _ in range(self.nthreads)]
        self.sbufs = [np.empty(self.tw, dtype=np.int32) for _ in range(self.nthreads)]

    def close(self) -> None:
        """Nothing to release (the threads are the process's, :func:`_pool`); kept for callers."""

    def _runs(self, blocks: Iterable[tuple]) -> Iterator[tuple]:
        for Zi, Zj, Zi32, Zj32, diag in blocks:
            wi, wj, th, tw = Zi.shape[0], Zj.shape[0], self.th, self.tw
            tiles = np.array(
                [
                    (r0, c0)
                    for r0 in range(0, wi, th)
                    for c0 in range(0, wj, tw)
                    if not diag or c0 + tw > r0  # tiles wholly below a diagonal block's diagonal hold no pair
                ],
                dtype=np.int64,
            ).reshape(-1, 2)
            step = max(1, int(UNIT_FLOPS / (2.0 * Zi.shape[1] * th * tw)))
            for s in range(0, tiles.shape[0], step):
                yield Zi, Zj, Zi32, Zj32, diag, tiles[s : s + step]

    def count(self, blocks: Iterable[tuple]) -> None:
        """Count all pairs of each ``(Zi, Zj, Zi32, Zj32, diag)`` of ``blocks``: rows of ``Zi``
        against rows of ``Zj`` (above the diagonal when ``diag``); ``Zi32``, ``Zj32`` are their
        float32 copies (``precision="float32"``, else unused). ``blocks`` may load lazily."""
        runs = self._runs(blocks)
        lock = threading.Lock()

        def work(t: int) -> None:
            ge, buf, sbuf = self.ge[t], self.bufs[t], self.sbufs[t]
            while True:
                with lock:  # a generator is not thread-safe
                    run = next(runs, None)
                if run is None:
                    return
                Zi, Zj, Zi32, Zj32, diag, tiles = run
                if not self.f32:
                    K.hist_tiles(Zi, Zj, tiles, self.th, self.tw, diag, self.T, ge, buf)
                elif self.uniform is not None:
                    self.rechecked[t] += K.hist_tiles_f32_uniform(
                        Zi32, Zj32, Zi, Zj, tiles, self.th, self.tw, diag,
                        self.T, self.A_lo, self.A_hi, *self.uniform, ge, buf, sbuf,
                    )  # fmt: skip
                else:
                    self.rechecked[t] += K.hist_tiles_f32(
                        Zi32, Zj32, Zi, Zj, tiles, self.th, self.tw, diag,
                        self.T, self.A_lo, self.A_hi, ge, buf,
                    )  # fmt: skip

        if self.nthreads == 1:
            work(0)
        else:
            list(_pool(self.nthreads).map(work, range(self.nthreads)))

    def add(self, Zi: np.ndarray, Zj: np.ndarray, Zi32: Any, Zj32: Any, diag: bool) -> None:
        """:meth:`count` of one block pair."""
        self.count([(Zi, Zj, Zi32, Zj32, diag)])

    def slots(self) -> tuple[np.ndarray, int]:
        ge = self.ge.sum(axis=0)
        return ge[:-1] - ge[1:], int(self.rechecked.sum())
