"""AnnData ``.h5ad`` files (read through h5py, see :mod:`fsviz.data.h5ad`)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from fsviz.data.budget import (
    dense_bytes,
)
from fsviz.data.formats._source import _parse_error, _Source
from fsviz.data.validation import names_preview


def _load_h5ad(src: _Source, label) -> dict:
    """AnnData: X (sparse kept), var_names as feature names, obs_names as sample names,
    the label an obs column."""
    import pandas as pd

    from fsviz.data.h5ad import read_h5ad, read_h5ad_obs
    from fsviz.data.roles import infer_column_roles

    who = f"load_dataset: {src.label}"
    try:
        head = read_h5ad_obs(src.handle(), who)
    except ValueError:
        raise
    except Exception as e:
        raise _parse_error(src, "AnnData .h5ad", e, "save it again with anndata (adata.write_h5ad).") from e
    n, m = head["shape"]
    src.check(dense_bytes(n, m) if head["storage"] == "dense" else 0, f"an AnnData X of {n:,} x {m:,}")
    try:
        parts = read_h5ad(src.handle(), who)
    except ValueError:
        raise
    except Exception as e:
        raise _parse_error(src, "AnnData .h5ad", e, "save it again with anndata (adata.write_h5ad).") from e
    obs = parts["obs"] if parts["obs"] is not None else pd.DataFrame(index=range(n))
    y, label_column = None, None
    if label is not None and obs.shape[1]:
        if label == "auto":
            roles = infer_column_roles(obs.reset_index(drop=True), "auto", id_columns="auto")
            label_column = next((r.name for r in roles if r.role == "target"), None)
        else:
            if isinstance(label, (int, np.integer)) and not isinstance(label, bool):
                label = str(obs.columns[int(label)])
            if label not in obs.columns:
                raise ValueError(
                    f"load_dataset: label column {label!r} not found in obs; obs columns are "
                    f"{names_preview([str(c) for c in obs.columns], 20)}. Fix: pass label= one of them, or "
                    "label=None."
                )
            label_column = str(label)
    elif label not in (None, "auto"):
        raise ValueError(f"load_dataset: label column {label!r} not found: {src.label} has no obs columns.")
    X = parts["X"]
    samples = parts["obs_names"]
    notes, meta = [], {"obs_columns": [str(c) for c in obs.columns]}
    if label_column is not None:
        col = obs[label_column]
        miss = col.isna().to_numpy()
        if miss.any():
            rows = np.flatnonzero(miss)
            if src.missing_target == "error":
                raise ValueError(
                    f"load_dataset: {src.label}: the target column {label_column!r} has {len(rows)} missing "
                    f"value(s) (rows {names_preview(rows.tolist())}). Fix: drop those rows "
                    '(missing_target="drop"), or choose another obs column.'
                )
            keep = ~miss
            X = X[keep]
            col = col[keep]
            samples = None if samples is None else samples[keep]
            meta["dropped_rows"] = {"reason": f"missing target {label_column!r}", "rows": rows.tolist()}
            notes.append(f"dropped {len(rows)} row(s) without a value in obs column {label_column!r}")
        vals = col.to_numpy()
        y = vals if vals.dtype.kind in "biuf" else np.array([str(v) for v in vals], dtype=object)
    if samples is not None and len(set(samples.tolist())) == len(samples):
        meta["id_column"] = "obs_names"
    return {
        "X": X.tocsc() if sp.issparse(X) and X.format == "csc" else X,
        "y": y,
        "feature_names": parts["var_names"],
        "label_column": label_column,
        "format": "h5ad",
        "sample_names": samples,
        "table_meta": meta,
        "notes": notes,
    }
