"""The :class:`Dataset` model: validated data plus the content hash every cache keys on."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from numbers import Integral
from typing import Any

import numpy as np
import scipy.sparse as sp

from fsviz.data.columns import (
    as_matrix,
    chunks,
    column_slices,
    constant_columns,
    is_mapped,
    is_mapped_sparse,
    release_map,
)
from fsviz.data.names import default_feature_names, encode_labels, names_json
from fsviz.data.validation import check_finite, names_preview

__all__ = ["Dataset", "DatasetSummary", "default_feature_names", "encode_labels"]

_HASH_VERSION = b"fsviz-dataset-v1"
_DENSE_EXPORT_LIMIT = 200_000_000  # sparse data larger than this (n x m) are not written densely


@dataclass(frozen=True)
class DatasetSummary:
    """What a person wants to know about a dataset first (a plain, frozen record).

    Attributes
    ----------
    name : str
    n_samples, n_features : int
    is_sparse : bool
        Stored as a scipy.sparse matrix.
    nnz : int
        Stored non-zeros (dense: count of non-zero values).
    sparsity : float
        Fraction of entries that are zero.
    n_missing : int
        Missing values filled at load time (``meta["missing"]``, see
        ``load_dataset(missing=...)``); a constructed Dataset holds none (it rejects them).
    has_labels : bool
    label_kind : {"classes", "continuous", None}
    classes : tuple of str
        Class names in code order (empty without class labels).
    class_counts : tuple of int
        Samples per class, aligned with ``classes``.
    n_constant : int
    constant_features : tuple of str
        Names of the constant features.
    is_image : bool
    image_shape : tuple of int or None
    fingerprint : str
    """

    name: str
    n_samples: int
    n_features: int
    is_sparse: bool
    nnz: int
    sparsity: float
    n_missing: int
    has_labels: bool
    label_kind: str | None
    classes: tuple
    class_counts: tuple
    n_constant: int
    constant_features: tuple
    is_image: bool
    image_shape: tuple | None
    fingerprint: str

    def to_dict(self) -> dict:
        """The summary as a plain dict (JSON-serialisable)."""
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


@dataclass(frozen=True, eq=False, repr=False)
class Dataset:
    """A validated dataset: features, optional labels, names, and a content fingerprint.

    Constructing a Dataset normalises and checks its parts once: ``X`` becomes a
    read-only C-contiguous float64 array (or a canonical float64 CSR/CSC matrix,
    kept sparse), string labels are encoded to ints with ``class_names`` kept,
    non-finite values and mismatched lengths raise ``ValueError``, constant
    features are found (kept, listed in ``constant_features``), and the SHA-256
    ``fingerprint`` is computed. The instance is frozen and its arrays are
    read-only, so the fingerprint stays valid: it is the cache key of everything
    computed downstream.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Numeric features. Sparse input stays sparse (COO/LIL/... become CSR).
    y : array-like of shape (n_samples,), default=None
        Labels: ints, reals (a continuous target) or strings (encoded, see
        ``class_names``). None for unlabelled data.
    feature_names : sequence of str, default=None
        Unique names, one per column; default ``f0, f1, ...``.
    image_shape : tuple (height, width), default=None
        For pixel data: ``X[i].reshape(image_shape)`` (C order) is sample ``i`` as an
        upright image. ``height * width`` must equal ``n_features``.
    name : str, default="dataset"
    class_names : sequence of str, default=None
        Display name of each integer class code (``class_names[code]``). Filled
        automatically when ``y`` holds strings; may be given with integer codes
        ``0..k-1``.
    description : str, default=""
    truth : object, default=None
        Ground truth of synthetic data (e.g. :class:`fsviz.data.GroundTruth`).
        Not part of the fingerprint.
    meta : mapping, default=None
        Provenance (source file, format, label column, original column order
        ``source_columns`` when columns were permuted, ``missing``: what
        :func:`~fsviz.data.load_dataset` imputed, ``categorical``: its one-hot blocks,
        ...). Not part of the fingerprint.
    sample_names : sequence of str, default=None
        One name per sample (row), e.g. the identifier column of a table (``id``,
        ``rownames``) that :func:`~fsviz.data.load_dataset` kept out of X. Read-only;
        follows :meth:`subset`; written as the first column by :meth:`to_csv`. Part of
        the fingerprint only when given (datasets without them keep their fingerprint).

    Attributes
    ----------
    fingerprint : str
        ``sha256(version, storage, shape, dtype, feature_names, y, class_names, X)``
        as 64 hex digits; for sparse X the bytes of data/indices/indptr are hashed.
        Name, description, image shape, truth and meta are left out: they do not
        change any result.
    constant_features : ndarray of int
        Indices of the columns whose values are all equal.

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.data import Dataset
    >>> ds = Dataset(np.eye(3), y=["a", "b", "a"], name="tiny")
    >>> ds.y.tolist(), ds.class_names.tolist()
    ([0, 1, 0], ['a', 'b'])
    >>> len(ds.fingerprint)
    64
    """

    X: Any
    y: np.ndarray | None = None
    feature_names: np.ndarray | None = None
    image_shape: tuple | None = None
    name: str = "dataset"
    class_names: np.ndarray | None = None
    description: str = ""
    truth: Any = None
    meta: Mapping = field(default_factory=dict)
    sample_names: np.ndarray | None = None
    fingerprint: str = field(init=False)
    constant_features: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        who = f"Dataset {self.name!r}"
        X = as_matrix(self.X, who)
        if X.ndim != 2:
            raise ValueError(
                f"{who}: X must be 2-D (n_samples, n_features); got shape {X.shape}. "
                "Fix: reshape a single sample with X.reshape(1, -1) or a single feature with "
                "X.reshape(-1, 1)."
            )
        n, m = X.shape
        if n == 0 or m == 0:
            raise ValueError(f"{who}: X must have at least one sample and one feature; got shape {X.shape}.")
        names = self._names(m, who)
        if is_mapped_sparse(X):  # chunk by chunk (the message, if any, from the whole check)
            if not all(np.isfinite(c).all() for c in chunks(X.data)):
                check_finite(X, names, who=who)
        elif not is_mapped(X):
            check_finite(X, names, who=who)
        elif X.dtype.kind == "f":
            for a, b in column_slices(X):
                check_finite(X[:, a:b], names[a:b], who=f"{who} (columns {a}..{b - 1})")
                release_map(X)
        y, class_names = encode_labels(
            self.y, who=who, continuous=(self.meta or {}).get("target_kind") == "continuous"
        )
        if y is not None and len(y) != n:
            raise ValueError(
                f"{who}: y has {len(y)} labels but X has {n} samples; they must match. "
                "Fix: pass one label per row of X (same order)."
            )
        if self.class_names is not None:
            given = np.array(
                [str(c) for c in np.asarray(self.class_names, dtype=object).ravel()], dtype=object
            )
            if class_names is not None:  # y were strings: re-encode in the given order
                lookup = {c: i for i, c in enumerate(given.tolist())}
                missing = sorted(set(class_names.tolist()) - set(lookup))
                if missing:
                    raise ValueError(
                        f"{who}: class_names {names_preview(list(given))} lack the labels "
                        f"{names_preview(missing)} found in y."
                    )
                remap = np.array([lookup[c] for c in class_names.tolist()], dtype=np.int64)
                y = remap[y]
                class_names = given
            else:
                if y is None:
                    raise ValueError(f"{who}: class_names given without labels y.")
                if y.dtype.kind != "i" or (len(y) and (y.min() < 0 or y.max() >= len(given))):
                    raise ValueError(
                        f"{who}: with class_names of length {len(given)}, y must hold integer "
                        f"codes in [0, {len(given) - 1}]; got values in "
                        f"[{y.min()!r}, {y.max()!r}] ({y.dtype})."
                    )
                class_names = given
        if y is not None:
            y.setflags(write=False)
        if class_names is not None:
            class_names.setflags(write=False)
        shape = self._check_image_shape(m, who)
        samples = self._sample_names(n, who)
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "sample_names", samples)
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "feature_names", names)
        object.__setattr__(self, "class_names", class_names)
        object.__setattr__(self, "image_shape", shape)
        object.__setattr__(self, "name", str(self.name))
        object.__setattr__(self, "meta", dict(self.meta or {}))
        const = constant_columns(X)
        const.setflags(write=False)
        object.__setattr__(self, "constant_features", const)
        object.__setattr__(self, "fingerprint", self._hash())

    def __setstate__(self, state: dict) -> None:
        # unpickling (Streamlit caches, Dask workers) gives writable arrays: freeze them again
        state = {"sample_names": None, **state}  # pickled before sample_names existed
        for k, v in state.items():
            object.__setattr__(self, k, v)
        arrays = [self.y, self.feature_names, self.class_names, self.constant_features, self.sample_names]
        arrays += [self.X.data, self.X.indices, self.X.indptr] if sp.issparse(self.X) else [self.X]
        for a in arrays:
            if isinstance(a, np.ndarray) and a.flags.writeable:
                a.setflags(write=False)

    # ------------------------------------------------------------------ construction helpers
    def _names(self, m: int, who: str) -> np.ndarray:
        if self.feature_names is None:
            names = default_feature_names(m)
        else:
            names = np.array(
                [str(v) for v in np.asarray(self.feature_names, dtype=object).ravel()], dtype=object
            )
            if len(names) != m:
                raise ValueError(
                    f"{who}: {len(names)} feature_names for {m} features (columns of X); "
                    "they must match. Fix: give one name per column."
                )
            if len(set(names.tolist())) != m:
                uniq, counts = np.unique(names, return_counts=True)
                raise ValueError(
                    f"{who}: feature names must be unique; duplicated: "
                    f"{names_preview(list(uniq[counts > 1]))}. Fix: rename those columns."
                )
        names.setflags(write=False)
        return names

    def _sample_names(self, n: int, who: str) -> np.ndarray | None:
        if self.sample_names is None:
            return None
        out = np.array([str(v) for v in np.asarray(self.sample_names, dtype=object).ravel()], dtype=object)
        if len(out) != n:
            raise ValueError(
                f"{who}: {len(out)} sample_names for {n} samples (rows of X); they must match. "
                "Fix: give one name per row."
            )
        out.setflags(write=False)
        return out

    def _check_image_shape(self, m: int, who: str):
        s = self.image_shape
        if s is None:
            return None
        s = tuple(s)
        if len(s) != 2 or not all(isinstance(v, Integral) and not isinstance(v, bool) and v > 0 for v in s):
            raise ValueError(
                f"{who}: image_shape must be (height, width) with positive ints; got {self.image_shape!r}."
            )
        s = (int(s[0]), int(s[1]))
        if s[0] * s[1] != m:
            raise ValueError(
                f"{who}: image_shape {s[0]} x {s[1]} = {s[0] * s[1]} pixels, but there are {m} "
                "features; give a shape whose product is the number of features."
            )
        return s

    def _hash(self) -> str:
        h = hashlib.sha256()
        X = self.X
        storage = X.format if sp.issparse(X) else "dense"
        header = {
            "storage": storage,
            "shape": list(X.shape),
            "dtype": str(X.dtype),
            "y": None if self.y is None else [str(self.y.dtype), len(self.y)],
            "class_names": None if self.class_names is None else self.class_names.tolist(),
        }
        h.update(_HASH_VERSION)
        h.update(json.dumps(header, sort_keys=True).encode())
        # names as one JSON list: unambiguous (quoted and escaped) and fast for millions of
        # names; hashed a chunk at a time (the same bytes), never 29.9 M strs at once
        for part in names_json(self.feature_names):
            h.update(part)
        if self.y is not None:
            h.update(np.ascontiguousarray(self.y).data)
        if sp.issparse(X):
            for part in (X.indptr, X.indices, X.data):
                dt = np.int64 if part.dtype.kind == "i" else part.dtype
                for c in chunks(part):  # chunks: no int64 copy of all indices, no resident map
                    h.update(np.ascontiguousarray(c, dtype=dt).data)
        elif is_mapped(X):  # the array's bytes in their file order, a chunk at a time
            flat = X.T if X.flags.f_contiguous and not X.flags.c_contiguous else X
            flat = flat.reshape(-1).view(np.uint8)
            for a in range(0, flat.size, 1 << 26):
                h.update(np.ascontiguousarray(flat[a : a + (1 << 26)]).data)
                release_map(X)
        else:
            h.update(X.data)
        if self.sample_names is not None:  # only when present: older fingerprints stay valid
            h.update(b"sample_names")
            h.update(json.dumps(self.sample_names.tolist(), ensure_ascii=True).encode("ascii"))
        from fsviz.data.feature_info import labels_digest  # display labels: only when any differs

        h.update(labels_digest(self))
        return h.hexdigest()

    # ------------------------------------------------------------------ properties
    @property
    def shape(self) -> tuple[int, int]:
        return tuple(self.X.shape)

    @property
    def n_samples(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    @property
    def is_sparse(self) -> bool:
        return sp.issparse(self.X)

    @property
    def is_image(self) -> bool:
        return self.image_shape is not None

    @property
    def has_labels(self) -> bool:
        return self.y is not None

    @property
    def is_classification(self) -> bool:
        """True when ``y`` holds class labels (ints), False for no or continuous labels."""
        return self.y is not None and self.y.dtype.kind == "i"

    @property
    def target_kind(self) -> str | None:
        """``"classes"``, ``"continuous"`` or None (no target).

        The same rule as ``sklearn.utils.multiclass.type_of_target`` (and every fsviz
        selector): labels stored as ints (strings, bools and whole-number floats are
        encoded so at construction) are classes; a float ``y`` with a fractional value
        is a continuous target and is never turned into classes.
        """
        if self.y is None:
            return None
        return "classes" if self.is_classification else "continuous"

    @property
    def categorical_groups(self) -> list[list[int]]:
        """Feature indices of each one-hot block (``load_dataset(..., categorical="onehot")``).

        One list per encoded source column, in file order, holding the sorted indices of its
        ``column=value`` features (and ``column=missing`` when present); ready as GRM
        ``prior_groups``. Empty when nothing was one-hot encoded. Derived from
        ``meta["categorical"]`` (source column -> feature names), so it follows
        :meth:`subset` (blocks keep their surviving features; emptied blocks vanish).
        Not part of the fingerprint: the feature names it is built from already are,
        and it changes no computed value unless passed on as prior groups (which are
        then part of that run's parameters).
        """
        blocks = self.meta.get("categorical") or {}
        if not blocks:
            return []
        lookup = {nm: j for j, nm in enumerate(self.feature_names.tolist())}
        out = []
        for block in blocks.values():
            idx = sorted(lookup[nm] for nm in block if nm in lookup)
            if idx:
                out.append(idx)
        return out

    @property
    def label_mapping(self) -> dict | None:
        """``{class name: code}`` when labels were strings (or class_names were given), else None."""
        if self.class_names is None:
            return None
        return {str(c): i for i, c in enumerate(self.class_names)}

    @property
    def labels(self) -> np.ndarray | None:
        """The labels as given: class names (object array) when they were strings, else ``y``."""
        if self.y is None:
            return None
        if self.class_names is not None:
            return self.class_names[self.y]
        return self.y

    @property
    def feature_info(self):
        """Per-feature annotations (:mod:`fsviz.data.feature_info`): a DataFrame indexed like
        :attr:`feature_names` (the IDs), ``display_name`` first (a symbol; the ID without one)."""
        from fsviz.data.feature_info import feature_info_frame

        return feature_info_frame(self.meta.get("feature_info"), self.feature_names)

    @property
    def feature_labels(self) -> np.ndarray:
        """Each feature's label in charts, tables and reports: ``SYMBOL (ID)``, or the ID."""
        from fsviz.data.feature_info import dataset_labels

        return dataset_labels(self)

    def class_labels(self) -> tuple[list[str], np.ndarray]:
        """``(names, counts)`` of the classes in code order; ``([], [])`` without class labels."""
        if not self.is_classification:
            return [], np.zeros(0, dtype=np.int64)
        codes, counts = np.unique(self.y, return_counts=True)
        if self.class_names is not None:
            full = np.bincount(self.y, minlength=len(self.class_names))
            return [str(c) for c in self.class_names], full
        return [str(c) for c in codes], counts

    def __repr__(self) -> str:
        kind = f"sparse {self.X.format}" if self.is_sparse else "dense"
        lab = (
            "no labels"
            if self.y is None
            else (f"{len(self.class_labels()[0])} classes" if self.is_classification else "continuous target")
        )
        img = f", image {self.image_shape[0]}x{self.image_shape[1]}" if self.image_shape else ""
        return (
            f"Dataset({self.name!r}: {self.n_samples} x {self.n_features} {kind}, {lab}{img}, "
            f"fingerprint {self.fingerprint[:12]})"
        )

    # ------------------------------------------------------------------ summary
    def summary(self) -> DatasetSummary:
        """Samples, features, classes and counts, sparsity, missing values, constant features, image shape."""
        X = self.X
        n, m = X.shape
        nnz = int(X.nnz) if sp.issparse(X) else int(np.count_nonzero(X))
        names, counts = self.class_labels()
        kind = self.target_kind
        return DatasetSummary(
            name=self.name,
            n_samples=int(n),
            n_features=int(m),
            is_sparse=self.is_sparse,
            nnz=nnz,
            sparsity=float(1.0 - nnz / (n * m)),
            n_missing=int(sum((self.meta.get("missing") or {}).get("counts", {}).values())),
            has_labels=self.y is not None,
            label_kind=kind,
            classes=tuple(names),
            class_counts=tuple(int(c) for c in counts),
            n_constant=len(self.constant_features),
            constant_features=tuple(str(self.feature_names[j]) for j in self.constant_features),
            is_image=self.is_image,
            image_shape=self.image_shape,
            fingerprint=self.fingerprint,
        )

    # ------------------------------------------------------------------ derived datasets
    def _feature_index(self, features) -> np.ndarray:
        m = self.n_features
        who = f"Dataset.subset ({self.name!r})"
        if isinstance(features, slice):
            return np.arange(m)[features]
        arr = np.asarray(features)
        if arr.ndim == 0:
            arr = arr.reshape(1)
        if arr.dtype.kind == "b":
            if arr.shape != (m,):
                raise ValueError(f"{who}: a boolean feature mask must have length {m}; got {arr.shape}.")
            return np.flatnonzero(arr)
        if arr.dtype.kind in "iu":
            idx = arr.astype(np.intp)
            bad = (idx < -m) | (idx >= m)
            if bad.any():
                raise ValueError(
                    f"{who}: feature indices must be in [-{m}, {m - 1}]; got "
                    f"{names_preview(idx[bad].tolist())}."
                )
            idx = np.where(idx < 0, idx + m, idx)
        else:
            lookup = {nm: j for j, nm in enumerate(self.feature_names)}
            missing = [str(v) for v in arr.tolist() if str(v) not in lookup]
            if missing:
                raise ValueError(
                    f"{who}: unknown feature name(s) {names_preview(missing)}; names are "
                    f"{names_preview(list(self.feature_names))}."
                )
            idx = np.array([lookup[str(v)] for v in arr.tolist()], dtype=np.intp)
        if len(np.unique(idx)) != len(idx):
            raise ValueError(f"{who}: features must not repeat; got duplicated indices.")
        return idx

    def subset(self, features=None, samples=None, name: str | None = None) -> Dataset:
        """A new Dataset with the chosen features and/or samples, in the order given.

        Parameters
        ----------
        features : array-like of int, bool mask, sequence of names, or slice, optional
            Columns to keep (all when None). The image shape is kept only when all
            features are kept; the ground truth only when the features are unchanged.
        samples : array-like of int or bool mask, optional
            Rows to keep (all when None).
        name : str, optional
            Default ``"<name>[k features]"``.
        """
        X, y = self.X, self.y
        f_idx = None if features is None else self._feature_index(features)
        s_idx = None
        if samples is not None:
            s = np.asarray(samples)
            if s.dtype.kind == "b":
                if s.shape != (self.n_samples,):
                    raise ValueError(
                        f"Dataset.subset: a boolean sample mask must have length {self.n_samples}; "
                        f"got {s.shape}."
                    )
                s_idx = np.flatnonzero(s)
            else:
                s_idx = s.astype(np.intp).ravel()
            X = X[s_idx]
            y = None if y is None else y[s_idx]
        samples = self.sample_names
        if samples is not None and s_idx is not None:
            samples = samples[s_idx]
        if f_idx is not None:
            X = X[:, f_idx]
        keep_all = f_idx is None or np.array_equal(f_idx, np.arange(self.n_features))
        names = self.feature_names if f_idx is None else self.feature_names[f_idx]
        meta = dict(self.meta)
        meta["parent"] = self.fingerprint
        if f_idx is not None:
            meta["features"] = f_idx
            if "source_columns" in meta:
                meta["source_columns"] = np.asarray(meta["source_columns"])[f_idx]
        if s_idx is not None:
            meta["samples"] = s_idx
        if name is None:
            name = self.name if f_idx is None else f"{self.name}[{len(f_idx)} features]"
        return Dataset(
            X,
            y=y,
            feature_names=names,
            image_shape=self.image_shape if keep_all else None,
            name=name,
            class_names=self.class_names,
            description=self.description,
            truth=self.truth if keep_all else None,
            meta=meta,
            sample_names=samples,
        )

    def drop_small_classes(self, min_size: int) -> Dataset:
        """A new Dataset without the classes that have fewer than ``min_size`` samples.

        The classes left are re-coded ``0..k-1`` (their names kept); the name says what
        was dropped and ``meta["notes"]``/``meta["dropped_classes"]`` list the classes
        and their sizes. Sample names, feature names and the other metadata follow.
        The fix that :func:`~fsviz.data.check_target` offers for classes smaller than
        the folds.

        Parameters
        ----------
        min_size : int
            Keep the classes with at least this many samples (e.g. the number of folds).

        Raises
        ------
        ValueError
            Without class labels, or when fewer than two classes would be left.
        """
        who = f"Dataset.drop_small_classes ({self.name!r})"
        if isinstance(min_size, bool) or not isinstance(min_size, Integral) or min_size < 1:
            raise ValueError(f"{who}: min_size must be a positive int; got {min_size!r}.")
        if not self.is_classification:
            raise ValueError(f"{who}: the dataset has no class labels (target: {self.target_kind}).")
        names, counts = self.class_labels()
        small = [i for i, c in enumerate(counts.tolist()) if 0 < c < min_size]
        if not small:
            return self
        keep_codes = [i for i, c in enumerate(counts.tolist()) if c >= min_size]
        if len(keep_codes) < 2:
            raise ValueError(
                f"{who}: only {len(keep_codes)} class(es) have at least {min_size} samples; at least 2 must "
                "remain. Fix: use fewer folds or leave-one-out instead."
            )
        codes = np.unique(self.y)
        # class_labels lists codes 0..k-1 with class names, else the codes present
        code_of = (lambda i: i) if self.class_names is not None else (lambda i: int(codes[i]))
        dropped = {names[i]: int(counts[i]) for i in small}
        mask = ~np.isin(self.y, [code_of(i) for i in small])
        samples = np.flatnonzero(mask)
        y = self.y[samples]
        class_names = None
        if self.class_names is not None:
            remap = np.full(len(self.class_names), -1, dtype=np.int64)
            remap[keep_codes] = np.arange(len(keep_codes))
            y = remap[y]
            class_names = self.class_names[keep_codes]
        meta = dict(self.meta)
        meta["parent"] = self.fingerprint
        meta["samples"] = samples
        meta["dropped_classes"] = dropped
        note = (
            f"dropped {len(dropped)} class(es) with fewer than {min_size} samples "
            f"({', '.join(f'{k} ({v})' for k, v in list(dropped.items())[:8])}"
            f"{' ...' if len(dropped) > 8 else ''}): {int(sum(dropped.values()))} sample(s)"
        )
        meta["notes"] = list(meta.get("notes") or []) + [note]
        return Dataset(
            self.X[samples],
            y=y,
            feature_names=self.feature_names,
            image_shape=self.image_shape,
            name=f"{self.name} (classes with {min_size}+ samples)",
            class_names=class_names,
            description=self.description,
            truth=None,
            meta=meta,
            sample_names=None if self.sample_names is None else self.sample_names[samples],
        )

    def with_target_kind(self, kind: str) -> Dataset:
        """The same data with the target read as ``"continuous"`` or as ``"classes"``.

        ``"continuous"``: whole-number labels (a count, an age) become a real-valued
        target (float64; kept so through :meth:`subset`). ``"classes"``: a real-valued
        target becomes class labels named by their values. A new fingerprint (``y``
        changes); a no-op when the target already is of that kind.

        Raises
        ------
        ValueError
            Without a target, for an unknown kind, or for text classes made continuous.
        """
        who = f"Dataset.with_target_kind ({self.name!r})"
        if kind not in ("classes", "continuous"):
            raise ValueError(f"{who}: kind must be 'classes' or 'continuous'; got {kind!r}.")
        if self.y is None:
            raise ValueError(f"{who}: the dataset has no target.")
        if self.target_kind == kind:
            return self
        meta = dict(self.meta)
        meta["parent"] = self.fingerprint
        if kind == "continuous":
            if self.class_names is not None:
                try:
                    y = np.array([float(v) for v in self.class_names.tolist()])[self.y]
                except ValueError:
                    raise ValueError(
                        f"{who}: the classes are named by text (e.g. {str(self.class_names[0])!r}); they "
                        "cannot be a continuous quantity."
                    ) from None
            else:
                y = self.y.astype(np.float64)
            meta["target_kind"] = "continuous"
            class_names = None
        else:
            meta.pop("target_kind", None)
            y = np.array([repr(float(v)) for v in self.y.tolist()], dtype=object)
            class_names = None
        return Dataset(
            self.X,
            y=y,
            feature_names=self.feature_names,
            image_shape=self.image_shape,
            name=self.name,
            class_names=class_names,
            description=self.description,
            truth=self.truth,
            meta=meta,
            sample_names=self.sample_names,
        )

    def with_image_shape(self, image_shape) -> Dataset:
        """The same data with another ``image_shape`` (validated; the fingerprint is unchanged)."""
        new = object.__new__(Dataset)
        for k, v in self.__dict__.items():
            object.__setattr__(new, k, v)
        object.__setattr__(new, "image_shape", image_shape)
        object.__setattr__(
            new, "image_shape", new._check_image_shape(self.n_features, f"Dataset {self.name!r}")
        )
        return new

    def with_name(self, name: str) -> Dataset:
        """The same data under another name (the fingerprint is unchanged)."""
        new = object.__new__(Dataset)
        for k, v in self.__dict__.items():
            object.__setattr__(new, k, v)
        object.__setattr__(new, "name", str(name))
        return new

    # ------------------------------------------------------------------ export
    def label_column(self) -> str:
        """The label column name used on export (the loaded one, else ``"label"``), never a feature name."""
        base = str(self.meta.get("label_column") or "label")
        taken = set(self.feature_names.tolist())
        out = base
        while out in taken:
            out = "_" + out
        return out

    def to_frame(self):
        """A pandas DataFrame: the features (sparse columns when X is sparse) and the label column last."""
        import pandas as pd

        cols = [str(c) for c in self.feature_names]
        if self.is_sparse:
            frame = pd.DataFrame.sparse.from_spmatrix(self.X.tocsc(), columns=cols)
        else:
            frame = pd.DataFrame(np.array(self.X), columns=cols, copy=False)
        if self.y is not None:
            frame[self.label_column()] = self.labels
        return frame

    def sample_column(self) -> str | None:
        """The sample-name column written first on export (the loaded identifier's name, else
        ``"sample"``), never a feature or label name; None without sample names."""
        if self.sample_names is None:
            return None
        base = str(self.meta.get("id_column") or "sample")
        taken = set(self.feature_names.tolist()) | ({self.label_column()} if self.y is not None else set())
        out = base
        while out in taken:
            out = "_" + out
        return out

    def to_csv(self, path_or_buffer=None, *, sep: str = ",", formula_safe: bool = False) -> str | None:
        """Write CSV (or TSV with ``sep="\\t"``): sample names first, feature names, label column last.

        Floats are written with Python's shortest round-trip repr, so
        ``load_dataset`` reads back exactly the same values (bit for bit), names,
        order, labels (string labels by name) and sample names (the first column, named
        like the identifier column they were loaded from, else ``sample``). Names and
        labels holding the separator, a quote or a line break are quoted as Python's
        ``csv`` writer does: ``a,b`` becomes ``"a,b"``, inner quotes are doubled). Returns the text when
        ``path_or_buffer`` is None. Text holds no ``feature_info`` (``save`` as Parquet/.npz keeps it).

        ``formula_safe=True`` writes names, sample names and labels that begin like a spreadsheet
        formula (``=``, ``+``, ``-``, ``@``, tab, CR) with a quote in front
        (:func:`fsviz.data.csv_safety.neutralise`): safe to open in a spreadsheet program, no
        longer an exact round trip for those names.
        """
        from fsviz.data.writers import write_csv  # the registered csv writer

        return write_csv(self, path_or_buffer, sep=sep, formula_safe=formula_safe)

    def _check_dense_export(self, what: str) -> None:
        n, m = self.X.shape
        limit = _DENSE_EXPORT_LIMIT
        if self.is_sparse and n * m > limit:
            raise ValueError(
                f"Dataset.{what}: this sparse dataset would become {n:,} x {m:,} = {n * m:,} dense "
                f"cells (limit {limit:,}). Fix: save it as .npz or svmlight, which keep it sparse."
            )

    def save(self, path_or_buffer, fmt: str | None = None, **options) -> None:
        """Write the dataset so that :func:`fsviz.data.load_dataset` reads it back exactly.

        Parameters
        ----------
        path_or_buffer : str, Path or binary file-like
        fmt : str, optional
            A registered writer (``fsviz.data.formats.writers()``: csv, tsv, parquet, npz, svmlight),
            else the one of the file name's suffix. ``**options``: the writer's (CSV: ``formula_safe``).
        """
        from fsviz.data.writers import save_dataset  # the writer registry's door: it names no format

        save_dataset(self, path_or_buffer, fmt, **options)
