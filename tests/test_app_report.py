"""AppTest: the sidebar's "Report" control lists the runs kept in the session.

The bytes it downloads are checked in a real browser (``tests/test_browser_report.py``: equal to
``fsviz report`` apart from the date); AppTest has no runtime to run a deferred download.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]


def test_report_control_lists_the_runs_kept_in_the_session():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not [m for m in at.multiselect if m.key == "report_runs"]  # a fresh session keeps no run yet
    assert at.sidebar.caption[-1].value.startswith("Active: **")  # the control adds no caption
    at.switch_page("fsviz_app/views/groups.py").run()  # GDM runs by itself on the small sample
    at.switch_page("fsviz_app/views/grm.py").run()  # GRM (and its base score)
    at.run()  # the sidebar is drawn before the view: a rerun lists the GRM run too
    assert not at.exception, [e.value for e in at.exception]
    labels = at.multiselect(key="report_runs").options
    assert any(o.startswith("GDM") for o in labels) and any(o.startswith("GRM") for o in labels)
    assert all(o.endswith(", seed 0") for o in labels)
    assert [b.proto.label for b in at.get("download_button") if b.proto.label.startswith("Download report")]
    at.multiselect(key="report_runs").select(labels[0]).run()
    assert not at.exception and at.multiselect(key="report_runs").value
