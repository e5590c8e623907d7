"""State a user can trust, in a real browser: leakage warning, a failed upload leaves nothing
stale, the upload survives a source switch, "which group is feature X in?", and Compare
telling two GDM runs apart.

The server, browser, page and helpers are the fixtures of ``tests/browser/conftest.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

playwright = pytest.importorskip("playwright.sync_api")

NO_EXCEPTION = '[data-testid="stException"]'
MAIN = '[data-testid="stMain"]'


def shows(page, text: str) -> None:
    page.wait_for_function(f"() => document.body.innerText.includes({text!r})", timeout=60_000)


def test_leak_warning_failed_upload_and_source_switch(page, tmp_path, goto, settle, tree_title, upload):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 5))
    frame = pd.DataFrame(X, columns=[f"gene{i}" for i in range(5)])
    frame["diagnosis"] = np.where(X[:, 0] > 0, "tumour", "normal")
    frame["lab_code"] = np.where(X[:, 0] > 0, 7.0, 3.0)  # the target written as a number
    good = tmp_path / "leaky.csv"
    frame.to_csv(good, index=False)
    upload(page, good)
    shows(page, "60 samples × 6 features")
    warning = page.locator(MAIN).get_by_text("Possible target leakage", exact=False)
    warning.first.wait_for(timeout=60_000)
    assert "lab_code" in warning.first.inner_text()

    goto(page, "Groups (GDM)")
    tree_title(page)  # a result of the good upload is on screen

    bad = tmp_path / "broken.csv"
    bad.write_bytes(b"gene0,gene1,diagnosis\n1.0,2.0\n\x00\x01\x02,,,,\n")
    upload(page, bad)
    main = page.locator(MAIN)
    main.locator('[data-testid="stAlertContentError"]').first.wait_for(timeout=60_000)
    assert page.locator(".js-plotly-plot").count() == 0  # nothing of the previous dataset stays
    assert page.locator(NO_EXCEPTION).count() == 0

    upload(page, good)  # the session is usable again
    shows(page, "60 samples × 6 features")
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_test_id("stRadioGroup").get_by_text("Sample", exact=True).click()
    settle(page)
    sidebar.get_by_test_id("stRadioGroup").get_by_text("Upload", exact=True).click()
    settle(page)
    page.wait_for_function("() => document.body.innerText.includes('uploaded earlier')", timeout=60_000)
    assert page.get_by_text("60 samples × 6 features").count() >= 1


def test_which_group_is_a_feature_in(page, goto, settle, tree_title):
    goto(page, "Groups (GDM)")
    tree_title(page)
    box = page.locator('[data-testid="stSelectbox"]').filter(has_text="Which group is this feature in?")
    box.click()
    page.keyboard.type("pixel_3_4")
    page.get_by_role("option", name="pixel_3_4", exact=True).first.click()
    settle(page)
    page.wait_for_function(
        "() => /pixel_3_4 is (in no group|the (support|an affiliated) feature of the group of)/"
        ".test(document.body.innerText)",
        timeout=60_000,
    )
    assert page.locator(NO_EXCEPTION).count() == 0


def test_compare_tells_two_gdm_runs_apart(page, goto, settle, tree_title):
    goto(page, "Groups (GDM)")
    tree_title(page)
    goto(page, "Compare and export")  # keep the default run: the next tau's run adds a row
    page.get_by_role("button", name="Keep the runs on screen").click()
    settle(page)
    goto(page, "Groups (GDM)")
    tree_title(page)
    slider = page.locator('input[type="range"][aria-label^="tau"]').first
    slider.focus()
    for _ in range(15):  # 0.30 -> 0.45
        page.keyboard.press("ArrowRight")
    page.get_by_role("button", name="Run GDM").click()
    settle(page)
    page.wait_for_function("() => document.body.innerText.includes('tau=0.45')", timeout=60_000)
    goto(page, "Compare and export")
    page.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=120_000)
    page.wait_for_function(
        "() => [...document.querySelectorAll('.js-plotly-plot text')]"
        ".some(e => e.textContent.includes('#2'))",
        timeout=120_000,
    )
    export = page.locator('[data-testid="stSelectbox"]').filter(has_text="selection").first
    for _ in range(5):  # the evaluation fragment may still redraw the page and close the list
        settle(page)
        export.click()
        try:
            page.get_by_role("option").first.wait_for(timeout=5_000)
            break
        except playwright.Error:
            page.keyboard.press("Escape")
    options = page.get_by_role("option").all_inner_texts()
    # the default run is labelled without parameters (labels name those off their defaults)
    assert any("GDM" in o and "tau=" not in o for o in options) and any("tau=0.45" in o for o in options), (
        options
    )
    page.keyboard.press("Escape")
    assert page.locator(NO_EXCEPTION).count() == 0
