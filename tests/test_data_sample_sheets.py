"""A proteomics sample sheet that names the runs by their raw files joins on the runs' clean names."""

from __future__ import annotations

import io
import warnings

import pytest

from fsviz.data import load_dataset
from tests.omics_files import diann_pg_matrix


def _named(data: bytes, name: str) -> io.BytesIO:
    buf = io.BytesIO(data)
    buf.name = name
    return buf


@pytest.mark.parametrize("form", ["path", "other folder", "file name", "stem"])
def test_a_diann_sheet_by_raw_file_joins_on_the_stems(form):
    data, runs = diann_pg_matrix()
    conditions = ["treat", "ctrl"] * 3
    base = [r.rsplit("\\", 1)[1] for r in runs]
    keys = {
        "path": runs,
        "other folder": [f"/mnt/raw/{b}" for b in base],
        "file name": base,
        "stem": [b.removesuffix(".raw") for b in base],
    }[form]
    sheet = "File.Name\tCondition\n" + "".join(f"{k}\t{c}\n" for k, c in zip(keys, conditions, strict=True))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = load_dataset(
            _named(data, "report.pg_matrix.tsv"),
            sample_annotations=_named(sheet.encode(), "design.tsv"),
            label="Condition",
            missing="median",
        )
    assert list(ds.labels) == conditions and list(ds.sample_names) == [b.removesuffix(".raw") for b in base]
    renamed = any("by their raw files; matched to their stems" in n for n in ds.meta["notes"])
    assert renamed == (form != "stem")


def test_a_spectronaut_sheet_by_run_file_and_numbers_left_alone():
    import numpy as np

    rng = np.random.default_rng(5)
    runs = [f"[{i + 1}] S{i + 1:02d}.raw.PG.Quantity" for i in range(4)]
    lines = ["\t".join(["PG.ProteinGroups", "PG.Genes", *runs])]
    lines += ["\t".join([f"P{i}", f"G{i}", *(f"{v:.2f}" for v in rng.lognormal(10, 1, 4))]) for i in range(6)]
    report = _named(("\n".join(lines) + "\n").encode(), "Report_PG.tsv")
    sheet = "Run\tdose\tCondition\n" + "".join(
        f"S{i + 1:02d}.raw\t{i + 1}.5\t{c}\n" for i, c in enumerate(["a", "b", "a", "b"])
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = load_dataset(report, sample_annotations=_named(sheet.encode(), "setup.tsv"), label="Condition")
    assert list(ds.sample_names) == ["S01", "S02", "S03", "S04"] and list(ds.labels) == ["a", "b", "a", "b"]
    assert ds.meta["sample_annotations"]["dose"] == {"S01": 1.5, "S02": 2.5, "S03": 3.5, "S04": 4.5}
