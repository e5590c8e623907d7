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

import numpy as np
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
    import fsviz_app.appkit as appkit

    monkeypatch.setattr(appkit.results, "LIVE_SECONDS", 60.0)  # the last run counts as cheap
    at = goto(start(digits), "groups")
    slider(at, "tau").set_value(0.45).run()  # no Run click: applied at once
    assert not at.exception and not at.warning
    assert "tau=0.45" in _shown(at) and _url_tau(at) == 0.45


def test_a_failed_live_step_leaves_the_shown_run_in_the_url(digits, monkeypatch):
    import fsviz_app.appkit as appkit
    from fsviz.select import GDM

    monkeypatch.setattr(appkit.results, "LIVE_SECONDS", 60.0)
    at = goto(start(digits), "groups")
    slider(at, "tau").set_value(0.45).run()
    fit = GDM.fit

    def failing_fit(self, X, y=None, client=None):
        if self.tau == 0.4:
            raise ValueError("GDM: the test makes tau=0.4 fail.")
        return fit(self, X, y, client=client)

    monkeypatch.setattr(GDM, "fit", failing_fit)
    slider(at, "tau").set_value(0.4).run()
    assert not at.exception
    assert any("tau=0.4 fail" in e.value for e in at.error)
    assert "tau=0.45" in _shown(at) and _url_tau(at) == 0.45  # not the run that failed
    assert any(w.value.startswith("Stale: the result below is for GDM") for w in at.warning)


def _wait_stored(store, keys, seconds: float = 60.0) -> None:
    import time

    deadline = time.monotonic() + seconds
    while any(store.get(k) is None for k in keys) and time.monotonic() < deadline:
        time.sleep(0.05)


def test_a_live_step_prefetches_the_slider_neighbours_exactly(digits, monkeypatch):
    import fsviz_app.appkit as appkit
    from fsviz.compute import Run

    monkeypatch.setattr(appkit.results, "LIVE_SECONDS", 60.0)
    monkeypatch.setattr(appkit.results, "PREFETCH_SECONDS", 60.0)  # the last run counts as cheap
    at = goto(start(digits), "groups")
    slider(at, "tau").set_value(0.45).run()
    runs = json.loads(base64.urlsafe_b64decode(at.query_params["runs"].encode()))
    shown = Run.from_dict(runs["gdm"])
    ds = appkit.state._datasets().get(at.session_state["dataset_key"])
    near = [Run(shown.method, shown.kwargs | {"tau": t}, shown.seed) for t in (0.44, 0.46)]
    keys = [appkit.ResultKey(ds.fingerprint, r.key) for r in near]
    store = appkit.state.result_store()
    _wait_stored(store, keys)
    for run, key in zip(near, keys, strict=True):
        got, want = store.get(key), run.execute(ds)  # the same Run computed in the foreground
        assert got is not None, f"{run.label} was not prefetched"
        assert got.run == run
        np.testing.assert_array_equal(got.support, want.support)
        np.testing.assert_array_equal(got.af, want.af)
        np.testing.assert_array_equal(got.af_sf, want.af_sf)
    slider(at, "tau").set_value(0.46).run()  # the next arrow-key step: a cache hit
    assert "tau=0.46" in _shown(at) and not at.exception


def test_no_prefetch_after_a_slow_run(digits, monkeypatch):
    import fsviz_app.appkit as appkit

    monkeypatch.setattr(appkit.results, "LIVE_SECONDS", 60.0)
    monkeypatch.setattr(appkit.results, "PREFETCH_SECONDS", 0.0)  # every run counts as too slow
    submitted = []
    monkeypatch.setattr(appkit.results._Prefetcher, "submit", lambda self, ds, runs: submitted.extend(runs))
    at = goto(start(digits), "groups")
    slider(at, "tau").set_value(0.35).run()
    assert "tau=0.35" in _shown(at) and submitted == []


def test_prefetcher_drops_failures_keeps_going_and_lets_a_page_wait(digits):
    import fsviz_app.appkit as appkit
    from fsviz.compute import Run
    from fsviz.data import load_sample

    ds = load_sample(digits)
    store = appkit.memory.ByteLRU(8)
    pre = appkit.results._Prefetcher(store)
    bad, good = Run("gdm", {"tau": 2.0}), Run("fisher")  # tau outside [0, 1]: a ValueError
    key_bad, key_good = (appkit.ResultKey(ds.fingerprint, r.key) for r in (bad, good))
    pre.submit(ds, [bad, good])
    _wait_stored(store, [key_good])
    pre.wait(key_bad)
    assert store.get(key_bad) is None  # the failure is dropped: a page shows it when it runs
    np.testing.assert_array_equal(store.get(key_good).scores, good.execute(ds).scores)

    # at most `size` waiting, newest first: older requests are dropped
    class Idle(appkit.results._Prefetcher):
        def _loop(self):  # no worker: the queue stays as submit leaves it
            return None

    queue = Idle(appkit.memory.ByteLRU(8))
    r1, r2, r3, r4 = (Run("fisher", {}, seed) for seed in (1, 2, 3, 4))
    queue.submit(ds, [r1, r2, r3])
    assert [r for _, r in queue.todo.values()] == [r1, r2]
    queue.submit(ds, [r4])
    assert [r for _, r in queue.todo.values()] == [r4, r1]
    queue.wait(appkit.ResultKey(ds.fingerprint, r4.key))  # asked for by a page: leaves the queue
    assert [r for _, r in queue.todo.values()] == [r1]
