"""Load test of the app (not in CI): several real browser sessions on different datasets.

Starts ``streamlit run app.py`` on 127.0.0.1, opens ``--sessions`` Chromium sessions (Debian's
chromium through Playwright), gives each its own dataset (the bundled samples, then uploads of
the scikit-feature sets), and for ``--minutes`` visits the pages round robin. Every visit
checks that no exception box is shown and that the session still sees only its own dataset.
The server's resident memory is sampled every few seconds.

    python benchmarks/load_test_app.py --sessions 8 --minutes 5

Prints one line per minute and a summary: visits, errors, page times, server memory over time.
Only local addresses are contacted; the loop is bounded by ``--minutes``.
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

ROOT = Path(__file__).resolve().parents[1]
DATASETS = Path(os.environ.get("FSVIZ_DATASETS", ROOT.parent / "shared" / "datasets" / "skfeature"))
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
ARGS += ["--disable-sync", "--no-first-run", "--disable-quic"]
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
PAGES = ["Data", "Groups (GDM)", "Image masks", "Correlation sparsity", "GRM refinement", "Online (SAOLA)"]
PAGES += ["Projection (PCA)", "Stability (bootstrap)", "Compare and export"]
UPLOADS = ["GLIOMA", "ORL", "ALLAML", "COIL20", "Yale", "colon", "lung_small", "warpPIE10P"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mib(pid: int) -> float:
    """Resident memory of a process and its children (MiB), from /proc."""
    total = 0
    pids = [pid]
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if children.exists():
        pids += [int(p) for p in children.read_text().split()]
    for p in pids:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def settle(page) -> None:
    page.wait_for_selector(IDLE, timeout=300_000)
    page.wait_for_timeout(300)
    page.wait_for_selector(IDLE, timeout=300_000)


def open_session(browser, url: str, dataset: str, is_sample: bool):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    page.set_default_timeout(300_000)
    page.goto(url)
    settle(page)
    sidebar = page.locator('[data-testid="stSidebar"]')
    if is_sample:
        box = sidebar.locator('[data-testid="stSelectbox"]').filter(has_text="Sample dataset")
        box.click()
        page.get_by_role("option", name=dataset, exact=True).click()
    else:
        sidebar.get_by_test_id("stRadioGroup").get_by_text("Upload", exact=True).click()
        settle(page)
        sidebar.locator('input[type="file"]').first.set_input_files(str(DATASETS / f"{dataset}.mat"))
    settle(page)
    page.wait_for_function(f"() => document.body.innerText.includes('Active: {dataset}')", timeout=300_000)
    return ctx, page


def main() -> int:
    from playwright.sync_api import sync_playwright

    from fsviz.data import list_samples

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=8)
    ap.add_argument("--minutes", type=float, default=5.0)
    a = ap.parse_args()
    datasets = [(n, True) for n in list_samples()] + [
        (n, False) for n in UPLOADS if (DATASETS / f"{n}.mat").exists()
    ]
    datasets = datasets[: a.sessions]
    port = free_port()
    cmd = [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless", "true"]
    cmd += [
        "--server.address",
        "127.0.0.1",
        "--server.port",
        str(port),
        "--browser.gatherUsageStats",
        "false",
    ]
    server = subprocess.Popen(
        cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True
    )
    url = f"http://127.0.0.1:{port}"
    memory: list[tuple[float, float]] = []
    times: list[float] = []
    errors: list[str] = []
    try:
        for _ in range(300):
            try:
                if urllib.request.urlopen(url + "/_stcore/health", timeout=1).read().strip() == b"ok":
                    break
            except OSError:
                time.sleep(0.3)
        t0 = time.monotonic()
        memory.append((0.0, rss_mib(server.pid)))
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=ARGS)
            sessions = []
            for name, is_sample in datasets:
                sessions.append((name, *open_session(browser, url, name, is_sample)))
                memory.append((time.monotonic() - t0, rss_mib(server.pid)))
                print(f"session on {name} open; server {memory[-1][1]:.0f} MiB", flush=True)
            deadline = time.monotonic() + 60 * a.minutes
            visit, last_report = 0, time.monotonic()
            while time.monotonic() < deadline:
                name, _, page = sessions[visit % len(sessions)]
                target = PAGES[(visit // len(sessions)) % len(PAGES)]
                t = time.perf_counter()
                page.get_by_role("link", name=target, exact=True).first.click()
                settle(page)
                times.append(time.perf_counter() - t)
                if page.locator('[data-testid="stException"]').count():
                    errors.append(f"{name} / {target}: exception shown")
                active = re.search(r"Active: (\S+)", page.locator('[data-testid="stSidebar"]').inner_text())
                if not active or active.group(1) != name:
                    errors.append(f"{name} / {target}: sees {active.group(1) if active else 'nothing'}")
                visit += 1
                if time.monotonic() - last_report > 10:
                    memory.append((time.monotonic() - t0, rss_mib(server.pid)))
                    last_report = time.monotonic()
                    print(
                        f"{memory[-1][0]:6.0f} s: {visit} visits, {len(errors)} errors, "
                        f"server {memory[-1][1]:.0f} MiB",
                        flush=True,
                    )
            for _, ctx, _ in sessions:
                ctx.close()
            browser.close()
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    print(f"\n{len(datasets)} sessions, {a.minutes:g} min: {len(times)} page visits, {len(errors)} errors")
    for e in errors[:20]:
        print("  error:", e)
    if times:
        print(f"page time: median {statistics.median(times):.2f} s, max {max(times):.2f} s")
    mem = [m for _, m in memory]
    print(
        f"server memory (MiB): start {mem[0]:.0f}, after opening {mem[len(datasets)]:.0f}, "
        f"max {max(mem):.0f}, end {mem[-1]:.0f}"
    )
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
