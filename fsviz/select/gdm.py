"""Group Discovery Machine: support features, their affiliated features, and a sparse SVM.

GDM selects *support features* (SF) -- informative features that are not strongly
correlated with each other -- with a cutting-plane sparse SVM, and collects for each SF
its *affiliated features* (AF), the features correlated with it at ``|corr| >= 1 - tau``.
It never computes the full m x m correlation matrix: the Correlation Redundancy Matching
(CRM) walk compares a candidate only with the SFs whose score lies within the Theorem 1
window, and the final group completion costs one pass of ``K_a x m`` correlations.

Pieces (TPAMI 2016 numbering):

- Alg. 1, cutting plane: each iteration adds ``delta^t`` (``n_per_iter`` new SFs) and
  re-solves the master problem (eq. 6/8, an MKL problem) -- see :mod:`fsviz.select._mkl`.
- Alg. 2, CRM with PCC on implicitly standardised features (dense or scipy.sparse, never
  densified: ``z_j . a = (x_j . a - mu_j sum(a)) / ||x_j - mu_j||``); Alg. 3, CRM with
  symmetrical uncertainty on discretised features (``corr="su"``).
- eq. (11)-(12), one-class GDM-OC (``one_class=True``) with the threshold ``gamma`` from
  the KKT conditions.
- Alg. 4, Embedded Cross Validation (``cv_folds=V``).
- Beyond the papers: multiclass ``y`` (one-vs-rest squared-hinge SVMs sharing the kernel
  weights of eq. 6, CRM scores ``||z_j' (A o Y)||`` with the Theorem 1 window on the spectral
  norm of the centred duals) and continuous ``y`` (squared loss), by ``type_of_target``.

References
----------
.. [1] Zhai, Tan, Tsang & Ong, "Discovering Support and Affiliated Features from Very High
   Dimensions", ICML 2012 (Alg. 1-2, Theorem 1).
.. [2] Zhai, Ong & Tsang, "Making Trillion Correlations Feasible in Feature Grouping and
   Selection", IEEE TPAMI 38(12), 2016 (eq. 4-12, Alg. 1-4, Proposition 1).
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import NamedTuple

import numba
import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import ClassifierTags, assert_all_finite, check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data
from threadpoolctl import ThreadpoolController

from fsviz._params import ParamUI
from fsviz.select import _gdm_kernels as GK
from fsviz.select._base import EXTREME, scale_extreme
from fsviz.select._column_source import ColumnSource, block_stats, is_out_of_core
from fsviz.select._mkl import MasterResult, solve_master
from fsviz.stats.information import Codes, discretize, is_discrete, su_cross
from fsviz.stats.moments import column_moments

__all__ = ["GDM"]

_CHUNK = 64  # candidates per CRM kernel call, at most
_SUB = 1024  # features per BLAS product in group completion (scan strategy)
_SUB_W = 128  # features per product in the windowed strategy (narrow |t| ranges)
_AUTO_BLOCK = 16384  # features per scan block (and per Dask task)
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


def _block_complete_pcc(Xb, offset, mean_b, norm_b, abs_tb, elig_b, Zs, abs_ts, pos, colsum, window, thr):
    """Group completion (PCC) for one feature block.

    SFs come sorted by ``|t|`` (``Zs`` standardised columns, ``abs_ts``, their support
    positions ``pos`` and column sums ``colsum``). Two exact strategies, chosen by cost:

    - *window*: the block's eligible features sorted by ``|t|``, ``_SUB_W`` at a time,
      each against the contiguous range of SFs inside the union of their Theorem 1
      windows (pays off when the windows are narrow, i.e. small ``tau``);
    - *scan*: contiguous column slices of the block against all SFs in one BLAS product
      (no gather; used when the windows cover most SFs anyway, as for ``tau = 0.3``).

    Returns ``(features, sf_position, |rho|, n_correlations)`` for every eligible feature
    with ``max |rho| >= thr``; ties go to the SF found first.
    """
    ids = np.flatnonzero(elig_b)
    p = Zs.shape[1]
    if ids.size == 0 or p == 0:
        return np.empty(0, np.intp), np.empty(0, np.intp), np.empty(0), 0
    if sp.issparse(Xb):
        return _sparse_complete_pcc(
            Xb, offset, mean_b, norm_b, abs_tb, elig_b, Zs, abs_ts, pos, colsum, window, thr
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


def _sparse_complete_pcc(Xb, offset, mean_b, norm_b, abs_tb, elig_b, Zs, abs_ts, pos, colsum, window, thr):
    """:func:`_block_complete_pcc` for a sparse block: one numba pass over its non-zeros.

    The same two strategies, SF ranges and ``n_correlations`` as the dense path (windows of
    ``_SUB_W`` features sorted by ``|t|``, or every SF for every feature), but the products
    ``x_j . z_s`` come from ``GK.sparse_complete_pcc``, which reads each column's non-zeros
    once per SF in its range: no column gathers, no per-slice sparse products.
    """
    Xb = Xb.tocsc()
    ids = np.flatnonzero(elig_b)
    p = Zs.shape[1]
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
    else:  # scan: counted as the dense scan does, whole slices of 4 * _SUB columns
        feat, flo, fhi = ids, np.zeros(ids.size, np.int64), np.full(ids.size, p, np.int64)
        cuts = np.arange(0, elig_b.size, 4 * _SUB)
        has = np.add.reduceat(elig_b.astype(np.int64), cuts) > 0
        n_corr = int(np.sum(np.diff(np.append(cuts, elig_b.size))[has])) * p
    best = np.empty(feat.size)
    owner = np.empty(feat.size, dtype=np.int64)
    with _numba_threads():
        GK.sparse_complete_pcc(
            Xb.indptr,
            Xb.indices,
            np.ascontiguousarray(Xb.data, dtype=np.float64),
            np.ascontiguousarray(feat, dtype=np.int64),
            np.ascontiguousarray(flo, dtype=np.int64),
            np.ascontiguousarray(fhi, dtype=np.int64),
            np.ascontiguousarray(Zs),
            np.ascontiguousarray(mean_b),
            np.ascontiguousarray(norm_b),
            np.ascontiguousarray(colsum),
            np.ascontiguousarray(pos, dtype=np.int64),
            best,
            owner,
        )
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


def _block_complete_su(Xb, offset, codes_s, k_s, h_s, elig_b, thr, n_bins, strategy):
    """Group completion (SU) for one feature block: every eligible feature against every SF."""
    ids = np.flatnonzero(elig_b)
    p = codes_s.shape[1]
    if ids.size == 0 or p == 0:
        return np.empty(0, np.intp), np.empty(0, np.intp), np.empty(0), 0
    if sp.issparse(Xb):  # sparsity-aware contingency counts: O(nnz_j) per SF, never densified
        Xb = Xb.tocsc()
        n = Xb.shape[0]
        kmax = int(max(k_s.max(), 1))
        hist = np.zeros((p, kmax), dtype=np.int64)
        for s in range(p):  # p <= T * K_b SFs, one bincount each
            hist[s] = np.bincount(codes_s[:, s], minlength=kmax)[:kmax]
        with np.errstate(divide="ignore", invalid="ignore"):
            frac = hist / n
            hsum = np.where(hist > 0, -frac * np.log(np.where(hist > 0, frac, 1.0)), 0.0).sum(axis=1)
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
                np.ascontiguousarray(codes_s, dtype=np.int32),
                np.ascontiguousarray(k_s, dtype=np.int64),
                np.ascontiguousarray(h_s, dtype=np.float64),
                hist,
                hsum,
                GK.plogp_table(min(n, 1 << 16) + 1, int(n)),
                best,
                owner,
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


_CPUS = os.cpu_count() or 1  # read once: os.cpu_count() costs ~0.1 ms a call
_STATS_MIN_SIZE = 1 << 20  # smaller X: numpy's passes (waking numba's threads costs more)


def _start_alpha(y: np.ndarray, loss: str, C: float) -> np.ndarray:
    """Dual variables the cutting plane starts from (before any master problem)."""
    if loss == "squared":
        return C * y  # C * residual at W = 0
    return np.full(y.shape, 1.0 / y.shape[0])  # one uniform simplex per output column


def _start_vector(y: np.ndarray, loss: str, C: float) -> np.ndarray:
    """``v`` of the first score scan: ``_FitState.signed`` of :func:`_start_alpha`."""
    alpha = _start_alpha(y, loss, C)
    return alpha if loss == "squared" else alpha * y


def _finite_stats(X, v=None):
    """Validation's finiteness check of an in-memory ``X``, fused with the statistics pass.

    Dense C-ordered ``X`` of at least :data:`_STATS_MIN_SIZE` values: one pass of
    :func:`~fsviz.select._gdm_kernels.dense_stats` gives the column sums and sums of squares
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
            s1, s2, lo, hi, u = GK.dense_stats(X, w, numba.get_num_threads())
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
    :func:`~fsviz.select._gdm_kernels.rows_dot` waits for a free core and runs 3-5x slower
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
        common_f = [
            self.client.scatter(c, broadcast=True) if isinstance(c, np.ndarray) and c.size > 1024 else c
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


def _source_stats_block(Xb, want_discrete: bool):
    """Statistics pass over one out-of-core block: moments plus :func:`block_stats`."""
    mean, norm = column_moments(Xb)
    return mean, norm, block_stats(Xb, want_discrete)


def _source_moments(scanner: _Scanner, want_discrete: bool):
    """One pass over an out-of-core source: validation, scaling, moments, discreteness.

    Raises the ``ValueError`` of in-memory validation for a non-finite value, sets the
    source's power-of-two ``shift`` like :func:`scale_extreme` and returns
    ``(mean, norm, discrete)`` of the scaled data.
    """
    src = scanner.X
    out = scanner.run(_source_stats_block, [() for _ in scanner.bounds], (bool(want_discrete),))
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


# ============================================================================ CRM walk
class _SFState:
    """Support features found so far, with the buffers the CRM kernels append to."""

    def __init__(self, n_rows: int, p_max: int, corr: str):
        self.corr = corr
        self.idx: list[int] = []
        # raw columns of the SFs as the walk gathered them (walks on all rows only): the
        # master problem and group completion take them from here instead of reading X again
        self.raw: dict[int, np.ndarray] = {}
        if corr == "pearson":
            self.Z = np.zeros((n_rows, p_max), order="F")
            self.t = np.zeros(p_max)
            self.zsum = np.zeros(p_max)  # column sums of Z (sparse walks), valid up to zsum_n
            self.zsum_n = 0
        else:
            self.codes = np.zeros((n_rows, p_max), dtype=np.int32, order="F")
            self.k = np.ones(p_max, dtype=np.int64)
            self.h = np.zeros(p_max)

    @property
    def n(self) -> int:
        return len(self.idx)


def _order_batches(key: np.ndarray, first: int):
    """Yield eligible indices (``key >= 0``) by decreasing key, ties by index, in batches.

    Batches grow fourfold (``first``, ``4 first``, ...): a walk that needs more than the
    first batch sorts the next few thousand keys, never all ``m`` of them at once (a
    lexsort of 1.35M keys cost ~0.3 s per CRM walk at news20's shape).
    """
    valid = key >= 0
    n_valid = int(valid.sum())
    if n_valid == 0:
        return
    rem = np.where(valid, np.asarray(key, dtype=np.float64), -1.0)
    while True:
        if n_valid <= 4 * first:
            idx = np.flatnonzero(rem >= 0)
            yield idx[np.lexsort((idx, -key[idx]))]
            return
        # np.partition(rem, m - first)[m - first], without its slow cases (sorted, tie-heavy keys)
        th = GK.kth_largest(rem, first)
        top = np.flatnonzero(rem >= th)
        yield top[np.lexsort((top, -key[top]))]
        rem[top] = -1.0
        n_valid -= top.size
        first *= 4


def _crm_walk(
    X, rows, mean, norm, s_abs, t, eligible, state: _SFState, window, thr, need, n_bins=10, strategy="uniform"
):
    """One CRM call (Alg. 2 / Alg. 3): the most violated constraint ``delta^t``.

    Walks the ``eligible`` features (not constant, not a known AF; existing SFs included)
    by decreasing ``|s|`` and fills ``delta^t`` with ``need`` features: an existing SF met
    again joins directly; any other candidate is compared with the SFs (Pearson: only
    those inside the Theorem 1 window of its ``t``) and becomes an AF of its most
    correlated SF when ``|corr| >= thr``, a new SF otherwise. ``state`` is updated in place.

    Returns
    -------
    delta : list of int
        Features of ``delta^t`` in walk order (re-met and new SFs).
    new_sf : list of int
    af_features, af_owner_positions, af_corr : ndarrays
    n_correlations : int
    """
    delta: list[int] = []
    new_sf: list[int] = []
    af_f, af_o, af_c = [], [], []
    n_corr = 0
    key = np.where(eligible, s_abs, -1.0)
    is_sf_all = np.zeros(key.size, dtype=bool)
    is_sf_all[np.asarray(state.idx, dtype=np.intp)] = True
    found = 0
    if state.corr == "pearson" and state.n:
        state.t[: state.n] = t[np.asarray(state.idx, dtype=np.intp)]  # windows use the current vector
    for batch in _order_batches(key, max(256, 4 * need)):
        start = 0
        while start < batch.size:
            if found >= need:
                break
            # candidates gathered per kernel call: twice the SFs still missing (a walk on
            # data with few correlations takes ~1.5 need candidates; gathering columns of a
            # row-major X is the walk's main cost), at most _CHUNK
            size = min(_CHUNK, max(8, 2 * (need - found)))
            chunk = batch[start : start + size]
            start += size
            c = chunk.size
            is_sf = np.ascontiguousarray(is_sf_all[chunk])
            status = np.full(c, -2, dtype=np.int64)
            corr_out = np.zeros(c)
            n0 = state.n
            cached = None
            if thr > 1.0:  # tau == 0: correlation constraints disabled (GDM_tau=0)
                take = min(c, need - found)
                status[:take] = np.where(is_sf[:take], -3, -1)
                n_taken, nc = take, 0
            elif state.corr == "pearson" and rows is None and sp.issparse(X):
                # sparse candidates: dot products over their non-zeros only (O(nnz) per SF)
                Xc = X[:, chunk].tocsc()
                zn = getattr(state, "zsum_n", 0)
                if zn < n0:  # sums of SF columns set outside this kernel (e.g. fold states)
                    if not hasattr(state, "zsum"):
                        state.zsum = np.zeros(state.Z.shape[1])
                    state.zsum[zn:n0] = state.Z[:, zn:n0].sum(axis=0)
                _, n_taken, nc, _ = GK.crm_walk_pcc_sparse(
                    Xc.indptr,
                    Xc.indices,
                    np.ascontiguousarray(Xc.data, dtype=np.float64),
                    np.ascontiguousarray(mean[chunk]),
                    np.ascontiguousarray(norm[chunk]),
                    np.ascontiguousarray(t[chunk]),
                    is_sf,
                    state.Z,
                    state.zsum,
                    state.t,
                    n0,
                    float(window),
                    float(thr),
                    int(need - found),
                    status,
                    corr_out,
                )
                state.zsum_n = n0 + int(np.sum(status == -1))
                new_pos = np.flatnonzero(status == -1)
                if new_pos.size:  # raw columns of the new SFs, dense, for the master problem
                    dense = Xc[:, new_pos].toarray()
                    for q, pos in enumerate(new_pos):
                        state.raw[int(chunk[pos])] = dense[:, q]
            elif state.corr == "pearson":
                Xc = _gather(X, chunk, rows)
                if rows is None:
                    cached = Xc
                _, n_taken, nc, _ = GK.crm_walk_pcc(
                    Xc,
                    np.ascontiguousarray(mean[chunk]),
                    np.ascontiguousarray(norm[chunk]),
                    np.ascontiguousarray(t[chunk]),
                    is_sf,
                    state.Z,
                    state.t,
                    n0,
                    float(window),
                    float(thr),
                    int(need - found),
                    status,
                    corr_out,
                )
            else:
                Xc = _gather(X, chunk, rows)
                if rows is None:
                    cached = Xc
                cb = discretize(Xc, n_bins=n_bins, strategy=strategy)
                _, n_taken, nc, _ = GK.crm_walk_su(
                    cb.codes,
                    cb.k,
                    cb.entropies(),
                    is_sf,
                    state.codes,
                    state.k,
                    state.h,
                    n0,
                    float(thr),
                    int(need - found),
                    status,
                    corr_out,
                )
            fresh = [int(j) for j in chunk[status == -1]]
            if cached is not None:
                for pos in np.flatnonzero(status == -1):
                    state.raw[int(chunk[pos])] = cached[:, pos]
            state.idx.extend(fresh)
            new_sf.extend(fresh)
            delta.extend(int(j) for j in chunk[(status == -1) | (status == -3)])
            n_corr += int(nc)
            found += int(n_taken)
            isaf = status >= 0
            if isaf.any():
                af_f.append(chunk[isaf])
                af_o.append(status[isaf])
                af_c.append(corr_out[isaf])
        if found >= need:
            break

    def cat(parts, dt):
        return np.concatenate(parts).astype(dt) if parts else np.empty(0, dt)

    return delta, new_sf, cat(af_f, np.intp), cat(af_o, np.intp), cat(af_c, np.float64), n_corr


# ============================================================================ fit state
@dataclass
class _FitState:
    """What one ``fit`` shares between the cutting plane, the master problem and completion.

    The first block is set up by ``fit``; the rest starts empty and is filled by the
    cutting plane (``_cutting_plane``, ``_add_constraint``, ``_master``).
    """

    X: np.ndarray | sp.csc_matrix  # float64; sparse input as CSC with sorted indices
    y: np.ndarray  # (n,) +1 / -1 targets (all +1 for one-class); (n, c) one-vs-rest codes
    # (multiclass); centred reals (regression)
    mean: np.ndarray  # (m,) column means
    safe: np.ndarray  # (m,) centred column norms, 1.0 for constant features (safe divisor)
    const: np.ndarray  # (m,) bool: constant features, never scored, selected or grouped
    rawnorm: np.ndarray | None  # (m,) uncentred column norms; one-class only
    thr: float  # grouping threshold 1 - tau; inf when tau == 0 (no correlation constraints)
    strategy: str  # discretisation for corr="su": "discrete" or "uniform"
    scanner: _Scanner
    sf: list[int] = field(default_factory=list)  # support features in the order found
    cols: list[int] = field(default_factory=list)  # delta^1, delta^2, ... concatenated
    kernel_of: list[int] = field(default_factory=list)  # iteration (base kernel) of each entry of cols
    hist: list[float] = field(default_factory=list)  # master objective after each iteration
    gaps: list[float] = field(default_factory=list)  # duality gap of each master solve
    res: MasterResult | None = None  # latest master solution (None before the first)
    alpha: np.ndarray | None = None  # dual variables when the cutting plane stopped
    n_corr: int = 0  # correlations computed by the CRM walks (all folds included)
    n_iter: int = 0
    # (t, window) of the first iteration: a second Theorem 1 window offered to completion
    first: tuple[np.ndarray, float] | None = None
    M: np.ndarray | None = None  # master design, one column per entry of cols (extended each iteration)
    loss: str = "squared_hinge"  # master-problem loss: "squared_hinge" or "squared" (regression)
    y_mean: float = 0.0  # regression: mean of y (the intercept; y itself is stored centred)
    first_scan: tuple[np.ndarray, np.ndarray] | None = None  # (v, X' v) from the stats pass
    raw: dict = field(default_factory=dict)  # feature -> raw column, gathered by the CRM walks

    def columns(self, idx) -> np.ndarray:
        """Raw columns ``idx`` of X, dense (n, len(idx)) Fortran-ordered: from the walks'
        cache when it holds them all (the same values :func:`_gather` reads), else gathered."""
        idx = np.asarray(idx, dtype=np.intp)
        raw = self.raw
        if raw and all(int(j) in raw for j in idx):
            out = np.empty((self.n, idx.size), order="F")
            for k, j in enumerate(idx):
                out[:, k] = raw[int(j)]
            return out
        return _gather(self.X, idx)

    def signed(self, alpha: np.ndarray) -> np.ndarray:
        """The vector (matrix) the scores are taken against: ``alpha * y`` (classification)
        or ``alpha`` itself (regression: ``alpha = C * residual``)."""
        return alpha if self.loss == "squared" else alpha * self.y

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def m(self) -> int:
        return self.X.shape[1]


class _Ranking(NamedTuple):
    """What the cutting plane needs from one scan to run the CRM walk of an iteration."""

    key: np.ndarray  # (m,) >= 0 on candidates: the walk visits them by decreasing key
    candidates: np.ndarray  # (m,) bool: features the walk may take (known AFs are removed later)
    t: np.ndarray  # (m,) Theorem 1 statistics on all data (windows of the walk)
    n_correlations: int  # correlations spent producing the ranking


class _MarginalRanking:
    """Plain GDM (Alg. 1, step 2): walk the features by their scores ``|s_j|`` on all data."""

    def __init__(self, gdm: GDM, st: _FitState):
        self.gdm, self.st = gdm, st

    def __call__(self, v: np.ndarray, sf: list[int]) -> _Ranking:
        st = self.st
        if st.first_scan is not None and np.array_equal(st.first_scan[0], v):
            u = st.first_scan[1]  # computed in the statistics pass
        else:
            u = st.scanner.dot(v)
        st.first_scan = None
        s, t = self.gdm._scores(st, u, v.sum(axis=0), st.mean, st.safe, st.const, st.rawnorm)
        return _Ranking(np.abs(s), ~st.const, t, 0)


class _FoldVoteRanking:
    """Embedded Cross Validation (Alg. 4): walk the features by the votes of the V splits.

    Each training split (all samples but one fold, standardised on the split) runs its own
    CRM walk ``delta_v^t`` with the current ``alpha`` and the universal SFs, keeping its
    own AFs. Candidates are ranked by how many splits put them in their ``delta_v^t``,
    ties by their weakest normalised score over the splits; the cutting plane's CRM walk
    on all data then turns that ranking into the single universal ``delta^t``.
    """

    def __init__(self, gdm: GDM, st: _FitState):
        self.gdm, self.st = gdm, st
        n, V = st.n, int(gdm.cv_folds)
        rng = check_random_state(gdm.random_state)
        fold = np.empty(n, dtype=np.intp)
        fold[rng.permutation(n)] = np.arange(n) % V
        self.train = [np.flatnonzero(fold != f) for f in range(V)]
        self.Tm = np.stack([fold != f for f in range(V)], axis=1).astype(np.float64)  # (n, V) splits
        # per-fold moments of the training splits, without copying X per fold
        self.mu_f, nrm_f = _fold_moments(st.X, st.mean, self.Tm, st.scanner)
        self.const_f = (nrm_f <= 0) | st.const[None, :]
        self.safe_f = np.where(self.const_f, 1.0, nrm_f)
        self.raw_f = np.sqrt(nrm_f**2 + self.Tm.sum(0)[:, None] * self.mu_f**2) if gdm.one_class else None
        self.af_owner_f = np.full((V, st.m), -1, dtype=np.intp)  # AFs found on each split

    def __call__(self, v: np.ndarray, sf: list[int]) -> _Ranking:
        gdm, st = self.gdm, self.st
        V = len(self.train)
        K_b, T = int(gdm.n_per_iter), int(gdm.max_iter)
        V2 = v.reshape(st.n, -1)  # (n, c): c > 1 for multiclass
        c = V2.shape[1]
        # (m, (V + 1) c): the c columns of split f at f * c, all data last
        U = st.scanner.dot(np.hstack([V2 * self.Tm[:, [f]] for f in range(V)] + [V2]))
        U = U.reshape(st.m, V + 1, c) if v.ndim == 2 else U.reshape(st.m, V + 1)
        votes = np.zeros(st.m)
        score_min = np.zeros(st.m)
        n_corr = 0
        for f in range(V):
            rows, vf = self.train[f], v[self.train[f]]
            mu, safe, const = self.mu_f[f], self.safe_f[f], self.const_f[f]
            s_f, t_f = gdm._scores(
                st, U[:, f], vf.sum(axis=0), mu, safe, const, None if self.raw_f is None else self.raw_f[f]
            )
            state = _fold_state(st.X, rows, sf, mu, safe, gdm.corr, K_b * T, gdm.n_bins, st.strategy)
            delta_f, _, af_f, af_o, _, nc = _crm_walk(
                st.X,
                rows,
                mu,
                safe,
                np.abs(s_f),
                t_f,
                ~const & (self.af_owner_f[f] < 0),
                state,
                gdm._window(vf),
                st.thr,
                K_b,
                gdm.n_bins,
                st.strategy,
            )
            n_corr += nc
            if af_f.size:
                self.af_owner_f[f, af_f] = np.asarray(state.idx, dtype=np.intp)[af_o]
            votes[delta_f] += 1
            # consistency across folds: the weakest normalised score over the splits
            sc = np.abs(s_f) / max(np.linalg.norm(vf), 1e-300)
            score_min = sc if f == 0 else np.minimum(score_min, sc)
        _, t = gdm._scores(st, U[:, V], v.sum(axis=0), st.mean, st.safe, st.const, st.rawnorm)
        cand = np.flatnonzero(votes > 0)
        key = np.full(st.m, -1.0)
        if cand.size:
            # order by votes, then by the weakest normalised fold score (votes dominate)
            key[cand] = votes[cand] * (2.0 + score_min[cand].max()) + score_min[cand]
        return _Ranking(key, key >= 0, t, n_corr)


# ============================================================================ estimator
class GDM(SelectorMixin, BaseEstimator):
    """Group Discovery Machine: support features + affiliated feature groups.

    A sparse squared-hinge SVM trained by a cutting-plane algorithm whose most violated
    constraint is found by Correlation Redundancy Matching (CRM): each iteration walks
    the features by decreasing score ``|s_j| = |f_j . (alpha * y)|`` and takes the first
    ``n_per_iter`` features that are not correlated at ``|corr| >= 1 - tau`` with an
    existing support feature (SF) as new SFs; a correlated one becomes an affiliated
    feature (AF) of its most correlated SF. With Pearson correlation, a candidate is only
    compared with the SFs inside the Theorem 1 window ``sqrt(2 tau) ||alpha~||`` around its
    score. After the cutting plane stops, groups are completed exactly: every feature with
    ``|corr| >= 1 - tau`` to a final SF joins the group of its most correlated SF.

    Features are standardised implicitly (centred, unit norm; sparse input is never
    densified). Constant features get score 0 and are never selected or grouped.

    Parameters
    ----------
    tau : float, default=0.3
        Correlation tolerance in [0, 1): features with ``|corr| >= 1 - tau`` are grouped
        (the paper uses 0.3 for PCC and 0.4 for SU). ``tau=0`` disables the correlation
        constraints (the paper's GDM_tau=0 baseline): no correlations, no groups.
    n_per_iter : int, default=10
        ``K_b``: new support features per cutting-plane iteration.
    max_iter : int, default=10
        ``T``: maximum cutting-plane iterations (at most ``T * K_b`` SFs).
    C : float, default=1.0
        SVM trade-off between margin and squared-hinge loss.
    corr : {"pearson", "su"}, default="pearson"
        Correlation measure: absolute Pearson correlation (GDM-PCC, Alg. 2, with the
        Theorem 1 pruning) or symmetrical uncertainty of discretised features (GDM-SU,
        Alg. 3: no pruning bound, every candidate meets every SF). Discretisation:
        ``n_bins`` equal-width bins per feature (10 % of the range), or the raw values
        when the data are already discrete (small integers).
    one_class : bool, default=False
        GDM-OC (eq. 11-12): every sample is a target (``y`` is ignored); features are
        scaled to unit (uncentred) norm so the decision function ``f(x) = w'x - gamma``
        separates the data from the origin. ``predict`` returns +1 (inlier) / -1 (outlier).
    cv_folds : int or None, default=None
        Embedded Cross Validation (Alg. 4) with this many folds: each iteration runs CRM
        on the V training splits (all samples but one fold, standardised on the split)
        with the current ``alpha``; candidates are ranked by how many folds put them in
        their ``delta_v^t``, ties by their *weakest* normalised score over the folds (a
        feature must be strong on every split), and a CRM pass over all data turns that
        ranking into the single universal ``delta^t``; the master problem is solved on
        all data. None runs plain GDM.
    random_state : int, RandomState instance or None, default=None
        Seeds the fold split of ECV (GDM itself is deterministic).
    tol : float, default=1e-3
        Stop the cutting plane when the master objective rises by less than ``tol``
        relative to its value (Alg. 1 "quit if the objective value is convergent").
    mkl_tol : float, default=1e-6
        Relative duality gap to which each master problem is solved.
    n_bins : int, default=10
        Bins per continuous feature for ``corr="su"``.
    include_affiliated : bool, default=False
        When True, ``get_support``/``transform`` keep the affiliated features as well as
        the support features.
    block_size : int or None, default=None
        Features per block of the score and group-completion scans (and per Dask task);
        None uses 16384 (out-of-core input: ``2**24 // n_samples``, at least 256, i.e.
        about 128 MB of float64 per block). Results do not depend on it, except
        ``n_correlations_``'s window bookkeeping.
    positive : object or None, default=None
        The class to separate from the others, compared with the values of ``y`` as
        given to ``fit``. With more than two classes, GDM runs one vs rest: samples of
        class ``positive`` are the +1 class, all others -1 (fitting on
        ``np.where(y == positive, 1, -1)`` gives the same model). With two classes it
        picks which one is the +1 class. None: two classes -> the larger label
        (``np.unique(y)[1]``) is the +1 class; more classes -> multiclass GDM (all classes
        at once, see ``fit``). Ignored when ``one_class=True``; a value that is not a label
        of ``y`` raises ValueError, and so does any value with a continuous ``y``.

    Attributes
    ----------
    support_ : ndarray of int
        Support feature indices, in the order they were found.
    groups_ : dict of int -> ndarray of int
        For each SF, its affiliated features ordered by decreasing ``|corr|``.
    group_corr_ : dict of int -> ndarray of float
        For each SF, the correlation of each of its affiliated features with it, in the
        same order as ``groups_[sf]`` (decreasing, ties by feature index): the absolute
        Pearson correlation ``|rho|`` on all training samples for ``corr="pearson"`` (the
        sign is not kept; equal to ``abs(np.corrcoef(X[:, af], X[:, sf])[0, 1])`` up to
        rounding), the symmetrical uncertainty of the discretised features for
        ``corr="su"``. Every value is ``>= 1 - tau``; an SF without AFs maps to an empty
        array.
    scores_ : ndarray of shape (n_features,)
        ``|s_j|`` at the last iteration (0 for constant features); higher is better.
    coef_ : ndarray of shape (n_features,) or (n_classes, n_features)
        Weights of the learned decision function on the standardised (one-class: unit-norm)
        features; non-zero only for SFs. Multiclass: one row per class (its one-vs-rest
        decision function).
    intercept_ : float or ndarray of shape (n_classes,)
        ``-gamma`` for one-class (from the KKT conditions), the mean of ``y`` for regression,
        0 otherwise (zeros for multiclass).
    offset_ : float
        One-class only: the threshold ``gamma`` (scikit-learn's outlier-detector convention:
        ``decision_function = score_samples - offset_``).
    class_support_ : dict of label -> ndarray of int
        Multiclass only: for each class, the SFs with non-zero weight in that class's row of
        ``coef_``, by decreasing ``|coef_[k, j]|``. With kernel weights shared by all classes
        an SF of a kernel in use usually has a non-zero weight for every class; the order
        (and ``coef_`` itself) says how much each SF contributes to each class.
    target_type_ : str
        ``"binary"`` (two classes, or one vs rest with ``positive``), ``"multiclass"``,
        ``"continuous"`` (regression) or ``"one_class"``.
    mu_ : ndarray
        Kernel weights of the master problem, one per cutting-plane iteration.
    alpha_ : ndarray of shape (n_samples,) or (n_samples, n_classes)
        Dual variables of the final master problem: on the simplex (one simplex per class
        for multiclass); ``C`` times the residuals for regression.
    n_correlations_ : int
        Pairwise correlations (or SU values) actually computed, CRM and group completion.
    objective_history_ : ndarray
        Master objective ``theta_t = min_alpha max_{s<=t} g_s(alpha)`` after each iteration;
        non-decreasing (Theorem 2), within ``mkl_tol``.
    gap_history_ : ndarray
        Duality gap of each master solve.
    n_iter_ : int
        Cutting-plane iterations run.
    classes_ : ndarray of shape (2,) or (n_classes,)
        Not set for one-class or regression. Multiclass: all labels (``np.unique(y)``),
        ``predict`` returns the one with the largest decision value. Binary:
        ``classes_[1]`` is the +1 class, ``predict`` returns these values: ``np.unique(y)``
        without ``positive``; ``[other label, positive]`` with ``positive`` and two
        classes; ``[False, True]`` in one vs rest (more than two classes), ``True``
        meaning "predicted to be ``positive``".
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X has string feature names.

    References
    ----------
    .. [1] Zhai, Tan, Tsang & Ong, ICML 2012, Alg. 1-2 and Theorem 1.
    .. [2] Zhai, Ong & Tsang, IEEE TPAMI 38(12), 2016, eq. (4)-(12), Alg. 1-4.

    Examples
    --------
    >>> from fsviz.data import make_grouped_classification
    >>> from fsviz.select import GDM
    >>> X, y, truth = make_grouped_classification(n_samples=1000, n_features=1000, random_state=0)
    >>> gdm = GDM(tau=0.3, n_per_iter=5, max_iter=4).fit(X, y)
    >>> set(truth.support.tolist()) <= set(gdm.support_.tolist())
    True
    >>> sf = int(truth.support[0])
    >>> set(gdm.groups_[sf].tolist()) == set(truth.groups[sf].tolist())
    True
    >>> y3 = (X[:, truth.support[:2]] > 0) @ [1, 2]  # 4 classes -> multiclass GDM
    >>> GDM(n_per_iter=5, max_iter=2).fit(X, y3).coef_.shape
    (4, 1000)
    """

    _parameter_constraints: dict = {
        "tau": [Interval(Real, 0.0, 1.0, closed="left")],
        "n_per_iter": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "C": [Interval(Real, 0.0, None, closed="neither")],
        "corr": [StrOptions({"pearson", "su"})],
        "one_class": ["boolean"],
        "cv_folds": [Interval(Integral, 2, None, closed="left"), None],
        "random_state": ["random_state"],
        "tol": [Interval(Real, 0.0, None, closed="left")],
        "mkl_tol": [Interval(Real, 0.0, None, closed="neither")],
        "n_bins": [Interval(Integral, 2, None, closed="left")],
        "include_affiliated": ["boolean"],
        "block_size": [Interval(Integral, 1, None, closed="left"), None],
        "positive": "no_validation",
    }
    _parameter_ui: dict = {
        "tau": ParamUI(
            "tau",
            "Features with |corr| >= 1 - tau to a support feature join its group. The papers use "
            "tau in [0, 0.5]; larger values merge weakly correlated features.",
            step=0.01,
            practical=(0.0, 0.5),
        ),
        "n_per_iter": ParamUI("Support features per iteration (K_b)", step=1),
        "max_iter": ParamUI("Cutting-plane iterations (T)", step=1),
        "C": ParamUI("C (SVM regularisation)", "Larger C fits the training data more closely."),
        "corr": ParamUI("Correlation", "pearson: linear (with the Theorem 1 window); su: nonlinear."),
        "one_class": ParamUI("One-class (no labels)", "GDM-OC: runs without a target."),
        "cv_folds": ParamUI(
            "Embedded CV folds",
            "Embedded cross-validation (Alg. 4; the TPAMI paper uses V = 5); none: off.",
            step=1,
            practical=(2, 20),
        ),
    }

    def __init__(
        self,
        *,
        tau=0.3,
        n_per_iter=10,
        max_iter=10,
        C=1.0,
        corr="pearson",
        one_class=False,
        cv_folds=None,
        random_state=None,
        tol=1e-3,
        mkl_tol=1e-6,
        n_bins=10,
        include_affiliated=False,
        block_size=None,
        positive=None,
    ):
        self.tau = tau
        self.n_per_iter = n_per_iter
        self.max_iter = max_iter
        self.C = C
        self.corr = corr
        self.one_class = one_class
        self.cv_folds = cv_folds
        self.random_state = random_state
        self.tol = tol
        self.mkl_tol = mkl_tol
        self.n_bins = n_bins
        self.include_affiliated = include_affiliated
        self.block_size = block_size
        self.positive = positive

    # ------------------------------------------------------------------ sklearn plumbing
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.required = not bool(self.one_class)
        if not self.one_class:
            # binary and multiclass labels (continuous y: regression, outside the common checks)
            tags.classifier_tags = ClassifierTags(multi_class=True)
        return tags

    def _get_support_mask(self):
        check_is_fitted(self, "support_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.support_] = True
        if self.include_affiliated:
            for g in self.groups_.values():
                mask[g] = True
        return mask

    def _check_params(self, n_samples: int):
        self._validate_params()  # the declaration above, scikit-learn's own check
        if self.cv_folds is not None and self.cv_folds > n_samples:
            raise ValueError(
                f"GDM: 'cv_folds' must be at most n_samples ({n_samples}) so every fold has a "
                f"sample; got {self.cv_folds}. Use fewer folds or cv_folds=None."
            )
        return float(self.tau)

    # ------------------------------------------------------------------ fit
    def fit(self, X, y=None, client=None, progress=None):
        """Run the cutting plane, then complete the feature groups.

        Parameters
        ----------
        X : {array-like, sparse matrix, numpy.memmap, zarr.Array} of shape (n_samples, n_features)
            Training data; sparse input (CSR/CSC) stays sparse. Out of core: a
            ``numpy.memmap`` (e.g. ``np.load(path, mmap_mode="r")``, C or Fortran order,
            any numeric dtype) or a ``zarr.Array`` is never copied whole: it is validated
            (finite values) in the statistics pass and read one column block
            (``block_size`` features; default about 128 MB of float64) at a time; only the
            ``K_a`` support columns are gathered. With ``client``, the workers reopen the
            file themselves (a memmap is sent as its file name and geometry).
        y : array-like of shape (n_samples,)
            Dispatched by :func:`sklearn.utils.multiclass.type_of_target`:

            - ``"binary"``: two classes, the binary master problem (TPAMI eq. 6);
            - ``"multiclass"``: with ``positive``, one vs rest; without, *multiclass GDM*:
              one-vs-rest squared-hinge SVMs, one per class, sharing the kernel weights
              ``mu`` of eq. 6 (``1/2 (sum_t ||W_t||_F)^2`` over the class columns), and CRM
              scores ``s_j = sqrt(n) ||z_j' (A o Y)||`` over the class duals;
            - ``"continuous"``: regression, the squared loss in the same master problem
              (scores ``s_j = sqrt(n) z_j' alpha`` with ``alpha = C * residual``).

            Ignored (may be None) when ``one_class=True``.
        client : dask.distributed.Client or None, default=None
            When given, the score scans ``X' alpha~`` and the group-completion scan run on
            the cluster, split into feature blocks of ``block_size`` and merged exactly;
            the CRM walk and the master problem stay local (they touch ``K_a`` columns).
        progress : callable or None, default=None
            Progress report of the streamed passes over ``X``: called as
            ``progress(phase, blocks_done, n_blocks)`` after every column block of the
            statistics pass (out of core) and the group completion, and after every score
            scan (``phase`` ``"statistics"``, ``"score scan <k>"``, ``"group completion"``;
            on a cluster once per pass).

        Returns
        -------
        self : GDM
        """
        ooc = is_out_of_core(X)
        sums = None  # dense in memory: column sums etc. from the statistics pass
        if ooc:  # memmap / zarr: validated block by block in the statistics pass, never copied
            X, y = self._validate_out_of_core(X, y)
        elif self.one_class:
            X = validate_data(
                self,
                X,
                accept_sparse=("csr", "csc"),
                dtype=np.float64,
                ensure_min_samples=2,
                ensure_all_finite=False,
            )
        else:
            if y is None:
                raise ValueError(
                    "GDM requires y to be passed, but the target y is None: binary GDM "
                    "(one_class=False) needs labels. Pass y, or set one_class=True."
                )
            X, y = validate_data(
                self,
                X,
                y,
                accept_sparse=("csr", "csc"),
                dtype=np.float64,
                ensure_min_samples=2,
                ensure_all_finite=False,
            )
        if not self.one_class:
            self.target_type_ = self._target_type(y)
            if self.target_type_ == "multiclass":
                self.classes_ = np.unique(y)
            elif self.target_type_ == "binary":
                self.classes_, y_pos = self._binary_target(y)
        n, m = X.shape
        tau = self._check_params(n)
        loss, y_mean = "squared_hinge", 0.0
        if self.one_class:
            self.target_type_ = "one_class"
            y_pm = np.ones(n)
        elif self.target_type_ == "multiclass":  # one-vs-rest codes sharing the kernel weights
            y_pm = np.where(y[:, None] == self.classes_[None, :], 1.0, -1.0)
        elif self.target_type_ == "continuous":
            loss, y_mean = "squared", float(np.mean(y))
            y_pm = np.asarray(y, dtype=np.float64) - y_mean
        else:
            y_pm = np.where(y_pos, 1.0, -1.0)
        first_scan = None  # (v, X' v) of the cutting plane's first iteration, from the stats pass
        if not ooc:
            # in memory, validation's finiteness check is the statistics pass (_finite_stats):
            # X is read once for it, the power-of-two scaling, the moments and the first scan
            v0 = _start_vector(y_pm, loss, float(self.C)) if self.cv_folds is None else None
            sums = _finite_stats(X, v0)
            if sums is None or not _moderate(sums[2]):
                X, sums = scale_extreme(X), None  # extreme values: moments of the scaled X below
            elif v0 is not None and v0.ndim == 1:
                first_scan = (v0, sums[3])
        if sp.issparse(X):
            X = X.tocsc()
            X.sort_indices()

        # out of core: blocks of ~128 MB of float64 by default (one read + one product each)
        block = self.block_size or (max(256, min(_AUTO_BLOCK, 2**24 // max(n, 1))) if ooc else _AUTO_BLOCK)
        scanner = _Scanner(X, block, client, progress)
        if ooc:
            try:
                mean, norm, discrete = _source_moments(scanner, self.corr == "su")
            except BaseException:
                scanner.close()
                raise
        else:
            mean, norm = column_moments(X, sums=None if sums is None else sums[:2])
            discrete = self.corr == "su" and is_discrete(X)
        const = norm <= 0
        try:
            st = _FitState(
                X=X,
                y=y_pm,
                mean=mean,
                safe=np.where(const, 1.0, norm),
                const=const,
                rawnorm=np.sqrt(norm**2 + n * mean**2) if self.one_class else None,
                thr=1.0 - tau if tau > 0 else np.inf,
                strategy="discrete" if discrete else "uniform",
                scanner=scanner,
                loss=loss,
                y_mean=y_mean,
                first_scan=first_scan,
            )
            rank = _MarginalRanking(self, st) if self.cv_folds is None else _FoldVoteRanking(self, st)
            # BLAS on the cores the load leaves free (_blas_threads): on a busy machine the
            # completion product spin-waits for a core with two threads and runs slower
            with _blas_threads():
                self._cutting_plane(st, rank)
                self._finish(st)
        finally:
            scanner.close()
        return self

    def _target_type(self, y) -> str:
        """``"binary"``, ``"multiclass"`` (all classes at once) or ``"continuous"`` (regression),
        by :func:`sklearn.utils.multiclass.type_of_target`; ``positive`` turns multiclass data
        into one vs rest (``"binary"``)."""
        kind = type_of_target(y, input_name="y")
        if kind == "continuous":
            if self.positive is not None:
                raise ValueError(
                    f"GDM: 'positive' applies to class labels, but y is continuous (regression); "
                    f"got positive={self.positive!r}. Leave positive=None for regression."
                )
            if not np.all(np.isfinite(y)):
                raise ValueError("GDM: 'y' must be finite for regression; got NaN or infinity.")
            return "continuous"
        check_classification_targets(y)  # "Unknown label type ..." for anything else
        if kind == "multiclass" and self.positive is None:
            return "multiclass"
        if kind in ("binary", "multiclass"):
            return "binary"
        raise ValueError(
            f"GDM: 'y' must be binary, multiclass or continuous (sklearn type_of_target); got {kind!r}."
        )

    def _validate_out_of_core(self, X, y):
        """Checks of ``validate_data`` for a memmap / zarr ``X`` without reading it.

        Shape, dtype and ``n_features_in_`` here; finiteness in the statistics pass.
        """
        src = ColumnSource(X)
        validate_data(self, X, skip_check_array=True)
        n = src.shape[0]
        if n < 2:
            raise ValueError(f"GDM: 'X' must have at least 2 samples; got {n}.")
        if src.shape[1] < 1:
            raise ValueError(f"GDM: 'X' must have at least 1 feature; got shape {src.shape}.")
        if y is None:
            if not self.one_class:
                raise ValueError(
                    "GDM requires y to be passed, but the target y is None: binary GDM "
                    "(one_class=False) needs labels. Pass y, or set one_class=True."
                )
            return src, None
        y = column_or_1d(y, warn=True)
        if self.one_class:
            return src, y
        if y.dtype.kind == "f":
            assert_all_finite(y, input_name="y")
        if y.shape[0] != n:
            raise ValueError(f"GDM: 'y' must have one label per sample of X ({n}); got {y.shape[0]}.")
        return src, y

    def _binary_target(self, y):
        """``classes_`` and the boolean +1 mask of ``y``, applying ``positive`` (one vs rest)."""
        classes = np.unique(y)
        shown = f"{classes[:10].tolist()}{' ...' if classes.size > 10 else ''}"
        if classes.size < 2:
            raise ValueError(
                f"GDM: 'y' must have exactly 2 classes for binary GDM; got {classes.size} ({shown}). "
                "Use one_class=True for a single class."
            )
        if self.positive is None:  # two classes (more without positive: multiclass GDM)
            return classes, y == classes[1]
        hit = np.array([bool(c == self.positive) for c in classes])
        if not hit.any():
            raise ValueError(
                f"GDM: 'positive' must be one of the labels of y {shown}; got {self.positive!r}."
            )
        y_pos = y == classes[hit][0]
        if classes.size == 2:
            return np.array([classes[~hit][0], classes[hit][0]]), y_pos
        return np.array([False, True]), y_pos

    # ------------------------------------------------------------------ cutting plane
    def _cutting_plane(self, st, rank):
        """Alg. 1 (and, with the fold-vote ranking, Alg. 4): add ``delta^t`` until convergence.

        Each iteration asks ``rank`` for the walk order of the features under the current
        ``alpha~ = alpha * y`` -- marginal scores ``|s_j|`` (plain GDM) or votes of the V
        training splits (ECV) -- and lets one CRM walk over all data turn it into
        ``delta^t`` (new SFs and re-met ones; correlated candidates become AFs). Stops
        when ``delta^t`` is empty, the objective converges (``tol``) or after ``max_iter``.
        Fills the cutting-plane fields of ``st``.
        """
        K_b, T = int(self.n_per_iter), int(self.max_iter)
        sfs = _SFState(st.n, K_b * T, self.corr)
        st.raw = sfs.raw
        af_owner = np.full(st.m, -1, dtype=np.intp)
        alpha = _start_alpha(st.y, st.loss, float(self.C))
        it = 0
        for it in range(1, T + 1):
            v = st.signed(alpha)
            window = self._window(v)
            r = rank(v, sfs.idx)
            st.n_corr += r.n_correlations
            if it == 1:
                st.first = (r.t, window)
            delta, _, af_f, af_o, _, nc = _crm_walk(
                st.X,
                None,
                st.mean,
                st.safe,
                r.key,
                r.t,
                r.candidates & (af_owner < 0),
                sfs,
                window,
                st.thr,
                K_b,
                self.n_bins,
                st.strategy,
            )
            st.n_corr += nc
            af_owner[af_f] = af_o
            if not delta:
                it -= 1
                break
            converged = self._add_constraint(st, delta)
            alpha = st.res.A.reshape(st.y.shape)
            if converged:
                break
        st.sf = list(sfs.idx)
        st.alpha = alpha
        st.n_iter = it

    def _add_constraint(self, st, delta) -> bool:
        """Add ``delta^t`` as a new base kernel, re-solve the master problem (Alg. 1, steps 3-4).

        Appends to ``st.cols``, ``st.kernel_of``, ``st.hist`` and ``st.gaps`` and replaces
        ``st.res``; returns whether the objective rose by less than ``tol`` (relative).
        """
        st.cols.extend(delta)
        st.kernel_of.extend([len(st.hist)] * len(delta))
        st.res = self._master(st, st.res)
        st.hist.append(st.res.objective)
        st.gaps.append(st.res.gap)
        hist = st.hist
        return len(hist) > 1 and hist[-1] - hist[-2] <= self.tol * abs(hist[-1])

    def _master(self, st, warm):
        # design matrix of all delta^t columns, extended by the new ones only
        cols = st.cols
        have = cols[: 0 if st.M is None else st.M.shape[1]]
        new_cols = cols[len(have) :]
        col_of = {c: i for i, c in enumerate(have)}
        fresh = sorted({c for c in new_cols if c not in col_of})
        M_fresh = self._model_columns(st, fresh) if fresh else None
        pos_fresh = {c: i for i, c in enumerate(fresh)}
        parts = [st.M] if st.M is not None else []
        for c in new_cols:
            parts.append(st.M[:, [col_of[c]]] if c in col_of else M_fresh[:, [pos_fresh[c]]])
        st.M = np.hstack(parts) if len(parts) > 1 else parts[0]
        W0 = gamma0 = None
        if warm is not None:  # previous solution; the new kernel's rows start at 0 (inactive)
            W0 = np.zeros((st.M.shape[1], warm.W.shape[1]))
            W0[: warm.W.shape[0]] = warm.W
            gamma0 = warm.gamma
        return solve_master(
            st.M,
            st.y,
            np.asarray(st.kernel_of),
            float(self.C),
            loss=st.loss,
            tol=float(self.mkl_tol),
            W0=W0,
            gamma0=gamma0,
        )

    # ------------------------------------------------------------------ helpers
    def _scores(self, st, u, sv, mean, safe, const, rawnorm):
        """Model scores ``s`` and pruning statistics ``t`` from raw products ``u = X' v``.

        Multiclass (``u`` of shape (m, c)): ``t_j = ||z_j' A~||`` over the class columns and
        ``s_j = sqrt(n) t_j`` -- the most violated constraint of the joint master problem
        takes the features with the largest ``sum_k (z_j' A~_k)^2``.
        """
        if u.ndim == 2:
            T = np.where(const[:, None], 0.0, (u - mean[:, None] * sv[None, :]) / safe[:, None])
            t = np.sqrt(np.einsum("ij,ij->i", T, T))
            return np.sqrt(st.n) * t, t
        t = np.where(const, 0.0, (u - mean * sv) / safe)
        root_n = np.sqrt(st.n)
        if self.one_class:
            s = np.where(const, 0.0, root_n * u / np.where(rawnorm > 0, rawnorm, 1.0))
        else:
            s = root_n * t
        return s, t

    def _model_columns(self, st, idx):
        """Columns of the master problem's design: standardised (binary) or unit-norm (one-class)."""
        Xs = st.columns(idx)
        root_n = np.sqrt(st.n)
        if self.one_class:
            return Xs * (root_n / st.rawnorm[idx])
        return (Xs - st.mean[idx]) * (root_n / st.safe[idx])

    def _window(self, v):
        """Theorem 1 window ``sqrt(2 tau) ||v - mean(v)||``; for a matrix ``v`` (multiclass)
        the spectral norm of its column-centred version, since for unit-norm centred
        ``z_i, z_j`` with ``|z_i . z_j| >= 1 - tau``:
        ``| ||z_i' v|| - ||z_j' v|| | <= ||z_i -+ z_j|| ||v_c||_2 <= sqrt(2 tau) ||v_c||_2``."""
        if v.ndim == 2:  # spectral norm from the c x c Gram matrix (c = classes)
            vc = v - v.mean(axis=0)
            nrm = float(np.sqrt(max(np.linalg.eigvalsh(vc.T @ vc)[-1], 0.0)))
        else:
            nrm = float(np.linalg.norm(v - v.mean()))
        return np.sqrt(2.0 * self.tau) * nrm * (1.0 + 1e-9) + 1e-15

    def _finish(self, st):
        sf = np.asarray(st.sf, dtype=np.intp)
        alpha = st.alpha
        v = st.signed(alpha)
        u = st.scanner.dot(v)
        s, t = self._scores(st, u, v.sum(axis=0), st.mean, st.safe, st.const, st.rawnorm)
        # any vector gives a valid Theorem 1 window; take the cheaper of the first scan's
        # (marginal scores: informative SFs stand out) and the final one
        cands = [(t, self._window(v))] + ([st.first] if st.first is not None else [])
        t_win, w_win = min(cands, key=lambda tw: _window_cost(np.abs(tw[0]), ~st.const, sf, tw[1]))
        groups, gcorr, nc = self._complete(st, sf, t_win, w_win)
        res = st.res
        multi = st.y.ndim == 2
        coef = np.zeros((st.m, st.y.shape[1]) if multi else st.m)
        self.intercept_ = np.zeros(st.y.shape[1]) if multi else (st.y_mean if st.loss == "squared" else 0.0)
        if res is not None:
            cols = np.asarray(st.cols, dtype=np.intp)
            np.add.at(coef, cols, res.coef)  # a feature in several delta^t: weights add up
            if self.one_class:
                self.intercept_ = -_kkt_threshold(self._model_columns(st, cols), res, float(self.C))
            self.mu_ = res.mu
        else:
            self.mu_ = np.empty(0)
        if self.one_class:
            self.offset_ = -float(self.intercept_)
        self.support_ = sf
        self.groups_ = groups
        self.group_corr_ = gcorr
        self.scores_ = np.abs(s)
        self.coef_ = coef.T.copy() if multi else coef
        if multi:
            self.class_support_ = {}
            for k, cls in enumerate(self.classes_):
                w = np.abs(coef[sf, k])
                keep = np.flatnonzero(w > 0)
                self.class_support_[cls.item() if hasattr(cls, "item") else cls] = sf[
                    keep[np.argsort(-w[keep], kind="stable")]
                ]
        self.alpha_ = alpha
        self.n_correlations_ = int(st.n_corr + nc)
        self.objective_history_ = np.asarray(st.hist, dtype=np.float64)
        self.gap_history_ = np.asarray(st.gaps, dtype=np.float64)
        self.n_iter_ = int(st.n_iter)
        self._mean_sf = st.mean[sf]
        self._scale_sf = (st.rawnorm[sf] if self.one_class else st.safe[sf]) / np.sqrt(st.n)

    def _complete(self, st, sf, t, window):
        """Exact group completion: every non-SF feature with |corr| >= 1 - tau to a final SF."""
        groups = {int(j): np.empty(0, dtype=np.intp) for j in sf}
        gcorr = {int(j): np.empty(0) for j in sf}
        if sf.size == 0 or not np.isfinite(st.thr):
            return groups, gcorr, 0
        eligible = ~st.const
        eligible[sf] = False
        scanner = st.scanner
        bounds = scanner.bounds
        abs_t = np.abs(t)
        if self.corr == "pearson":
            Zs = self._standardised(st, sf)
            order = np.argsort(abs_t[sf], kind="stable")
            Zs = np.ascontiguousarray(Zs[:, order])
            common = (Zs, abs_t[sf][order], order.astype(np.intp), Zs.sum(axis=0))
            per_block = [(a, st.mean[a:b], st.safe[a:b], abs_t[a:b], eligible[a:b]) for a, b in bounds]
            out = scanner.run(_block_complete_pcc, per_block, common + (float(window), float(st.thr)))
        else:
            cs = discretize(st.columns(sf), n_bins=self.n_bins, strategy=st.strategy)
            common = (
                np.asfortranarray(cs.codes),
                cs.k,
                cs.entropies(),
            )
            out = scanner.run(
                _block_complete_su_wrap,
                [(a, eligible[a:b]) for a, b in bounds],
                common + (float(st.thr), int(self.n_bins), st.strategy),
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

    def _standardised(self, st, idx):
        Xs = st.columns(idx)
        return (Xs - st.mean[idx]) / st.safe[idx]

    # ------------------------------------------------------------------ prediction
    def decision_function(self, X):
        """Decision values of the learned sparse SVM on the support features.

        Binary: ``f(x) = sum_j coef_j z_j(x)``, positive for ``classes_[1]``. One-class:
        ``f(x) = sum_j coef_j x_j / ||x_j|| - gamma``, non-negative for inliers.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "support_")
        sf = self.support_
        if is_out_of_core(X):  # read the support columns only
            src = ColumnSource(X)
            validate_data(self, X, skip_check_array=True, reset=False)
            Xs = src.gather(sf) if sf.size else np.empty((src.shape[0], 0))
            assert_all_finite(Xs, input_name="X")
        else:
            X = validate_data(self, X, accept_sparse=("csr", "csc"), dtype=np.float64, reset=False)
            Xs = X[:, sf]
            Xs = Xs.toarray() if sp.issparse(Xs) else np.asarray(Xs)
        if sf.size == 0:
            if self.coef_.ndim == 2:
                return np.zeros((Xs.shape[0], self.coef_.shape[0]))
            return np.full(Xs.shape[0], self.intercept_)
        if self.one_class:
            M = Xs / self._scale_sf
        else:
            M = (Xs - self._mean_sf) / self._scale_sf
        if self.coef_.ndim == 2:  # multiclass: one column per class
            return M @ self.coef_[:, sf].T + self.intercept_
        return M @ self.coef_[sf] + self.intercept_

    @available_if(lambda self: bool(self.one_class))
    def score_samples(self, X):
        """One-class only: ``f(x) = sum_j coef_j x_j / ||x_j||``, higher for more normal samples.

        scikit-learn's outlier-detector convention (``OneClassSVM``, ``IsolationForest``):
        ``decision_function(X) = score_samples(X) - offset_``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "offset_")
        return self.decision_function(X) + self.offset_

    def predict(self, X):
        """Class labels (binary) or +1 inlier / -1 outlier (one-class).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        f = self.decision_function(X)
        if self.one_class:
            return np.where(f >= 0, 1, -1)
        if self.target_type_ == "continuous":
            return f
        if f.ndim == 2:
            return self.classes_[np.argmax(f, axis=1)]
        return self.classes_[(f > 0).astype(int)]


def _block_complete_su_wrap(Xb, offset, elig_b, codes_s, k_s, h_s, thr, n_bins, strategy):
    return _block_complete_su(Xb, offset, codes_s, k_s, h_s, elig_b, thr, n_bins, strategy)


def _kkt_threshold(M, res, C) -> float:
    """gamma from the KKT conditions of the one-class master problem.

    For every sample with ``alpha_i > 0`` the squared-hinge KKT conditions give
    ``alpha_i = C xi_i = C (gamma - f(x_i))``, so ``gamma = f(x_i) + alpha_i / C``;
    averaged over those samples.
    """
    f = M @ res.coef
    on = res.alpha > 1e-12 * res.alpha.max()
    return float(np.mean(f[on] + res.alpha[on] / C))


def _fold_moments(X, mean, Tm, scanner):
    """Mean and centred norm of every feature on each training split (columns of ``Tm``)."""
    nv = Tm.sum(axis=0)  # (V,)
    if sp.issparse(X):
        S1 = np.asarray(X.T @ Tm).T  # (V, m)
        S2 = np.asarray(X.multiply(X).T @ Tm).T
        mu = S1 / nv[:, None]
        ss = np.maximum(S2 - nv[:, None] * mu**2, 0.0)
    else:
        m = X.shape[1]
        mu = np.empty((Tm.shape[1], m))
        ss = np.empty((Tm.shape[1], m))
        step = max(1, int(2**24 // max(X.shape[0], 1)))
        for a in range(0, m, step):
            Xb = X[:, a : a + step] - mean[a : a + step]  # shifted: accurate sums of squares
            S1 = Tm.T @ Xb
            S2 = Tm.T @ (Xb * Xb)
            mb = S1 / nv[:, None]
            mu[:, a : a + step] = mb + mean[a : a + step]
            ss[:, a : a + step] = np.maximum(S2 - nv[:, None] * mb**2, 0.0)
    nrm = np.sqrt(ss)
    scale = np.abs(mu) * np.sqrt(nv[:, None]) + 1e-300
    nrm[nrm <= 1e-12 * scale] = 0.0
    return mu, nrm


def _fold_state(X, rows, sf, mean, safe, corr, p_max, n_bins, strategy) -> _SFState:
    """SF buffers of the universal SFs restricted to one training split."""
    state = _SFState(rows.size, p_max, corr)
    if sf:
        idx = np.asarray(sf, dtype=np.intp)
        Xs = _gather(X, idx, rows)
        if corr == "pearson":
            state.Z[:, : idx.size] = (Xs - mean[idx]) / safe[idx]  # their t is set by _crm_walk
        else:
            cb = discretize(Xs, n_bins=n_bins, strategy=strategy)
            state.codes[:, : idx.size] = cb.codes
            state.k[: idx.size] = cb.k
            state.h[: idx.size] = cb.entropies()
        state.idx = [int(j) for j in idx]
    return state
