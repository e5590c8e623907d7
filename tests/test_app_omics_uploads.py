"""AppTest: a 10x matrix uploaded as its three files, and DIA-NN / Spectronaut protein-group tables
with a sample sheet, through the sidebar's data uploader with the defaults plus one choice.

The files are generated (tests/omics_files.py, and a Spectronaut report below); none is a copy.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("streamlit")
import scipy.sparse as sp
from streamlit.testing.v1 import AppTest

import fsviz_app.appkit as appkit
from tests.omics_files import cell_annotations, diann_pg_matrix, tenx_tar_gz, tenx_triplet
from tests.test_app_pages import APP, TIMEOUT


def _start() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.radio(key="source").set_value("Upload").run()
    return at


def _upload(at: AppTest, files: list[tuple[str, bytes]]) -> AppTest:
    at.file_uploader(key="upload").set_value([(n, d, "application/octet-stream") for n, d in files]).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _annotations(at: AppTest, name: str, data: bytes) -> AppTest:
    box = next(u for u in at.get("file_uploader") if u.label.startswith("Sample annotations"))
    box.set_value((name, data, "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _dataset(at: AppTest):
    key = at.session_state["dataset_key"] if "dataset_key" in at.session_state else None
    return appkit.state._datasets().get(key) if key else None


def _target_box(at: AppTest):
    return next(s for s in at.selectbox if s.label == "Target column")


def _said(at: AppTest, text: str) -> bool:
    return any(text in e.value for e in [*at.caption, *at.error, *at.info, *at.markdown])


def test_a_10x_matrix_as_three_uploads_gives_what_its_archive_gives():
    files, (counts, barcodes, ids, symbols, kind) = tenx_triplet()
    at = _upload(_start(), list(reversed(list(files.items()))))  # dropped in any order
    ds = _dataset(at)
    assert ds.shape == (60, 40) and sp.issparse(ds.X)
    np.testing.assert_array_equal(ds.X.toarray(), counts.toarray())
    assert list(ds.sample_names) == barcodes  # the barcodes name the cells
    assert ds.feature_names[3] == "MATR3" and ds.feature_names[7] == "MATR3-1"  # the symbols, unique
    assert list(ds.feature_info["feature_id"]) == ids
    assert _said(at, "together as one 10x matrix") and _said(
        at, "read as a 10x v3 matrix: 60 cells x 40 genes"
    )
    archive, _ = tenx_tar_gz()
    served = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    served.radio(key="source").set_value("Upload").run()
    assert _dataset(_upload(served, [("pbmc.tar.gz", archive)])).fingerprint == ds.fingerprint
    _annotations(at, "cell_annotations.csv", cell_annotations(barcodes, kind))
    _target_box(at).set_value("cell_type").run()  # the one choice
    assert not at.exception and not at.error, [e.value for e in at.error]
    ds = _dataset(at)
    assert ds.shape == (60, 40) and list(ds.class_names) == ["B cell", "T cell"]
    assert list(ds.labels) == list(kind)


def test_a_10x_v2_triplet_uncompressed_reads_too():
    files, (counts, barcodes, ids, symbols, kind) = tenx_triplet("v2", gz=False)
    at = _upload(_start(), list(files.items()))
    ds = _dataset(at)
    assert ds.shape == (60, 40) and sp.issparse(ds.X) and list(ds.sample_names) == barcodes
    assert ds.feature_names[7] == "MATR3-1" and list(ds.feature_info["feature_id"]) == ids  # genes.tsv
    _annotations(at, "cell_annotations.csv", cell_annotations(barcodes, kind))
    _target_box(at).set_value("cell_type").run()  # the one choice
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert _dataset(at).shape == (60, 40) and list(_dataset(at).labels) == list(kind)


@pytest.mark.parametrize(
    ("drop", "extra", "said"),
    [
        ("barcodes.tsv.gz", {}, r"missing the barcodes (barcodes.tsv or barcodes.tsv.gz)"),
        (None, {"matrix.mtx": b"%%MatrixMarket"}, "'matrix.mtx.gz' and 'matrix.mtx' are each the matrix"),
        ("features.tsv.gz", {}, "missing the features (features.tsv.gz, or genes.tsv for Cell Ranger 2)"),
    ],
)
def test_wrong_or_missing_10x_files_are_named_and_the_next_upload_works(drop, extra, said):
    files, _ = tenx_triplet()
    given = [(n, d) for n, d in files.items() if n != drop] + list(extra.items())
    at = _upload(_start(), given)
    assert _dataset(at) is None and _said(at, said), [e.value for e in at.error]
    _upload(at, list(files.items()))
    assert _dataset(at).shape == (60, 40) and not at.error


def test_mismatched_10x_files_name_the_counts():
    import gzip

    files, _ = tenx_triplet()
    files["barcodes.tsv.gz"] = gzip.compress(b"AAAC-1\nAAAG-1\n")
    at = _upload(_start(), list(files.items()))
    assert _dataset(at) is None and _said(at, "but the triplet lists 2 barcodes for its 60 cells")


def test_several_plain_files_use_the_last_and_say_which_were_left_out():
    a, b = b"x,y,label\n1,2,a\n3,4,b\n5,6,a\n7,8,b\n", b"p,q,r,label\n1,2,3,u\n4,5,6,v\n7,8,9,u\n1,1,1,v\n"
    at = _upload(_start(), [("a.csv", a), ("b.csv", b)])
    assert _dataset(at).n_features == 3 and _said(at, "Using b.csv, the last file dropped; left out: a.csv")


def _sheet(stems, conditions, key="Run") -> bytes:
    return (
        f"{key}\tCondition\n" + "".join(f"{s}\t{c}\n" for s, c in zip(stems, conditions, strict=True))
    ).encode()


def test_a_diann_pg_matrix_and_its_sample_sheet():
    data, runs = diann_pg_matrix()
    stems = [r.rsplit("\\", 1)[1].removesuffix(".raw") for r in runs]
    at = _upload(_start(), [("report.pg_matrix.tsv", data)])
    ds = _dataset(at)
    assert list(ds.sample_names) == stems and ds.n_features == 80
    assert list(ds.feature_names[:2]) == ["G0", "G1"] and ds.meta["raw_sample_names"] == runs
    assert not {"Protein.Group", "Protein.Ids", "Genes"} & set(ds.feature_names)
    assert _said(at, "read as a DIA-NN protein-group matrix: 6 runs x 80 protein-groups")
    assert _said(at, "run names cleaned from file paths to their stems")
    conditions = [s.split("_")[1] for s in stems]
    _annotations(at, "samples.tsv", _sheet(stems, conditions))
    _target_box(at).set_value("Condition").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    ds = _dataset(at)
    assert ds.shape == (6, 80) and list(ds.labels) == conditions


def test_a_diann_sample_sheet_keyed_by_the_raw_file_paths_joins_too():
    data, runs = diann_pg_matrix()
    conditions = ["treat", "ctrl"] * 3
    at = _upload(_start(), [("report.pg_matrix.tsv", data)])
    _annotations(at, "design.tsv", _sheet(runs, conditions, key="File.Name"))
    _target_box(at).set_value("Condition").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert list(_dataset(at).labels) == conditions


def spectronaut_report(n_runs: int = 4, n_groups: int = 12, seed: int = 5) -> tuple[bytes, list[str]]:
    """A Spectronaut PG report: ``PG.*`` metadata, one ``[n] <run>.PG.Quantity`` column per run,
    ``Filtered`` where Spectronaut left a value out."""
    rng = np.random.default_rng(seed)
    runs = [f"[{i + 1}] S{i + 1:02d}_{'ctrl' if i % 2 else 'treat'}.raw.PG.Quantity" for i in range(n_runs)]
    lines = ["\t".join(["PG.ProteinGroups", "PG.Genes", "PG.ProteinDescriptions", *runs])]
    for i in range(n_groups):
        vals = rng.lognormal(10, 1, n_runs)
        cells = ["Filtered" if (i + j) % 7 == 0 else f"{v:.2f}" for j, v in enumerate(vals)]
        lines.append("\t".join([f"P{i};Q{i}", f"G{i}", f"protein {i}", *cells]))
    return ("\n".join(lines) + "\n").encode(), runs


def test_a_spectronaut_report_and_its_sample_sheet():
    data, runs = spectronaut_report()
    stems = ["S01_treat", "S02_ctrl", "S03_treat", "S04_ctrl"]
    at = _upload(_start(), [("Report_PG.tsv", data)])
    ds = _dataset(at)
    assert list(ds.sample_names) == stems and ds.n_features == 12
    assert list(ds.feature_names[:2]) == ["G0", "G1"] and ds.meta["raw_sample_names"] == runs
    assert _said(at, "read as a Spectronaut protein-group report: 4 runs x 12 protein groups")
    _annotations(at, "samples.tsv", _sheet(stems, ["treat", "ctrl"] * 2, key="Sample"))
    _target_box(at).set_value("Condition").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    ds = _dataset(at)
    assert ds.shape == (4, 12) and list(ds.labels) == ["treat", "ctrl"] * 2


def test_the_uploaded_files_are_read_once_not_on_every_rerun(monkeypatch):
    """The upload is made of the files Streamlit holds (by file id) once: the reruns that follow
    neither copy nor hash their bytes again (at 100,000 columns, 0.2 s and 173 MB each), and
    another file is read at once."""
    from fsviz_app.appkit import uploads

    reads = []
    real = uploads.receive_upload
    monkeypatch.setattr(uploads, "receive_upload", lambda name, data: reads.append(name) or real(name, data))
    files, _ = tenx_triplet()
    at = _upload(_start(), list(files.items()))
    shape = _dataset(at).shape
    at.run()
    at.run()
    assert len(reads) == 1 and _dataset(at).shape == shape
    table = b"g1,g2,label\n1,2,a\n3,4,b\n5,6,a\n7,8,b\n"
    _upload(at, [("t.csv", table)])
    assert reads[1:] == ["t.csv"] and _dataset(at).shape == (4, 2)
    at.run()
    assert len(reads) == 2


def test_a_large_upload_is_read_from_the_apps_own_copy_on_disk_and_streamlits_is_emptied(monkeypatch):
    """An upload over ``SPILL_BYTES`` is kept in a private file (not in memory) and Streamlit's
    copy of it is emptied: the reruns, the preview and the read all work from the app's copy."""
    import io
    import time

    import pandas as pd

    from fsviz_app.appkit import uploads
    from fsviz_app.appkit.memory import SpilledBytes

    monkeypatch.setattr(uploads, "SPILL_BYTES", 0)  # every upload counts as large
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(30, 12)), columns=[f"g{j}" for j in range(12)])
    frame["label"] = np.repeat(["a", "b"], 15)
    buf = io.BytesIO()
    frame.to_parquet(buf, index=False)
    at = _upload(_start(), [("expr.parquet", buf.getvalue())])
    for _ in range(100):  # written beside the read, then the store's record reads from disk
        up = appkit.state.upload_store().get(at.session_state["upload_token"])
        if isinstance(up.data, SpilledBytes):
            break
        time.sleep(0.05)
    assert isinstance(up.data, SpilledBytes) and up.data.path.endswith("expr.parquet")
    assert at.session_state["_upload_files_emptied"]  # Streamlit holds an empty record now
    ds = _dataset(at)
    assert ds.shape == (30, 12) and list(ds.labels[:2]) == ["a", "a"]
    at.run()
    at.run()
    assert not at.exception and not at.error and _dataset(at).fingerprint == ds.fingerprint
    appkit.state.upload_store().pop(up.token)  # the stores let it go while the uploader shows it
    at.run()
    assert not at.exception and any("Fix: upload it again" in e.value for e in at.error), [
        e.value for e in at.error
    ]
    _upload(at, [("t.csv", b"g1,g2,label\n1,2,a\n3,4,b\n5,6,a\n7,8,b\n")])  # another file: read at once
    assert _dataset(at).shape == (4, 2)
