"""AppTest: with a server data folder (``FSVIZ_DATA_DIR``), a file in it is picked as the sample or
the feature annotations of the data file chosen there, as an upload of it would be attached."""

from __future__ import annotations

import gzip

import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest

import fsviz_app.appkit as appkit
from fsviz_app.appkit.folder_annotations import annotation_files
from tests.omics_files import cell_annotations, geo_platform, tenx_folder
from tests.test_app_pages import APP, TIMEOUT
from tests.user_files import geo_series_matrix

PROBES = [f"{1000 + j}_at" for j in range(40)]


@pytest.fixture
def folder(tmp_path, monkeypatch):
    data = tmp_path / "data"
    counts, barcodes, ids, symbols, kind = tenx_folder(data / "run1" / "filtered_feature_bc_matrix")
    (data / "run1" / "cell_annotations.csv").write_bytes(cell_annotations(barcodes, kind))
    (data / "GSE1_series_matrix.txt.gz").write_bytes(
        gzip.compress(geo_series_matrix(n_probes=40, n_samples=12))
    )
    (data / "GPL570.txt.gz").write_bytes(gzip.compress(geo_platform(PROBES)))
    (data / "broken.csv").write_bytes(b"")
    monkeypatch.setenv("FSVIZ_DATA_DIR", str(data))
    return data, kind


def _dataset(at: AppTest):
    return appkit.state._datasets().get(at.session_state["dataset_key"])


def _open(at: AppTest, name: str) -> AppTest:
    at.radio(key="source").set_value("Server folder").run()
    at.selectbox(key="folder_file").set_value(name).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _picker(at: AppTest, which: str):
    token = at.session_state["folder_token"]
    return at.selectbox(key=f"imp_{which}_folder_{token}")


def test_the_pickers_list_the_folders_tables_but_not_matrices_or_the_data_file(folder):
    data, _ = folder
    assert annotation_files() == [
        "GPL570.txt.gz",
        "GSE1_series_matrix.txt.gz",
        "broken.csv",
        "run1/cell_annotations.csv",
    ]
    assert "GSE1_series_matrix.txt.gz" not in annotation_files(exclude="GSE1_series_matrix.txt.gz")


def test_cell_annotations_from_the_folder_give_the_cell_type_target(folder):
    _, kind = folder
    at = _open(AppTest.from_file(APP, default_timeout=TIMEOUT).run(), "run1/filtered_feature_bc_matrix")
    assert _dataset(at).shape == (60, 40)
    box = _picker(at, "annotations")
    assert "run1/cell_annotations.csv" in box.options and "run1/filtered_feature_bc_matrix" not in box.options
    box.set_value("run1/cell_annotations.csv").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    target = next(s for s in at.selectbox if s.label == "Target column")
    assert target.value == "cell_type"
    ds = _dataset(at)
    assert list(ds.class_names) == ["B cell", "T cell"] and list(ds.labels) == list(kind)
    assert ds.meta["plan"]["sample_annotations"] == "cell_annotations.csv"
    # an unreadable table: its error on the page, the session goes on
    _picker(at, "annotations").set_value("broken.csv").run()
    assert not at.exception and any("broken.csv" in e.value for e in at.error), [e.value for e in at.error]


def test_a_platform_table_from_the_folder_labels_the_probes(folder):
    at = _open(AppTest.from_file(APP, default_timeout=TIMEOUT).run(), "GSE1_series_matrix.txt.gz")
    assert _dataset(at).feature_labels.tolist()[:2] == PROBES[:2]
    _picker(at, "feature_annotations").set_value("GPL570.txt.gz").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    ds = _dataset(at)
    assert ds.feature_labels.tolist()[:2] == ["DDR1 (1000_at)", "DDR1 (1001_at)"]
    assert ds.meta["plan"]["feature_annotations"] == "GPL570.txt.gz"
    assert _picker(at, "feature_annotations").value == "GPL570.txt.gz"


def test_the_annotation_choices_read_no_data_file_shape(folder, monkeypatch):
    """Listing the tables an annotation can come from opens no Parquet footer (at 100,000 columns
    about a second on the first rerun of a page that shows the picker)."""
    import numpy as np
    import pandas as pd

    from fsviz_app.appkit import data_folder

    data, _ = folder
    pd.DataFrame(np.zeros((3, 4)), columns=list("abcd")).to_parquet(data / "wide.parquet")
    opened = []
    monkeypatch.setattr(data_folder, "_parquet_shape", lambda *a: opened.append(a) or (3, 4))
    data_folder._listing.clear()
    names = annotation_files()
    assert {"run1/cell_annotations.csv", "wide.parquet"} <= set(names) and opened == []
    data_folder._listing.clear()
    assert [f.name for f in data_folder.scan_folder(data)[0] if f.name == "wide.parquet"] and opened
