"""A cached result must not depend on how busy the server was.

GDM picks its BLAS and numba thread counts from the load average (``_scan._free_threads``): its
numba kernels split columns between threads and sum each column in row order, and its BLAS
products split the output, so its results are bitwise the same whatever the thread count --
checked here by running the same Runs as on an idle machine (all cores) and a busy one (one
thread). Other estimators no longer read the load (``_base.blas_limits``): GRM's
eigendecomposition rounded differently on one thread, and is checked here too.
"""

import dataclasses
import os

import numpy as np
import pytest

import fsviz.compute as fc
from fsviz.data import Dataset, make_grouped_classification
from fsviz.select.gdm import _scan


@pytest.fixture(scope="module")
def data():
    X, y, _ = make_grouped_classification(n_samples=300, n_features=5000, n_groups=8, random_state=1)
    return Dataset(X, y, name="threads")


def _arrays(res) -> dict:
    return {f.name: getattr(res, f.name) for f in dataclasses.fields(res) if f.name != "seconds"}


def _same(a, b) -> None:
    for name, va in _arrays(a).items():
        vb = _arrays(b)[name]
        if isinstance(va, np.ndarray):
            assert va.dtype == vb.dtype and va.tobytes() == vb.tobytes(), name
        else:
            assert va == vb, name


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: there is no other thread count to compare")
@pytest.mark.parametrize(
    "run",
    [
        fc.Run("gdm", {"tau": 0.3}),
        fc.Run("gdm", {"tau": 0.2, "corr": "su", "max_iter": 3}),
        fc.Run("grm", {"base": fc.Run("fisher"), "n_top": 300}),
        fc.Run("laplacian"),
    ],
    ids=lambda r: r.method + ("-su" if r.get("corr") == "su" else ""),
)
def test_results_are_bitwise_equal_on_a_busy_and_an_idle_machine(data, run, monkeypatch):
    idle, busy = (0.0, 0.0, 0.0), (100.0, 100.0, 100.0)
    monkeypatch.setattr(_scan.os, "getloadavg", lambda: idle)
    assert _scan._free_threads() == _scan._CPUS
    calm = run.execute(data)
    monkeypatch.setattr(_scan.os, "getloadavg", lambda: busy)
    assert _scan._free_threads() == 1
    loaded = run.execute(data)
    _same(calm, loaded)


def test_grm_scores_are_bitwise_equal_for_any_blas_thread_count(skfeature_path):
    """COIL20's GRM scores differed bitwise between one BLAS thread and two (issue 33): GRM now
    runs its products and eigendecomposition on one thread whatever the machine offers."""
    from threadpoolctl import threadpool_limits

    from fsviz.data import load_dataset
    from fsviz.select import GRM, FisherScore

    ds = load_dataset(skfeature_path("COIL20"))
    s = FisherScore().fit(ds.X, ds.y).scores_
    with threadpool_limits(2):
        two = GRM(n_top=1000).fit(ds.X, s).scores_
    with threadpool_limits(1):
        one = GRM(n_top=1000).fit(ds.X, s).scores_
    assert one.tobytes() == two.tobytes()
