"""Sequential information-theoretic selectors: MIFS, CIFE, JMI, CMIM, ICAP, DISR.

All six are greedy forward searches on discretised features that differ only in the
criterion ``J(f)`` a candidate ``f`` gets given the selected set ``S`` (survey section
2.2, eq. (38), (42), (44), (46), (50), (51)). One engine, :func:`info_select`, runs them
all incrementally: after each selection it computes, for every remaining candidate, the
two joint entropies ``H(f, s)`` and ``H(f, s, Y)`` with the feature ``s`` just added, and
folds the resulting terms into one running accumulator per candidate. A run of ``k``
steps therefore costs ``O(k m n)`` counting, like :class:`fsviz.select.MRMR`.

With the plug-in (empirical) distribution of the coded data every identity between
Shannon terms is exact, so, writing ``I(f; s)`` for the redundancy and ``I(f; s | Y)``
for the conditional redundancy of a candidate with a selected feature:

* ``I(f; s | Y) = H(f, Y) + H(s, Y) - H(f, s, Y) - H(Y)``
* ``I(f, s; Y) = H(f, s) + H(Y) - H(f, s, Y) = I(s; Y) + I(f; Y) - I(f; s) + I(f; s | Y)``
* ``I(f; Y | s) = I(f, s; Y) - I(s; Y)``

which is why JMI's eq. (44) and Brown et al.'s form eq. (45) select the same features,
and so do CMIM's eq. (46) and eq. (47).

References
----------
Li et al., "Feature Selection: A Data Perspective", ACM CSUR 2017, section 2.2;
G. Brown, A. Pocock, M.-J. Zhao, M. Lujan, "Conditional Likelihood Maximisation: A
Unifying Framework for Information Theoretic Feature Selection", JMLR 13, 2012.
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval

from fsviz.select._base import class_codes
from fsviz.select._mi_kernels import joint_entropies_with
from fsviz.select._subset_common import SequentialInfoSelector
from fsviz.stats.information import Codes

__all__ = ["CIFE", "CMIM", "CRITERIA", "DISR", "ICAP", "JMI", "MIFS", "info_select"]

CRITERIA = ("mifs", "cife", "jmi", "cmim", "icap", "disr")
_NEEDS_Y = frozenset({"cife", "jmi", "cmim", "icap", "disr"})  # need the three-way H(f, s, Y)
_TIE = 1e-10  # criteria within this many nats of the best count as tied: lowest index wins


def info_select(
    codes: Codes, y, n_features: int, criterion: str, *, beta: float = 1.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Greedy forward selection with one of the survey's criteria -> (selected, criterion, relevance).

    Parameters
    ----------
    codes : Codes
        Coded features (:func:`fsviz.stats.information.discretize`).
    y : array-like of shape (n_samples,)
        Class labels (at least two classes).
    n_features : int
        Number of steps (``1 <= n_features <= codes.n_features``).
    criterion : {"mifs", "cife", "jmi", "cmim", "icap", "disr"}
        ``J(f)`` for a candidate ``f`` given the selected set ``S`` (sums and extrema over
        ``s in S``, information in nats):

        - ``mifs``: ``I(f;Y) - beta sum I(f;s)`` (eq. 38)
        - ``cife``: ``I(f;Y) - sum I(f;s) + sum I(f;s|Y)`` (eq. 42)
        - ``jmi``: ``sum I(f,s;Y)`` (eq. 44)
        - ``cmim``: ``min I(f;Y|s)`` (eq. 46)
        - ``icap``: ``I(f;Y) - sum max(0, I(f;s) - I(f;s|Y))`` (eq. 50)
        - ``disr``: ``sum I(f,s;Y) / H(f,s,Y)`` (eq. 51)

        The first feature of every criterion is the most relevant one, argmax ``I(f;Y)``
        (with ``S`` empty the sums of JMI/DISR and CMIM's minimum are not informative).
    beta : float, default=1.0
        MIFS's redundancy weight; ignored by the other criteria.

    Returns
    -------
    selected : ndarray of int64, shape (n_features,)
        Feature indices in selection order.
    criterion : ndarray of shape (n_features,)
        ``J`` of each selected feature at its step (the first is its relevance).
    relevance : ndarray of shape (m,)
        ``I(f; Y)`` of every feature.

    Notes
    -----
    Ties (criteria within 1e-10 nats of the best) go to the lowest feature index, so the
    order does not depend on the summation order of the accumulators.

    Constant features (zero entropy) are selected only once every non-constant feature has
    been: they carry no information, yet their criterion is 0 by vacuity, which would beat
    the negative values MIFS/CIFE/ICAP give redundant features and DISR's normalisation
    (``I(s;Y)/H(s,Y)`` for a constant ``f``) would favour them too. Their ``criterion_`` is
    still the criterion's value.
    """
    if criterion not in CRITERIA:
        raise ValueError(f"info_select: 'criterion' must be one of {CRITERIA}; got {criterion!r}.")
    yc, counts = class_codes(f"info_select ({criterion})", y)
    n = yc.shape[0]
    ky = counts.shape[0]
    C, k = codes.codes, codes.k
    R = codes.rows  # the kernel's layout, a feature per row
    m = C.shape[1]
    py = counts[counts > 0] / n
    hy = float(-(py * np.log(py)).sum())
    h = codes.entropies()
    every = np.arange(m, dtype=np.int64)
    hfy = joint_entropies_with(yc, ky, R, k, every)  # H(f, Y)
    rel = np.maximum(h + hy - hfy, 0.0)  # I(f; Y)

    avail = np.ones(m, dtype=bool)
    acc = np.full(m, np.inf) if criterion == "cmim" else np.zeros(m)
    informative = h > 0.0  # a constant feature is picked only when nothing else is left
    first = _best_within_tie(rel, informative)
    sel = [first]
    crit = [float(rel[first])]
    avail[first] = False
    for _t in range(1, n_features):
        s = sel[-1]
        cands = np.flatnonzero(avail)
        hfs = joint_entropies_with(C[:, s].astype(np.int64), int(k[s]), R, k, cands)  # H(f, s)
        red = np.maximum(h[cands] + h[s] - hfs, 0.0)  # I(f; s)
        if criterion in _NEEDS_Y:
            sy = C[:, s].astype(np.int64) * ky + yc
            hfsy = joint_entropies_with(sy, int(k[s]) * ky, R, k, cands)  # H(f, s, Y)
            # I(f; s | Y) = H(f,Y) + H(s,Y) - H(f,s,Y) - H(Y)
            cred = np.maximum(hfy[cands] + hfy[s] - hfsy - hy, 0.0)
            joint = np.maximum(hfs + hy - hfsy, 0.0)  # I(f, s; Y)
        if criterion == "mifs":
            acc[cands] += red
            J = rel[cands] - beta * acc[cands]
        elif criterion == "cife":
            acc[cands] += red - cred
            J = rel[cands] - acc[cands]
        elif criterion == "jmi":
            acc[cands] += joint
            J = acc[cands]
        elif criterion == "cmim":
            acc[cands] = np.minimum(acc[cands], np.maximum(joint - rel[s], 0.0))  # I(f; Y | s)
            J = acc[cands]
        elif criterion == "icap":
            acc[cands] += np.maximum(red - cred, 0.0)
            J = rel[cands] - acc[cands]
        else:  # disr; H(f, s, Y) >= H(Y) > 0 with two or more classes
            acc[cands] += joint / hfsy
            J = acc[cands]
        i = _best_within_tie(J, informative[cands])
        sel.append(int(cands[i]))
        crit.append(float(J[i]))
        avail[cands[i]] = False
    return np.asarray(sel, dtype=np.int64), np.asarray(crit), rel


def _best_within_tie(J: np.ndarray, informative: np.ndarray) -> int:
    """Position of the best ``J`` (ties within ``_TIE`` to the lowest position), among the
    non-constant candidates when there are any."""
    if informative.any() and not informative.all():
        J = np.where(informative, J, -np.inf)
    return int(np.flatnonzero(J >= J.max() - _TIE)[0])


class _InfoCriterionSelector(SequentialInfoSelector):
    """The survey's criteria: one ``info_select`` criterion each (``_criterion``, ``_beta``)."""

    _criterion = ""

    def _beta(self) -> float:
        return 1.0

    def _select(self, codes, y, n_features):
        return info_select(codes, y, n_features, self._criterion, beta=self._beta())


class MIFS(_InfoCriterionSelector):
    """Mutual Information Feature Selection (Battiti 1994).

    Starting from the most relevant feature, each step adds the candidate ``f`` maximising
    ``J(f) = I(f; Y) - beta * sum_{s in S} I(f; s)`` (survey eq. (38)). ``beta=0`` is
    MIM (features by decreasing ``I(f; Y)``). mRMR (:class:`fsviz.select.MRMR`) uses
    ``beta = 1/|S|`` instead, so at ``beta=1`` the two agree on the first two features.

    Parameters
    ----------
    beta : float, default=1.0
        Redundancy weight, >= 0. "In the original paper, the parameter beta is empirically
        set to be one" (survey, after eq. (38)), hence the default. scikit-feature's
        ``mifs`` defaults to 0.5 instead: pass ``beta=0.5`` to compare with it.
    n_features : int, default=20
        Number of features to select (at most the number of features).
    n_bins : int, default=10
        Equal-width bins per continuous feature; integer data with few levels is used as is.

    Attributes
    ----------
    selected_ : ndarray of shape (n_features,)
        Selected feature indices in selection order.
    criterion_ : ndarray of shape (n_features,)
        J of each selected feature at the step it was selected (nats; the first is
        its relevance ``I(f; Y)``).
    relevance_ : ndarray of shape (n_features_in_,)
        ``I(f; Y)`` of every feature (nats).
    ranking_ : ndarray of shape (n_features_in_,)
        1..n_features for the selected features in selection order, then the others by
        decreasing relevance (ties by index).
    scores_ : ndarray of shape (n_features_in_,)
        For this subset method a monotone image of ``ranking_``: ``(m - ranking_ + 1) / m``
        in (0, 1], so higher is better and the top k by score are the first k selected.
        The information-theoretic values are in ``criterion_`` and ``relevance_``.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X had string column names.

    References
    ----------
    R. Battiti, "Using mutual information for selecting features in supervised neural net
    learning", IEEE TNN 5(4), 1994;
    Li et al., "Feature Selection: A Data Perspective", ACM CSUR 2017, eq. (38).

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import MIFS
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 3, size=(200, 30)); y = (X[:, 4] + X[:, 9] > 2).astype(int)
    >>> MIFS(n_features=2).fit(X, y).selected_.tolist()
    [9, 4]
    """

    _criterion = "mifs"
    _parameter_constraints: dict = {
        **SequentialInfoSelector._parameter_constraints,
        "beta": [Interval(Real, 0.0, None, closed="left")],  # redundancy weight (0: MIM)
    }

    def __init__(self, *, beta: float = 1.0, n_features: int = 20, n_bins: int = 10):
        self.beta = beta
        self.n_features = n_features
        self.n_bins = n_bins

    def _beta(self) -> float:
        return float(self.beta)


class CIFE(_InfoCriterionSelector):
    """Conditional Infomax Feature Extraction (Lin & Tang 2006).

    Starting from the most relevant feature, each step adds the candidate ``f`` maximising
    ``J(f) = I(f; Y) - sum_{s in S} I(f; s) + sum_{s in S} I(f; s | Y)`` (survey eq. (42)):
    MIFS with ``beta=1`` plus a reward for redundancy that the class explains
    (conditional redundancy). With one feature selected it equals ``I(f; Y | s)``, so
    CIFE, JMI and CMIM always agree on the first two features.

    Parameters
    ----------
    n_features : int, default=20
        Number of features to select (at most the number of features).
    n_bins : int, default=10
        Equal-width bins per continuous feature; integer data with few levels is used as is.

    Attributes
    ----------
    selected_ : ndarray of shape (n_features,)
        Selected feature indices in selection order.
    criterion_ : ndarray of shape (n_features,)
        J of each selected feature at the step it was selected (nats; the first is
        its relevance ``I(f; Y)``).
    relevance_ : ndarray of shape (n_features_in_,)
        ``I(f; Y)`` of every feature (nats).
    ranking_ : ndarray of shape (n_features_in_,)
        1..n_features for the selected features in selection order, then the others by
        decreasing relevance (ties by index).
    scores_ : ndarray of shape (n_features_in_,)
        For this subset method a monotone image of ``ranking_``: ``(m - ranking_ + 1) / m``
        in (0, 1], so higher is better and the top k by score are the first k selected.
        The information-theoretic values are in ``criterion_`` and ``relevance_``.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X had string column names.

    References
    ----------
    D. Lin, X. Tang, "Conditional infomax learning: an integrated framework for feature
    extraction and fusion", ECCV 2006;
    Li et al., "Feature Selection: A Data Perspective", ACM CSUR 2017, eq. (42).

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import CIFE
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 3, size=(200, 30)); y = (X[:, 4] + X[:, 9] > 2).astype(int)
    >>> CIFE(n_features=2).fit(X, y).selected_.tolist()
    [9, 4]
    """

    _criterion = "cife"


class JMI(_InfoCriterionSelector):
    """Joint Mutual Information (Yang & Moody 1999).

    Starting from the most relevant feature, each step adds the candidate ``f`` maximising
    ``J(f) = sum_{s in S} I(f, s; Y)`` (survey eq. (44)), the information the pair carries
    about the class. By the chain rule this is ``sum_s I(s; Y)`` plus ``|S|`` times Brown
    et al.'s form ``I(f;Y) - (1/|S|) sum I(f;s) + (1/|S|) sum I(f;s|Y)`` (eq. (45)), so both
    forms select the same features.

    Parameters
    ----------
    n_features : int, default=20
        Number of features to select (at most the number of features).
    n_bins : int, default=10
        Equal-width bins per continuous feature; integer data with few levels is used as is.

    Attributes
    ----------
    selected_ : ndarray of shape (n_features,)
        Selected feature indices in selection order.
    criterion_ : ndarray of shape (n_features,)
        J of each selected feature at the step it was selected (nats; the first is
        its relevance ``I(f; Y)``).
    relevance_ : ndarray of shape (n_features_in_,)
        ``I(f; Y)`` of every feature (nats).
    ranking_ : ndarray of shape (n_features_in_,)
        1..n_features for the selected features in selection order, then the others by
        decreasing relevance (ties by index).
    scores_ : ndarray of shape (n_features_in_,)
        For this subset method a monotone image of ``ranking_``: ``(m - ranking_ + 1) / m``
        in (0, 1], so higher is better and the top k by score are the first k selected.
        The information-theoretic values are in ``criterion_`` and ``relevance_``.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X had string column names.

    References
    ----------
    H. Yang, J. Moody, "Data visualization and feature selection: new algorithms for
    non-Gaussian data", NIPS 1999; G. Brown et al., JMLR 13, 2012;
    Li et al., "Feature Selection: A Data Perspective", ACM CSUR 2017, eq. (44)-(45).

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import JMI
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 3, size=(200, 30)); y = (X[:, 4] + X[:, 9] > 2).astype(int)
    >>> JMI(n_features=2).fit(X, y).selected_.tolist()
    [9, 4]
    """

    _criterion = "jmi"


class CMIM(_InfoCriterionSelector):
    """Conditional Mutual Information Maximisation (Fleuret 2004).

    Starting from the most relevant feature, each step adds the candidate ``f`` maximising
    ``J(f) = min_{s in S} I(f; Y | s)`` (survey eq. (46)); equivalently
    ``I(f; Y) - max_s [I(f; s) - I(f; s | Y)]`` (eq. (47)). The minimum is kept per
    candidate and updated with the last selected feature only.

    Parameters
    ----------
    n_features : int, default=20
        Number of features to select (at most the number of features).
    n_bins : int, default=10
        Equal-width bins per continuous feature; integer data with few levels is used as is.

    Attributes
    ----------
    selected_ : ndarray of shape (n_features,)
        Selected feature indices in selection order.
    criterion_ : ndarray of shape (n_features,)
        J of each selected feature at the step it was selected (nats; the first is
        its relevance ``I(f; Y)``).
    relevance_ : ndarray of shape (n_features_in_,)
        ``I(f; Y)`` of every feature (nats).
    ranking_ : ndarray of shape (n_features_in_,)
        1..n_features for the selected features in selection order, then the others by
        decreasing relevance (ties by index).
    scores_ : ndarray of shape (n_features_in_,)
        For this subset method a monotone image of ``ranking_``: ``(m - ranking_ + 1) / m``
        in (0, 1], so higher is better and the top k by score are the first k selected.
        The information-theoretic values are in ``criterion_`` and ``relevance_``.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X had string column names.

    References
    ----------
    F. Fleuret, "Fast binary feature selection with conditional mutual information",
    JMLR 5, 2004;
    Li et al., "Feature Selection: A Data Perspective", ACM CSUR 2017, eq. (46)-(47).

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import CMIM
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 3, size=(200, 30)); y = (X[:, 4] + X[:, 9] > 2).astype(int)
    >>> CMIM(n_features=2).fit(X, y).selected_.tolist()
    [9, 4]
    """

    _criterion = "cmim"


class ICAP(_InfoCriterionSelector):
    """Interaction Capping (Jakulin 2005).

    Starting from the most relevant feature, each step adds the candidate ``f`` maximising
    ``J(f) = I(f; Y) - sum_{s in S} max(0, I(f; s) - I(f; s | Y))`` (survey eq. (50)): like
    CIFE, but a pair whose conditional redundancy exceeds its redundancy (a synergy) is
    not rewarded, only not penalised.

    Parameters
    ----------
    n_features : int, default=20
        Number of features to select (at most the number of features).
    n_bins : int, default=10
        Equal-width bins per continuous feature; integer data with few levels is used as is.

    Attributes
    ----------
    selected_ : ndarray of shape (n_features,)
        Selected feature indices in selection order.
    criterion_ : ndarray of shape (n_features,)
        J of each selected feature at the step it was selected (nats; the first is
        its relevance ``I(f; Y)``).
    relevance_ : ndarray of shape (n_features_in_,)
        ``I(f; Y)`` of every feature (nats).
    ranking_ : ndarray of shape (n_features_in_,)
        1..n_features for the selected features in selection order, then the others by
        decreasing relevance (ties by index).
    scores_ : ndarray of shape (n_features_in_,)
        For this subset method a monotone image of ``ranking_``: ``(m - ranking_ + 1) / m``
        in (0, 1], so higher is better and the top k by score are the first k selected.
        The information-theoretic values are in ``criterion_`` and ``relevance_``.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X had string column names.

    References
    ----------
    A. Jakulin, "Machine learning based on attribute interactions", PhD thesis,
    University of Ljubljana, 2005;
    Li et al., "Feature Selection: A Data Perspective", ACM CSUR 2017, eq. (50).

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import ICAP
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 3, size=(200, 30)); y = (X[:, 4] + X[:, 9] > 2).astype(int)
    >>> ICAP(n_features=2).fit(X, y).selected_.tolist()
    [9, 4]
    """

    _criterion = "icap"


class DISR(_InfoCriterionSelector):
    """Double Input Symmetrical Relevance (Meyer & Bontempi 2006).

    Starting from the most relevant feature, each step adds the candidate ``f`` maximising
    ``J(f) = sum_{s in S} I(f, s; Y) / H(f, s, Y)`` (survey eq. (51)): JMI with every pair's
    joint information normalised by the joint entropy of the pair and the class
    (``H(f, s, Y) >= H(Y) > 0``, so never a division by zero).

    Parameters
    ----------
    n_features : int, default=20
        Number of features to select (at most the number of features).
    n_bins : int, default=10
        Equal-width bins per continuous feature; integer data with few levels is used as is.

    Attributes
    ----------
    selected_ : ndarray of shape (n_features,)
        Selected feature indices in selection order.
    criterion_ : ndarray of shape (n_features,)
        J of each selected feature at the step it was selected (nats; the first is
        its relevance ``I(f; Y)``).
    relevance_ : ndarray of shape (n_features_in_,)
        ``I(f; Y)`` of every feature (nats).
    ranking_ : ndarray of shape (n_features_in_,)
        1..n_features for the selected features in selection order, then the others by
        decreasing relevance (ties by index).
    scores_ : ndarray of shape (n_features_in_,)
        For this subset method a monotone image of ``ranking_``: ``(m - ranking_ + 1) / m``
        in (0, 1], so higher is better and the top k by score are the first k selected.
        The information-theoretic values are in ``criterion_`` and ``relevance_``.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X had string column names.

    References
    ----------
    P. E. Meyer, G. Bontempi, "On the use of variable complementarity for feature
    selection in cancer classification", EvoWorkshops 2006;
    Li et al., "Feature Selection: A Data Perspective", ACM CSUR 2017, eq. (51).

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.select import DISR
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 3, size=(200, 30)); y = (X[:, 4] + X[:, 9] > 2).astype(int)
    >>> DISR(n_features=2).fit(X, y).selected_.tolist()
    [9, 4]
    """

    _criterion = "disr"
