"""Column roles: which column looks like the target, and which features leak it.

:func:`suggest_targets` ranks the columns of a table that look like a class label;
:func:`leaky_features` finds features that predict the labels perfectly on their own
(a copy or recoding of the label, or an ID sorted by class), which would make every
selection and every accuracy trivially perfect.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from numbers import Integral
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from fsviz.data.validation import DataWarning

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["TARGET_WORDS", "leaky_features", "suggest_targets"]

#: name parts that suggest a target column (matched as whole words of the column name)
TARGET_WORDS = frozenset(
    {
        "label", "labels", "class", "classes", "target", "diagnosis", "outcome", "type", "y",
        "tumour", "tumor", "response", "status", "category", "subtype", "disease", "condition",
        "cancer", "phenotype", "grade", "stage", "group", "cohort", "relapse", "survival", "dx",
    }
)  # fmt: skip
#: names that are exactly one of these rank above a name merely containing a target word
_STRONG = frozenset({"label", "labels", "class", "target", "diagnosis", "outcome", "y"})
_MAX_CLASSES = 50


def _words(name: str) -> set[str]:
    """Lower-case words of a column name: split on non-letters and camelCase."""
    parts = re.sub(r"([a-z])([A-Z])", r"\1 \2", str(name))
    return {w for w in re.split(r"[^A-Za-z]+", parts.lower()) if w}


def suggest_targets(frame: pd.DataFrame, max_suggestions: int = 5) -> list[str]:
    """Columns of a table that look like a class label, most likely first.

    Each column gets points: +4 when its whole name is a target word ("label", "class",
    "target", "diagnosis", "outcome", "y"), +3 when a word of its name is in
    :data:`TARGET_WORDS` (``tumour_type``, ``DiseaseStatus``), +2 when it is non-numeric
    (text, category, bool) with 2 to 50 distinct values, +1 when it is numeric with
    integer values and 2 to 20 distinct values. Columns with one value, or with a
    distinct value in every row (identifiers: text or whole numbers), are never
    suggested; a column of fractional numbers named like a target (a continuous
    target) is. Numeric columns are
    scored together (one sort of the numeric block), so wide tables stay fast.

    Parameters
    ----------
    frame : pandas.DataFrame
    max_suggestions : int, default=5

    Returns
    -------
    list of str
        Column names with a positive score, best first (ties keep the column order).

    Examples
    --------
    >>> import pandas as pd
    >>> f = pd.DataFrame({"g1": [0.1, 0.5, 0.2, 0.9], "batch": [1, 2, 1, 2],
    ...                   "tumour_type": ["a", "b", "a", "b"]})
    >>> suggest_targets(f)
    ['tumour_type', 'batch']
    """
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"suggest_targets: 'frame' must be a pandas DataFrame; got {type(frame).__name__}.")
    n, m = frame.shape
    if m == 0 or n == 0:
        return []
    names = [str(c) for c in frame.columns]
    score = np.zeros(m)
    for c, name in enumerate(names):  # string work per column name only
        w = _words(name)
        score[c] += 4.0 if name.strip().lower() in _STRONG else 3.0 if w & TARGET_WORDS else 0.0
    numeric = np.array(
        [pd.api.types.is_numeric_dtype(t) and not pd.api.types.is_bool_dtype(t) for t in frame.dtypes]
    )
    n_unique = np.zeros(m, dtype=np.int64)
    integer = np.zeros(m, dtype=bool)
    if numeric.any():
        V = frame.iloc[:, np.flatnonzero(numeric)].to_numpy(dtype=np.float64, na_value=np.nan)
        S = np.sort(V, axis=0)  # NaN last
        finite = np.isfinite(S)
        new = np.vstack([finite[:1], (S[1:] != S[:-1]) & finite[1:]])
        n_unique[numeric] = new.sum(axis=0)
        integer[numeric] = np.all(~np.isfinite(V) | (V == np.round(V)), axis=0)
    other = np.flatnonzero(~numeric)
    if other.size:
        n_unique[other] = frame.iloc[:, other].nunique(dropna=True).to_numpy()
    score += np.where(~numeric & (n_unique >= 2) & (n_unique <= _MAX_CLASSES), 2.0, 0.0)
    score += np.where(numeric & integer & (n_unique >= 2) & (n_unique <= 20), 1.0, 0.0)
    # a distinct value in every row marks an identifier, except for real (fractional)
    # numbers: a continuous target such as a price has that too
    usable = (n_unique >= 2) & ((n_unique < n) | (n <= 2) | (numeric & ~integer))
    order = np.lexsort((np.arange(m), -score))
    return [names[c] for c in order if usable[c] and score[c] > 0][: int(max_suggestions)]


def _why(S: np.ndarray, Yc: np.ndarray, n_classes: int, class_names: np.ndarray, n_values: int) -> str:
    """A sentence for one leaky feature: its sorted values and classes."""
    if n_values == n_classes:
        return "takes exactly one value per class (a copy or recoding of the label)"
    cut = np.flatnonzero(Yc[1:] != Yc[:-1])
    if n_classes == 2:
        t = (S[cut[0]] + S[cut[0] + 1]) / 2
        lo, hi = class_names[Yc[0]], class_names[Yc[-1]]
        return f"the threshold {t:.4g} separates the classes with no error (below: {lo}, above: {hi})"
    return f"{n_classes - 1} thresholds split it into one interval per class with no error"


def leaky_features(
    X: Any,
    y: Any,
    feature_names: Sequence[str] | None = None,
    *,
    max_features: int = 100_000,
    block_size: int = 2048,
) -> list[tuple[int, str, str]]:
    """Features that predict the labels perfectly on their own (likely target leakage).

    A feature is reported when a 1-D rule on it classifies every sample correctly: its
    values, sorted, fall into one contiguous run per class and no value is shared by two
    classes (with two classes, one threshold separates them). That covers a copy of the
    label, any recoding of it, and identifiers sorted by class. Each column is sorted
    once and the class changes along the sorted order are counted, for a block of
    columns at a time (no loop over features).

    With very few samples per class a random feature can separate them by chance;
    the rule is meant for n of at least a few dozen.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Class labels (any type), at least 2 classes.
    feature_names : sequence of str, default=None
    max_features : int, default=100_000
        Check budget: only the first ``max_features`` columns are checked; a
        :class:`~fsviz.data.DataWarning` names how many were skipped.
    block_size : int, default=2048
        Columns sorted together (peak extra memory about ``3 * block_size * n * 8`` bytes).

    Returns
    -------
    list of (int, str, str)
        ``(index, name, why)`` for each leaky feature, in column order.

    Examples
    --------
    >>> X = np.column_stack([np.arange(6.0) % 3, [5, 5, 5, 9, 9, 9]])
    >>> [(i, why.split(" (")[0]) for i, _, why in leaky_features(X, ["a"] * 3 + ["b"] * 3)]
    [(1, 'takes exactly one value per class')]
    """
    who = "leaky_features"
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"{who}: y must be 1-D; got shape {y.shape}.")
    if not sp.issparse(X):
        X = np.asarray(X)
        if X.ndim != 2 or not np.issubdtype(X.dtype, np.number):
            raise ValueError(f"{who}: X must be a 2-D numeric array; got shape {X.shape}, dtype {X.dtype}.")
    n, m = X.shape
    if y.shape[0] != n:
        raise ValueError(f"{who}: X has {n} rows but y has {y.shape[0]} labels.")
    for nm, v in (("max_features", max_features), ("block_size", block_size)):
        if isinstance(v, bool) or not isinstance(v, Integral) or v < 1:
            raise ValueError(f"{who}: '{nm}' must be a positive int; got {v!r}.")
    class_names, codes = np.unique(y.astype(str) if y.dtype == object else y, return_inverse=True)
    n_classes = class_names.size
    if n_classes < 2:
        raise ValueError(f"{who}: y needs at least 2 classes; got {n_classes}.")
    m_check = min(m, int(max_features))
    if m_check < m:
        warnings.warn(
            f"{who}: checked the first {m_check} of {m} features (max_features={max_features}); "
            f"{m - m_check} were not checked.",
            DataWarning,
            stacklevel=2,
        )
    Xc = X.tocsc() if sp.issparse(X) else X
    out: list[tuple[int, str, str]] = []
    for s in range(0, m_check, int(block_size)):
        e = min(s + int(block_size), m_check)
        B = Xc[:, s:e].toarray() if sp.issparse(Xc) else np.asarray(Xc[:, s:e], dtype=np.float64)
        order = np.argsort(B, axis=0, kind="stable")
        S = np.take_along_axis(B, order, axis=0)
        Yc = codes[order]
        change = Yc[1:] != Yc[:-1]
        tie = S[1:] == S[:-1]
        perfect = (change.sum(axis=0) == n_classes - 1) & ~(change & tie).any(axis=0)
        perfect &= np.isfinite(S).all(axis=0)
        n_values = 1 + (~tie).sum(axis=0)
        for c in np.flatnonzero(perfect):  # only the (few) leaky columns
            j = s + int(c)
            name = str(feature_names[j]) if feature_names is not None else f"f{j}"
            out.append((j, name, _why(S[:, c], Yc[:, c], n_classes, class_names, int(n_values[c]))))
    return out
