"""Single-cell and expression files read as their tools write them (files generated: tests/omics_files.py).

10x Genomics (the v3 triplet as a folder, its .tar.gz and its .h5; a v2 triplet), GCT 1.2 / 1.3
with CLS labels, a MatrixMarket matrix alone, a Parquet file with a pandas index, and identifier
names matched as whole words.
"""

from __future__ import annotations

import gzip
import io
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.io as sio
import scipy.sparse as sp

from fsviz import cli
from fsviz.data import infer_column_roles, inspect_table, load_dataset
from fsviz.data.budget import MemoryBudgetError
from fsviz.data.formats.tenx import make_unique
from tests.omics_files import cell_annotations, gct, tenx_folder, tenx_h5, tenx_tar_gz, tenx_triplet


def named(data: bytes, name: str) -> io.BytesIO:
    buf = io.BytesIO(data)
    buf.name = name
    return buf


def load(*args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_dataset(*args, **kw)


def _expected_names(symbols):
    return make_unique(symbols).tolist()


def test_make_unique_is_scanpys_var_names_make_unique():
    # anndata's make_index_unique: the first stays, repeats take -1, -2, ... skipping taken names
    assert make_unique(["A", "B", "A", "A", "A-1", "B"]).tolist() == ["A", "B", "A-2", "A-3", "A-1", "B-1"]


@pytest.mark.parametrize("sandbox", [False, True])
def test_a_10x_v3_folder_tar_gz_and_h5_read_as_cells_by_genes_sparse_alike(tmp_path, sandbox):
    counts, barcodes, ids, symbols, kind = tenx_folder(tmp_path / "filtered_feature_bc_matrix")
    folder = load(tmp_path / "filtered_feature_bc_matrix", sandbox=sandbox)
    assert folder.shape == (60, 40) and sp.issparse(folder.X) and folder.X.format == "csr"
    np.testing.assert_array_equal(folder.X.toarray(), counts.toarray())
    assert list(folder.sample_names) == barcodes and list(folder.feature_names) == _expected_names(symbols)
    assert folder.feature_names[7] == "MATR3-1" and folder.meta["feature_ids"] == ids
    note = folder.meta["notes"][0]
    assert note.startswith("read as a 10x v3 matrix: 60 cells x 40 genes, sparse; barcodes as sample names")
    assert "made unique as scanpy's var_names_make_unique does" in note
    archive, _ = tenx_tar_gz()
    packed = load(named(archive, "pbmc_filtered.tar.gz"), sandbox=sandbox)
    assert packed.fingerprint == folder.fingerprint and packed.meta["plan"]["compression"] == "tar.gz"
    tenx_h5(tmp_path / "filtered_feature_bc_matrix.h5")
    h5 = load(tmp_path / "filtered_feature_bc_matrix.h5", sandbox=sandbox)
    assert h5.fingerprint == folder.fingerprint and h5.meta["format"] == "10x"
    by_ids = load(tmp_path / "filtered_feature_bc_matrix", var_names="gene_ids")
    assert list(by_ids.feature_names) == ids


def test_cell_annotations_join_by_barcode_and_give_the_cell_type_target():
    archive, (counts, barcodes, ids, symbols, kind) = tenx_tar_gz()
    ds = load(
        named(archive, "pbmc.tar.gz"),
        sample_annotations=named(cell_annotations(barcodes, kind), "cell_annotations.csv"),
        label="cell_type",
    )
    assert ds.shape == (60, 40) and sp.issparse(ds.X)
    assert list(ds.class_names) == ["B cell", "T cell"] and list(ds.labels) == list(kind)


def test_a_10x_v2_triplet_with_genes_tsv_and_h5(tmp_path):
    counts, barcodes, ids, symbols, _ = tenx_folder(tmp_path / "v2", version="v2", gz=False)
    ds = load(tmp_path / "v2")
    assert ds.shape == (60, 40) and ds.meta["notes"][0].startswith("read as a 10x v2 matrix")
    np.testing.assert_array_equal(ds.X.toarray(), counts.toarray())
    tenx_h5(tmp_path / "v2.h5", version="v2")
    assert load(tmp_path / "v2.h5").fingerprint == ds.fingerprint


def test_10x_mismatched_files_and_a_matrix_over_the_budget_are_refused(tmp_path):
    files, _ = tenx_triplet()
    files["barcodes.tsv.gz"] = gzip.compress(b"AAAC-1\nAAAG-1\n")
    for name, data in files.items():
        (tmp_path / "bad").mkdir(exist_ok=True)
        (tmp_path / "bad" / name).write_bytes(data)
    with pytest.raises(
        ValueError, match=r"40 genes x 60 cells, but the triplet lists 2 barcodes for its 60 cells"
    ):
        load(tmp_path / "bad")
    tenx_folder(tmp_path / "ok")
    with pytest.raises(MemoryBudgetError, match=r"a sparse 60 cells x 40 genes matrix"):
        load(tmp_path / "ok", memory_budget=6000)
    with pytest.raises(
        ValueError,
        match=r"is a folder, not a data file. Fix: choose a file inside it \(a folder opens when it holds",
    ):
        load(tmp_path)


@pytest.mark.parametrize("version", ["1.2", "1.3"])
def test_gct_reads_exactly_its_samples_and_a_cls_file_gives_the_classes(version):
    data, cls, X = gct(version)
    ds = load(named(data, "expr.gct"), sample_annotations=named(cls, "labels.cls"), label="class")
    assert ds.shape == (12, 30) and list(ds.sample_names) == [f"S{i:02d}" for i in range(12)]
    np.testing.assert_allclose(ds.X, X)
    assert "Description" not in ds.feature_names and "Name" not in list(ds.sample_names)
    assert list(ds.class_names) == ["normal", "tumour"] and ds.labels[0] == "tumour"
    assert ds.meta["notes"][0].startswith(f"read as a GCT {version} file: 12 samples x 30 features")
    info = inspect_table(named(data, "renamed.txt"))  # by content, whatever the name
    assert info.fmt == "gct" and (info.n_rows, info.n_columns) == (12, 30)
    if version == "1.3":
        assert info.target_candidates == ["cell_line"]
        assert list(load(named(data, "x.gct"), label="cell_line").class_names) == ["A549", "MCF7"]
    plain = load(
        named(data, "x.gct"), fmt="txt", skip_rows=2, label=None, missing="median", categorical="onehot"
    )
    assert plain.n_samples == 30 + (
        version == "1.3"
    )  # the one choice that switches the recognition off: a plain table


def test_gct_and_cls_problems_are_named():
    data, cls, _ = gct("1.2")
    with pytest.raises(ValueError, match=r"declares 30 features but holds 29 data lines"):
        load(named(data.rsplit(b"\n", 2)[0] + b"\n", "cut.gct"))
    with pytest.raises(ValueError, match=r"hold 12 labels by position \(a CLS file\) but the data have 11"):
        load(named(gct("1.2", n_samples=11)[0], "x.gct"), sample_annotations=named(cls, "x.cls"))
    with pytest.raises(
        ValueError, match=r"is a CLS label file .* attach the CLS file as the sample annotations"
    ):
        load(named(cls, "labels.cls"))
    with pytest.raises(
        MemoryBudgetError, match=r"a dense 1,000,000 x 2,000,000 matrix \(as the file declares\)"
    ):
        load(named(b"#1.2\n2000000\t1000000\nName\tDescription\tS1\n", "huge.gct"), memory_budget="1G")


def test_a_matrix_market_file_alone_is_a_sparse_matrix_never_text():
    m = sp.random(50, 8, density=0.2, random_state=0, format="coo")
    buf = io.BytesIO()
    sio.mmwrite(buf, m)
    ds = load(named(buf.getvalue(), "matrix.mtx"), sandbox=True)
    assert ds.shape == (50, 8) and sp.issparse(ds.X)
    np.testing.assert_allclose(ds.X.toarray(), m.toarray())
    assert ds.meta["notes"][0].startswith("read as a MatrixMarket coordinate matrix: 50 samples x 8 features")
    assert load(named(buf.getvalue(), "m.txt"), transpose=True).shape == (8, 50)
    with pytest.raises(MemoryBudgetError, match=r"a sparse 1,845,983 x 3 matrix with 9,000,000,000 values"):
        load(named(b"%%MatrixMarket matrix coordinate real general\n1845983 3 9000000000\n", "x.mtx"))


def test_parquet_keeps_a_pandas_index_as_the_sample_names():
    df = pd.DataFrame({"a": [1.0, 2, 3, 4], "b": [4.0, 3, 1, 2], "label": list("xyxy")})
    df.index = pd.Index([f"P{i}" for i in range(4)], name="patient")
    buf = io.BytesIO()
    df.to_parquet(buf)
    ds = load(named(buf.getvalue(), "t.parquet"))
    assert list(ds.sample_names) == ["P0", "P1", "P2", "P3"] and list(ds.feature_names) == ["a", "b"]
    roles = {r.name: r.role for r in inspect_table(named(buf.getvalue(), "t.parquet")).roles}
    assert roles["patient"] == "identifier"
    buf = io.BytesIO()
    df.reset_index(drop=True).to_parquet(buf)  # a RangeIndex is not stored: nothing to keep
    assert load(named(buf.getvalue(), "u.parquet")).sample_names is None


def test_id_is_matched_as_a_whole_word_not_inside_accessions():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(20, 4)), columns=["O4IDC3", "IDH1", "ID2", "P0IDX1"])
    frame.insert(0, "sample_id", [f"S{i}" for i in range(20)])
    roles = {r.name: r.role for r in infer_column_roles(frame, label=None)}
    assert roles == {
        "sample_id": "identifier",
        "O4IDC3": "feature",
        "IDH1": "feature",
        "ID2": "feature",
        "P0IDX1": "feature",
    }


def test_the_cli_reads_a_10x_archive_and_a_gct(tmp_path, capsys):
    archive, _ = tenx_tar_gz()
    (tmp_path / "pbmc.tar.gz").write_bytes(archive)
    assert cli.main(["info", str(tmp_path / "pbmc.tar.gz"), "--json", "-q"]) == 0
    out = capsys.readouterr().out
    assert '"n_samples": 60' in out and '"n_features": 40' in out
    data, cls, _ = gct("1.2")
    (tmp_path / "x.gct").write_bytes(data)
    (tmp_path / "x.cls").write_bytes(cls)
    args = [
        "info",
        str(tmp_path / "x.gct"),
        "--sample-annotations",
        str(tmp_path / "x.cls"),
        "--label",
        "class",
    ]
    assert cli.main([*args, "--json", "-q"]) == 0
    assert '"n_samples": 12' in capsys.readouterr().out


@pytest.mark.parametrize("sandbox", [False, True])
def test_a_loom_file_reads_as_cells_by_genes_with_its_cluster_label(tmp_path, sandbox):
    from tests.omics_files import loom

    counts, barcodes, ids, symbols, kind = loom(tmp_path / "cells.loom")
    ds = load(tmp_path / "cells.loom", label="ClusterName", sandbox=sandbox)
    assert ds.shape == (60, 40) and sp.issparse(ds.X) and list(ds.sample_names) == barcodes
    np.testing.assert_array_equal(ds.X.toarray(), counts.toarray())
    assert list(ds.feature_names) == _expected_names(symbols) and ds.meta["feature_ids"] == ids
    assert list(ds.labels) == list(kind) and ds.meta["notes"][0].startswith(
        "read as a Loom file: 60 cells x 40 genes"
    )
    info = inspect_table(tmp_path / "cells.loom")
    assert info.fmt == "loom" and "ClusterName" in info.target_candidates


def test_the_recorded_plan_reads_the_same_dataset_again(tmp_path):
    """meta["plan"] (what sessions, links and the report's reproduce lines carry) gives the same
    fingerprint: a 10x archive with its cell annotations, a GCT with its CLS."""
    archive, (counts, barcodes, ids, symbols, kind) = tenx_tar_gz()
    (tmp_path / "pbmc.tar.gz").write_bytes(archive)
    (tmp_path / "cells.csv").write_bytes(cell_annotations(barcodes, kind))
    data, cls, _ = gct("1.3")
    (tmp_path / "x.gct").write_bytes(data)
    (tmp_path / "x.cls").write_bytes(cls)
    for path, extra in (
        ("pbmc.tar.gz", {"sample_annotations": str(tmp_path / "cells.csv"), "label": "cell_type"}),
        ("x.gct", {"sample_annotations": str(tmp_path / "x.cls"), "label": "class"}),
    ):
        first = load(tmp_path / path, **extra)
        again = load(tmp_path / path, plan=first.meta["plan"])
        assert again.fingerprint == first.fingerprint and again.shape == first.shape, path
