"""Out-of-core dense data: sources that hand out column blocks on demand.

All-pairs scans (``fsviz.stats.correlation_histogram``, ``correlated_pairs``) only ever
need a few column blocks of ``X`` at a time plus per-feature statistics. A
:class:`ChunkedSource` provides exactly that for data that does not fit in memory:

- :class:`NpySource` - a ``.npy`` file opened memory-mapped (``np.load(mmap_mode="r")``);
- :class:`ParquetSource` - a Parquet file; a column block is read column-wise from
  every row group (pyarrow reads only those columns);
- :class:`ZarrSource` - a 2-D zarr array (on disk or in memory);
- :class:`DaskArraySource` - a 2-D ``dask.array`` (computed block by block);
- :class:`ArraySource` - an in-memory ndarray, so every path shares one code.

:func:`open_chunked` picks the right one from a path or an array object. The per-feature
mean and centred norm come from a first pass over column blocks in the stats layer
(:func:`fsviz.stats.moments.source_moments`, cached per source); this module only reads
data and imports nothing above ``fsviz.data``. File-backed sources pickle as their path,
so a Dask worker re-opens the file itself instead of receiving the data.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from fsviz.data.columns import is_dask_array

__all__ = [
    "ArraySource",
    "ChunkedSource",
    "DaskArraySource",
    "NpySource",
    "ParquetSource",
    "ZarrSource",
    "open_chunked",
]


class ChunkedSource:
    """A dense ``(n_samples, n_features)`` matrix read one column block at a time.

    Subclasses implement :meth:`_read` (and set ``shape``); everything else is shared.

    Attributes
    ----------
    shape : tuple of int
        ``(n_samples, n_features)``.
    feature_names : list of str or None
        Column names when the format has them (Parquet), else None.
    """

    shape: tuple[int, int]
    feature_names: list[str] | None = None

    @property
    def n_samples(self) -> int:
        return int(self.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.shape[1])

    def _read(self, start: int, stop: int) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def read_columns(self, start: int, stop: int) -> np.ndarray:
        """Columns ``start:stop`` as a float64 array of shape ``(n_samples, stop - start)``.

        Raises ``ValueError`` if the block holds NaN or infinite values.
        """
        block = np.asarray(self._read(int(start), int(stop)), dtype=np.float64)
        if block.ndim != 2 or block.shape != (self.n_samples, stop - start):
            raise ValueError(
                f"{type(self).__name__}: reading columns {start}:{stop} gave shape {block.shape}; "
                f"expected {(self.n_samples, stop - start)}."
            )
        if not np.isfinite(block).all():
            bad = start + int(np.flatnonzero(~np.isfinite(block).all(axis=0))[0])
            raise ValueError(
                f"{type(self).__name__}: feature {bad} holds NaN or infinite values; "
                "impute or drop it before computing correlations."
            )
        return block

    def iter_column_blocks(self, block_size: int):
        """Yield ``(start, stop, block)`` over the columns in blocks of ``block_size``."""
        for s in range(0, self.n_features, int(block_size)):
            e = min(s + int(block_size), self.n_features)
            yield s, e, self.read_columns(s, e)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_handle", None)  # file handles are re-opened where unpickled
        return state

    def __repr__(self) -> str:
        return f"{type(self).__name__}(shape={self.shape})"


class ArraySource(ChunkedSource):
    """An in-memory 2-D ndarray seen as a chunked source."""

    def __init__(self, X: np.ndarray, feature_names: list[str] | None = None):
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"ArraySource: X must be 2-D (n_samples, n_features); got shape {X.shape}.")
        if not np.issubdtype(X.dtype, np.number) or np.issubdtype(X.dtype, np.complexfloating):
            raise ValueError(f"ArraySource: X must hold real numbers; got dtype {X.dtype}.")
        self.X = X
        self.shape = X.shape
        self.feature_names = feature_names

    def _read(self, start, stop):
        return self.X[:, start:stop]


class NpySource(ChunkedSource):
    """A 2-D ``.npy`` file read through a read-only memory map."""

    def __init__(self, path: str | os.PathLike):
        self.path = str(path)
        arr = self._arr()
        if arr.ndim != 2:
            raise ValueError(f"NpySource: {self.path} holds an array of shape {arr.shape}; expected 2-D.")
        if not np.issubdtype(arr.dtype, np.number) or np.issubdtype(arr.dtype, np.complexfloating):
            raise ValueError(f"NpySource: {self.path} holds dtype {arr.dtype}; expected real numbers.")
        self.shape = tuple(int(s) for s in arr.shape)

    def _arr(self) -> np.ndarray:
        h = self.__dict__.get("_handle")
        if h is None:
            from fsviz.data.filetypes import check_regular

            check_regular(self.path, "NpySource")  # a FIFO named x.npy would block the open
            try:
                h = np.load(self.path, mmap_mode="r", allow_pickle=False)
            except (OSError, ValueError) as e:
                raise OSError(f"NpySource: cannot open {self.path!r} as a .npy array: {e}") from e
            self._handle = h
        return h

    def _read(self, start, stop):
        return self._arr()[:, start:stop]


class ParquetSource(ChunkedSource):
    """Numeric columns of a Parquet file (optionally minus a label column)."""

    def __init__(self, path: str | os.PathLike, label: str | None = None):
        import pyarrow.parquet as pq
        import pyarrow.types as pat

        from fsviz.data.filetypes import check_regular

        self.path = str(path)
        check_regular(self.path, "ParquetSource")  # a FIFO named x.parquet would block the open
        try:
            pf = pq.ParquetFile(self.path)
        except Exception as e:  # pyarrow raises its own error types for corrupt files
            raise OSError(f"ParquetSource: cannot read {self.path!r} as Parquet: {e}") from e
        schema = pf.schema_arrow
        names = list(schema.names)
        if label is not None and label not in names:
            raise ValueError(f"ParquetSource: label column {label!r} not found; columns are {names[:10]}.")
        feats = [c for c in names if c != label]
        bad = [
            c
            for c in feats
            if not (
                pat.is_integer(schema.field(c).type)
                or pat.is_floating(schema.field(c).type)
                or pat.is_boolean(schema.field(c).type)
            )
        ]
        if bad:
            raise ValueError(
                f"ParquetSource: non-numeric feature columns {bad[:5]} in {self.path!r}; "
                "drop them or name the label column with label=..."
            )
        self.label = label
        self.feature_names = feats
        self.n_row_groups = pf.num_row_groups
        self.shape = (int(pf.metadata.num_rows), len(feats))

    def _read(self, start, stop):
        import pyarrow.parquet as pq

        cols = self.feature_names[start:stop]
        table = pq.read_table(self.path, columns=cols)
        out = np.empty((self.n_samples, len(cols)), dtype=np.float64, order="F")
        for k, c in enumerate(cols):
            out[:, k] = table.column(c).to_numpy(zero_copy_only=False)
        return out


class ZarrSource(ChunkedSource):
    """A 2-D zarr array, given as an opened array or a path to one."""

    def __init__(self, array_or_path: Any):
        if isinstance(array_or_path, (str, os.PathLike)):
            self.path = str(array_or_path)
            self.array = None
        else:
            self.path = None
            self.array = array_or_path
        arr = self._arr()
        if len(arr.shape) != 2:
            raise ValueError(f"ZarrSource: the zarr array has shape {arr.shape}; expected 2-D.")
        self.shape = tuple(int(s) for s in arr.shape)

    def _arr(self):
        if self.array is not None:
            return self.array
        h = self.__dict__.get("_handle")
        if h is None:
            import zarr

            try:
                h = zarr.open_array(self.path, mode="r")
            except Exception as e:  # zarr raises several error types for a missing/bad store
                raise OSError(f"ZarrSource: cannot open {self.path!r} as a zarr array: {e}") from e
            self._handle = h
        return h

    def _read(self, start, stop):
        return self._arr()[:, start:stop]


class DaskArraySource(ChunkedSource):
    """A 2-D ``dask.array``; each column block is computed when read."""

    def __init__(self, darr: Any):
        if darr.ndim != 2:
            raise ValueError(f"DaskArraySource: the dask array has shape {darr.shape}; expected 2-D.")
        if any(np.isnan(s) for s in darr.shape):
            raise ValueError(
                "DaskArraySource: the dask array has unknown chunk sizes; call compute_chunk_sizes()."
            )
        self.darr = darr
        self.shape = tuple(int(s) for s in darr.shape)

    def _read(self, start, stop):
        try:  # inside a Dask worker: compute in this thread rather than re-entering the cluster
            from distributed import get_worker

            get_worker()
            return self.darr[:, start:stop].compute(scheduler="sync")
        except (ImportError, ValueError):
            return self.darr[:, start:stop].compute()


def open_chunked(data: Any, *, label: str | None = None) -> ChunkedSource:
    """Open ``data`` as a :class:`ChunkedSource`.

    Parameters
    ----------
    data : str, path, ndarray, dask array, zarr array or ChunkedSource
        ``*.npy`` (memory-mapped), ``*.parquet`` / ``*.pq``, a zarr store path
        (``*.zarr`` or a directory holding ``.zarray``/``zarr.json``), or an array object.
    label : str, default=None
        Parquet only: a column to leave out of the features.

    Returns
    -------
    ChunkedSource
    """
    if isinstance(data, ChunkedSource):
        return data
    if isinstance(data, np.ndarray):
        return ArraySource(data)
    if is_dask_array(data):
        return DaskArraySource(data)
    if type(data).__module__.startswith("zarr"):
        return ZarrSource(data)
    if isinstance(data, (str, os.PathLike)):
        p = Path(data)
        suffix = p.suffix.lower()
        if not p.exists():
            raise OSError(f"open_chunked: {str(p)!r} does not exist.")
        if suffix == ".npy":
            return NpySource(p)
        if suffix in (".parquet", ".pq"):
            return ParquetSource(p, label=label)
        if suffix == ".zarr" or (p.is_dir() and ((p / ".zarray").exists() or (p / "zarr.json").exists())):
            return ZarrSource(p)
        raise ValueError(
            f"open_chunked: cannot read {str(p)!r} out of core; supported are .npy (memory-mapped), "
            ".parquet and zarr stores. Load other formats with fsviz.data.load_dataset."
        )
    raise ValueError(
        f"open_chunked: expected a path, ndarray, dask array or zarr array; got {type(data).__name__}."
    )
