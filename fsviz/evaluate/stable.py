"""Stability selection (Meinshausen & Buehlmann 2010) with complementary pairs (Shah & Samworth
2013) over any selector, counted per feature and per group of interchangeable features.

The samples are split ``n_pairs`` times into two disjoint halves of ``floor(n / 2)`` (stratified by
class for class labels); the selector keeps ``q`` features on each half. A feature's selection
probability is the fraction of the ``2 n_pairs`` halves that keep it; a group's, the fraction that
keep at least one of its members (:func:`fsviz.evaluate.group_frequency`, as the Stability page
counts groups). The stable set at threshold ``pi`` in (0.5, 1] is every feature (group) whose
probability is at least ``pi``.

**Error bound** (Meinshausen & Buehlmann 2010, Theorem 1): the expected number of falsely selected
features (the per-family error rate, PFER) satisfies

    E[V] <= q^2 / ((2 pi - 1) m),

with ``q`` the mean number of features a half keeps and ``m`` the number of features. It assumes
the noise features' selection is exchangeable and the selector is no worse than random guessing;
Shah & Samworth (2013, Theorem 1 and eq. (7)) show the same bound holds for the complementary-pairs
subsampling used here under the same assumptions (their tighter bounds under unimodality or
r-concavity are not used). Applied to groups it reads ``q_g^2 / ((2 pi - 1) m_g)``, with groups as
the variables.

References
----------
Meinshausen & Buehlmann (2010), "Stability selection", JRSS B 72(4), 417-473.
Shah & Samworth (2013), "Variable selection with error control: another look at stability
selection", JRSS B 75(1), 55-80.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_X_y

from fsviz._dask import map_blocks
from fsviz._targets import target_kind
from fsviz.evaluate._selection import select
from fsviz.evaluate.stability import group_frequency, selection_frequency
from fsviz.stats.covariates import Covariates, check_confounding, covariate_design, residualize

__all__ = ["StabilitySelectionResult", "complementary_pairs", "pfer_bound", "stability_selection"]


def pfer_bound(q: float, m: int, threshold: float) -> float:
    """Meinshausen & Buehlmann's bound on the expected number of false selections,
    ``q^2 / ((2 threshold - 1) m)``, for ``threshold`` in (0.5, 1].

    Examples
    --------
    >>> round(pfer_bound(10, 1000, 0.8), 4)
    0.1667
    """
    threshold = _check_threshold(threshold, "pfer_bound")
    return float(q) ** 2 / ((2.0 * threshold - 1.0) * int(m))


def _check_threshold(threshold, who: str) -> float:
    if isinstance(threshold, bool) or not isinstance(threshold, Real) or not 0.5 < float(threshold) <= 1.0:
        raise ValueError(
            f"{who}: the selection-probability threshold must be in (0.5, 1] (the PFER bound needs "
            f"pi > 1/2); got {threshold!r}."
        )
    return float(threshold)


@dataclass(frozen=True)
class StabilitySelectionResult:
    """Per-feature and per-group selection probabilities over complementary-pair halves.

    Attributes
    ----------
    probabilities : ndarray of shape (n_features,)
    group_probabilities : ndarray of shape (n_groups,)
        Empty when no groups were given.
    groups : tuple of ndarray
    subsets : tuple of ndarray
        The selection on each half, pair by pair (``2 * n_pairs``).
    q : float
        Mean number of features a half keeps.
    n_features : int
    """

    probabilities: np.ndarray
    group_probabilities: np.ndarray
    groups: tuple
    subsets: tuple
    q: float
    n_features: int

    @property
    def q_groups(self) -> float:
        """Mean number of groups a half hits."""
        if not self.groups:
            return 0.0
        return float(np.mean([_groups_hit(s, self.groups) for s in self.subsets]))

    def selected(self, threshold: float) -> np.ndarray:
        """Features with probability >= ``threshold``, most stable first."""
        t = _check_threshold(threshold, "StabilitySelectionResult.selected")
        idx = np.flatnonzero(self.probabilities >= t)
        return idx[np.argsort(-self.probabilities[idx], kind="stable")]

    def selected_groups(self, threshold: float) -> np.ndarray:
        """Positions in ``groups`` of the groups with probability >= ``threshold``."""
        t = _check_threshold(threshold, "StabilitySelectionResult.selected_groups")
        idx = np.flatnonzero(self.group_probabilities >= t)
        return idx[np.argsort(-self.group_probabilities[idx], kind="stable")]

    def pfer(self, threshold: float) -> float:
        """The PFER bound of the features' stable set at ``threshold``."""
        return pfer_bound(self.q, self.n_features, threshold)

    def group_pfer(self, threshold: float) -> float:
        """The PFER bound of the groups' stable set at ``threshold`` (groups as the variables)."""
        return pfer_bound(self.q_groups, max(len(self.groups), 1), threshold) if self.groups else float("nan")


def _groups_hit(subset: np.ndarray, groups: Sequence[np.ndarray]) -> int:
    s = set(np.asarray(subset).tolist())
    return sum(1 for g in groups if s.intersection(np.asarray(g).tolist()))


def complementary_pairs(y, n_pairs: int, *, random_state=None) -> list[tuple[np.ndarray, np.ndarray]]:
    """``n_pairs`` splits of the samples into two disjoint halves of ``floor(n / 2)`` each.

    Class labels (``target_kind(y) == "classes"``): each half takes half of every class (one sample
    of an odd class is left out, alternately from the first and second half's share). Otherwise a
    plain random split. ``y=None`` is read as unlabelled ``n`` samples given by ``len``.
    """
    rng = check_random_state(random_state)
    y = np.asarray(y).ravel()
    n = y.shape[0]
    out = []
    classes = target_kind(y) == "classes"
    codes = np.unique(y, return_inverse=True)[1] if classes else np.zeros(n, dtype=np.int64)
    for _ in range(int(n_pairs)):
        first, second = [], []
        for c in range(codes.max() + 1):
            members = rng.permutation(np.flatnonzero(codes == c))
            h = members.size // 2
            first.append(members[:h])
            second.append(members[h : 2 * h])
        a, b = np.sort(np.concatenate(first)), np.sort(np.concatenate(second))
        out.append((a, b))
    return out


def _half(rows, X, y, selector, k, design=None) -> np.ndarray:
    """The selection on one half (module level: a Dask task), adjusted on that half's rows."""
    Xh, yh = X[rows], y[rows]
    if design is not None:
        Xh = residualize(Xh, design[rows])
        if target_kind(yh) != "classes":
            yh = residualize(np.asarray(yh, dtype=np.float64), design[rows])
    return select(selector, Xh, yh, k, "stability_selection")


def stability_selection(
    selector,
    X,
    y,
    *,
    k: int | None = None,
    n_pairs: int = 50,
    groups: Sequence | None = None,
    covariates=None,
    random_state=None,
    client: Any = None,
    progress: Callable[[int, int], None] | None = None,
) -> StabilitySelectionResult:
    """Selection probabilities of every feature (and group) over complementary-pair halves.

    Parameters
    ----------
    selector : estimator or callable ``f(X, y) -> indices``
        Any selector (cloned and refitted on each half); a scorer keeps its top ``k``.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    k : int or None, default=None
        Features kept per half (``q``); None: what the selector selects (required for pure
        scorers). The PFER bound grows as ``q^2``: ``q = sqrt((2 pi - 1) m)`` bounds it by 1.
    n_pairs : int, default=50
        Complementary pairs (``2 n_pairs`` halves; Shah & Samworth use 50).
    groups : sequence of array-like of int, default=None
        Groups of interchangeable features (e.g. GDM's ``partition()``); each gets a probability.
    covariates : DataFrame, mapping, array or Covariates, default=None
        Adjust for these inside each half: the half's features (and a continuous target) are
        residualised on the covariates by a fit on that half's rows only; a class target the
        batches predict perfectly is refused.
    random_state : int, RandomState instance or None
        Seeds the splits (the selector keeps its own ``random_state``).
    client : dask.distributed.Client, default=None
        Run the halves as tasks on this cluster.
    progress : callable, default=None
        ``progress(halves_done, 2 n_pairs)``.

    Returns
    -------
    StabilitySelectionResult

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import FScore
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 30)); y = np.repeat([0, 1], 40); X[y == 1, 0] += 2
    >>> res = stability_selection(FScore(), X, y, k=3, n_pairs=10, random_state=0)
    >>> res.selected(0.8).tolist(), round(res.pfer(0.8), 3)
    ([0], 0.5)
    """
    if isinstance(n_pairs, bool) or not isinstance(n_pairs, Integral) or n_pairs < 1:
        raise ValueError(f"stability_selection: 'n_pairs' must be an int >= 1; got {n_pairs!r}.")
    if k is not None and (isinstance(k, bool) or not isinstance(k, Integral) or k < 1):
        raise ValueError(f"stability_selection: 'k' must be an int >= 1 or None; got {k!r}.")
    X, y = check_X_y(X, y, accept_sparse=("csr", "csc"), dtype=None, y_numeric=False)
    if X.shape[0] < 4:
        raise ValueError(f"stability_selection: needs at least 4 samples to halve; got {X.shape[0]}.")
    m = X.shape[1]
    halves = [h for pair in complementary_pairs(y, n_pairs, random_state=random_state) for h in pair]
    design = None
    if covariates is not None:
        cov = (
            covariates if isinstance(covariates, Covariates) else covariate_design(covariates, X.shape[0], y)
        )
        if target_kind(y) == "classes":
            check_confounding(y, cov, who="stability_selection")
        design = cov.design
    subsets = map_blocks(_half, halves, client=client, shared=(X, y, selector, k, design), progress=progress)
    subsets = [np.asarray(s, dtype=np.int64) for s in subsets]
    probabilities = selection_frequency(subsets, m)
    gs = tuple(np.asarray(g, dtype=np.int64).ravel() for g in groups) if groups is not None else ()
    gprob = group_frequency(subsets, gs, m) if gs else np.zeros(0)
    for a in (probabilities, gprob, *subsets):
        a.setflags(write=False)
    return StabilitySelectionResult(
        probabilities=probabilities,
        group_probabilities=gprob,
        groups=gs,
        subsets=tuple(subsets),
        q=float(np.mean([s.size for s in subsets])),
        n_features=m,
    )
