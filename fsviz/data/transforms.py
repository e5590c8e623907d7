"""What the import plan does after a file is read: small classes left out, a value transform.

Counts (single-cell, RNA-seq) are skewed and scaled by each sample's depth: correlations and
scores read them better after ``log1p`` of counts per million. :func:`looks_like_counts`
recognises them (non-negative integers, wide range) so that :func:`~fsviz.data.inspect_table`
can propose the transform; :func:`transform_values` applies it, sparse data staying sparse.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["finish", "looks_like_counts", "transform_values"]

#: the transforms an import plan offers, in words
TRANSFORM_WORDS = {
    "none": "none",
    "log1p": "log1p(x)",
    "log1p_cpm": "log1p of counts per million",
    "zscore": "z-score per feature",
    "log2": "log2(x) (intensities)",
}


def looks_like_counts(X) -> bool:
    """Non-negative whole numbers with a wide range (largest value at least 50): counts."""
    vals = X.data if sp.issparse(X) else np.asarray(X)
    if vals.size == 0:
        return False
    sample = vals.ravel()[:: max(1, vals.size // 200_000)]
    sample = sample[np.isfinite(sample)]
    if sample.size == 0 or sample.min() < 0:
        return False
    return bool(np.all(sample == np.round(sample)) and sample.max() >= 50)


def transform_values(X, kind: str, who: str):
    """``X`` transformed by ``kind`` (see :class:`fsviz.data.plan.ImportPlan`); sparse stays sparse."""
    if kind == "none":
        return X
    if kind in ("log1p", "log1p_cpm"):
        vals = X.data if sp.issparse(X) else np.asarray(X)
        if vals.size and np.nanmin(vals) < 0:
            raise ValueError(
                f"{who}: transform {kind!r} needs non-negative values (counts); the data hold negative ones "
                f"(smallest {float(np.nanmin(vals)):.4g}). Fix: choose transform 'none' or 'zscore'."
            )
    if kind == "log1p":
        if sp.issparse(X):
            out = X.copy().astype(np.float64)
            out.data = np.log1p(out.data)
            return out
        return np.log1p(np.asarray(X, dtype=np.float64))
    if kind == "log1p_cpm":
        totals = np.asarray(X.sum(axis=1)).ravel().astype(np.float64)
        empty = np.flatnonzero(totals <= 0)
        if empty.size:
            raise ValueError(
                f"{who}: transform 'log1p_cpm' scales each sample to a million counts, but {empty.size} "
                f"sample(s) hold no counts (rows {empty[:10].tolist()}). Fix: leave them out, or choose "
                "'log1p'."
            )
        scale = 1e6 / totals
        if sp.issparse(X):
            out = (
                sp.csr_matrix(sp.diags(scale) @ X.tocsr())
                if X.format != "csc"
                else (sp.diags(scale) @ X).tocsc()
            )
            out = out.astype(np.float64)
            out.data = np.log1p(out.data)
            return out
        return np.log1p(np.asarray(X, dtype=np.float64) * scale[:, None])
    if kind == "zscore":
        if sp.issparse(X):
            raise ValueError(
                f"{who}: transform 'zscore' would make sparse data dense (every zero moves). Fix: choose "
                "'log1p_cpm' or 'log1p', which keep zeros zero."
            )
        A = np.asarray(X, dtype=np.float64)
        sd = A.std(axis=0)
        return (A - A.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    if kind == "log2":  # proteomics intensities: positive, missing already filled or refused
        vals = X.data if sp.issparse(X) else np.asarray(X)
        if sp.issparse(X) or (vals.size and np.nanmin(vals) <= 0):
            raise ValueError(
                f"{who}: transform 'log2' needs positive values (intensities); the data hold "
                + ("implicit zeros (sparse)" if sp.issparse(X) else f"{float(np.nanmin(vals)):.4g}")
                + ". Fix: choose 'log1p' for counts, or read zeros as missing."
            )
        return np.log2(np.asarray(X, dtype=np.float64))
    raise ValueError(f"{who}: unknown transform {kind!r}; choose one of {list(TRANSFORM_WORDS)}.")


def finish(ds, plan, who: str):
    """The plan's last steps on a read dataset: the value transform, classes smaller than
    ``min_class_size`` left out, and the plan itself in ``meta["plan"]`` (verbatim)."""
    from fsviz.data.dataset import Dataset

    if plan.transform != "none":
        X = transform_values(ds.X, plan.transform, who)
        if not sp.issparse(X):
            X.setflags(write=False)
        meta = dict(ds.meta)
        meta["transform"] = plan.transform
        meta["notes"] = list(meta.get("notes") or []) + [
            f"values transformed: {TRANSFORM_WORDS[plan.transform]}"
        ]
        ds = Dataset(
            X,
            y=ds.y,
            feature_names=ds.feature_names,
            image_shape=None,
            name=ds.name,
            class_names=ds.class_names,
            description=ds.description,
            truth=ds.truth,
            meta=meta,
            sample_names=ds.sample_names,
        )
    if plan.min_class_size > 1 and ds.is_classification:
        ds = ds.drop_small_classes(int(plan.min_class_size))
    ds.meta["plan"] = plan.to_dict()
    return ds
