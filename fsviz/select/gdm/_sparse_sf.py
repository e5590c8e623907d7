"""Sparse support features for GDM on sparse data with very many samples (kdd2010's shape).

The dense path holds the SFs as dense columns: the CRM walk's buffer of standardised SFs,
the raw columns the master problem reads, the master's design ``n x p`` and group
completion's ``Z_S`` -- ``n x T K_b`` float64 each, 15.4 GB at n = 19.3 M. On sparse data an
SF column is its non-zeros plus one value for all the other rows:

    z_s = (x_s - mean_s) / norm_s  =  d_s  on the rows where x_s = 0,  d_s = -mean_s / norm_s,

so this module keeps the SFs' raw non-zeros only (:class:`SparseSFs`) and computes, for a
sparse candidate ``x``,

    x . z_s = sum_{r in nz(x) & nz(x_s)} x_r z_s[r]  +  d_s (sum(x) - sum_{r in nz(x) & nz(x_s)} x_r),

the same products as the dense kernels (``z_s[r] = (x_s[r] - mean_s) / norm_s`` evaluated the
same way) summed in another order: results equal the dense path's to rounding. The master
problem gets a :class:`SparseDesign` ``M = S - 1 c'`` (``S`` the scaled sparse SF columns,
``c`` the scaled means: 0 for one-class) whose Gram matrices over the active rows come from
one pass over its CSR rows (:func:`masked_gram`). GDM-SU keeps the same raw non-zeros for
its master problem and the SFs' codes as narrow integers (the sparse-SF walks of
:mod:`._crm_kernels`).
:func:`use_sparse_sfs` decides: sparse input, no ECV, and a dense SF buffer above
:data:`SPARSE_SF_BYTES`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from numba import njit, prange

from fsviz.select.gdm._kernels import below_threshold

#: dense SF buffers (``n x T K_b`` float64) above this size switch to sparse SFs
SPARSE_SF_BYTES = 1 << 31
#: ... when the data's density (non-zeros / (n m)) is below this
SPARSE_SF_DENSITY = 0.01


def use_sparse_sfs(X, n: int, p_max: int, corr: str, ecv: bool) -> bool:
    """True when GDM should keep its support features sparse (see the module docstring)."""
    is_sparse = sp.issparse(X) or getattr(X, "sparse", False)
    if not is_sparse or ecv:
        return False
    m = X.shape[1]
    density = X.nnz / max(1.0, float(n) * float(m))
    return n * p_max * 8 > SPARSE_SF_BYTES and density < SPARSE_SF_DENSITY


class SparseSFs:
    """Raw non-zeros of the support features in the order found, in growing buffers.

    ``ptr[k]:ptr[k + 1]`` of ``rows``/``data`` are SF ``k``'s rows (sorted) and raw values;
    ``mean``, ``inv`` (``1 / norm``), ``zsum`` (sum of the standardised column) and ``t``
    (its Theorem 1 statistic under the current vector) per SF. ``capacity`` (the data's
    non-zeros: the SFs cannot hold more) is reserved with ``np.empty``, whose pages the
    system commits only when written: memory grows with the SFs' non-zeros, without copies.
    """

    def __init__(self, n_rows: int, p_max: int, capacity: int = 1 << 16):
        self.n_rows = n_rows
        self.ptr = np.zeros(p_max + 1, dtype=np.int64)
        self.rows = np.empty(max(int(capacity), 1), dtype=np.int32 if n_rows < 2**31 else np.int64)
        self.data = np.empty(max(int(capacity), 1))
        self.mean = np.zeros(p_max)
        self.inv = np.zeros(p_max)
        self.zsum = np.zeros(p_max)
        self.t = np.zeros(p_max)

    def reserve(self, n_sf: int, extra: int) -> None:
        """Room for ``extra`` more non-zeros after the first ``n_sf`` SFs."""
        need = int(self.ptr[n_sf]) + int(extra)
        if need > self.rows.size:
            cap = max(need, int(self.rows.size * 1.5))
            used = int(self.ptr[n_sf])
            rows = np.empty(cap, dtype=self.rows.dtype)
            data = np.empty(cap)
            rows[:used] = self.rows[:used]
            data[:used] = self.data[:used]
            self.rows, self.data = rows, data

    def csr(self, pos, shift=None, scale=None):
        """CSR arrays ``(indptr, indices, data)`` of the n x len(pos) matrix whose column k is
        SF ``pos[k]`` (repeats allowed) with values ``(x - shift[k]) * scale[k]``."""
        pos = np.asarray(pos, dtype=np.int64)
        k = pos.size
        shift = np.zeros(k) if shift is None else np.asarray(shift, dtype=np.float64)
        scale = np.ones(k) if scale is None else np.asarray(scale, dtype=np.float64)
        return _build_csr(self.ptr, self.rows, self.data, pos, shift, scale, self.n_rows)


@njit(cache=True)
def _build_csr(ptr, rows, data, pos, shift, scale, n):
    """Row-major copy of columns ``pos`` of the SF buffers (column indices ascending per row)."""
    indptr = np.zeros(n + 1, dtype=np.int64)
    for k in range(pos.shape[0]):
        for e in range(ptr[pos[k]], ptr[pos[k] + 1]):
            indptr[rows[e] + 1] += 1
    for r in range(n):
        indptr[r + 1] += indptr[r]
    nnz = indptr[n]
    fill = indptr[:-1].copy()
    cols = np.empty(nnz, dtype=np.int32)
    vals = np.empty(nnz)
    for k in range(pos.shape[0]):
        a = shift[k]
        b = scale[k]
        for e in range(ptr[pos[k]], ptr[pos[k] + 1]):
            r = rows[e]
            q = fill[r]
            cols[q] = k
            vals[q] = (data[e] - a) * b
            fill[r] = q + 1
    return indptr, cols, vals


# ----------------------------------------------------------------------------- completion
class SparseZ(NamedTuple):
    """Standardised SFs (sorted by ``|t|``) by rows, for group completion: the CSR arrays of
    their non-zeros' ``z`` values, and ``dflt[s] = z_s`` on the other rows."""

    rowptr: np.ndarray  # (n + 1,) int64
    cols: np.ndarray  # (nnz,) int32: SF position in |t| order
    vals: np.ndarray  # (nnz,) float64 standardised values
    dflt: np.ndarray  # (p,)
    p: int

    def abs_max(self) -> np.ndarray:
        """``max_r |z_s[r]|`` per SF."""
        top = np.abs(self.dflt)
        np.maximum.at(top, self.cols, np.abs(self.vals))
        return top


def sparse_z(sfs: SparseSFs, pos: np.ndarray) -> SparseZ:
    """:class:`SparseZ` of the SFs at buffer positions ``pos`` (in that order)."""
    pos = np.asarray(pos, dtype=np.intp)
    indptr, cols, vals = sfs.csr(pos, shift=sfs.mean[pos], scale=sfs.inv[pos])
    return SparseZ(indptr, cols, vals, -sfs.mean[pos] * sfs.inv[pos], int(pos.size))


#: group completion goes by rows (:func:`sparse_sf_complete_pcc`) when the SFs hold at most
#: this share of non-zeros: a feature's non-zero then meets ~share * p SFs instead of p
BY_ROWS_SHARE = 1 / 16
#: SFs with at least this share of non-zero rows are "heavy" in :func:`split_z`
HEAVY_SHARE = 1 / 64
#: at most this many heavy SFs (the per-block products are ``block x h``)
HEAVY_MAX = 32
#: ... and when the rows hold at least this many SF entries per heavy SF (see split_z)
STREAM_ENTRIES = 0.25
#: ... and when the by-rows form (12 bytes per SF entry, 8 per row) takes at least this much
STREAM_MIN_BYTES = 16 << 20
_ROW_CHUNKS = 8  # fixed row chunks of the heavy products: sums independent of the thread count


class SplitZ(NamedTuple):
    """Standardised SFs split for group completion on sparse blocks with many non-zeros per
    row (webspam: ~3,000 per document). The few *heavy* SFs (non-zero in many rows) are dense
    columns ``Zh`` whose products with a whole block come from one pass over the block's rows
    in order (:func:`heavy_products`: ``Zh`` streamed, no random row reads); the *light* SFs
    stay by rows (``light``), behind a per-row flag ``mark`` that most rows fail. Used for
    blocks that compare every feature with every SF (one-class: webspam's completion 127 s ->
    38 s); a block whose Theorem 1 windows leave most features few SFs goes by rows
    (``full``), as the products would be computed for features that never need them."""

    full: SparseZ  # every SF by rows: for windowed blocks, where most features meet few SFs
    light: SparseZ  # light SFs' entries by rows (cols: SF positions), dflt of every SF
    Zh: np.ndarray  # (n, h) C order: the heavy SFs' standardised columns
    hidx: np.ndarray  # (p,) int64: heavy column of each SF position, -1 for light SFs
    mark: np.ndarray  # (n,) uint8: rows holding a light SF entry
    zmax: np.ndarray  # (p,) max |z_s|
    p: int


def split_z(raw: np.ndarray, Zs: np.ndarray, block_nnz: float) -> SparseZ | SplitZ:
    """The completion form of dense SFs that are mostly zeros: :class:`SplitZ` when some are
    heavy and the blocks hold at least ``n`` non-zeros on average (streaming the heavy
    columns once per block then costs less than random row reads), else by rows."""
    n, p = raw.shape
    nnz_s = np.count_nonzero(raw, axis=0)
    heavy = np.flatnonzero(nnz_s >= HEAVY_SHARE * n)
    full = dense_sparse_z(raw, Zs)
    # per non-zero of a block the products cost h multiply-adds, the rows ~cols.size / n
    # entries and a random row read: streaming pays when rows hold many SF entries (webspam
    # one-class: 5 per row, h = 10; binary: 0.16 per row, h = 8 stays by rows)
    # ... and when the by-rows form outgrows the caches: its random row reads are what the
    # streaming saves (news20, webspam x 0.1: a few MB, and by rows is as fast or faster)
    if (
        heavy.size == 0
        or heavy.size > HEAVY_MAX
        or block_nnz < n
        or full.cols.size < STREAM_ENTRIES * heavy.size * n
        or 12 * full.cols.size + 8 * n < STREAM_MIN_BYTES
    ):
        return full
    zmax = np.abs(Zs).max(axis=0)
    hidx = np.full(p, -1, dtype=np.int64)
    hidx[heavy] = np.arange(heavy.size)
    light_raw = raw.copy()
    light_raw[:, heavy] = 0.0
    light = dense_sparse_z(light_raw, Zs)  # (its dflt of a heavy SF is never read)
    mark = (np.diff(light.rowptr) > 0).astype(np.uint8)
    return SplitZ(full, light, np.ascontiguousarray(Zs[:, heavy]), hidx, mark, zmax, int(p))


@njit(cache=True, parallel=True)
def heavy_products(rptr, rcols, rvals, Zh, m_b):
    """``X_b' Zh`` (m_b, h) from the block's CSR ``(rptr, rcols, rvals)``: rows in order, so
    ``Zh`` is read once, sequentially; fixed row chunks summed in order (deterministic)."""
    n = rptr.shape[0] - 1
    h = Zh.shape[1]
    parts = np.zeros((_ROW_CHUNKS, m_b, h))
    for c in prange(_ROW_CHUNKS):
        acc = parts[c]
        for r in range(c * n // _ROW_CHUNKS, (c + 1) * n // _ROW_CHUNKS):
            z = Zh[r]
            for e in range(rptr[r], rptr[r + 1]):
                j = rcols[e]
                x = rvals[e]
                for s in range(h):
                    acc[j, s] += x * z[s]
    out = parts[0].copy()
    for c in range(1, _ROW_CHUNKS):
        out += parts[c]
    return out


def sparse_sfs_pay(raw: np.ndarray) -> bool:
    """True when the raw SF columns ``raw`` (n, p) are sparse enough for completion by rows."""
    return raw.size > 0 and np.count_nonzero(raw) <= BY_ROWS_SHARE * raw.size


def dense_sparse_z(raw: np.ndarray, Zs: np.ndarray) -> SparseZ:
    """:class:`SparseZ` of dense SF columns: ``Zs`` (standardised) where ``raw`` is non-zero,
    the standardised zero on the other rows (the values of ``Zs`` themselves)."""
    n, p = raw.shape
    r, c = np.nonzero(raw)  # row-major: sorted by row, then by SF
    rowptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(r, minlength=n), out=rowptr[1:])
    dflt = np.empty(p)
    for s in range(p):  # Zs at a row where the SF is 0 (any such row: the same value)
        z = np.flatnonzero(raw[:, s] == 0)
        dflt[s] = Zs[z[0], s] if z.size else 0.0
    return SparseZ(rowptr, c.astype(np.int32), np.ascontiguousarray(Zs[r, c]), dflt, int(p))


@njit(cache=True, parallel=True)
def sparse_sf_complete_pcc(
    indptr,
    indices,
    data,
    feat,
    flo,
    fhi,
    rowptr,
    cols,
    vals,
    dflt,
    mean,
    norm,
    colsum,
    pos,
    best,
    owner,
    zmax,
    thr,
    H,
    hidx,
    mark,
):
    """:func:`~fsviz.select.gdm._kernels.sparse_complete_pcc` against sparse SFs (by rows).

    For feature ``j`` and SFs ``flo <= s < fhi``: each non-zero ``x_r`` adds ``x_r z_s[r]``
    for the SFs stored in row ``r``; the rows where ``z_s`` is its default value add
    ``d_s x_r`` (through the sums of ``x`` over the stored rows). Features that
    :func:`~fsviz.select.gdm._kernels.below_threshold` settles are skipped.

    :class:`SplitZ` form: ``H = X_b' Zh`` holds the heavy SFs' products
    (:func:`heavy_products`; SF ``s`` is its column ``hidx[s]``, or by rows when -1) and
    only rows that ``mark`` flags hold light entries. Empty ``hidx`` / ``mark``: every SF
    by rows, every row read.
    """
    split = hidx.shape[0] > 0
    marked = mark.shape[0] > 0
    q_all = feat.shape[0]
    p = dflt.shape[0]
    n_chunks = (q_all + 255) // 256
    for c in prange(n_chunks):
        acc = np.empty(p)
        accx = np.empty(p)
        for q in range(c * 256, min((c + 1) * 256, q_all)):
            j = feat[q]
            lo = flo[q]
            hi = fhi[q]
            best[q] = -1.0
            owner[q] = -1
            if hi <= lo:
                continue
            mj = mean[j]
            inv = 1.0 / norm[j]
            if below_threshold(data, indptr[j], indptr[j + 1], mj, inv, zmax, colsum, lo, hi, thr):
                continue
            acc[lo:hi] = 0.0
            accx[lo:hi] = 0.0
            sumx = 0.0
            for e in range(indptr[j], indptr[j + 1]):
                x = data[e]
                sumx += x
                r = indices[e]
                if marked and not mark[r]:
                    continue
                for k in range(rowptr[r], rowptr[r + 1]):
                    s = cols[k]
                    if s >= lo and s < hi:
                        acc[s] += x * vals[k]
                        accx[s] += x
            b = -1.0
            o = -1
            for s in range(lo, hi):
                if split and hidx[s] >= 0:
                    dot = H[j, hidx[s]]
                else:
                    dot = acc[s] + dflt[s] * (sumx - accx[s])
                r = abs(dot - mj * colsum[s]) * inv
                if r > b or (r == b and pos[s] < o):
                    b = r
                    o = pos[s]
            best[q] = b
            owner[q] = o


# ----------------------------------------------------------------------------- master design
@njit(cache=True)
def masked_gram(indptr, indices, data, rows, y, G, s, b):
    """``G += S_a' S_a``, ``s += S_a' 1``, ``b += S_a' y_a`` over the CSR rows ``rows`` of ``S``."""
    for q in range(rows.shape[0]):
        r = rows[q]
        a = indptr[r]
        e = indptr[r + 1]
        yr = y[r]
        for u in range(a, e):
            j = indices[u]
            vj = data[u]
            s[j] += vj
            b[j] += vj * yr
            for w in range(u, e):
                G[j, indices[w]] += vj * data[w]


class SparseDesign:
    """The master problem's design ``M = S - 1 c'`` with ``S`` sparse (n x p), ``c`` (p,).

    ``S`` is held by rows (CSR: one pass gives the Gram matrix of any row subset). Supports
    what :func:`~fsviz.select.gdm._master.solve_master` does with its design: ``M @ W``,
    ``M.T @ V`` (:meth:`tmat`), ``M[:, idx] @ W`` (:meth:`take`: the product with the other
    rows of ``W`` zeroed, the same sums) and Gram matrices of row subsets (:meth:`gram`);
    nothing dense of size ``n x p`` is formed.
    """

    def __init__(self, S, c=None):
        S = sp.csr_matrix(S)
        S.sort_indices()
        self.S = S
        self.shape = S.shape
        self.c = np.zeros(self.shape[1]) if c is None else np.asarray(c, dtype=np.float64)

    @classmethod
    def from_csr(cls, indptr, indices, data, shape, c=None) -> SparseDesign:
        return cls(sp.csr_matrix((data, indices, indptr), shape=shape), c)

    def __matmul__(self, W):
        W = np.asarray(W, dtype=np.float64)
        out = np.asarray(self.S @ W, dtype=np.float64)
        cw = self.c @ W
        if np.any(cw):
            out = out - cw
        return out

    def tmat(self, V):
        """``M.T @ V``."""
        V = np.asarray(V, dtype=np.float64)
        out = np.asarray(self.S.T @ V, dtype=np.float64)
        if V.ndim == 1:
            return out - self.c * V.sum()
        return out - np.outer(self.c, V.sum(axis=0))

    def take(self, idx) -> _Columns:
        return _Columns(self, np.asarray(idx, dtype=np.intp))

    def gram(self, mask, y):
        """``(M_a' M_a, M_a' y_a)`` over the rows where ``mask`` holds."""
        S = self.S
        p = self.shape[1]
        rows = np.flatnonzero(mask).astype(np.int64)
        G = np.zeros((p, p))
        s = np.zeros(p)
        b = np.zeros(p)
        masked_gram(S.indptr, S.indices, S.data, rows, np.ascontiguousarray(y, dtype=np.float64), G, s, b)
        G = np.triu(G) + np.triu(G, 1).T
        c = self.c
        if np.any(c):
            na = float(rows.size)
            G = G - np.outer(c, s) - np.outer(s, c) + na * np.outer(c, c)
            b = b - c * float(np.sum(y[rows]))
        return G, b


class _Columns:
    """``M[:, idx]`` of a :class:`SparseDesign`, only for products ``M[:, idx] @ W``."""

    def __init__(self, design: SparseDesign, idx: np.ndarray):
        self.design, self.idx = design, idx

    def __matmul__(self, W):
        W = np.asarray(W, dtype=np.float64)
        full = np.zeros((self.design.shape[1],) + W.shape[1:])
        full[self.idx] = W
        return self.design @ full
