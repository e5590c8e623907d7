"""Redundancy of a selected feature set: mean |rho| (GDM papers) or mean squared cosine (GRM eq. 31)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from fsviz.evaluate._selection import as_indices


def _centred_unit_columns(X, idx: np.ndarray) -> np.ndarray:
    cols = X[:, idx]
    cols = cols.toarray() if sp.issparse(cols) else np.array(cols, dtype=np.float64)
    cols = np.asarray(cols, dtype=np.float64)
    mu = cols.mean(axis=0)
    cols -= mu
    nrm = np.sqrt(np.einsum("ij,ij->j", cols, cols))
    const = nrm <= 1e-12 * (np.abs(mu) * np.sqrt(cols.shape[0]) + 1e-300)
    nrm[const] = 1.0
    cols /= nrm
    cols[:, const] = 0.0  # constant feature: correlation 0 with everything
    return cols


def redundancy_rate(X, selected, kind: str = "pearson") -> float:
    """Average pairwise redundancy among the selected features.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Only the selected columns are read (and densified).
    selected : array-like of int or bool mask
        The selected features.
    kind : {"pearson", "cosine2"}, default="pearson"
        ``"pearson"``: the redundancy rate of the GDM papers (after Zhao et al. 2010),
        the mean of |rho(f_i, f_j)| over the m(m-1)/2 selected pairs.
        ``"cosine2"``: the Red metric of the GRM paper, eq. (31),
        ``1/(m(m-1)) sum_{i != j} A_ij`` with ``A_ij`` the squared cosine similarity of
        the centred features, i.e. the mean of rho^2 over the pairs.

    Returns
    -------
    float
        In [0, 1]; 0.0 when fewer than two features are selected (no pairs). A
        constant feature counts as uncorrelated with every other.

    Notes
    -----
    The ICML GDM paper prints ``RED(F) = 1/(m(m-1)) sum_{i>j} |rho_ij|``, whose sum runs
    over m(m-1)/2 pairs, so taken literally it is half the average it says it measures
    ("the averaged correlation among all the selected feature pairs", TPAMI footnote 11)
    and can never exceed 0.5. We return the average; halve it to compare with figures
    computed with the literal formula.

    References
    ----------
    Zhai et al., ICML 2014 (GDM), section 5, Redundancy Rate; Nie et al., GRM (TKDE),
    eq. (31); Zhao, Wang, Liu, AAAI 2010.
    """
    if kind not in ("pearson", "cosine2"):
        raise ValueError(f"redundancy_rate: 'kind' must be 'pearson' or 'cosine2'; got {kind!r}.")
    if not sp.issparse(X):
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"redundancy_rate: X must be 2-D (n_samples, n_features); got shape {X.shape}.")
    idx = as_indices(selected, X.shape[1], "redundancy_rate")
    m = idx.shape[0]
    if m < 2:
        return 0.0
    Z = _centred_unit_columns(X, idx)
    R = Z.T @ Z
    np.clip(R, -1.0, 1.0, out=R)
    iu = np.triu_indices(m, 1)
    vals = R[iu]
    return float(np.mean(np.abs(vals)) if kind == "pearson" else np.mean(vals * vals))
