"""Dataset: normalisation, validation messages, fingerprint, summary, subsets, export."""

from __future__ import annotations

import hashlib
import io
import json

import numpy as np
import pytest
import scipy.sparse as sp

from fsviz.data import Dataset, DatasetSummary


def _dense(rng, n=20, m=7):
    return rng.normal(size=(n, m))


# ---------------------------------------------------------------------------- construction
def test_dense_is_float64_c_contiguous_and_read_only(rng):
    X = rng.integers(0, 5, size=(6, 4)).astype(np.int16)
    ds = Dataset(X, y=[0, 1, 0, 1, 0, 1])
    assert ds.X.dtype == np.float64 and ds.X.flags.c_contiguous
    np.testing.assert_array_equal(ds.X, X)
    with pytest.raises(ValueError):
        ds.X[0, 0] = 1.0
    with pytest.raises(ValueError):
        ds.y[0] = 3
    with pytest.raises(AttributeError):
        ds.name = "other"  # frozen
    assert ds.y.dtype == np.int64
    assert ds.feature_names.tolist() == ["f0", "f1", "f2", "f3"]


def test_caller_array_is_copied_not_frozen(rng):
    X = _dense(rng)
    ds = Dataset(X)
    fp = ds.fingerprint
    X[0, 0] = 1e9  # the caller keeps a writable array; the dataset must not change
    assert X.flags.writeable
    assert ds.X[0, 0] != 1e9
    assert Dataset(ds.X).fingerprint == fp


def test_sparse_stays_sparse_and_is_canonical():
    # duplicates are summed, explicit zeros removed, COO becomes CSR
    coo = sp.coo_matrix(
        (np.array([1.0, 2.0, 0.0, 5.0]), (np.array([0, 0, 1, 2]), np.array([1, 1, 0, 2]))), shape=(3, 3)
    )
    ds = Dataset(coo)
    assert sp.issparse(ds.X) and ds.X.format == "csr"
    assert ds.X.nnz == 2
    np.testing.assert_array_equal(ds.X.toarray(), [[0, 3, 0], [0, 0, 0], [0, 0, 5]])
    csc = Dataset(sp.csc_matrix(np.eye(3)))
    assert csc.X.format == "csc"


def test_string_labels_encoded_with_mapping():
    ds = Dataset(np.arange(8.0).reshape(4, 2), y=np.array(["dog", "cat", "dog", "emu"]))
    assert ds.y.tolist() == [1, 0, 1, 2]
    assert ds.class_names.tolist() == ["cat", "dog", "emu"]
    assert ds.label_mapping == {"cat": 0, "dog": 1, "emu": 2}
    assert ds.labels.tolist() == ["dog", "cat", "dog", "emu"]


def test_given_class_names_order_is_respected():
    ds = Dataset(
        np.arange(8.0).reshape(4, 2), y=["dog", "cat", "dog", "emu"], class_names=["emu", "dog", "cat"]
    )
    assert ds.y.tolist() == [1, 2, 1, 0]
    assert ds.labels.tolist() == ["dog", "cat", "dog", "emu"]
    codes = Dataset(np.arange(8.0).reshape(4, 2), y=[0, 1, 1, 0], class_names=["no", "yes"])
    assert codes.labels.tolist() == ["no", "yes", "yes", "no"]


def test_label_kinds():
    X = np.arange(8.0).reshape(4, 2)
    assert Dataset(X, y=[1.0, 2.0, 1.0, 2.0]).y.dtype == np.int64  # integer-valued floats are classes
    cont = Dataset(X, y=[0.5, 1.5, 2.0, 3.0])
    assert cont.y.dtype == np.float64 and not cont.is_classification
    assert Dataset(X, y=[True, False, True, True]).y.tolist() == [1, 0, 1, 1]
    assert Dataset(X, y=np.array([[1], [2], [1], [2]])).y.shape == (4,)  # column vector


# ---------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "bad,msg",
    [
        (np.nan, r"1 non-finite value\(s\) \(1 missing/NaN, 0 infinite\).*row 2 column 'f1'.*impute"),
        (np.inf, r"\(0 missing/NaN, 1 infinite\).*row 2 column 'f1' \(inf\)"),
    ],
)
def test_non_finite_named(bad, msg):
    X = np.ones((4, 3))
    X[2, 1] = bad
    with pytest.raises(ValueError, match=msg):
        Dataset(X)


def test_non_finite_sparse_counted():
    X = sp.csr_matrix(np.array([[0, np.nan, 0], [np.inf, 0, 1.0]]))
    with pytest.raises(
        ValueError, match=r"2 non-finite value\(s\) \(1 missing/NaN, 1 infinite\) in 2 column"
    ):
        Dataset(X)


def test_error_messages():
    X = np.arange(12.0).reshape(4, 3)
    with pytest.raises(ValueError, match=r"y has 3 labels but X has 4 samples; they must match"):
        Dataset(X, y=[0, 1, 0])
    with pytest.raises(ValueError, match=r"2 feature_names for 3 features"):
        Dataset(X, feature_names=["a", "b"])
    with pytest.raises(ValueError, match=r"feature names must be unique; duplicated: \['a'\]"):
        Dataset(X, feature_names=["a", "b", "a"])
    with pytest.raises(ValueError, match=r"X must be 2-D"):
        Dataset(np.arange(3.0))
    with pytest.raises(ValueError, match=r"at least one sample and one feature"):
        Dataset(np.empty((0, 3)))
    with pytest.raises(ValueError, match=r"X must be numeric"):
        Dataset(np.array([["a", "b"]]))
    with pytest.raises(ValueError, match=r"image_shape 2 x 2 = 4 pixels, but there are 3 features"):
        Dataset(X, image_shape=(2, 2))
    with pytest.raises(ValueError, match=r"image_shape must be \(height, width\)"):
        Dataset(X, image_shape=(3,))
    with pytest.raises(ValueError, match=r"y holds 1 missing/non-finite label\(s\), at rows \[2\]"):
        Dataset(X, y=[0.0, 1.0, np.nan, 1.0])
    with pytest.raises(ValueError, match=r"y holds 1 missing label\(s\), at rows \[1\]"):
        Dataset(X, y=np.array(["a", None, "b", "a"], dtype=object))
    with pytest.raises(ValueError, match=r"y must hold integer codes in \[0, 1\]"):
        Dataset(X, y=[0, 1, 2, 1], class_names=["a", "b"])
    with pytest.raises(ValueError, match=r"lack the labels \['z'\]"):
        Dataset(X, y=["a", "b", "z", "a"], class_names=["a", "b"])


# ---------------------------------------------------------------------------- fingerprint
def test_fingerprint_stable_and_matches_definition(rng):
    X = _dense(rng, 5, 3)
    ds = Dataset(X, y=[0, 1, 0, 1, 1], feature_names=["a", "b", "c"], name="one")
    again = Dataset(
        X.copy(),
        y=np.array([0, 1, 0, 1, 1]),
        feature_names=("a", "b", "c"),
        name="two",
        description="d",
        meta={"x": 1},
    )
    assert ds.fingerprint == again.fingerprint  # name/description/meta do not change results
    assert len(ds.fingerprint) == 64 and int(ds.fingerprint, 16) >= 0
    # independent recomputation from the documented definition
    h = hashlib.sha256()
    h.update(b"fsviz-dataset-v1")
    h.update(
        json.dumps(
            {"storage": "dense", "shape": [5, 3], "dtype": "float64", "y": ["int64", 5], "class_names": None},
            sort_keys=True,
        ).encode()
    )
    h.update(b'["a", "b", "c"]')
    h.update(np.array([0, 1, 0, 1, 1], dtype=np.int64).tobytes())
    h.update(np.ascontiguousarray(X).tobytes())
    assert ds.fingerprint == h.hexdigest()


def test_fingerprint_sensitive_to_every_part(rng):
    X = _dense(rng, 6, 4)
    y = np.array([0, 1, 0, 1, 0, 1])
    base = Dataset(X, y=y).fingerprint
    X2 = X.copy()
    X2[3, 2] = np.nextafter(X2[3, 2], np.inf)  # one ulp
    variants = [
        Dataset(X2, y=y),
        Dataset(X, y=y[::-1]),
        Dataset(X, y=None),
        Dataset(X, y=y, feature_names=["f0", "f1", "f2", "g3"]),
        Dataset(X[:, [1, 0, 2, 3]], y=y, feature_names=["f1", "f0", "f2", "f3"]),  # column order
        Dataset(X[[1, 0, 2, 3, 4, 5]], y=y),  # row order
        Dataset(X.reshape(4, 6)[:, :4].copy(), y=y[:4]),
        Dataset(sp.csr_matrix(X), y=y),  # storage
        Dataset(X, y=y.astype(float) + 0.5),  # continuous vs classes
        Dataset(X, y=y, class_names=["a", "b"]),
    ]
    fps = [v.fingerprint for v in variants]
    assert base not in fps
    assert len(set(fps)) == len(fps)


def test_fingerprint_sparse_sensitive(rng):
    A = sp.random(30, 40, density=0.1, format="csr", random_state=1)
    base = Dataset(A).fingerprint
    assert Dataset(A.copy()).fingerprint == base
    B = A.copy()
    B.data[0] += 1e-12
    assert Dataset(B).fingerprint != base
    assert Dataset(A.tocsc()).fingerprint != base  # storage is part of the key
    assert Dataset(A.tocoo()).fingerprint == base  # COO -> CSR canonical


def test_fingerprint_is_computed_once(rng, monkeypatch):
    ds = Dataset(_dense(rng))
    calls = []
    monkeypatch.setattr(Dataset, "_hash", lambda self: calls.append(1) or "x")
    for _ in range(3):
        _ = ds.fingerprint
    assert calls == []


# ---------------------------------------------------------------------------- constant features
def test_constant_features_dense_and_sparse_match_brute_force(rng):
    X = rng.integers(0, 3, size=(15, 12)).astype(float)
    X[:, 2] = 0.0
    X[:, 5] = 7.5
    X[:, 9] = -1.0
    X[0, 11] = 0.0
    X[1:, 11] = 0.0  # all zero
    expect = [j for j in range(X.shape[1]) if np.all(X[:, j] == X[0, j])]
    assert Dataset(X).constant_features.tolist() == expect
    assert Dataset(sp.csr_matrix(X)).constant_features.tolist() == expect
    assert Dataset(sp.csc_matrix(X)).constant_features.tolist() == expect
    # constant features are kept
    assert Dataset(X).n_features == 12


# ---------------------------------------------------------------------------- summary
def test_summary(rng):
    X = np.zeros((6, 4))
    X[:, 0] = [1, 2, 3, 4, 5, 6]
    X[0, 1] = 1.0
    X[:, 3] = 3.0
    ds = Dataset(X, y=["b", "a", "b", "b", "a", "c"], name="s", image_shape=(2, 2))
    s = ds.summary()
    assert isinstance(s, DatasetSummary)
    assert (s.n_samples, s.n_features, s.nnz) == (6, 4, 13)
    assert s.sparsity == pytest.approx(1 - 13 / 24)
    assert s.classes == ("a", "b", "c") and s.class_counts == (2, 3, 1)
    assert s.label_kind == "classes" and s.has_labels
    assert s.constant_features == ("f2", "f3") and s.n_constant == 2
    assert s.is_image and s.image_shape == (2, 2)
    assert s.n_missing == 0 and not s.is_sparse
    d = s.to_dict()
    assert d["classes"] == ["a", "b", "c"] and json.dumps(d)
    unl = Dataset(sp.csr_matrix(X)).summary()
    assert unl.label_kind is None and unl.classes == () and unl.is_sparse and unl.nnz == 13


def test_summary_counts_classes_in_code_order_with_names():
    ds = Dataset(np.ones((3, 2)) * [[1], [2], [3]], y=[0, 0, 2], class_names=["x", "y", "z"])
    s = ds.summary()
    assert s.classes == ("x", "y", "z") and s.class_counts == (2, 0, 1)


# ---------------------------------------------------------------------------- subsets
def test_subset_by_indices_names_and_mask(rng):
    X = _dense(rng, 8, 5)
    ds = Dataset(X, y=np.arange(8) % 2, feature_names=list("abcde"), image_shape=(1, 5), truth="T")
    sub = ds.subset([3, 1])
    np.testing.assert_array_equal(sub.X, X[:, [3, 1]])
    assert sub.feature_names.tolist() == ["d", "b"]
    assert sub.image_shape is None and sub.truth is None
    assert sub.meta["parent"] == ds.fingerprint and sub.meta["features"].tolist() == [3, 1]
    by_name = ds.subset(["d", "b"])
    assert by_name.fingerprint == sub.fingerprint
    mask = ds.subset(np.array([False, True, False, True, False]))
    np.testing.assert_array_equal(mask.X, X[:, [1, 3]])
    rows = ds.subset(samples=[7, 0])
    np.testing.assert_array_equal(rows.X, X[[7, 0]])
    assert rows.y.tolist() == [1, 0] and rows.image_shape == (1, 5) and rows.truth == "T"
    sp_sub = Dataset(sp.csc_matrix(X)).subset([4, 0])
    assert sp.issparse(sp_sub.X)
    np.testing.assert_array_equal(sp_sub.X.toarray(), X[:, [4, 0]])


def test_subset_errors(rng):
    ds = Dataset(_dense(rng, 4, 3), feature_names=["a", "b", "c"])
    with pytest.raises(ValueError, match=r"unknown feature name\(s\) \['zz'\]; names are \['a', 'b', 'c'\]"):
        ds.subset(["zz"])
    with pytest.raises(ValueError, match=r"feature indices must be in \[-3, 2\]; got \[5\]"):
        ds.subset([0, 5])
    with pytest.raises(ValueError, match=r"must not repeat"):
        ds.subset([1, 1])
    with pytest.raises(ValueError, match=r"boolean feature mask must have length 3"):
        ds.subset([True, False])


def test_with_image_shape_and_name_keep_fingerprint(rng):
    ds = Dataset(_dense(rng, 3, 6))
    img = ds.with_image_shape((2, 3))
    assert img.image_shape == (2, 3) and img.fingerprint == ds.fingerprint and ds.image_shape is None
    with pytest.raises(ValueError, match="2 x 2 = 4 pixels"):
        ds.with_image_shape((2, 2))
    assert ds.with_name("x").name == "x" and ds.name == "dataset"
    import dataclasses

    assert dataclasses.replace(ds, image_shape=(3, 2)).fingerprint == ds.fingerprint


# ---------------------------------------------------------------------------- export
def test_to_csv_full_precision_and_label_names():
    X = np.array([[0.1, 1 / 3], [1e-300, -0.0], [2.5e16, np.pi]])
    ds = Dataset(X, y=["no", "yes", "no"], feature_names=["a", "b"])
    text = ds.to_csv()
    lines = text.splitlines()
    assert lines[0] == "a,b,label"
    assert lines[1] == "0.1,0.3333333333333333,no"
    vals = np.array([[float(v) for v in ln.split(",")[:2]] for ln in lines[1:]])
    assert vals.tobytes() == X.tobytes()  # bit for bit, including -0.0
    buf = io.BytesIO()
    ds.to_csv(buf, sep="\t")
    assert buf.getvalue().decode().splitlines()[0] == "a\tb\tlabel"


def test_label_column_avoids_feature_names():
    ds = Dataset(np.ones((2, 2)) * [[1], [2]], y=[0, 1], feature_names=["label", "x"])
    assert ds.label_column() == "_label"
    # names with the separator or quotes are quoted as Python's csv writer does
    assert Dataset(np.ones((2, 1)), feature_names=['a,b "c"']).to_csv().splitlines()[0] == '"a,b ""c"""'
    with pytest.raises(ValueError, match=r"a column name is empty"):
        Dataset(np.ones((2, 1)), feature_names=[""]).to_csv()


def test_to_frame(rng):
    X = _dense(rng, 4, 3)
    ds = Dataset(X, y=["u", "v", "u", "v"], feature_names=["p", "q", "r"])
    fr = ds.to_frame()
    assert list(fr.columns) == ["p", "q", "r", "label"]
    np.testing.assert_array_equal(fr[["p", "q", "r"]].to_numpy(), X)
    assert fr["label"].tolist() == ["u", "v", "u", "v"]


def test_pickle_keeps_fingerprint_and_read_only(rng):
    import copy
    import pickle

    for X in (_dense(rng), sp.csr_matrix(_dense(rng))):
        ds = Dataset(X, y=np.arange(20) % 2, name="p", truth={"a": 1})
        back = pickle.loads(pickle.dumps(ds))
        assert back.fingerprint == ds.fingerprint and back.truth == {"a": 1}
        data = back.X.data if sp.issparse(back.X) else back.X
        assert not data.flags.writeable and not back.y.flags.writeable
        assert copy.deepcopy(ds).fingerprint == ds.fingerprint


def test_dense_export_of_huge_sparse_refused(monkeypatch):
    import fsviz.data.dataset as dsmod

    monkeypatch.setattr(dsmod, "_DENSE_EXPORT_LIMIT", 10_000)
    big = Dataset(sp.csr_matrix((100, 3_000)))
    Dataset(np.zeros((100, 3_000))).to_csv()  # dense data are written whatever their size
    with pytest.raises(
        ValueError,
        match=r"would become 100 x 3,000 = 300,000 dense cells.*Fix: save it as "
        r"\.npz or svmlight",
    ):
        big.to_csv()
    with pytest.raises(ValueError, match=r"Dataset\.save \(Parquet\): this sparse dataset"):
        big.save(io.BytesIO(), fmt="parquet")


def test_to_csv_in_blocks_equals_whole(rng, tmp_path, monkeypatch):
    import fsviz.data.formats.csv_writer as dsmod

    X = rng.normal(size=(70, 30))
    ds = Dataset(X, y=rng.integers(0, 3, 70))
    whole = ds.to_csv()
    monkeypatch.setattr(dsmod, "_CSV_BLOCK_CELLS", 100)  # blocks of 3 rows
    text = ds.to_csv()
    assert text == whole and text.count("\n") == 71
    ds.to_csv(tmp_path / "a.csv")
    assert (tmp_path / "a.csv").read_text() == text
    buf = io.BytesIO()
    ds.to_csv(buf)
    assert buf.getvalue().decode() == text


def test_default_names_are_compact_and_hash_like_one_json_list(monkeypatch):
    """Default names take 16 bytes each (no Python str per feature); the fingerprint hashes
    the names a chunk at a time, over the very bytes of one JSON list, so fingerprints do
    not depend on the chunk size and stay those of earlier versions."""
    import json

    from fsviz.data import names as dmod

    names = dmod.default_feature_names(1000)
    assert names.nbytes == 16 * 1000 and names.tolist()[998:] == ["f998", "f999"]
    assert isinstance(names[5], str)
    odd = np.array(["a", 'q"uote', "ünï", "x, y", ""] * 3, dtype=object)
    for arr in (names, odd, names[:0]):
        for chunk in (1, 4, 1 << 20):
            monkeypatch.setattr(dmod, "_HASH_NAMES_CHUNK", chunk)
            got = b"".join(dmod.names_json(arr))
            assert got == json.dumps(arr.tolist(), ensure_ascii=True).encode("ascii")
    X = np.arange(3000, dtype=float).reshape(3, 1000) % 7
    monkeypatch.setattr(dmod, "_HASH_NAMES_CHUNK", 7)
    small = Dataset(X, name="n").fingerprint
    monkeypatch.setattr(dmod, "_HASH_NAMES_CHUNK", 1 << 20)
    assert Dataset(X, name="n").fingerprint == small
