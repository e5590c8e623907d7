"""Exploring views in a real browser: the correlation explorer, the stability page, session files.

The server, browser, page and helpers are the fixtures of ``tests/browser/conftest.py``.
"""

from __future__ import annotations

import json

import pytest

NO_EXCEPTION = '[data-testid="stException"]'


def chart_titles(page) -> list[str]:
    return page.eval_on_selector_all(".js-plotly-plot .gtitle", "els => els.map(e => e.textContent)")


def test_correlation_explorer_pairs_feature_and_target(page, shots, goto, settle, charts_drawn, pick):
    """Top pairs as a network and a table; every feature against the target, then against a
    chosen feature; Pearson -> Spearman recomputes."""
    goto(page, "Correlation sparsity")
    page.get_by_text("Correlation explorer").first.scroll_into_view_if_needed()
    assert charts_drawn(page) >= 3  # histogram, network, bars
    page.wait_for_function(
        "() => [...document.querySelectorAll('.js-plotly-plot .gtitle')]"
        ".some(e => e.textContent.startsWith('The 50 most correlated feature pairs'))"
    )
    assert page.locator('[data-testid="stDataFrame"]').count() >= 1
    assert any("with the target" in t for t in chart_titles(page))

    pick(page, "every feature's correlation with", "pixel_3_4")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.js-plotly-plot .gtitle')]"
        ".some(e => e.textContent.includes('by |correlation| with pixel_3_4'))",
        timeout=60_000,
    )
    page.get_by_test_id("stRadioGroup").filter(has_text="spearman").get_by_text("spearman").click()
    settle(page)
    assert page.locator(NO_EXCEPTION).count() == 0
    assert any("with pixel_3_4" in t for t in chart_titles(page))
    page.screenshot(path=str(shots / "correlation_explorer.png"), full_page=True)


def test_stability_resamples_the_shown_selection(page, shots, goto, settle, charts_drawn, tree_title):
    goto(page, "Groups (GDM)")
    tree_title(page)  # the default GDM run: a selection to resample
    goto(page, "Stability (bootstrap)")
    page.get_by_role("button", name="Resample", exact=True).click()
    settle(page)
    page.wait_for_function("() => document.body.innerText.includes('Kuncheva index')", timeout=120_000)
    values = page.locator('[data-testid="stMetricValue"]').all_inner_texts()
    jaccard = float(values[1])
    assert 0.0 < jaccard <= 1.0 and values[2].strip() == "20"
    assert charts_drawn(page) >= 1
    assert page.get_by_text("GDM groups: how often a resample selects").count() == 1
    assert page.locator(NO_EXCEPTION).count() == 0
    page.screenshot(path=str(shots / "stability.png"), full_page=True)


def test_session_file_round_trip(browser, server, tmp_path, goto, settle, tree_title):
    """Save the session as JSON after a tau change; a fresh session loads it and shows that run."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    p = ctx.new_page()
    p.set_default_timeout(120_000)
    p.goto(server)
    settle(p)
    goto(p, "Groups (GDM)")
    tree_title(p)
    slider = p.locator('input[type="range"][aria-label^="tau"]').first
    slider.focus()
    for _ in range(20):  # 0.30 -> 0.50
        p.keyboard.press("ArrowRight")
    p.get_by_role("button", name="Run GDM").click()
    settle(p)
    p.wait_for_function("() => document.body.innerText.includes('tau=0.5')", timeout=60_000)

    sidebar = p.locator('[data-testid="stSidebar"]')
    sidebar.get_by_text("Session file").click()
    with p.expect_download() as info:
        sidebar.get_by_role("button", name="Save session (JSON)").click()
    saved = tmp_path / info.value.suggested_filename
    info.value.save_as(saved)
    doc = json.loads(saved.read_text())
    assert doc["shown"]["gdm"]["params"]["tau"] == pytest.approx(0.5)
    assert len(doc["dataset"]["fingerprint"]) == 64 and doc["fsviz_version"]
    ctx.close()

    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    q = ctx.new_page()
    q.set_default_timeout(120_000)
    q.goto(server)  # a new session: defaults
    settle(q)
    sidebar = q.locator('[data-testid="stSidebar"]')
    sidebar.get_by_text("Session file").click()
    sidebar.locator('input[type="file"][accept*="json"]').set_input_files(str(saved))
    settle(q)
    q.wait_for_function("() => document.body.innerText.includes('Restored')", timeout=60_000)
    goto(q, "Groups (GDM)")
    q.wait_for_function("() => document.body.innerText.includes('tau=0.5')", timeout=60_000)
    assert q.locator(NO_EXCEPTION).count() == 0
    ctx.close()
