"""Checks of a target before any run: one class, classes smaller than the folds, integer
codes that look continuous, a continuous target that looks like codes, missing values.

:func:`check_target` returns plain-words :class:`TargetIssue` records, each with a short
fix for a button; the fixes are library calls too: :meth:`Dataset.drop_small_classes`,
:meth:`Dataset.with_target_kind`, fewer folds or leave-one-out in the evaluation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Integral

import numpy as np

from fsviz.data.validation import names_preview

__all__ = ["TARGET_ISSUES", "TargetIssue", "check_target"]

#: the kinds of :class:`TargetIssue`
TARGET_ISSUES = ("missing", "one_class", "small_classes", "looks_continuous", "looks_categorical")
#: integer targets with more distinct values than this look like a quantity, not classes
CONTINUOUS_MIN_VALUES = 20


@dataclass(frozen=True)
class TargetIssue:
    """One problem with a target, in plain words.

    Attributes
    ----------
    kind : {"missing", "one_class", "small_classes", "looks_continuous", "looks_categorical"}
    message : str
        What is wrong and what happens if nothing is done.
    fix : str
        Short imperative words for a button (``"Drop classes with fewer than 5 samples"``).
    details : dict
        Plain values: e.g. ``{"classes": {"Breast": 1, ...}, "cv": 5, "min_size": 1,
        "max_folds": 1, "fixes": [...]}``; ``fixes`` lists every fix as
        ``{"action": ..., "label": ..., ...}`` (actions ``"drop_small_classes"``,
        ``"fewer_folds"``, ``"leave_one_out"``, ``"treat_as_continuous"``,
        ``"treat_as_classes"``, ``"drop_missing"``, ``"choose_target"``).
    """

    kind: str
    message: str
    fix: str
    details: dict = field(default_factory=dict)


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def _missing_mask(y) -> np.ndarray:
    arr = np.asarray(y, dtype=object) if np.asarray(y).dtype.kind in "OUS" else np.asarray(y)
    if arr.dtype.kind in "biu":
        return np.zeros(arr.shape, dtype=bool)
    if arr.dtype.kind == "f":
        return ~np.isfinite(arr)
    return np.array(
        [v is None or (isinstance(v, float) and not np.isfinite(v)) or str(v).strip() == "" for v in arr],
        dtype=bool,
    )


def check_target(y_or_dataset, *, cv: int = 5) -> list[TargetIssue]:
    """Problems with a target before any run, each with the fix to offer.

    - ``missing``: values are missing (NaN, None, empty text); fix: drop those rows.
    - ``one_class``: a single class (nothing to separate); fix: choose another target.
    - ``small_classes``: classes with fewer samples than the ``cv`` folds (stratified
      k-fold cannot put one in every fold, and a one-sample class cannot be both
      trained on and tested); fixes: drop the classes with fewer than ``cv`` samples,
      use fewer folds (at most the smallest class size, when that is 2 or more), or
      leave-one-out.
    - ``looks_continuous``: whole numbers without class names with more than 20
      distinct values (an age, a count): fix: treat the target as continuous.
    - ``looks_categorical``: a real-valued target with at most 10 distinct values,
      each repeated (codes such as 0.5/1.5 stored as floats): fix: treat it as classes.

    Parameters
    ----------
    y_or_dataset : Dataset or array-like of shape (n_samples,)
        A :class:`~fsviz.data.Dataset` (its ``y``, ``class_names``, ``target_kind``) or
        the raw target values (may hold missing values).
    cv : int, default=5
        The number of folds the evaluation will use.

    Returns
    -------
    list of TargetIssue
        Empty when the target is fine (or absent).

    Examples
    --------
    >>> [i.kind for i in check_target(["a"] * 6 + ["b"] * 6 + ["c"], cv=5)]
    ['small_classes']
    >>> check_target(["a", "b", "a", "b", "a", "b"], cv=3)
    []
    """
    who = "check_target"
    if isinstance(cv, bool) or not isinstance(cv, Integral) or cv < 2:
        raise ValueError(f"{who}: cv must be an int >= 2 (the number of folds); got {cv!r}.")
    cv = int(cv)
    class_names = None
    kind = None
    if hasattr(y_or_dataset, "fingerprint") and hasattr(y_or_dataset, "X"):
        ds = y_or_dataset
        if ds.y is None:
            return []
        y = np.asarray(ds.y)
        class_names = ds.class_names
        kind = ds.target_kind
    else:
        if y_or_dataset is None:
            return []
        y = np.asarray(y_or_dataset)
        if y.ndim != 1:
            y = y.ravel()
    issues: list[TargetIssue] = []
    miss = _missing_mask(y)
    if miss.any():
        k = int(miss.sum())
        rows = np.flatnonzero(miss)
        issues.append(
            TargetIssue(
                "missing",
                f"The target has {_plural(k, 'missing value')} (rows {names_preview(rows.tolist())}); "
                "rows without a target cannot be used to select or evaluate features.",
                f"Drop the {_plural(k, 'row')} without a target",
                {
                    "n_missing": k,
                    "rows": rows.tolist(),
                    "fixes": [{"action": "drop_missing", "label": "Drop them"}],
                },
            )
        )
        y = y[~miss]
    if len(y) == 0:
        return issues
    if kind is None:  # raw values: what the Dataset would make of them
        if y.dtype.kind in "biu":
            kind = "classes"
        elif y.dtype.kind == "f":
            kind = "classes" if np.all(y == np.round(y)) else "continuous"
        else:
            try:
                num = y.astype(np.float64)
                kind = "classes" if np.all(num == np.round(num)) else "continuous"
                y = num
            except (TypeError, ValueError):
                kind = "classes"
                y = np.array([str(v) for v in y], dtype=object)
    if kind == "continuous":
        values, counts = np.unique(y.astype(np.float64), return_counts=True)
        if 2 <= len(values) <= 10 and counts.min() >= 2:
            issues.append(
                TargetIssue(
                    "looks_categorical",
                    f"The target is real-valued but takes only {len(values)} distinct values, each repeated: "
                    "these may be class codes. It is treated as a continuous quantity (regression).",
                    "Treat as classes",
                    {
                        "values": [float(v) for v in values],
                        "counts": counts.tolist(),
                        "fixes": [{"action": "treat_as_classes", "label": "Treat as classes"}],
                    },
                )
            )
        return issues
    codes, counts = np.unique(y, return_counts=True)
    if class_names is not None:
        names = [str(class_names[int(c)]) for c in codes]
    else:
        names = [str(c.item() if hasattr(c, "item") else c) for c in codes]
    if len(codes) == 1:
        issues.append(
            TargetIssue(
                "one_class",
                f"The target has one class ({names[0]!r}, all {len(y):,} samples): there is nothing to tell "
                "apart, so supervised selection and accuracy cannot be computed.",
                "Choose another target",
                {
                    "classes": {names[0]: int(counts[0])},
                    "fixes": [{"action": "choose_target", "label": "Choose another target"}],
                },
            )
        )
        return issues
    numeric_codes = class_names is None and y.dtype.kind in "biuf"
    if numeric_codes and len(codes) > CONTINUOUS_MIN_VALUES:
        issues.append(
            TargetIssue(
                "looks_continuous",
                f"The target holds {len(codes)} distinct whole numbers (from {names[0]} to {names[-1]}): "
                "it looks like a quantity (a count, an age), not class codes. As classes, most have few "
                "samples and accuracy means exact matches.",
                "Treat as continuous",
                {
                    "n_values": int(len(codes)),
                    "fixes": [{"action": "treat_as_continuous", "label": "Treat as continuous"}],
                },
            )
        )
    small = counts < cv
    if small.any():
        sizes = {names[i]: int(counts[i]) for i in np.flatnonzero(small)}
        smallest = int(counts.min())
        kept = int((~small).sum())
        shown = ", ".join(f"{nm} ({c})" for nm, c in list(sizes.items())[:8])
        more = f" and {len(sizes) - 8} more" if len(sizes) > 8 else ""
        fixes = []
        if kept >= 2:
            fixes.append(
                {
                    "action": "drop_small_classes",
                    "label": f"Drop classes with fewer than {cv} samples",
                    "min_size": cv,
                    "n_dropped_samples": int(counts[small].sum()),
                }
            )
        if smallest >= 2:
            fixes.append({"action": "fewer_folds", "label": f"Use {smallest} folds", "cv": smallest})
        fixes.append({"action": "leave_one_out", "label": "Use leave-one-out"})
        one = [nm for nm, c in sizes.items() if c == 1]
        why = (
            f" {_plural(len(one), 'class', 'classes')} with one sample cannot be both trained on and tested."
            if one
            else ""
        )
        issues.append(
            TargetIssue(
                "small_classes",
                f"{_plural(len(sizes), 'class', 'classes')} {'has' if len(sizes) == 1 else 'have'} "
                f"fewer samples than the {cv} folds: {shown}{more}. Stratified {cv}-fold "
                "cross-validation cannot put each "
                f"in every fold, so per-fold accuracies are missing or biased.{why}",
                fixes[0]["label"],
                {"classes": sizes, "cv": cv, "min_size": smallest, "max_folds": smallest, "fixes": fixes},
            )
        )
    return issues
