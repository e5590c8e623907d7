"""load_dataset / save_dataset: every format, buffers, real .mat files, every error message."""

from __future__ import annotations

import io
import os
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.io as sio
import scipy.sparse as sp

from fsviz.data import Dataset, DataWarning, load_dataset, save_dataset
from fsviz.data.loaders import (
    KNOWN_IMAGE_SHAPES,
    column_major_permutation,
    image_feature_names,
    infer_image_shape,
)


def named(data: bytes, name: str) -> io.BytesIO:
    """A BytesIO with a file name, like Streamlit's UploadedFile."""
    buf = io.BytesIO(data)
    buf.name = name
    return buf


class Upload:
    """Mimics streamlit.runtime.uploaded_file_manager.UploadedFile (BytesIO subclass with .name)."""

    def __init__(self, data: bytes, name: str):
        self._b = io.BytesIO(data)
        self.name = name
        self.size = len(data)

    def getvalue(self):
        return self._b.getvalue()

    def read(self, *a):
        return self._b.read(*a)

    def seek(self, *a):
        return self._b.seek(*a)


# ============================================================================ CSV / TSV
def test_csv_default_label_names_and_values():
    ds = load_dataset(named(b"a,b,class\n1,2.5,x\n3,-4e-3,y\n5,6,x\n", "t.csv"))
    np.testing.assert_array_equal(ds.X, [[1, 2.5], [3, -4e-3], [5, 6]])
    assert ds.feature_names.tolist() == ["a", "b"]
    assert ds.y.tolist() == [0, 1, 0] and ds.class_names.tolist() == ["x", "y"]
    assert ds.name == "t" and ds.meta["label_column"] == "class" and ds.meta["format"] == "csv"


@pytest.mark.parametrize(
    "header,label_col",
    [
        ("label,a,b", "label"),
        ("a,Target,b", "Target"),
        ("y,a,b", "y"),
        ("a,b,CLASS", "CLASS"),
    ],
)
def test_csv_label_candidates(header, label_col):
    cols = header.split(",")
    rows = "\n".join(",".join(str(i + j) for j in range(3)) for i in range(4))
    ds = load_dataset(named(f"{header}\n{rows}\n".encode(), "t.csv"))
    assert ds.meta["label_column"] == label_col
    assert ds.feature_names.tolist() == [c for c in cols if c != label_col]
    pos = cols.index(label_col)
    assert ds.y.tolist() == [i + pos for i in range(4)]


def test_csv_label_auto_prefers_exact_candidate_order():
    ds = load_dataset(named(b"target,class,a\n0,1,2\n1,0,3\n", "t.csv"))
    assert ds.meta["label_column"] == "class"  # 'class' comes before 'target' in LABEL_CANDIDATES
    assert ds.feature_names.tolist() == ["target", "a"]


def test_csv_auto_last_column_only_if_non_numeric():
    ds = load_dataset(named(b"a,b,kind\n1,2,cat\n3,4,dog\n", "t.csv"))
    assert ds.meta["label_column"] == "kind" and ds.class_names.tolist() == ["cat", "dog"]
    unl = load_dataset(named(b"a,b,c\n1,2,0\n3,4,1\n", "t.csv"))
    assert unl.y is None and unl.n_features == 3


def test_csv_explicit_label_by_name_position_and_none():
    data = b"a,b,c\n1,2,0\n3,4,1\n5,6,1\n"
    assert load_dataset(named(data, "t.csv"), label="a").feature_names.tolist() == ["b", "c"]
    assert load_dataset(named(data, "t.csv"), label=1).y.tolist() == [2, 4, 6]
    with pytest.raises(ValueError, match=r"'label' position must be a column number counted from 0"):
        load_dataset(named(data, "t.csv"), label=-1)  # issue 46: never a column from the end
    none = load_dataset(named(b"label,a\n1,2\n3,4\n", "t.csv"), label=None)
    assert none.y is None and none.feature_names.tolist() == ["label", "a"]


def test_wrong_label_column_lists_columns():
    with pytest.raises(
        ValueError,
        match=r"load_dataset: label column 'klass' not found; columns are "
        r"\['a', 'b', 'c'\]\. Fix: pass label=",
    ):
        load_dataset(named(b"a,b,c\n1,2,3\n", "t.csv"), label="klass")
    with pytest.raises(ValueError, match=r"label column 'Class' not found \(did you mean 'class'\?\)"):
        load_dataset(named(b"a,class\n1,2\n", "t.csv"), label="Class")
    with pytest.raises(ValueError, match=r"label column position 5 is out of range for 2 columns"):
        load_dataset(named(b"a,b\n1,2\n", "t.csv"), label=5)


def test_tsv_and_txt_and_whitespace():
    ds = load_dataset(named(b"a\tb\tlabel\n1\t2\t0\n3\t4\t1\n", "t.tsv"))
    assert ds.X.tolist() == [[1, 2], [3, 4]] and ds.y.tolist() == [0, 1]
    txt = load_dataset(named(b"a b label\n1 2 0\n3  4 1\n", "t.txt"))
    assert txt.X.tolist() == [[1, 2], [3, 4]] and txt.y.tolist() == [0, 1]
    comma_txt = load_dataset(named(b"a,b\n1,2\n", "t.txt"))
    assert comma_txt.X.tolist() == [[1, 2]]


def test_csv_numeric_strings_labels_and_float_labels():
    ds = load_dataset(named(b"a,label\n1,2\n2,1\n3,2\n", "t.csv"))
    assert ds.y.tolist() == [2, 1, 2] and ds.class_names is None
    reg = load_dataset(named(b"a,target\n1,0.5\n2,1.25\n", "t.csv"))
    assert reg.y.dtype == np.float64 and reg.y.tolist() == [0.5, 1.25]
    na_class = load_dataset(named(b"a,label\n1,NA\n2,ok\n", "t.csv"))  # 'NA' is a class name here
    assert na_class.class_names.tolist() == ["NA", "ok"]


def test_csv_missing_values_reported_with_position():
    with pytest.raises(
        ValueError,
        match=r"2 non-finite value\(s\) \(2 missing/NaN, 0 infinite\) in 2 column\(s\) "
        r"\['a', 'b'\]: row 1 column 'a' \(NaN\); row 2 column 'b' \(NaN\)\..*Fix",
    ):
        load_dataset(named(b"a,b,label\n1,2,0\n,3,1\n4,NA,0\n", "t.csv"))
    with pytest.raises(ValueError, match=r"\(0 missing/NaN, 1 infinite\).*row 0 column 'b' \(inf\)"):
        load_dataset(named(b"a,b\n1,inf\n2,3\n", "t.csv"))


def test_csv_missing_label():
    with pytest.raises(ValueError, match=r"1 missing label\(s\) at rows \[1\]"):
        load_dataset(named(b"a,label\n1,x\n2,\n3,y\n", "t.csv"))


def test_csv_non_numeric_columns_named():
    with pytest.raises(
        ValueError,
        match=r"2 non-numeric feature column\(s\): 'color' \(e\.g\. 'red' at row 0\); "
        r"'size' \(e\.g\. 'big' at row 1\)\. Features must be numbers\. Fix",
    ):
        load_dataset(named(b"color,size,x,label\nred,1,2,0\nblue,big,3,1\n", "t.csv"))


def test_csv_structure_errors():
    with pytest.raises(ValueError, match=r"is empty \(0 bytes\)"):
        load_dataset(named(b"", "t.csv"))
    with pytest.raises(ValueError, match=r"has no data rows"):
        load_dataset(named(b"a,b,label\n", "t.csv"))
    with pytest.raises(ValueError, match=r"duplicated column name\(s\) \['a'\]"):
        load_dataset(named(b"a,b,a\n1,2,3\n", "t.csv"))
    with pytest.raises(ValueError, match=r"first line \(header\) is empty"):
        load_dataset(named(b"\n1,2\n", "t.csv"))
    with pytest.raises(ValueError, match=r"could not read 't\.csv' as CSV.*Fix: check the separator"):
        load_dataset(named(b"a,b\n1,2\n3,4,5,6\n", "t.csv"))
    with pytest.raises(ValueError, match=r"has no feature columns \(only the label column 'label'\)"):
        load_dataset(named(b"label\n1\n2\n", "t.csv"))


def test_csv_image_shape_inferred_and_given():
    pix = np.arange(64, dtype=float).reshape(1, 64) % 17
    text = ",".join(f"p{j}" for j in range(64)) + "\n" + ",".join(str(v) for v in pix[0]) + "\n"
    ds = load_dataset(named(text.encode(), "img.csv"))
    assert ds.image_shape == (8, 8)
    np.testing.assert_array_equal(ds.X, pix)  # C order: columns unchanged
    given = load_dataset(named(text.encode(), "img.csv"), image_shape=(4, 16))
    assert given.image_shape == (4, 16)
    with pytest.raises(ValueError, match=r"image_shape 5 x 5 = 25 pixels, but the data have 64 features"):
        load_dataset(named(text.encode(), "img.csv"), image_shape=(5, 5))
    for bad in ("8x8", (8, 8, 1), (8.5, 8), (0, 64), (None, 8)):
        with pytest.raises(ValueError, match=r"image_shape must be \(height, width\) with positive ints"):
            load_dataset(named(text.encode(), "img.csv"), image_shape=bad)


def test_constant_feature_warning_names_them():
    with pytest.warns(DataWarning, match=r"2 constant feature\(s\) \['b', 'c'\] are kept and flagged"):
        ds = load_dataset(named(b"a,b,c,label\n1,5,0,0\n2,5,0,1\n", "t.csv"))
    assert ds.constant_features.tolist() == [1, 2] and ds.n_features == 3


# ============================================================================ buffers and formats
def test_buffers_paths_bytes_and_uploads(tmp_path):
    data = b"a,b,label\n1,2,0\n3,4,1\n"
    p = tmp_path / "d.csv"
    p.write_bytes(data)
    fps = {
        load_dataset(p).fingerprint,
        load_dataset(str(p)).fingerprint,
        load_dataset(named(data, "d.csv")).fingerprint,
        load_dataset(Upload(data, "d.csv")).fingerprint,
        load_dataset(data, fmt="csv").fingerprint,
        load_dataset(io.BytesIO(data)).fingerprint,
    }
    assert len(fps) == 1
    with open(p, "rb") as fh:
        assert load_dataset(fh).fingerprint in fps
    up = Upload(data, "d.csv")
    up.read()  # a consumed stream is rewound / read through getvalue
    assert load_dataset(up).fingerprint in fps


def test_format_from_content_when_name_has_no_suffix(tmp_path):
    ds = Dataset(np.arange(6.0).reshape(3, 2) + 1, y=[0, 1, 0], feature_names=["u", "v"])
    for fmt in ("parquet", "npz", "svmlight", "csv", "tsv"):
        buf = io.BytesIO()
        save_dataset(ds, buf, fmt=fmt)
        back = load_dataset(named(buf.getvalue(), "upload"))
        np.testing.assert_array_equal(back.X.toarray() if sp.issparse(back.X) else back.X, ds.X)
        assert back.y.tolist() == [0, 1, 0]


def test_unknown_format_and_missing_file(tmp_path):
    with pytest.raises(ValueError, match=r"cannot tell the format of 'x\.bin'.*Fix: pass fmt="):
        load_dataset(named(bytes(range(256)) * 4, "x.bin"))
    with pytest.raises(ValueError, match=r"unknown fmt 'docx'"):
        load_dataset(named(b"a\n1\n", "x.csv"), fmt="docx")
    with pytest.raises(ValueError, match=r"could not open the workbook.*Fix: open it in a spreadsheet"):
        load_dataset(named(b"a\n1\n", "x.csv"), fmt="xlsx")
    with pytest.raises(ValueError, match=r"does not exist"):
        load_dataset(tmp_path / "nope.csv")
    with pytest.raises(ValueError, match=r"is a folder, not a data file"):
        load_dataset(tmp_path)
    with pytest.raises(ValueError, match=r"expected a path or a file-like object"):
        load_dataset(12)


GARBAGE = bytes(np.random.default_rng(7).integers(0, 256, size=4096, dtype=np.uint8))


@pytest.mark.parametrize(
    "suffix,pattern",
    [
        (".csv", r"could not read 'g\.csv' as CSV|non-numeric"),
        (".tsv", r"could not read 'g\.tsv' as TSV|non-numeric"),
        (".parquet", r"could not read 'g\.parquet' as Parquet"),
        (".mat", r"could not read 'g\.mat' as a MATLAB \.mat file"),
        (".svm", r"could not read 'g\.svm' as LIBSVM/svmlight"),
        (".npz", r"could not read 'g\.npz' as \.npz"),
    ],
)
@pytest.mark.parametrize("payload", ["random", "truncated", "text"])
def test_garbage_bytes_give_value_error(suffix, pattern, payload, tmp_path):
    if payload == "random":
        data = GARBAGE
    elif payload == "text":
        data = b"hello world, this is not data\nat all: 1:2:3\n\x00\x01"
    else:  # a valid file of this format cut in half
        ds = Dataset(np.arange(40.0).reshape(8, 5), y=[0, 1] * 4)
        buf = io.BytesIO()
        if suffix == ".mat":
            sio.savemat(buf, {"X": ds.X, "Y": ds.y[:, None]})
        else:
            save_dataset(ds, buf, fmt=suffix[1:].replace("svm", "svmlight"))
        data = buf.getvalue()[: len(buf.getvalue()) // 2]
    with pytest.raises(ValueError) as exc:
        load_dataset(named(data, "g" + suffix))
    msg = str(exc.value)
    assert msg.startswith(("load_dataset", "Dataset"))
    if payload == "random":
        import re

        assert re.search(pattern, msg), msg


# ============================================================================ Parquet
def test_parquet_foreign_file_label_and_strings(tmp_path):
    df = pd.DataFrame({"g1": [0.5, 1.5, 2.5], "g2": [1, 2, 3], "class": ["a", "b", "a"]})
    p = tmp_path / "x.parquet"
    df.to_parquet(p)
    ds = load_dataset(p)
    np.testing.assert_array_equal(ds.X, df[["g1", "g2"]].to_numpy(float))
    assert ds.class_names.tolist() == ["a", "b"] and ds.y.tolist() == [0, 1, 0]
    df["bad"] = ["x", "y", "z"]
    df.to_parquet(p)
    with pytest.raises(ValueError, match=r"non-numeric feature column\(s\): 'bad'"):
        load_dataset(p)


def test_parquet_keeps_metadata_and_class_names_that_look_numeric(tmp_path):
    ds = Dataset(np.arange(12.0).reshape(3, 4), y=["2", "10", "2"], image_shape=(2, 2), name="pq")
    p = tmp_path / "pq.parquet"
    ds.save(p)
    back = load_dataset(p)
    assert back.fingerprint == ds.fingerprint
    assert back.image_shape == (2, 2) and back.class_names.tolist() == ["10", "2"]


# ============================================================================ .npz
def test_npz_plain_arrays_and_scipy_sparse(tmp_path):
    X = np.arange(12.0).reshape(4, 3)
    p = tmp_path / "plain.npz"
    np.savez(p, X=X, y=np.array(["u", "v", "u", "v"]), feature_names=np.array(["a", "b", "c"]))
    ds = load_dataset(p)
    np.testing.assert_array_equal(ds.X, X)
    assert ds.feature_names.tolist() == ["a", "b", "c"] and ds.class_names.tolist() == ["u", "v"]
    S = sp.random(6, 9, density=0.3, format="csc", random_state=0)
    sp.save_npz(tmp_path / "s.npz", S)
    sds = load_dataset(tmp_path / "s.npz")
    assert sp.issparse(sds.X) and sds.y is None
    np.testing.assert_array_equal(sds.X.toarray(), S.toarray())
    sp.save_npz(tmp_path / "c.npz", S.tocoo())
    np.testing.assert_array_equal(load_dataset(tmp_path / "c.npz").X.toarray(), S.toarray())


def test_npz_errors(tmp_path):
    np.savez(tmp_path / "nox.npz", A=np.ones((2, 2)))
    with pytest.raises(
        ValueError, match=r"no feature matrix; arrays are \['A'\]\. Fix: save the features as 'X'"
    ):
        load_dataset(tmp_path / "nox.npz")
    np.savez(tmp_path / "obj.npz", X=np.ones((2, 2)), y=np.array(["a", None], dtype=object))
    with pytest.raises(ValueError, match=r"holds object arrays, which are not loaded \(allow_pickle=False"):
        load_dataset(tmp_path / "obj.npz")
    np.savez(tmp_path / "len.npz", X=np.ones((3, 2)), y=np.array([0, 1]))
    with pytest.raises(ValueError, match=r"2 labels but 3 samples; they must match"):
        load_dataset(tmp_path / "len.npz")
    np.savez(tmp_path / "lab.npz", X=np.ones((2, 2)), y=np.array([0, 1]))
    with pytest.raises(
        ValueError, match=r"label array 'cls' not found in 'lab\.npz'; arrays are \['X', 'y'\]"
    ):
        load_dataset(tmp_path / "lab.npz", label="cls")
    np.save(tmp_path / "single.npy", np.ones((2, 2)))
    with pytest.raises(ValueError, match=r"single \.npy array, not an \.npz archive"):
        load_dataset(tmp_path / "single.npy", fmt="npz")
    np.savez(tmp_path / "x3.npz", X=np.ones((2, 2, 2)))
    with pytest.raises(ValueError, match=r"X must be 2-D"):
        load_dataset(tmp_path / "x3.npz")


# ============================================================================ svmlight
def test_svmlight_foreign_one_based_file_kept_sparse():
    text = b"+1 1:0.5 3:2\n-1 2:1.25\n+1 1:1 2:1 3:1\n"
    ds = load_dataset(named(text, "d.libsvm"))
    assert sp.issparse(ds.X) and ds.X.format == "csr"
    np.testing.assert_array_equal(ds.X.toarray(), [[0.5, 0, 2], [0, 1.25, 0], [1, 1, 1]])
    assert ds.y.tolist() == [1, -1, 1]
    assert load_dataset(named(text, "d.libsvm"), label=None).y is None
    with pytest.raises(
        ValueError,
        match=r"LIBSVM/svmlight file, whose labels are the first field of every line; "
        r"label must be 'auto' or None, got 'class'",
    ):
        load_dataset(named(text, "d.libsvm"), label="class")


@pytest.mark.scale
def test_svmlight_large_sparse_stays_sparse(tmp_path):
    S = sp.random(200, 50_000, density=0.001, format="csr", random_state=3)
    ds = Dataset(S, y=np.arange(200) % 3)
    p = tmp_path / "big.svm"
    ds.save(p)
    back = load_dataset(p)
    assert sp.issparse(back.X) and back.X.shape == (200, 50_000)
    assert back.fingerprint == ds.fingerprint


# ============================================================================ MATLAB
def test_mat_roundtrip_and_keys(tmp_path):
    X = np.arange(20.0).reshape(5, 4)
    sio.savemat(tmp_path / "m.mat", {"X": X, "Y": np.array([[1], [2], [1], [2], [2]])})
    ds = load_dataset(tmp_path / "m.mat")
    np.testing.assert_array_equal(ds.X, X)
    assert ds.y.tolist() == [1, 2, 1, 2, 2] and ds.feature_names[0] == "f0" and ds.image_shape is None
    sio.savemat(tmp_path / "cai.mat", {"fea": X, "gnd": np.array([1, 2, 1, 2, 2])})
    assert load_dataset(tmp_path / "cai.mat").y.tolist() == [1, 2, 1, 2, 2]
    sio.savemat(tmp_path / "sp.mat", {"X": sp.csc_matrix(X), "Y": np.ones((5, 1))})
    sds = load_dataset(tmp_path / "sp.mat")
    assert sp.issparse(sds.X)
    np.testing.assert_array_equal(sds.X.toarray(), X)
    sio.savemat(tmp_path / "str.mat", {"X": X, "Y": np.array(["ab", "cd", "ab", "cd", "cd"])})
    assert load_dataset(tmp_path / "str.mat").class_names.tolist() == ["ab", "cd"]


def test_mat_errors(tmp_path):
    sio.savemat(tmp_path / "nox.mat", {"A": np.ones((2, 2))})
    with pytest.raises(ValueError, match=r"no feature matrix; variables are \['A'\], expected 'X'"):
        load_dataset(tmp_path / "nox.mat")
    sio.savemat(tmp_path / "t.mat", {"X": np.ones((4, 3)), "Y": np.ones((3, 1))})
    with pytest.raises(
        ValueError,
        match=r"Y has 3 labels but X has 4 rows \(samples\); they must match\. "
        r"X looks transposed",
    ):
        load_dataset(tmp_path / "t.mat")
    sio.savemat(tmp_path / "k.mat", {"X": np.ones((2, 2)), "Y": np.ones((2, 1))})
    with pytest.raises(
        ValueError, match=r"label variable 'gnd' not found in 'k\.mat'; variables are \['X', 'Y'\]"
    ):
        load_dataset(tmp_path / "k.mat", label="gnd")


def test_mat_v73_hdf5_gets_clear_error(tmp_path):
    h5py = pytest.importorskip("h5py")
    p = tmp_path / "v73.mat"
    with h5py.File(p, "w", userblock_size=512) as f:
        f["X"] = np.ones((3, 2))
        f["Y"] = np.ones((1, 3))
    header = (
        b"MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: Sun Nov 22 00:00:00 2026 HDF5 schema 1.00 ."
    )
    with open(p, "r+b") as fh:
        fh.write(header.ljust(116, b" ") + b"\x00" * 8 + b"\x00\x02IM")
    with pytest.raises(
        ValueError,
        match=r"MATLAB v7\.3 \(HDF5\) file, which scipy cannot read\. Fix: re-save it "
        r"in MATLAB as version 7 \(save\(filename, 'X', 'Y', '-v7'\)\)",
    ):
        load_dataset(p)
    with open(p, "rb") as fh:  # also without a helpful header: plain HDF5 at offset 512
        raw = bytearray(fh.read())
    raw[:128] = b"\x00" * 128
    with pytest.raises(ValueError, match=r"MATLAB v7\.3 \(HDF5\)"):
        load_dataset(named(bytes(raw), "v73.mat"))


def test_mat_image_columns_permuted_to_row_major(tmp_path):
    # a 3x4 "image" per sample, stored column-major as MATLAB does
    h, w = 3, 4
    imgs = np.arange(2 * h * w, dtype=float).reshape(2, h, w)
    X_matlab = np.stack([im.ravel(order="F") for im in imgs])
    sio.savemat(tmp_path / "img.mat", {"X": X_matlab, "Y": np.array([[1], [2]])})
    ds = load_dataset(tmp_path / "img.mat", image_shape=(h, w))
    for i in range(2):
        np.testing.assert_array_equal(ds.X[i].reshape(h, w), imgs[i])
    perm = ds.meta["source_columns"]
    np.testing.assert_array_equal(ds.X, X_matlab[:, perm])
    assert ds.feature_names[5] == "pixel_1_1" and perm[5] == 1 * 1 + 1 * h  # (row 1, col 1) was column 4
    same = load_dataset(tmp_path / "img.mat", image_shape=(h, w), image_order="C")
    np.testing.assert_array_equal(same.X, X_matlab)
    with pytest.raises(ValueError, match=r"image_order must be 'auto', 'C' or 'F'"):
        load_dataset(tmp_path / "img.mat", image_order="K")


def test_helpers():
    assert infer_image_shape(1024, np.ones((2, 1024))) == (32, 32)
    assert infer_image_shape(64, np.full((2, 64), 16.0)) == (8, 8)
    assert infer_image_shape(100, np.full((2, 100), 999.0)) is None  # not pixel-like
    assert infer_image_shape(100, -np.ones((2, 100))) is None
    assert infer_image_shape(100, np.full((2, 100), 0.5)) == (10, 10)
    assert infer_image_shape(100, np.full((2, 100), 3.5)) is None
    assert infer_image_shape(1000) is None and infer_image_shape(49) is None
    assert infer_image_shape(100, sp.csr_matrix((2, 100))) is None
    perm = column_major_permutation((2, 3))
    assert perm.tolist() == [0, 2, 4, 1, 3, 5]
    assert image_feature_names((2, 2)).tolist() == ["pixel_0_0", "pixel_0_1", "pixel_1_0", "pixel_1_1"]


# ============================================================================ real scikit-feature data
def _symmetry(img: np.ndarray) -> tuple[float, float]:
    """Correlation of an image with its left-right and with its top-bottom mirror."""
    c = img - img.mean()
    lr = float((c * c[:, ::-1]).sum() / (c * c).sum())
    ud = float((c * c[::-1, :]).sum() / (c * c).sum())
    return lr, ud


@pytest.mark.parametrize(
    "name,shape",
    [
        ("COIL20", (32, 32)),
        ("ORL", (32, 32)),
        ("Yale", (32, 32)),
        ("orlraws10P", (112, 92)),
        ("pixraw10P", (100, 100)),
        ("warpAR10P", (60, 40)),
        ("warpPIE10P", (55, 44)),
    ],
)
def test_real_images_upright(name, shape, skfeature_path):
    path = skfeature_path(name)
    raw = sio.loadmat(path)
    ds = load_dataset(path)
    assert ds.image_shape == shape == KNOWN_IMAGE_SHAPES[name.lower()]
    assert ds.X.shape == raw["X"].shape and ds.y.tolist() == raw["Y"].ravel().tolist()
    # C-order reshape of the loaded rows == MATLAB's column-major reshape of the raw rows
    for i in (0, len(ds.y) // 2, len(ds.y) - 1):
        np.testing.assert_array_equal(ds.X[i].reshape(shape), raw["X"][i].reshape(shape, order="F"))
    np.testing.assert_array_equal(np.sort(ds.meta["source_columns"]), np.arange(ds.n_features))
    if name != "COIL20":  # faces: the mean face is left-right symmetric, not top-bottom
        lr, ud = _symmetry(ds.X.mean(axis=0).reshape(shape))
        assert lr > 0.5 and lr > ud, (lr, ud)
        if shape[0] == shape[1]:  # the raw C-order reshape (the classic mistake) is not upright
            lr_t, ud_t = _symmetry(raw["X"].astype(float).mean(axis=0).reshape(shape))
            assert lr_t < ud_t, (lr_t, ud_t)


def test_real_coil20_exact(skfeature_path):
    ds = load_dataset(skfeature_path("COIL20"))  # its load time: benchmarks/bench_data.py
    assert ds.X.shape == (1440, 1024) and len(np.unique(ds.y)) == 20
    # the pixel names and the permutation agree: pixel_r_c was MATLAB column c*32 + r
    perm = ds.meta["source_columns"]
    j = list(ds.feature_names).index("pixel_3_17")
    assert perm[j] == 17 * 32 + 3


@pytest.mark.parametrize(
    "name,shape,n_classes",
    [
        ("lung_small", (73, 325), 7),
        ("colon", (62, 2000), 2),
        ("arcene", (200, 10000), 2),
        ("BASEHOCK", (1993, 4862), 2),
    ],
)
def test_real_non_image_sets(name, shape, n_classes, skfeature_path):
    path = skfeature_path(name)
    raw = sio.loadmat(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        ds = load_dataset(path)
    assert ds.X.shape == shape and ds.image_shape is None  # arcene: 10,000 = 100^2 but not an image
    np.testing.assert_array_equal(ds.X, raw["X"].astype(float))  # columns untouched
    assert len(np.unique(ds.y)) == n_classes and "source_columns" not in ds.meta
    assert ds.feature_names[0] == "f0"


def test_real_discrete_gene_set_values_kept(skfeature_path):
    ds = load_dataset(skfeature_path("lung_small"))
    raw = sio.loadmat(skfeature_path("lung_small"))["X"]
    assert set(np.unique(ds.X)) == set(np.unique(raw).astype(float))  # discrete levels kept exactly


def test_real_arcene_constant_features_flagged(skfeature_path):
    with pytest.warns(DataWarning, match=r"constant feature"):
        ds = load_dataset(skfeature_path("arcene"))
    X = sio.loadmat(skfeature_path("arcene"))["X"]
    expect = np.flatnonzero((X == X[0]).all(axis=0))
    np.testing.assert_array_equal(ds.constant_features, expect)
    assert len(expect) > 0


def test_mat_upload_buffer_keeps_known_shape(skfeature_path):
    path = skfeature_path("warpAR10P")
    with open(path, "rb") as fh:
        data = fh.read()
    ds = load_dataset(Upload(data, os.path.basename(path)))
    assert ds.image_shape == (60, 40) and ds.name == "warpAR10P"


def test_blank_column_names_and_dates_rejected():
    # a saved DataFrame index (blank header cell) is an identifier: the sample names
    df = pd.DataFrame({"a": [1.0, 2.0], "label": [0, 1]}, index=["r1", "r2"])
    ds = load_dataset(named(df.to_csv().encode(), "i.csv"))
    assert ds.feature_names.tolist() == ["a"] and ds.sample_names.tolist() == ["r1", "r2"]
    assert ds.meta["id_columns"] == ["Unnamed: 0"]
    dates = pd.DataFrame(
        {"a": [1.0, 2.0], "when": pd.to_datetime(["2020-01-01", "2021-01-01"]), "label": [0, 1]}
    )
    buf = io.BytesIO()
    dates.to_parquet(buf)
    ds = load_dataset(named(buf.getvalue(), "d.parquet"))  # a date is left out, with a note
    assert ds.feature_names.tolist() == ["a"] and any("'when'" in n and "date" in n for n in ds.meta["notes"])
    days = load_dataset(named(buf.getvalue(), "d.parquet"), dates="number")
    assert days.feature_names.tolist() == ["a", "when"] and days.X[:, 1].tolist() == [18262.0, 18628.0]


def test_image_shape_false_disables_images(skfeature_path):
    ds = load_dataset(skfeature_path("ORL"), image_shape=False)
    raw = sio.loadmat(skfeature_path("ORL"))["X"]
    assert ds.image_shape is None and "source_columns" not in ds.meta
    np.testing.assert_array_equal(ds.X, raw)
