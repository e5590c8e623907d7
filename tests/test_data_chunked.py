"""Out-of-core sources: same statistics, histograms and pairs as the in-memory array."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from fsviz.data import ChunkedSource, open_chunked
from fsviz.data.chunked import ArraySource, DaskArraySource, NpySource, ParquetSource, ZarrSource
from fsviz.stats import correlated_pairs, correlation_histogram
from fsviz.stats.moments import column_moments, source_moments


@pytest.fixture
def X(rng):
    n, m = 37, 90
    latent = rng.normal(size=(n, 4))
    X = latent @ rng.normal(size=(4, m)) + rng.normal(size=(n, m))
    X[:, 13] = -1.5  # constant
    X[:, 50] = X[:, 2] * 3
    return X


def _npy(tmp_path, X):
    p = tmp_path / "x.npy"
    np.save(p, X)
    return p


def _parquet(tmp_path, X):
    import pandas as pd

    df = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    df["label"] = np.arange(X.shape[0]) % 2
    p = tmp_path / "x.parquet"
    df.to_parquet(p, row_group_size=10)  # several row groups
    return p


def _zarr(tmp_path, X):
    import zarr

    p = tmp_path / "x.zarr"
    z = zarr.open_array(str(p), mode="w", shape=X.shape, chunks=(16, 25), dtype="f8")
    z[:] = X
    return p


def _dask(tmp_path, X):
    da = pytest.importorskip("dask.array")
    return da.from_array(X, chunks=(20, 30))


MAKERS = {"npy": _npy, "parquet": _parquet, "zarr": _zarr, "dask": _dask}


@pytest.mark.parametrize("kind", list(MAKERS))
def test_source_reads_and_stats(tmp_path, X, kind):
    obj = MAKERS[kind](tmp_path, X)
    src = open_chunked(obj, label="label") if kind == "parquet" else open_chunked(obj)
    assert isinstance(src, ChunkedSource) and src.shape == X.shape
    np.testing.assert_array_equal(src.read_columns(5, 47), X[:, 5:47])
    mean, norm = source_moments(src, block_size=17)
    m0, n0 = column_moments(X)
    np.testing.assert_allclose(mean, m0, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(norm, n0, rtol=1e-12, atol=1e-13)
    assert norm[13] == 0.0
    if kind == "parquet":
        assert src.feature_names[:2] == ["f0", "f1"] and "label" not in src.feature_names
        assert src.n_row_groups == 4
    assert source_moments(src)[0] is mean  # one pass per source, then cached
    # file-backed sources pickle without their open handle and work after unpickling
    src2 = pickle.loads(pickle.dumps(src))
    np.testing.assert_array_equal(src2.read_columns(0, 3), X[:, :3])


@pytest.mark.parametrize("kind", list(MAKERS))
def test_histogram_and_pairs_identical_to_memory(tmp_path, X, kind):
    obj = MAKERS[kind](tmp_path, X)
    src = open_chunked(obj, label="label") if kind == "parquet" else obj
    ref = correlation_histogram(X, bins=20, block_size=16)
    got = correlation_histogram(src, bins=20, block_size=16)
    np.testing.assert_array_equal(got.counts, ref.counts)
    np.testing.assert_array_equal(got.constant_features, [13])
    e_ref = correlated_pairs(X, 0.5, output="edges", block_size=16)
    e_got = correlated_pairs(src, 0.5, output="edges", block_size=16)
    np.testing.assert_array_equal(e_got[["i", "j"]].values, e_ref[["i", "j"]].values)
    np.testing.assert_allclose(e_got["rho"], e_ref["rho"], atol=1e-12)


def test_paths_as_strings(tmp_path, X):
    assert isinstance(open_chunked(str(_npy(tmp_path, X))), NpySource)
    assert isinstance(open_chunked(_zarr(tmp_path, X)), ZarrSource)
    assert isinstance(open_chunked(_parquet(tmp_path, X)), ParquetSource)
    assert isinstance(open_chunked(X), ArraySource)
    assert isinstance(open_chunked(_dask(tmp_path, X)), DaskArraySource)


def test_estimate_mode_refuses_out_of_core(tmp_path, X):
    with pytest.raises(ValueError, match="needs X in memory"):
        correlation_histogram(str(_npy(tmp_path, X)), exact=False)


def test_errors(tmp_path, X):
    with pytest.raises(OSError, match="does not exist"):
        open_chunked(tmp_path / "missing.npy")
    (tmp_path / "a.txt").write_text("1,2\n")
    with pytest.raises(ValueError, match="cannot read .* out of core"):
        open_chunked(tmp_path / "a.txt")
    np.save(tmp_path / "v.npy", np.arange(5.0))
    with pytest.raises(ValueError, match="expected 2-D"):
        open_chunked(tmp_path / "v.npy")
    bad = X.copy()
    bad[3, 7] = np.nan
    with pytest.raises(ValueError, match="feature 7 holds NaN"):
        correlation_histogram(str(_npy(tmp_path, bad)))
    with pytest.raises(ValueError, match="label column 'nope' not found"):
        ParquetSource(_parquet(tmp_path, X), label="nope")
    import pandas as pd

    pd.DataFrame({"a": [1.0, 2.0], "s": ["x", "y"]}).to_parquet(tmp_path / "s.parquet")
    with pytest.raises(ValueError, match="non-numeric feature columns"):
        open_chunked(tmp_path / "s.parquet")
    (tmp_path / "c.npy").write_bytes(b"not numpy")
    with pytest.raises(OSError, match="cannot open"):
        open_chunked(tmp_path / "c.npy")
    with pytest.raises(ValueError, match="expected a path"):
        open_chunked(42)


def test_sources_on_local_cluster(tmp_path, X, dask_client):
    client = dask_client
    p = _npy(tmp_path, X)
    ref = correlation_histogram(X, bins=20, block_size=16)
    got = correlation_histogram(str(p), bins=20, block_size=16, client=client)
    np.testing.assert_array_equal(got.counts, ref.counts)
    # a dask array travels as its graph; workers compute their blocks themselves
    got = correlation_histogram(_dask(tmp_path, X), bins=20, block_size=16, client=client)
    np.testing.assert_array_equal(got.counts, ref.counts)
    e_ref = correlated_pairs(X, 0.5, output="edges", block_size=16)
    src = open_chunked(_parquet(tmp_path, X), label="label")
    e_got = correlated_pairs(src, 0.5, output="edges", block_size=16, client=client)
    np.testing.assert_array_equal(e_got[["i", "j"]].values, e_ref[["i", "j"]].values)
