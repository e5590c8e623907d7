"""LIBSVM / svmlight: reader and writer."""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from fsviz.data.budget import dense_bytes, sparse_bytes
from fsviz.data.formats.registry import Reader
from fsviz.data.formats.source import Source, meta_for, parse_error, suffixes_of, write_bytes
from fsviz.data.names import default_feature_names

if TYPE_CHECKING:
    from fsviz.data.dataset import Dataset

_SVM_HEADER = "fsviz-svmlight"


def _svm_meta(src: Source) -> dict:
    head = src.head(1 << 16)
    if not head.startswith(b"#"):
        return {}
    meta = {}
    data = head if len(head) < (1 << 16) else src.bytes()
    for raw in data.split(b"\n"):
        if not raw.startswith(b"#"):
            break
        line = raw[1:].strip()
        if line.startswith(_SVM_HEADER.encode()):
            try:
                meta = json.loads(line[len(_SVM_HEADER) :].decode("utf-8"))
            except (ValueError, UnicodeDecodeError):
                meta = {}
    return meta


def load_svmlight(src: Source, label) -> dict:
    """The raw parts of a LIBSVM/svmlight file (its labels unless ``label`` is None)."""
    _check_label(src, label)
    return svmlight_parts(src, parse_svmlight(src), label)


def _check_label(src: Source, label) -> None:
    if label not in ("auto", None):
        raise ValueError(
            f"load_dataset: {src.label} is a LIBSVM/svmlight file, whose labels are the first field of "
            f"every line; label must be 'auto' or None, got {label!r}."
        )


def svmlight_parts(src: Source, parsed: dict, label) -> dict:
    """The parsed parts (:func:`parse_svmlight`, labels read) with the labels dropped when
    ``label`` is None; the parsed dict is not modified."""
    _check_label(src, label)
    parts = dict(parsed)
    if label is None:
        parts["y"] = None
        parts.pop("class_names", None)
    return parts


def parse_svmlight(src: Source) -> dict:
    """A LIBSVM/svmlight file parsed once, its labels (the first field of each line) read."""
    from sklearn.datasets import load_svmlight_file

    label = "auto"
    meta = _svm_meta(src)
    zero_based = meta.get("zero_based", "auto")
    n_features = meta.get("n_features")
    if n_features is not None:
        if isinstance(n_features, bool) or not isinstance(n_features, int) or n_features < 0:
            raise ValueError(
                f"load_dataset: {src.label}: its fsviz header says n_features={n_features!r}; it must be "
                "a count >= 0. Fix: re-export the file, or delete the '# fsviz-svmlight' header line."
            )
        src.check(sparse_bytes(0, n_features, 0), f"a sparse matrix of {n_features:,} features (header)")
    try:
        X, y = load_svmlight_file(
            src.handle(), n_features=n_features, dtype=np.float64, zero_based=zero_based
        )
    except Exception as e:
        raise parse_error(
            src,
            "LIBSVM/svmlight",
            e,
            "every line must read '<label> <index>:<value> ...' with increasing indices.",
        ) from e
    X = X.tocsr()
    storage = meta.get("storage")
    if storage == "dense":  # written from dense data: read back dense (the same fingerprint)
        src.check(dense_bytes(*X.shape), f"a dense {X.shape[0]:,} x {X.shape[1]:,} matrix (header: dense)")
        coo = X.tocoo()
        X = np.zeros(X.shape)
        X[coo.row, coo.col] = coo.data  # assigned, not added: -0.0 keeps its sign
    elif storage == "csc":
        X = X.tocsc()
    if meta.get("n_samples") is not None and int(meta["n_samples"]) != X.shape[0]:
        raise ValueError(
            f"load_dataset: {src.label} is truncated or damaged: its fsviz header says "
            f"{meta['n_samples']} samples but {X.shape[0]} lines were read. Fix: re-export the file."
        )
    has_labels = meta.get("has_labels", True)
    if label is None or not has_labels:
        y = None
    elif meta.get("y_dtype") in ("int64", "int32") and np.all(y == np.round(y)):
        y = y.astype(meta["y_dtype"])  # labels as they were (svmlight stores text)
    names = None
    if meta.get("feature_names_json"):
        names = meta["feature_names_json"]
    parts = {
        "X": X,
        "y": y,
        "feature_names": np.array(names, dtype=object) if names is not None else None,
        "names_are_default": names is None,
        "label_column": None,
        "format": "svmlight",
    }
    if meta.get("class_names") is not None and y is not None:
        parts["class_names"] = meta["class_names"]
    if meta.get("name"):
        parts["name"] = meta["name"]
    if meta.get("sample_names") is not None:
        parts["sample_names"] = np.array(meta["sample_names"], dtype=object)
    return parts


def _write_svmlight(dataset: Dataset, path_or_buffer) -> None:
    if dataset.is_sparse:
        X = dataset.X.tocsr()
    else:  # every value but +0.0 (-0.0 too: its bits must come back)
        dense = np.asarray(dataset.X)
        rows, cols = np.nonzero((dense != 0) | np.signbit(dense))
        X = sp.csr_matrix((dense[rows, cols], (rows, cols)), shape=dense.shape)
    X.sort_indices()
    meta = meta_for(dataset)
    meta.update(
        zero_based=True,
        n_features=int(X.shape[1]),
        n_samples=int(X.shape[0]),
        has_labels=dataset.y is not None,
        storage=dataset.X.format if dataset.is_sparse else "dense",
    )
    if dataset.y is not None:
        meta["y_dtype"] = str(dataset.y.dtype)
    names = dataset.feature_names
    if not np.array_equal(names, default_feature_names(len(names))):
        meta["feature_names_json"] = [str(c) for c in names]
    y = dataset.y if dataset.y is not None else np.zeros(X.shape[0], dtype=np.int64)
    ylist = y.tolist()  # Python repr of floats is the shortest exact round trip
    idx, vals, ip = X.indices.tolist(), X.data.tolist(), X.indptr.tolist()
    lines = [f"# {_SVM_HEADER} {json.dumps(meta)}"]
    for i in range(X.shape[0]):
        a, b = ip[i], ip[i + 1]
        feats = " ".join([f"{j}:{v!r}" for j, v in zip(idx[a:b], vals[a:b], strict=False)])
        lines.append(f"{ylist[i]!r} {feats}" if feats else f"{ylist[i]!r}")
    out = io.StringIO()
    out.write("\n".join(lines) + "\n")
    write_bytes(path_or_buffer, out.getvalue().encode("utf-8"))


#: its registration (:mod:`fsviz.data.formats.registry`)
READER = Reader(
    "svmlight",
    load_svmlight,
    "LIBSVM/svmlight sparse text",
    suffixes_of("svmlight"),
    parse=parse_svmlight,
    assemble=svmlight_parts,
)
