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
