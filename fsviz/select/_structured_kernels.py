"""Numba kernels of :mod:`fsviz.select.structured`: the tree-structured prox, its norm, a tree check.

A tree (or a partition, its one-level special case) is given in compressed form: node ``g``
holds the feature indices ``indices[indptr[g]:indptr[g + 1]]``, and nodes are ordered from
the leaves to the root (every node after all nodes it contains). Coefficients are a C-ordered
``(n_features, n_targets)`` array; a group's norm is the Frobenius norm of its rows.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def tree_prox(V, l1, indptr, indices, thresh):
    """Prox of ``l1 * ||W||_1 + sum_g thresh[g] * ||W_g||_F`` at ``V`` (Liu & Ye 2010, Thm 2).

    For nested-or-disjoint groups the prox is the composition of the elementwise soft
    threshold and the group shrinkages, applied from the leaves to the root.
    """
    m, t = V.shape
    W = V.copy()
    if l1 > 0.0:
        for j in range(m):
            for c in range(t):
                v = W[j, c]
                if v > l1:
                    W[j, c] = v - l1
                elif v < -l1:
                    W[j, c] = v + l1
                else:
                    W[j, c] = 0.0
    for g in range(indptr.size - 1):
        lam = thresh[g]
        if lam <= 0.0:
            continue
        s = 0.0
        for p in range(indptr[g], indptr[g + 1]):
            j = indices[p]
            for c in range(t):
                s += W[j, c] * W[j, c]
        nrm = np.sqrt(s)
        if nrm <= lam:
            for p in range(indptr[g], indptr[g + 1]):
                j = indices[p]
                for c in range(t):
                    W[j, c] = 0.0
        else:
            f = 1.0 - lam / nrm
            for p in range(indptr[g], indptr[g + 1]):
                j = indices[p]
                for c in range(t):
                    W[j, c] *= f
    return W


@njit(cache=True)
def tree_norm(W, l1, indptr, indices, weights):
    """``l1 * ||W||_1 + sum_g weights[g] * ||W_g||_F``."""
    m, t = W.shape
    total = 0.0
    if l1 > 0.0:
        a = 0.0
        for j in range(m):
            for c in range(t):
                a += abs(W[j, c])
        total += l1 * a
    for g in range(indptr.size - 1):
        s = 0.0
        for p in range(indptr[g], indptr[g + 1]):
            j = indices[p]
            for c in range(t):
                s += W[j, c] * W[j, c]
        total += weights[g] * np.sqrt(s)
    return total


@njit(cache=True)
def tree_check(indptr, indices, n_features):
    """First node (in the given leaves-to-root order) that breaks the tree, or -1.

    A node breaks the tree when it repeats a feature, or when it covers part but not all
    of an earlier node (groups must be nested or disjoint, and children must come first).
    """
    n_nodes = indptr.size - 1
    owner = np.full(n_features, -1, dtype=np.int64)  # top node (so far) holding each feature
    covered = np.zeros(n_nodes, dtype=np.int64)  # features under each top node
    mark = np.zeros(n_nodes, dtype=np.int64)
    seen = np.full(n_features, -1, dtype=np.int64)
    for g in range(n_nodes):
        inner = 0
        claimed = 0
        for p in range(indptr[g], indptr[g + 1]):
            j = indices[p]
            if seen[j] == g:
                return g
            seen[j] = g
            o = owner[j]
            if o >= 0:
                inner += 1
                if mark[o] != g + 1:
                    mark[o] = g + 1
                    claimed += covered[o]
        if claimed != inner:
            return g
        for p in range(indptr[g], indptr[g + 1]):
            owner[indices[p]] = g
        covered[g] = indptr[g + 1] - indptr[g]
    return -1
