"""AppTest: the shapes of issue 42's "Done when" list that no other app test loads: a Kaggle-style
zip of one table, a 10x ``.h5`` with its cell annotations, and a Loom file, each uploaded with the
defaults plus at most one visible choice, checked for the samples, features and target a person
expects; and, on the 10x matrix, a repeated gene symbol pasted as a GRM prior group takes every
gene made unique from it (``MATR3``, ``MATR3-1``), with a note.

The files are generated (tests/omics_files.py, tests/user_files.py); none is a copy.
"""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest

pytest.importorskip("streamlit")
import scipy.sparse as sp

from tests.omics_files import cell_annotations, loom, tenx_h5
from tests.test_app_omics import _annotations, _dataset, _start, _target_box, _upload
from tests.test_app_pages import button, goto
from tests.user_files import wisconsin_frame


def test_a_kaggle_style_zip_of_one_table_loads_with_the_defaults():
    frame = wisconsin_frame()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:  # as Kaggle's "Download" serves it
        z.writestr("data.csv", frame.to_csv(index=False))
    at = _upload(_start(), "breast-cancer-wisconsin-data.zip", buf.getvalue())
    assert not at.error, [e.value for e in at.error]
    ds = _dataset(at)
    assert ds.shape == (150, 30) and ds.meta["label_column"] == "diagnosis"
    assert list(ds.sample_names) == [str(v) for v in frame["id"]]  # the id column names the samples
    assert list(ds.feature_names) == list(frame.columns[2:])
    assert list(ds.labels) == list(frame["diagnosis"]) and sorted(ds.class_names) == ["B", "M"]
    assert ds.meta["plan"]["compression"] == "zip"


def test_a_10x_h5_and_its_cell_annotations_then_a_repeated_symbol_as_a_prior_group(tmp_path):
    counts, barcodes, ids, symbols, kind = tenx_h5(tmp_path / "filtered_feature_bc_matrix.h5")
    data = (tmp_path / "filtered_feature_bc_matrix.h5").read_bytes()
    at = _upload(_start(), "filtered_feature_bc_matrix.h5", data)
    ds = _dataset(at)
    assert ds.shape == (60, 40) and sp.issparse(ds.X)  # cells x genes, kept sparse
    np.testing.assert_array_equal(ds.X.toarray(), counts.toarray())
    assert list(ds.sample_names) == barcodes and ds.feature_names[7] == "MATR3-1"
    assert list(ds.feature_info["symbol"]) == symbols  # the symbols the names were made from
    assert any("read as a 10x v3 .h5 matrix: 60 cells x 40 genes, sparse" in c.value for c in at.caption)
    _annotations(at, "cell_annotations.csv", cell_annotations(barcodes, kind))
    _target_box(at).set_value("cell_type").run()  # the one choice
    assert not at.exception and not at.error, [e.value for e in at.error]
    ds = _dataset(at)
    assert ds.shape == (60, 40) and list(ds.labels) == list(kind)
    goto(at, "grm")
    at.text_area(key="prior_text").set_value("MATR3, GENE0").run()
    button(at, "Add pasted groups").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any(
        "'MATR3' names 2 features (MATR3, MATR3-1): all of them are in group 1" in i.value for i in at.info
    )
    groups = next(d.value for d in at.dataframe if "features" in d.value.columns)
    assert groups["features"].tolist() == ["GENE0, MATR3, MATR3-1"]


def test_a_loom_file_gives_cells_by_genes_with_its_cluster_as_the_target(tmp_path):
    counts, barcodes, ids, symbols, kind = loom(tmp_path / "cells.loom")
    at = _upload(_start(), "cells.loom", (tmp_path / "cells.loom").read_bytes())
    assert not at.error, [e.value for e in at.error]
    ds = _dataset(at)
    assert ds.shape == (60, 40) and sp.issparse(ds.X)
    np.testing.assert_allclose(ds.X.toarray(), counts.toarray())
    assert list(ds.sample_names) == barcodes and ds.feature_names[3] == "MATR3"
    assert list(ds.feature_info["feature_id"]) == ids  # Accession beside the symbols
    assert ds.meta["label_column"] == "ClusterName" and list(ds.labels) == list(kind)
    assert "nUMI" not in set(ds.feature_names)  # a per-cell attribute, not a gene
