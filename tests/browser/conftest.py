"""Fixtures of the real-browser tests: one Streamlit server and one Chromium profile per session.

Every test module in ``tests/browser/`` gets these by name, without imports (pytest's conftest):

- ``server``: the URL of ``streamlit run app.py`` (headless, a free 127.0.0.1 port), started
  once per session on first use and stopped at the end; its data folder (``FSVIZ_DATA_DIR``)
  is ``data_folder``, and ``read_log`` its ``FSVIZ_READ_LOG`` (a line per file parsed);
- ``page``: a new tab per test on ``server`` (its own Streamlit session and downloads), settled,
  closed after the test; the tabs belong to one Chromium profile kept for the session (its HTTP
  and code caches make every page load after the first cheaper), so they share cookies;
- ``browser``: Debian's Chromium through Playwright, launched once per session on first use:
  ``browser.new_context(...)`` for a test that needs a user of its own (no shared cookies) or
  an offline context;
- ``shots``: the session's screenshot folder (printed; kept by pytest's tmp_path_factory);
- ``start_server``: ``with start_server(tmp_path, env) as url:`` a separate, fresh server (for
  what only a fresh process shows, or another ``FSVIZ_MEMORY_BUDGET``; ``url.pid`` is its
  process; it costs a server start, so use ``server`` otherwise);
- helpers, as fixtures returning functions: ``settle(page)``, ``goto(page, name)``,
  ``charts_drawn(page)``, ``tree_title(page)``, ``upload(page, path)``, ``pick(page, label,
  option)``, and ``nav_pages`` (navigation name -> page title).

Pages hold still: every context prefers reduced motion and has CSS animations and transitions
switched off (``STILL``). A headless Chromium otherwise draws every frame of Streamlit's running
indicators and fades while a test waits for a script run: measured over the browser tests of
``make test``, 306 CPU-s (Chromium's GPU process 29 of them) with them, 281 (15) without; what
the tests check is the same.

The tests in this folder are marked ``browser`` and share the xdist group ``browser`` (one
worker, hence one server and one Chromium) by ``tests/conftest.py``; nobody has to mark them.
The server's caches are shared by the tests (as by the users of one server): a test must not
rely on a result being computed, or not computed, by an earlier test.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

try:
    from playwright import sync_api as playwright
except ImportError:  # the test extra installs it; without it the browser tests skip
    playwright = None

ROOT = Path(__file__).resolve().parents[2]
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
VIEWPORT = {"width": 1400, "height": 1000}
#: a context's init script: no CSS animation or transition (spinners, fades) to draw
STILL = """
document.addEventListener('DOMContentLoaded', () => {
  const style = document.createElement('style');
  style.textContent = '*, *::before, *::after { animation: none !important; transition: none !important; }';
  document.head.appendChild(style);
});
"""
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
    "Stability (bootstrap)": "Stability (bootstrap)",
    "Compare and export": "Compare and export",
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def _server(log_dir: Path, env: dict | None = None):
    """``streamlit run app.py`` headless on a free 127.0.0.1 port (``env``: more environment
    variables); yields its URL once healthy, with the server's pid as ``url.pid``."""
    port = _free_port()
    log = log_dir / "server.log"
    cmd = [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless", "true"]
    cmd += ["--server.address", "127.0.0.1", "--server.port", str(port)]
    cmd += ["--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    out = open(log, "wb")  # closed with the server
    proc = subprocess.Popen(
        cmd,
        cwd=ROOT,
        stdout=out,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env={**os.environ, **(env or {})},
    )
    url = _URL(f"http://127.0.0.1:{port}")
    url.pid = proc.pid
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
        out.close()


class _URL(str):
    """A server's URL that also knows the server's process id (``.pid``)."""

    pid: int = 0


def _settle(page) -> None:
    """Wait until the script run is over and charts in view have drawn."""
    page.wait_for_selector(CONNECTED)
    page.wait_for_selector(IDLE)
    page.wait_for_timeout(400)
    page.wait_for_selector(IDLE)


def _goto(page, name: str, title: str | None = None) -> None:
    """Click the navigation link ``name`` and wait for the page's title (``PAGES[name]`` by default)."""
    page.get_by_role("link", name=name, exact=True).first.click()
    page.wait_for_function(
        "([t]) => { const h = document.querySelector('h1'); return h && h.innerText.trim() === t; }",
        arg=[title or PAGES[name]],
        polling=100,
    )
    _settle(page)


def _charts_drawn(page) -> int:
    """Scroll every plotly chart into view (they load lazily) and count the drawn ones."""
    charts = page.locator('[data-testid="stPlotlyChart"]')
    try:
        page.wait_for_selector('[data-testid="stPlotlyChart"]', timeout=15_000)
    except playwright.Error:
        return 0
    _settle(page)
    for i in range(charts.count()):
        charts.nth(i).scroll_into_view_if_needed()
        page.wait_for_timeout(200)
    if charts.count():
        page.wait_for_selector(".js-plotly-plot .main-svg", timeout=30_000)
    return page.locator(".js-plotly-plot").count()


def _tree_title(page) -> str:
    """The title of the page's first chart (the group tree on the Groups page), once drawn."""
    page.locator('[data-testid="stPlotlyChart"]').first.scroll_into_view_if_needed()
    loc = page.locator(".js-plotly-plot .gtitle").first
    loc.wait_for(timeout=30_000)
    return loc.text_content()


def _upload(page, path) -> None:
    """Switch the sidebar to Upload and give it the file ``path`` as the data file."""
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_test_id("stRadioGroup").get_by_text("Upload", exact=True).click()
    _settle(page)
    box = sidebar.locator('[data-testid="stFileUploader"]').filter(has_text="Data file")
    box.locator('input[type="file"]').set_input_files(str(path))
    _settle(page)


def _pick(page, label: str, option: str) -> None:
    """Choose ``option`` in the selectbox labelled ``label`` by typing, as a person would."""
    box = page.locator('[data-testid="stSelectbox"]').filter(has_text=label).first
    box.click()
    page.keyboard.type(option)
    page.get_by_role("option", name=option, exact=True).first.click()
    _settle(page)


def _report_file(page, timeout: int = 180_000):
    """Sidebar: open "Report" (if closed), press "Build report" unless the report of this state
    is built, wait for the build (its status box redraws on a timer) and download it: the
    playwright Download."""
    sidebar = page.locator('[data-testid="stSidebar"]')
    build = sidebar.get_by_role("button", name="Build report")
    download = sidebar.get_by_role("button", name="Download report (HTML)")
    if not (build.is_visible() or download.is_visible()):
        sidebar.get_by_text("Report", exact=True).click()
    build.or_(download).first.wait_for(timeout=timeout)
    _settle(page)  # a click during a rerun can land on the button the rerun replaces
    if build.is_visible():
        build.click()
    download.wait_for(timeout=timeout)
    _settle(page)
    with page.expect_download(timeout=timeout) as info:
        download.click()
    return info.value


# ------------------------------------------------------------------------ the expensive ones
@pytest.fixture(scope="session")
def start_server():
    """``with start_server(log_dir, env=None) as url:`` a fresh ``streamlit run app.py`` of its own."""
    if playwright is None:
        pytest.skip("playwright is not installed (pip install -e '.[test]')")
    return _server


@pytest.fixture(scope="session")
def data_folder(tmp_path_factory) -> Path:
    """The server's data folder (``FSVIZ_DATA_DIR``): ``expr.npy`` (60 x 3,000, two classes in
    ``expr.y.npy``, features in correlated blocks: GDM finds groups) and ``small.csv``."""
    import numpy as np

    folder = tmp_path_factory.mktemp("data_folder")
    rng = np.random.default_rng(0)
    factors = rng.standard_normal((60, 40))
    X = rng.standard_normal((60, 3000)) + 2.0 * factors[:, rng.integers(0, 40, size=3000)]
    np.save(folder / "expr.npy", X.astype(np.float32))
    np.save(folder / "expr.y.npy", (factors[:, 0] > 0).astype(np.int64))
    (folder / "small.csv").write_text("a,b,class\n1,2,x\n3,4,y\n5,7,x\n6,1,y\n")
    return folder


@pytest.fixture(scope="session")
def read_log(tmp_path_factory) -> Path:
    """The server's ``FSVIZ_READ_LOG``: one line per file it parses (``<time>\t<file>\t<format>``)."""
    return tmp_path_factory.mktemp("reads") / "reads.log"


@pytest.fixture(scope="session")
def server(start_server, tmp_path_factory, data_folder, read_log):
    """The URL of the session's Streamlit server (started on first use), with a data folder."""
    env = {"FSVIZ_DATA_DIR": str(data_folder), "FSVIZ_READ_LOG": str(read_log)}
    with start_server(tmp_path_factory.mktemp("server"), env) as url:
        yield url


@pytest.fixture(scope="session")
def _playwright():
    if playwright is None:
        pytest.skip("playwright is not installed (pip install -e '.[test]')")
    with playwright.sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="session")
def browser(_playwright, chromium_path):
    """Debian's Chromium, headless, launched once per session (on first use): for tests that
    need contexts of their own (separate users, offline)."""
    b = _playwright.chromium.launch(executable_path=chromium_path, headless=True, args=ARGS)
    yield _StillBrowser(b)
    b.close()


class _StillBrowser:
    """A Playwright Browser whose new contexts hold still (module docstring); the rest as is."""

    def __init__(self, browser):
        self._browser = browser

    def __getattr__(self, name):
        return getattr(self._browser, name)

    def new_context(self, **kwargs):
        ctx = self._browser.new_context(**{"reduced_motion": "reduce", **kwargs})
        ctx.add_init_script(STILL)
        return ctx


@pytest.fixture(scope="session")
def _tabs(_playwright, chromium_path, tmp_path_factory):
    """One Chromium profile on disk whose tabs are the ``page`` fixture's pages.

    A profile keeps its HTTP cache and V8's code cache: a tab after the first loads the app's
    scripts from disk, already compiled (measured: 2.6 CPU-s of Chromium and 0.5 of the server
    less per page load, a quarter faster). An incognito context per test, as ``browser`` makes,
    starts cold every time. Each tab is its own Streamlit session (the server keeps one per
    connection); the tabs share cookies, as a person's tabs do.
    """
    ctx = _playwright.chromium.launch_persistent_context(
        str(tmp_path_factory.mktemp("chromium_profile")),
        executable_path=chromium_path,
        headless=True,
        args=ARGS,
        viewport=VIEWPORT,
        accept_downloads=True,
        reduced_motion="reduce",
    )
    ctx.add_init_script(STILL)
    yield ctx
    ctx.close()


@pytest.fixture(scope="session")
def shots(tmp_path_factory):
    """The folder for screenshots (look at them)."""
    d = tmp_path_factory.mktemp("screenshots")
    print(f"screenshots in {d}")
    return d


@pytest.fixture
def page(_tabs, server):
    """A new tab (a new Streamlit session) on ``server``, settled; closed afterwards."""
    p = _tabs.new_page()
    p.set_default_timeout(120_000)
    p.goto(server)
    _settle(p)
    yield p
    p.close()


# ------------------------------------------------------------------------------ the helpers
@pytest.fixture(scope="session")
def settle():
    return _settle


@pytest.fixture(scope="session")
def goto():
    return _goto


@pytest.fixture(scope="session")
def charts_drawn():
    return _charts_drawn


@pytest.fixture(scope="session")
def tree_title():
    return _tree_title


@pytest.fixture(scope="session")
def upload():
    return _upload


@pytest.fixture(scope="session")
def pick():
    return _pick


@pytest.fixture(scope="session")
def report_file():
    return _report_file


@pytest.fixture(scope="session")
def nav_pages() -> dict[str, str]:
    return dict(PAGES)
