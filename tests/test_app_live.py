"""What keeps a live tau step quick, and what it must keep right.

* ``.streamlit/config.toml`` as Streamlit itself reads it: ``runner.postScriptGC`` off.
  Streamlit's default runs ``gc.collect(2)`` after every script run, holding the GIL for
  ~0.2 s with the app's ~300k live objects, and the last deltas of a rerun (a live tau
  step's tree) reach the browser only after it (docs/app.md, "Live tuning").
* A live step writes the new run into the URL before it computes (the browser handles that
  message while the server fits GDM); the URL still ends up naming the run the page shows,
  also when that computation fails.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("streamlit")
from tests.test_app_pages import goto, sample_named, slider, start

ROOT = Path(__file__).resolve().parents[1]
OPTIONS = ("runner.postScriptGC", "server.maxUploadSize", "server.maxMessageSize")


def _options_from(cwd: Path) -> dict:
    """The options as ``streamlit run`` started in ``cwd`` sees them (a fresh process: the
    test process's own Streamlit config stays untouched)."""
    code = (
        f"import json, streamlit.config as c; print(json.dumps({{k: c.get_option(k) for k in {OPTIONS!r}}}))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_app_config_turns_the_post_script_gc_off(tmp_path):
    app = _options_from(ROOT)
    assert app["runner.postScriptGC"] is False
    assert app["server.maxUploadSize"] == 1024  # the same file's other settings are read too
    # without the file Streamlit's default is on: the setting above is what turns it off
    assert _options_from(tmp_path)["runner.postScriptGC"] is True


@pytest.fixture(scope="module")
def digits() -> str:
    return sample_named("digit")


def _url_tau(at) -> float:
    runs = json.loads(base64.urlsafe_b64decode(at.query_params["runs"].encode()))
    return runs["gdm"]["params"]["tau"]


def _shown(at) -> str:
    return next(c.value for c in at.caption if c.value.startswith("Shown:"))


def test_a_live_step_puts_its_run_into_the_url(digits, monkeypatch):
    import appkit

    monkeypatch.setattr(appkit, "LIVE_SECONDS", 60.0)  # the last run counts as cheap
    at = goto(start(digits), "groups")
    slider(at, "tau").set_value(0.55).run()  # no Run click: applied at once
    assert not at.exception and not at.warning
    assert "tau=0.55" in _shown(at) and _url_tau(at) == 0.55


def test_a_failed_live_step_leaves_the_shown_run_in_the_url(digits, monkeypatch):
    import appkit
    from fsviz.select import GDM

    monkeypatch.setattr(appkit, "LIVE_SECONDS", 60.0)
    at = goto(start(digits), "groups")
    slider(at, "tau").set_value(0.55).run()
    fit = GDM.fit

    def failing_fit(self, X, y=None, client=None):
        if self.tau == 0.65:
            raise ValueError("GDM: the test makes tau=0.65 fail.")
        return fit(self, X, y, client=client)

    monkeypatch.setattr(GDM, "fit", failing_fit)
    slider(at, "tau").set_value(0.65).run()
    assert not at.exception
    assert any("tau=0.65 fail" in e.value for e in at.error)
    assert "tau=0.55" in _shown(at) and _url_tau(at) == 0.55  # not the run that failed
    assert any(w.value.startswith("Stale: the result below is for GDM") for w in at.warning)
