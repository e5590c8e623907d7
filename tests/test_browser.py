"""The app in a real browser: `streamlit run app.py` driven by Playwright on Debian's Chromium.

Visits every page, moves the tau slider and sees the group tree change, uploads a CSV, and
downloads the export to compare it with the library's own result. Screenshots go to a
temporary directory (printed; kept by pytest's tmp_path_factory).
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytestmark = pytest.mark.browser
playwright = pytest.importorskip("playwright.sync_api")

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
CONNECTED = '[data-testid="stApp"][data-test-connection-state="CONNECTED"]'
#: navigation name -> the page's title
PAGES = {
    "Data": "Data",
    "Groups (GDM)": "Groups (GDM)",
    "Image masks": "Image masks",
    "Correlation sparsity": "Correlation sparsity",
    "GRM refinement": "GRM refinement",
    "Online (SAOLA)": "Online selection (SAOLA)",
    "Projection (PCA)": "Projection (PCA)",
    "Compare and export": "Compare and export",
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = _free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
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
            "--browser.gatherUsageStats",
            "false",
            "--server.fileWatcherType",
            "none",
        ],
        cwd=ROOT,
        stdout=open(log, "wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 90
        while True:
            assert proc.poll() is None, f"streamlit exited: {log.read_text()[-2000:]}"
            try:
                if urllib.request.urlopen(url + "/_stcore/health", timeout=1).read().strip() == b"ok":
                    break
            except OSError:
                assert time.time() < deadline, "streamlit did not become healthy in 90 s"
                time.sleep(0.3)
        yield url
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=20)


@pytest.fixture(scope="module")
def browser(chromium_path):
    with playwright.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium_path, headless=True, args=ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    d = tmp_path_factory.mktemp("screenshots")
    print(f"screenshots in {d}")
    return d


@pytest.fixture
def page(browser, server):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    p = ctx.new_page()
    p.set_default_timeout(120_000)
    p.goto(server)
    settle(p)
    yield p
    ctx.close()


def settle(page) -> None:
    """Wait until the script run is over and charts in view have drawn."""
    page.wait_for_selector(CONNECTED)
    page.wait_for_selector(IDLE)
    page.wait_for_timeout(400)
    page.wait_for_selector(IDLE)


def goto(page, name: str) -> None:
    page.get_by_role("link", name=name, exact=True).first.click()
    page.wait_for_function(
        "([t]) => { const h = document.querySelector('h1'); return h && h.innerText.trim() === t; }",
        arg=[PAGES[name]],
    )
    settle(page)


def charts_drawn(page) -> int:
    """Scroll every plotly chart into view (they load lazily) and count the drawn ones."""
    charts = page.locator('[data-testid="stPlotlyChart"]')
    try:
        page.wait_for_selector('[data-testid="stPlotlyChart"]', timeout=15_000)
    except playwright.Error:
        return 0
    settle(page)
    for i in range(charts.count()):
        charts.nth(i).scroll_into_view_if_needed()
        page.wait_for_timeout(200)
    if charts.count():
        page.wait_for_selector(".js-plotly-plot .main-svg", timeout=30_000)
    return page.locator(".js-plotly-plot").count()


def tree_title(page) -> str:
    page.locator('[data-testid="stPlotlyChart"]').first.scroll_into_view_if_needed()
    loc = page.locator(".js-plotly-plot .gtitle").first
    loc.wait_for(timeout=30_000)
    return loc.text_content()


def test_every_page_renders(page, shots):
    for name in PAGES:
        goto(page, name)
        assert page.locator("h1").first.inner_text().strip(), name
        assert page.locator('[data-testid="stException"]').count() == 0, name
        n_charts = charts_drawn(page)
        if name not in ("Data",):
            assert n_charts >= 1, f"{name}: no chart drawn"
        page.screenshot(
            path=str(shots / (re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_") + ".png")), full_page=True
        )


def test_tau_slider_changes_the_group_tree(page, shots):
    goto(page, "Groups (GDM)")
    before = tree_title(page)
    slider = page.locator('input[type="range"][aria-label^="tau"]').first
    slider.focus()
    for _ in range(30):  # tau 0.30 -> 0.60 (step 0.01)
        page.keyboard.press("ArrowRight")
    assert float(slider.get_attribute("aria-valuetext")) == pytest.approx(0.6)
    page.get_by_role("button", name="Run GDM").click()
    settle(page)
    page.wait_for_function(
        "([t]) => { const e = document.querySelector('.js-plotly-plot .gtitle');"
        " return e && e.textContent !== t; }",
        arg=[before],
        timeout=60_000,
    )
    assert tree_title(page) != before
    assert "tau=0.6" in page.get_by_text("Shown:").first.inner_text()
    page.screenshot(path=str(shots / "groups_tau_0.6.png"), full_page=True)


def test_upload_csv(page, tmp_path):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 7))
    frame = pd.DataFrame(X, columns=[f"gene{i}" for i in range(7)])
    frame["label"] = (X[:, 0] + X[:, 1] > 0).astype(int)
    path = tmp_path / "upload.csv"
    frame.to_csv(path, index=False)
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_text("Upload", exact=True).click()
    settle(page)
    sidebar.locator('input[type="file"]').set_input_files(str(path))
    settle(page)
    label = sidebar.get_by_role("textbox", name="Label column (name or position; empty = automatic)")
    label.fill("label")
    label.press("Enter")
    settle(page)
    page.wait_for_function(
        "() => document.body.innerText.includes('80 samples × 7 features')", timeout=60_000
    )
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator('[data-testid="stMetricValue"]').nth(1).inner_text().strip() == "7"


def test_download_matches_the_library(page, tmp_path):
    import appkit
    from fsviz.data import list_samples, load_sample
    from fsviz.select import GDM

    goto(page, "Groups (GDM)")
    tree_title(page)
    goto(page, "Compare and export")
    with page.expect_download() as info:
        page.get_by_text("Selection CSV", exact=False).first.click()
    got = pd.read_csv(info.value.path())
    with page.expect_download() as info2:
        page.get_by_text("Reduced dataset CSV", exact=False).first.click()
    reduced = pd.read_csv(info2.value.path())

    names = list(list_samples())
    ds = load_sample(names[appkit.default_sample(names)])
    est = GDM(**appkit.GDM_DEFAULTS, random_state=0).fit(ds.X, ds.y)
    sf = got[got["role"] == "SF"]
    assert list(sf["index"]) == [int(i) for i in est.support_]
    for s, afs in est.groups_.items():
        rows = got[(got["role"] == "AF") & (got["group"] == int(s))]
        assert sorted(rows["index"]) == sorted(int(a) for a in afs)
    assert list(got["name"]) == [str(ds.feature_names[i]) for i in got["index"]]
    X = np.asarray(ds.X.toarray() if hasattr(ds.X, "toarray") else ds.X, dtype=np.float64)
    assert list(reduced.columns[:-1]) == list(got["name"])
    assert (
        reduced.iloc[:, :-1].to_numpy(dtype=np.float64).tobytes()
        == np.ascontiguousarray(X[:, got["index"]]).tobytes()
    )
    np.testing.assert_array_equal(reduced["label"].to_numpy(), np.asarray(ds.y))


def test_face_upload_highlights_one_group(page, shots, skfeature_path):
    """ORL faces uploaded as .mat: 32 x 32 masks; highlighting the largest group fades the others."""
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_text("Upload", exact=True).click()
    settle(page)
    sidebar.locator('input[type="file"]').set_input_files(str(skfeature_path("ORL")))
    settle(page)
    page.wait_for_function(
        "() => document.body.innerText.includes('400 samples × 1,024 features')", timeout=60_000
    )
    goto(page, "Image masks")
    assert page.locator('[data-testid="stException"]').count() == 0
    assert charts_drawn(page) >= 1
    box = page.locator('[data-testid="stSelectbox"]').filter(has_text="highlight group")
    box.click()
    page.get_by_role("option").nth(1).click()  # the largest group
    settle(page)
    page.wait_for_function(
        "() => [...document.querySelectorAll('.js-plotly-plot .gtitle')]"
        ".some(e => e.textContent.includes('highlighted, the others faded'))",
        timeout=60_000,
    )
    assert page.locator('[data-testid="stException"]').count() == 0
    page.screenshot(path=str(shots / "orl_highlight.png"), full_page=True)
