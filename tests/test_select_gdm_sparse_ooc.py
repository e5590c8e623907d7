"""GDM on a CSC matrix over memory maps (a seeds text shape): the sparse out-of-core column
source reads blocks with pread and gives exactly the in-memory sparse fit."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import scipy.sparse as sp

from fsviz.data import load_dataset
from fsviz.data.seeds import write_seed_shape
from fsviz.select import GDM
from fsviz.select.gdm._column_source import SparseColumnSource, is_out_of_core, make_source


@pytest.fixture(scope="module")
def webspam(tmp_path_factory):
    d = write_seed_shape("webspam", tmp_path_factory.mktemp("ws") / "ws", scale=0.001)
    ds = load_dataset(d)
    X = ds.X
    Xm = sp.csc_matrix((np.array(X.data), np.array(X.indices), np.array(X.indptr)), shape=X.shape)
    return ds, Xm


def _mapped_csc(tmp_path, A: sp.csc_matrix, idx_dtype=np.int32):
    """``A`` written as three .npy files and opened as load_seed_shape does (memory maps)."""
    np.save(tmp_path / "d.npy", A.data)
    np.save(tmp_path / "i.npy", A.indices.astype(idx_dtype))
    np.save(tmp_path / "p.npy", A.indptr.astype(idx_dtype))
    X = sp.csc_matrix(A.shape, dtype=A.dtype)
    X.data = np.load(tmp_path / "d.npy", mmap_mode="r")
    X.indices = np.load(tmp_path / "i.npy", mmap_mode="r")
    X.indptr = np.load(tmp_path / "p.npy", mmap_mode="r")
    return X


def _assert_identical(a: GDM, b: GDM):
    np.testing.assert_array_equal(a.support_, b.support_)
    assert a.groups_.keys() == b.groups_.keys()
    assert all(np.array_equal(a.groups_[k], b.groups_[k]) for k in a.groups_)
    np.testing.assert_array_equal(a.scores_, b.scores_)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.objective_history_, b.objective_history_)
    assert a.n_correlations_ == b.n_correlations_


@pytest.mark.parametrize(
    "params",
    [{}, {"one_class": True}, {"corr": "su"}, {"cv_folds": 3, "random_state": 0}],
    ids=["binary", "oc", "su", "ecv"],
)
def test_mapped_csc_fit_equals_in_memory(webspam, params):
    ds, Xm = webspam
    assert is_out_of_core(ds.X) and not is_out_of_core(Xm)
    assert isinstance(make_source(ds.X), SparseColumnSource)
    kw = dict(n_per_iter=5, max_iter=4, **params)
    a = GDM(**kw).fit(ds.X, ds.y)
    b = GDM(**kw).fit(Xm, ds.y)
    _assert_identical(a, b)
    np.testing.assert_array_equal(a.decision_function(ds.X), b.decision_function(Xm))


def test_source_blocks_and_gathers_equal_scipy(webspam):
    ds, Xm = webspam
    src = make_source(ds.X)
    B = src.block(100, 2100)
    assert sp.issparse(B) and B.format == "csc" and B.dtype == np.float64
    assert (B != Xm[:, 100:2100]).nnz == 0
    cols = np.array([5, 3000, 7, 5, 12000])
    G = src.gather_sparse(cols)
    assert (G != Xm[:, cols]).nnz == 0
    np.testing.assert_array_equal(src.gather(cols), Xm[:, cols].toarray())
    rows = np.arange(0, Xm.shape[0], 3)
    np.testing.assert_array_equal(src.gather(cols, rows), Xm[:, cols].toarray()[rows])
    v = np.linspace(-1, 1, Xm.shape[0])
    np.testing.assert_array_equal(src.dot(0, 4000, v), Xm[:, :4000].T @ v)
    # pickles as file references (no data), reads the same after unpickling
    blob = pickle.dumps(src)
    assert len(blob) < 8 * (Xm.shape[1] + 1) + 4096
    src2 = pickle.loads(blob)
    assert (src2.block(100, 2100) != B).nnz == 0


def test_float32_int64_and_extreme_values(tmp_path, webspam):
    """Other stored dtypes and values scaled by a power of two (scale_extreme) match too."""
    _, Xm = webspam
    A = Xm[:, :6000].astype(np.float32) * np.float32(1e30)
    X = _mapped_csc(tmp_path, sp.csc_matrix(A), idx_dtype=np.int64)
    y = np.arange(A.shape[0]) % 2
    kw = dict(n_per_iter=5, max_iter=3)
    _assert_identical(GDM(**kw).fit(X, y), GDM(**kw).fit(A.astype(np.float64), y))


def test_dataset_of_a_mapped_csc_stays_mapped(webspam):
    """load_dataset keeps the memory maps (no copy); the fingerprint is the in-memory one's."""
    ds, Xm = webspam
    assert isinstance(ds.X.data, np.memmap) and isinstance(ds.X.indices, np.memmap)
    from fsviz.data import Dataset

    assert Dataset(Xm, y=ds.y, name=ds.name).fingerprint == Dataset(ds.X, y=ds.y, name=ds.name).fingerprint


# ----------------------------------------------------------------------------- sparse SFs
@pytest.fixture(scope="module")
def kdd(tmp_path_factory):
    d = write_seed_shape("kdd2010", tmp_path_factory.mktemp("kdd") / "kdd", scale=0.001)
    return load_dataset(d)


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"tau": 0.6},
        {"one_class": True, "tau": 0.6},
        {"loss_free": "regression"},
        {"corr": "su"},
        {"corr": "su", "tau": 0.6},
        {"corr": "su", "one_class": True, "tau": 0.6},
        {"corr": "su", "continuous": True, "tau": 0.6},
    ],
    ids=["binary", "binary-tau0.6", "oc-tau0.6", "regression", "su", "su-tau0.6", "su-oc", "su-uniform"],
)
def test_sparse_sfs_equal_dense_sfs(kdd, monkeypatch, params):
    """Sparse SFs (walk buffers, completion by rows, sparse master design; SU: narrow codes
    and contingency counts over the candidates' non-zeros) give the dense SF path's supports,
    groups, objectives and scores (to rounding)."""
    from fsviz.select.gdm import _sparse_sf

    params = dict(params)
    y = kdd.y
    if params.pop("loss_free", None):  # regression on a continuous target
        y = kdd.y + 0.1 * np.arange(y.size) / y.size
    X = kdd.X
    if params.pop("continuous", None):  # non-integer values: SU bins them ("uniform")
        X = sp.csc_matrix((np.asarray(X.data) * 1.37 + 0.01, X.indices, X.indptr), shape=X.shape)
    kw = dict(n_per_iter=5, max_iter=4, **params)
    monkeypatch.setattr(_sparse_sf, "SPARSE_SF_BYTES", 1 << 62)
    dense = GDM(**kw).fit(X, None if params.get("one_class") else y)
    monkeypatch.setattr(_sparse_sf, "SPARSE_SF_BYTES", 0)
    assert _sparse_sf.use_sparse_sfs(X, X.shape[0], 20, kw.get("corr", "pearson"), False)
    sparse = GDM(**kw).fit(X, None if params.get("one_class") else y)
    np.testing.assert_array_equal(sparse.support_, dense.support_)
    assert sparse.groups_.keys() == dense.groups_.keys()
    assert all(np.array_equal(sparse.groups_[k], dense.groups_[k]) for k in sparse.groups_)
    assert all(np.allclose(sparse.group_corr_[k], dense.group_corr_[k], rtol=1e-10) for k in sparse.groups_)
    assert sum(len(g) for g in dense.groups_.values()) > 0  # the comparison covers some groups
    np.testing.assert_allclose(sparse.scores_, dense.scores_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(sparse.objective_history_, dense.objective_history_, rtol=1e-10)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-8, atol=1e-12)
    assert sparse.n_correlations_ == dense.n_correlations_
    np.testing.assert_allclose(sparse.decision_function(X), dense.decision_function(X), atol=1e-10)


def test_sparse_design_equals_dense():
    """SparseDesign M = S - 1 c': products, transposed products, columns and Gram matrices."""
    from fsviz.select.gdm._sparse_sf import SparseDesign

    rng = np.random.default_rng(0)
    S = sp.random(300, 7, density=0.2, random_state=1, format="csc")
    c = rng.normal(size=7)
    M = S.toarray() - c
    D = SparseDesign(S, c)
    W = rng.normal(size=(7, 2))
    V = rng.normal(size=(300, 2))
    np.testing.assert_allclose(D @ W, M @ W, atol=1e-12)
    np.testing.assert_allclose(D.tmat(V), M.T @ V, atol=1e-12)
    idx = np.array([1, 4])
    np.testing.assert_allclose(D.take(idx) @ W[idx], M[:, idx] @ W[idx], atol=1e-12)
    mask = rng.random(300) < 0.4
    G, b = D.gram(mask, V[:, 0])
    np.testing.assert_allclose(G, M[mask].T @ M[mask], atol=1e-10)
    np.testing.assert_allclose(b, M[mask].T @ V[mask, 0], atol=1e-10)


@pytest.mark.parametrize("form", ["by-rows", "split"])
@pytest.mark.parametrize(
    "params", [{}, {"one_class": True, "tau": 0.6}, {"tau": 0.6}], ids=["binary", "oc", "tau0.6"]
)
def test_completion_by_rows_equals_dense_sf_rows(webspam, monkeypatch, params, form):
    """Dense SFs that are mostly zeros (one-class SFs of text are rare terms) complete their
    groups by rows (SparseZ), or with the heavy ones' products from one ordered pass over each
    block's rows (SplitZ); groups and correlations equal the row-of-Zr kernel's."""
    from fsviz.select.gdm import _complete, _sparse_sf

    ds, Xm = webspam
    kw = dict(n_per_iter=5, max_iter=4, **params)
    y = None if params.get("one_class") else ds.y
    monkeypatch.setattr(_sparse_sf, "BY_ROWS_SHARE", -1.0)
    rows_of_z = GDM(**kw).fit(Xm, y)
    monkeypatch.setattr(_sparse_sf, "BY_ROWS_SHARE", 1.0)
    monkeypatch.setattr(_sparse_sf, "HEAVY_SHARE", 2.0 if form == "by-rows" else 0.05)
    monkeypatch.setattr(_sparse_sf, "STREAM_ENTRIES", 0.0)
    monkeypatch.setattr(_sparse_sf, "STREAM_MIN_BYTES", 0)
    calls = []
    kernel = "heavy_products" if form == "split" else "sparse_sf_complete_pcc"
    real = getattr(_complete, kernel)
    monkeypatch.setattr(_complete, kernel, lambda *a: calls.append(1) or real(*a))
    other = GDM(**kw).fit(Xm, y)
    assert calls  # that form ran
    np.testing.assert_array_equal(other.support_, rows_of_z.support_)
    assert sum(len(g) for g in rows_of_z.groups_.values()) > 0
    for k in rows_of_z.groups_:
        np.testing.assert_array_equal(other.groups_[k], rows_of_z.groups_[k])
        np.testing.assert_allclose(other.group_corr_[k], rows_of_z.group_corr_[k], rtol=1e-10)
    assert other.n_correlations_ == rows_of_z.n_correlations_


@pytest.mark.parametrize(
    "params", [{}, {"corr": "su"}, {"one_class": True, "tau": 0.6}], ids=["binary", "su", "oc"]
)
def test_sparse_sfs_on_dask_equal_local(kdd, monkeypatch, dask_client, params):
    """Sparse SFs on a LocalCluster: the SFs' row form goes to the workers once (scattered),
    and the fit equals the local one."""
    from fsviz.select.gdm import _sparse_sf

    monkeypatch.setattr(_sparse_sf, "SPARSE_SF_BYTES", 0)
    kw = dict(n_per_iter=5, max_iter=3, **params)
    y = None if params.get("one_class") else kdd.y
    local = GDM(**kw).fit(kdd.X, y)
    remote = GDM(**kw).fit(kdd.X, y, client=dask_client)
    _assert_identical(local, remote)
    assert sum(len(g) for g in local.groups_.values()) > 0
