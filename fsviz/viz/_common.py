"""Shared bits of the figure builders."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: colours for roles and decisions, used consistently across figures
ROLE_COLORS = {"SF": "#d62728", "AF": "#1f77b4", "selected": "#2ca02c"}
DECISION_COLORS = {
    "selected": "#2ca02c",
    "irrelevant": "#7f7f7f",
    "redundant": "#ff7f0e",
    "removed": "#d62728",
    "dropped": "#9467bd",
}
QUALITATIVE = [
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
]


def names_of(feature_names: Sequence[str] | None, idx) -> list[str]:
    """Feature names for indices (``f<i>`` when no names are given)."""
    idx = np.asarray(idx, dtype=np.int64)
    if feature_names is None:
        return [f"f{i}" for i in idx]
    arr = np.asarray(feature_names, dtype=object)
    return [str(s) for s in arr[idx]]
