"""Covariates in the run layer: a Run's ``covariates`` (names) read from the dataset's sample
annotations or its own columns, and the dataset the method then sees, adjusted for them
(:mod:`fsviz.stats.covariates`: linear residualisation, categoricals one-hot).

A feature column named as a covariate is adjusted to exactly 0 (it is explained by itself). A
class target stays as it is (a residualised class code is no class); a continuous target is
residualised like the features. The permutation view permutes within batches, stability
selection adjusts inside each half, and every CV (the CV curve, the evaluation, the benchmark)
inside each training fold; the bootstrap stability view refuses a Run with covariates rather
than adjust on all samples. The import plan's covariates (``meta["covariates"]``) are the
default of the app's "adjust for" and of ``fsviz select`` (:func:`default_covariates`).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from fsviz._params import Param
from fsviz.data import Dataset
from fsviz.stats.covariates import (
    Covariates,
    check_confounding,
    confounded_features,
    covariate_design,
    residualize,
)

__all__ = [
    "COVARIATES",
    "adjusted_dataset",
    "covariate_frame",
    "dataset_covariates",
    "default_covariates",
    "parse_covariates",
    "zero_columns",
]

COVARIATES = Param(
    name="covariates",
    default=None,
    label="adjust for",
    help="Sample annotations or columns to adjust for (linear residualisation; text columns are "
    "one-hot); none: no adjustment.",
)


def parse_covariates(text: str | Sequence[str] | None) -> tuple[str, ...] | None:
    """``"batch,age"`` (or a list) -> ``("batch", "age")``; empty or ``"none"`` -> None."""
    if text is None or (isinstance(text, str) and text.strip().lower() == "none"):
        return None
    names = [t.strip() for t in (text.split(",") if isinstance(text, str) else text)]
    names = [n for n in names if n]
    return tuple(names) or None


def default_covariates(ds) -> tuple[str, ...] | None:
    """The covariates the import plan marked (the "covariate" role): ``ds.meta["covariates"]``,
    their values per sample in ``meta["sample_annotations"]``; None when there are none. The app's
    "adjust for" control and ``fsviz select``'s ``--covariates`` start from them."""
    return parse_covariates((getattr(ds, "meta", None) or {}).get("covariates") or None)


def covariate_frame(ds, names: Sequence[str]) -> tuple[pd.DataFrame, list[int]]:
    """The covariates' values by sample, and the feature columns that are covariates.

    Looked up in the sample annotations (``meta["sample_annotations"]``, joined on the sample
    names) first, then among the feature names.

    Raises
    ------
    ValueError
        A name found in neither, naming what there is.
    """
    annotations = (getattr(ds, "meta", None) or {}).get("sample_annotations") or {}
    samples = getattr(ds, "sample_names", None)
    features = [str(f) for f in np.asarray(ds.feature_names).tolist()]
    where = {f: j for j, f in enumerate(features)}
    cols, own = {}, []
    for name in names:
        if name in annotations and samples is not None:
            values = [annotations[name].get(s) for s in np.asarray(samples).tolist()]
            cols[name] = np.asarray(values, dtype=object)
            if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values if v is not None):
                cols[name] = np.asarray([np.nan if v is None else v for v in values], dtype=np.float64)
        elif name in where:
            j = where[name]
            col = ds.X[:, j]
            cols[name] = np.asarray(
                col.toarray() if hasattr(col, "toarray") else col, dtype=np.float64
            ).ravel()
            own.append(j)
        else:
            ann = sorted(annotations)[:10]
            raise ValueError(
                f"covariates: {name!r} is neither a sample annotation {ann} nor a column of dataset "
                f"{ds.name!r}; name a column of the sample annotations (CLI: --sample-annotations) or "
                "of the table."
            )
    return pd.DataFrame(cols), own


def dataset_covariates(ds, names: Sequence[str]) -> tuple[Covariates, list[int]]:
    """The checked design of ``names`` on ``ds`` (and the feature columns among them)."""
    frame, own = covariate_frame(ds, names)
    for c in frame.columns:
        if frame[c].dtype == object and frame[c].map(lambda v: isinstance(v, str)).any():
            frame[c] = frame[c].astype(str).where(frame[c].notna(), None)
    cov = covariate_design(frame, ds.n_samples, y=ds.y)
    if ds.y is not None and ds.target_kind == "classes":
        check_confounding(ds.y, cov)
    return cov, own


def zero_columns(X, own: Sequence[int]):
    """A copy of ``X`` with the columns ``own`` (covariates that are columns of the table) set to 0:
    a covariate explains itself, so adjusted for inside a fold it is exactly constant. ``X`` itself
    when ``own`` is empty; sparse stays sparse (CSC)."""
    if not len(own):
        return X
    if hasattr(X, "tolil"):
        X = X.tolil()
        X[:, list(own)] = 0.0
        return X.tocsc()
    X = np.array(X, dtype=np.float64)
    X[:, list(own)] = 0.0
    return X


def adjusted_dataset(ds, names: Sequence[str]):
    """``ds`` with its features (and a continuous target) residualised on the covariates."""
    cov, own = dataset_covariates(ds, names)
    X = residualize(ds.X, cov)
    explained = np.setdiff1d(confounded_features(ds.X, X), own)
    if explained.size:
        shown = [str(ds.feature_names[j]) for j in explained[:10]]
        warnings.warn(
            f"covariates: {explained.size} feature(s) are explained by {', '.join(cov.names)} almost "
            f"wholly (R^2 >= 0.99), e.g. {shown}: confounded with them, they carry nothing after the "
            "adjustment.",
            stacklevel=2,
        )
    X[:, own] = 0.0  # a covariate explains itself: exactly constant, never a rounding residue
    y = ds.y
    if y is not None and ds.target_kind == "continuous":
        y = residualize(np.asarray(y, dtype=np.float64), cov)
    meta = dict(ds.meta or {})
    meta["covariates"] = list(cov.names)
    return Dataset(
        X,
        y=y,
        feature_names=ds.feature_names,
        name=f"{ds.name} adjusted for {', '.join(cov.names)}",
        class_names=ds.class_names,
        meta=meta,
        sample_names=ds.sample_names,
    )
