"""fsviz._dask: feature blocks and map_blocks (the local path; the cluster path runs in
tests/test_stats_correlation.py::test_dask_matches_local and tests/test_data_chunked.py)."""

from __future__ import annotations

import numpy as np
import pytest

from fsviz._dask import (
    as_client,
    check_scheduler_address,
    feature_blocks,
    map_blocks,
    n_tasks_hint,
    strided_blocks,
)


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


@pytest.mark.parametrize(
    "address", ["tcp://10.0.0.5:8786", "10.0.0.5:8786", "tls://head.lab-1:8786", "[::1]:8786"]
)
def test_accepted_scheduler_addresses(address):
    assert check_scheduler_address(f" {address} ") == address


@pytest.mark.parametrize(
    "address", ["ucx://10.0.0.5:8786", "inproc://x", "ws://h:1", "garbage", "tcp://h", "tcp://h:0", ""]
)
def test_unsupported_scheduler_addresses_name_the_accepted_forms(address):
    with pytest.raises(ValueError, match=r"Expected tcp://HOST:PORT, tls://HOST:PORT or HOST:PORT"):
        as_client(address, timeout="1s")  # refused before any connection is tried


class _LostClient:
    """A client whose scheduler died under a run: its futures come back cancelled, and Dask has
    closed it (what ``kill -9`` of the scheduler does to a run in flight)."""

    status = "closed"
    scheduler = None
    _start_arg = "tcp://127.0.0.1:8786"

    class _Future:
        def release(self):
            pass

    def scatter(self, objs, **kwargs):
        return [self._Future() for _ in objs]

    def submit(self, *args, **kwargs):
        return self._Future()

    def gather(self, futures):
        from distributed.client import FutureCancelledError

        raise FutureCancelledError("blocks-0", "scheduler-connection-lost")

    def cancel(self, futures):
        pass

    def nthreads(self):
        return {"w": 1}


def test_a_run_whose_scheduler_dies_fails_with_the_address_and_the_fix(rng):
    pytest.importorskip("distributed")
    from fsviz._dask import SchedulerLostError
    from fsviz.compute import Run
    from fsviz.data import Dataset

    ds = Dataset(rng.normal(size=(20, 30)), name="x")
    with pytest.raises(SchedulerLostError, match="scheduler at tcp://127.0.0.1:8786 was lost") as e:
        Run("histogram", {}).execute(ds, client=_LostClient())
    assert isinstance(e.value, OSError) and "start the scheduler again" in str(e.value)
    local = Run("histogram", {}).execute(ds)  # the same run in this process
    assert local.counts.sum() == 30 * 29 // 2
