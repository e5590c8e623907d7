"""The app's Streamlit settings (``.streamlit/config.toml``) as Streamlit itself reads them.

``runner.postScriptGC`` must be off: Streamlit's default runs ``gc.collect(2)`` after every
script run, holding the GIL for ~0.2 s with the app's ~300k live objects, and the last
deltas of a rerun (a live tau step's tree) reach the browser only after it
(docs/app.md, "Live tuning").
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("streamlit")

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
