"""Parquet: reader and writer (the fsviz metadata tag keeps names, labels and image shape)."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

import numpy as np

from fsviz.data.blocks import block_frame, carried, remember_fills, share_floats
from fsviz.data.budget import dense_bytes
from fsviz.data.formats.delimited import table_parts
from fsviz.data.formats.registry import Reader
from fsviz.data.formats.source import (
    FSVIZ_TAG,
    Source,
    meta_for,
    parse_error,
    restore_feature_info,
    suffixes_of,
)
from fsviz.data.formats.writer_registry import Writer
from fsviz.data.pages import empty_plain
from fsviz.data.roles import parsed_stats

if TYPE_CHECKING:
    from fsviz.data.dataset import Dataset


def index_as_columns(df):
    """``(frame, names)``: a frame whose pandas index (restored from the schema's pandas
    metadata) is not the row numbers, with that index back as leading column(s) named by it
    (``index`` when unnamed); ``names`` empty when there was no such index."""
    import pandas as pd

    if isinstance(df.index, pd.RangeIndex):
        return df, []
    names = [str(n) if n is not None else ("index" if df.index.nlevels == 1 else f"level_{i}")
             for i, n in enumerate(df.index.names)]  # fmt: skip
    out = df.reset_index()
    out.columns = names + [str(c) for c in out.columns[len(names) :]]
    return out, names


def check_flat(schema, who: str) -> None:
    """Refuse a schema with list, struct or map columns (ValueError naming them): a cell holds one value."""
    import pyarrow as pa

    nested = [
        f.name
        for f in schema
        if pa.types.is_nested(f.type)
        or pa.types.is_dictionary(f.type)
        and pa.types.is_nested(f.type.value_type)
    ]
    if nested:
        raise ValueError(
            f"{who}: column(s) {nested[:5]} hold lists, structs or maps, not one value per cell. "
            "Fix: flatten them into plain columns (pandas json_normalize or explode), then save again."
        )


def parse_parquet(src: Source) -> dict:
    """A Parquet file parsed once: ``{"frame", "meta", "index", "stats", "float_dtype"}``: the
    frame with its float columns (any float type) views into one float64 block, the others as
    pyarrow gives them (a pandas index restored as leading column(s), named in ``index``),
    ``meta`` fsviz's tag, ``float_dtype`` the file's float type when all its float columns share it."""
    import pandas as pd
    import pyarrow.parquet as pq

    who = f"load_dataset: {src.label}"
    try:
        pf = pq.ParquetFile(src.handle())  # read once: its metadata (~1 s at 100,000 columns) serves both
        md = pf.metadata
    except Exception as e:
        raise parse_error(
            src,
            "Parquet",
            e,
            "check that the file is a valid Parquet file (re-export it, e.g. DataFrame.to_parquet).",
        ) from e
    src.check(dense_bytes(md.num_rows, md.num_columns), f"{md.num_rows:,} rows x {md.num_columns:,} columns")
    schema = pf.schema_arrow
    check_flat(schema, who)
    meta = {}
    raw = (schema.metadata or {}).get(FSVIZ_TAG.encode())
    if raw:
        try:
            meta = json.loads(raw.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            meta = {}
    fix = "check that the file is a valid Parquet file (re-export it, e.g. DataFrame.to_parquet)."
    float_dtype = _one_float_type(schema)
    try:
        df = _float_frame(pf, schema)
        if df is None:
            table = pf.read()
    except Exception as e:
        raise parse_error(src, "Parquet", e, fix) from e
    # the decoded footer of a wide file is large (~280 MB at 100,000 columns): not kept while
    # the fills and the column facts are computed
    del pf, md, schema
    if df is None:
        try:
            df = table.to_pandas()
        except Exception as e:
            raise parse_error(src, "Parquet", e, "store plain numeric feature columns.") from e
        del table
    if len(df.columns) == 0:
        raise ValueError(f"{who} has no columns. Fix: choose a file that holds data.")
    kept = []
    if not meta:  # pandas wrote its index (the sample ids, df.to_parquet()): a column again
        df, kept = index_as_columns(df)
    if carried(df, "float_block") is None:
        df.columns = pd.Index([str(c) for c in df.columns.tolist()], dtype=object)
        df = share_floats(df)
    remember_fills(df, src.missing)
    return {"frame": df, "meta": meta, "index": kept, "stats": parsed_stats(df), "float_dtype": float_dtype}


#: float columns read (and converted into the block) at a time: bounds pyarrow's buffers
_BAND = 2048


def _float_frame(pf, schema):
    """The table as :func:`~fsviz.data.blocks.share_floats` would make it of ``pf.read().to_pandas()``,
    read without that whole table: the float columns (float16/32/64) band by band straight into one
    C-ordered float64 block (a 100,000-column file read whole held ~1 GB of Arrow buffers beside
    pandas' copy), the few others through pandas. None when it does not apply (fewer than two
    float columns, repeated names, a stored pandas index: the general path decides)."""
    import pyarrow as pa

    names = schema.names
    floats = [j for j, t in enumerate(_type_names(schema)) if t in _FLOATS]
    index = [c for c in (schema.pandas_metadata or {}).get("index_columns", []) if isinstance(c, str)]
    if len(floats) < 2 or index or len(set(names)) != len(names):
        return None
    n = pf.metadata.num_rows
    block = empty_plain((n, len(floats)))
    for a in range(0, len(floats), _BAND):
        band = pf.read(columns=[names[j] for j in floats[a : a + _BAND]])
        if n:
            np.stack([c.to_numpy() for c in band.columns], axis=1, out=block[:, a : a + band.num_columns])
        del band
    # Arrow's allocator keeps the bands' freed pages (~200 MB at 100,000 columns) until asked
    pa.default_memory_pool().release_unused()
    is_float = np.zeros(len(names), dtype=bool)
    is_float[floats] = True
    rest = [names[j] for j in np.flatnonzero(~is_float)]
    others = []
    if rest:
        frame = pf.read(columns=rest).to_pandas()
        at = np.flatnonzero(~is_float).tolist()
        others = [(j, str(c), frame[c].to_numpy()) for j, c in zip(at, rest, strict=True)]
    return block_frame(block, [str(names[j]) for j in floats], others)


#: Arrow's names of the float types (``str(type)``) and their numpy dtypes
_FLOATS = {"halffloat": "float16", "float": "float32", "double": "float64"}


def _type_names(schema) -> list[str]:
    """``str`` of every column's Arrow type: one pass (``pa.types.is_floating`` per field and
    ``to_pandas_dtype`` took ~0.5 s over 100,000 fields)."""
    return [str(t) for t in schema.types]


def _one_float_type(schema) -> str | None:
    """The numpy dtype of the file's float columns when they all have one (e.g. ``"float32"``)."""
    kinds = {_FLOATS[t] for t in set(_type_names(schema)) if t in _FLOATS}
    return kinds.pop() if len(kinds) == 1 else None


def parsed_head(payload: dict, nrows: int, cells: int | None = None):
    """The first ``nrows`` rows of a parsed Parquet file as :func:`~fsviz.data.inspect_table`
    previews them: the parsed frame's, its float columns back in the file's float type when they
    all have one (a float32 value is previewed as the file holds it, not as its float64 digits).
    ``cells``: at most about that many cells (at least 10 rows), as a wide text table's preview
    (200 rows of 100,000 columns took ~600 MB of temporaries to rank the target candidates)."""
    width = max(payload["frame"].shape[1], 1)
    if cells is not None and nrows * width > cells:
        nrows = max(10, min(nrows, cells // width))
    df = payload["frame"].iloc[:nrows]
    info = carried(df, "float_block")
    dtype = payload.get("float_dtype")
    if info is None or dtype in (None, "float64"):
        return df.copy()
    names = info["columns"]
    block = np.ascontiguousarray(info["block"][:nrows], dtype=dtype)
    is_float = df.columns.isin(names)
    others = [(int(j), df.columns[j], df.iloc[:, j].to_numpy()) for j in np.flatnonzero(~is_float)]
    import pandas as pd

    out = pd.DataFrame(block, columns=pd.Index(names, dtype=object), copy=False)
    for j, name, values in others:
        out.insert(j, name, values, allow_duplicates=True)
    return out


def assemble_parquet(src: Source, parsed: dict, label) -> dict:
    """The raw parts of a parsed Parquet file under ``src``'s plan (the parsed frame unchanged)."""
    from fsviz.data.frames import RawTable

    meta, kept = parsed["meta"], parsed["index"]
    if label == "auto" and "label_column" in meta:
        label = meta["label_column"]  # may be None: written without labels
    df = parsed["frame"].copy(deep=False)  # copy-on-write: the parsed frame stays as it is
    index_note = None
    if kept and src.id_columns == "auto":
        src.id_columns = kept[:1]
        index_note = f"the pandas index {kept[0]!r} (kept in the file's schema) as the sample names"
    if meta and src.id_columns == "auto":  # written by fsviz: every column is a feature or the label
        src.id_columns = None
    raw = RawTable(frame=df, fmt="parquet", n_rows=len(df), n_columns=df.shape[1])
    parts = table_parts(src, "parquet", raw, label, labels_as_text=False, stats=parsed.get("stats"))
    if meta.get("class_names") is not None and parts["y"] is not None:
        parts["class_names"] = meta["class_names"]
    if meta.get("image_shape"):
        parts["image_shape"] = tuple(meta["image_shape"])
    if meta.get("name"):
        parts["name"] = meta["name"]
    if meta.get("sample_names") is not None:
        parts["sample_names"] = np.array(meta["sample_names"], dtype=object)
    if index_note:
        parts["notes"] = [*(parts.get("notes") or []), index_note]
    return restore_feature_info(parts, meta, f"load_dataset: {src.label}")


def _load_parquet(src: Source, label) -> dict:
    return assemble_parquet(src, parse_parquet(src), label)


def _write_parquet(dataset: Dataset, path_or_buffer) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    dataset._check_dense_export("save (Parquet)")
    X = dataset.X.toarray() if dataset.is_sparse else dataset.X
    names = [str(c) for c in dataset.feature_names]
    arrays = [pa.array(X[:, j], type=pa.float64()) for j in range(X.shape[1])]
    label_col = None
    if dataset.y is not None:
        label_col = dataset.label_column()
        if dataset.class_names is not None:
            arrays.append(pa.array([str(v) for v in dataset.labels], type=pa.string()))
        else:
            arrays.append(pa.array(dataset.y))
        names.append(label_col)
    meta = meta_for(dataset)
    meta["label_column"] = label_col
    table = pa.Table.from_arrays(arrays, names=names)
    table = table.replace_schema_metadata({FSVIZ_TAG: json.dumps(meta)})
    sink = path_or_buffer if not isinstance(path_or_buffer, (str, os.PathLike)) else os.fspath(path_or_buffer)
    pq.write_table(table, sink)


#: its registration as a writer (:mod:`fsviz.data.formats.writer_registry`)
WRITER = Writer(
    "parquet", _write_parquet, "Parquet table", suffixes_of("parquet"), aliases=("pq",), feature_info=True
)


#: its registration (:mod:`fsviz.data.formats.registry`)
READER = Reader(
    "parquet",
    _load_parquet,
    "Parquet table",
    suffixes_of("parquet"),
    aliases=("pq",),
    parse=parse_parquet,
    assemble=assemble_parquet,
)
