"""Reading split in two (fsviz.data.parsed): parse a file once, assemble it under many plans.

Every assembly must equal ``load_dataset`` with the same plan (same fingerprint, names, notes),
the parse must be counted once (and logged to FSVIZ_READ_LOG), and the parsed parts must survive
pickling and never be changed by an assembly.
"""

from __future__ import annotations

import dataclasses
import io
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

from fsviz.data import ImportPlan, ParsedSource, assemble, load_dataset, parse_count, parse_source
from fsviz.data.plan import ASSEMBLE_FIELDS, PARSE_FIELDS
from tests.omics_files import cell_annotations, tenx_tar_gz


def named(data: bytes, name: str) -> io.BytesIO:
    buf = io.BytesIO(data)
    buf.name = name
    return buf


def quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def same(a, b) -> None:
    """Two datasets equal in everything load_dataset decides."""
    assert a.fingerprint == b.fingerprint
    assert a.feature_names.tolist() == b.feature_names.tolist()
    assert (a.sample_names is None) == (b.sample_names is None)
    if a.sample_names is not None:
        assert a.sample_names.tolist() == b.sample_names.tolist()
    assert (a.class_names is None) == (b.class_names is None)
    if a.class_names is not None:
        assert a.class_names.tolist() == b.class_names.tolist()
    assert a.meta.keys() == b.meta.keys()
    for k, v in a.meta.items():
        if isinstance(v, (pd.DataFrame, pd.Series)):
            assert v.equals(b.meta[k]), k
        else:
            assert v == b.meta[k], k


def _table(n: int = 40, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "sample_id": [f"S{i:02d}" for i in range(n)],
            "g1": rng.normal(size=n),
            "g2": rng.normal(size=n),
            "age": rng.integers(20, 80, size=n),
            "g3": rng.normal(size=n),
            "batch": rng.choice(["b1", "b2"], size=n),
            "diagnosis": rng.choice(["tumour", "normal"], size=n),
        }
    )


PLANS = [
    {"ignore": ["batch"]},  # found: the target named like one, the id column
    {"label": "batch", "ignore": ["diagnosis"]},
    {"label": "age", "id_columns": None, "ignore": ["sample_id", "batch", "diagnosis"]},
    {"label": None, "ignore": ["batch"], "categorical": "onehot", "target_kind": "auto", "missing": "mean"},
]


@pytest.mark.parametrize("suffix", ["csv", "tsv", "parquet"])
def test_one_parse_many_plans_each_equal_to_load_dataset(tmp_path, suffix):
    df = _table()
    path = tmp_path / f"t.{suffix}"
    if suffix == "parquet":
        df.to_parquet(path, index=False)
    else:
        df.to_csv(path, index=False, sep="," if suffix == "csv" else "\t")
    before = parse_count()
    parsed = parse_source(path)
    assert parse_count() == before + 1
    got = [quiet(assemble, parsed, ImportPlan(**options)) for options in PLANS]
    assert parse_count() == before + 1  # no re-read, whatever the target and roles
    for ds, options in zip(got, PLANS, strict=True):
        same(ds, quiet(load_dataset, path, plan=ImportPlan(**options)))
    assert quiet(assemble, parsed, PLANS[1]).class_names.tolist() == ["b1", "b2"]
    assert quiet(assemble, parsed, PLANS[2]).meta.get("target_kind") is None


def test_a_buffer_and_the_annotation_join_assemble_without_a_re_read():
    archive, (_counts, barcodes, _ids, _symbols, kind) = tenx_tar_gz()
    rng = np.random.default_rng(1)
    notes = pd.DataFrame(
        {"barcode": barcodes, "cell_type": kind, "donor": rng.choice(["d1", "d2", "d3"], size=len(barcodes))}
    )
    table = notes.to_csv(index=False).encode()
    before = parse_count()
    parsed = parse_source(named(archive, "pbmc.tar.gz"))
    for target in ("cell_type", "donor", None):
        plan = ImportPlan(label=target, sample_annotations="cells.csv")
        got = quiet(assemble, parsed, plan, sample_annotations=named(table, "cells.csv"))
        want = quiet(
            load_dataset,
            named(archive, "pbmc.tar.gz"),
            plan=plan,
            sample_annotations=named(table, "cells.csv"),
        )
        same(got, want)
    assert parse_count() == before + 1 + 3  # the three load_dataset calls, one parse each
    assert quiet(
        assemble, parsed, ImportPlan(label="cell_type"), sample_annotations=named(table, "c.csv")
    ).shape == (
        60,
        40,
    )
    again = quiet(
        assemble,
        parsed,
        ImportPlan(label="cell_type"),
        sample_annotations=named(cell_annotations(barcodes, kind), "a.csv"),
    )
    assert again.class_names.tolist() == ["B cell", "T cell"]


def test_the_read_log_gets_one_line_per_parse(tmp_path, monkeypatch):
    log = tmp_path / "reads.log"
    monkeypatch.setenv("FSVIZ_READ_LOG", str(log))
    path = tmp_path / "my data.csv"
    _table().to_csv(path, index=False)
    parsed = parse_source(path)
    for options in PLANS[:3]:
        quiet(assemble, parsed, ImportPlan(**options))
    lines = log.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1
    when, source, fmt = lines[0].split("\t")
    assert source == "my data.csv" and fmt == "csv"
    assert pd.Timestamp(when).tzinfo is not None  # ISO time with its zone
    quiet(load_dataset, path, label="batch", ignore=["diagnosis"])
    assert len(log.read_text(encoding="utf-8").splitlines()) == 2


def test_a_parsed_source_pickles_and_assembles_the_same(tmp_path):
    path = tmp_path / "t.csv"
    _table().to_csv(path, index=False)
    parsed = parse_source(path)
    twin = pickle.loads(pickle.dumps(parsed))
    assert isinstance(twin, ParsedSource)
    for options in PLANS:
        same(quiet(assemble, twin, ImportPlan(**options)), quiet(assemble, parsed, ImportPlan(**options)))


def test_assembling_never_changes_what_was_parsed(tmp_path):
    path = tmp_path / "t.csv"
    df = _table()
    df.loc[3, "g2"] = np.nan
    df.to_csv(path, index=False)
    parsed = parse_source(path)
    frame = parsed.payload["raw"].frame.copy(deep=True)
    first = quiet(assemble, parsed, ImportPlan(missing="mean", categorical="onehot", label="age"))
    quiet(
        assemble,
        parsed,
        ImportPlan(missing="median", label="diagnosis", types={"g3": "category", "batch": "category"}),
    )
    pd.testing.assert_frame_equal(parsed.payload["raw"].frame, frame)
    same(quiet(assemble, parsed, ImportPlan(missing="mean", categorical="onehot", label="age")), first)


def test_a_wide_table_shares_its_numeric_block_and_changes_target_without_a_re_read(tmp_path):
    rng = np.random.default_rng(5)
    n, m = 50, 20_000
    X = np.round(rng.normal(size=(n, m)), 4)
    cols = {"sample": [f"P{i:03d}" for i in range(n)]}
    cols.update({f"cg{j:05d}": X[:, j] for j in range(m)})
    cols["group"] = rng.choice(["a", "b"], size=n)
    cols["class"] = rng.choice(["case", "control"], size=n)
    path = tmp_path / "wide.csv"
    pd.DataFrame(cols).to_csv(path, index=False)
    before = parse_count()
    parsed = parse_source(path)
    assert parsed.payload["kind"] == "wide"
    plain = quiet(assemble, parsed, ImportPlan(ignore=("group",)))
    assert plain.shape == (n, m) and plain.class_names.tolist() == ["case", "control"]
    assert np.shares_memory(plain.X, parsed.payload["block"])  # ids and a text target out: no copy
    np.testing.assert_array_equal(plain.X, X)
    by_group = quiet(assemble, parsed, ImportPlan(label="group", ignore=("class",)))
    numeric = quiet(assemble, parsed, ImportPlan(label="cg00007", ignore=("class", "group")))
    assert parse_count() == before + 1
    assert numeric.shape == (n, m - 1) and not np.shares_memory(numeric.X, parsed.payload["block"])
    np.testing.assert_array_equal(numeric.X, np.delete(X, 7, axis=1))
    for got, options in (
        (plain, {"ignore": ("group",)}),
        (by_group, {"label": "group", "ignore": ("class",)}),
        (numeric, {"label": "cg00007", "ignore": ("class", "group")}),
    ):
        same(got, quiet(load_dataset, path, **options))


def test_parse_key_holds_the_parse_fields_only():
    every = {f.name for f in dataclasses.fields(ImportPlan)}
    assert set(PARSE_FIELDS) | set(ASSEMBLE_FIELDS) == every  # each field is one or the other
    assert not set(PARSE_FIELDS) & set(ASSEMBLE_FIELDS)
    plan = ImportPlan(sep=";", label="a")
    for changed in (
        plan.replace(label="b"),
        plan.replace(id_columns=("x",), ignore=("y",), missing="mean", target_kind="classes"),
        plan.replace(sample_annotations="s.csv", annotation_key="k", feature_annotations="f.csv"),
    ):
        assert changed.parse_key() == plan.parse_key()
    for changed in (plan.replace(sep=","), plan.replace(transpose=True), plan.replace(na_values=("x",))):
        assert changed.parse_key() != plan.parse_key()


def test_a_plan_that_parses_otherwise_is_refused_by_assemble(tmp_path):
    path = tmp_path / "t.csv"
    _table().to_csv(path, index=False)
    parsed = parse_source(path)
    with pytest.raises(ValueError, match=r"changes how 't.csv' is parsed \(sep\).*parse_source"):
        assemble(parsed, ImportPlan(sep=";"))
    with pytest.raises(ValueError, match="expected what parse_source returns"):
        assemble("t.csv")


def test_a_compressed_file_records_what_it_found_and_assembles_under_auto(tmp_path):
    import gzip

    path = tmp_path / "t.csv.gz"
    path.write_bytes(gzip.compress(_table().to_csv(index=False).encode()))
    parsed = parse_source(path)
    assert parsed.plan.compression == "gzip"
    got = quiet(assemble, parsed, ImportPlan(label="batch", ignore=("diagnosis",)))
    same(got, quiet(load_dataset, path, label="batch", ignore=["diagnosis"]))
    assert got.meta["plan"]["compression"] == "gzip"


def test_a_reader_that_takes_the_target_reads_again_and_says_so(tmp_path):
    rng = np.random.default_rng(2)
    path = tmp_path / "d.npz"
    np.savez(path, X=rng.normal(size=(12, 4)), y=np.arange(12) % 2, labels=np.arange(12) % 3)
    parsed = parse_source(path)
    assert parsed.kind == "bound"
    before = parse_count()
    first = quiet(assemble, parsed)
    assert parse_count() == before  # the same target: the parts read serve it
    other = quiet(assemble, parsed, ImportPlan(label="labels"))
    assert parse_count() == before + 1  # an .npz takes its target while reading: read again
    same(first, quiet(load_dataset, path))
    same(other, quiet(load_dataset, path, label="labels"))


# ---------------------------------------------------------------- one place validates the options
BAD = [
    ("missing", "bogus", "--missing", "missing must be 'error', 'mean' or 'median'; got 'bogus'."),
    ("target_kind", "numbers", "--target-kind", "target_kind must be 'auto', 'classes' or 'continuous'"),
    ("decimal", ";", "--decimal", "decimal must be 'auto', '.' or ','; got ';'."),
    ("compression", "rar", "--compression", "compression must be 'auto', 'none', 'gzip'"),
    ("transpose", "maybe", "--transpose", "transpose must be False, True or 'auto'; got 'maybe'."),
    ("sep", "::", "--sep", "'sep' must be 'auto', 'whitespace' or one character; got '::'."),
]


@pytest.mark.parametrize(("field", "value", "flag", "message"), BAD)
def test_a_bad_option_says_the_same_as_keyword_plan_field_and_cli_flag(
    tmp_path, capsys, field, value, flag, message
):
    from fsviz import cli

    path = tmp_path / "t.csv"
    _table().to_csv(path, index=False)
    with pytest.raises(ValueError) as plan_error:
        ImportPlan(**{field: value})
    with pytest.raises(ValueError) as keyword_error:
        load_dataset(path, **{field: value})
    with pytest.raises(ValueError) as dict_error:
        load_dataset(path, plan={field: value})
    assert message in str(plan_error.value)
    assert str(keyword_error.value) == f"load_dataset: {plan_error.value}"
    assert str(dict_error.value) == f"load_dataset: plan: {plan_error.value}"
    assert cli.main(["info", str(path), flag, value]) == 1  # an input error, not a usage error
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == f"fsviz: error: load_dataset: {plan_error.value}"


def test_types_that_are_not_a_mapping_are_named_by_the_plan(tmp_path):
    path = tmp_path / "t.csv"
    _table().to_csv(path, index=False)
    for bad in ("abc", 5):
        with pytest.raises(ValueError, match=r"^load_dataset: 'types' must map column names to types; got"):
            load_dataset(path, types=bad)
