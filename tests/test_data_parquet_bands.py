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
