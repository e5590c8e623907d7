"""MATLAB .mat files (scikit-feature's layout), read in a child process that may crash safely."""

from __future__ import annotations

import io
import math
import warnings

import numpy as np
import scipy.sparse as sp

from fsviz.data.budget import PER_FEATURE_BYTES
from fsviz.data.formats.registry import Reader
from fsviz.data.formats.source import Source, parse_error, readonly, suffixes_of
from fsviz.data.sandbox import ChildCrashed, child_memory_limit, run_isolated

_MAT_X_KEYS = ("X", "fea", "data")
MAT_Y_KEYS = ("Y", "y", "gnd", "label", "labels", "target")
_MAT73_FIX = (
    "re-save it in MATLAB as version 7 (save(filename, 'X', 'Y', '-v7')) or convert it to "
    ".npz/.parquet (e.g. read it with h5py and np.savez)"
)


def _mat_labels(v, who: str):
    if sp.issparse(v):
        v = v.toarray()
    arr = np.asarray(v)
    if arr.dtype == object:  # cell array of strings
        flat = [np.asarray(e).ravel() for e in arr.ravel()]
        return np.array(
            [
                "".join(map(str, e.tolist()))
                if e.dtype.kind == "U"
                else str(e.item() if e.size == 1 else e.tolist())
                for e in flat
            ],
            dtype=object,
        )
    if arr.dtype.kind == "U":  # char matrix: one row per label
        if arr.ndim == 2 and arr.shape[1] != 1 and arr.shape[0] != 1:
            return np.array([str(r).strip() for r in arr], dtype=object)
        return np.array([str(s).strip() for s in arr.ravel()], dtype=object)
    if arr.ndim == 2 and 1 in arr.shape:
        return arr.ravel()
    if arr.ndim == 1:
        return arr
    raise ValueError(
        f"{who}: the label variable must be a vector (n x 1); got shape {arr.shape}. "
        "Fix: store one label per sample."
    )


def _mat_check_sizes(src: Source) -> None:
    """Refuse a .mat file whose variables (shapes from its headers) exceed the budget."""
    import scipy.io as sio

    if not src.budget:
        return
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            variables = sio.whosmat(src.handle())
    except Exception:  # noqa: BLE001 - loadmat says what is wrong
        return
    total, what = 0, "the variables in the file"
    for name, shape, cls in variables:
        cells = math.prod(int(v) for v in shape)
        if cls == "sparse" and len(shape) == 2:
            total += PER_FEATURE_BYTES * int(shape[1])  # the values count once read
        elif cls not in ("cell", "struct", "object"):
            total += 8 * cells
        if name in _MAT_X_KEYS and len(shape) == 2:
            what = f"{cls} variable {name!r} of shape {shape[0]:,} x {shape[1]:,}"
            total += PER_FEATURE_BYTES * int(shape[1])
    src.check(total, what)


def _loadmat_bytes(data) -> dict:
    """``scipy.io.loadmat`` of a buffer or bytes (module level: runs in a child process too)."""
    import scipy.io as sio

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sio.loadmat(io.BytesIO(data) if isinstance(data, bytes) else data)


def _load_mat(src: Source, label) -> dict:

    who = f"load_dataset: {src.label}"
    head = src.head(1024)
    if (
        head[:19] == b"MATLAB 7.3 MAT-file"
        or head[:8] == b"\x89HDF\r\n\x1a\n"
        or head[512:520] == b"\x89HDF\r\n\x1a\n"
    ):
        raise ValueError(f"{who} is a MATLAB v7.3 (HDF5) file, which scipy cannot read. Fix: {_MAT73_FIX}.")
    _mat_check_sizes(src)
    try:
        if src.sandbox:
            d = run_isolated(
                _loadmat_bytes, src.bytes(), who=who, memory_limit=child_memory_limit(src.budget)
            )
        else:
            d = _loadmat_bytes(src.handle())
    except ChildCrashed as e:
        raise ValueError(
            f"{e} The file is damaged or not a MATLAB .mat file. Fix: re-save it from MATLAB/Octave "
            "(save -v7) or convert it to .npz or CSV."
        ) from None
    except NotImplementedError as e:  # scipy's own v7.3 detection
        raise ValueError(
            f"{who} is a MATLAB v7.3 (HDF5) file, which scipy cannot read. Fix: {_MAT73_FIX}."
        ) from e
    except Exception as e:
        raise parse_error(
            src,
            "a MATLAB .mat file",
            e,
            "check that it is a MATLAB v4-v7 .mat file with variables X (samples x features) and Y (labels).",
        ) from e
    variables = sorted(k for k in d if not k.startswith("__"))
    xkey = next((k for k in _MAT_X_KEYS if k in d), None)
    if xkey is None:
        raise ValueError(
            f"{who}: no feature matrix; variables are {variables}, expected 'X' (samples x features) "
            "as in scikit-feature. Fix: save the features as X (and the labels as Y)."
        )
    X = d[xkey]
    if sp.issparse(X):
        if X.dtype.kind not in "biuf":
            raise ValueError(f"{who}: {xkey} must be numeric; got {X.dtype}.")
        X = X.astype(np.float64).tocsc()
    else:
        X = np.asarray(X)
        if X.dtype.kind not in "biuf":
            raise ValueError(
                f"{who}: {xkey} must be a numeric matrix; got MATLAB class with dtype {X.dtype}. "
                "Fix: store the features as a double/integer matrix."
            )
        if X.ndim != 2:
            raise ValueError(f"{who}: {xkey} must be 2-D (samples x features); got shape {X.shape}.")
        X = readonly(np.ascontiguousarray(X, dtype=np.float64))
    y = None
    ykey = None
    if label == "auto":
        ykey = next((k for k in MAT_Y_KEYS if k in d), None)
    elif label is not None:
        if not isinstance(label, str) or label not in d:
            raise ValueError(
                f"load_dataset: label variable {label!r} not found in {src.label}; variables are "
                f"{variables}. Fix: pass label= one of them, or label=None."
            )
        ykey = label
    if ykey is not None:
        y = _mat_labels(d[ykey], who)
        if len(y) != X.shape[0]:
            hint = (
                " X looks transposed (features x samples): save X' instead." if len(y) == X.shape[1] else ""
            )
            raise ValueError(
                f"{who}: {ykey} has {len(y)} labels but {xkey} has {X.shape[0]} rows (samples); "
                f"they must match.{hint} Fix: store X as samples x features and one label per sample."
            )
    return {
        "X": X,
        "y": y,
        "feature_names": None,
        "names_are_default": True,
        "label_column": ykey,
        "format": "mat",
        "image_order": "F",
    }


#: its registration (:mod:`fsviz.data.formats.registry`); loadmat runs in the sandbox child itself
READER = Reader("mat", _load_mat, "MATLAB .mat file (v4-v7)", suffixes_of("mat"), isolates_itself=True)
