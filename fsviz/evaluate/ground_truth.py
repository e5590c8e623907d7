"""Success hits: how much of a known ground-truth group structure a method recovered."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class SuccessHits:
    """Outcome of :func:`success_hits`.

    Attributes
    ----------
    n_correct_support : int
        Selected features (``found_support``) that are true support features.
    n_correct_affiliated : int
        Selected features that are true affiliated features.
    n_incorrect : int
        Selected features that are neither (noise).
    n_correct : int
        True features (support or affiliated) among everything found, selected or
        grouped: the numerator of the grouping-method success hits.
    n_truth : int
        Number of true features (38 in the TPAMI paper's benchmark).
    rate : float
        ``n_correct / n_truth``, the success hits of a grouping method.
    n_matched : int
        Found true features placed with their own true group (a found group whose support
        feature belongs to the same true group).
    n_spurious : int
        Found features (selected or grouped) that are not true features: the false
        positives of the grouping form.
    n_found : int
        Distinct features found (selected or grouped).
    precision : float
        ``n_correct / n_found`` (1 - false discovery rate): the share of what the method
        reported that is true. 0.0 when nothing was found. ``rate`` alone rewards
        reporting everything; read the two together.
    selection_precision : float
        ``(n_correct_support + n_correct_affiliated) / len(found_support)``: the same on
        the selected features only (the triple's false positives are ``n_incorrect``).
    """

    n_correct_support: int
    n_correct_affiliated: int
    n_incorrect: int
    n_correct: int
    n_truth: int
    rate: float
    n_matched: int
    n_spurious: int
    n_found: int = 0
    precision: float = 0.0
    selection_precision: float = 0.0

    @property
    def triple(self) -> str:
        """The feature-selection form of Table 2: ``"#correct SF/#correct AF/#incorrect"``."""
        return f"{self.n_correct_support}/{self.n_correct_affiliated}/{self.n_incorrect}"

    def __str__(self) -> str:
        return (
            f"{100 * self.rate:.1f}% ({self.n_correct}/{self.n_truth}), precision "
            f"{100 * self.precision:.1f}% ({self.n_correct}/{self.n_found}); selection {self.triple}"
        )


def _ints(a, what: str) -> np.ndarray:
    a = np.asarray(a).ravel()
    if a.size and a.dtype.kind not in "iu":
        raise ValueError(f"success_hits: {what} must hold integer feature indices; got dtype {a.dtype}.")
    return a.astype(np.int64)


def success_hits(found_support, found_groups: Mapping | None, truth: Any) -> SuccessHits:
    """Compare found support/affiliated features with the ground truth.

    Parameters
    ----------
    found_support : array-like of int
        The features a method selected (support features for GDM).
    found_groups : dict or None
        Support feature -> array of its affiliated features (GDM's ``groups_``); None for a
        pure selection method.
    truth : object with ``support`` (int array) and ``groups`` (dict SF -> AF array)
        E.g. ``fsviz.data.generators.GroundTruth``.

    Returns
    -------
    SuccessHits
        ``rate`` is the grouping form (#CORRECT / #ALL, 86.8 % = 33/38 for GDM in Table 2
        of the TPAMI paper); ``triple`` the selection form "#correct SF / #correct AF /
        #incorrect feature" computed on ``found_support``. ``precision`` (#CORRECT /
        #FOUND) and ``n_spurious`` report the false positives the hit rate ignores.

    References
    ----------
    Zhai et al., "Making Trillion Correlations Feasible in Feature Grouping and
    Selection", TPAMI 2016, section 5.2 and Table 2.
    """
    if not hasattr(truth, "support") or not hasattr(truth, "groups"):
        raise ValueError(
            "success_hits: 'truth' needs attributes 'support' (int array) and 'groups' "
            f"(dict support -> affiliated array); got {type(truth).__name__}."
        )
    sf = set(_ints(truth.support, "truth.support").tolist())
    gid = {s: s for s in sf}
    for s, afs in dict(truth.groups).items():
        for a in _ints(afs, "truth.groups values").tolist():
            gid.setdefault(a, int(s))
    af = set(gid) - sf
    allt = sf | af
    fs = _ints(found_support, "found_support").tolist()
    key = {f: f for f in fs}
    if found_groups is not None:
        for s, afs in dict(found_groups).items():
            for a in _ints(afs, "found_groups values").tolist():
                key.setdefault(a, int(s))
    fs_set = set(fs)
    found = set(key)
    n_correct = len(found & allt)
    matched = sum(1 for f in found & allt if key[f] in gid and gid[key[f]] == gid[f])
    n_sel_correct = len(fs_set & allt)
    return SuccessHits(
        n_correct_support=len(fs_set & sf),
        n_correct_affiliated=len(fs_set & af),
        n_incorrect=len(fs_set - allt),
        n_correct=n_correct,
        n_truth=len(allt),
        rate=float(n_correct / len(allt)) if allt else 0.0,
        n_matched=int(matched),
        n_spurious=len(found - allt),
        n_found=len(found),
        precision=float(n_correct / len(found)) if found else 0.0,
        selection_precision=float(n_sel_correct / len(fs_set)) if fs_set else 0.0,
    )
