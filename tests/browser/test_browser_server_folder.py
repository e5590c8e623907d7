"""A lab server in a real browser: open a file of the server's data folder (no upload), move tau
live, see the correlation page, cancel a long run and go on working.

The server (with ``FSVIZ_DATA_DIR`` = the ``data_folder`` fixture), browser, page and helpers are
the fixtures of ``tests/browser/conftest.py``.
"""

from __future__ import annotations

import pytest

playwright = pytest.importorskip("playwright.sync_api")

SIDEBAR = '[data-testid="stSidebar"]'
MAIN = '[data-testid="stMain"]'


def shows(page, text: str, timeout: int = 120_000) -> None:
    page.wait_for_function(f"() => document.body.innerText.includes({text!r})", timeout=timeout)


def shown_caption(page) -> str:
    return page.locator('[data-testid="stCaptionContainer"]').filter(has_text="Shown:").first.inner_text()


def test_open_a_server_file_move_tau_see_correlations_and_cancel_a_long_run(
    page, data_folder, goto, settle, pick, tree_title, charts_drawn, shots
):
    from fsviz_app.appkit.data_folder import list_files

    listed = {f.name: f.label for f in list_files(data_folder)}
    assert listed["expr.npy"].startswith("expr.npy — 703")  # its size: 60 x 3,000 float32
    sidebar = page.locator(SIDEBAR)
    sidebar.get_by_test_id("stRadioGroup").get_by_text("Server folder", exact=True).click()
    settle(page)
    pick(page, "Server file", listed["expr.npy"])  # no upload: the server reads its own file
    shows(page, "Active: expr: 60 samples × 3,000 features")

    goto(page, "Groups (GDM)")
    tree_title(page)
    assert "tau=" not in shown_caption(page)  # the defaults (tau 0.3)
    slider = page.locator('input[type="range"][aria-label^="tau"]').first
    slider.focus()
    page.keyboard.press("ArrowRight")  # one step: applied live when the last fit was quick
    new_tau = (
        "() => [...document.querySelectorAll('[data-testid=\"stCaptionContainer\"]')]"
        ".some(e => e.textContent.startsWith('Shown:') && e.textContent.includes('tau=0.31'))"
    )
    page.wait_for_function(f"() => ({new_tau})() || document.body.innerText.includes('Stale:')")
    if not page.evaluate(new_tau):  # a loaded machine: the last fit took over a second
        page.get_by_role("button", name="Run GDM").click()
        page.wait_for_function(new_tau)
    settle(page)

    goto(page, "Correlation sparsity")
    assert charts_drawn(page) >= 1
    title = page.locator(".js-plotly-plot .gtitle").first.text_content()
    assert "4,498,500 feature pairs (exact, all pairs)" in title  # 3,000 x 2,999 / 2
    assert page.get_by_text("Find the 50 most correlated pairs").count() == 1  # wide: waits for a click

    goto(page, "Stability (bootstrap)")
    shows(page, "Kuncheva index")  # small data: the default 20 resamples ran on arrival
    resamples = page.locator('[data-testid="stSlider"]').filter(has_text="bootstrap resamples")
    resamples.get_by_role("slider").focus()
    page.keyboard.press("End")  # 100 resamples of GDM: a long run
    settle(page)
    page.get_by_role("button", name="Resample", exact=True).click()
    cancel = page.get_by_role("button", name="Cancel")
    cancel.wait_for(timeout=60_000)
    cancel.click()
    shows(page, "cancelled")
    settle(page)
    assert page.get_by_role("button", name="Cancel").count() == 0
    assert page.locator('[data-testid="stException"]').count() == 0
    assert "20" in page.locator('[data-testid="stMetric"]').filter(has_text="resamples").inner_text()

    page.screenshot(path=str(shots / "server_folder_cancelled.png"), full_page=True)

    goto(page, "Groups (GDM)")  # the session goes on: its results are all still there
    tree_title(page)
    assert "tau=0.31" in shown_caption(page)
