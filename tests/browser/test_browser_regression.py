"""The app in a real browser on the diabetes sample (a continuous target).

Opens the sample through the URL (``?source=Sample&sample=diabetes``), visits every page,
checks that none shows an exception, that the Data page says "continuous" and draws the
target's distribution, that the Groups page shows GDM's answer (a result, or its message
as an error box), and that no page calls R² "accuracy". Screenshots are kept. The server, browser
and helpers are the fixtures of ``tests/browser/conftest.py``.
"""

from __future__ import annotations

import re

import pytest


@pytest.fixture
def diabetes(browser, server, settle):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    p = ctx.new_page()
    p.set_default_timeout(120_000)
    p.goto(server + "/?source=Sample&sample=diabetes")
    settle(p)
    yield p
    ctx.close()


def test_every_page_on_a_continuous_target(diabetes, shots, goto, charts_drawn, nav_pages):
    page = diabetes
    assert "Active: diabetes" in page.locator('[data-testid="stSidebar"]').inner_text()
    metric = page.locator('[data-testid="stMetric"]').filter(has_text="target")
    assert "continuous" in metric.first.inner_text()
    assert charts_drawn(page) >= 1  # the target's distribution
    assert page.get_by_text("Distribution of the continuous target").count() >= 1
    for name in nav_pages:
        goto(page, name)
        assert page.locator('[data-testid="stException"]').count() == 0, name
        body = page.locator('[data-testid="stMain"]').inner_text()
        assert "accuracy" not in body.lower() or name == "Data", name
        if name == "Groups (GDM)":
            answered = (
                page.locator('[data-testid="stAlertContentError"]').count()
                + page.locator('[data-testid="stMetric"]').filter(has_text="support features").count()
            )
            assert answered >= 1, "GDM neither ran nor said why not"
        if name in ("GRM refinement", "Compare and export"):
            charts_drawn(page)
            assert "R²" in page.locator('[data-testid="stMain"]').inner_text(), name
        page.screenshot(
            path=str(shots / ("diabetes_" + re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_") + ".png")),
            full_page=True,
        )
