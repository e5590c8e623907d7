"""MaxQuant proteinGroups and DIA-NN pg_matrix tables read as proteomics users expect (files generated).

MaxQuant: the LFQ family as the values, one column per sample, transposed; flagged rows
(Reverse, Potential contaminant, Only identified by site) dropped and counted; 0 read as
missing; gene names as feature names; experimental_design.tsv joined as sample annotations
(Condition as the target); another family by choice. DIA-NN: runs named by their files' stems,
the metadata columns never features.
"""

from __future__ import annotations

import io
import warnings

import numpy as np
import pytest

from fsviz import cli
from fsviz.data import inspect_table, load_dataset
from fsviz.data.formats.proteomics import sample_stem
from fsviz.data.roles import infer_column_roles
from tests.omics_files import diann_pg_matrix, maxquant


def named(data: bytes, name: str) -> io.BytesIO:
    buf = io.BytesIO(data)
    buf.name = name
    return buf


def load(*args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_dataset(*args, **kw)


def test_maxquant_protein_groups_give_samples_by_unflagged_groups_with_the_condition():
    pg, design, t = maxquant()
    ds = load(
        named(pg, "proteinGroups.txt"),
        missing="median",
        sample_annotations=named(design, "experimental_design.tsv"),
        label="Condition",
    )
    kept = t["kept"]
    assert ds.shape == (24, int(kept.sum())) and list(ds.sample_names) == t["samples"]
    assert list(ds.labels) == list(t["condition"]) and list(ds.class_names) == ["ctrl", "treat"]
    lfq = t["lfq"][kept].T
    detected = lfq > 0
    np.testing.assert_array_equal(ds.X[detected], lfq[detected])  # 0 read as missing, then filled
    assert ds.meta["missing"]["counts"] and "Evidence IDs" not in ds.feature_names
    assert ds.feature_names[0] == "P10000" and ds.feature_names[1] == "GENE1"  # no gene name: the id
    assert {"DUP", "DUP-1"} <= set(ds.feature_names)
    note = ds.meta["notes"][0]
    assert note.startswith(
        "read as a MaxQuant protein-groups table: 24 LFQ intensity samples, 300 -> 285 protein groups "
        "after removing 12 flagged row(s) (4 Reverse, 6 Potential contaminant, 2 Only identified by site)"
    )
    assert ds.meta["flagged_rows"] == {"Reverse": 4, "Potential contaminant": 6, "Only identified by site": 2}


def test_maxquant_another_family_log2_and_the_plain_table_choice():
    pg, _, t = maxquant()
    ibaq = load(named(pg, "proteinGroups.txt"), missing="median", intensity="iBAQ", transform="log2")
    assert ibaq.meta["intensity"] == "iBAQ" and ibaq.n_samples == 24 and np.all(np.isfinite(ibaq.X))
    with pytest.raises(ValueError, match=r"intensity family 'Reporter intensity corrected' is not in"):
        load(named(pg, "proteinGroups.txt"), intensity="Reporter intensity corrected")
    info = inspect_table(named(pg, "renamed.tsv"))
    assert info.fmt == "maxquant" and info.matrices == ["LFQ intensity", "iBAQ", "Intensity"]
    plain = inspect_table(named(pg, "proteinGroups.txt"), fmt="tsv")  # the switch-off: a plain table
    assert plain.fmt == "tsv" and plain.n_rows == 300


def test_diann_runs_are_named_by_their_file_stems_and_metadata_are_not_features():
    data, runs = diann_pg_matrix()
    ds = load(named(data, "report.pg_matrix.tsv"), missing="median")
    assert ds.shape == (6, 80) and list(ds.sample_names)[:2] == ["S00_treat", "S01_ctrl"]
    assert ds.meta["raw_sample_names"] == runs and list(ds.feature_names[:2]) == ["G0", "G1"]
    assert not {"Protein.Group", "Protein.Ids", "Genes"} & set(ds.feature_names)
    assert "run names cleaned from file paths to their stems" in ds.meta["notes"][0]
    assert sample_stem("/data/run 7/S07.mzML") == "S07" and sample_stem("S08.d/") == "S08"


def test_a_uniprot_accession_column_is_not_the_identifier():
    import pandas as pd

    frame = pd.DataFrame(
        {"O4IDC3": np.linspace(1, 2, 12), "P0IDX1": np.arange(12.0), "group": list("ab") * 6}
    )
    assert {r.name: r.role for r in infer_column_roles(frame)}["O4IDC3"] == "feature"


def test_the_cli_reads_protein_groups_with_the_design(tmp_path, capsys):
    pg, design, _ = maxquant()
    (tmp_path / "proteinGroups.txt").write_bytes(pg)
    (tmp_path / "experimental_design.tsv").write_bytes(design)
    args = ["info", str(tmp_path / "proteinGroups.txt"), "--missing", "median", "--intensity", "iBAQ"]
    args += ["--sample-annotations", str(tmp_path / "experimental_design.tsv"), "--label", "Condition"]
    assert cli.main([*args, "--json", "-q"]) == 0
    out = capsys.readouterr().out
    assert '"n_samples": 24' in out and '"n_features": 285' in out


def test_a_spectronaut_pg_report_names_runs_by_their_stems():
    rng = np.random.default_rng(5)
    runs = [f"[{i + 1}] S{i:02d}_{'ctrl' if i % 2 else 'treat'}.raw.PG.Quantity" for i in range(4)]
    head = ["PG.ProteinGroups", "PG.Genes", "PG.ProteinDescriptions", *runs]
    lines = ["\t".join(head)]
    for i in range(10):
        cells = [
            "Filtered" if (i + j) % 7 == 0 else f"{v:.2f}" for j, v in enumerate(rng.lognormal(10, 1, 4))
        ]
        lines.append("\t".join([f"P{i};Q{i}", f"G{i}", f"protein {i}", *cells]))
    ds = load(named(("\n".join(lines) + "\n").encode(), "Report_PG.tsv"), missing="median")
    assert ds.shape == (4, 10) and list(ds.sample_names) == ["S00_treat", "S01_ctrl", "S02_treat", "S03_ctrl"]
    assert list(ds.feature_names[:2]) == ["G0", "G1"] and ds.meta["raw_sample_names"] == runs
    assert ds.meta["notes"][0].startswith(
        "read as a Spectronaut protein-group report: 4 runs x 10 protein groups"
    )
