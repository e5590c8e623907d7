"""What kind of target ``y`` is: class labels, a continuous quantity, or none.

One rule for the whole package (library, run layer, app and CLI): scikit-learn's
:func:`sklearn.utils.multiclass.type_of_target`. ``"binary"`` and ``"multiclass"``
are class labels (so a float column holding only 0.0, 1.0 and 2.0 is three classes,
never silently a continuous target); ``"continuous"`` is a regression target.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.multiclass import check_classification_targets, type_of_target

#: the target kinds: class labels, a real-valued quantity, or no target at all
TARGET_KINDS = ("classes", "continuous", None)

#: methods that accept a continuous target (registry names), quoted in error messages
REGRESSION_HINT = "f/mi/relieff/pearson/spearman"


def target_kind(y) -> str | None:
    """``"classes"``, ``"continuous"`` or None (no target) by ``type_of_target``.

    Parameters
    ----------
    y : array-like of shape (n_samples,) or None

    Returns
    -------
    {"classes", "continuous", None}

    Raises
    ------
    ValueError
        For targets that are neither (multi-output, multilabel, mixed types).

    Examples
    --------
    >>> target_kind([0.0, 1.0, 2.0, 1.0]), target_kind([0.5, 1.25, 3.0]), target_kind(None)
    ('classes', 'continuous', None)
    """
    if y is None:
        return None
    if np.ndim(y) == 2 and 1 in np.shape(y):
        y = np.asarray(y).ravel()
    kind = type_of_target(y, input_name="y")
    if kind in ("binary", "multiclass"):
        return "classes"
    if kind == "continuous":
        return "continuous"
    raise ValueError(
        f"Unknown label type: {kind!r} (type_of_target); y must be class labels or one continuous "
        "target. Pass a single label column."
    )


def needs_classes_message(owner: str, kind: str = "continuous") -> str:
    """The one error message of a method that has no regression form."""
    return (
        f"{owner} needs class labels; y looks {kind} (type_of_target={kind!r}); "
        f"use {REGRESSION_HINT} or bin y."
    )


def check_class_target(owner: str, y) -> None:
    """Raise a clear ``ValueError`` for a continuous ``y``; else scikit-learn's class-target check."""
    y = np.asarray(y)
    if y.dtype.kind in "fc":
        kind = type_of_target(y, input_name="y")
        if kind.startswith("continuous"):
            raise ValueError(needs_classes_message(owner, kind))
    check_classification_targets(y)
