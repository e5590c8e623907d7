"""The GDM paper's data shapes at small scale: written block by block, opened memory-mapped."""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from fsviz.data import load_dataset
from fsviz.data.seeds import SEED_SHAPES, SeedTruth, load_seed_shape, write_seed_shape
from fsviz.select import GDM

SMALL = {"news20": 0.02, "kdd2010": 5e-5, "webspam": 3e-4, "psoriasis": 0.02}


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    root = tmp_path_factory.mktemp("seeds")
    return {s: write_seed_shape(s, root / s, scale=SMALL[s], block_bytes=1 << 16) for s in SMALL}


@pytest.mark.parametrize("shape", sorted(SMALL))
def test_shape_and_value_type(written, shape):
    spec = SEED_SHAPES[shape]
    ds = load_dataset(written[shape])
    n, m = ds.shape
    assert n == max(40, round(spec.n_samples * SMALL[shape]))
    assert m == max(200, round(spec.n_features * SMALL[shape]))
    assert ds.y.shape == (n,) and set(np.unique(ds.y)) == {0, 1}
    X = ds.X
    if spec.kind == "text":
        assert sp.isspmatrix_csc(X) and X.dtype == np.float64
        assert X.nnz >= min(round(spec.nnz * SMALL[shape]), n * m // 8) * 0.95
        assert np.all(np.diff(X.indptr) >= 1)  # every term occurs (as in news20), no constant column
        assert len(ds.constant_features) == 0
        Y = sp.csc_matrix((np.array(X.data), np.array(X.indices), np.array(X.indptr)), shape=X.shape)
        Y.check_format(full_check=True)
        canon = Y.copy()
        canon.sum_duplicates()
        assert canon.nnz == Y.nnz  # sorted, no duplicate (document, term) pairs
        assert np.all(Y.data >= 1) and np.all(Y.data == np.round(Y.data))  # term counts
    else:
        assert isinstance(X, np.memmap) and X.dtype == np.int8 and X.flags.f_contiguous
        assert set(np.unique(np.asarray(X))) <= {0, 1, 2}


@pytest.mark.parametrize("shape", sorted(SMALL))
def test_opened_memory_mapped_read_only(written, shape):
    X, y, truth, meta = load_seed_shape(written[shape])
    arrays = [X] if isinstance(X, np.ndarray) else [X.data, X.indices, X.indptr]
    for a in arrays:
        assert isinstance(a, np.memmap) and not a.flags.writeable
    ds = load_dataset(written[shape])
    if sp.issparse(ds.X):
        assert np.shares_memory(ds.X.data, X.data) or isinstance(ds.X.data, np.memmap)
        assert isinstance(ds.X.indices, np.memmap)
    else:
        assert isinstance(ds.X, np.memmap)  # not widened to float64, not copied
    assert ds.fingerprint == load_dataset(written[shape]).fingerprint
    assert ds.meta["shape_name"] == shape and isinstance(ds.truth, SeedTruth)


@pytest.mark.parametrize("shape", ["news20", "psoriasis"])
def test_deterministic_and_seeded(tmp_path, written, shape):
    a = load_dataset(write_seed_shape(shape, tmp_path / "a", scale=SMALL[shape], block_bytes=1 << 16))
    b = load_dataset(write_seed_shape(shape, tmp_path / "b", scale=SMALL[shape], random_state=1))
    assert a.fingerprint == load_dataset(written[shape]).fingerprint
    assert a.fingerprint != b.fingerprint


@pytest.mark.parametrize("shape", sorted(SMALL))
def test_planted_groups_are_correlated(written, shape):
    ds = load_dataset(written[shape])
    for s in ds.truth.support:
        cols = [int(s), *ds.truth.groups[int(s)].tolist()]
        assert 2 <= len(cols) - 1 <= 5
        B = ds.X[:, cols]
        B = B.toarray() if sp.issparse(B) else np.asarray(B, dtype=np.float64)
        r = np.corrcoef(B.T)[0, 1:]
        assert np.all(r >= 0.75), (shape, s, r)  # above GDM's default 1 - tau = 0.7


def test_writer_holds_one_block(tmp_path):
    tracemalloc.start()
    d = write_seed_shape("psoriasis", tmp_path / "p", scale=0.05, block_bytes=1 << 16)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    size = (d / "X.npy").stat().st_size
    assert size > 2_500_000 and peak < 0.5 * size, (peak, size)


@pytest.mark.parametrize("shape", ["news20", "psoriasis"])
def test_gdm_finds_planted_groups_from_the_memory_map(tmp_path, shape):
    # 1,000 documents / 218 genotyped samples: enough for the planted signal to stand out
    ds = load_dataset(write_seed_shape(shape, tmp_path / shape, scale=0.1))
    g = GDM(n_per_iter=4, max_iter=4).fit(ds.X, ds.y)
    assert ds.truth.recovered(g.support_, g.groups_) >= 6, shape  # of 8 planted groups
    # the same fit from an in-memory copy (CSC arrays in RAM; dense float64 genotypes)
    X = ds.X.copy() if sp.issparse(ds.X) else np.asarray(ds.X, dtype=np.float64)
    ref = GDM(n_per_iter=4, max_iter=4).fit(X, ds.y)
    assert list(g.support_) == list(ref.support_)
    # (the order inside a group is by |rho|, and ties at |rho| = 1 may differ in the last bit)
    assert {k: sorted(v) for k, v in g.groups_.items()} == {k: sorted(v) for k, v in ref.groups_.items()}


def test_recovered_counts_planted_groups():
    truth = SeedTruth(np.array([1, 5]), {1: np.array([2, 3]), 5: np.array([6])})
    assert truth.recovered([1, 5], {1: np.array([2, 3]), 5: np.array([6])}) == 2
    assert truth.recovered([2, 6], {2: np.array([1, 3, 9]), 6: np.array([])}) == 1  # 5 not in 6's group
    assert truth.recovered([9], {9: np.array([1, 2, 3])}) == 0  # 9 is not planted in the group


def test_errors(tmp_path):
    with pytest.raises(ValueError, match="'shape' must be one of"):
        write_seed_shape("rcv1", tmp_path / "x")
    with pytest.raises(ValueError, match="'scale' must be a number in"):
        write_seed_shape("news20", tmp_path / "x", scale=2)
    d = write_seed_shape("kdd2010", tmp_path / "k", scale=1e-5)
    with pytest.raises(ValueError, match="exists and is not empty"):
        write_seed_shape("kdd2010", d, scale=1e-5)
