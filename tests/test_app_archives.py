"""AppTest: compressed and archived files through the app's doors (upload, server folder).

A gzipped GEO series matrix uploads as GEO serves it and loads as its uncompressed twin; a zip
of two tables offers an "Archive member" choice; a gzip bomb and a path-traversing zip give one
message and the next upload works; the server folder lists compressed files and says why it
leaves anything out.
"""

from __future__ import annotations

import gzip
import io
import zipfile

import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest

import fsviz_app.appkit as appkit
from fsviz_app.appkit.data_folder import scan_folder
from tests.test_app_pages import APP, TIMEOUT
from tests.user_files import geo_series_matrix

CSV = b"id,a,b,label\ns1,1,2,x\ns2,3,4,y\ns3,5,7,x\ns4,6,1,y\n"


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, content in members.items():
            z.writestr(name, content)
    return buf.getvalue()


def _start() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.radio(key="source").set_value("Upload").run()
    return at


def _upload(at: AppTest, name: str, data: bytes) -> AppTest:
    at.file_uploader(key="upload").set_value((name, data, "application/octet-stream")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _dataset(at: AppTest):
    return appkit.state._datasets().get(at.session_state["dataset_key"])


def test_a_gzipped_geo_matrix_uploads_as_geo_serves_it():
    raw = geo_series_matrix()
    at = _upload(_start(), "GSE00000_series_matrix.txt.gz", gzip.compress(raw))
    ds = _dataset(at)
    assert ds.shape == (24, 300) and ds.meta["label_column"] == "disease state"
    assert ds.name == "GSE00000_series_matrix" and ds.meta["plan"]["compression"] == "gzip"
    plain = _dataset(_upload(_start(), "GSE00000_series_matrix.txt", raw))
    assert plain.fingerprint == ds.fingerprint


def test_an_archive_of_two_tables_offers_the_member_and_hostile_archives_leave_the_session_usable(
    monkeypatch,
):
    monkeypatch.setenv("FSVIZ_MEMORY_BUDGET", "512K")
    at = _upload(_start(), "kaggle.zip", _zip({"train.csv": CSV, "test.csv": CSV.replace(b"s1", b"t1")}))
    assert any("holds 2 data files" in e.value for e in at.error)
    box = next(s for s in at.selectbox if s.label == "Archive member")
    assert box.options[1:] == ["train.csv", "test.csv"]
    box.set_value("test.csv").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert _dataset(at).sample_names[0] == "t1" and _dataset(at).meta["plan"]["member"] == "test.csv"
    bomb = gzip.compress(b"0," * (1 << 20))
    for name, data, said in (
        ("bomb.csv.gz", bomb, "over 512.0 KiB the memory budget"),
        ("evil.zip", _zip({"../evil.csv": CSV}), "leaves the archive's folder"),
    ):
        _upload(at, name, data)
        errors = [e.value for e in at.error]
        assert any(said in e for e in errors) and len(set(errors)) == 1, errors
    _upload(at, "fine.csv.gz", gzip.compress(CSV))
    assert not at.error and _dataset(at).shape == (4, 2)


def test_the_server_folder_lists_compressed_files_and_says_what_it_leaves_out(tmp_path, monkeypatch):
    data = tmp_path / "data"
    (data / "a" / "b" / "c").mkdir(parents=True)
    (data / "GSE1_series_matrix.txt.gz").write_bytes(gzip.compress(geo_series_matrix()))
    (data / "kaggle.zip").write_bytes(_zip({"train.csv": CSV}))
    (data / "notes.docx").write_bytes(b"not data")
    (data / "evil.zip").write_bytes(_zip({"../../etc/evil.csv": CSV}))
    (data / "a" / "b" / "c" / "deep.csv").write_bytes(CSV)
    listed, skipped = scan_folder(data)
    files = {f.name: f.kind for f in listed}
    skipped = [(s.name, s.reason) for s in skipped]
    assert files == {"GSE1_series_matrix.txt.gz": "txt.gz", "kaggle.zip": "zip", "evil.zip": "zip"}
    assert ("notes.docx", "not a format fsviz reads (.docx)") in skipped
    assert any(name == "a/b/c/" and "deeper than" in why for name, why in skipped)
    monkeypatch.setenv("FSVIZ_DATA_DIR", str(data))
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.radio(key="source").set_value("Server folder").run()
    assert any("Skipped 2: " in c.value and "notes.docx" in c.value for c in at.sidebar.caption)
    at.selectbox(key="folder_file").set_value("evil.zip").run()  # refused in the sandbox, said once
    assert not at.exception and any("leaves the archive's folder" in e.value for e in at.error)
    at.selectbox(key="folder_file").set_value("GSE1_series_matrix.txt.gz").run()
    assert not at.exception, [e.value for e in at.exception]
    assert _dataset(at).shape == (24, 300) and _dataset(at).name == "GSE1_series_matrix"


def test_a_listing_cut_at_its_limit_says_so(tmp_path, monkeypatch):
    import fsviz_app.appkit.data_folder as folder

    for i in range(3):
        (tmp_path / f"t{i}.csv").write_bytes(CSV)
    monkeypatch.setattr(folder, "MAX_ENTRIES", 2)
    listed, skipped = folder.scan_folder(tmp_path)
    assert len(listed) == 2
    assert [(s.name, s.reason) for s in skipped] == [
        ("…", "the listing stops at 2 entries; type the path of any other file")
    ]
