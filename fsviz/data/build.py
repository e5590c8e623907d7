"""From a reader's raw parts to a :class:`~fsviz.data.Dataset`: checks, missing values, the
target's kind, the image shape, the notes (what :func:`fsviz.data.assemble` does last).

The raw parts are those of :mod:`fsviz.data.formats.registry`; :func:`build_dataset` never
modifies an array it is given (it fills missing values in place only in an ``X`` the parts mark
``owned``).
"""

from __future__ import annotations

import os
import sys

import numpy as np
import scipy.sparse as sp

from fsviz.data.dataset import Dataset
from fsviz.data.formats.source import Source, readonly
from fsviz.data.images import (
    KNOWN_IMAGE_SHAPES,
    KNOWN_NOT_IMAGES,
    column_major_permutation,
    image_feature_names,
    infer_image_shape,
)
from fsviz.data.impute import append_indicators, impute_missing, impute_shared, warn_missing
from fsviz.data.names import default_feature_names
from fsviz.data.validation import check_finite, warn_constant

__all__ = ["annotations_by_position", "apply_target_kind", "build_dataset", "outside_stacklevel"]

_HERE = os.path.dirname(os.path.abspath(__file__))


def outside_stacklevel(between: int) -> int:
    """``warnings.warn``'s ``stacklevel`` that names the first caller outside :mod:`fsviz.data`
    (``load_dataset``'s, ``assemble``'s or the app's line, however deep the loader's calls go);
    ``between``: the frames from the ``warn`` call up to the caller of this function."""
    frame, level = sys._getframe(1), 0
    while frame is not None and frame.f_code.co_filename.startswith(_HERE):
        frame, level = frame.f_back, level + 1
    return level + between


def annotations_by_position(table, parts: dict, who: str):
    """Annotations that name no samples (a CLS file: a label per sample, in the data's order)
    keyed by the data's sample names, row by row; ValueError when the counts differ."""
    n = parts["X"].shape[0]
    if len(table) != n:
        raise ValueError(
            f"{who}: the sample annotations hold {len(table)} labels by position (a CLS file) but the data "
            f"have {n} samples. Fix: attach the CLS file made for this data file."
        )
    names = parts.get("sample_names")
    keyed = table.drop(columns=["position"], errors="ignore")
    keyed.insert(
        0, "sample", [str(v) for v in names] if names is not None else [str(i + 1) for i in range(n)]
    )
    if names is None:  # the rows' numbers become their names, on both sides of the join
        parts["sample_names"] = np.array(keyed["sample"], dtype=object)
    return keyed


def build_dataset(src: Source, parts: dict, *, image_shape, name, image_order) -> Dataset:
    """The Dataset of a reader's raw parts (``src``: the source and its plan's options)."""
    X, y = parts["X"], parts.get("y")
    names = parts.get("feature_names")
    who = f"load_dataset: {src.label}"
    n, m = X.shape
    if n == 0:
        raise ValueError(f"{who} has no data rows (only a header?). Fix: choose a file with samples.")
    if m == 0:
        raise ValueError(
            f"{who} has no feature columns"
            + (f" (only the label column {parts.get('label_column')!r})" if parts.get("label_column") else "")
            + ". Fix: check the separator and the label column."
        )
    if y is not None and len(y) != n:
        raise ValueError(
            f"{who}: {len(y)} labels but {n} samples; they must match. Fix: store one label "
            "per sample (row of X), e.g. Y as an n x 1 vector."
        )
    ds_name = name if name is not None else (parts.get("name") or src.stem or "dataset")
    default_names = None
    if names is None:
        names = default_names = default_feature_names(m, memory_budget=src.budget)
    strategy = getattr(src, "missing", "error")
    indicator = bool(getattr(src, "missing_indicators", False))
    report, indicator_cols = None, []
    if strategy != "error":
        known = parts.get("fills")  # the parse-time fills of this very X under this strategy, if any
        known = known["values"] if known and known["X"] is X and known["strategy"] == strategy else None
        if known is not None and not parts.get("owned"):  # the parse's own block: filled once per parse
            X, report = impute_shared(X, names, strategy, indicator, who, known)
        else:
            X, report = impute_missing(
                X, names, strategy, indicator, who, owned=bool(parts.get("owned")), known=known
            )
        if report is not None:
            indicator_cols = report.pop("indicator_columns")
            report["indicator_names"] = [nm for nm, _ in indicator_cols]
    try:
        check_finite(X, names, who=who)
    except ValueError as e:
        has_nan = np.isnan(X.data if sp.issparse(X) else X).any()
        if not has_nan:
            raise
        raise ValueError(
            f'{e} Or load with missing="mean" (or "median") to fill each column from its '
            "non-missing values (missing_indicators=True also adds a 0/1 column per affected feature)."
        ) from None
    # the file a person has (a .gz, a .zip), not the member read from it: what reproduce lines name
    meta = {"source": getattr(src, "archive", "") or src.filename or None, "format": parts["format"]}
    if parts.get("label_column") is not None:
        meta["label_column"] = parts["label_column"]
    meta.update(parts.get("table_meta") or {})
    y, class_names = apply_target_kind(y, parts.get("class_names"), getattr(src, "target_kind", "auto"), who)
    if getattr(src, "target_kind", "auto") == "continuous" and y is not None:
        meta["target_kind"] = "continuous"
    notes = list(getattr(src, "notes", [])) + list(parts.get("notes") or [])
    cat_missing = parts.get("categorical_missing") or {}
    if report is not None or cat_missing:
        report = report or {
            "strategy": strategy,
            "indicators": indicator,
            "counts": {},
            "fill": {},
            "indicator_names": [],
        }
        report["categorical_counts"] = dict(cat_missing)
        meta["missing"] = report
    if parts.get("categorical"):
        meta["categorical"] = {str(c): list(v) for c, v in parts["categorical"].items()}
        if image_shape is None:
            image_shape = False  # one-hot blocks are not pixels

    # image shape: caller > file > known table > inference; image_shape=False: none at all
    order = image_order
    fmt_order = parts.get("image_order", "C")
    no_image = image_shape is False
    shape = None if no_image else image_shape
    if shape is None and not no_image:
        shape = parts.get("image_shape")
        if shape is not None:
            fmt_order = "C"  # fsviz files store upright (already permuted) pixels
    key = str(ds_name).lower()
    if shape is None and not no_image and key in KNOWN_IMAGE_SHAPES and np.prod(KNOWN_IMAGE_SHAPES[key]) == m:
        shape = KNOWN_IMAGE_SHAPES[key]
    if shape is None and not no_image and key not in KNOWN_NOT_IMAGES:
        shape = infer_image_shape(m, X)
    if shape is not None:
        try:
            ok = (
                not isinstance(shape, str)
                and len(tuple(shape)) == 2
                and all(not isinstance(v, (str, bool)) and int(v) == v and v > 0 for v in shape)
            )
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise ValueError(f"{who}: image_shape must be (height, width) with positive ints; got {shape!r}.")
        shape = (int(shape[0]), int(shape[1]))
        if shape[0] * shape[1] != m:
            raise ValueError(
                f"{who}: image_shape {shape[0]} x {shape[1]} = {shape[0] * shape[1]} pixels, but "
                f"the data have {m} features; give a shape whose product is the feature count."
            )
        if order == "auto":
            order = fmt_order
        if order == "F":
            perm = column_major_permutation(shape)
            X = X[:, perm]
            if not sp.issparse(X):
                X = readonly(X)  # a fresh array the Dataset need not copy again
            meta["source_columns"] = perm
            meta["image_order"] = "F"
            if names is None or parts.get("names_are_default"):
                names = image_feature_names(shape)
            else:
                names = np.asarray(names, dtype=object)[perm]
    dropped_shape = None
    if indicator_cols:
        X, names = append_indicators(X, names, indicator_cols)
        if shape is not None:
            if image_shape is not None and image_shape is not False:
                raise ValueError(
                    f"{who}: image_shape {shape!r} was given, but missing_indicators=True adds "
                    f"{len(indicator_cols)} indicator column(s) that are not pixels. "
                    "Fix: pass missing_indicators=False for image data."
                )
            dropped_shape, shape = shape, None
    ds = Dataset(
        X,
        y=y,
        feature_names=None if names is default_names else names,  # the Dataset's own compact defaults
        image_shape=shape,
        name=str(ds_name),
        class_names=class_names,
        meta={**meta, "notes": notes} if notes else meta,
        sample_names=parts.get("sample_names"),
    )
    if report is not None:
        warn_missing(report, who, dropped_shape, stacklevel=outside_stacklevel(2))
    warn_constant(ds.constant_features, ds.feature_names, who=who, stacklevel=outside_stacklevel(2))
    return ds


def apply_target_kind(y, class_names, kind: str, who: str):
    """``target_kind="classes"``/``"continuous"`` applied to the labels as read."""
    if y is None or kind == "auto":
        return y, class_names
    arr = np.asarray(y)
    if kind == "continuous":
        if class_names is not None or arr.dtype.kind not in "biuf":
            num = None
            try:
                num = np.asarray(arr, dtype=np.float64)
            except (TypeError, ValueError):
                pass
            if num is None or class_names is not None:
                raise ValueError(
                    f"{who}: the target holds text (e.g. {str(arr[0])!r}); it cannot be continuous. "
                    "Fix: treat it as classes (target kind 'classes')."
                )
            return num, None
        return arr.astype(np.float64), None
    # classes: whole numbers already are; text already is; fractional numbers become names
    if arr.dtype.kind == "f" and not np.all(arr == np.round(arr)):
        return np.array([repr(float(v)) for v in arr], dtype=object), None
    return y, class_names
