"""Server memory under uploads: N browser sessions x M uploads against ``FSVIZ_MEMORY_BUDGET``.

Starts ``streamlit run app.py`` headless on 127.0.0.1 with the given budget, opens ``--sessions``
Chromium sessions (Debian's chromium through Playwright) and uploads ``--uploads`` distinct CSV
files of ``--mb`` MiB each, round robin over the sessions, waiting for each Data page to be ready.
The server's resident memory (RSS, with its children) is sampled after every upload, then the
sessions are closed and the RSS is followed for ``--linger`` seconds: does the memory come back?

    python benchmarks/bench_upload_memory.py --sessions 1 --uploads 60 --mb 20 --budget 512M
    python benchmarks/bench_upload_memory.py --sessions 6 --uploads 60 --mb 20 --budget 512M

Prints the date, the load average, one line per 10 uploads and a summary (start, peak, end of
uploads, after closing, the budget). The issue's figures are in docs/app.md.
"""

from __future__ import annotations

import argparse
import datetime
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
from load_test_app import free_port, rss_mib  # one /proc reader for both server benchmarks

ROOT = Path(__file__).resolve().parents[1]
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
ARGS += ["--disable-sync", "--no-first-run", "--disable-quic"]
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'


def csv_bytes(mib: float, seed: int) -> bytes:
    """A labelled table of about ``mib`` MiB: 200 rows, float features, a class column."""
    rng = np.random.default_rng(seed)
    n = 200
    m = max(2, int(mib * (1 << 20) / (n * 19)))
    X = rng.normal(size=(n, m))
    head = ",".join(f"g{j}" for j in range(m)) + ",class\n"
    rows = [",".join(f"{v:.12f}" for v in X[i]) + f",{'ab'[i % 2]}\n" for i in range(n)]
    return (head + "".join(rows)).encode()


def start_server(budget: str, log: Path):
    port = free_port()
    cmd = [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless", "true"]
    cmd += ["--server.address", "127.0.0.1", "--server.port", str(port)]
    cmd += ["--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    env = dict(os.environ, FSVIZ_MEMORY_BUDGET=budget)
    out = open(log, "wb")  # noqa: SIM115 - closed with the server
    proc = subprocess.Popen(
        cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 120
    while True:
        if proc.poll() is not None:
            raise SystemExit(f"streamlit exited: {log.read_text()[-2000:]}")
        try:
            if urllib.request.urlopen(url + "/_stcore/health", timeout=1).read().strip() == b"ok":
                return proc, url
        except OSError:
            if time.time() > deadline:
                raise SystemExit("streamlit did not become healthy") from None
            time.sleep(0.3)


def settle(page) -> None:
    page.wait_for_selector(IDLE, timeout=300_000)
    page.wait_for_timeout(300)
    page.wait_for_selector(IDLE, timeout=300_000)


def open_upload_session(browser, url: str):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    page.set_default_timeout(300_000)
    page.goto(url)
    settle(page)
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_test_id("stRadioGroup").get_by_text("Upload", exact=True).click()
    settle(page)
    return ctx, page


def upload(page, name: str, data: bytes) -> bool:
    """Give the sidebar's data uploader one file; True when the page shows no error."""
    sidebar = page.locator('[data-testid="stSidebar"]')
    box = sidebar.locator('[data-testid="stFileUploader"]').filter(has_text="Data file")
    box.locator('input[type="file"]').set_input_files(
        files=[{"name": name, "mimeType": "text/csv", "buffer": data}]
    )
    settle(page)
    return page.locator('[data-testid="stException"]').count() == 0


def run(sessions: int, uploads: int, mib: float, budget: str, linger: float, quiet: bool = False) -> dict:
    from playwright.sync_api import sync_playwright

    log = Path(os.environ.get("TMPDIR", "/tmp")) / f"bench_upload_memory_{os.getpid()}.log"
    proc, url = start_server(budget, log)
    say = (lambda *a: None) if quiet else print
    out = {"samples": []}
    try:
        time.sleep(2)
        out["start"] = rss_mib(proc.pid)
        files = [(f"upload_{i:03d}.csv", csv_bytes(mib, i)) for i in range(uploads)]
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=ARGS)
            opened = [open_upload_session(browser, url) for _ in range(sessions)]
            out["after_open"] = rss_mib(proc.pid)
            errors = 0
            t0 = time.time()
            for i, (name, data) in enumerate(files):
                _, page = opened[i % sessions]
                errors += not upload(page, name, data)
                r = rss_mib(proc.pid)
                out["samples"].append(r)
                if (i + 1) % 10 == 0 or i + 1 == uploads:
                    say(f"  {i + 1:3d} uploads: server RSS {r:7.0f} MiB ({time.time() - t0:.0f} s)")
            out["errors"] = errors
            out["end_of_uploads"] = rss_mib(proc.pid)
            for ctx, _ in opened:
                ctx.close()
            browser.close()
        t1 = time.time()
        trail = []
        while time.time() - t1 < linger:
            time.sleep(5)
            trail.append(rss_mib(proc.pid))
            if len(trail) % 6 == 0:
                say(f"  {time.time() - t1:4.0f} s after closing: server RSS {trail[-1]:7.0f} MiB")
        out["after_close"] = trail[-1] if trail else rss_mib(proc.pid)
        out["trail"] = trail
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)
    out["peak"] = max(out["samples"]) if out["samples"] else out["start"]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=1)
    ap.add_argument("--uploads", type=int, default=60)
    ap.add_argument("--mb", type=float, default=20.0, help="MiB per uploaded CSV")
    ap.add_argument("--budget", default="512M", help="FSVIZ_MEMORY_BUDGET of the server")
    ap.add_argument(
        "--linger",
        type=float,
        default=200.0,
        help="seconds to follow the RSS after closing (a closed tab's memory comes back once "
        "Streamlit's 120 s reconnect window and the app's 130 s grace have passed)",
    )
    a = ap.parse_args()
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(f"{now}, load average {os.getloadavg()[0]:.1f}: {a.sessions} session(s) x {a.uploads} uploads of "
          f"{a.mb:g} MiB, FSVIZ_MEMORY_BUDGET={a.budget}")  # fmt: skip
    r = run(a.sessions, a.uploads, a.mb, a.budget, a.linger)
    print(
        f"server RSS: start {r['start']:.0f} MiB, sessions open {r['after_open']:.0f}, peak {r['peak']:.0f}, "
        f"end of uploads {r['end_of_uploads']:.0f}, {a.linger:.0f} s after closing "
        f"{r['after_close']:.0f} MiB; "
        f"errors shown: {r['errors']}; load average {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
