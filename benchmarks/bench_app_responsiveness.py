"""Responsiveness of the app in a real browser: a tau change re-renders the group view.

Starts `streamlit run app.py` headless, opens the Groups page in Debian's Chromium
(Playwright), and times, for several new tau values, the wall time from pressing
"Run GDM" (after moving the tau slider) until the group tree shows the new result and the
script is idle. Also times a display-only change (treemap -> sunburst, a fragment rerun)
and a return to an already computed tau (a cache hit), and a live slider step with no Run
click (live tuning). Targets: < 1 s for a tau change; < 0.5 s median for a live step on the
digits sample and on GLIOMA. A live step moves tau by one slider step, which the app
prefetches (``appkit.prefetch_neighbours``): ``--no-prefetch`` starts the app with
``FSVIZ_PREFETCH_SECONDS=0`` so that every live step fits GDM while the page waits.

    python benchmarks/bench_app_responsiveness.py [--sample NAME | --upload GLIOMA.mat] [--repeats 5]
        [--no-prefetch]
    python benchmarks/bench_app_responsiveness.py --shape 300x100000 --kind methylation --source folder

``--kind methylation`` drives issue 45's journey (open, sample sheet, target, GDM, Why not, GRM,
Stability, Compare, export, report) beside the bare library calls: ``app_width_journey.py``.

Not part of CI. Timings on this shared 2-core machine are noisy.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
TITLE_JS = (
    "() => { const e = document.querySelector('.js-plotly-plot .gtitle'); return e ? e.textContent : ''; }"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(port: int, env: dict) -> subprocess.Popen:
    """``streamlit run app.py`` headless on ``port`` (its own process group)."""
    cmd = [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless", "true"]
    cmd += ["--server.address", "127.0.0.1", "--server.port", str(port)]
    cmd += ["--server.fileWatcherType", "none", "--browser.gatherUsageStats", "false"]
    return subprocess.Popen(
        cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )


def wait_health(url: str) -> None:
    for _ in range(300):
        try:
            if urllib.request.urlopen(url + "/_stcore/health", timeout=1).read().strip() == b"ok":
                return
        except OSError:
            time.sleep(0.2)


def set_tau(page, tau: float) -> None:
    slider = page.locator('input[type="range"][aria-label^="tau"]').first
    slider.focus()
    now = float(slider.get_attribute("aria-valuetext"))
    key = "ArrowRight" if tau > now else "ArrowLeft"
    for _ in range(int(round(abs(tau - now) / 0.01))):
        page.keyboard.press(key)


class StaleStep(Exception):  # noqa: N818
    """A live step the app did not apply: its last fit took over a second (results.LIVE_SECONDS)."""


def run_and_wait(page, tau: float, click: bool = True) -> float:
    """Seconds from the Run click (or, live, from the last slider step) until the page shows
    the result for ``tau`` and is idle."""
    t0 = time.perf_counter()
    if click:
        page.get_by_role("button", name="Run GDM").click()
    else:
        page.keyboard.press("ArrowRight")  # one slider step: live tuning applies it at once
    shown = (
        "([t]) => [...document.querySelectorAll('[data-testid=\"stCaptionContainer\"]')].some("
        "e => e.textContent.startsWith('Shown:') && (e.textContent.includes('tau=' + t + ']') ||"
        " e.textContent.includes('tau=' + t + ',')))"
    )
    if click:
        page.wait_for_function(shown, arg=[f"{tau:g}"], polling=10, timeout=600_000)
    else:  # a live step: the new tree, or the stale mark when the last fit took over LIVE_SECONDS
        page.wait_for_function(
            f"([t]) => ({shown})([t]) || document.body.innerText.includes('Stale: the result below')",
            arg=[f"{tau:g}"],
            polling=10,
            timeout=120_000,
        )
        if not page.evaluate(shown, [f"{tau:g}"]):
            raise StaleStep(time.perf_counter() - t0)
    page.wait_for_selector(IDLE, timeout=600_000)
    page.wait_for_function(TITLE_JS, polling=10)
    return time.perf_counter() - t0


def fit_seconds(page) -> float:
    """GDM's own fit time as the page reports it ("GDM fit 0.12 s")."""
    text = page.get_by_text("GDM fit").first.inner_text()
    return float(text.split("GDM fit")[1].split("s")[0])


# ------------------------------------------------------------------------------- at width
def load_text() -> str:
    """``load 1.23 0.98 0.80`` (1, 5, 15 minutes), printed with every figure."""
    a, b, c = os.getloadavg()
    return f"load {a:.2f} {b:.2f} {c:.2f}"


def width_data(n: int, m: int, kind: str, seed: int = 0):
    """Generated data of the issue's shapes: an expression-like dense float32 table (features
    loading on 60 latent factors, two classes from three of them), or sparse counts (5 %
    non-zeros, two classes from 40 informative columns)."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    if kind == "dense":
        F = rng.standard_normal((n, 60)).astype(np.float32)
        X = rng.standard_normal((n, m), dtype=np.float32)
        owner = rng.integers(0, 60, size=m)
        load = rng.uniform(0.0, 2.0, size=m).astype(np.float32)
        for a in range(0, m, 8192):  # block by block: bounded temporaries
            X[:, a : a + 8192] += F[:, owner[a : a + 8192]] * load[a : a + 8192]
        score = F[:, :3] @ np.array([1.0, -1.0, 0.5], dtype=np.float32)
        y = (score > np.median(score)).astype(np.int64)
        return X, y
    nnz = int(0.05 * n * m)
    rows = rng.integers(0, n, size=nnz)
    cols = rng.integers(0, m, size=nnz)
    vals = rng.poisson(2.0, size=nnz).astype(np.float32) + 1
    X = sp.csr_matrix((vals, (rows, cols)), shape=(n, m), dtype=np.float32)
    X.sum_duplicates()
    w = np.zeros(m, dtype=np.float32)
    w[rng.choice(m, 40, replace=False)] = rng.uniform(0.5, 1.5, size=40)
    score = X @ w + 0.3 * rng.standard_normal(n)
    y = (score > np.median(score)).astype(np.int64)
    return X, y


def write_upload(folder: Path, n: int, m: int, kind: str) -> Path:
    """The file a person would upload: a CSV (dense; ``label`` first, 6 significant digits)
    or an .npz (sparse)."""
    from fsviz.data import Dataset

    X, y = width_data(n, m, kind)
    if kind == "dense":
        path = folder / f"expr_{n}x{m}.csv"
        if not path.exists():
            import pandas as pd

            frame = pd.DataFrame(X, columns=[f"g{j}" for j in range(m)])
            frame.insert(0, "label", np.where(y == 1, "tumour", "normal"))
            frame.to_csv(path, index=False, float_format="%.6g")
        return path
    path = folder / f"counts_{n}x{m}.npz"
    if not path.exists():
        Dataset(X, y=y, name=path.stem).save(path)
    return path


def write_folder_file(folder: Path, n: int, m: int, kind: str) -> Path:
    """The server data folder's file: ``.npy`` (dense, memory-mapped) with its labels beside it
    (``<stem>.y.npy``), or an .npz (sparse)."""
    if kind != "dense":
        return write_upload(folder, n, m, kind)
    path = folder / f"expr_{n}x{m}.npy"
    if not path.exists():
        X, y = width_data(n, m, kind)
        np.save(path, X)
        np.save(folder / f"expr_{n}x{m}.y.npy", y)
    return path


def bare_calls(path: Path) -> dict:
    """The library calls the pages make, timed in this process (after one warm-up GDM fit on a
    small slice so that numba compilation is not timed)."""
    import fsviz.compute as fc
    from fsviz.compute import Run
    from fsviz.data import load_dataset

    t = {}
    t0 = time.perf_counter()
    ds = load_dataset(path, **({"missing": "median"} if path.suffix == ".csv" else {}))
    t["load_dataset"] = time.perf_counter() - t0
    small = ds.subset(features=range(min(500, ds.n_features)))
    # warm-up on a slice: numba compiles each kernel once per checkout, not timed here
    Run("gdm", {"one_class": ds.y is None}).execute(small)
    Run("histogram", {"bins": 20, "max_features": 10**9}).execute(small)
    if ds.y is not None:
        base = fc.grm_default_base(ds.target_kind)
        Run("grm", {"base": Run(base, fc.grm_base_params(base))}).execute(small)
    run = Run("gdm", {"one_class": ds.y is None})
    t0 = time.perf_counter()
    run.execute(ds)
    t["gdm fit (default run)"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    run.replace(tau=0.31).execute(ds)
    t["gdm fit (tau 0.31)"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    if ds.n_features <= 30_000:
        Run("histogram", {"bins": 20, "max_features": 10**9}).execute(ds)
        t["exact histogram"] = time.perf_counter() - t0
    else:  # all pairs take minutes: the page's default there is the sampled estimate
        Run("histogram", {"bins": 20, "max_features": 30_000}).execute(ds)
        t["histogram estimate (page default)"] = time.perf_counter() - t0
    if ds.y is not None:
        base = fc.grm_default_base(ds.target_kind)
        grm = Run("grm", {"base": Run(base, fc.grm_base_params(base))})
        t0 = time.perf_counter()
        grm.execute(ds)
        t["grm defaults (base + GRM, no CV)"] = time.perf_counter() - t0
    t["_shape"] = ds.X.shape
    return t


def bare_results(path: Path) -> dict:
    """GDM's groups and the histogram's counts on ``path``, computed here (the local reference)."""
    from fsviz.compute import Run
    from fsviz.data import load_dataset

    ds = load_dataset(path, **({"missing": "median"} if path.suffix == ".csv" else {}))
    # parameters the timed part did not use: the app's result store must not answer for the cluster
    gdm = Run("gdm", {"one_class": ds.y is None, "tau": 0.27}).execute(ds)
    hist = Run("histogram", {"bins": 50, "max_features": 30_000}).execute(ds)
    return {"sf": len(gdm.support), "af": len(gdm.af), "n_corr": gdm.n_correlations, "hist": hist}


def dask_checks(page, path: Path, ref: dict) -> dict:
    """On a 2-worker LocalCluster started from the app: GDM and the histogram equal the local
    results, and a cancelled run frees the workers (time until no task is left)."""
    from distributed import Client

    out = {}
    sb = page.locator('[data-testid="stSidebar"]')
    sb.get_by_text("Compute", exact=True).click()
    sb.get_by_test_id("stRadioGroup").get_by_text("local Dask cluster", exact=True).click()
    page.wait_for_function("() => document.body.innerText.includes('workers, ')", timeout=300_000)
    wait_idle(page)
    text = sb.get_by_text("workers, ").first.inner_text()
    address = re.search(r"at (tcp://[0-9.:]+)", text).group(1)
    client = Client(address, set_as_default=False)
    try:
        page.get_by_role("link", name="Groups (GDM)", exact=True).click()
        page.wait_for_selector("h1:has-text('Groups (GDM)')")
        wait_idle(page)
        set_tau(page, 0.27)
        before = client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.transition_log))
        page.get_by_role("button", name="Run GDM").click()
        wait_idle(page)
        page.wait_for_function(TITLE_JS, timeout=600_000)
        after = client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.transition_log))

        def metric(label):
            box = page.locator('[data-testid="stMetric"]').filter(has_text=label).first
            return int(box.locator('[data-testid="stMetricValue"]').inner_text().replace(",", ""))

        same = (metric("support features"), metric("affiliated features"), metric("correlations computed"))
        want = (ref["sf"], ref["af"], ref["n_corr"])
        print(f"Dask GDM: {same} (SF, AF, correlations) vs local {want}; on the cluster: {after > before}")
        out["Dask GDM equals local (1 = yes)"] = (float(same == want), 0)
        page.get_by_role("link", name="Correlation sparsity", exact=True).click()
        page.wait_for_selector("h1:has-text('Correlation sparsity')")
        wait_idle(page)
        bins = page.locator('[data-testid="stSlider"]').filter(has_text="intervals on").get_by_role("slider")
        bins.focus()
        page.keyboard.press("ArrowRight")  # 20 -> 50 intervals
        wait_idle(page)
        before = client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.transition_log))
        page.get_by_role("button", name="Count pairs").click()
        page.wait_for_function(
            "() => [...document.querySelectorAll('.js-plotly-plot .gtitle')]"
            ".some(e => e.textContent.includes('|'))",
            timeout=600_000,
        )
        wait_idle(page)
        after = client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.transition_log))
        bars = page.evaluate(
            "() => Array.from(document.querySelector('.js-plotly-plot')._fullData[0].y,"
            " v => (v === v ? v : null))"
        )
        h = ref["hist"]
        pct = 100 * h.counts / h.counts.sum()
        got = np.array([np.nan if v is None else v for v in bars], dtype=float)
        want = np.where(pct > 0, pct, np.nan)
        equal = np.allclose(got, want, rtol=1e-12, equal_nan=True)
        print(f"Dask histogram equals local: {equal}; on the cluster: {after > before}")
        out["Dask histogram equals local (1 = yes)"] = (float(equal), 0)
        # a long run, cancelled: how long until the workers hold no task
        page.get_by_role("link", name="Stability (bootstrap)", exact=True).click()
        page.wait_for_selector("h1:has-text('Stability')")
        wait_idle(page)
        box = page.locator('[data-testid="stSlider"]').filter(has_text="bootstrap resamples")
        box.get_by_role("slider").focus()
        page.keyboard.press("End")
        wait_idle(page)
        page.get_by_role("button", name="Resample").click()
        deadline = time.time() + 300
        while not any(client.processing().values()) and time.time() < deadline:
            time.sleep(0.05)
        time.sleep(2)
        busy = sum(len(v) for v in client.processing().values())
        t0 = time.perf_counter()
        page.get_by_role("button", name="Cancel").click()
        while any(client.processing().values()) and time.perf_counter() - t0 < 120:
            time.sleep(0.05)
        freed = time.perf_counter() - t0
        left = client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks))
        print(
            f"Dask cancel: {busy} tasks processing at the click; workers idle {freed:.2f} s later, "
            f"{left} tasks left"
        )
        out["Dask cancel -> workers idle"] = (freed, 0)
        wait_idle(page)
    finally:
        client.close()
    return out


class Frames:
    """Bytes of the WebSocket frames the server sent since :meth:`mark`."""

    def __init__(self, page):
        self.sizes: list[int] = []
        page.on("websocket", lambda ws: ws.on("framereceived", self._got))

    def _got(self, payload) -> None:
        self.sizes.append(len(payload) if payload is not None else 0)

    def mark(self) -> int:
        return len(self.sizes)

    def since(self, mark: int) -> int:
        return sum(self.sizes[mark:])


def wait_idle(page) -> None:
    page.wait_for_selector(IDLE, timeout=600_000)
    page.wait_for_timeout(150)
    page.wait_for_selector(IDLE, timeout=600_000)


def width_main(a) -> int:
    import datetime

    if a.kind == "methylation":  # issue 45's table: its own module (this one is near 800 lines)
        import app_width_journey

        return app_width_journey.main(a)

    from playwright.sync_api import sync_playwright

    n, m = (int(v) for v in a.shape.lower().split("x"))
    work = Path(a.workdir)
    work.mkdir(parents=True, exist_ok=True)
    path = write_folder_file(work, n, m, a.kind) if a.source == "folder" else write_upload(work, n, m, a.kind)
    print(
        f"{datetime.datetime.now().isoformat(timespec='seconds')}  {load_text()}  data: {path.name} "
        f"({path.stat().st_size / 2**20:.1f} MiB), {a.kind}, source {a.source}"
    )
    bare = bare_calls(path)
    shape = bare.pop("_shape")
    print(f"bare library calls on {shape[0]} x {shape[1]} ({load_text()}):")
    for k, v in bare.items():
        print(f"  {k:38s} {v:8.2f} s")
    env = os.environ | {"FSVIZ_DATA_DIR": str(work)}
    port = free_port()
    proc = start_app(port, env)
    url = f"http://127.0.0.1:{port}"
    out: dict[str, object] = {}
    peak = [0]
    stop = [False]

    def watch_memory():
        import psutil

        p = psutil.Process(proc.pid)
        while not stop[0]:
            try:
                rss = p.memory_info().rss + sum(c.memory_info().rss for c in p.children(recursive=True))
                peak[0] = max(peak[0], rss)
            except Exception:
                pass
            time.sleep(0.1)

    import threading

    threading.Thread(target=watch_memory, daemon=True).start()
    spy = None
    if a.profile:  # py-spy samples every thread of the server: collapsed stacks for flame graphs
        spy = subprocess.Popen(
            [
                "py-spy",
                "record",
                "-p",
                str(proc.pid),
                "-r",
                "50",
                "--threads",
                "--nonblocking",
                "-f",
                "raw",
                "-o",
                a.profile,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    try:
        wait_health(url)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(600_000)
            frames = Frames(page)
            page.goto(url)
            wait_idle(page)
            sb = page.locator('[data-testid="stSidebar"]')
            mk = frames.mark()
            if a.source == "upload":
                sb.get_by_test_id("stRadioGroup").get_by_text("Upload", exact=True).click()
                wait_idle(page)
                t0 = time.perf_counter()
                mk = frames.mark()
                sb.locator('input[type="file"]').first.set_input_files(str(path))
            else:
                sb.get_by_test_id("stRadioGroup").get_by_text("Server folder", exact=True).click()
                wait_idle(page)
                t0 = time.perf_counter()
                mk = frames.mark()
                box = sb.locator('[data-testid="stSelectbox"]').filter(has_text="Server file").first
                box.click()
                page.get_by_role("option", name=re.compile(re.escape(path.name))).first.click()
            page.wait_for_function(
                f"() => document.body.innerText.includes('Active: {path.stem}')", timeout=600_000
            )
            page.wait_for_selector('[data-testid="stMetric"]', timeout=600_000)
            wait_idle(page)
            out["open file -> ready Data page"] = (time.perf_counter() - t0, frames.since(mk))
            # Groups: the first tree
            mk = frames.mark()
            t0 = time.perf_counter()
            page.get_by_role("link", name="Groups (GDM)", exact=True).click()
            page.wait_for_selector("h1:has-text('Groups (GDM)')")
            wait_idle(page)
            if page.get_by_text("and press Run GDM").count():  # large data: no run on arrival
                t0 = time.perf_counter()
                page.get_by_role("button", name="Run GDM").click()
            page.wait_for_function(TITLE_JS, timeout=600_000, polling=20)
            wait_idle(page)
            out["Groups page -> first tree"] = (time.perf_counter() - t0, frames.since(mk))
            out["  of which GDM fit (page's own figure)"] = (fit_seconds(page), 0)
            nodes = page.evaluate(
                "() => { const d = document.querySelector('.js-plotly-plot'); "
                "return d && d.data ? d.data[0].ids.length : -1; }"
            )
            out["treemap nodes"] = (float(nodes), 0)
            # one Run click with a new tau first: live tuning applies once the result shown was
            # quick (the first run in a fresh server may not be)
            set_tau(page, 0.31)
            out["Run click, new tau"] = (run_and_wait(page, 0.31), 0)
            live, sizes = [], []
            slider = page.locator('input[type="range"][aria-label^="tau"]').first
            stale = 0
            for _ in range(a.repeats):
                slider.focus()
                now = float(slider.get_attribute("aria-valuetext"))
                mk = frames.mark()
                try:
                    live.append(run_and_wait(page, round(now + 0.01, 2), click=False))
                except StaleStep:  # the app said the last fit was too slow to follow the slider
                    stale += 1
                    run_and_wait(page, round(now + 0.01, 2))  # Run, to go on from the new value
                    continue
                sizes.append(frames.since(mk))
            if live:
                out["tau step (live), median"] = (statistics.median(live), int(statistics.median(sizes)))
                out["tau step (live), max"] = (max(live), max(sizes))
            if stale:
                out["tau steps not live (last fit > 1 s)"] = (float(stale), 0)
            # Correlation sparsity: to the figure
            mk = frames.mark()
            t0 = time.perf_counter()
            page.get_by_role("link", name="Correlation sparsity", exact=True).click()
            page.wait_for_selector("h1:has-text('Correlation sparsity')")
            wait_idle(page)
            if (
                page.get_by_text("Press **Count pairs**").count()
                or page.get_by_text("Press Count pairs").count()
            ):
                t0 = time.perf_counter()
                page.get_by_role("button", name="Count pairs").click()
            page.wait_for_function(
                "() => [...document.querySelectorAll('.js-plotly-plot .gtitle')].some("
                "e => e.textContent.includes('|'))",
                timeout=600_000,
                polling=20,
            )
            out["Correlation page -> histogram drawn"] = (time.perf_counter() - t0, frames.since(mk))
            wait_idle(page)
            out["Correlation page -> idle"] = (time.perf_counter() - t0, frames.since(mk))
            # GRM: first result
            if bare.get("grm defaults (base + GRM, no CV)") is not None:
                mk = frames.mark()
                t0 = time.perf_counter()
                page.get_by_role("link", name="GRM refinement", exact=True).click()
                page.wait_for_selector("h1:has-text('GRM refinement')")
                wait_idle(page)
                if page.get_by_text("press Run GRM").count():
                    t0 = time.perf_counter()
                    page.get_by_role("button", name="Run GRM").click()
                page.wait_for_function(
                    "() => document.body.innerText.includes('Shown: GRM')", timeout=600_000, polling=20
                )
                out["GRM page -> first result"] = (time.perf_counter() - t0, frames.since(mk))
                wait_idle(page)
                out["GRM page -> idle (CV done)"] = (time.perf_counter() - t0, frames.since(mk))
            if a.dask:
                try:
                    out |= dask_checks(page, path, bare_results(path))
                except Exception as e:  # the timings above still print
                    print(f"Dask checks failed: {type(e).__name__}: {e}")
            browser.close()
    finally:
        stop[0] = True
        if spy is not None:
            spy.send_signal(signal.SIGINT)
            spy.wait(timeout=60)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
    print(f"app in Chromium ({load_text()}), server memory peak {peak[0] / 2**20:.0f} MiB:")
    for k, (sec, nbytes) in out.items():
        if k in ("treemap nodes", "tau steps not live (last fit > 1 s)"):
            print(f"  {k:38s} {sec:8.0f}")
        else:
            print(f"  {k:38s} {sec:8.2f} s   {nbytes / 1024:9.1f} KiB over the websocket")
    targets = [("tau step (live), median", None, 0.5 if a.source == "upload" else 1.0, "s")]
    if a.source == "upload":
        targets += [
            ("Correlation page -> histogram drawn", "exact histogram", 1.5, "x"),
            ("GRM page -> first result", None, 3.0, "s"),
            ("open file -> ready Data page", "load_dataset", 2.0, "x"),
        ]
    else:
        targets += [("Groups page -> first tree", "gdm fit (default run)", 2.0, "x")]
    if a.source == "folder":
        data_mib = shape[0] * shape[1] * 8 / 2**20  # X as the app holds it (float64 in memory)
        extra = peak[0] / 2**20 - data_mib
        verdict = "met" if extra <= 1024 else "NOT met"
        print(
            f"  server memory peak {peak[0] / 2**20:.0f} MiB = data {data_mib:.0f} MiB + {extra:.0f} MiB "
            f"(target <= data + 1 GiB): {verdict}{' (Dask workers included)' if a.dask else ''}"
        )
    print(f"targets ({load_text()}; they count at load < 2):")
    for key, ref, limit, unit in targets:
        if key not in out:
            continue
        sec = out[key][0]
        if unit == "x":
            ratio = sec / bare[ref]
            verdict = "met" if ratio <= limit else "NOT met"
            print(f"  {key:38s} {ratio:6.2f}x {ref} (target <= {limit}x): {verdict}")
        else:
            print(f"  {key:38s} {sec:6.2f} s (target <= {limit} s): {'met' if sec <= limit else 'NOT met'}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sample", default=None, help="sample name (default: the app's default sample)")
    ap.add_argument("--upload", default=None, help="a data file to upload instead (e.g. GLIOMA.mat)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--no-prefetch", action="store_true", help="live steps compute (no neighbour prefetch)")
    ap.add_argument(
        "--shape", default=None, help="generated data at width, e.g. 120x25000 (the issue's shapes)"
    )
    ap.add_argument(
        "--kind",
        default="dense",
        choices=["dense", "sparse", "methylation"],
        help="with --shape; methylation: issue 45's journey, every step beside its bare library call",
    )
    ap.add_argument("--no-bare", action="store_true", help="with --kind methylation: the app's side only")
    ap.add_argument("--source", default="upload", choices=["upload", "folder"], help="with --shape")
    ap.add_argument("--dask", action="store_true", help="with --shape: also on a LocalCluster from the app")
    ap.add_argument("--profile", default=None, help="with --shape: py-spy's collapsed stacks of the server")
    ap.add_argument("--workdir", default="/tmp/fsviz-bench-width", help="with --shape: where the files go")
    a = ap.parse_args()
    if a.shape:
        return width_main(a)
    from playwright.sync_api import sync_playwright

    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            str(ROOT / "app.py"),
            "--server.headless",
            "true",
            "--server.address",
            "127.0.0.1",
            "--server.port",
            str(port),
            "--server.fileWatcherType",
            "none",
            "--browser.gatherUsageStats",
            "false",
        ],
        cwd=ROOT,
        env=os.environ | ({"FSVIZ_PREFETCH_SECONDS": "0"} if a.no_prefetch else {}),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                if urllib.request.urlopen(url + "/_stcore/health", timeout=1).read().strip() == b"ok":
                    break
            except OSError:
                time.sleep(0.2)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(120_000)
            page.goto(url)
            page.wait_for_selector(IDLE)
            if a.sample:
                sb = page.locator('[data-testid="stSidebar"]')
                sb.locator('[data-testid="stSelectbox"]').first.click()
                page.get_by_role("option", name=a.sample, exact=True).click()
                page.wait_for_selector(IDLE)
            if a.upload:
                sb = page.locator('[data-testid="stSidebar"]')
                sb.get_by_test_id("stRadioGroup").get_by_text("Upload", exact=True).click()
                page.wait_for_selector(IDLE)
                sb.locator('input[type="file"]').first.set_input_files(a.upload)
                page.wait_for_function(
                    f"() => document.body.innerText.includes('Active: {Path(a.upload).stem}')",
                    timeout=300_000,
                )
                page.wait_for_selector(IDLE)
            page.get_by_role("link", name="Groups (GDM)", exact=True).click()
            page.wait_for_selector(IDLE)
            page.wait_for_function(TITLE_JS, timeout=120_000)  # default run (includes warm-up)
            active = page.locator('[data-testid="stSidebar"]').get_by_text("Active:").inner_text()
            # warm-up: one new tau so that first-call compilation is not timed
            set_tau(page, 0.31)
            run_and_wait(page, 0.31)
            taus = [0.32 + 0.03 * i for i in range(a.repeats)]
            new, fits = [], []
            for tau in taus:
                set_tau(page, tau)
                new.append(run_and_wait(page, round(tau, 2)))
                fits.append(fit_seconds(page))
            live = []  # slider steps with no Run click (live tuning: the last run was cheap)
            slider = page.locator('input[type="range"][aria-label^="tau"]').first
            for _ in range(a.repeats):
                slider.focus()
                now = float(slider.get_attribute("aria-valuetext"))
                live.append(run_and_wait(page, round(now + 0.01, 2), click=False))
            cached = []
            for tau in taus[:3]:  # back to computed values: cache hits
                set_tau(page, tau)
                cached.append(run_and_wait(page, round(tau, 2)))
            radio = page.get_by_text("sunburst", exact=True)
            t0 = time.perf_counter()
            radio.click()
            page.wait_for_function(
                "() => document.querySelector('.js-plotly-plot .sunburstlayer') !== null", polling=10
            )
            page.wait_for_selector(IDLE)
            display = time.perf_counter() - t0
            browser.close()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
    print(f"dataset: {active}; neighbour prefetch {'off' if a.no_prefetch else 'on'}")
    print(
        f"new tau (GDM recomputed), {len(new)} runs: median {statistics.median(new):.3f} s, "
        f"max {max(new):.3f} s  -> target < 1 s: {'met' if statistics.median(new) < 1 else 'NOT met'}"
    )
    overhead = [a - b for a, b in zip(new, fits, strict=False)]
    print(
        f"  of which GDM.fit: median {statistics.median(fits):.3f} s; app + browser: median "
        f"{statistics.median(overhead):.3f} s"
    )
    print(
        f"live slider step (no Run click), {len(live)} runs: median {statistics.median(live):.3f} s, "
        f"max {max(live):.3f} s  -> target < 0.5 s: {'met' if statistics.median(live) < 0.5 else 'NOT met'}"
    )
    print(f"computed tau again (cache hit), {len(cached)} runs: median {statistics.median(cached):.3f} s")
    print(f"display-only change (treemap -> sunburst, fragment rerun): {display:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
