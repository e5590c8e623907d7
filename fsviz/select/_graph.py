"""The sample graphs the neighbourhood scores share (Laplacian score, MCFS, SPEC, trace ratio,
UDFS, NDFS): the k nearest neighbours of every sample and the symmetric kNN affinity, with the
declarations of their parameters (neighbourhood size, edge weights).

A named internal module: its names are public to the selector families, not to users.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from scipy.linalg import blas as sla_blas
from sklearn.utils._param_validation import Interval, StrOptions

from fsviz._params import ParamUI, check_data_bound
from fsviz.select import _score_kernels as K
from fsviz.select._base import blas_limits

__all__ = ["GRAPH_KERNEL", "NEIGHBOURS", "NEIGHBOURS_UI", "knn_affinity", "knn_sq"]

#: the declarations the sample-graph scores share (LaplacianScore, MCFS, NDFS, TraceRatio, ...):
#: neighbours of the kNN graph (at most n_samples - 1, checked against the data) and its edge weights
NEIGHBOURS: list = [Interval(Integral, 1, None, closed="left")]


GRAPH_KERNEL: dict = {
    "kernel": [StrOptions({"heat", "binary"})],
    "t": [Interval(Real, 0.0, None, closed="neither"), None],
}


#: the app's hint for a neighbourhood size (the GRM page's slider spans the methods' common range)
NEIGHBOURS_UI = ParamUI(
    "neighbourhood size",
    "Nearest neighbours of each sample (ReliefF: nearest hits and misses per class). The GRM "
    "paper finds 5 to 8 best for LGD (Fig. 3) and uses 5.",
    step=1,
    practical=(1, 50),
)


def knn_sq(X, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``k`` nearest other samples of every sample (Euclidean): ``(row, col, squared distance)``.

    Squared distances ``|x_i|^2 + |x_j|^2 - 2 x_i'x_j`` by one matrix product per block
    of rows (dense or sparse ``X``, never densified); ties broken by sample index.
    """
    n = X.shape[0]
    sq = np.asarray(X.multiply(X).sum(axis=1)).ravel() if sp.issparse(X) else np.einsum("ij,ij->i", X, X)
    step = max(1, (1 << 23) // max(n, 1))
    rows, cols, vals = [], [], []
    for s in range(0, n, step):
        e = min(s + step, n)
        upper = s == 0 and e == n and not sp.issparse(X)
        with blas_limits():
            if upper:
                # upper triangle of X X' (half the flops of a GEMM), without copying X; Fortran-
                # ordered, so its transpose is the C-ordered lower triangle the kernel reads
                G = sla_blas.dsyrk(1.0, X.T, trans=1) if X.flags.c_contiguous else sla_blas.dsyrk(1.0, X)
                G = G.T
            else:
                G = X[s:e] @ X.T
        G = G.toarray(order="C") if sp.issparse(G) else np.ascontiguousarray(G)
        c, v = K.knn_from_gram(G, sq, s, k, upper)
        rows.append(np.repeat(np.arange(s, e), k))
        cols.append(c.ravel())
        vals.append(v.ravel())
    return np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)


def knn_affinity(owner: str, X, n_neighbors: int, kernel: str, t) -> sp.csr_matrix:
    """Symmetric kNN affinity (i~j if either is among the other's neighbours), heat or 0/1 weights."""
    n = X.shape[0]
    k = check_data_bound(
        owner, "n_neighbors", n_neighbors, NEIGHBOURS, high=n - 1, why=f" (X has {n} samples)"
    )
    rows, cols, d2 = knn_sq(X, k)
    G = sp.csr_matrix((d2, (rows, cols)), shape=(n, n))
    d2 = G.data
    if kernel == "heat":
        width = float(t) if t is not None else float(d2.mean())
        G.data = np.exp(-d2 / width) if width > 0 else np.ones_like(d2)
    else:
        G.data = np.ones_like(d2)
    return G.maximum(G.T).tocsr()
