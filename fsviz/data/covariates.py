"""The import plan's covariates: columns kept per sample to adjust for, never features.

A covariate is a column of the data table given the role ``"covariate"``
(:func:`~fsviz.data.infer_column_roles`) or a column of the sample annotations. Table columns
leave the features and are kept by sample name in ``Dataset.meta["sample_annotations"]``, where
the sample annotations' columns already are (and where :func:`fsviz.compute.covariates.covariate_frame`
looks); the names are ``Dataset.meta["covariates"]``, so the CLI and the app can default "adjust
for" to them.
"""

from __future__ import annotations

import numpy as np

from fsviz.data.validation import names_preview

__all__ = ["check_covariates", "covariate_annotations", "keep_covariates", "plain"]


def plain(v):
    """A cell as a plain Python value (None for missing), as ``meta["sample_annotations"]`` holds them."""
    if v is None or (isinstance(v, float) and v != v):
        return None
    if isinstance(v, (np.integer, np.floating, np.bool_)):
        v = v.item()
        return None if isinstance(v, float) and v != v else v
    if isinstance(v, str):
        v = v.strip()
        return v or None
    return v if isinstance(v, (int, float)) else str(v)


def covariate_annotations(values: dict, sample_names) -> dict:
    """``{column: {sample name: value}}`` of the table's covariate columns (rows in sample order)."""
    names = [str(s) for s in sample_names]
    return {
        str(c): {s: plain(v) for s, v in zip(names, col.tolist(), strict=True)} for c, col in values.items()
    }


def keep_covariates(parts: dict, values: dict) -> None:
    """The table's covariate columns (``values``: name -> cells, rows as ``parts["X"]``) kept per
    sample in ``parts["table_meta"]["sample_annotations"]``; rows without a sample name are named by
    their number (1, 2, ...), as a CLS file's samples are."""
    if not values:
        return
    n = parts["X"].shape[0]
    if parts.get("sample_names") is None:
        parts["sample_names"] = np.array([str(i + 1) for i in range(n)], dtype=object)
    meta = parts.setdefault("table_meta", {})
    meta["sample_annotations"] = {
        **(meta.get("sample_annotations") or {}),
        **covariate_annotations(values, parts["sample_names"]),
    }
    parts.setdefault("notes", []).append(
        f"kept covariate column(s) {names_preview(list(values))} out of the features (to adjust for)"
    )


def check_covariates(parts: dict, covariates, label, who: str) -> None:
    """Name the covariates in ``parts["table_meta"]["covariates"]``, each found per sample; a
    ValueError names a covariate that is missing, is the target, or holds one value."""
    if not covariates:
        return
    meta = parts.setdefault("table_meta", {})
    found = meta.get("sample_annotations") or {}
    target = parts.get("label_column") or (meta.get("annotations") or {}).get("target")
    for c in covariates:
        if c == target or c == label:
            raise ValueError(
                f"{who}: column {c!r} is both the target and a covariate; the target is predicted, a "
                "covariate adjusted for. Fix: take it out of the covariates, or choose another target."
            )
    missing = [c for c in covariates if c not in found]
    if missing:
        raise ValueError(
            f"{who}: covariate(s) {names_preview(missing)} are neither columns of the data table nor of the "
            f"sample annotations (annotation columns: {names_preview(sorted(found))}). Fix: name columns of "
            "either, or attach the sample annotations that hold them."
        )
    samples = parts.get("sample_names")
    for c in covariates:
        column = found[c]
        seen = {column.get(str(s)) for s in samples} if samples is not None else set(column.values())
        seen.discard(None)
        if len(seen) <= 1:
            shown = f" ({next(iter(seen))!r})" if seen else " (all missing)"
            raise ValueError(
                f"{who}: covariate {c!r} holds one value{shown} for every sample: it adjusts for nothing. "
                "Fix: take it out of the covariates (role feature or ignored)."
            )
    meta["covariates"] = [str(c) for c in covariates]
