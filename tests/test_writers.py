"""The writer registry (fsviz.data.formats.writer_registry) and what Dataset.save keeps: every
registered format reads back X, y, names, sample names, class names and, where the format can
hold it, Dataset.feature_info exactly; where it cannot (CSV/TSV), a warning says so."""

from __future__ import annotations

import io
import json
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fsviz.compute as fc
from fsviz import cli
from fsviz.data import Dataset, DataWarning, load_dataset, save_dataset
from fsviz.data.feature_info import match_feature_annotations
from fsviz.data.formats import Writer, get_writer, register_writer, writers
from fsviz.data.formats.source import FSVIZ_TAG, feature_info_from_record, write_bytes
from fsviz.data.formats.writer_registry import unregister_writer, writer_for_suffix

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
KEEPING = ("parquet", "npz", "svmlight")  # the built-in writers that hold feature_info


def _load(buf_or_path, **kw) -> Dataset:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)  # constant features in tiny random data
        return load_dataset(buf_or_path, **kw)


def _roundtrip(ds: Dataset, fmt: str) -> Dataset:
    buf = io.BytesIO()
    ds.save(buf, fmt=fmt)
    buf.seek(0)
    buf.name = f"rt{get_writer(fmt).suffixes[0]}"
    return _load(buf)


def _same(a: Dataset, b: Dataset) -> None:
    xa = a.X.toarray() if sp.issparse(a.X) else a.X
    xb = b.X.toarray() if sp.issparse(b.X) else b.X
    assert xa.tobytes() == np.asarray(xb, dtype=np.float64).tobytes()
    assert a.feature_names.tolist() == b.feature_names.tolist()
    assert (a.labels is None and b.labels is None) or a.labels.tolist() == b.labels.tolist()
    assert (a.sample_names is None) == (b.sample_names is None)
    if a.sample_names is not None:
        assert a.sample_names.tolist() == b.sample_names.tolist()
    assert (a.class_names is None) == (b.class_names is None)
    if a.class_names is not None:
        assert a.class_names.tolist() == b.class_names.tolist()
    if sp.issparse(a.X) == sp.issparse(b.X):  # Parquet writes sparse data dense: another hash
        assert a.fingerprint == b.fingerprint


# ---------------------------------------------------------------------------- the registry


def _toy_write(dataset, path_or_buffer, *, digits: int = 3) -> None:
    text = "\n".join(" ".join(f"{v:.{digits}f}" for v in row) for row in np.asarray(dataset.X).tolist())
    write_bytes(path_or_buffer, text.encode())  # a path or a binary buffer


@pytest.fixture
def toy_writer():
    writer = register_writer(Writer("toyw", _toy_write, "toy text", suffixes=(".toyw",), aliases=("toy-w",)))
    yield writer
    unregister_writer("toyw")


def test_the_built_in_writers_are_registered_with_their_suffixes_and_aliases():
    assert [w.name for w in writers()][:5] == ["csv", "tsv", "parquet", "npz", "svmlight"]
    assert {w.name for w in writers() if w.feature_info} == set(KEEPING)
    assert {w.name for w in writers() if w.sparse} == {"npz", "svmlight"}
    for name, want in [("pq", "parquet"), ("libsvm", "svmlight"), ("SVM", "svmlight"), (".tab", "tsv")]:
        assert get_writer(name).name == want
    for file, want in [("a.CSV", "csv"), ("a.tab", "tsv"), ("dir.x/a.pq", "parquet"), ("a.svml", "svmlight")]:
        assert writer_for_suffix(file).name == want
    assert writer_for_suffix("a.mat") is None


def test_an_unknown_fmt_or_suffix_lists_the_registered_writers(tmp_path):
    ds = Dataset(np.eye(2))
    with pytest.raises(ValueError, match=r"cannot write fmt 'mat'.*csv \(\.csv\).*npz \(\.npz\)"):
        ds.save(tmp_path / "d.x", fmt="mat")
    with pytest.raises(ValueError, match=r"cannot tell the format from .*d\.h5ad.*svmlight \(\.svm "):
        ds.save(tmp_path / "d.h5ad")
    with pytest.raises(ValueError, match=r"the buffer \(it has no name\).*parquet"):
        save_dataset(ds, io.BytesIO())
    assert not (tmp_path / "d.h5ad").exists() and not (tmp_path / "d.x").exists()


def test_a_registered_writer_is_chosen_by_suffix_alias_and_name(toy_writer, tmp_path):
    ds = Dataset(np.array([[1.0, 2.5], [3.0, 4.0]]))
    ds.save(tmp_path / "a.toyw")
    assert (tmp_path / "a.toyw").read_text() == "1.000 2.500\n3.000 4.000"
    for fmt in ("toyw", "toy-w"):
        buf = io.BytesIO()
        ds.save(buf, fmt=fmt, digits=1)  # the writer's own option, passed through
        assert buf.getvalue() == b"1.0 2.5\n3.0 4.0"
    with pytest.raises(ValueError, match=r"the toyw writer takes no option\(s\) \['sep'\]"):
        ds.save(io.BytesIO(), fmt="toyw", sep=";")
    assert "toyw (.toyw)" in str(pytest.raises(ValueError, ds.save, tmp_path / "a.zzz").value)


def test_registering_refuses_clashes_and_bad_declarations(toy_writer):
    with pytest.raises(
        ValueError, match=r"\['toyw'\] already name\(s\) the registered writer\(s\) \['toyw'\]"
    ):
        register_writer(Writer("toyw", _toy_write))
    with pytest.raises(ValueError, match=r"\['csv'\] already name"):
        register_writer(Writer("other", _toy_write, aliases=("csv",)))
    with pytest.raises(
        ValueError, match=r"\['\.npz'\] already name\(s\) the registered writer\(s\) \['npz'\]"
    ):
        register_writer(Writer("other", _toy_write, suffixes=(".npz",)))
    with pytest.raises(ValueError, match="lower case and begin with '.'"):
        register_writer(Writer("other", _toy_write, suffixes=("X",)))
    with pytest.raises(ValueError, match="must be lower-case"):
        register_writer(Writer("Other", _toy_write))
    with pytest.raises(ValueError, match="callable write"):
        register_writer(Writer("other", "not a function"))
    with pytest.raises(ValueError, match=r"callable write\(dataset, path_or_buffer"):
        register_writer(Writer("other", lambda dataset: None))
    with pytest.raises(ValueError, match="expected a Writer"):
        register_writer("toyw")
    assert "other" not in [w.name for w in writers()]
    replaced = register_writer(Writer("toyw", _toy_write, "again", suffixes=(".toyw",)), replace=True)
    assert get_writer("toyw") is replaced and get_writer("toyw").description == "again"


def test_to_csv_is_the_registered_csv_writer():
    ds = Dataset(np.array([[0.1, -0.0]]), y=["=a"], feature_names=["f", "g"])
    assert ds.to_csv() == get_writer("csv").write(ds) == "f,g,label\n0.1,-0.0,=a\n"
    assert ds.to_csv(sep="\t") == get_writer("tsv").write(ds)
    buf = io.BytesIO()
    ds.save(buf, fmt="csv", formula_safe=True)
    assert buf.getvalue() == b"f,g,label\n0.1,-0.0,'=a\n"


# ---------------------------------------------------------------------------- feature_info

feature_name = st.text(st.characters(categories=("L", "N"), max_codepoint=0x4FF), min_size=1, max_size=6).map(
    lambda s: "p_" + s
)
symbol = st.sampled_from(["", "TP53", "BRCA1", "Ω-gene", "A,B", 'say "hi"'])
info_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=8)


@st.composite
def annotated(draw):
    """A dataset and an annotation table as a platform's annotation file gives it: repeated and
    blank symbols, text with separators, quotes and line breaks, features without a row."""
    n = draw(st.integers(1, 5))
    m = draw(st.integers(1, 6))
    names = draw(st.lists(feature_name, min_size=m, max_size=m, unique=True))
    X = np.array(
        draw(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=n * m, max_size=n * m))
    )
    X = X.reshape(n, m)
    if draw(st.booleans()):
        X = sp.csr_matrix(X)
    y = draw(st.one_of(st.none(), st.lists(st.sampled_from(["ctrl", "case", "x y"]), min_size=n, max_size=n)))
    samples = draw(st.one_of(st.none(), st.just([f"s{i}" for i in range(n)])))
    rows = draw(st.lists(st.sampled_from(names), min_size=1, max_size=m, unique=True))
    table = pd.DataFrame(
        {
            "ID": rows,
            "Gene Symbol": [draw(symbol) for _ in rows],
            "Description": [draw(info_text) for _ in rows],
        }
    )
    info, _ = match_feature_annotations(table, names)
    return Dataset(X, y=y, feature_names=names, sample_names=samples, meta={"feature_info": info})


@SETTINGS
@given(ds=annotated(), fmt=st.sampled_from(KEEPING))
def test_save_keeps_feature_info_exactly(ds, fmt):
    back = _roundtrip(ds, fmt)
    _same(ds, back)  # the fingerprint holds the display labels
    pd.testing.assert_frame_equal(back.feature_info, ds.feature_info)
    assert back.feature_info.attrs == ds.feature_info.attrs == {"key": "ID", "display": "Gene Symbol"}
    assert back.feature_labels.tolist() == ds.feature_labels.tolist()


@pytest.mark.parametrize("fmt", KEEPING)
def test_feature_info_of_any_column_type_and_of_a_subset_comes_back(fmt, tmp_path):
    info = pd.DataFrame(
        {
            "display_name": ["TP53", None, "EGFR", "p4"],
            "score": [1.5, -0.0, -2.0, 1e300],
            "n_probes": np.array([1, 2, 3, 2**40], dtype=np.int64),
            "on_chip": [True, False, True, False],
            "note": ["", "a\nb", "é", None],
        },
        index=["p1", "p2", "p3", "p4"],
    )
    ds = Dataset(
        np.arange(8.0).reshape(2, 4), feature_names=["p1", "p2", "p3", "p4"], meta={"feature_info": info}
    )
    path = tmp_path / f"d{get_writer(fmt).suffixes[0]}"
    ds.save(path)
    back = _load(path)
    pd.testing.assert_frame_equal(back.feature_info, ds.feature_info)
    assert back.feature_labels.tolist() == ["TP53 (p1)", "p2", "EGFR (p3)", "p4"]
    part = ds.subset(features=[2, 3])  # the annotations of the kept features only
    back = _roundtrip(part, fmt)
    assert back.feature_info.index.tolist() == ["p3", "p4"]
    pd.testing.assert_frame_equal(back.feature_info, part.feature_info)
    assert back.fingerprint == part.fingerprint


def test_annotations_loaded_from_a_file_survive_a_save(tmp_path):
    data = tmp_path / "expr.csv"
    data.write_text("sample,1007_s_at,1053_at,117_at,label\na,1.5,2,3,x\nb,4,5,6.25,y\nc,7,8,9,x\n")
    ann = tmp_path / "GPL570.csv"
    ann.write_text("ID,Gene Symbol,Gene Title\n1007_s_at,DDR1,discoidin\n1053_at,RFC2,replication\n")
    ds = _load(data, feature_annotations=ann)
    assert ds.feature_labels.tolist() == ["DDR1 (1007_s_at)", "RFC2 (1053_at)", "117_at"]
    for fmt in KEEPING:
        back = _roundtrip(ds, fmt)
        _same(ds, back)
        pd.testing.assert_frame_equal(back.feature_info, ds.feature_info)


def test_unannotated_data_are_written_as_before():
    ds = Dataset(np.eye(3), y=[0, 1, 1])
    for fmt in KEEPING:
        assert _roundtrip(ds, fmt).meta.get("feature_info") is None
    buf = io.BytesIO()
    ds.save(buf, fmt="parquet")
    import pyarrow.parquet as pq

    meta = json.loads(pq.read_schema(io.BytesIO(buf.getvalue())).metadata[FSVIZ_TAG.encode()])
    assert "feature_info" not in meta


@pytest.mark.parametrize("fmt", ["csv", "tsv"])
def test_text_cannot_hold_feature_info_and_says_so(fmt, tmp_path):
    info = pd.DataFrame({"display_name": ["TP53", "g2"]}, index=["g1", "g2"])
    ds = Dataset(np.array([[1.0, 2.0], [3.0, 5.0]]), feature_names=["g1", "g2"], meta={"feature_info": info})
    path = tmp_path / f"d.{fmt}"
    with pytest.warns(
        DataWarning, match=r"cannot hold the feature annotations.*1 of 2 .*g1 = TP53.*parquet"
    ) as said:
        ds.save(path)
    with pytest.warns(DataWarning, match="cannot hold") as said_too:
        save_dataset(ds, io.BytesIO(), fmt=fmt)
    assert said[0].filename == said_too[0].filename == __file__  # the caller's line, not fsviz's
    assert _load(path).meta.get("feature_info") is None
    # the fix the warning names gives them back
    info_path = tmp_path / "features.csv"
    ds.feature_info.to_csv(info_path, index_label="feature")
    back = _load(path, feature_annotations=info_path)
    assert back.feature_labels.tolist() == ds.feature_labels.tolist() and back.fingerprint == ds.fingerprint
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing to lose, nothing said
        Dataset(np.eye(2)).save(tmp_path / f"plain.{fmt}")


@pytest.mark.parametrize(
    "record",
    [
        {"index": ["a"], "columns": [{"name": "display_name", "dtype": "object", "values": ["x", "y"]}]},
        {"index": ["a"], "columns": [{"name": "other", "dtype": "object", "values": ["x"]}]},
        {"index": ["a"], "columns": "nope"},
        {"columns": []},
        ["not", "a", "record"],
    ],
)
def test_a_damaged_feature_info_record_is_a_value_error(record):
    with pytest.raises(
        ValueError, match=r"f\.npz: the feature annotations in its fsviz metadata are damaged"
    ):
        feature_info_from_record(record, "f.npz")


def test_a_file_with_a_damaged_record_is_refused_with_the_fix(tmp_path):
    info = pd.DataFrame({"display_name": ["A", "B"]}, index=["a", "b"])
    ds = Dataset(np.eye(2), feature_names=["a", "b"], meta={"feature_info": info})
    buf = io.BytesIO()
    ds.save(buf, fmt="svmlight")
    text = buf.getvalue().decode().replace('"values": ["A", "B"]', '"values": ["A"]')
    path = tmp_path / "d.svm"
    path.write_text(text)
    with pytest.raises(ValueError, match=r"'d\.svm': the feature annotations .* damaged.*Fix: re-export"):
        load_dataset(path)


# ---------------------------------------------------------------------------- the CLI's --reduced


def test_the_cli_writes_the_reduced_dataset_with_any_registered_writer(tmp_path, capsys):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(24, 5))
    names = ["1007_s_at", "1053_at", "117_at", "121_at", "1255_g_at"]
    frame = pd.DataFrame(X, columns=names)
    frame["label"] = np.where(np.arange(24) % 2, "tumour", "normal")
    frame.to_csv(tmp_path / "expr.csv", index=False)
    ann = pd.DataFrame({"ID": names, "Gene Symbol": ["DDR1", "RFC2", "HSPA6", "PAX8", "TP53"]})
    ann.to_csv(tmp_path / "GPL570.csv", index=False)
    argv = ["select", "--method", "fisher", "-k", "2", str(tmp_path / "expr.csv"), "--label", "label"]
    argv += ["--feature-annotations", str(tmp_path / "GPL570.csv"), "-o", str(tmp_path / "sel.csv")]
    full = _load(tmp_path / "expr.csv", label="label", feature_annotations=tmp_path / "GPL570.csv")

    def reduced(*extra: str) -> tuple[Dataset, str]:
        code = cli.main([*argv, *extra])
        err = capsys.readouterr().err
        assert code == 0, err
        picked = pd.read_csv(tmp_path / "sel.csv")["index"].to_numpy()
        return full.subset(features=picked), err

    for path, extra in [("r.parquet", ()), ("r.out", ("--reduced-format", "npz")), ("r.svm", ())]:
        want, err = reduced("--reduced", str(tmp_path / path), *extra)
        back = _load(tmp_path / path)
        _same(want, back)
        pd.testing.assert_frame_equal(back.feature_info, want.feature_info)
        assert back.feature_labels.tolist()[0].startswith(("DDR1", "RFC2", "HSPA6", "PAX8", "TP53"))
    assert "(2 features, svmlight)" in err
    want, err = reduced("--reduced", str(tmp_path / "r.csv"))  # the app's download, byte for byte
    picked = pd.read_csv(tmp_path / "sel.csv")["index"].to_numpy()
    assert (tmp_path / "r.csv").read_bytes() == fc.reduced_csv(full, picked)
    assert "IDs only; .parquet or .npz or .svm files keep their annotations" in err
    assert cli.main([*argv, "--reduced", str(tmp_path / "r.x"), "--reduced-format", "mat"]) == 2
    assert "invalid choice: 'mat'" in capsys.readouterr().err
