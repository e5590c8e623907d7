"""Careless input at the library and CLI doors (issue 46): the annotation join key, an explicit
label that names nothing in every format, and import plans checked like session files.

Each file is made here. A careless choice gets one clear ``ValueError`` (one ``fsviz: error:``
line at the CLI), never a silently wrong join, a dataset without its asked-for target, or a
``RecursionError``.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from fsviz import cli
from fsviz.data import load_dataset


# ------------------------------------------------------------- the annotation join key (issue 46)
def _numbered_samples() -> tuple[bytes, bytes]:
    """An expression matrix whose samples are numbered 21..40, and a phenotype table whose ``id``
    column names 18 of them (two rows mistyped) while its ``age`` column happens to hold all 20."""
    rng = np.random.default_rng(3)
    samples = [str(21 + i) for i in range(20)]
    rows = [f"g{j}," + ",".join(f"{v:.3f}" for v in rng.standard_normal(20)) for j in range(6)]
    matrix = "\n".join(["gene," + ",".join(samples), *rows]).encode()
    ids = [*samples[:18], "99", "98"]
    disease = ["tumour" if i % 2 else "normal" for i in range(20)]
    pheno = ["id,age,disease"] + [f"{a},{b},{c}" for a, b, c in zip(ids, samples[::-1], disease, strict=True)]
    return matrix, "\n".join(pheno).encode()


def test_the_join_key_is_the_id_column_never_a_measurement_that_matches_more(tmp_path):
    matrix, pheno = _numbered_samples()
    (tmp_path / "expr.csv").write_bytes(matrix)
    (tmp_path / "pheno.csv").write_bytes(pheno)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = load_dataset(
            tmp_path / "expr.csv",
            transpose=True,
            sample_annotations=tmp_path / "pheno.csv",
            label="disease",
            missing_target="drop",
        )
    report = ds.meta["annotations"]
    assert report["key"] == "id" and report["matched"] == 18 and ds.shape == (18, 6)
    assert report["alternatives"] == [
        {
            "column": "age",
            "matched": 20,
            "candidate": False,
            "why": "whole numbers not named like an id (a measurement or a count)",
        }
    ]
    said = " ".join(ds.meta["notes"])
    assert "join key 'id' (18 of 20 samples)" in said and "'age' (20 of 20: whole numbers" in said
    with warnings.catch_warnings():  # asked for by name, a numeric column is the key
        warnings.simplefilter("ignore")
        on_age = load_dataset(
            tmp_path / "expr.csv",
            transpose=True,
            sample_annotations=tmp_path / "pheno.csv",
            label="disease",
            annotation_key="age",
        )
    assert on_age.meta["annotations"]["key"] == "age" and on_age.shape == (20, 6)


def test_a_join_only_a_measurement_could_make_asks_for_the_key(tmp_path, capsys):
    matrix, pheno = _numbered_samples()
    (tmp_path / "expr.csv").write_bytes(matrix)
    lines = pheno.decode().replace("id,age,disease", "code,age,disease").splitlines()
    lines = [lines[0]] + [f"S{i}," + ln.split(",", 1)[1] for i, ln in enumerate(lines[1:])]
    (tmp_path / "pheno.csv").write_text("\n".join(lines))  # 'code' names none; 'age' (numbers) all
    with pytest.raises(
        ValueError, match=r"no identifier column .* 'age' \(20 of 20: whole numbers .*annotation_key"
    ):
        load_dataset(tmp_path / "expr.csv", transpose=True, sample_annotations=tmp_path / "pheno.csv")
    code = cli.main(
        [
            "info",
            str(tmp_path / "expr.csv"),
            "--transpose",
            "yes",
            "--sample-annotations",
            str(tmp_path / "pheno.csv"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 1 and "a measurement is never taken as the join key" in err and "Traceback" not in err


def test_a_fractional_column_is_never_a_key_candidate():
    import pandas as pd

    from fsviz.data.annotations import key_candidates

    table = pd.DataFrame({"bmi": [21.5, 22.5, 23.5], "sample": ["a", "b", "c"], "width": [1, 2, 3]})
    found = {
        k.column: (k.candidate, k.why) for k in key_candidates(table, np.array(["21.5", "22.5", "a", "1"]))
    }
    assert found == {
        "sample": (True, "unique text, named like an id"),
        "bmi": (False, "numbers (a measurement)"),
        "width": (False, "whole numbers not named like an id (a measurement or a count)"),
    }


# ------------------------------------------------ an explicit label that names nothing (issue 46)
def _one_table_each_format(tmp_path: Path) -> dict:
    """The same small labelled table in every format load_dataset reads, each made here."""
    import pandas as pd
    import scipy.io as sio

    from tests.user_files import geo_series_matrix

    frame = pd.DataFrame({"a": [1.0, 2, 3, 4], "b": [4.0, 3, 2, 5], "class": ["x", "y", "x", "y"]})
    paths = {}
    paths["csv"] = tmp_path / "t.csv"
    frame.to_csv(paths["csv"], index=False)
    paths["tsv"] = tmp_path / "t.tsv"
    frame.to_csv(paths["tsv"], index=False, sep="\t")
    paths["parquet"] = tmp_path / "t.parquet"
    frame.to_parquet(paths["parquet"])
    paths["xlsx"] = tmp_path / "t.xlsx"
    frame.to_excel(paths["xlsx"], index=False)
    paths["npz"] = tmp_path / "t.npz"
    np.savez(paths["npz"], X=frame[["a", "b"]].to_numpy(), y=np.array([0, 1, 0, 1]))
    paths["mat"] = tmp_path / "t.mat"
    sio.savemat(paths["mat"], {"X": frame[["a", "b"]].to_numpy(), "Y": np.array([[0], [1], [0], [1]])})
    paths["geo"] = tmp_path / "GSE1_series_matrix.txt"
    paths["geo"].write_bytes(geo_series_matrix(n_probes=20, n_samples=6))
    return paths


@pytest.mark.parametrize("fmt", ["csv", "tsv", "parquet", "xlsx", "npz", "mat", "geo"])
def test_an_explicit_label_that_names_nothing_is_an_error_in_every_format(tmp_path, capsys, fmt):
    path = _one_table_each_format(tmp_path)[fmt]
    typo = "disease_state" if fmt == "geo" else "klass"
    with pytest.raises(ValueError, match=rf"label (column|variable|array) '{typo}' not found"):
        load_dataset(path, label=typo)
    code = cli.main(["info", str(path), "--label", typo])
    err = capsys.readouterr().err
    assert code == 1 and f"'{typo}' not found" in err and "Traceback" not in err, err


def test_a_series_matrix_label_typo_names_the_characteristic_meant(tmp_path):
    path = _one_table_each_format(tmp_path)["geo"]
    with pytest.raises(
        ValueError, match=r"not found \(did you mean 'disease state'\?\); the sample annotations'"
    ):
        load_dataset(path, label="disease_state")
    assert load_dataset(path, label="disease state").meta["label_column"] == "disease state"


# ------------------------------------------------- import plans validated like session files (issue 46)
def _deep_json(levels: int) -> str:
    return '{"na_values": ' + "[" * levels + "]" * levels + "}"


PLAN_CASES = {  # what a careless or hostile plan holds -> what the one error says
    "negative_label": ({"label": -2}, r"'label' position must be a column number counted from 0"),
    "bool_label": ({"label": True}, r"'label' must be a column name, a position"),
    "bool_sheet": ({"sheet": True}, r"'sheet' must be a name, a position"),
    "negative_sheet": ({"sheet": -1}, r"'sheet' must be a name, a position"),
    "float_flag": ({"missing_indicators": 1e5}, r"'missing_indicators' must be true or false"),
    "float_transpose": ({"transpose": 1e5}, r"transpose must be False, True or 'auto'"),
    "nested_na": ({"na_values": [["NA"]]}, r"'na_values' must be a list of texts"),
    "deep_types": ({"types": {"a": [[["number"]]]}}, r"'types' is nested deeper than 2 levels"),
    "long_fmt": ({"fmt": "c" * 100}, r"'fmt' must be a format name"),
    "huge_text": ({"annotation_key": "k" * 10_000}, r"'annotation_key' holds a text of 10,000 characters"),
}


@pytest.mark.parametrize("case", list(PLAN_CASES))
def test_a_bad_plan_is_one_value_error_at_the_library_and_the_cli(tmp_path, capsys, case):
    plan, match = PLAN_CASES[case]
    path = tmp_path / "t.csv"
    path.write_text("a,b,class\n1,2,x\n3,4,y\n5,6,x\n")
    with pytest.raises(ValueError, match=match):
        load_dataset(path, plan=plan)
    code = cli.main(["info", str(path), "--plan", json.dumps(plan)])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err and "internal error" not in err, err
    assert len([ln for ln in err.splitlines() if ln.startswith("fsviz: error:")]) == 1, err


def test_a_deeply_nested_plan_never_raises_recursion_error(tmp_path, capsys):
    from fsviz.data.plan import ImportPlan

    path = tmp_path / "t.csv"
    path.write_text("a,b,class\n1,2,x\n3,4,y\n5,6,x\n")
    text = _deep_json(200_000)
    with pytest.raises(ValueError, match=r"nested deeper than 2 levels"):
        ImportPlan.from_json(text)
    deep: list = []
    for _ in range(100_000):  # built in Python: past any recursion limit
        deep = [deep]
    with pytest.raises(ValueError, match=r"'na_values' is nested deeper than 2 levels"):
        load_dataset(path, na_values=deep)
    with pytest.raises(ValueError, match=r"'na_values' is nested deeper than 2 levels"):
        load_dataset(path, plan={"na_values": deep})
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(text)
    for given in (text, str(plan_file)):
        code = cli.main(["info", str(path), "--plan", given])
        err = capsys.readouterr().err
        assert code == 1 and "nested deeper than 2 levels" in err and "internal error" not in err, err
