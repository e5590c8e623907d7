"""The report's reproduce lines give GRM's prior groups by feature name, and still give back the
same Runs (and so the same results) on the same dataset."""

from __future__ import annotations

import html
import re

import numpy as np
import pytest

import fsviz.compute as fc
from fsviz.compute import Run
from fsviz.data import load_sample
from fsviz.report import build_report
from fsviz.report_reproduce import python_lines


@pytest.fixture(scope="module")
def digits():
    return load_sample("digits-0-vs-1")


def _grm(prior) -> Run:
    return Run("grm", {"base": Run("fisher", {}), "n_top": 40, "gamma": 1.0, "prior_groups": prior}, 0)


def _replay(lines: list[str], ds) -> dict:
    """The Python lines run as a person would, the data read by the caller (same fingerprint)."""
    scope: dict = {}
    for line in lines:
        if line.startswith(("ds = ", "write_report(")) or "import load_dataset" in line:
            continue
        if line.startswith("assert ds.fingerprint"):
            scope["ds"] = ds
        exec(line, scope)  # noqa: S102 - the report's own text, checked to give the same Runs
    return scope


def test_prior_groups_are_given_by_name_and_give_back_the_run(digits):
    names = digits.feature_names
    grm = _grm([[10, 20, 30], [40, 41]])
    evaluation = Run("evaluation", {"of": grm, "k": 5})
    lines = python_lines(digits, [grm, Run("fisher", {})], k=10)
    text = "\n".join(lines)
    assert "prior_groups_from_names([[" in text and "[[10, 20, 30]" not in text
    assert repr([str(names[i]) for i in (10, 20, 30)])[1:-1] in text
    assert lines[0] == "from fsviz.compute import Run, prior_groups_from_names"
    scope = _replay(lines, digits)
    assert scope["run1"] == grm and scope["run2"] == Run("fisher", {})
    assert np.array_equal(scope["result1"].ranking, grm.execute(digits).ranking)  # the same result
    nested = python_lines(digits, [evaluation], k=5)  # a Run inside a Run: by name too
    assert "prior_groups_from_names" in nested[-3] and _replay(nested, digits)["run1"] == evaluation
    plain = python_lines(digits, [_grm([])], k=5)
    assert plain[0] == "from fsviz.compute import Run" and "prior_groups_from_names" not in "\n".join(plain)


def test_the_report_carries_the_named_lines_and_its_fingerprint(digits):
    grm = _grm([[10, 20, 30], [40, 41]])
    doc = build_report(digits, [grm], created="2026-01-01T00:00:00+00:00")
    py = html.unescape(re.search(r'<pre class="code" id="reproduce-python">(.*?)</pre>', doc, re.S)[1])
    assert f"assert ds.fingerprint == {digits.fingerprint!r}" in py
    assert _replay(py.splitlines(), digits)["run1"] == grm
    cli = html.unescape(re.search(r'<pre class="code" id="reproduce-cli">(.*?)</pre>', doc, re.S)[1])
    names = digits.feature_names
    said = [",".join(str(names[j]) for j in g) for g in ((10, 20, 30), (40, 41))]
    assert f"--prior-group {said[0]} --prior-group {said[1]} " in cli and "prior_groups=" not in cli
    assert "# prior groups by name" not in cli  # the names are on the line itself


def test_names_find_the_same_features_in_another_column_order(digits):
    names = [str(n) for n in digits.feature_names]
    order = np.random.default_rng(0).permutation(len(names))
    moved = [names[j] for j in order]
    groups = [[names[10], names[20]], [names[41], names[40]]]
    got = fc.prior_groups_from_names(groups, moved)
    assert [sorted(moved[j] for j in g) for g in got] == [sorted(g) for g in groups]
    with pytest.raises(ValueError, match=r"unknown feature name\(s\) 'pixel_9_9'"):
        fc.prior_groups_from_names([["pixel_9_9", names[0]]], names)
    with pytest.raises(ValueError, match=r"is in two groups"):
        fc.prior_groups_from_names([[names[0], names[1]], [names[1], names[2]]], names)


def test_a_10x_matrix_uploaded_as_three_files_is_read_again_from_them(tmp_path, monkeypatch):
    """Three 10x files uploaded apart are kept as one tar the user does not have: the lines name
    the three files (Python: read_triplet; command line: the folder holding them), and running
    them gives the fingerprint and the GRM selection, prior group by symbol (MATR3 and MATR3-1)."""
    import io
    import shlex

    from fsviz import cli
    from fsviz.data import load_dataset
    from fsviz.data.formats.tenx import TRIPLET_NAME, pack_triplet
    from tests.omics_files import tenx_triplet

    files, _ = tenx_triplet()
    buf = io.BytesIO(pack_triplet(files))
    buf.name = TRIPLET_NAME  # as the app keeps three uploads
    ds = load_dataset(buf, transform="log1p")
    grm = Run("grm", {"base": Run("laplacian", {}), "n_top": 30, "prior_groups": [[0, 3, 7]]}, 0)
    doc = build_report(ds, [grm], k=8, created="2026-01-01T00:00:00+00:00")
    py = html.unescape(re.search(r'<pre class="code" id="reproduce-python">(.*?)</pre>', doc, re.S)[1])
    cli_text = html.unescape(re.search(r'<pre class="code" id="reproduce-cli">(.*?)</pre>', doc, re.S)[1])
    assert TRIPLET_NAME not in py and TRIPLET_NAME not in cli_text
    call = "ds = read_triplet('matrix.mtx.gz', 'features.tsv.gz', 'barcodes.tsv.gz', transform='log1p')"
    assert call in py.splitlines()
    folder = tmp_path / "filtered_feature_bc_matrix"
    folder.mkdir()
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
        (folder / name).write_bytes(data)
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    for line in py.splitlines():
        if not line.startswith("write_report("):
            exec(line, scope)  # noqa: S102 - the report's own lines, run where the three files are
    assert scope["ds"].fingerprint == ds.fingerprint and scope["run1"] == grm
    assert (
        "# filtered_feature_bc_matrix: a folder holding the three files matrix.mtx.gz, "
        "features.tsv.gz, barcodes.tsv.gz" in cli_text
    )
    line = next(ln for ln in cli_text.splitlines() if ln.startswith("fsviz select"))
    assert "--prior-group GENE0,MATR3 " in line  # MATR3 takes MATR3-1 too
    assert cli.main(shlex.split(line)[1:]) == 0
    with open(tmp_path / "grm.csv") as fh:
        got = [row.split(",")[2] for row in fh.read().splitlines()[1:]]
    assert got == [str(ds.feature_names[j]) for j in grm.execute(ds).selection(8).indices]


def test_a_compressed_file_is_named_as_the_person_has_it(tmp_path, monkeypatch):
    """A gzipped table and a zip holding one: the dataset's source and the report's lines name
    the .gz / .zip (the file a person has), not the member read from it, and the Python lines
    read it back to the same fingerprint."""
    import gzip
    import io
    import zipfile

    from fsviz.data import load_dataset

    rng = np.random.default_rng(0)
    table = "a,b,c,label\n" + "".join(
        f"{x:.3f},{y:.3f},{z:.3f},{'xy'[i % 2]}\n" for i, (x, y, z) in enumerate(rng.normal(size=(20, 3)))
    )
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w") as zf:
        zf.writestr("data.csv", table)
    monkeypatch.chdir(tmp_path)
    for name, data in (("cohort.csv.gz", gzip.compress(table.encode())), ("cohort.zip", zipped.getvalue())):
        (tmp_path / name).write_bytes(data)
        buf = io.BytesIO(data)
        buf.name = name  # an upload: the app reads its bytes
        ds = load_dataset(buf)
        assert ds.meta["source"] == name
        doc = build_report(ds, [Run("fisher", {})], k=2, created="2026-01-01T00:00:00+00:00")
        py = html.unescape(re.search(r'<pre class="code" id="reproduce-python">(.*?)</pre>', doc, re.S)[1])
        read = next(ln for ln in py.splitlines() if ln.startswith("ds = "))
        assert f"'{name}'" in read, read
        scope: dict = {}
        for line in py.splitlines():
            if not line.startswith("write_report("):
                exec(line, scope)  # noqa: S102 - the report's own lines, run where the file is
        assert scope["ds"].fingerprint == ds.fingerprint
