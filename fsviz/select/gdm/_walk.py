"""GDM's CRM walk (TPAMI Alg. 2 / 3): new support features of one cutting-plane iteration.

Features are visited by decreasing score; each candidate is compared only with the SFs whose
score lies within the Theorem 1 window of its own (PCC), or with every SF (SU).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from fsviz.select.gdm import _kernels as GK
from fsviz.select.gdm._crm_kernels import (
    crm_walk_pcc,
    crm_walk_pcc_sparse,
    crm_walk_pcc_sparse_sf,
    crm_walk_su,
    crm_walk_su_sparse_sf,
)
from fsviz.select.gdm._scan import _gather
from fsviz.select.gdm._sparse_sf import SparseSFs
from fsviz.stats.information import discretize

_CHUNK = 64  # candidates per CRM kernel call, at most


# ============================================================================ CRM walk
class _SFState:
    """Support features found so far, with the buffers the CRM kernels append to."""

    def __init__(
        self,
        n_rows: int,
        p_max: int,
        corr: str,
        sparse: bool = False,
        capacity: int = 1 << 16,
        n_bins: int = 10,
    ):
        self.corr = corr
        self.idx: list[int] = []
        # raw columns of the SFs as the walk gathered them (walks on all rows only): the
        # master problem and group completion take them from here instead of reading X again
        self.raw: dict[int, np.ndarray] = {}
        #: sparse SFs (_sparse_sf.SparseSFs; sparse data with many samples), else None
        self.S = None
        if corr == "pearson" and sparse:
            self.S = SparseSFs(n_rows, p_max, capacity)
            self.t = self.S.t
            self.work = np.zeros(n_rows)  # a candidate scattered to its rows (zero between uses)
        elif sparse:  # SU on sparse data: codes as narrow ints, raw non-zeros for the master
            self.S = SparseSFs(n_rows, p_max, capacity)
            kmax = max(n_bins, 64)  # levels of any column (discrete data: <= 32, see is_discrete)
            dtype = np.int8 if kmax <= 127 else np.int16 if kmax <= 32767 else np.int32
            self.codes = np.zeros((n_rows, p_max), dtype=dtype, order="F")
            self.k = np.ones(p_max, dtype=np.int64)
            self.h = np.zeros(p_max)
            self.hist = np.zeros((p_max, kmax), dtype=np.int64)
            self.tab = GK.plogp_table(min(n_rows, 1 << 16) + 1, n_rows)
        elif corr == "pearson":
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


def _csc_chunk(X, chunk):
    """Columns ``chunk`` of sparse ``X`` as CSC with int32 index arrays: scipy keeps int64 ones
    from an int64-indexed ``X``, and a chunk's non-zeros fit, so the walk kernels are compiled
    for one index type."""
    Xc = X.gather_sparse(chunk) if getattr(X, "sparse", False) else X[:, chunk].tocsc()
    if Xc.indices.dtype != np.int32 and Xc.nnz < np.iinfo(np.int32).max:
        Xc = sp.csc_matrix((Xc.data, Xc.indices.astype(np.int32), Xc.indptr.astype(np.int32)), shape=Xc.shape)
    return Xc


def _sparse_candidates(X, chunk, S: SparseSFs, n_sf: int, missing: int):
    """Columns ``chunk`` of sparse ``X`` as CSC, with room in the sparse SFs ``S`` for the
    largest ``missing`` of them (the candidates that may still become SFs)."""
    Xc = _csc_chunk(X, chunk)
    lens = np.sort(np.diff(Xc.indptr))[::-1]
    S.reserve(n_sf, int(lens[: max(missing, 0)].sum()))
    return Xc


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
            elif state.S is not None and rows is None and state.corr == "su":
                # sparse candidates against SF codes: contingency counts over their non-zeros
                Xc = _sparse_candidates(X, chunk, state.S, n0, need - found)
                S = state.S
                _, n_taken, nc, _ = crm_walk_su_sparse_sf(
                    Xc.indptr,
                    Xc.indices,
                    np.ascontiguousarray(Xc.data, dtype=np.float64),
                    is_sf,
                    int(X.shape[0]),
                    int(n_bins),
                    strategy == "discrete",
                    state.codes,
                    state.k,
                    state.h,
                    state.hist,
                    S.ptr,
                    S.rows,
                    S.data,
                    n0,
                    float(thr),
                    int(need - found),
                    status,
                    corr_out,
                    state.tab,
                )
            elif state.S is not None and rows is None:
                # sparse candidates against sparse SFs (no n x p buffer)
                Xc = _sparse_candidates(X, chunk, state.S, n0, need - found)
                S = state.S
                _, n_taken, nc, _ = crm_walk_pcc_sparse_sf(
                    Xc.indptr,
                    Xc.indices,
                    np.ascontiguousarray(Xc.data, dtype=np.float64),
                    np.ascontiguousarray(mean[chunk]),
                    np.ascontiguousarray(norm[chunk]),
                    np.ascontiguousarray(t[chunk]),
                    is_sf,
                    S.ptr,
                    S.rows,
                    S.data,
                    S.mean,
                    S.inv,
                    S.zsum,
                    S.t,
                    n0,
                    int(X.shape[0]),
                    float(window),
                    float(thr),
                    int(need - found),
                    status,
                    corr_out,
                    state.work,
                )
            elif state.corr == "pearson" and rows is None and (sp.issparse(X) or getattr(X, "sparse", False)):
                # sparse candidates: dot products over their non-zeros only (O(nnz) per SF)
                Xc = _csc_chunk(X, chunk)
                zn = getattr(state, "zsum_n", 0)
                if zn < n0:  # sums of SF columns set outside this kernel (e.g. fold states)
                    if not hasattr(state, "zsum"):
                        state.zsum = np.zeros(state.Z.shape[1])
                    state.zsum[zn:n0] = state.Z[:, zn:n0].sum(axis=0)
                _, n_taken, nc, _ = crm_walk_pcc_sparse(
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
                _, n_taken, nc, _ = crm_walk_pcc(
                    np.ascontiguousarray(Xc.T),  # a candidate per row (free: Xc is Fortran-ordered)
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
                _, n_taken, nc, _ = crm_walk_su(
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
