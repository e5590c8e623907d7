"""AnnData ``.h5ad`` files, read with h5py: the file reader and the loader that turns it into a
Dataset (no writer: AnnData files are read, not written).

An ``.h5ad`` file is HDF5 with ``X`` (a dense array, or a group holding a CSR/CSC
matrix), ``obs`` (one row per sample: a dataframe whose columns are the target
candidates, index ``obs_names``) and ``var`` (one row per feature, index
``var_names``), and optionally ``layers/<name>`` (matrices shaped like ``X``) and
``raw`` (``raw/X`` with its own ``raw/var``). This reader follows AnnData's on-disk
specification (encoding types ``array``, ``csr_matrix``, ``csc_matrix``, ``dataframe``,
``categorical``, ``string-array``, ``nullable-*``) and the older layout (categories in
``__categories``). The maintained ``anndata`` package is not used: its releases for
Python 3.11 pin pandas < 3.

Every file is first checked by :func:`~fsviz.data.formats._hdf5.check_hdf5`: nothing in it
may point outside it (external links, external storage, virtual datasets), and the bytes
its datasets declare are checked against the memory budget before anything is read.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from fsviz.data.budget import check_memory, format_bytes, sparse_bytes
from fsviz.data.formats._hdf5 import check_hdf5, open_hdf5
from fsviz.data.formats.registry import Reader
from fsviz.data.formats.source import Source, parse_error, suffixes_of
from fsviz.data.validation import names_preview

__all__ = ["read_h5ad", "read_h5ad_obs"]

_FIX = "save it again with anndata (adata.write_h5ad)."


def is_h5ad(h5file) -> bool:
    """True when an open HDF5 file has AnnData's ``X`` and ``obs``/``var`` (links are not followed)."""
    keys = set(h5file.keys())
    return "X" in keys and bool(keys & {"obs", "var"})


def _attr(obj, key: str, default=None):
    v = obj.attrs.get(key, default)
    if isinstance(v, bytes):
        v = v.decode("utf-8")
    return v


def _strings(ds) -> np.ndarray:
    raw = ds[()]
    if raw.dtype.kind in "SO":
        return np.array(
            [v.decode("utf-8", errors="replace") if isinstance(v, bytes) else str(v) for v in raw.ravel()],
            dtype=object,
        )
    return np.asarray(raw).astype(str).astype(object)


def _decode_codes(cats: np.ndarray, codes: np.ndarray, who: str, key: str) -> np.ndarray:
    codes = np.asarray(codes).astype(np.int64)
    if codes.size and codes.max(initial=-1) >= len(cats):
        raise ValueError(
            f"{who}: categorical column {key!r} has codes beyond its {len(cats)} categories. Fix: {_FIX}"
        )
    out = np.empty(len(codes), dtype=object)
    ok = codes >= 0
    out[ok] = cats[codes[ok]]
    out[~ok] = None
    return out


def _column(grp, key: str, who: str, old_categories=None) -> np.ndarray:
    """One dataframe column of obs/var as a numpy array (object for text/categorical)."""
    import h5py

    item = grp[key]
    enc = _attr(item, "encoding-type", "")
    if isinstance(item, h5py.Group):
        if enc == "categorical":
            cats = (
                _strings(item["categories"])
                if _attr(item["categories"], "encoding-type") == "string-array"
                or item["categories"].dtype.kind in "SO"
                else item["categories"][()]
            )
            return _decode_codes(np.asarray(cats, dtype=object), item["codes"][()], who, key)
        if enc.startswith("nullable"):
            values = item["values"][()]
            mask = item["mask"][()].astype(bool)
            out = values.astype(object if enc == "nullable-string-array" else np.float64)
            if enc == "nullable-string-array":
                out = np.array([v.decode() if isinstance(v, bytes) else v for v in out], dtype=object)
            out[mask] = None if out.dtype == object else np.nan
            return out
        raise ValueError(
            f"{who}: obs/var column {key!r} has an encoding this reader does not know ({enc!r})."
        )
    if enc == "string-array" or item.dtype.kind in "SO":
        return _strings(item)
    values = item[()]
    if old_categories is not None and key in old_categories:  # anndata < 0.8: codes + __categories
        return _decode_codes(_strings(old_categories[key]), values, who, key)
    return values


def _frame(grp, who: str):
    """A dataframe group -> (pandas DataFrame, index as object array)."""
    import pandas as pd

    index_key = _attr(grp, "_index", "_index")
    index = _strings(grp[index_key]) if index_key in grp else None
    order = _attr(grp, "column-order", None)
    if order is None:
        order = [k for k in grp.keys() if k not in (index_key, "__categories")]
    order = [o.decode() if isinstance(o, bytes) else str(o) for o in np.asarray(order).ravel()]
    old = grp["__categories"] if "__categories" in grp else None
    cols = {k: _column(grp, k, who, old) for k in order if k in grp}
    lengths = {k: len(v) for k, v in cols.items()}
    if index is not None:
        lengths["(index)"] = len(index)
    if len(set(lengths.values())) > 1:
        raise ValueError(f"{who}: the columns of '{grp.name}' differ in length {lengths}. Fix: {_FIX}")
    frame = pd.DataFrame(cols)
    return frame, index


def _matrix_key(matrix: str) -> tuple[str, str]:
    """(matrix path, var path) for ``matrix`` = "X", "raw" or "layers/<name>"."""
    if matrix == "raw":
        return "raw/X", "raw/var"
    return matrix, "var"


def _shape_of(item) -> tuple[int, ...]:
    if hasattr(item, "shape") and not hasattr(item, "keys"):
        return tuple(int(v) for v in item.shape)
    shape = item.attrs.get("shape", item.attrs.get("h5sparse_shape"))
    if shape is None:
        raise ValueError("a sparse matrix group without a 'shape' attribute")
    return tuple(int(v) for v in np.asarray(shape).ravel())


def _storage(item) -> str:
    return "dense" if not hasattr(item, "keys") else str(_attr(item, "encoding-type", "sparse"))


def _length(ds) -> int:
    return int(ds.shape[0]) if ds.shape else 0


def _check_matrix(item, path: str, sizes: dict, budget: int, who: str) -> None:
    """The declared parts of the matrix at ``path`` agree with each other and fit the budget."""
    shape = _shape_of(item)
    if len(shape) != 2 or min(shape) < 0:
        raise ValueError(
            f"{who}: '{path}' must be 2-D (cells x genes); it declares shape {shape}. Fix: {_FIX}"
        )
    n, m = shape
    if not hasattr(item, "keys"):
        if item.dtype.kind not in "biuf":
            raise ValueError(
                f"{who}: '{path}' holds {'text' if item.dtype.kind in 'SOU' else item.dtype} values, "
                "not numbers (an expression matrix must be numeric). Fix: store the numeric matrix as X "
                "and keep text in obs/var columns."
            )
        check_memory(n * m * 8 + 128 * m, f"'{path}', a dense {n:,} x {m:,} matrix", budget, who=who)
        return
    enc = _storage(item)
    parts = {k: item[k] for k in ("data", "indices", "indptr") if k in item}
    if len(parts) < 3:
        raise ValueError(
            f"{who}: the sparse '{path}' lacks {sorted({'data', 'indices', 'indptr'} - set(parts))}. "
            f"Fix: {_FIX}"
        )
    if enc not in ("csr_matrix", "csr", "csc_matrix", "csc"):
        raise ValueError(
            f"{who}: '{path}' is stored as {enc!r}, which this reader does not know (expected CSR or CSC)."
        )
    nnz = _length(parts["data"])
    major = n if enc.startswith("csr") else m
    if parts["indices"].shape != parts["data"].shape or parts["indptr"].shape != (major + 1,):
        raise ValueError(
            f"{who}: the sparse '{path}' of shape {n:,} x {m:,} declares {nnz:,} values, "
            f"{_length(parts['indices']):,} indices and {_length(parts['indptr']):,} row pointers "
            f"(expected {major + 1:,}); they must agree. Fix: {_FIX}"
        )
    if parts["data"].dtype.kind not in "biuf":
        raise ValueError(f"{who}: the values of '{path}' are {parts['data'].dtype}, not numbers. Fix: {_FIX}")
    need = sparse_bytes(n, m, nnz) + sum(sizes.get(f"{path}/{k}", 0) for k in ("indices", "indptr"))
    check_memory(need, f"'{path}', a sparse {n:,} x {m:,} matrix with {nnz:,} values", budget, who=who)


def _read_matrix(item):
    import h5py

    if isinstance(item, h5py.Dataset):
        return np.asarray(item[()], dtype=np.float64)
    enc = _storage(item)
    shape = _shape_of(item)
    data = np.asarray(item["data"][()], dtype=np.float64)
    indices, indptr = item["indices"][()], item["indptr"][()]
    cls = sp.csr_matrix if enc in ("csr_matrix", "csr") else sp.csc_matrix
    return cls((data, indices, indptr), shape=shape)


def _annotations_bytes(sizes: dict, groups: tuple) -> int:
    return sum(v for k, v in sizes.items() if any(k == g or k.startswith(g + "/") for g in groups))


def read_h5ad(
    path_or_buffer: Any,
    who: str,
    *,
    matrix: str = "X",
    with_matrix: bool = True,
    allow_external: bool = False,
    budget: int = 0,
) -> dict:
    """An .h5ad file's parts: ``obs`` (DataFrame or None), ``obs_names``, ``var`` (DataFrame or
    None), ``var_names``, ``shape``, ``storage``, ``layers`` (names), ``has_raw`` and, with
    ``with_matrix``, ``X`` (dense float64 or CSR/CSC; sparse stays sparse).

    Parameters
    ----------
    path_or_buffer : str, Path, bytes or binary file-like
    who : str
        Names the caller and the file in messages.
    matrix : str, default="X"
        ``"X"``, ``"raw"`` (``raw/X`` with ``raw/var``'s names) or ``"layers/<name>"``.
    with_matrix : bool, default=True
        False reads the annotations only (a preview).
    allow_external : bool, default=False
        See :func:`~fsviz.data.formats._hdf5.check_hdf5`.
    budget : int, default=0
        Bytes the parts read may declare (0: no limit); checked before reading.

    Raises
    ------
    ValueError
        Not AnnData, a file that points outside itself, declared sizes over the budget,
        parts that disagree, a matrix of text.
    """
    with open_hdf5(path_or_buffer) as f:
        sizes = check_hdf5(f, who, allow_external=allow_external)
        if not is_h5ad(f):
            raise ValueError(
                f"{who}: this HDF5 file has no AnnData 'X' and 'obs'/'var' (keys: {sorted(f.keys())[:10]}). "
                "Fix: save it with anndata (adata.write_h5ad), or export X and the labels as .npz or CSV."
            )
        layers = sorted(f["layers"].keys()) if "layers" in f and hasattr(f["layers"], "keys") else []
        has_raw = "raw" in f and "X" in f["raw"]
        mpath, vpath = _matrix_key(matrix)
        if matrix.startswith("layers/") and matrix.removeprefix("layers/") not in layers:
            raise ValueError(
                f"{who}: no layer {matrix.removeprefix('layers/')!r}; the layers are {layers}. "
                "Fix: choose one of them, or X."
            )
        if matrix == "raw" and not has_raw:
            raise ValueError(f"{who}: the file has no raw matrix (raw/X). Fix: read X or a layer.")
        if mpath not in f:
            raise ValueError(f"{who}: no matrix {mpath!r} in the file. Fix: read X.")
        item = f[mpath]
        shape = _shape_of(item)
        if len(shape) != 2:
            raise ValueError(
                f"{who}: '{mpath}' must be 2-D (cells x genes); it declares shape {shape}. Fix: {_FIX}"
            )
        n, m = shape
        annotations = _annotations_bytes(sizes, ("obs", vpath))
        check_memory(
            annotations, f"the obs and var tables ({format_bytes(annotations)} declared)", budget, who=who
        )
        if with_matrix:
            _check_matrix(item, mpath, sizes, max(budget - annotations, 1) if budget else 0, who)
        obs, obs_names = _frame(f["obs"], who) if "obs" in f else (None, None)
        var, var_names = _frame(f[vpath], who) if vpath in f else (None, None)
        for what, names, want in (("obs", obs_names, n), (vpath, var_names, m)):
            if names is not None and len(names) != want:
                raise ValueError(
                    f"{who}: '{what}' names {len(names):,} rows but '{mpath}' is {n:,} x {m:,}. Fix: {_FIX}"
                )
        out = {
            "obs": obs,
            "obs_names": obs_names,
            "var": var,
            "var_names": var_names,
            "shape": (n, m),
            "storage": _storage(item),
            "layers": layers,
            "has_raw": bool(has_raw),
            "matrix": matrix,
        }
        if with_matrix:
            out["X"] = _read_matrix(item)
        else:  # a look at the values: counts (whole numbers >= 0, up to 50 or more) or not
            from fsviz.data.transforms import looks_like_counts

            part = item["data"] if hasattr(item, "keys") else item
            sample = np.asarray(part[: min(len(part), 200)] if part.shape else part[()], dtype=np.float64)
            out["counts"] = looks_like_counts(sample.ravel()[:200_000])
    return out


def read_h5ad_obs(path_or_buffer: Any, who: str, **kwargs) -> dict:
    """The cheap part of an .h5ad: :func:`read_h5ad` without the matrix."""
    return read_h5ad(path_or_buffer, who, with_matrix=False, **kwargs)


def read_h5ad_safely(src: Source, who: str, **kwargs) -> dict:
    """:func:`read_h5ad` of ``src`` with its budget, in the sandbox child when ``src.sandbox``
    (HDF5 is C: a damaged file can crash it), every failure a ValueError naming the file."""
    from fsviz.data.sandbox import ChildCrashed, child_memory_limit, run_isolated

    kwargs = {"allow_external": bool(getattr(src, "allow_external", False)), "budget": src.budget, **kwargs}
    try:
        if src.sandbox:
            data = src.path if src.path is not None else src.bytes()
            limit = child_memory_limit(src.budget)
            return run_isolated(_read_h5ad_kw, data, who, kwargs, who=who, memory_limit=limit)
        return read_h5ad(src.handle(), who, **kwargs)
    except ValueError:
        raise
    except ChildCrashed as e:
        raise ValueError(f"{e} The file is damaged or too large for this server. Fix: {_FIX}") from None
    except MemoryError as e:
        from fsviz.data.budget import out_of_memory

        raise out_of_memory(who, e) from None
    except Exception as e:  # noqa: BLE001 - h5py's own errors on damaged files
        raise parse_error(src, "AnnData .h5ad", e, _FIX) from e


def _read_h5ad_kw(data, who: str, kwargs: dict) -> dict:
    """:func:`read_h5ad` with keyword arguments (a picklable module-level call for the child)."""
    return read_h5ad(data, who, **kwargs)


def _plain(v):
    if v is None or (isinstance(v, float) and v != v):
        return None
    if isinstance(v, (np.integer, np.floating)):
        return v.item()
    return v if isinstance(v, (int, float, str)) else str(v)


def parse_h5ad(src: Source) -> dict:
    """An .h5ad file parsed once (:func:`read_h5ad_safely`: X, obs, var and their names)."""
    return read_h5ad_safely(src, f"load_dataset: {src.label}", matrix=getattr(src, "matrix", "X") or "X")


def _load_h5ad(src: Source, label) -> dict:
    return assemble_h5ad(src, parse_h5ad(src), label)


def assemble_h5ad(src: Source, parts: dict, label) -> dict:
    """AnnData: X (sparse kept), var_names as feature names, obs_names as sample names,
    the label an obs column; ``parts`` (:func:`parse_h5ad`) is not modified."""
    import pandas as pd

    from fsviz.data.roles import infer_column_roles

    n, _ = parts["shape"]
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
    names = parts["var_names"]
    chosen = getattr(src, "var_names", None)
    if chosen is not None:
        var = parts.get("var")
        if var is None or chosen not in var.columns:
            have = [] if var is None else [str(c) for c in var.columns]
            raise ValueError(
                f"load_dataset: {src.label}: no var column {chosen!r} to name the features; var columns are "
                f"{names_preview(have, 20)}. Fix: choose one of them, or the var index (var_names=None)."
            )
        names = np.array(
            ["" if v is None else str(v) for v in var[chosen].to_numpy(dtype=object)], dtype=object
        )
        notes.append(f"features named by var column {chosen!r}")
    if parts.get("matrix", "X") != "X":
        notes.append(f"values from {parts['matrix']!r} (not X)")
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
        others = [c for c in obs.columns if c != label_column][:50]
        kept = samples if label_column is None else samples  # rows dropped above are gone from both
        rows = obs if label_column is None else obs[~obs[label_column].isna()]
        meta["sample_annotations"] = {
            str(c): {str(s): _plain(v) for s, v in zip(kept.tolist(), rows[c].tolist(), strict=True)}
            for c in others
        }
    return {
        "X": X.tocsc() if sp.issparse(X) and X.format == "csc" else X,
        "y": y,
        "feature_names": names,
        "label_column": label_column,
        "format": "h5ad",
        "sample_names": samples,
        "table_meta": meta,
        "notes": notes,
        # var's columns (gene symbols, descriptions): Dataset.feature_info (fsviz.data.feature_info)
        "feature_table": parts.get("var") if chosen is None else None,
    }


#: its registration (:mod:`fsviz.data.formats.registry`); HDF5 is read in the sandbox child itself
READER = Reader(
    "h5ad",
    _load_h5ad,
    "AnnData .h5ad file",
    suffixes_of("h5ad"),
    isolates_itself=True,
    parse=parse_h5ad,
    assemble=assemble_h5ad,
)
