"""Runs as cancellable jobs (appkit/jobs.py) and heavy runs on a Dask cluster (appkit/cluster.py).

* Cancel stops a run where it stands, whether it reports progress or not; nothing of it is
  stored and the next run works.
* On a cluster, a cancelled run frees its workers (its pending tasks are dropped) and the
  next run on the same cluster gives the local result.
* With ``FSVIZ_SCHEDULER`` the app sends its heavy runs there: the histogram page's counts
  are the local ones, computed by the cluster's workers.
"""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest

from fsviz.compute import Run
from fsviz.data import Dataset
from fsviz_app.appkit import jobs
from fsviz_app.appkit.state import result_store

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")


def _wait(job, seconds: float) -> None:
    assert job.done.wait(seconds), f"the job did not end within {seconds} s of the cancel"


def test_cancel_stops_a_run_that_reports_no_progress():
    ticks = []

    def spin(progress):  # pure Python, never calls progress: only the asynchronous stop reaches it
        while True:
            ticks.append(1)
            sum(range(1000))

    job = jobs.start("k", "spinning", spin)
    time.sleep(0.3)
    assert job.state == "running"
    job.cancel()
    _wait(job, 5)
    assert job.state == "cancelled" and job.result is None and job.error is None
    n = len(ticks)
    time.sleep(0.2)
    assert len(ticks) == n  # the thread is gone, not merely forgotten
    assert not job.thread.is_alive()


def test_cancel_stops_a_run_at_its_next_progress_step_and_the_next_run_works(rng):
    ds = Dataset(rng.normal(size=(30, 400)), name="wide")
    run = Run("histogram", {"bins": 10, "max_features": 10**6})
    steps = []

    def slow(progress):
        def report(frac, text="", **info):
            steps.append(frac)
            time.sleep(0.05)  # a slow run: each block takes a while
            progress(frac, text, **info)

        return run.execute(ds, report)

    job = jobs.start("h", "histogram", slow)
    job.cancel()
    _wait(job, 10)
    assert job.state == "cancelled" and job.result is None
    again = jobs.start("h", "histogram", lambda progress: run.execute(ds, progress))
    _wait(again, 60)
    assert again.state == "done" and again.result.counts.sum() == 400 * 399 // 2


def test_a_cancelled_run_on_dask_frees_its_workers_and_the_next_one_equals_local(dask_client, rng):
    X = rng.normal(size=(40, 3000))
    run = Run("evaluation", {"of": Run("fisher", {}), "k": 5})  # 5 folds: 5 tasks
    ds = Dataset(X, y=(X[:, 0] > 0).astype(int), name="cluster")
    slow = Run("stability", {"of": Run("gdm", {}), "n_boot": 60})  # 60 GDM fits on the workers

    job = jobs.start("s", "stability", lambda progress: slow.execute(ds, progress, client=dask_client))
    deadline = time.time() + 60
    while not any(dask_client.processing().values()) and time.time() < deadline:
        time.sleep(0.05)
    assert any(dask_client.processing().values()), "the run never reached the workers"
    job.cancel()
    _wait(job, 30)
    assert job.state == "cancelled"
    deadline = time.time() + 30  # a task already running finishes its resample, no other starts
    while time.time() < deadline:
        info = dask_client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks))
        if info == 0 and not any(dask_client.processing().values()):
            break
        time.sleep(0.2)
    assert not any(dask_client.processing().values()), dask_client.processing()
    assert info == 0, f"{info} tasks still on the scheduler"
    local = run.execute(ds)
    remote = run.execute(ds, client=dask_client)
    assert remote.quality == local.quality and remote.redundancy == local.redundancy


def test_the_app_sends_heavy_runs_to_the_scheduler_with_the_local_result(dask_cluster, monkeypatch):
    from fsviz_app.appkit import cluster

    monkeypatch.setenv("FSVIZ_SCHEDULER", dask_cluster.scheduler_address)
    at = AppTest.from_file(APP, default_timeout=180).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.radio(key="compute").value == cluster.SCHEDULER  # the default once a scheduler is named
    client = cluster.client()
    try:
        result_store().data.clear()  # process-wide: another test may hold the histogram
        before = client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.transition_log))
        at.switch_page("fsviz_app/views/correlation_sparsity.py").run()
        assert not at.exception, [e.value for e in at.exception]
        after = client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.transition_log))
        assert after > before  # the histogram's blocks went through the scheduler
        y = json.loads(at.get("plotly_chart")[0].proto.spec)["data"][0]["y"]
        if isinstance(y, dict):  # plotly's typed array
            y = np.frombuffer(base64.b64decode(y["bdata"]), dtype=np.dtype(y["dtype"]))
        bars = np.asarray(y, dtype=float)
        bars = bars[np.isfinite(bars)]
        from fsviz.data import list_samples, load_sample  # the app opens on the digits sample

        name = [n for n in list_samples() if "digit" in n.lower()][0]
        local = Run("histogram", {}).execute(load_sample(name))  # the page's declared defaults
        pct = 100 * local.counts / local.counts.sum()
        np.testing.assert_allclose(bars, pct[pct > 0], rtol=1e-12)
    finally:
        client.close()
        cluster._LINKS.clear()


def test_a_first_run_waits_for_the_background_compilation_of_its_kernels_only():
    """appkit/warmup.py: the kernels compile in another process that says ``start KEY`` and
    ``ready KEY``; a run whose kernels it compiles at that moment waits for them (reporting, so
    Cancel works), other runs do not, and the end of the process releases every wait."""
    import sys

    from fsviz.compute.warm import visit_key
    from fsviz_app.appkit.warmup import WarmUp

    assert visit_key("grm", {"base": Run("fisher", {"k": 3})}) == "grm:fisher"
    assert visit_key("gdm", {"one_class": True, "tau": 0.2}) == "gdm:one_class"
    assert visit_key("gdm", {"one_class": False}) == "gdm"

    def started(w, key):
        t = time.monotonic()
        while w.current != key and time.monotonic() - t < 30:
            time.sleep(0.02)
        assert w.current == key

    script = (
        "import time; print('start gdm', flush=True); time.sleep(1.0); print('ready gdm', flush=True); "
        "print('start grm:fisher', flush=True); time.sleep(1.0)"
    )
    loaded = []
    w = WarmUp([sys.executable, "-c", script], load=lambda: loaded.append(True))
    assert w.compiling
    assert w.wait_for("histogram") < 0.1  # not started by the process: the run compiles its own
    assert "histogram" in w.claims.read_text().split()  # ... and tells the process to skip it
    started(w, "gdm")
    texts = []
    waited = w.wait_for("gdm", lambda frac, text: texts.append(text))
    assert 0.2 < waited < 5 and texts and "compiled in the background" in texts[0]
    assert w.wait_for("gdm") < 0.1  # ready
    started(w, "grm:fisher")
    assert w.wait_for("grm:fisher") < 5  # never said ready: the process's end releases it
    assert w.loaded.wait(5) and loaded == [True] and not w.compiling

    def cancel(frac, text):
        raise jobs.Cancelled

    w2 = WarmUp(
        [sys.executable, "-c", "import time; print('start grm:lgd', flush=True); time.sleep(3)"],
        load=lambda: None,
    )
    started(w2, "grm:lgd")
    with pytest.raises(jobs.Cancelled):
        w2.wait_for("grm:lgd", cancel)


# run as a script (a __main__ guard: Dask's spawned workers later in this process re-run
# the __main__ AppTest left behind, as __mp_main__)
TWICE_SCRIPT = """
import time

import streamlit as st

from fsviz_app.appkit import jobs

if __name__ == "__main__":
    jobs.SHOW_AFTER = 0.0  # every wait draws its box and its Cancel button
    for _ in range(2):  # a failed read asked for again in one script run: a new job, same key
        job = jobs.wait(jobs.submit(("read", "same"), "Reading", lambda _: time.sleep(0.3) or 1))
        jobs.collect(job)
    st.write(f"done {job.state}")
"""


def test_a_job_started_again_under_its_key_in_one_script_run_draws_its_own_cancel_button():
    """Two jobs of one key waited on in one script run each draw a Cancel button: the buttons'
    keys differ (before: one key per job key, a DuplicateWidgetID error on a loaded server)."""
    at = AppTest.from_string(TWICE_SCRIPT, default_timeout=30).run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("done done" in m.value for m in at.markdown)
