"""NumPy .npz archives (dense or scipy.sparse members): reader and writer."""

from __future__ import annotations

import json
import math
import os
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from fsviz.data.budget import (
    dense_bytes,
    format_bytes,
    sparse_bytes,
)
from fsviz.data.formats.registry import Reader
from fsviz.data.formats.source import (
    Source,
    meta_for,
    parse_error,
    readonly,
    restore_feature_info,
    suffixes_of,
)
from fsviz.data.formats.writer_registry import Writer

if TYPE_CHECKING:
    from fsviz.data.dataset import Dataset

_NPZ_Y_KEYS = ("y", "Y", "label", "labels", "target")


def _npz_str_array(z, key: str) -> np.ndarray:
    a = z[key]
    if a.dtype.kind in "US":
        return np.array([str(v) for v in a.ravel()], dtype=object)
    raise ValueError(f"'{key}' must be an array of strings; got dtype {a.dtype}")


def _load_npz(src: Source, label) -> dict:
    import zipfile

    who = f"load_dataset: {src.label}"
    head = src.head(8)
    if head.startswith(b"\x93NUMPY"):
        raise ValueError(
            f"{who} is a single .npy array, not an .npz archive. Fix: save it with np.savez(path, X=X, y=y)."
        )
    if not head.startswith(b"PK"):
        raise parse_error(
            src,
            ".npz",
            ValueError("not a zip archive (no 'PK' signature)"),
            "save it with np.savez / np.savez_compressed (keys X, y, feature_names) or "
            "scipy.sparse.save_npz.",
        )
    _npz_check_sizes(src)
    try:
        z = np.load(src.handle(), allow_pickle=False)
    except ValueError as e:
        if "pickle" in str(e).lower():
            raise ValueError(
                f"{who} holds object arrays, which are not loaded (allow_pickle=False, for safety). "
                "Fix: save names as string arrays, e.g. np.array(names, dtype=str)."
            ) from e
        raise parse_error(
            src,
            ".npz",
            e,
            "save it with np.savez / np.savez_compressed (keys X, y, "
            "feature_names) or scipy.sparse.save_npz.",
        ) from e
    except Exception as e:
        raise parse_error(
            src,
            ".npz",
            e,
            "save it with np.savez / np.savez_compressed (keys X, y, "
            "feature_names) or scipy.sparse.save_npz.",
        ) from e
    if not hasattr(z, "files"):
        raise ValueError(
            f"{who} is a single .npy array, not an .npz archive. Fix: save it with np.savez(path, X=X, y=y)."
        )
    try:
        keys = list(z.files)
        meta = {}
        if "fsviz_meta" in keys:
            meta = json.loads(bytes(z["fsviz_meta"].astype(np.uint8)).decode("utf-8"))
        if "X" in keys:
            X = np.asarray(z["X"])
            if X.ndim != 2:
                raise ValueError(f"{who}: X must be 2-D (samples x features); got shape {X.shape}.")
            if X.dtype.kind not in "biuf":
                raise ValueError(f"{who}: X must be numeric; got dtype {X.dtype}.")
            X = readonly(np.ascontiguousarray(X, dtype=np.float64))
        elif {"X_data", "X_indices", "X_indptr", "X_shape", "X_format"} <= set(keys):
            X = _sparse_from(z, "X_", who)
        elif {"data", "shape", "format"} <= set(keys):
            X = _sparse_from(z, "", who)
        else:
            raise ValueError(
                f"{who}: no feature matrix; arrays are {keys}. Fix: save the features as 'X' "
                "(np.savez(path, X=X, y=y)) or save a sparse matrix with scipy.sparse.save_npz."
            )
        y = None
        ykey = None
        if label == "auto":
            ykey = meta.get("label_key", next((k for k in _NPZ_Y_KEYS if k in keys), None))
        elif label is not None:
            if label not in keys:
                raise ValueError(
                    f"load_dataset: label array {label!r} not found in {src.label}; arrays are "
                    f"{keys}. Fix: pass label= one of them, or label=None."
                )
            ykey = label
        if ykey is not None:
            y = np.asarray(z[ykey])
            if y.ndim == 2 and 1 in y.shape:
                y = y.ravel()
            if y.ndim != 1:
                raise ValueError(f"{who}: labels {ykey!r} must be 1-D; got shape {y.shape}.")
            if y.dtype.kind in "US":
                y = y.astype(object)
        names = None
        if "feature_names" in meta:
            names = np.array(meta["feature_names"], dtype=object)
        elif "feature_names" in keys:
            names = _npz_str_array(z, "feature_names")
        parts = {
            "X": X,
            "y": y,
            "feature_names": names,
            "names_are_default": names is None,
            "label_column": ykey,
            "format": "npz",
        }
        if "class_names" in meta and y is not None:
            parts["class_names"] = meta["class_names"]
        elif "class_names" in keys and y is not None:
            parts["class_names"] = _npz_str_array(z, "class_names")
        if meta.get("image_shape"):
            parts["image_shape"] = tuple(meta["image_shape"])
        elif "image_shape" in keys:
            parts["image_shape"] = tuple(int(v) for v in np.asarray(z["image_shape"]).ravel())
        if meta.get("name"):
            parts["name"] = meta["name"]
        if meta.get("sample_names") is not None:
            parts["sample_names"] = np.array(meta["sample_names"], dtype=object)
        elif "sample_names" in keys:
            parts["sample_names"] = _npz_str_array(z, "sample_names")
        return restore_feature_info(parts, meta, who)
    except ValueError as e:
        if "pickle" in str(e).lower() and not str(e).startswith("load_dataset"):
            raise ValueError(
                f"{who} holds object arrays, which are not loaded (allow_pickle=False, for safety). "
                "Fix: save names and labels as string arrays, e.g. np.array(names, dtype=str)."
            ) from e
        raise
    except (zipfile.BadZipFile, OSError, KeyError, EOFError, TypeError) as e:
        raise parse_error(src, ".npz", e, "the archive is damaged; re-save it.") from e
    finally:
        z.close()


def _npy_member(zf, info):
    """``(shape, dtype)`` from the header of an .npy member of a zip, or None if unreadable."""
    from numpy.lib import format as npf

    try:
        with zf.open(info) as fh:
            version = npf.read_magic(fh)
            reader = npf.read_array_header_1_0 if version == (1, 0) else npf.read_array_header_2_0
            shape, _, dtype = reader(fh)
        return tuple(int(v) for v in shape), np.dtype(dtype)
    except Exception:  # noqa: BLE001 - not an .npy member: np.load reports it
        return None


def _npz_check_sizes(src: Source) -> None:
    """Refuse an .npz whose arrays (from their .npy headers, not decompressed) exceed the budget."""
    import zipfile

    if not src.budget:
        return
    try:
        zf = zipfile.ZipFile(src.handle())
    except Exception:  # noqa: BLE001 - np.load says what is wrong
        return
    with zf:
        headers = {}
        total = 0
        for info in zf.infolist():
            key = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
            head = _npy_member(zf, info)
            if head is None:
                total += int(info.file_size)  # the decompressed size the archive declares
                continue
            headers[key] = head
            shape, dtype = head
            if not dtype.hasobject:
                total += math.prod(shape) * dtype.itemsize
        what = f"the arrays in the archive ({format_bytes(total)} decompressed)"
        for prefix in ("X_", ""):
            if prefix + "shape" in headers and prefix + "data" in headers:
                shape_head = headers[prefix + "shape"]
                if math.prod(shape_head[0]) != 2 or shape_head[1].kind not in "iu":
                    break
                with zf.open(prefix + "shape.npy") as fh:
                    n, m = (int(v) for v in np.lib.format.read_array(fh, allow_pickle=False).ravel())
                nnz = math.prod(headers[prefix + "data"][0])
                total += sparse_bytes(n, m, nnz)
                what = f"a sparse {n:,} x {m:,} matrix with {nnz:,} stored values"
                break
        else:
            if "X" in headers and len(headers["X"][0]) == 2:
                (n, m), dtype = headers["X"]
                total += dense_bytes(0, m) + (n * m * 8 if dtype != np.float64 else 0)
                what = f"a dense {n:,} x {m:,} matrix of {dtype} (as float64, with per-feature names)"
        src.check(total, what)


def _sparse_from(z, prefix: str, who: str):
    fmt = z[prefix + "format"]
    fmt = fmt.item() if fmt.ndim == 0 else fmt.ravel()[0]
    fmt = fmt.decode() if isinstance(fmt, bytes) else str(fmt)
    shape = tuple(int(v) for v in np.asarray(z[prefix + "shape"]).ravel())
    data = np.asarray(z[prefix + "data"], dtype=np.float64)
    if fmt in ("csr", "csc"):
        cls = sp.csr_matrix if fmt == "csr" else sp.csc_matrix
        X = cls((data, z[prefix + "indices"], z[prefix + "indptr"]), shape=shape)
        X.check_format(full_check=True)
        return X
    if fmt == "coo":
        return sp.coo_matrix((data, (z[prefix + "row"], z[prefix + "col"])), shape=shape).tocsr()
    raise ValueError(f"{who}: sparse format {fmt!r} is not supported; save CSR, CSC or COO.")


def _write_npz(dataset: Dataset, path_or_buffer) -> None:
    meta = meta_for(dataset)
    meta["feature_names"] = [str(c) for c in dataset.feature_names]
    arrays: dict[str, np.ndarray] = {}
    X = dataset.X
    if sp.issparse(X):
        arrays.update(
            X_format=np.array(X.format),
            X_shape=np.array(X.shape, dtype=np.int64),
            X_data=X.data,
            X_indices=X.indices,
            X_indptr=X.indptr,
        )
    else:
        arrays["X"] = X
    if dataset.y is not None:
        arrays["y"] = dataset.y
        meta["label_key"] = "y"
    else:
        meta["label_key"] = None
    arrays["fsviz_meta"] = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
    if isinstance(path_or_buffer, (str, os.PathLike)):
        with open(path_or_buffer, "wb") as fh:  # keep the exact name (np.savez would append .npz)
            np.savez_compressed(fh, **arrays)
    else:
        np.savez_compressed(path_or_buffer, **arrays)


#: its registration as a writer (:mod:`fsviz.data.formats.writer_registry`)
WRITER = Writer("npz", _write_npz, "NumPy .npz archive", suffixes_of("npz"), feature_info=True, sparse=True)


#: its registration (:mod:`fsviz.data.formats.registry`)
READER = Reader("npz", _load_npz, "NumPy .npz archive", suffixes_of("npz"))
