"""fsviz._dask: feature blocks and map_blocks (the local path; the cluster path runs in
tests/test_stats_correlation.py::test_dask_matches_local and tests/test_data_chunked.py)."""

from __future__ import annotations

import numpy as np
import pytest

from fsviz._dask import as_client, feature_blocks, map_blocks, n_tasks_hint, strided_blocks


def _colsum(block, X, *, scale):
    return X[:, block].sum(axis=0) * scale


def test_feature_blocks_cover_in_order():
    blocks = feature_blocks(10, 4)
    assert blocks == [slice(0, 4), slice(4, 8), slice(8, 10)]
    assert feature_blocks(0, 3) == []
    with pytest.raises(ValueError, match="'block_size' must be an int >= 1"):
        feature_blocks(5, 0)


def test_strided_blocks_partition():
    blocks = strided_blocks(10, 3)
    idx = np.sort(np.concatenate([np.arange(10)[b] for b in blocks]))
    np.testing.assert_array_equal(idx, np.arange(10))
    assert len(strided_blocks(2, 8)) == 2


def test_map_blocks_local_order_and_progress(rng):
    X = rng.normal(size=(5, 11))
    seen = []
    out = map_blocks(
        _colsum,
        feature_blocks(11, 3),
        shared=(X,),
        kwargs={"scale": 2.0},
        progress=lambda d, t: seen.append((d, t)),
    )
    np.testing.assert_allclose(np.concatenate(out), 2 * X.sum(axis=0))
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_client_helpers_without_cluster():
    assert as_client(None) is None and n_tasks_hint(None) == 1
    with pytest.raises(OSError, match="could not connect to the Dask scheduler"):
        as_client("tcp://127.0.0.1:1", timeout="1s")
