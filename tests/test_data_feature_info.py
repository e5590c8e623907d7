"""Feature annotations: a second table keyed by feature name gives each feature a display name.

A GEO platform table (``ID`` -> ``Gene Symbol``, probes sharing a symbol, blank symbols) joined to
a gzipped series matrix; the symbols a 10x triplet, AnnData's ``var`` and MaxQuant carry; the
errors; the labels charts use; the exported selection keeping both columns; the CLI.
"""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fsviz.compute as fc
from fsviz.cli import main
from fsviz.data import load_dataset
from fsviz.data.feature_info import display_labels
from fsviz.data.plan import ImportPlan
from tests.omics_files import geo_platform, maxquant, tenx_folder
from tests.user_files import geo_series_matrix

PROBES = [f"{1000 + j}_at" for j in range(40)]


@pytest.fixture
def geo(tmp_path):
    """A gzipped series matrix (40 probes) and its gzipped platform table, as GEO serves them."""
    matrix = tmp_path / "GSE1_series_matrix.txt.gz"
    matrix.write_bytes(gzip.compress(geo_series_matrix(n_probes=40, n_samples=12)))
    platform = tmp_path / "GPL570-55999.txt.gz"
    platform.write_bytes(gzip.compress(geo_platform(PROBES)))
    return matrix, platform


def test_a_geo_platform_gives_symbols_shared_ones_with_their_probe_blank_ones_their_id(geo):
    matrix, platform = geo
    ds = load_dataset(matrix, feature_annotations=platform)
    info = ds.feature_info
    assert list(info.index) == PROBES == list(ds.feature_names)  # the IDs stay the names
    assert info["display_name"].tolist()[:5] == [
        "DDR1 (1000_at)",
        "DDR1 (1001_at)",
        "1002_at",
        "RFC2 /// MIR4640",
        "SYM4",
    ]
    assert info.loc["1004_at", "Gene Title"] == "gene SYM4 title"  # descriptions kept
    assert ds.feature_labels.tolist()[:5] == [
        "DDR1 (1000_at)",
        "DDR1 (1001_at)",
        "1002_at",
        "RFC2 /// MIR4640 (1003_at)",
        "SYM4 (1004_at)",
    ]
    notes = " ".join(ds.meta["notes"])
    assert "39 of 40 features got a display name from column 'Gene Symbol' (keyed by 'ID')" in notes
    assert "1 feature(s) without a 'Gene Symbol' keep their ID" in notes
    assert "1 'Gene Symbol' value(s) name several features (2 features)" in notes
    assert ds.meta["plan"]["feature_annotations"] == str(platform)
    # the plan reads it again (the reproduce lines), and a subset keeps each feature's symbol
    again = load_dataset(matrix, plan=ImportPlan.from_dict(ds.meta["plan"]))
    assert again.feature_labels.tolist() == ds.feature_labels.tolist()
    assert ds.subset([4, 0]).feature_labels.tolist() == ["SYM4 (1004_at)", "DDR1 (1000_at)"]


def test_without_annotations_the_labels_are_the_names_and_info_has_display_names(geo):
    ds = load_dataset(geo[0])
    assert ds.feature_labels is ds.feature_names
    assert ds.feature_info["display_name"].tolist() == PROBES


def test_explicit_columns_and_clear_errors(geo):
    matrix, platform = geo
    ds = load_dataset(matrix, feature_annotations=platform, feature_display="ENTREZ_GENE_ID")
    assert ds.feature_info["display_name"].iloc[0] == "780"
    with pytest.raises(ValueError, match=r"no column 'Symbol'.*feature_display= one of them"):
        load_dataset(matrix, feature_annotations=platform, feature_display="Symbol")
    with pytest.raises(ValueError, match=r"no column 'probe'.*feature_key="):
        load_dataset(matrix, feature_annotations=platform, feature_key="probe")
    other = pd.DataFrame({"ID": [f"ILMN_{j}" for j in range(40)], "Symbol": ["A"] * 40})
    with pytest.raises(ValueError, match=r"no identifier column holds the feature names.*feature_key="):
        load_dataset(matrix, feature_annotations=other)
    nameless = pd.DataFrame({"ID": PROBES, "Entrez": np.arange(40)})
    with pytest.raises(ValueError, match=r"no column named like a gene symbol.*feature_display="):
        load_dataset(matrix, feature_annotations=nameless)


def test_a_10x_triplet_carries_its_symbols_and_ids_and_joins_a_table_by_gene_id(tmp_path):
    counts, barcodes, ids, symbols, kind = tenx_folder(tmp_path / "tenx")
    ds = load_dataset(tmp_path / "tenx")
    info = ds.feature_info
    assert info["feature_id"].tolist() == ids and info["display_name"].tolist()[:4] == symbols[:4]
    assert ds.feature_labels[7] == "MATR3-1"  # the symbols are the names: no ID repeated beside them
    table = pd.DataFrame({"gene_id": ids[::-1], "gene_symbol": [f"S{j}" for j in range(len(ids))][::-1]})
    ds = load_dataset(tmp_path / "tenx", feature_annotations=table)
    assert ds.feature_info.loc["GENE0", "display_name"] == "S0"  # keyed by the Ensembl ids beside
    assert ds.feature_info.loc["GENE0", "feature_id"] == ids[0]


def test_maxquant_keeps_the_protein_ids_beside_the_gene_names():
    pg, _, _ = maxquant(n_groups=60, n_samples=6)
    buf = io.BytesIO(pg)
    buf.name = "proteinGroups.txt"
    with pytest.warns(Warning):
        ds = load_dataset(buf, missing="median")
    info = ds.feature_info
    assert info["feature_id"].str.startswith("P1").all() and (info["display_name"] == info.index).all()


def test_display_labels_never_merge_and_fill_unknown_features():
    info = pd.DataFrame({"display_name": ["TP53", "p2"]}, index=["p1", "p2"])
    assert display_labels(info, ["p2", "p1", "missing"]).tolist() == ["p2", "TP53 (p1)", "missing"]


def test_the_exported_selection_keeps_the_id_and_the_display_name(geo):
    matrix, platform = geo
    ds = load_dataset(matrix, feature_annotations=platform)
    sel = fc.Run("fisher").execute(ds).selection(5)
    data = fc.selection_csv(sel, ds.feature_names, display_names=ds.feature_info["display_name"])
    back = fc.read_selection_csv(data)
    assert list(back.columns[:4]) == ["rank", "index", "name", "display_name"]
    shown = ds.feature_info["display_name"].to_numpy()
    assert back["name"].tolist() == [PROBES[j] for j in sel.indices]
    assert back["display_name"].tolist() == [shown[j] for j in sel.indices]
    assert "display_name" in fc.provenance(sel, ds)["columns"]


def test_the_group_tree_labels_its_tiles_with_the_symbols(geo):
    from fsviz.viz import group_tree

    matrix, platform = geo
    ds = load_dataset(matrix, feature_annotations=platform)
    res = fc.Run("gdm", {"max_iter": 3}).execute(ds)
    fig = group_tree(res, ds.feature_labels)
    labels = " ".join(str(v) for v in fig.data[0].labels)
    support = [ds.feature_labels[j] for j in res.support]
    assert all(s in labels for s in support) and "SYM" in labels


def test_the_cli_takes_feature_annotations_and_writes_both_columns(geo, tmp_path, capsys):
    matrix, platform = geo
    out, prov = tmp_path / "sel.csv", tmp_path / "prov.json"
    code = main(
        [
            "select",
            str(matrix),
            "--feature-annotations",
            str(platform),
            "--method",
            "fisher",
            "-k",
            "5",
            "-o",
            str(out),
            "--provenance",
            str(prov),
        ]
    )
    assert code == 0
    frame = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert list(frame.columns[2:4]) == ["name", "display_name"]
    assert frame["display_name"].str.contains(r"SYM|DDR1|RFC2").any()
    assert json.loads(prov.read_text())["dataset"]["import_plan"]["feature_annotations"] == str(platform)


def test_the_report_shows_the_symbols_and_its_reproduce_lines_carry_the_table(geo):
    from fsviz.report import build_report

    matrix, platform = geo
    ds = load_dataset(matrix, feature_annotations=platform)
    html = build_report(ds, [fc.Run("fisher")], k=5, created="2026-01-01T00:00:00+00:00")
    sel = fc.Run("fisher").execute(ds).selection(5)
    j = next(j for j in sel.indices if ds.feature_labels[j] != ds.feature_names[j])
    assert f"<td>{ds.feature_info['display_name'].iloc[j]}</td>" in html  # the top table
    assert ds.feature_labels[j] in html  # the score chart's label
    assert "feature_annotations" in html and platform.name in html  # the --plan of the reproduce lines


def test_anndata_var_gives_display_names_from_its_symbol_column(tmp_path):
    import shutil

    import h5py

    path = tmp_path / "cells.h5ad"
    shutil.copy(Path(__file__).resolve().parent / "data" / "cells_sparse.h5ad", path)
    with h5py.File(path, "r+") as f:  # var gets gene_symbols (two genes share one) and a biotype
        ids = [v.decode() for v in f["var"]["_index"][:]]
        symbols = [f"SYM{j}" for j in range(len(ids))]
        symbols[1] = "SYM0"
        for name, values in (("gene_symbols", symbols), ("biotype", ["protein_coding"] * len(ids))):
            d = f["var"].create_dataset(name, data=np.array(values, dtype=object), dtype=h5py.string_dtype())
            d.attrs.update({"encoding-type": "string-array", "encoding-version": "0.2.0"})
        f["var"].attrs["column-order"] = np.array(["gene_symbols", "biotype"], dtype=object)
    ds = load_dataset(path, sandbox=True)  # read in the sandbox child, as the app and the CLI do
    assert ds.feature_names.tolist() == ids  # the var index stays the names
    assert ds.feature_info["display_name"].tolist()[:3] == [f"SYM0 ({ids[0]})", f"SYM0 ({ids[1]})", "SYM2"]
    assert ds.feature_info["biotype"].iloc[0] == "protein_coding"
    assert ds.feature_labels[2] == f"SYM2 ({ids[2]})"


def test_annotations_that_change_a_label_change_the_fingerprint_others_do_not(geo, tmp_path):
    matrix, platform = geo
    plain = load_dataset(matrix)
    annotated = load_dataset(matrix, feature_annotations=platform)
    assert annotated.fingerprint != plain.fingerprint  # cached explanations name the symbols
    assert load_dataset(matrix, feature_annotations=platform).fingerprint == annotated.fingerprint
    same = pd.DataFrame({"ID": PROBES, "symbol": PROBES})  # every display name is the ID
    assert load_dataset(matrix, feature_annotations=same).fingerprint == plain.fingerprint
