"""AppTest: hostile uploads, session files and links (docs/app.md, "Uploads and the server").

Every hostile file uploaded gives one message on screen and no server bytes on the page; the
next upload works. Every hostile session file and link gives a message, and the session goes on.
"""

from __future__ import annotations

import base64
import json

import pytest

pytest.importorskip("streamlit")
import hostile_files as hf
from streamlit.testing.v1 import AppTest

from tests.test_app_pages import APP, TIMEOUT, goto


def _page_text(at: AppTest) -> str:
    parts = [e.value for e in at.error] + [w.value for w in at.warning] + [i.value for i in at.info]
    parts += [c.value for c in at.caption] + [m.value for m in at.markdown] + [s.value for s in at.success]
    parts += [df.value.to_string() for df in at.dataframe]
    parts += [str(s.options) for s in at.selectbox]
    return "\n".join(map(str, parts))


def _upload(at: AppTest, name: str, data: bytes) -> AppTest:
    at.file_uploader(key="upload").set_value((name, data, "application/octet-stream")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _h5ad_bytes(tmp_path, make) -> bytes:
    return make(tmp_path / "x.h5ad", tmp_path / "server").read_bytes()


HOSTILE_UPLOADS = {
    "external_link.h5ad": (lambda t: _h5ad_bytes(t, hf.h5ad_external_link), "is an external link"),
    "external_storage.h5ad": (lambda t: _h5ad_bytes(t, hf.h5ad_external_storage), "in external file"),
    "virtual.h5ad": (lambda t: _h5ad_bytes(t, hf.h5ad_virtual), "is a virtual dataset"),
    "loop.h5ad": (lambda t: hf.h5ad_link_loop(t / "x.h5ad").read_bytes(), "a link loop"),
    "huge.h5ad": (lambda t: hf.h5ad_declared_huge(t / "x.h5ad", "var").read_bytes(), "memory budget"),
    "far_corner.xlsx": (lambda t: hf.xlsx_far_corner(), "1,048,576 rows x 16,384 columns"),
    "whitespace.xlsx": (lambda t: hf.xlsx_whitespace_bomb(96 << 20), "unpacks to 96.0 MiB"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_UPLOADS))
def test_hostile_upload_shows_one_message_and_the_next_upload_works(tmp_path, monkeypatch, name):
    make, said = HOSTILE_UPLOADS[name]
    data = make(tmp_path)
    monkeypatch.setenv("FSVIZ_MEMORY_BUDGET", "64M")
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.radio(key="source").set_value("Upload").run()
    _upload(at, name, data)
    errors = [e.value for e in at.error]
    assert any(said in e for e in errors), errors
    assert len(set(errors)) == 1, errors  # one message, not the same one twice
    assert "dataset_key" not in at.session_state
    assert hf.SECRET not in _page_text(at)
    _upload(at, "fine.csv", hf.formula_csv())
    assert "dataset_key" in at.session_state and not at.error, [e.value for e in at.error]


def _start() -> AppTest:
    return AppTest.from_file(APP, default_timeout=TIMEOUT).run()


def _session(fingerprint: str, **extra) -> bytes:
    doc = {"dataset": {"name": "x", "fingerprint": fingerprint}, "shown": {}, "selections": []} | extra
    return json.dumps(doc).encode()


def _hostile_sessions(fp: str) -> dict[str, tuple[bytes, str]]:
    upload = {"kind": "upload", "file": "a.csv", "sha256": "0" * 64, "import_options": {"sep": 5}}
    return {
        "deep": (hf.deep_json(), "nested deeper than"),
        "huge": (hf.huge_json(17 << 20), "more than a session holds"),
        "option type": (
            json.dumps({"dataset": {"name": "x", "fingerprint": fp, "source": upload}}).encode(),
            "'import_options.sep' must be str",
        ),
        "seed too big": (_session(fp, seed=2**70), "'seed' must be in [0, 4294967295]"),
        "negative seed": (_session(fp, seed=-3), "'seed' must be in [0, 4294967295]"),
        "unknown method": (
            _session(fp, shown={"gdm": {"method": "os.system", "params": {}, "seed": 0}}),
            "unknown method 'os.system'",
        ),
        "unknown feature": (_session(fp, prior_groups=[["pixel_0_0", "no_such_feature"]]), "no_such_feature"),
        "nan": (b'{"dataset": {"name": "x", "fingerprint": "a"}, "seed": NaN}', "NaN is not a number"),
    }


@pytest.mark.parametrize(
    "case",
    [
        "deep",
        "huge",
        "option type",
        "seed too big",
        "negative seed",
        "unknown method",
        "unknown feature",
        "nan",
    ],
)
def test_hostile_session_file_is_a_message_and_the_session_goes_on(case):
    at = _start()
    fp = at.session_state["dataset_key"].fingerprint
    data, said = _hostile_sessions(fp)[case]
    at.file_uploader(key="session_load").set_value(("s.json", data, "application/json")).run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(said in e.value for e in at.error), [e.value for e in at.error]
    goto(at, "groups")  # still usable: a page runs on the sample
    assert not at.exception and "dataset_key" in at.session_state


def test_a_link_with_a_hostile_run_is_a_warning_and_the_defaults():
    runs = {"gdm": {"method": "os.system", "params": {"cmd": "id"}, "seed": 0}}
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["runs"] = base64.urlsafe_b64encode(json.dumps(runs).encode()).decode()
    at.query_params["seed"] = str(2**64)  # out of range: ignored
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("not restored" in w.value and "os.system" in w.value for w in at.warning)
    assert at.session_state["seed"] == 0
    goto(at, "groups")
    assert not at.exception and not at.error


#: tiny but valid tables from the older hostile corpus: every page must run on them or say why not
TINY = {
    "one_class.csv": "a,b,c,class\n1,2,3,x\n2,3,1,x\n3,1,2,x\n4,4,4,x\n",
    "two_rows.csv": "a,b,c,class\n1,2,3,x\n2,3,1,y\n",
    "one_feature.csv": "a,class\n1,x\n2,y\n3,x\n4,y\n5,x\n6,y\n",
    "constant.csv": "a,b,class\n1,5,x\n2,5,y\n3,5,x\n4,5,y\n5,5,x\n6,5,y\n",
}
VIEWS = ["groups", "image_masks", "correlation_sparsity", "grm", "online", "projection", "stability"]
VIEWS += ["compare", "benchmark"]


@pytest.mark.parametrize("name", sorted(TINY))
def test_every_page_runs_or_says_why_on_tiny_data(name):
    """Widgets drawn from declarations clamp their defaults and bounds to the data (issue 33)."""
    at = _start()
    at.radio(key="source").set_value("Upload").run()
    _upload(at, name, TINY[name].encode())
    for view in VIEWS:
        goto(at, view)
