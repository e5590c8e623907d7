"""The Parquet reader's float columns read band by band into one float64 block."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import fsviz.data as fd
from fsviz.data.blocks import carried
from fsviz.data.formats import parquet


@pytest.mark.parametrize("pandas_meta", [False, True])
@pytest.mark.parametrize("band", [1, 3, 2048])
@pytest.mark.filterwarnings("ignore::fsviz.data.DataWarning")
def test_band_reads_equal_the_whole_table_read(tmp_path, monkeypatch, pandas_meta, band):
    rng = np.random.default_rng(band)
    n = 37
    cols = {
        "sample": [f"S{i}" for i in range(n)],
        "f32a": rng.normal(size=n).astype(np.float32),
        "count": rng.integers(0, 5, n),
        "f64": rng.normal(size=n),
        "group": rng.choice(["a", "b"], n),
        "f32b": rng.normal(size=n).astype(np.float32),
        "f16": rng.normal(size=n).astype(np.float16),
    }
    frame = pd.DataFrame(cols)
    frame.loc[rng.random(n) < 0.2, "f32a"] = np.nan
    path = tmp_path / "t.parquet"
    if pandas_meta:
        frame.to_parquet(path, index=False)
    else:
        table = pa.table({k: pa.array(v) for k, v in frame.items()})
        table = table.set_column(1, "f32a", pa.array(frame["f32a"].to_numpy(), from_pandas=True))
        pq.write_table(table.replace_schema_metadata(None), path)
    monkeypatch.setattr(parquet, "_BAND", band)
    got = fd.parse_source(path, plan=fd.ImportPlan(label="group", missing="median"))
    df = got.payload["frame"]
    assert carried(df, "float_block") is not None
    assert df.columns.tolist() == list(cols)
    whole = pq.read_table(path).to_pandas()
    for c in cols:
        if whole[c].dtype.kind == "f":
            assert df[c].dtype == np.float64
            np.testing.assert_array_equal(df[c].to_numpy(), whole[c].to_numpy(dtype=np.float64))
        else:
            assert df[c].astype(str).tolist() == whole[c].astype(str).tolist()
    plan = fd.ImportPlan(label="group", missing="median")
    ds = fd.assemble(got, plan)
    monkeypatch.setattr(parquet, "_float_frame", lambda pf, schema: None)  # the whole-table read
    ref = fd.assemble(fd.parse_source(path, plan=plan), plan)
    assert ds.fingerprint == ref.fingerprint
    np.testing.assert_array_equal(ds.X, ref.X)
    assert ds.feature_names.tolist() == ref.feature_names.tolist()


@pytest.mark.filterwarnings("ignore::fsviz.data.DataWarning")
@pytest.mark.parametrize("dtype", [np.float32, np.float64, "mixed"])
def test_a_preview_from_the_parse_equals_the_preview_read_from_the_file(tmp_path, dtype):
    rng = np.random.default_rng(1)
    n = 40
    frame = pd.DataFrame(rng.normal(size=(n, 8)), columns=[f"cg{j}" for j in range(8)])
    frame = frame.astype(np.float32 if dtype == "mixed" else dtype)
    if dtype == "mixed":
        frame["cg7"] = frame["cg7"].astype(np.float64)
    frame.iloc[2, 3] = np.nan
    frame.insert(0, "sample", [f"S{i}" for i in range(n)])
    frame["diagnosis"] = rng.choice(["tumour", "normal"], n)
    path = tmp_path / "m.parquet"
    frame.to_parquet(path)
    plan = fd.ImportPlan(label="auto", missing="median")
    read = fd.inspect_table(path, plan=plan, nrows=25)
    reused = fd.inspect_table(path, plan=plan, nrows=25, parsed=fd.parse_source(path, plan=plan))
    assert (reused.target, reused.plan, reused.n_columns) == (read.target, read.plan, read.n_columns)
    roles = [(r.name, r.role, r.reason) for r in read.roles]
    assert [(r.name, r.role, r.reason) for r in reused.roles] == roles
    assert reused.frame.columns.tolist() == read.frame.columns.tolist() and len(reused.frame) == 25
    for c in read.frame.columns:
        if read.frame[c].dtype.kind == "f":
            same = read.frame[c].dtype == reused.frame[c].dtype
            assert same or dtype == "mixed"  # mixed float types: previewed as float64
            got, want = reused.frame[c].to_numpy(np.float64), read.frame[c].to_numpy(np.float64)
            np.testing.assert_array_equal(got, want)
        else:
            assert reused.frame[c].astype(str).tolist() == read.frame[c].astype(str).tolist()


@pytest.mark.parametrize("shape", [(1, 5), (2, 9), (57, 300), (400, 40_005)])
def test_constant_columns_by_row_bands_equal_the_whole_matrix_comparison(shape):
    from fsviz.data.columns import constant_columns

    rng = np.random.default_rng(shape[1])
    X = rng.integers(0, 2, shape).astype(float)
    X[:, ::7] = 3.0
    X[:, 1] = np.nan  # never equal to itself: not constant
    X[-1, -1] = 4.0  # differs only in the last band
    expected = np.flatnonzero(np.all(X == X[0:1, :], axis=0))
    np.testing.assert_array_equal(constant_columns(X), expected)
    np.testing.assert_array_equal(constant_columns(np.asfortranarray(X)), expected)


def test_a_wide_parquet_preview_is_capped_in_cells_read_or_parsed(tmp_path):
    from fsviz.data.inspect import PREVIEW_CELLS

    m = PREVIEW_CELLS // 20 + 7  # 200 rows would be ~20x the cells
    table = pa.table({f"g{j}": pa.array(np.full(60, j / 7, dtype=np.float32)) for j in range(m)})
    path = tmp_path / "wide.parquet"
    pq.write_table(table, path)
    plan = fd.ImportPlan(label=None)
    read = fd.inspect_table(path, plan=plan)
    reused = fd.inspect_table(path, plan=plan, parsed=fd.parse_source(path, plan=plan))
    assert len(read.frame) == len(reused.frame) == max(10, PREVIEW_CELLS // m)
    np.testing.assert_array_equal(read.frame.to_numpy(), reused.frame.to_numpy())
