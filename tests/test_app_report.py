"""AppTest: the sidebar's "Report": the runs kept in the session, built as a job (progress, time
taken, Cancel; the page usable meanwhile), then downloaded.

* The download's bytes are ``build_report``'s for the same dataset, runs and k (apart from the
  date), and a second download builds nothing.
* Cancel says the report was not built and leaves the session usable; a failure is an
  ``st.error``, never a traceback; a changed dataset or run choice makes a built report stale.

The bytes a browser downloads are checked in ``tests/browser/test_browser_report.py`` (equal to
``fsviz report`` apart from the date).
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest

pytest.importorskip("streamlit")
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.testing.v1 import AppTest

import fsviz.report
from fsviz.data import load_sample

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
DATE = re.compile(r'<span id="report-created">[^<]*</span>')


@pytest.fixture
def downloads(monkeypatch) -> dict:
    """file name -> the deferred download's callable, for every download button drawn (AppTest
    has no browser to click them)."""
    seen: dict = {}
    add = MediaFileManager.add_deferred

    def record(self, data_callable, mimetype, coordinates, file_name=None, **kw):
        seen[file_name] = data_callable
        return add(self, data_callable, mimetype, coordinates, file_name=file_name, **kw)

    monkeypatch.setattr(MediaFileManager, "add_deferred", record)
    return seen


def _labels(at, kind: str) -> list[str]:
    return [b.proto.label for b in at.get(kind)]


def _job(at):
    """This session's report job (None when there is none)."""
    key = at.session_state["_report_job"] if "_report_job" in at.session_state else None
    return None if key is None else at.session_state["_jobs"].get(key)


def _until_done(at, seconds: float = 180):
    job = _job(at)
    assert job is not None and job.done.wait(seconds), "the report's job did not end"
    return at.run()  # what the watcher's rerun draws when the job has ended


def _with_gdm_and_grm() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not [m for m in at.multiselect if m.key == "report_runs"]  # a fresh session keeps no run yet
    assert at.sidebar.caption[-1].value.startswith("Active: **")  # the control adds no caption
    assert at.button(key="report_build").disabled  # nothing to build yet
    at.switch_page("fsviz_app/views/groups.py").run()  # GDM runs by itself on the small sample
    at.switch_page("fsviz_app/views/grm.py").run()  # GRM (and its base score)
    at.run()  # the sidebar is drawn before the view: a rerun lists the GRM run too
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_build_then_download_equals_build_report_and_a_second_download_builds_nothing(downloads):
    at = _with_gdm_and_grm()
    labels = at.multiselect(key="report_runs").options
    assert any(o.startswith("GDM") for o in labels) and any(o.startswith("GRM") for o in labels)
    assert all(o.endswith(", seed 0") for o in labels)
    assert "Download report (HTML)" not in _labels(at, "download_button")  # built on request only

    at.button(key="report_build").click().run()
    if _job(at) is not None:  # a loaded machine: the status box, then the outcome
        at = _until_done(at)
    assert not at.exception and not at.error, [e.value for e in at.exception or at.error]
    assert "Download report (HTML)" in _labels(at, "download_button")
    built = at.session_state["_report_built"]
    assert any(c.value.startswith(f"Built in {built.seconds:.1f} s: ") for c in at.sidebar.caption)
    data = downloads[built.file_name]()
    assert built.file_name == "digits-0-vs-1_fsviz-report.html"

    ds = load_sample("digits-0-vs-1")
    assert built.state.fingerprint == ds.fingerprint and built.state.k == 20
    doc = {"shown": {}, "selections": []}  # the session's runs, as its session file lists them
    for runs in at.session_state["shown"].values():
        doc["shown"].update({slot: run.to_dict() for slot, run in runs.items()})
    for sels in at.session_state["selections"].values():
        doc["selections"] += [{"run": run.to_dict(), "k": k} for run, k in sels]
    runs = [r for r in fsviz.report.session_runs(doc) if r.key in built.state.runs]
    assert {r.key for r in runs} == set(built.state.runs) and len(runs) == 2  # GDM, GRM
    expected = fsviz.report.build_report(ds, runs, k=20).encode("utf-8")
    assert DATE.sub("", data.decode()) == DATE.sub("", expected.decode())  # apart from the date

    calls = []
    real = fsviz.report.build_report
    fsviz.report.build_report = lambda *a, **kw: calls.append(1) or real(*a, **kw)
    try:
        at.run()  # the same state: the same report, downloaded again, nothing built
        assert downloads[built.file_name]() is data and calls == []
        assert "Download report (HTML)" in _labels(at, "download_button")
    finally:
        fsviz.report.build_report = real

    at.multiselect(key="report_runs").select(labels[0]).run()  # another choice of runs: stale
    assert not at.exception
    assert "Download report (HTML)" not in _labels(at, "download_button")
    assert any("out of date: the runs in it changed" in w.value for w in at.sidebar.warning)
    assert not at.button(key="report_build").disabled


def test_cancel_leaves_the_session_usable_and_says_the_report_was_not_built(monkeypatch, downloads):
    at = _with_gdm_and_grm()
    release = threading.Event()

    def slow(ds, runs, *, progress=None, **kw):  # reports each part until cancelled (at most 2 min)
        for i in range(1200):
            progress(i / 1200, f"Part {i + 1} of many: slow")
            if release.wait(0.1):
                break
        return "<html>fast</html>"

    monkeypatch.setattr(fsviz.report, "build_report", slow)
    at.button(key="report_build").click().run()
    assert not at.exception, [e.value for e in at.exception]
    job = _job(at)
    assert job is not None and job.state == "running"
    assert any(m.value.startswith("**Building the report …**") for m in at.sidebar.markdown)
    assert any(p.proto.text.startswith("Part ") for p in at.sidebar.get("progress"))  # the part built
    assert "Cancel" in _labels(at, "button")
    assert "Build report" not in _labels(at, "button")  # one build at a time

    at.switch_page("fsviz_app/views/groups.py").run()  # the page is usable while it builds
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value.startswith("Groups") and job.state == "running"
    assert any(m.value.startswith("**Building the report …**") for m in at.sidebar.markdown)

    at.button(key=f"_cancel_{job.serial}").click().run()
    at = _until_done(at, 30)
    assert job.state == "cancelled" and not at.exception
    assert any("The report was not built: cancelled" in i.value for i in at.sidebar.info)
    assert "Download report (HTML)" not in _labels(at, "download_button")
    assert not at.button(key="report_build").disabled  # and it builds again

    release.set()
    at.button(key="report_build").click().run()
    at = _until_done(at, 30) if _job(at) is not None else at
    assert not at.sidebar.info and "Download report (HTML)" in _labels(at, "download_button")
    assert downloads[at.session_state["_report_built"].file_name]() == b"<html>fast</html>"


def test_a_failure_is_an_error_message_and_a_dataset_change_makes_the_report_stale(monkeypatch, downloads):
    at = _with_gdm_and_grm()

    def failing(ds, runs, **kw):
        raise ValueError("report: 'k' is too large for this dataset; choose at most 5.")

    monkeypatch.setattr(fsviz.report, "build_report", failing)
    at.button(key="report_build").click().run()
    at = _until_done(at, 30) if _job(at) is not None else at
    assert not at.exception
    assert [e.value for e in at.sidebar.error] == [
        "report: 'k' is too large for this dataset; choose at most 5."
    ]
    assert "Download report (HTML)" not in _labels(at, "download_button")
    at.number_input(key="report_k").set_value(10).run()  # the message concerns the build it failed
    assert not at.sidebar.error and not at.button(key="report_build").disabled
    at.number_input(key="report_k").set_value(20).run()

    def internal(ds, runs, **kw):
        raise KeyError("oops")

    monkeypatch.setattr(fsviz.report, "build_report", internal)
    at.button(key="report_build").click().run()
    at = _until_done(at, 30) if _job(at) is not None else at
    assert not at.exception
    assert [e.value for e in at.sidebar.error] == [
        "Building the report failed with an internal error (KeyError: 'oops'). Please report it."
    ]

    monkeypatch.setattr(fsviz.report, "build_report", lambda ds, runs, **kw: f"<html>{ds.name}</html>")
    at.button(key="report_build").click().run()
    at = _until_done(at, 30) if _job(at) is not None else at
    assert not at.sidebar.error and "Download report (HTML)" in _labels(at, "download_button")

    at.selectbox(key="sample").select("synthetic-groups").run()  # another dataset
    assert not at.exception, [e.value for e in at.exception]
    assert "Download report (HTML)" not in _labels(at, "download_button")
    assert [w.value for w in at.sidebar.warning if "out of date" in w.value] == [
        "The report built earlier is out of date: it was built for another dataset (digits-0-vs-1)."
    ]
    assert _job(at) is None
