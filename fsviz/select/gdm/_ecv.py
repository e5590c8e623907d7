"""How GDM ranks the features its CRM walk visits: plain scores, or ECV's fold votes (Alg. 4)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state

from fsviz.select.gdm._scan import _gather
from fsviz.select.gdm._state import FitState, model_scores, theorem1_window
from fsviz.select.gdm._walk import _crm_walk, _SFState
from fsviz.stats.information import discretize


class _Ranking(NamedTuple):
    """What the cutting plane needs from one scan to run the CRM walk of an iteration."""

    key: np.ndarray  # (m,) >= 0 on candidates: the walk visits them by decreasing key
    candidates: np.ndarray  # (m,) bool: features the walk may take (known AFs are removed later)
    t: np.ndarray  # (m,) Theorem 1 statistics on all data (windows of the walk)
    n_correlations: int  # correlations spent producing the ranking


class _MarginalRanking:
    """Plain GDM (Alg. 1, step 2): walk the features by their scores ``|s_j|`` on all data."""

    def __init__(self, gdm: BaseEstimator, st: FitState):
        self.gdm, self.st = gdm, st

    def __call__(self, v: np.ndarray, sf: list[int]) -> _Ranking:
        st = self.st
        if st.first_scan is not None and np.array_equal(st.first_scan[0], v):
            u = st.first_scan[1]  # computed in the statistics pass
        else:
            u = st.scanner.dot(v)
        st.first_scan = None
        s, t = model_scores(st, u, v.sum(axis=0), st.mean, st.safe, st.const, st.rawnorm, self.gdm.one_class)
        return _Ranking(np.abs(s), ~st.const, t, 0)


class _FoldVoteRanking:
    """Embedded Cross Validation (Alg. 4): walk the features by the votes of the V splits.

    Each training split (all samples but one fold, standardised on the split) runs its own
    CRM walk ``delta_v^t`` with the current ``alpha`` and the universal SFs, keeping its
    own AFs. Candidates are ranked by how many splits put them in their ``delta_v^t``,
    ties by their weakest normalised score over the splits; the cutting plane's CRM walk
    on all data then turns that ranking into the single universal ``delta^t``.
    """

    def __init__(self, gdm: BaseEstimator, st: FitState):
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
            raw = None if self.raw_f is None else self.raw_f[f]
            s_f, t_f = model_scores(st, U[:, f], vf.sum(axis=0), mu, safe, const, raw, gdm.one_class)
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
                theorem1_window(vf, gdm.tau),
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
        _, t = model_scores(st, U[:, V], v.sum(axis=0), st.mean, st.safe, st.const, st.rawnorm, gdm.one_class)
        cand = np.flatnonzero(votes > 0)
        key = np.full(st.m, -1.0)
        if cand.size:
            # order by votes, then by the weakest normalised fold score (votes dominate)
            key[cand] = votes[cand] * (2.0 + score_min[cand].max()) + score_min[cand]
        return _Ranking(key, key >= 0, t, n_corr)


def _fold_moments(X, mean, Tm, scanner):
    """Mean and centred norm of every feature on each training split (columns of ``Tm``)."""
    nv = Tm.sum(axis=0)  # (V,)
    if sp.issparse(X) or getattr(X, "sparse", False):
        spans = [(0, X.shape[1])] if sp.issparse(X) else scanner.bounds  # a sparse source: by blocks
        S1 = np.empty((Tm.shape[1], X.shape[1]))
        S2 = np.empty((Tm.shape[1], X.shape[1]))
        for a, b in spans:
            B = X if sp.issparse(X) else X.block(a, b)
            S1[:, a:b] = np.asarray(B.T @ Tm).T  # (V, m)
            S2[:, a:b] = np.asarray(B.multiply(B).T @ Tm).T
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
