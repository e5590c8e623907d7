"""AnnData ``.h5ad`` files read with h5py (no anndata import needed).

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

__all__ = ["is_h5ad", "read_h5ad_obs", "read_h5ad"]


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
