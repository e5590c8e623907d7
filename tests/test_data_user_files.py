"""A user's own files (issue 20): column roles, dialects, spreadsheets, AnnData, transposed tables,
content sniffing, target checks and exports that round-trip.

Every file is generated here in the shape of a common public file (penguins, the Wisconsin
breast-cancer ``data.csv``, NCI60, a European spreadsheet export); none is copied.
"""

from __future__ import annotations

import gzip
import io
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fsviz import cli
from fsviz.data import (
    ColumnRole,
    Dataset,
    TableInfo,
    check_target,
    infer_column_roles,
    inspect_table,
    list_sheets,
    load_dataset,
)
from fsviz.data.plan import ImportPlan


def named(data: bytes, name: str) -> io.BytesIO:
    buf = io.BytesIO(data)
    buf.name = name
    return buf


def quiet(*args, **kwargs) -> Dataset:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_dataset(*args, **kwargs)


def roles_of(info_or_roles) -> dict[str, str]:
    roles = info_or_roles.roles if isinstance(info_or_roles, TableInfo) else info_or_roles
    return {r.name: r.role for r in roles}


# ------------------------------------------------------------------------------- the four shapes
@pytest.fixture(scope="module")
def penguins() -> bytes:
    """species (target text), island/sex text, gaps in the numbers, one missing sex; sex is last."""
    rng = np.random.default_rng(0)
    n = 60
    species = np.repeat(["Adelie", "Chinstrap", "Gentoo"], n // 3)
    frame = pd.DataFrame(
        {
            "species": species,
            "island": rng.choice(["Biscoe", "Dream", "Torgersen"], n),
            "bill_length_mm": np.round(rng.normal(44, 5, n), 1),
            "bill_depth_mm": np.round(rng.normal(17, 2, n), 1),
            "flipper_length_mm": rng.integers(170, 230, n).astype(float),
            "body_mass_g": rng.integers(2700, 6300, n).astype(float),
            "sex": rng.choice(["male", "female"], n).astype(object),
        }
    )
    frame.loc[3, ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]] = np.nan
    frame.loc[3, "sex"] = None
    frame.loc[8, "sex"] = None
    return frame.to_csv(index=False).encode()


@pytest.fixture(scope="module")
def wisconsin() -> bytes:
    """id (int, unique), diagnosis M/B, 30 features, a trailing comma on every line."""
    rng = np.random.default_rng(1)
    words = ["radius", "texture", "perimeter", "area", "smoothness", "compactness", "concavity"]
    words += ["concave points", "symmetry", "fractal_dimension"]
    feats = [f"{w}_{s}" for s in ("mean", "se", "worst") for w in words]
    ids = rng.choice(np.arange(8000, 99_000_000), 80, replace=False)
    lines = ['"id","diagnosis",' + ",".join(f'"{f}"' for f in feats) + ","]
    for i in range(80):
        vals = ",".join(f"{v:.5g}" for v in np.abs(rng.normal(10, 3, 30)))
        lines.append(f"{ids[i]},{'MB'[i % 3 == 0]},{vals},")
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture(scope="module")
def nci60() -> bytes:
    """rownames V1..V64, 14 tumour types (five with one sample), 2,000 gene columns."""
    rng = np.random.default_rng(2)
    big = ["RENAL"] * 9 + ["CNS"] * 5 + ["BREAST"] * 7 + ["NSCLC"] * 9 + ["MELANOMA"] * 8 + ["OVARIAN"] * 6
    big += ["LEUKEMIA"] * 6 + ["COLON"] * 7 + ["PROSTATE"] * 2
    ones = ["UNKNOWN", "K562B-repro", "K562A-repro", "MCF7A-repro", "MCF7D-repro"]
    labels = big + ones
    assert len(labels) == 64 and len(set(labels)) == 14
    X = rng.normal(size=(64, 2000))
    frame = pd.DataFrame(X, columns=[str(j + 1) for j in range(2000)])
    frame.insert(0, "rownames", [f"V{i + 1}" for i in range(64)])
    frame["labs"] = labels
    return frame.to_csv(index=False).encode()


@pytest.fixture(scope="module")
def european() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    return pd.DataFrame(
        {
            "Probe": [f"P{i:03d}" for i in range(30)],
            "Gewicht": np.round(rng.normal(70, 10, 30), 2),
            "Größe": np.round(rng.normal(1.7, 0.1, 30), 3),
            "Umsatz": np.round(rng.normal(12_000, 3000, 30), 2),
            "Gruppe": rng.choice(["krank", "gesund"], 30),
        }
    )


def _european_csv(frame: pd.DataFrame) -> bytes:
    return frame.to_csv(index=False, sep=";", decimal=",").encode("utf-8")


# --------------------------------------------------------------------------------------- tests
def test_penguins_defaults(penguins):
    info = inspect_table(named(penguins, "penguins.csv"))
    assert info.target == "species" and info.sep == "," and info.decimal == "."
    roles = roles_of(info)
    assert roles["species"] == "target" and roles["island"] == roles["sex"] == "feature"
    flags = {r.name: r.flags for r in info.roles}
    assert "text" in flags["island"] and "missing values" in flags["sex"]
    # defaults refuse text features, naming the control on screen
    with pytest.raises(ValueError, match=r"choose 'one-hot' under Text columns.*role to ignored"):
        quiet(named(penguins, "penguins.csv"))
    ds = quiet(named(penguins, "penguins.csv"), categorical="onehot", missing="median")
    assert ds.class_names.tolist() == ["Adelie", "Chinstrap", "Gentoo"]
    names = ds.feature_names.tolist()
    assert "sex=missing" in names and "island=Dream" in names
    sex = ds.X[:, [names.index(c) for c in names if c.startswith("sex=")]]
    assert (sex.sum(axis=1) == 1).all()  # a missing category is its own column, never all zeros
    assert sex[3, names.index("sex=missing") - names.index("sex=female")] == 1.0
    ignored = quiet(named(penguins, "penguins.csv"), ignore=["island", "sex"], missing="mean")
    assert (
        "island" not in ignored.feature_names.tolist()
        and ignored.meta["ignored"]["sex"] == "ignored by choice"
    )


def test_wisconsin_trailing_comma_and_id(wisconsin):
    info = inspect_table(named(wisconsin, "data.csv"))
    roles = roles_of(info)
    assert (
        roles["id"] == "identifier" and roles["diagnosis"] == "target" and roles["Unnamed: 32"] == "ignored"
    )
    assert next(r for r in info.roles if r.name == "Unnamed: 32").flags == ("all empty",)
    assert any("all-empty" in n for n in info.notes)
    ds = quiet(named(wisconsin, "data.csv"))
    assert ds.n_features == 30 and "id" not in ds.feature_names.tolist()
    assert ds.class_names.tolist() == ["B", "M"]
    assert ds.meta["ignored"] == {"Unnamed: 32": "all empty"} and ds.meta["id_columns"] == ["id"]
    first_id = wisconsin.decode().splitlines()[1].split(",")[0]
    assert ds.sample_names[0] == first_id  # the identifier kept as text
    # every role choice can be overridden
    as_feature = quiet(named(wisconsin, "data.csv"), id_columns=None)
    assert as_feature.feature_names[0] == "id" and as_feature.sample_names is None


def test_nci60_rownames_and_small_classes(nci60):
    info = inspect_table(named(nci60, "nci60.csv"))
    assert roles_of(info)["rownames"] == "identifier" and info.target == "labs"
    ds = quiet(named(nci60, "nci60.csv"))
    assert ds.n_features == 2000 and ds.sample_names.tolist()[:2] == ["V1", "V2"]
    assert not any(nm.startswith("rownames") for nm in ds.feature_names.tolist())
    issues = check_target(ds, cv=5)
    assert [i.kind for i in issues] == ["small_classes"]
    small = issues[0].details["classes"]
    assert sum(1 for c in small.values() if c == 1) == 5 and small["PROSTATE"] == 2
    actions = [f["action"] for f in issues[0].details["fixes"]]
    assert actions == ["drop_small_classes", "leave_one_out"]  # the smallest class has 1: no "fewer folds"
    assert "5 classes with one sample" in issues[0].message
    kept = ds.drop_small_classes(5)
    big = {"RENAL", "CNS", "BREAST", "NSCLC", "MELANOMA", "OVARIAN", "LEUKEMIA", "COLON"}
    assert set(kept.class_names.tolist()) == big
    assert kept.n_samples == 57 and check_target(kept, cv=5) == []
    assert kept.sample_names.tolist() == [s for s, c in zip(ds.sample_names, ds.labels, strict=True) if c in
                                          set(kept.class_names.tolist())]  # fmt: skip
    assert "dropped 6 class(es)" in kept.meta["notes"][-1]


def test_european_csv_xlsx_ods(european, tmp_path):
    data = _european_csv(european)
    info = inspect_table(named(data, "export.csv"))
    assert (info.sep, info.decimal) == (";", ",")
    ds = quiet(named(data, "export.csv"))
    assert ds.feature_names.tolist() == ["Gewicht", "Größe", "Umsatz"]
    np.testing.assert_array_equal(ds.X, european[["Gewicht", "Größe", "Umsatz"]].to_numpy())
    assert ds.sample_names.tolist() == european["Probe"].tolist() and ds.meta["label_column"] == "Gruppe"
    # explicit overrides: a comma separator makes one column, which says to check the separator
    with pytest.raises(ValueError, match=r"separator"):
        quiet(named(data, "export.csv"), sep=",")
    # thousands separators with a decimal comma (1.234,5) are numbers, not text
    text = "Probe;Umsatz;Gruppe\nA1;1.234,5;x\nA2;12.345,25;y\nA3;999,5;x\n"
    th = quiet(named(text.encode(), "t.csv"))
    assert th.X.ravel().tolist() == [1234.5, 12345.25, 999.5]
    # a workbook with two sheets
    path = tmp_path / "export.xlsx"
    with pd.ExcelWriter(path, engine="openpyxl") as xw:
        pd.DataFrame({"note": ["read me"]}).to_excel(xw, sheet_name="Info", index=False)
        european.to_excel(xw, sheet_name="Daten", index=False)
    assert list_sheets(path) == ["Info", "Daten"]
    info = inspect_table(path, sheet="Daten")
    assert info.sheets == ["Info", "Daten"] and info.sheet == "Daten" and info.target == "Gruppe"
    wb = quiet(path, sheet=1)
    np.testing.assert_array_equal(wb.X, ds.X)
    assert wb.sample_names.tolist() == ds.sample_names.tolist()
    with pytest.raises(ValueError, match=r"no sheet named 'Nope'; the sheets are \['Info', 'Daten'\]"):
        quiet(path, sheet="Nope")
    pytest.importorskip("odf")
    ods = tmp_path / "export.ods"
    european.to_excel(ods, index=False, engine="odf")
    od = quiet(ods)
    np.testing.assert_array_equal(od.X, ds.X)
    assert od.meta["format"] == "ods"


def test_excel_renamed_csv_and_binary_junk(european, tmp_path):
    path = tmp_path / "real.xlsx"
    european.to_excel(path, index=False)
    disguised = named(path.read_bytes(), "export.csv")
    ds = quiet(disguised)
    assert ds.n_features == 3
    assert "read as an Excel workbook (.xlsx) although named .csv" in ds.meta["notes"]
    assert any("although named .csv" in n for n in inspect_table(named(path.read_bytes(), "x.csv")).notes)
    rng = np.random.default_rng(4)
    junk = bytes(rng.integers(0, 256, 4096, dtype=np.uint8))
    with pytest.raises(ValueError, match=r"could not read 'junk.csv' as CSV: its bytes are binary data"):
        quiet(named(junk, "junk.csv"))
    # a gzip stream opens by its content (tests/test_data_archives.py); with compression="none"
    # its bytes are read as they are, and said to be what they are
    with pytest.raises(ValueError, match=r"gzip-compressed file.*decompress it first"):
        quiet(named(gzip.compress(b"a,b\n1,2\n"), "data.csv"), compression="none")
    with pytest.raises(ValueError, match=r"gzip-compressed file"):
        inspect_table(named(gzip.compress(b"a,b\n1,2\n"), "data.csv"), plan=ImportPlan(compression="none"))
    ole = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(600)
    with pytest.raises(ValueError, match=r"could not open the workbook"):  # an OLE file, not a sheet
        quiet(named(ole, "old.csv"))


def test_transposed_expression_matrix(tmp_path):
    rng = np.random.default_rng(5)
    genes = [f"ENSG{j:05d}" for j in range(300)]
    samples = [f"GSM{100 + i}" for i in range(8)]
    values = rng.normal(size=(300, 8))
    frame = pd.DataFrame(values, columns=samples)
    frame.insert(0, "gene", genes)
    text = frame.to_csv(index=False, sep="\t")
    lines = text.splitlines()
    with_class = "\n".join([lines[0], "class\t" + "\t".join("ABABABAB")] + lines[1:]) + "\n"
    info = inspect_table(named(text.encode(), "expr.tsv"))
    assert info.suggest_transpose and "features as rows" in info.transpose_reason and not info.transposed
    auto = inspect_table(named(text.encode(), "expr.tsv"), transpose="auto", nrows=50)
    assert auto.transposed and auto.frame.shape == (8, 300)
    ds = quiet(named(text.encode(), "expr.tsv"), transpose="auto")
    assert ds.shape == (8, 300) and ds.y is None
    assert ds.sample_names.tolist() == samples and ds.feature_names.tolist() == genes
    np.testing.assert_array_equal(ds.X, values.T)
    labelled = quiet(named(with_class.encode(), "expr.tsv"), transpose=True, label="class")
    assert labelled.labels.tolist() == list("ABABABAB") and labelled.n_features == 300
    np.testing.assert_array_equal(labelled.X, values.T)  # exact even though the class row made text columns
    assert quiet(named(with_class.encode(), "expr.tsv"), transpose=True).meta["label_column"] == "class"
    # an ordinary tall table is not suggested for transposing
    tall = pd.DataFrame({"customer": [f"c{i}" for i in range(100)], "age": rng.integers(18, 90, 100),
                         "spend": rng.normal(size=100)})  # fmt: skip
    assert not inspect_table(named(tall.to_csv(index=False).encode(), "t.csv")).suggest_transpose


#: .h5ad files written by anndata 0.12.19 (an independent writer; anndata itself is not a
#: dependency: it pins pandas < 3), with the arrays they hold in cells_expected.npz
H5AD = Path(__file__).resolve().parent / "data"


@pytest.mark.parametrize("name", ["cells_sparse.h5ad", "cells_dense.h5ad"])
def test_h5ad(name):
    want = np.load(H5AD / "cells_expected.npz")
    path = H5AD / name
    info = inspect_table(path)
    assert info.fmt == "h5ad" and info.target == "cell_type" and "batch" in info.target_candidates
    assert info.n_columns == 25 and info.n_rows == 40 and info.roles == []
    ds = quiet(path)
    assert ds.is_sparse == (name == "cells_sparse.h5ad") and ds.shape == (40, 25)
    X = ds.X.toarray() if ds.is_sparse else ds.X
    np.testing.assert_array_equal(X, want["X"])
    assert ds.feature_names.tolist() == want["var_names"].tolist()
    assert ds.sample_names.tolist() == want["obs_names"].tolist()
    assert ds.labels.tolist() == want["cell_type"].tolist()
    assert quiet(path, label="batch").labels.tolist() == want["batch"].tolist()
    with pytest.raises(ValueError, match=r"label column 'nope' not found in obs; obs columns are"):
        quiet(path, label="nope")
    np.testing.assert_array_equal(
        quiet(path, label=None).X.toarray() if ds.is_sparse else quiet(path, label=None).X, want["X"]
    )


def test_roles_defaults_unit():
    f = pd.DataFrame(
        {
            "Unnamed: 0": [0, 1, 2, 3],
            "sample_id": ["a1", "a2", "a3", "a4"],
            "const": [1.0, 1.0, 1.0, 1.0],
            "empty": [np.nan] * 4,
            "x": [0.5, 0.1, 0.3, 0.2],
            "grade": [1, 2, 1, 2],
        }
    )
    roles = infer_column_roles(f)
    assert all(isinstance(r, ColumnRole) for r in roles)
    got = {r.name: (r.role, r.flags) for r in roles}
    assert got["Unnamed: 0"][0] == got["sample_id"][0] == "identifier"
    assert got["const"] == ("feature", ("constant",)) and got["empty"] == ("ignored", ("all empty",))
    assert got["grade"][0] == "target" and got["x"][0] == "feature"
    assert {r.name: r.reason for r in roles}["sample_id"] == "unique per row, named like an id"
    none = infer_column_roles(f, label=None, id_columns=None, ignore=["x"])
    assert roles_of(none) == {"Unnamed: 0": "feature", "sample_id": "feature", "const": "feature",
                              "empty": "ignored", "x": "ignored", "grade": "feature"}  # fmt: skip
    with pytest.raises(ValueError, match=r"identifier column 'nope' not found"):
        infer_column_roles(f, id_columns=["nope"])


def test_roles_on_wide_tables():
    rng = np.random.default_rng(7)
    f = pd.DataFrame(rng.normal(size=(100, 25_000)), columns=[f"g{j}" for j in range(25_000)])
    f.insert(0, "sample", [f"S{i}" for i in range(100)])
    f["class"] = rng.choice(["a", "b"], 100)
    roles = infer_column_roles(f)  # its speed on 200 x 20,000: benchmarks/bench_data.py
    assert roles[0].role == "identifier" and roles[-1].role == "target"


@pytest.mark.scale
def test_inspect_table_wide_csv_is_quick(tmp_path):
    rng = np.random.default_rng(8)
    m, n = 12_000, 40  # past the row-by-row reader's 10,000 columns
    X = np.round(rng.normal(size=(n, m)), 4)
    path = tmp_path / "wide.csv"
    with open(path, "w") as fh:
        fh.write("sample," + ",".join(f"g{j}" for j in range(m)) + ",class\n")
        for i in range(n):
            fh.write(f"S{i}," + ",".join(map(str, X[i])) + f",{'ab'[i % 2]}\n")
    inspect_table(path)  # imports, caches
    t = time.perf_counter()
    info = inspect_table(path)
    took = time.perf_counter() - t
    # a guard against per-column pathologies (it takes about a second); speed is measured in benchmarks/
    assert took < 30, f"inspect_table took {took:.2f} s on {n} x {m:,}"
    assert info.n_columns == m + 2 and info.target == "class" and roles_of(info)["sample"] == "identifier"
    ds = quiet(path)  # the row-by-row reader: identifier and target out of X
    assert ds.shape == (n, m) and ds.sample_names[0] == "S0"
    np.testing.assert_array_equal(ds.X, X)


def test_missing_target_and_target_kind():
    text = b"id,a,b,outcome\n1,0.5,1,x\n2,0.7,2,\n3,0.1,3,y\n4,0.2,4,x\n5,0.4,5,y\n"
    with pytest.raises(ValueError, match=r"1 missing label\(s\) at rows \[1\].*missing_target=\"drop\""):
        quiet(named(text, "m.csv"))
    ds = quiet(named(text, "m.csv"), missing_target="drop")
    assert ds.n_samples == 4 and ds.sample_names.tolist() == ["1", "3", "4", "5"]
    assert ds.meta["dropped_rows"]["rows"] == [1] and any("dropped 1 row" in n for n in ds.meta["notes"])
    raw = pd.Series(["x", None, "y", "x"])
    assert [i.kind for i in check_target(raw, cv=2)] == ["missing", "small_classes"]
    ages = "\n".join(f"{i},{i * 0.1},{20 + i}" for i in range(60))
    data = f"id,a,age\n{ages}\n".encode()
    classes = quiet(named(data, "a.csv"), label="age")
    assert classes.target_kind == "classes"
    assert check_target(classes)[0].kind == "looks_continuous"
    assert check_target(classes)[0].fix == "Treat as continuous"
    cont = quiet(named(data, "a.csv"), label="age", target_kind="continuous")
    assert cont.target_kind == "continuous" and cont.y.dtype == np.float64
    assert cont.subset(features=[0]).target_kind == "continuous"
    via = classes.with_target_kind("continuous")
    assert via.fingerprint == cont.fingerprint and check_target(via) == []
    one = check_target(["a"] * 5)
    assert one[0].kind == "one_class" and one[0].fix == "Choose another target"
    codes = check_target(np.array([0.5, 1.5] * 10))
    assert codes[0].kind == "looks_categorical"
    assert (
        Dataset(np.ones((20, 1)), y=np.array([0.5, 1.5] * 10)).with_target_kind("classes").target_kind
        == "classes"
    )


def test_export_quotes_and_round_trips(wisconsin):
    from fsviz.compute.exports import reduced_csv

    rng = np.random.default_rng(9)
    X = rng.normal(size=(6, 3))
    ds = Dataset(
        X,
        y=["a,b", 'say "hi"', "a,b", "line\nbreak", "plain", "plain"],
        feature_names=["f,1", 'g"2', "h\n3"],
        sample_names=["s,1", "s2", 's"3', "s4", "s5", "s6"],
        meta={"id_column": "patient_id"},
    )
    text = ds.to_csv()
    assert text.splitlines()[0].startswith('patient_id,"f,1","g""2","h')
    back = quiet(named(text.encode(), "r.csv"))
    assert back.fingerprint == ds.fingerprint
    assert back.sample_names.tolist() == ds.sample_names.tolist()
    assert back.feature_names.tolist() == ds.feature_names.tolist()
    assert back.labels.tolist() == ds.labels.tolist()
    np.testing.assert_array_equal(back.X, X)
    # the reduced export keeps the identifier column and round-trips
    wis = quiet(named(wisconsin, "data.csv"))
    red = reduced_csv(wis, [4, 0, 7])
    assert red.decode().splitlines()[0] == "id,smoothness_mean,radius_mean,concave points_mean,diagnosis"
    again = quiet(named(red, "reduced.csv"))
    assert again.sample_names.tolist() == wis.sample_names.tolist()
    np.testing.assert_array_equal(again.X, wis.X[:, [4, 0, 7]])
    assert again.fingerprint == wis.subset(features=[4, 0, 7]).fingerprint
    # sample names only enter the fingerprint when present
    plain = Dataset(X, y=[0, 1, 0, 1, 0, 1])
    assert plain.fingerprint != Dataset(X, y=[0, 1, 0, 1, 0, 1], sample_names=list("abcdef")).fingerprint
    assert plain.subset(samples=[0, 2]).sample_names is None


def test_cli_table_options(tmp_path, capsys, european, nci60):
    p = tmp_path / "export.csv"
    p.write_bytes(_european_csv(european))
    assert cli.main(["info", str(p), "--json", "-q"]) == 0
    out = capsys.readouterr().out
    assert '"identifiers": [\n    "Probe"' in out and '"target_column": "Gruppe"' in out
    assert cli.main(["info", str(p), "--sep", "semicolon", "--decimal", ",", "--id-columns", "none",
                     "--ignore", "Probe", "-q"]) == 0  # fmt: skip
    assert "n_features         3" in capsys.readouterr().out
    assert cli.main(["info", str(p), "--ignore", "nope", "-q"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "ignored column 'nope' not found" in err[0]
    n = tmp_path / "nci60.csv"
    n.write_bytes(nci60)
    assert cli.main(["info", str(n), "-q"]) == 0
    out = capsys.readouterr().out
    assert "target issue" in out and "Drop classes with fewer than 5 samples" in out
