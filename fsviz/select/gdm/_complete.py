"""GDM group completion: every feature with |corr| >= 1 - tau to a final SF joins its group.

Blocks of candidates filtered by the Theorem 1 window, correlations through BLAS (dense),
sparse products, or SU contingency counts (``corr="su"``); a float32 pre-screen with an
error bound and a float64 recheck.
"""

from __future__ import annotations

import numba
import numpy as np
import scipy.sparse as sp

from fsviz.select.gdm import _kernels as GK
from fsviz.select.gdm._scan import _gather, _numba_threads
from fsviz.select.gdm._sparse_sf import (
    SparseZ,
    SplitZ,
    heavy_products,
    sparse_sf_complete_pcc,
    sparse_sfs_pay,
    sparse_z,
    split_z,
)
from fsviz.stats.information import Codes, discretize, su_cross

_SUB = 1024  # features per BLAS product in group completion (scan strategy)
_SUB_W = 128  # features per product in the windowed strategy (narrow |t| ranges)
# float32 pre-screen of the completion up to this many samples: its error bound grows as
# n * 2^-24 (6e-3 here); beyond, too many features would need the float64 recheck
_F32_MAX_ROWS = 100_000
# from this many samples the pre-screen's product takes only the first rows (_split_rows)
_SPLIT_MIN_ROWS = 1024
# ... unless more than this fraction of a slice is left to recheck (then all rows)
_SPLIT_MAX_RECHECK = 0.125


def _split_rows(n: int, thr: float) -> int:
    """Rows of the float32 pre-screen product in group completion (``n``: all of them).

    The rows left out are bounded by ``||(x - mean)[k:]|| ||z[k:]|| / ||x - mean||``, about
    ``1 - k / n`` for features whose variance is spread over the samples, and random
    correlations over ``k`` rows are about ``sqrt(k) / n``; ``k = (tau + 0.2) n`` keeps both
    well below ``thr = 1 - tau`` (tau = 0.3: half the rows, half the flops), so few features
    need the float64 recheck. Not worth it past ``tau = 0.55`` or below ``_SPLIT_MIN_ROWS``.
    """
    f = 1.2 - thr
    if n < _SPLIT_MIN_ROWS or f > 0.75:
        return n
    return int(np.ceil(f * n))


# ============================================================================ block scans
# Module-level functions: the local path and Dask workers run exactly the same code on
# exactly the same feature blocks.


def _block_complete_pcc(
    Xb, offset, mean_b, norm_b, abs_tb, elig_b, Zs, abs_ts, pos, colsum, window, thr, zmax=None
):
    """Group completion (PCC) for one feature block.

    SFs come sorted by ``|t|`` (``Zs`` standardised columns, ``abs_ts``, their support
    positions ``pos`` and column sums ``colsum``). Two exact strategies, chosen by cost:

    - *window*: the block's eligible features sorted by ``|t|``, ``_SUB_W`` at a time,
      each against the contiguous range of SFs inside the union of their Theorem 1
      windows (pays off when the windows are narrow, i.e. small ``tau``);
    - *scan*: contiguous column slices of the block against all SFs in one BLAS product
      (no gather; used when the windows cover most SFs anyway, as for ``tau = 0.3``).

    Returns ``(features, sf_position, |rho|, n_correlations)`` for every eligible feature
    with ``max |rho| >= thr``; ties go to the SF found first. ``zmax``: :func:`sf_abs_max`
    of ``Zs`` (sparse blocks; computed here when None).
    """
    ids = np.flatnonzero(elig_b)
    p = Zs.p if isinstance(Zs, (SparseZ, SplitZ)) else Zs.shape[1]
    if ids.size == 0 or p == 0:
        return np.empty(0, np.intp), np.empty(0, np.intp), np.empty(0), 0
    if sp.issparse(Xb):
        return _sparse_complete_pcc(
            Xb, offset, mean_b, norm_b, abs_tb, elig_b, Zs, abs_ts, pos, colsum, window, thr, zmax
        )
    big = np.iinfo(np.intp).max
    feats, owners, vals = [], [], []
    n_corr = 0

    def collect(sl, R, posr):
        best = R.max(axis=1)
        hit = (best >= thr) & elig_b[sl]
        if hit.any():
            Rh = R[hit]
            choose = np.where(Rh == best[hit][:, None], posr[None, :], big).min(axis=1)
            feats.append(offset + sl[hit])
            owners.append(choose)
            vals.append(best[hit])

    srt = ids[np.argsort(abs_tb[ids], kind="stable")]
    starts = np.arange(0, srt.size, _SUB_W)
    lo = np.searchsorted(abs_ts, abs_tb[srt[starts]] - window, side="left")
    hi = np.searchsorted(
        abs_ts, abs_tb[srt[np.minimum(starts + _SUB_W, srt.size) - 1]] + window, side="right"
    )
    sizes = np.minimum(starts + _SUB_W, srt.size) - starts
    windowed = int(np.sum(sizes * np.maximum(hi - lo, 0)))
    if windowed <= 0.5 * elig_b.size * p:
        for k, a in enumerate(starts):
            if hi[k] <= lo[k]:
                continue
            sl = srt[a : a + _SUB_W]
            Xs = Xb[:, sl]
            P = np.asarray(Xs.T @ Zs[:, lo[k] : hi[k]])
            # (x - mean) . z  ==  x . z - mean * sum(z): exact centring of the raw side
            R = np.abs(P - mean_b[sl][:, None] * colsum[None, lo[k] : hi[k]]) / norm_b[sl][:, None]
            n_corr += sl.size * int(hi[k] - lo[k])
            collect(sl, R, pos[lo[k] : hi[k]])
    elif isinstance(Xb, np.ndarray) and Xb.shape[0] <= _F32_MAX_ROWS:
        # scan, pre-screened in float32: the big product runs in single precision on the
        # raw block (centring and scaling applied to the small (L, p) result), and only the
        # features whose float32 max |rho| comes within the rigorous error bound of ``thr``
        # are recomputed in float64 against all SFs -- the result is exactly that of the
        # float64 scan (see _f32_bound). With many samples the product takes only the first
        # k rows (_split_rows) and the rest is bounded by Cauchy-Schwarz: for centred x
        # (norm ||x - mean||) and unit-norm SF z,
        #   |rho| <= |rho over rows < k| + ||(x - mean)[k:]|| / ||x - mean|| * ||z[k:]||,
        # so a feature whose float32 estimate of the right-hand side stays below
        # thr - bound cannot reach thr; the others are rechecked in float64 on all rows
        b = elig_b.size
        step = 4 * _SUB
        n = Xb.shape[0]
        z_nrm = float(np.sqrt(np.max(np.einsum("ij,ij->j", Zs, Zs))))
        order = "C" if Xb.strides[0] >= Xb.strides[1] else "F"
        k = _split_rows(n, thr)
        setup = None
        upper = np.empty(min(step, b))
        tail = np.empty(min(step, b))
        with np.errstate(over="ignore", invalid="ignore"), _numba_threads():  # inf/nan: rechecked
            parts = numba.get_num_threads()
            for a in range(0, b, step):
                sl = np.arange(a, min(a + step, b))
                if not elig_b[sl].any():
                    continue
                L = sl.size
                while True:
                    if setup is None or setup[0] != k:
                        Z32 = np.ascontiguousarray(Zs[:k], dtype=np.float32)
                        tz = np.zeros(p)
                        if k < n:  # ||z[k:]||, rounded up
                            tz = np.sqrt(np.einsum("ij,ij->j", Zs[k:], Zs[k:])) * (1.0 + 1e-6) + 1e-150
                        buf = np.empty((k, min(step, b)), dtype=np.float32, order=order)
                        setup = (k, Z32, Z32.sum(axis=0, dtype=np.float64), tz, buf)
                    _, Z32, sum32, tz, buf = setup
                    X32 = buf[:, :L]
                    np.copyto(X32, Xb[:k, a : a + L], casting="same_kind")
                    tx = np.zeros(L)
                    if k < n:  # ||(x - mean)[k:]|| / norm, rounded up (float64 sums, underflow)
                        GK.tail_ss(Xb, a, k, mean_b[sl], tail, parts)
                        tx = np.sqrt(tail[:L] + (n + 1) * 2.0**-1022) / norm_b[sl] * (1.0 + 1e-6)
                    GK.prescreen_max(X32.T @ Z32, mean_b[sl], sum32, norm_b[sl], tx, tz, upper)
                    bound = _f32_bound(n, z_nrm, mean_b[sl], norm_b[sl])
                    # not (upper < thr - bound): non-finite values (float32 overflow) are rechecked
                    near = sl[~(upper[:L] < thr - bound) & elig_b[sl]]
                    if k < n and near.size > _SPLIT_MAX_RECHECK * L:
                        k = n  # the tails leave too many features to recheck: all rows from here on
                        continue
                    break
                n_corr += L * p
                if near.size:
                    P = np.asarray(Xb[:, near].T @ Zs)
                    R = np.abs(P - mean_b[near][:, None] * colsum[None, :]) / norm_b[near][:, None]
                    collect(near, R, pos)
    else:
        b = elig_b.size
        step = 4 * _SUB
        for a in range(0, b, step):
            sl = np.arange(a, min(a + step, b))
            if not elig_b[sl].any():
                continue
            P = np.asarray(Xb[:, a : a + step].T @ Zs)
            R = np.abs(P - mean_b[sl][:, None] * colsum[None, :]) / norm_b[sl][:, None]
            n_corr += sl.size * p
            collect(sl, R, pos)
    if not feats:
        return np.empty(0, np.intp), np.empty(0, np.intp), np.empty(0), n_corr
    return np.concatenate(feats), np.concatenate(owners), np.concatenate(vals), n_corr


def sf_abs_max(Zs) -> np.ndarray:
    """``max_r |z_s[r]|`` of every standardised SF (dense columns, :class:`SparseZ` or
    :class:`SplitZ`)."""
    if isinstance(Zs, SplitZ):
        return Zs.zmax
    if isinstance(Zs, SparseZ):
        return Zs.abs_max()
    return np.abs(Zs).max(axis=0) if Zs.shape[0] else np.zeros(Zs.shape[1])


def _sparse_complete_pcc(
    Xb, offset, mean_b, norm_b, abs_tb, elig_b, Zs, abs_ts, pos, colsum, window, thr, zmax
):
    """:func:`_block_complete_pcc` for a sparse block: one numba pass over its non-zeros.

    The same two strategies, SF ranges and ``n_correlations`` as the dense path (windows of
    ``_SUB_W`` features sorted by ``|t|``, or every SF for every feature), but the products
    ``x_j . z_s`` come from ``GK.sparse_complete_pcc``, which reads each column's non-zeros
    once per SF in its range: no column gathers, no per-slice sparse products. A feature
    whose Cauchy-Schwarz bound (``GK.below_threshold``) stays below ``thr`` costs
    ``O(nnz_j)``; ``n_correlations`` counts it as compared, as the dense path does.
    """
    Xb = Xb.tocsc()
    if zmax is None:
        zmax = sf_abs_max(Zs)
    ids = np.flatnonzero(elig_b)
    p = Zs.p if isinstance(Zs, (SparseZ, SplitZ)) else Zs.shape[1]
    srt = ids[np.argsort(abs_tb[ids], kind="stable")]
    starts = np.arange(0, srt.size, _SUB_W)
    lo = np.searchsorted(abs_ts, abs_tb[srt[starts]] - window, side="left")
    hi = np.searchsorted(
        abs_ts, abs_tb[srt[np.minimum(starts + _SUB_W, srt.size) - 1]] + window, side="right"
    )
    sizes = np.minimum(starts + _SUB_W, srt.size) - starts
    windowed = int(np.sum(sizes * np.maximum(hi - lo, 0)))
    if windowed <= 0.5 * elig_b.size * p:
        feat, flo, fhi, n_corr = srt, np.repeat(lo, sizes), np.repeat(hi, sizes), windowed
        if isinstance(Zs, SplitZ):  # few SFs per feature: by rows, no block products
            Zs = Zs.full
    else:  # scan: counted as the dense scan does, whole slices of 4 * _SUB columns
        feat, flo, fhi = ids, np.zeros(ids.size, np.int64), np.full(ids.size, p, np.int64)
        cuts = np.arange(0, elig_b.size, 4 * _SUB)
        has = np.add.reduceat(elig_b.astype(np.int64), cuts) > 0
        n_corr = int(np.sum(np.diff(np.append(cuts, elig_b.size))[has])) * p
    best = np.empty(feat.size)
    owner = np.empty(feat.size, dtype=np.int64)
    data = np.ascontiguousarray(Xb.data, dtype=np.float64)
    cols = (  # the block's features and their SF ranges, the same for both kernels
        Xb.indptr,
        Xb.indices,
        data,
        np.ascontiguousarray(feat, dtype=np.int64),
        np.ascontiguousarray(flo, dtype=np.int64),
        np.ascontiguousarray(fhi, dtype=np.int64),
    )
    stats = (
        np.ascontiguousarray(mean_b),
        np.ascontiguousarray(norm_b),
        np.ascontiguousarray(colsum),
        np.ascontiguousarray(pos, dtype=np.int64),
        best,
        owner,
        np.ascontiguousarray(zmax, dtype=np.float64),
        float(thr),
    )
    with _numba_threads():
        if isinstance(Zs, (SparseZ, SplitZ)):  # sparse SFs by rows; heavy ones by ordered block pass
            L = Zs.light if isinstance(Zs, SplitZ) else Zs
            if isinstance(Zs, SplitZ):
                csr = sp.csc_matrix((data, Xb.indices, Xb.indptr), shape=Xb.shape).tocsr()  # rows in order
                split = (
                    heavy_products(csr.indptr, csr.indices, csr.data, Zs.Zh, Xb.shape[1]),
                    Zs.hidx,
                    Zs.mark,
                )
            else:
                split = (np.empty((0, 0)), np.empty(0, dtype=np.int64), np.empty(0, dtype=np.uint8))
            sparse_sf_complete_pcc(*cols, L.rowptr, L.cols, L.vals, L.dflt, *stats, *split)
        else:
            GK.sparse_complete_pcc(*cols, np.ascontiguousarray(Zs), *stats)
    hit = best >= thr
    return (offset + feat[hit]).astype(np.intp), owner[hit].astype(np.intp), best[hit], n_corr


_U32 = 2.0**-24  # unit roundoff of float32
_U64 = 2.0**-53  # unit roundoff of float64


def _gamma(k: int, u: float) -> float:
    """Higham's ``gamma_k = k u / (1 - k u)``: the relative error bound of a k-term dot product."""
    return k * u / (1.0 - k * u)


def _f32_bound(n: int, z_nrm: float, mean: np.ndarray, norm: np.ndarray) -> np.ndarray:
    """Rigorous bound on ``|rho32 - rho64|`` for the float32 pre-screen of group completion.

    ``rho64 = (x . z - mean * sum(z)) / norm`` is the float64 completion formula, ``z`` a
    standardised SF column (norm at most ``z_nrm``, about 1) and ``norm = ||x - mean||``.
    The pre-screen computes ``rho32 = (fl32(x~ . z~) - mean * sum(z~)) / norm`` with
    ``x~ = fl32(x)``, ``z~ = fl32(z)`` and the product in float32 (the tail in float64).
    With ``u`` the unit roundoff, ``gamma_k = k u / (1 - k u)`` (Higham, *Accuracy and
    Stability of Numerical Algorithms*, 2002, eq. 3.5: any summation order, FMA or not),
    ``r = ||x|| / norm = sqrt(1 + n mean^2 / norm^2)`` and ``q = sqrt(n) |mean| / norm``:

    - float32 product: ``|fl32(x~ . z~) - x~ . z~| <= gamma_n^32 ||x~|| ||z~||``, i.e.
      ``gamma_{n+2}^32 r ||z||`` after division by ``norm``;
    - rounding the inputs: ``x~ . z~ - mean sum(z~) - (x - mean) . z
      = (x~ - x) . z~ + (x - mean) . (z~ - z)``, at most ``u32 (r + 1) ||z||`` relative to
      ``norm`` (Cauchy-Schwarz; ``|x~_i - x_i| <= u32 |x_i|``);
    - float64 tails of both formulas (the products in float64, ``mean * sum``, the
      subtraction and the division): ``2 gamma_{n+3}^64 (r + q) ||z|| + 3 u64``;
    - float32's subnormal range: absolute errors ``2^-150`` per rounding, at most
      ``(n + 2 sqrt(n)) 2^-149 (||z|| + 1) / norm`` in all.

    A factor 1.01 covers the second-order terms and the rounding of ``norm`` itself
    (:func:`~fsviz.stats.moments.column_moments` computes it to ~1e-10 relative). For
    n = 2048 and centred data (``r = 1``) the bound is ``1.2e-4``; it grows with ``r`` for
    features whose mean is large against their spread (more exact rechecks, same result).
    """
    r = np.sqrt(1.0 + n * (mean / norm) ** 2)
    q = np.sqrt(n) * np.abs(mean) / norm
    b32 = (_gamma(n + 2, _U32) * r + _U32 * (r + 1.0)) * z_nrm
    b64 = 2.0 * _gamma(n + 3, _U64) * (r + q) * z_nrm + 3.0 * _U64
    sub = (n + 2.0 * np.sqrt(n)) * 2.0**-149 * (z_nrm + 1.0) / norm
    return 1.01 * (b32 + b64 + sub)


def su_sf_tables(codes_s: np.ndarray, k_s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Histogram of every SF's codes ``(p, kmax)`` and ``sum_b h(hist_b)`` per SF: what the
    sparse SU completion of every block needs, computed once per fit (an ``O(n p)`` pass)."""
    n, p = codes_s.shape
    kmax = int(max(k_s.max(), 1)) if p else 1
    hist = np.zeros((p, kmax), dtype=np.int64)
    for s in range(p):  # p <= T * K_b SFs, one bincount each
        hist[s] = np.bincount(codes_s[:, s], minlength=kmax)[:kmax]
    with np.errstate(divide="ignore", invalid="ignore"):
        frac = hist / max(n, 1)
        hsum = np.where(hist > 0, -frac * np.log(np.where(hist > 0, frac, 1.0)), 0.0).sum(axis=1)
    return hist, hsum


def _block_complete_su(Xb, offset, codes_s, k_s, h_s, elig_b, thr, n_bins, strategy, tables=None):
    """Group completion (SU) for one feature block: every eligible feature against every SF.

    ``tables``: :func:`su_sf_tables` of the SFs (computed here when None); ``codes_s`` is
    best C-ordered, as the sparse kernel reads one row of SF codes per non-zero.
    """
    ids = np.flatnonzero(elig_b)
    p = codes_s.shape[1]
    if ids.size == 0 or p == 0:
        return np.empty(0, np.intp), np.empty(0, np.intp), np.empty(0), 0
    if sp.issparse(Xb):  # sparsity-aware contingency counts: O(nnz_j) per SF, never densified
        Xb = Xb.tocsc()
        n = Xb.shape[0]
        hist, hsum = su_sf_tables(codes_s, k_s) if tables is None else tables
        best = np.empty(ids.size)
        owner = np.empty(ids.size, dtype=np.int64)
        with _numba_threads():
            GK.sparse_complete_su(
                Xb.indptr,
                Xb.indices,
                np.ascontiguousarray(Xb.data, dtype=np.float64),
                ids.astype(np.int64),
                int(n),
                int(n_bins),
                strategy == "discrete",
                np.ascontiguousarray(codes_s),  # rows of SF codes; narrow ints stay narrow
                np.ascontiguousarray(k_s, dtype=np.int64),
                np.ascontiguousarray(h_s, dtype=np.float64),
                hist,
                hsum,
                GK.plogp_table(min(n, 1 << 16) + 1, int(n)),
                best,
                owner,
                float(thr),
            )
        hit = best >= thr
        return (offset + ids[hit]).astype(np.intp), owner[hit].astype(np.intp), best[hit], ids.size * p
    feats, owners, vals = [], [], []
    n_corr = 0
    rows = np.arange(p)
    few = int(k_s.max()) <= _SU_GEMM_LEVELS and Xb.shape[0] < 1 << 24
    ind_s = None
    for start in range(0, ids.size, _SUB):
        sl = ids[start : start + _SUB]
        cb = discretize(_gather(Xb, sl), n_bins=n_bins, strategy=strategy)
        if few and int(cb.k.max()) <= _SU_GEMM_LEVELS:  # e.g. 0/1/2 genotypes: counts by BLAS
            if ind_s is None:
                ind_s = _level_indicators(codes_s, int(k_s.max()))
            S = _su_by_counts(cb, ind_s, h_s)
            n_corr += S.size
            best = S.max(axis=0)
            hit = best >= thr
            if hit.any():
                feats.append(offset + sl[hit])
                owners.append(np.argmax(S[:, hit], axis=0))
                vals.append(best[hit])
            continue
        codes = Codes(np.asfortranarray(np.hstack([codes_s, cb.codes])), np.concatenate([k_s, cb.k]))
        h = np.concatenate([h_s, cb.entropies()])
        S = su_cross(codes, rows, p + np.arange(sl.size), h)  # (p, L)
        n_corr += S.size
        best = S.max(axis=0)
        hit = best >= thr
        if hit.any():
            feats.append(offset + sl[hit])
            owners.append(np.argmax(S[:, hit], axis=0))  # first maximum = SF found first
            vals.append(best[hit])
    if not feats:
        return np.empty(0, np.intp), np.empty(0, np.intp), np.empty(0), n_corr
    return np.concatenate(feats), np.concatenate(owners), np.concatenate(vals), n_corr


_SU_GEMM_LEVELS = 4  # discrete data with at most this many levels: SU contingency tables by BLAS


def _level_indicators(codes: np.ndarray, k: int) -> list:
    """``[codes == a]`` as float32 0/1 matrices, one per level ``a < k``."""
    return [np.asarray(codes == a, dtype=np.float32) for a in range(k)]


def _su_by_counts(cb, ind_s: list, h_s: np.ndarray) -> np.ndarray:
    """SU of every SF (rows) with every coded feature of ``cb`` (columns), (p, L).

    The contingency counts ``N_ab = [x = a]' [s = b]`` come from float32 matrix products of
    level indicators (exact: integers below 2^24), the last row and column from the
    marginals; ``H(x, s) = sum_ab h(N_ab)`` with ``h(c) = -c/n log(c/n)``. Equal to
    :func:`su_cross` up to rounding (summation order); ``(k_x - 1)(k_s - 1)`` products of
    ``n x L x p`` instead of ``L p`` scans of ``n`` codes.
    """
    n = cb.codes.shape[0]
    kx = int(cb.k.max())
    ks = len(ind_s)
    ind_x = _level_indicators(cb.codes, kx)
    cnt_x = np.stack([i.sum(axis=0, dtype=np.float64) for i in ind_x])  # (kx, L)
    hist_s = np.stack([i.sum(axis=0, dtype=np.float64) for i in ind_s])  # (ks, p)
    N = np.empty((kx, ks, cnt_x.shape[1], hist_s.shape[1]))
    for a in range(kx - 1):
        for b in range(ks - 1):
            N[a, b] = ind_x[a].T @ ind_s[b]
    for a in range(kx - 1):
        N[a, ks - 1] = cnt_x[a][:, None] - N[a, : ks - 1].sum(axis=0)
    for b in range(ks):
        N[kx - 1, b] = hist_s[b][None, :] - N[: kx - 1, b].sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        f = N / n
        hxy = np.where(N > 0.5, -f * np.log(np.where(N > 0.5, f, 1.0)), 0.0).sum(axis=(0, 1))  # (L, p)
    hx = cb.entropies()
    tot = hx[:, None] + h_s[None, :]
    mi = np.maximum(tot - hxy, 0.0)
    su = np.where(tot > 0, 2.0 * mi / np.where(tot > 0, tot, 1.0), 0.0)
    return np.ascontiguousarray(su.T)


def _window_cost(abs_t, eligible, sf, window) -> float:
    """Correlations the windowed completion would compute with these statistics (estimate)."""
    if sf.size == 0:
        return 0.0
    ts = np.sort(abs_t[sf])
    e = np.sort(abs_t[eligible])
    starts = np.arange(0, e.size, _SUB_W)
    ends = np.minimum(starts + _SUB_W, e.size) - 1
    lo = np.searchsorted(ts, e[starts] - window, side="left")
    hi = np.searchsorted(ts, e[ends] + window, side="right")
    return float(np.sum((ends - starts + 1) * np.maximum(hi - lo, 0)))


def _block_complete_su_wrap(Xb, offset, elig_b, codes_s, k_s, h_s, hist, hsum, thr, n_bins, strategy):
    return _block_complete_su(Xb, offset, codes_s, k_s, h_s, elig_b, thr, n_bins, strategy, (hist, hsum))


def complete_groups(st, sf, abs_t, window, corr: str, n_bins: int):
    """Exact group completion of a GDM fit (``st``: its :class:`._state.FitState`): every non-SF
    feature with |corr| >= 1 - tau to a final SF (``abs_t``: ``|t|`` of the vector whose
    Theorem 1 window is ``window``) -> ``(groups, group correlations, correlations computed)``."""
    groups = {int(j): np.empty(0, dtype=np.intp) for j in sf}
    gcorr = {int(j): np.empty(0) for j in sf}
    if sf.size == 0 or not np.isfinite(st.thr):
        return groups, gcorr, 0
    eligible = ~st.const
    eligible[sf] = False
    scanner = st.scanner
    bounds = scanner.bounds
    if corr == "pearson" and st.sparse_sfs is not None:
        order = np.argsort(abs_t[sf], kind="stable")
        pos = np.array([st.sf_pos[int(j)] for j in sf[order]], dtype=np.intp)
        Zs = sparse_z(st.sparse_sfs, pos)
        common = (Zs, abs_t[sf][order], order.astype(np.intp), st.sparse_sfs.zsum[pos])
        per_block = [(a, st.mean[a:b], st.safe[a:b], abs_t[a:b], eligible[a:b]) for a, b in bounds]
        out = scanner.run(
            _block_complete_pcc, per_block, common + (float(window), float(st.thr), sf_abs_max(Zs))
        )
    elif corr == "pearson":
        order = np.argsort(abs_t[sf], kind="stable")
        raw = st.columns(sf[order])
        Zs = np.ascontiguousarray((raw - st.mean[sf[order]]) / st.safe[sf[order]])
        colsum = Zs.sum(axis=0)
        sparse_blocks = sp.issparse(st.X) or getattr(st.X, "sparse", False)
        if sparse_blocks and sparse_sfs_pay(raw):
            # rare SFs (e.g. one-class on text): by rows, the few heavy ones by block
            Zs = split_z(raw, Zs, st.X.nnz / max(len(bounds), 1))
        common = (Zs, abs_t[sf][order], order.astype(np.intp), colsum)
        per_block = [(a, st.mean[a:b], st.safe[a:b], abs_t[a:b], eligible[a:b]) for a, b in bounds]
        # per-SF bound of the sparse blocks' skip test, once per fit (not once per block)
        zmax = sf_abs_max(Zs) if sparse_blocks else None
        out = scanner.run(_block_complete_pcc, per_block, common + (float(window), float(st.thr), zmax))
    else:
        if st.sf_codes is not None:  # the walks' codes (sparse SFs, in the order of sf)
            codes, k, h = st.sf_codes
            codes, k, h = (
                np.ascontiguousarray(codes[:, : sf.size]),
                k[: sf.size].copy(),
                h[: sf.size].copy(),
            )
        else:
            cs = discretize(st.columns(sf), n_bins=n_bins, strategy=st.strategy)
            codes, k, h = np.ascontiguousarray(cs.codes), cs.k, cs.entropies()
        # C order: the sparse kernel reads one row of SF codes per non-zero; the tables
        # once here, not once per block (kdd2010: 1,825 blocks of n = 19.3 M rows)
        common = (codes, k, h) + su_sf_tables(codes, k)
        out = scanner.run(
            _block_complete_su_wrap,
            [(a, eligible[a:b]) for a, b in bounds],
            common + (float(st.thr), int(n_bins), st.strategy),
        )
    feats = np.concatenate([o[0] for o in out]) if out else np.empty(0, np.intp)
    owner = np.concatenate([o[1] for o in out]) if out else np.empty(0, np.intp)
    val = np.concatenate([o[2] for o in out]) if out else np.empty(0)
    nc = int(sum(o[3] for o in out))
    if feats.size:
        order = np.lexsort((feats, -val, owner))
        feats, owner, val = feats[order], owner[order], val[order]
        cuts = np.searchsorted(owner, np.arange(sf.size + 1))
        for p in range(sf.size):
            a, b = cuts[p], cuts[p + 1]
            if b > a:
                groups[int(sf[p])] = feats[a:b].astype(np.intp)
                gcorr[int(sf[p])] = val[a:b]
    return groups, gcorr, nc
