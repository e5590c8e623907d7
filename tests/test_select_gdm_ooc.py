"""GDM on out-of-core input (np.memmap / np.load(mmap_mode="r") / zarr): same results as in
memory, bounded memory, block reads only, Dask workers reopening the file."""

from __future__ import annotations

import pickle
import tracemalloc

import numpy as np
import pytest

from fsviz.data import make_grouped_classification
from fsviz.select import GDM
from fsviz.select._base import readonly
from fsviz.select.gdm import _column_source_kernels as K
from fsviz.select.gdm._column_source import ColumnSource, is_out_of_core


@pytest.fixture(scope="module")
def grouped():
    X, y, truth = make_grouped_classification(n_samples=200, n_features=5000, random_state=0)
    return X.astype(np.float32), y, truth


def _npy(tmp_path, X, order="C", name="x.npy"):
    p = tmp_path / name
    np.save(p, np.asarray(X, order=order))
    return np.load(p, mmap_mode="r")


def _assert_same_fit(a: GDM, b: GDM):
    np.testing.assert_array_equal(a.support_, b.support_)
    assert a.groups_.keys() == b.groups_.keys()
    assert all(np.array_equal(a.groups_[k], b.groups_[k]) for k in a.groups_)
    np.testing.assert_allclose(a.scores_, b.scores_, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a.objective_history_, b.objective_history_, rtol=1e-10)
    assert a.n_correlations_ == b.n_correlations_


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_memmap_fit_equals_in_memory(tmp_path, grouped, order, dtype):
    X, y, truth = grouped
    Xm = _npy(tmp_path, X.astype(dtype), order)
    assert is_out_of_core(Xm)
    ref = GDM(block_size=700).fit(np.asarray(Xm, dtype=np.float64), y)
    ooc = GDM(block_size=700).fit(Xm, y)
    _assert_same_fit(ooc, ref)
    np.testing.assert_allclose(ooc.decision_function(Xm), ref.decision_function(np.asarray(Xm)), rtol=1e-10)
    np.testing.assert_array_equal(ooc.predict(Xm), ref.predict(np.asarray(Xm)))


@pytest.mark.parametrize(
    "params",
    [dict(corr="su", tau=0.5), dict(cv_folds=3, random_state=0), dict(one_class=True)],
    ids=["su", "ecv", "oc"],
)
def test_memmap_other_modes_equal_in_memory(tmp_path, grouped, params):
    X, y, _ = grouped
    X = X[:, :800]
    Xm = _npy(tmp_path, X, "F")
    kw = dict(n_per_iter=4, max_iter=3, block_size=300, **params)
    _assert_same_fit(GDM(**kw).fit(Xm, y), GDM(**kw).fit(np.asarray(X, dtype=np.float64), y))


def test_zarr_fit_equals_in_memory(tmp_path, grouped):
    zarr = pytest.importorskip("zarr")
    X, y, _ = grouped
    Z = zarr.create_array(store=str(tmp_path / "x.zarr"), shape=X.shape, chunks=(200, 1000), dtype="f4")
    Z[:] = X
    assert is_out_of_core(Z)
    _assert_same_fit(GDM(block_size=1000).fit(Z, y), GDM(block_size=1000).fit(X.astype(np.float64), y))


def test_never_materialises_the_whole_array(tmp_path, monkeypatch):
    X, y, _ = make_grouped_classification(n_samples=200, n_features=20000, random_state=1)
    Xm = _npy(tmp_path, X.astype(np.float32), "F")
    full64 = X.size * 8  # 32 MB as float64 (16 MB on disk)
    widths = []
    orig_block = ColumnSource.block

    def counting_block(self, a, b, rows=None):
        widths.append(b - a)
        return orig_block(self, a, b, rows)

    monkeypatch.setattr(ColumnSource, "block", counting_block)
    GDM(max_iter=2, block_size=1000).fit(Xm, y)  # compile the kernels outside the measurement
    widths.clear()
    tracemalloc.start()
    try:
        g = GDM(block_size=1000).fit(Xm, y)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert g.support_.size > 0
    assert widths and max(widths) <= 1000  # only column blocks are ever converted
    assert peak < 0.25 * full64, peak  # one float64 block is 1.6 MB; the whole array 32 MB


def test_float64_memmap_is_not_copied_by_validation(tmp_path):
    X, y, _ = make_grouped_classification(n_samples=200, n_features=20000, random_state=1)
    Xm = _npy(tmp_path, X, "C")
    GDM(max_iter=1, block_size=1000).fit(Xm, y)
    tracemalloc.start()
    try:
        GDM(max_iter=2, block_size=1000).fit(Xm, y)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 0.25 * X.nbytes, peak


def test_out_of_core_validation_errors(tmp_path, grouped):
    X, y, _ = grouped
    Xn = X[:, :300].copy()
    Xn[5, 123] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity .*columns 100\\.\\.199"):
        GDM(block_size=100).fit(_npy(tmp_path, Xn, name="nan.npy"), y)
    with pytest.raises(ValueError, match="one label per sample of X \\(200\\); got 199"):
        GDM().fit(_npy(tmp_path, X[:, :300], name="a.npy"), y[:-1])
    with pytest.raises(ValueError, match="needs labels"):
        GDM().fit(_npy(tmp_path, X[:, :300], name="b.npy"))
    with pytest.raises(ValueError, match="must be 2-D; got shape \\(200,\\)"):
        GDM().fit(_npy(tmp_path, X[:, 0], name="c.npy"), y)
    with pytest.raises(ValueError, match="must hold numbers"):
        GDM().fit(_npy(tmp_path, np.full((200, 3), "a"), name="d.npy"), y)


def test_huge_values_are_scaled_like_in_memory(tmp_path, grouped):
    X, y, _ = grouped
    Xb = X[:, :800].astype(np.float64) * 2.0**400  # above fsviz's EXTREME: scaled by 2^k
    kw = dict(n_per_iter=4, max_iter=3, block_size=300)
    _assert_same_fit(GDM(**kw).fit(_npy(tmp_path, Xb), y), GDM(**kw).fit(Xb, y))


def test_source_pickles_as_a_file_reference(tmp_path, grouped):
    X, _, _ = grouped
    for order in "CF":
        src = ColumnSource(_npy(tmp_path, X, order, name=f"p{order}.npy"))
        src.shift = -3
        blob = pickle.dumps(src)
        assert len(blob) < 2000  # the file name and geometry, not the 4 MB of data
        back = pickle.loads(blob)
        np.testing.assert_array_equal(back.block(10, 50), src.block(10, 50))
        np.testing.assert_array_equal(back.gather([7, 3, 7]), src.gather([7, 3, 7]))
        np.testing.assert_array_equal(back.dot(0, 900, np.ones(200)), src.dot(0, 900, np.ones(200)))


def test_kernels_match_numpy_and_python_bodies():
    rng = np.random.default_rng(0)
    X = readonly(rng.standard_normal((60, 700)).astype(np.float32))  # as ColumnSource passes it
    v = rng.standard_normal(60)
    ref = X.astype(np.float64).T @ v
    F = np.asfortranarray(X)
    np.testing.assert_allclose(K.cols_dot(F, v), ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(K.cols_dot.py_func(F, v), ref, rtol=1e-12, atol=1e-12)
    rows = np.sort(rng.choice(60, 17, replace=False))
    ref_r = X[rows].astype(np.float64).T @ v[rows]
    np.testing.assert_allclose(K.rows_dot_any(X, rows, v[rows]), ref_r, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(K.rows_dot_any.py_func(X, rows, v[rows]), ref_r, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(K.rows_dot_any(X[:, 100:300], rows, v[rows]), ref_r[100:300], rtol=1e-12)


def test_dask_identical_to_local_from_a_memmap(tmp_path, grouped, dask_client):
    X, y, _ = grouped
    Xm = _npy(tmp_path, X, "F")
    local = GDM(n_per_iter=4, max_iter=3, block_size=1000).fit(Xm, y)
    remote = GDM(n_per_iter=4, max_iter=3, block_size=1000).fit(Xm, y, client=dask_client)
    np.testing.assert_array_equal(local.support_, remote.support_)
    assert all(np.array_equal(local.groups_[k], remote.groups_[k]) for k in local.groups_)
    np.testing.assert_array_equal(local.scores_, remote.scores_)
    np.testing.assert_array_equal(local.objective_history_, remote.objective_history_)
