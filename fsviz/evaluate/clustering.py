"""Clustering quality of selected features: k-means, then NMI and accuracy (Hungarian matching)."""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral

import numpy as np
from scipy.optimize import linear_sum_assignment
from sklearn.cluster import KMeans
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_array


def _contingency(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    _, ai = np.unique(a, return_inverse=True)
    _, bi = np.unique(b, return_inverse=True)
    C = np.zeros((ai.max() + 1, bi.max() + 1), dtype=np.int64)
    np.add.at(C, (ai, bi), 1)
    return C


def clustering_accuracy(y_true, y_pred) -> float:
    """ACC: the share of samples whose cluster maps to their class under the best one-to-one
    mapping of clusters to classes (Hungarian algorithm; survey eq. 119)."""
    y_true = np.asarray(y_true).ravel()
    y_pred = np.asarray(y_pred).ravel()
    if y_true.shape != y_pred.shape:
        raise ValueError(
            f"clustering_accuracy: y_true and y_pred must have the same length; got "
            f"{y_true.shape[0]} and {y_pred.shape[0]}."
        )
    C = _contingency(y_pred, y_true)
    r, c = linear_sum_assignment(-C)
    return float(C[r, c].sum() / y_true.shape[0])


def normalized_mutual_info(y_true, y_pred, average: str = "max") -> float:
    """NMI = I(C; C') / norm(H(C), H(C')) with norm "max" (survey eq. 118), "arithmetic",
    "geometric" or "min"; 1.0 when both labelings are a single cluster."""
    if average not in ("max", "arithmetic", "geometric", "min"):
        raise ValueError(
            f"normalized_mutual_info: 'average' must be 'max', 'arithmetic', 'geometric' or 'min'; "
            f"got {average!r}."
        )
    C = _contingency(np.asarray(y_true).ravel(), np.asarray(y_pred).ravel()).astype(np.float64)
    n = C.sum()
    pa, pb = C.sum(axis=1) / n, C.sum(axis=0) / n
    ha = -np.sum(pa * np.log(pa))
    hb = -np.sum(pb * np.log(pb))
    if ha == 0.0 and hb == 0.0:
        return 1.0
    nz = C > 0
    P = C[nz] / n
    mi = float(np.sum(P * np.log(P / np.outer(pa, pb)[nz])))
    den = {
        "max": max(ha, hb),
        "min": min(ha, hb),
        "arithmetic": 0.5 * (ha + hb),
        "geometric": np.sqrt(ha * hb),
    }[average]
    return float(max(mi, 0.0) / den) if den > 0 else 0.0


@dataclass(frozen=True)
class ClusteringScores:
    """Outcome of :func:`clustering_scores` (means over the k-means repeats, and their spread)."""

    nmi: float
    acc: float
    nmi_std: float
    acc_std: float
    n_clusters: int


def clustering_scores(
    X_selected,
    y,
    n_clusters: int | None = None,
    random_state: int | None = 0,
    n_repeats: int = 1,
    nmi_average: str = "max",
) -> ClusteringScores:
    """k-means on the selected features, scored against the classes by NMI and ACC.

    Parameters
    ----------
    X_selected : array-like of shape (n_samples, n_selected)
        The data restricted to the selected features.
    y : array-like of shape (n_samples,)
        Class labels (used only for scoring).
    n_clusters : int, optional
        Defaults to the number of classes.
    random_state : int or None, default=0
        Seeds the k-means runs (one derived seed per repeat; ``n_init=10`` each).
    n_repeats : int, default=1
        Independent k-means runs to average (the survey averages 20).
    nmi_average : str, default="max"
        Normaliser of NMI; "max" is the survey's eq. (118).

    Returns
    -------
    ClusteringScores

    References
    ----------
    Li et al., "Feature Selection: A Data Perspective", ACM CSUR 2017, section 6,
    eq. (117)-(119).
    """
    X = check_array(X_selected, accept_sparse=("csr",), dtype=np.float64)
    y = np.asarray(y).ravel()
    if y.shape[0] != X.shape[0]:
        raise ValueError(
            f"clustering_scores: y has {y.shape[0]} labels but X_selected has {X.shape[0]} rows."
        )
    k = int(np.unique(y).shape[0]) if n_clusters is None else n_clusters
    if not isinstance(k, Integral) or not 1 <= k <= X.shape[0]:
        raise ValueError(
            f"clustering_scores: 'n_clusters' must be an int in [1, {X.shape[0]}]; got {n_clusters!r}."
        )
    if not isinstance(n_repeats, Integral) or n_repeats < 1:
        raise ValueError(f"clustering_scores: 'n_repeats' must be a positive int; got {n_repeats!r}.")
    seeds = check_random_state(random_state).randint(0, 2**31 - 1, size=n_repeats)
    nmis, accs = [], []
    for s in seeds:
        lab = KMeans(n_clusters=k, n_init=10, random_state=int(s)).fit_predict(X)
        nmis.append(normalized_mutual_info(y, lab, nmi_average))
        accs.append(clustering_accuracy(y, lab))
    return ClusteringScores(
        float(np.mean(nmis)), float(np.mean(accs)), float(np.std(nmis)), float(np.std(accs)), int(k)
    )
