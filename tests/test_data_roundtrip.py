"""Property-based round trips: save -> load keeps every value, name, label and order exactly."""

from __future__ import annotations

import io
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fsviz.data import Dataset, DataWarning, load_dataset, save_dataset
from fsviz.data.loaders import LABEL_CANDIDATES
from fsviz.data.roles import _id_named

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_BAD_CHARS = ',"\t\r\n\ufeff'
name_chars = st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp"), blacklist_characters=_BAD_CHARS)


def _is_number(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


feature_name = st.text(name_chars, min_size=1, max_size=8).filter(
    # a column named like an id ("id", "sample_id", ...) holding a distinct whole number per row
    # is read back as the identifier it looks like (documented); R's default names "X" and "V1"
    # are only with id-like values, and stay in
    lambda s: (
        s.strip() == s
        and s.strip() != ""
        and s.lower() not in LABEL_CANDIDATES
        and (not _id_named(s) or s.lower() in ("x", "v1"))
    )
)
class_name = st.text(name_chars, min_size=1, max_size=6).filter(
    lambda s: s.strip() == s and s != "" and not _is_number(s)
)
finite = st.floats(allow_nan=False, allow_infinity=False, width=64)


@st.composite
def datasets(draw, labels=("none", "int", "float", "str"), sparse: bool = False):
    n = draw(st.integers(1, 7))
    m = draw(st.integers(1, 6))
    if sparse:
        mask = np.array(draw(st.lists(st.booleans(), min_size=n * m, max_size=n * m))).reshape(n, m)
        vals = np.array(draw(st.lists(finite.filter(lambda v: v != 0), min_size=n * m, max_size=n * m)))
        X = sp.csr_matrix(np.where(mask, vals.reshape(n, m), 0.0))
    else:
        X = np.array(draw(st.lists(finite, min_size=n * m, max_size=n * m))).reshape(n, m)
    names = draw(st.one_of(st.none(), st.lists(feature_name, min_size=m, max_size=m, unique=True)))
    kind = draw(st.sampled_from(labels))
    y = None
    if kind == "int":
        y = draw(st.lists(st.integers(-(2**40), 2**40), min_size=n, max_size=n))
    elif kind == "float":
        y = draw(st.lists(finite.filter(lambda v: v != round(v)), min_size=n, max_size=n))
    elif kind == "str":
        pool = draw(st.lists(class_name, min_size=1, max_size=3, unique=True))
        y = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
    return Dataset(X, y=y, feature_names=names, name="rt")


def _roundtrip(ds: Dataset, fmt: str, **kw) -> Dataset:
    buf = io.BytesIO()
    save_dataset(ds, buf, fmt=fmt)
    buf.seek(0)
    buf.name = f"rt.{fmt}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        return load_dataset(buf, **kw)


def _same_content(a: Dataset, b: Dataset) -> None:
    Xa = a.X.toarray() if sp.issparse(a.X) else a.X
    Xb = b.X.toarray() if sp.issparse(b.X) else b.X
    assert Xa.shape == Xb.shape
    np.testing.assert_array_equal(Xa, Xb)  # -0.0 == 0.0 here; bit identity is checked via fingerprints
    assert a.feature_names.tolist() == b.feature_names.tolist()
    if a.y is None:
        assert b.y is None
    else:
        assert b.labels.tolist() == a.labels.tolist()


@SETTINGS
@given(ds=datasets())
@pytest.mark.parametrize("fmt", ["csv", "tsv"])
def test_csv_roundtrip_exact(ds, fmt):
    back = _roundtrip(ds, fmt)  # label="auto" finds the written 'label' column
    _same_content(ds, back)
    Xb = np.ascontiguousarray(back.X)
    assert Xb.tobytes() == ds.X.tobytes()  # bit for bit (shortest round-trip repr), -0.0 included
    if ds.class_names is None:
        assert back.fingerprint == ds.fingerprint
    else:  # labels come back by name, encoded in sorted order: identical since Dataset sorts too
        assert back.class_names.tolist() == ds.class_names.tolist()
        assert back.fingerprint == ds.fingerprint


@SETTINGS
@given(ds=datasets())
def test_parquet_roundtrip_exact(ds):
    back = _roundtrip(ds, "parquet")
    _same_content(ds, back)
    assert back.fingerprint == ds.fingerprint


@SETTINGS
@given(ds=st.one_of(datasets(), datasets(sparse=True)))
def test_npz_roundtrip_exact(ds):
    back = _roundtrip(ds, "npz")
    _same_content(ds, back)
    assert back.fingerprint == ds.fingerprint
    assert sp.issparse(back.X) == sp.issparse(ds.X)


@SETTINGS
@given(ds=st.one_of(datasets(), datasets(sparse=True)))
def test_svmlight_roundtrip_exact(ds):
    """Storage (dense, CSR, CSC) and label type travel in fsviz's header: the fingerprint round-trips."""
    back = _roundtrip(ds, "svmlight")
    _same_content(ds, back)
    assert sp.issparse(back.X) == sp.issparse(ds.X)
    assert back.fingerprint == ds.fingerprint


@SETTINGS
@given(ds=datasets(labels=("none", "int", "str")))
def test_image_shape_kept_by_parquet_and_npz(ds):
    m = ds.n_features
    img = ds.with_image_shape((1, m))
    for fmt in ("parquet", "npz"):
        back = _roundtrip(img, fmt)
        assert back.image_shape == (1, m)
        assert back.fingerprint == img.fingerprint


def test_roundtrip_to_paths(tmp_path, rng):
    ds = Dataset(rng.normal(size=(5, 3)), y=["a", "b", "a", "c", "b"], feature_names=["x1", "x 2", "é"])
    for suffix in (".csv", ".tsv", ".parquet", ".npz", ".svm"):
        p = tmp_path / f"d{suffix}"
        ds.save(p)
        back = load_dataset(p)
        _same_content(ds, back)
    with pytest.raises(ValueError, match=r"cannot tell the format from .*d\.xlsx"):
        ds.save(tmp_path / "d.xlsx")
    with pytest.raises(ValueError, match=r"cannot write fmt 'mat'"):
        ds.save(tmp_path / "d.x", fmt="mat")


# ---------------------------------------------------------------------------- fuzzing: damaged files
_VALID: dict[str, bytes] = {}


def _valid_bytes(fmt: str) -> bytes:
    if fmt not in _VALID:
        ds = Dataset(np.arange(24.0).reshape(6, 4) / 7, y=["a", "b"] * 3, feature_names=["p", "q", "r", "s"])
        buf = io.BytesIO()
        if fmt == "mat":
            import scipy.io as sio

            sio.savemat(buf, {"X": ds.X, "Y": ds.y[:, None]})
        else:
            save_dataset(ds, buf, fmt=fmt)
        _VALID[fmt] = buf.getvalue()
    return _VALID[fmt]


# derandomize: the same 60 damaged files every run. scipy's loadmat has been seen to crash the
# process (SIGSEGV) on one random damaged .mat; a fixed corpus keeps CI reproducible while
# that is open (see docs/data.md, "Known limits").
@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(fmt=st.sampled_from(["csv", "tsv", "parquet", "npz", "svmlight", "mat"]), data=st.data())
def test_damaged_files_give_value_error_or_a_dataset(fmt, data):
    raw = bytearray(_valid_bytes(fmt))
    kind = data.draw(st.sampled_from(["flip", "cut", "insert"]))
    pos = data.draw(st.integers(0, len(raw) - 1))
    if kind == "flip":
        raw[pos] = data.draw(st.integers(0, 255))
    elif kind == "cut":
        del raw[pos:]
    else:
        raw[pos:pos] = data.draw(st.binary(min_size=1, max_size=8))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ds = load_dataset(io.BytesIO(bytes(raw)), fmt=fmt)
    except ValueError as e:
        assert str(e).startswith(("load_dataset", "Dataset")), str(e)
    else:
        assert isinstance(ds, Dataset)


@pytest.mark.parametrize("fmt", ["csv", "tsv", "parquet", "npz", "svmlight"])
@pytest.mark.parametrize("sparse", [False, True])
def test_sample_names_survive_every_format(fmt, sparse):
    """A dataset read with an identifier column keeps its row names through any export."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(5, 3))
    ds = Dataset(
        X=sp.csr_matrix(X) if sparse else X,
        y=np.array([0, 1, 0, 1, 1]),
        class_names=np.array(["a", "b"], dtype=object),
        feature_names=np.array(["f1", "f2", "f3"], dtype=object),
        sample_names=np.array(["TCGA-01", "TCGA-02", "s 3", "ünï", "5"], dtype=object),
        name="ids",
    )
    back = _roundtrip(ds, fmt)
    assert back.sample_names is not None and back.sample_names.tolist() == ds.sample_names.tolist()
    _same_content(ds, back)
