"""AppTest: 10x matrices and GCT/CLS files through the app's doors with their defaults plus one choice.

A 10x ``.tar.gz`` and its cell annotations give cells x genes, sparse, with the cell type as the
target; a GCT file and its CLS labels give exactly the file's samples with the CLS classes, and
the import plan offers the one choice that reads it as a plain table; the server folder lists a
Cell Ranger folder as one entry and opens it.
"""

from __future__ import annotations

import pytest

pytest.importorskip("streamlit")
import scipy.sparse as sp
from streamlit.testing.v1 import AppTest

import fsviz_app.appkit as appkit
from fsviz_app.appkit.data_folder import list_files
from tests.omics_files import cell_annotations, gct, tenx_folder, tenx_tar_gz
from tests.test_app_pages import APP, TIMEOUT


def _start() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.radio(key="source").set_value("Upload").run()
    return at


def _upload(at: AppTest, name: str, data: bytes) -> AppTest:
    at.file_uploader(key="upload").set_value((name, data, "application/octet-stream")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _annotations(at: AppTest, name: str, data: bytes) -> AppTest:
    box = next(u for u in at.get("file_uploader") if u.label.startswith("Sample annotations"))
    box.set_value((name, data, "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _dataset(at: AppTest):
    return appkit.state._datasets().get(at.session_state["dataset_key"])


def _target_box(at: AppTest):
    return next(s for s in at.selectbox if s.label == "Target column")


def test_a_10x_archive_and_its_cell_annotations_give_cells_by_genes_with_the_cell_type():
    archive, (counts, barcodes, ids, symbols, kind) = tenx_tar_gz()
    at = _upload(_start(), "pbmc_filtered.tar.gz", archive)
    ds = _dataset(at)
    assert ds.shape == (60, 40) and sp.issparse(ds.X) and ds.feature_names[7] == "MATR3-1"
    assert any("read as a 10x v3 matrix: 60 cells x 40 genes, sparse" in c.value for c in at.caption)
    _annotations(at, "cell_annotations.csv", cell_annotations(barcodes, kind))
    assert _target_box(at).value == "cell_type"  # the join's pick, shown as the picker's value
    assert list(_dataset(at).class_names) == ["B cell", "T cell"]
    _target_box(at).set_value("cell_type").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    ds = _dataset(at)
    assert ds.shape == (60, 40) and list(ds.class_names) == ["B cell", "T cell"]


def test_a_gct_and_its_cls_give_exactly_the_files_samples_and_classes():
    data, cls, _ = gct("1.2")
    at = _upload(_start(), "expr.gct", data)
    assert _dataset(at).shape == (12, 30)
    read_as = next(s for s in at.selectbox if s.label == "Read as")
    assert read_as.options == ["GCT 1.2/1.3 expression file (recognised)", "a plain table"]
    _annotations(at, "labels.cls", cls)
    _target_box(at).set_value("class").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    ds = _dataset(at)
    assert ds.shape == (12, 30) and list(ds.class_names) == ["normal", "tumour"]
    assert list(ds.sample_names) == [f"S{i:02d}" for i in range(12)]


def test_the_server_folder_lists_a_cell_ranger_folder_and_opens_it(tmp_path, monkeypatch):
    data = tmp_path / "data"
    tenx_folder(data / "run1" / "filtered_feature_bc_matrix")
    files = {f.name: f.kind for f in list_files(data)}
    assert files == {"run1/filtered_feature_bc_matrix": "10x"}
    monkeypatch.setenv("FSVIZ_DATA_DIR", str(data))
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.radio(key="source").set_value("Server folder").run()
    at.selectbox(key="folder_file").set_value("run1/filtered_feature_bc_matrix").run()
    assert not at.exception, [e.value for e in at.exception]
    ds = _dataset(at)
    assert ds.shape == (60, 40) and sp.issparse(ds.X) and ds.name == "filtered_feature_bc_matrix"


def test_maxquant_protein_groups_and_the_design_give_24_samples_with_condition_as_target():
    from tests.omics_files import maxquant

    pg, design, t = maxquant()
    at = _upload(_start(), "proteinGroups.txt", pg)
    assert _dataset(at).shape == (24, int(t["kept"].sum()))
    assert any("read as a MaxQuant protein-groups table" in c.value for c in at.caption)
    assert next(s for s in at.selectbox if s.label == "Intensity").options[1:] == [
        "LFQ intensity",
        "iBAQ",
        "Intensity",
    ]
    _annotations(at, "experimental_design.tsv", design)
    _target_box(at).set_value("Condition").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    ds = _dataset(at)
    assert ds.shape == (24, int(t["kept"].sum())) and list(ds.class_names) == ["ctrl", "treat"]
