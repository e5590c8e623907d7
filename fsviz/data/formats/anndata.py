"""AnnData ``.h5ad`` files, read with h5py (no anndata import needed): the file reader and the
loader that turns it into a Dataset (no writer: AnnData files are read, not written).

An ``.h5ad`` file is HDF5 with ``X`` (a dense array, or a group holding a CSR/CSC
matrix), ``obs`` (one row per sample: a dataframe whose columns are the target
candidates, index ``obs_names``) and ``var`` (one row per feature, index
``var_names``). This reader follows AnnData's on-disk specification (encoding types
``array``, ``csr_matrix``, ``csc_matrix``, ``dataframe``, ``categorical``,
``string-array``, ``nullable-*``) and the older layout (categories in
``__categories``).
"""

from __future__ import annotations

import io
import os
from typing import Any

import numpy as np
import scipy.sparse as sp

from fsviz.data.budget import dense_bytes
from fsviz.data.formats._source import _parse_error, _Source
from fsviz.data.validation import names_preview


def _open(path_or_buffer: Any):
    import h5py

    if isinstance(path_or_buffer, (str, os.PathLike)):
        return h5py.File(os.fspath(path_or_buffer), "r")
    if isinstance(path_or_buffer, (bytes, bytearray, memoryview)):
        return h5py.File(io.BytesIO(bytes(path_or_buffer)), "r")
    return h5py.File(path_or_buffer, "r")


def is_h5ad(h5file) -> bool:
    """True when an open HDF5 file has AnnData's ``X`` and ``obs``/``var``."""
    return "X" in h5file and ("obs" in h5file or "var" in h5file)


def _attr(obj, key: str, default=None):
    v = obj.attrs.get(key, default)
    if isinstance(v, bytes):
        v = v.decode("utf-8")
    return v


def _strings(ds) -> np.ndarray:
    raw = ds[()]
    if raw.dtype.kind in "SO":
        return np.array(
            [v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in raw.ravel()], dtype=object
        )
    return np.asarray(raw).astype(str).astype(object)


def _column(grp, key: str, old_categories=None) -> np.ndarray:
    """One dataframe column of obs/var as a numpy array (object for text/categorical)."""
    import h5py

    item = grp[key]
    enc = _attr(item, "encoding-type", "")
    if isinstance(item, h5py.Group):
        if enc == "categorical":
            cats = (
                _strings(item["categories"])
                if _attr(item["categories"], "encoding-type") == "string-array"
                else item["categories"][()]
            )
            cats = np.asarray(cats, dtype=object)
            codes = item["codes"][()].astype(np.int64)
            out = np.empty(len(codes), dtype=object)
            ok = codes >= 0
            out[ok] = cats[codes[ok]]
            out[~ok] = None
            return out
        if enc.startswith("nullable"):
            values = item["values"][()]
            mask = item["mask"][()].astype(bool)
            out = values.astype(object if enc == "nullable-string-array" else np.float64)
            if enc == "nullable-string-array":
                out = np.array([v.decode() if isinstance(v, bytes) else v for v in out], dtype=object)
            out[mask] = None if out.dtype == object else np.nan
            return out
        raise ValueError(f"unsupported obs column encoding {enc!r}")
    if enc == "string-array" or item.dtype.kind in "SO":
        return _strings(item)
    values = item[()]
    if old_categories is not None and key in old_categories:  # anndata < 0.8: codes + __categories
        cats = _strings(old_categories[key])
        codes = values.astype(np.int64)
        out = np.empty(len(codes), dtype=object)
        ok = codes >= 0
        out[ok] = cats[codes[ok]]
        out[~ok] = None
        return out
    return values


def _frame(grp):
    """A dataframe group -> (pandas DataFrame, index as object array)."""
    import pandas as pd

    index_key = _attr(grp, "_index", "_index")
    index = _strings(grp[index_key]) if index_key in grp else None
    order = _attr(grp, "column-order", None)
    if order is None:
        order = [k for k in grp.keys() if k not in (index_key, "__categories")]
    order = [o.decode() if isinstance(o, bytes) else str(o) for o in np.asarray(order).ravel()]
    old = grp["__categories"] if "__categories" in grp else None
    cols = {k: _column(grp, k, old) for k in order if k in grp}
    frame = pd.DataFrame(cols)
    return frame, index


def _matrix(item, who: str):
    """X as a dense float64 ndarray or a CSR/CSC matrix."""
    import h5py

    if isinstance(item, h5py.Dataset):
        return np.asarray(item[()], dtype=np.float64)
    enc = _attr(item, "encoding-type", _attr(item, "h5sparse_format", ""))
    shape = tuple(int(v) for v in item.attrs.get("shape", item.attrs.get("h5sparse_shape")))
    data = np.asarray(item["data"][()], dtype=np.float64)
    indices, indptr = item["indices"][()], item["indptr"][()]
    if enc in ("csr_matrix", "csr"):
        return sp.csr_matrix((data, indices, indptr), shape=shape)
    if enc in ("csc_matrix", "csc"):
        return sp.csc_matrix((data, indices, indptr), shape=shape)
    raise ValueError(f"{who}: X is stored as {enc!r}, which this reader does not know (expected CSR or CSC).")


def read_h5ad_obs(path_or_buffer: Any, who: str) -> dict:
    """The cheap part of an .h5ad: ``obs`` (DataFrame), obs/var names, X's shape and storage."""
    with _open(path_or_buffer) as f:
        if not is_h5ad(f):
            raise ValueError(
                f"{who}: this HDF5 file has no AnnData 'X' and 'obs'/'var' (keys: {sorted(f.keys())[:10]}). "
                "Fix: save it with anndata (adata.write_h5ad), or export X and the labels as .npz or CSV."
            )
        obs, obs_names = _frame(f["obs"]) if "obs" in f else (None, None)
        _, var_names = _frame(f["var"]) if "var" in f else (None, None)
        X = f["X"]
        shape = tuple(int(v) for v in (X.shape if hasattr(X, "shape") else X.attrs["shape"]))
        storage = "dense" if not hasattr(X, "keys") else str(_attr(X, "encoding-type", "sparse"))
    return {"obs": obs, "obs_names": obs_names, "var_names": var_names, "shape": shape, "storage": storage}


def read_h5ad(path_or_buffer: Any, who: str) -> dict:
    """Everything :func:`~fsviz.data.load_dataset` needs: X, obs, obs_names, var_names."""
    head = read_h5ad_obs(path_or_buffer, who)
    with _open(path_or_buffer) as f:
        head["X"] = _matrix(f["X"], who)
    return head


def _load_h5ad(src: _Source, label) -> dict:
    """AnnData: X (sparse kept), var_names as feature names, obs_names as sample names,
    the label an obs column."""
    import pandas as pd

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
