"""Every selector in the registry: one answer per dataset, and constant features never ahead.

Two properties checked on one small labelled data set with constant columns (one all-zero,
one non-zero constant, one constant zero column), for every selection method of
:data:`fsviz.compute.METHODS`:

* the ranking (``Selection.indices``) is the same for dense and sparse storage of the same
  data, and for 1 and 2 BLAS / numba threads;
* no constant feature comes before a non-constant one, and a constant feature is chosen at
  all only once every non-constant feature is (a constant carries no information; a
  negative score, as ReliefF's or the trace ratio's, only says "below average").
"""

from __future__ import annotations

import numba
import numpy as np
import pytest
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from fsviz.compute import METHODS, Run
from fsviz.compute.registry import selection_methods
from fsviz.data import Dataset

N, M = 48, 24  # n >= 2m: model-X knockoffs apply
CONSTANT = (3, 8, 11)

#: runs that need another run as input (GRM refines a base score; group-SAOLA streams GDM's groups)
_PARAMS = {
    "grm": {"base": Run("fisher", {}), "n_top": 24},
    "group-saola": {"groups": Run("gdm", {})},
    "knockoffs": {"fdr": 1.0, "statistic": "score"},  # q = 1: two informative features can pass
}


def _data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.random((N, M)) * 3.0
    X[X < 1.0] = 0.0  # non-negative (chi-square) with zeros (sparse storage is real)
    y = np.repeat([0, 1], N // 2)
    X[:, 2] += 1.5 * y
    X[:, 5] += y
    X[:, 3] = 0.0
    X[:, 8] = 2.0  # a non-zero constant: a stand-in for an intercept if nothing prevents it
    X[:, 11] = 0.0
    return X, y


@pytest.fixture(scope="module")
def datasets() -> dict[str, Dataset]:
    X, y = _data()
    return {
        "dense": Dataset(X, y=y, name="dense"),
        "csc": Dataset(sp.csc_matrix(X), y=y, name="csc"),
        "csr": Dataset(sp.csr_matrix(X), y=y, name="csr"),
    }


def _order(name: str, ds: Dataset, threads: int) -> np.ndarray:
    run = Run(name, _PARAMS.get(name, {}), 0)
    old = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        with threadpool_limits(threads):
            return np.asarray(run.execute(ds).selection().indices, dtype=np.int64)
    finally:
        numba.set_num_threads(old)


def test_every_selection_method_is_covered():
    assert set(selection_methods()) == {n for n, m in METHODS.items() if m.selects}
    assert len(selection_methods()) >= 40


@pytest.mark.parametrize("name", selection_methods())
def test_one_ranking_for_dense_sparse_and_threads(name, datasets):
    ref = _order(name, datasets["dense"], 1)
    assert ref.size > 0, f"{name}: empty selection on a data set with two informative features"
    for storage, threads in (("dense", 2), ("csc", 1), ("csr", 2)):
        got = _order(name, datasets[storage], threads)
        assert got.tolist() == ref.tolist(), f"{name}: {storage} with {threads} thread(s) ranks differently"


@pytest.mark.parametrize("name", selection_methods())
def test_constant_features_never_ahead(name, datasets):
    order = _order(name, datasets["dense"], 1).tolist()
    const = [f for f in order if f in CONSTANT]
    if not const:
        return
    non_const = [f for f in order if f not in CONSTANT]
    assert len(non_const) == M - len(CONSTANT), f"{name} chose constant {const} before all varying features"
    first_const = min(order.index(f) for f in const)
    assert first_const == len(non_const), f"{name} ranks a constant feature ahead: {order}"


def test_constant_columns_kernel_equals_its_python_body():
    from fsviz.select._base import constant_features
    from fsviz.select._score_kernels import constant_columns

    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(7, 40)).astype(np.float64)
    X[:, [3, 17]] = 0.0
    X[:, 5] = -2.5
    X[6, 9] = 1e-300  # differs from the others only in the last row
    X[:, 9] = 0.0
    X[6, 9] = 1e-300
    ref = X.max(axis=0) == X.min(axis=0)
    assert constant_columns(X).tolist() == ref.tolist()
    assert constant_columns.py_func(X).tolist() == ref.tolist()
    assert constant_features(np.asfortranarray(X)).tolist() == ref.tolist()
    assert constant_features(sp.csr_matrix(X)).tolist() == ref.tolist()
    assert constant_features(X[:1]).all()
