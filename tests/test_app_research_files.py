"""AppTest: files as researchers have them load with the defaults plus at most one visible choice.

A GEO series matrix, an expression matrix with repeated gene symbols and its phenotype table in a
second file, an AnnData file with sparse counts and obs columns, a churn table with dates, blank
numbers and a high-cardinality text column, a headerless UCI file with ``?``, a European CSV whose
first column holds decimal-comma numbers (generated: tests/user_files.py). Each one's target is
selectable, its feature count is what a person expects, and the report's Python and CLI
reproduce lines give the app's fingerprint (they are run here).
"""

from __future__ import annotations

import io
import re
import shlex
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest

import fsviz_app.appkit as appkit
from tests.test_app_pages import APP, TIMEOUT
from tests.user_files import (
    anndata_counts,
    churn_csv,
    european_first_column,
    expression_with_repeats,
    geo_series_matrix,
    uci_headerless,
)


def _start() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.radio(key="source").set_value("Upload").run()
    return at


def _upload(at: AppTest, name: str, data: bytes) -> AppTest:
    at.file_uploader(key="upload").set_value((name, data, "application/octet-stream")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _dataset(at: AppTest):
    return appkit.state._datasets().get(at.session_state["dataset_key"])


def _target_box(at: AppTest):
    return next(s for s in at.selectbox if s.label == "Target column")


def _annotations(at: AppTest, name: str, data: bytes) -> AppTest:
    box = next(u for u in at.get("file_uploader") if u.label.startswith("Sample annotations"))
    box.set_value((name, data, "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _reproduce(ds, tmp_path: Path, name: str, data: bytes, extra: dict | None = None) -> None:
    """The report's Python and CLI lines, run on the file saved under its name: same fingerprint."""
    from fsviz import cli
    from fsviz.compute import Run
    from fsviz.report import build_report

    (tmp_path / name).write_bytes(data)
    for other, content in (extra or {}).items():
        (tmp_path / other).write_bytes(content)
    html = build_report(ds, [Run("fisher" if ds.target_kind == "classes" else "variance")], k=5)
    py = re.search(r'<pre class="code" id="reproduce-python">(.*?)</pre>', html, re.S).group(1)
    load = next(line for line in py.splitlines() if line.startswith("ds = load_dataset("))
    load = load.replace("&#x27;", "'").replace("&quot;", '"').replace("&amp;", "&")
    import os

    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        from fsviz.data import load_dataset  # noqa: F401 - the reproduce line calls it

        scope: dict = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(f"from fsviz.data import load_dataset\n{load}", scope)  # noqa: S102 - the report's own line
        assert scope["ds"].fingerprint == ds.fingerprint, load
        cli_text = re.search(r'<pre class="code" id="reproduce-cli">(.*?)</pre>', html, re.S).group(1)
        cli_text = cli_text.replace("&#x27;", "'").replace("&quot;", '"').replace("&amp;", "&")
        line = next(ln for ln in cli_text.splitlines() if ln.startswith("fsviz select"))
        args = shlex.split(line)[1:]
        out = tmp_path / "sel.csv"
        if "-o" in args:  # the line's own output file: written here instead
            at = args.index("-o")
            args = args[:at] + args[at + 2 :]
        args += ["-o", str(out), "--provenance", str(tmp_path / "prov.json")]
        assert cli.main(args) == 0, " ".join(args)
        import json

        assert json.loads((tmp_path / "prov.json").read_text())["dataset"]["fingerprint"] == ds.fingerprint
    finally:
        os.chdir(here)


def test_geo_series_matrix(tmp_path):
    data = geo_series_matrix()
    at = _upload(_start(), "GSE00000_series_matrix.txt", data)
    ds = _dataset(at)
    assert ds.shape == (24, 300) and ds.meta["label_column"] == "disease state"
    assert "disease state" in _target_box(at).options and "sex" in _target_box(at).options
    _target_box(at).set_value("sex").run()
    assert not at.exception and _dataset(at).meta["label_column"] == "sex"
    _reproduce(_dataset(at), tmp_path, "GSE00000_series_matrix.txt", data)


def test_expression_matrix_with_repeated_symbols_and_a_phenotype_table(tmp_path):
    matrix, pheno = expression_with_repeats()
    at = _upload(_start(), "expr.csv", matrix)
    ds = _dataset(at)
    assert ds.shape == (30, 3960)  # transposed; 40 repeated symbols averaged, never one-hot encoded
    assert any("averaged" in n for n in ds.meta["notes"])
    at = _annotations(at, "pheno.csv", pheno)  # the one visible choice
    ds = _dataset(at)
    assert ds.meta["label_column"] == "disease_state" and ds.shape == (30, 3960)
    assert ds.meta["annotations"]["matched"] == 30 and ds.meta["annotations"]["key"] == "sample_id"
    assert "disease_state" in _target_box(at).options
    _reproduce(ds, tmp_path, "expr.csv", matrix, {"pheno.csv": pheno})


def test_anndata_cell_type_is_selectable(tmp_path):
    path = anndata_counts(tmp_path / "cells.h5ad")
    data = path.read_bytes()
    at = _upload(_start(), "cells.h5ad", data)
    assert _dataset(at).meta["label_column"] == "cell_type" and _dataset(at).is_sparse
    _target_box(at).set_value("batch").run()
    assert not at.exception and _dataset(at).meta["label_column"] == "batch"
    _target_box(at).set_value("cell_type").run()  # issue 29: this fell back to "no target"
    assert _target_box(at).value == "cell_type" and _dataset(at).meta["label_column"] == "cell_type"
    _reproduce(_dataset(at), tmp_path, "cells.h5ad", data)


def test_churn_table_with_dates_and_many_towns(tmp_path):
    data = churn_csv()
    at = _upload(_start(), "churn.csv", data)
    ds = _dataset(at)
    names = [str(n) for n in ds.feature_names]
    assert ds.meta["label_column"] == "churned" and len(names) == 6, names
    assert not any(n.startswith(("signup_date", "city")) for n in names)
    notes = " ".join(i.value for i in at.info)
    assert "signup_date" in notes and "city" in notes
    _reproduce(ds, tmp_path, "churn.csv", data)


def test_headerless_uci_file_with_question_marks(tmp_path):
    data = uci_headerless()
    at = _upload(_start(), "breast-cancer-wisconsin.data", data)
    ds = _dataset(at)
    assert ds.shape == (120, 9) and ds.meta["label_column"] == "V11"
    assert not any("?" in str(n) for n in ds.feature_names)
    assert ds.meta["missing"]["counts"] == {"V7": 11}
    _reproduce(ds, tmp_path, "breast-cancer-wisconsin.data", data)


def test_european_csv_with_a_decimal_comma_first_column(tmp_path):
    data = european_first_column()
    at = _upload(_start(), "messungen.csv", data)
    ds = _dataset(at)
    assert ds.shape == (60, 3) and ds.meta["label_column"] == "Gruppe"
    assert ds.feature_names.tolist() == ["Gewicht", "Größe", "Alter"]
    _reproduce(ds, tmp_path, "messungen.csv", data)


def test_the_plan_is_shown_and_carried_by_the_link():
    at = _upload(_start(), "bc.data", uci_headerless())
    header = next(t for t in at.toggle if t.label == "First row is a header")
    assert header.value is False  # detected, shown, editable
    assert "imp" in at.query_params
    fresh = AppTest.from_file(APP, default_timeout=TIMEOUT)
    fresh.query_params.update({k: at.query_params[k] for k in ("source", "upload", "imp")})
    fresh.run()
    assert not fresh.exception and _dataset(fresh).fingerprint == _dataset(at).fingerprint
    buf = io.BytesIO()
    assert buf is not None


def test_the_sweeper_keeps_the_sample_annotations_a_session_uses():
    """The store sweep drops what no live session uses; a session's attached phenotype table is
    in use (it was dropped as an unused upload, and a refresh then read 'pheno.csv' as a path)."""
    from fsviz_app.appkit.intake import upload_store
    from fsviz_app.appkit.state import release_unused, usage

    matrix, pheno = expression_with_repeats(n_genes=300, n_repeat=6)
    at = _annotations(_upload(_start(), "expr.csv", matrix), "pheno.csv", pheno)
    token = next(iter(at.session_state["upload_options"].values()))["annotations_token"]
    assert upload_store().get(token) is not None
    release_unused(usage())
    assert upload_store().get(token) is not None
    at.run()
    assert not at.exception and not at.main.error and _dataset(at).meta["label_column"] == "disease_state"


def test_a_sweep_that_lands_while_a_file_is_stored_keeps_it(monkeypatch):
    """The sweeper thread runs at any moment: one landing between the store taking a new upload
    (or its phenotype table) and the session saying it uses it dropped the file, and a refresh
    then found the plan's 'pheno.csv' gone (issue 29's intermittent browser journey)."""
    from fsviz_app.appkit.intake import upload_store
    from fsviz_app.appkit.state import release_unused, usage

    store = upload_store()
    put = store.put

    def put_then_a_sweep(key, value):
        put(key, value)
        release_unused(usage())  # the worst moment: stored, and the script has not gone on yet

    monkeypatch.setattr(store, "put", put_then_a_sweep)
    matrix, pheno = expression_with_repeats(n_genes=300, n_repeat=6)
    at = _annotations(_upload(_start(), "expr.csv", matrix), "pheno.csv", pheno)
    options = next(iter(at.session_state["upload_options"].values()))
    release_unused(usage())  # and once more after: both files are in use
    assert upload_store().get(at.session_state["upload_token"]) is not None
    assert upload_store().get(options["annotations_token"]) is not None
    at.run()
    assert not at.exception and not at.main.error and _dataset(at).meta["label_column"] == "disease_state"


def _counts_csv(n: int = 40, p: int = 80, seed: int = 9) -> bytes:
    """Read counts (non-negative whole numbers up to hundreds, 80 genes): the proposal adds a transform."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.negative_binomial(2, 0.02, size=(n, p)), columns=[f"g{j}" for j in range(p)])
    frame["class"] = np.where(np.arange(n) % 2, "a", "b")
    return frame.to_csv(index=False).encode()


@pytest.mark.parametrize(
    "name, data",
    [
        ("series_matrix.txt", geo_series_matrix(n_probes=60, n_samples=12)),
        ("expr.csv", expression_with_repeats(n_genes=300, n_repeat=6)[0]),
        ("uci.data", uci_headerless(n=40)),
        ("counts.csv", _counts_csv()),
    ],
    ids=["comment-lines", "repeated-names", "no-header", "counts"],
)
def test_the_proposals_preview_is_the_one_the_data_page_reads(name, data):
    """A new upload is read once for its proposal, and that preview is kept for the Data page:
    it must equal a fresh preview with the proposed plan (the proposed transform included)."""
    import dataclasses
    import hashlib
    import json

    from fsviz.data import inspect_table
    from fsviz_app.appkit.intake import IMPORT_DEFAULTS, Upload, _inspected_plan, inspect_store, propose_plan

    options = json.loads(json.dumps(IMPORT_DEFAULTS))
    up = Upload("token", name, hashlib.sha256(data).hexdigest(), data, options)
    propose_plan(up)
    plan = _inspected_plan(up)
    kept = inspect_store().get((up.digest, up.filename, plan.to_json()))
    assert kept is not None and kept.plan == plan
    buf = io.BytesIO(data)
    buf.name = name
    fresh = inspect_table(buf, plan=plan, sandbox=True, propose=False)
    for field in dataclasses.fields(fresh):
        a, b = getattr(kept, field.name), getattr(fresh, field.name)
        if isinstance(a, pd.DataFrame):
            pd.testing.assert_frame_equal(a, b)
        else:
            assert a == b, field.name
    if name == "counts.csv":
        assert plan.transform == "log1p_cpm"


def test_the_join_key_chosen_and_the_columns_that_matched_more_are_shown():
    """Issue 46: an ``id`` column naming 18 of 20 samples is the key, not an ``age`` column whose
    numbers happen to name all 20; the app says which key it took and what else matched."""
    rng = np.random.default_rng(4)
    samples = [str(21 + i) for i in range(20)]
    rows = [s + "," + ",".join(f"{v:.3f}" for v in rng.standard_normal(6)) for s in samples]
    matrix = "\n".join(["sample," + ",".join(f"g{j}" for j in range(6)), *rows]).encode()
    ids = [*samples[:18], "99", "98"]
    disease = ["tumour" if i % 2 else "normal" for i in range(20)]
    pheno = "\n".join(
        ["id,age,disease"] + [f"{a},{b},{c}" for a, b, c in zip(ids, samples[::-1], disease, strict=True)]
    ).encode()
    at = _upload(_start(), "numbered.csv", matrix)
    at = _annotations(at, "pheno.csv", pheno)
    ds = _dataset(at)
    assert ds.meta["annotations"]["key"] == "id" and ds.shape == (18, 6)
    shown = " ".join(str(getattr(e, "value", "")) for e in (*at.info, *at.caption, *at.markdown, *at.error))
    assert "join key 'id' (18 of 20 samples)" in shown and "'age' (20 of 20" in shown, shown[:2000]


def test_a_series_matrix_cut_mid_row_is_an_error_in_the_app_never_median_filled():
    """Issue 46: the app read a cut series matrix as 24 samples, its cut row median-filled."""
    whole = geo_series_matrix(n_probes=40, n_samples=8).decode()
    cut = whole[: whole.index("!series_matrix_table_end")].rstrip("\n")
    cut = cut[: cut.rindex("\t") - 3]  # the last probe row ends mid-way
    at = _upload(_start(), "GSE7_series_matrix.txt", cut.encode())
    said = [e.value for e in at.error]
    assert any("the series matrix is truncated: probe row 40 of 40" in e for e in said), said
    ds = _dataset(at) if "dataset_key" in at.session_state else None
    assert ds is None or not str(ds.name).startswith("GSE7")  # nothing of the cut file was loaded


@pytest.mark.parametrize(
    "imp, said",
    [
        ({"label": -2}, "'label' position must be a column number counted from 0"),
        ({"label": True}, "'label' must be a column name, a position"),
        ({"na_values": [["NA"]]}, "'na_values' must be a list of texts"),
    ],
)
def test_a_link_with_bad_import_settings_is_refused_with_the_plans_message(imp, said):
    """Issue 46: the ``imp=`` URL takes the plan's contract (types, ranges, nesting)."""
    from fsviz_app.appkit.url import _encode

    at = _upload(_start(), "bc.data", uci_headerless())
    fresh = AppTest.from_file(APP, default_timeout=TIMEOUT)
    fresh.query_params.update({k: at.query_params[k] for k in ("source", "upload")})
    fresh.query_params["imp"] = _encode(imp)
    fresh.run()
    assert not fresh.exception, [e.value for e in fresh.exception]
    shown = [w.value for w in fresh.warning]
    assert any("The import settings in this link were not restored" in w and said in w for w in shown), shown
    assert _dataset(fresh).fingerprint == _dataset(at).fingerprint  # read with the defaults


def test_a_parquet_file_with_list_and_struct_columns_is_a_clear_message_in_the_app():
    """Issue 46 (open from before): the app said "internal error (TypeError: unhashable type)"."""
    frame = pd.DataFrame(
        {
            "g1": [1.0, 2.0, 3.0, 4.0],
            "tags": [[1, 2], [3], [4], [5]],
            "where": [{"x": 1}, {"x": 2}, {"x": 3}, {"x": 4}],
            "class": ["a", "b", "a", "b"],
        }
    )
    buf = io.BytesIO()
    frame.to_parquet(buf)
    at = _start()
    at.file_uploader(key="upload").set_value(
        ("nested.parquet", buf.getvalue(), "application/octet-stream")
    ).run()
    assert not at.exception, [e.value for e in at.exception]
    said = [e.value for e in at.error]
    assert any("['tags', 'where'] hold lists, structs or maps" in e for e in said), said
    assert not any("internal error" in e for e in said), said
