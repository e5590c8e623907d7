"""The app in a real browser: `streamlit run app.py` driven by Playwright on Debian's Chromium.

Visits every page, moves the tau slider and sees the group tree change, uploads a CSV,
downloads the export and compares it byte for byte with the CLI's, and opens a deep link on
a fresh server. Screenshots go to a
temporary directory (printed; kept by pytest's tmp_path_factory). The server, the browser, the
page and the helpers are the fixtures of ``tests/browser/conftest.py``.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest


def test_every_page_renders(page, shots, goto, charts_drawn, nav_pages):
    for name in nav_pages:
        goto(page, name)
        assert page.locator("h1").first.inner_text().strip(), name
        assert page.locator('[data-testid="stException"]').count() == 0, name
        if name not in ("Data",):  # the digits' Data page has no chart: no 15 s wait for one
            assert charts_drawn(page) >= 1, f"{name}: no chart drawn"
        page.screenshot(
            path=str(shots / (re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_") + ".png")), full_page=True
        )


def test_tau_slider_changes_the_group_tree(page, shots, goto, settle, tree_title):
    goto(page, "Groups (GDM)")
    before = tree_title(page)
    slider = page.locator('input[type="range"][aria-label^="tau"]').first
    slider.focus()
    for _ in range(30):  # tau 0.30 -> 0.50, the slider's end (GDM's practical range), and it runs
        page.keyboard.press("ArrowRight")
    assert float(slider.get_attribute("aria-valuetext")) == pytest.approx(0.5)
    page.get_by_role("button", name="Run GDM").click()
    settle(page)
    page.wait_for_function(
        "([t]) => { const e = document.querySelector('.js-plotly-plot .gtitle');"
        " return e && e.textContent !== t; }",
        arg=[before],
        timeout=60_000,
    )
    assert tree_title(page) != before
    assert "tau=0.5" in page.get_by_text("Shown:").first.inner_text()
    page.screenshot(path=str(shots / "groups_tau_0.5.png"), full_page=True)


def shown_caption(page) -> str:
    return page.get_by_text("Shown:").first.inner_text()


def test_a_live_tau_step_applies_without_run_and_survives_a_refresh(page, goto, settle, tree_title):
    """Live tuning: one slider step reruns GDM (cheap on digits) with no Run click; a browser
    refresh restores the dataset, the seed and the tau shown from the URL."""
    goto(page, "Groups (GDM)")
    tree_title(page)
    slider = page.locator('input[type="range"][aria-label^="tau"]').first
    slider.focus()
    page.keyboard.press("ArrowRight")  # 0.30 -> 0.31, no Run click (the first run may count as slow)
    settle(page)
    if "tau=0.31" not in shown_caption(page):  # stale: the first run included numba's warm-up
        assert page.get_by_text("Stale: the result below is for").count() == 1
        page.get_by_role("button", name="Run GDM").click()
        settle(page)
        slider.focus()
        page.keyboard.press("ArrowRight")  # now the last run was cheap: 0.32 applies live
        settle(page)
        page.wait_for_function("() => document.body.innerText.includes('tau=0.32]')", timeout=60_000)
    want = "tau=0.32]" if "tau=0.32]" in shown_caption(page) else "tau=0.31]"
    assert page.get_by_text("Stale:").count() == 0
    page.reload()
    settle(page)
    page.wait_for_function(f"() => document.body.innerText.includes('{want}')", timeout=60_000)
    assert want in shown_caption(page)


def test_prior_groups_by_name_and_provenance_download(page, tmp_path, goto, settle):
    import json

    goto(page, "GRM refinement")
    box = page.get_by_role(
        "textbox", name="…or paste groups: one group per line, feature names separated by commas"
    )
    box.fill("pixel_3_4, pixel_3_5\npixel_3_44, pixel_2_2")
    page.get_by_role("button", name="Add pasted groups").click()
    settle(page)
    assert page.get_by_text("unknown feature name(s) 'pixel_3_44'", exact=False).count() >= 1
    box.fill("pixel_3_4, pixel_3_5\npixel_2_4, pixel_2_2")
    page.get_by_role("button", name="Add pasted groups").click()
    settle(page)
    page.wait_for_function("() => document.body.innerText.includes('2 prior groups over 4 features')")
    goto(page, "Compare and export")
    with page.expect_download() as info:
        page.get_by_text("Provenance (JSON)", exact=False).first.click()
    prov = json.loads(Path(info.value.path()).read_text())
    assert prov["run"]["method"] in {"gdm", "grm", "lgd", "saola"} and prov["fsviz_version"]
    assert len(prov["dataset"]["fingerprint"]) == 64 and info.value.suggested_filename.endswith(".json")


def test_upload_csv(page, tmp_path, settle):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 7))
    frame = pd.DataFrame(X, columns=[f"gene{i}" for i in range(7)])
    frame["tumour_type"] = np.where(X[:, 0] + X[:, 1] > 0, "glioma", "normal")
    path = tmp_path / "upload.csv"
    frame.to_csv(path, index=False)
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_test_id("stRadioGroup").get_by_text("Upload", exact=True).click()
    settle(page)
    sidebar.locator('input[type="file"]').first.set_input_files(str(path))
    settle(page)  # the target picker suggests tumour_type: no typing needed
    page.wait_for_function(
        "() => document.body.innerText.includes('80 samples × 7 features')", timeout=60_000
    )
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator('[data-testid="stMetricValue"]').nth(1).inner_text().strip() == "7"


def test_download_is_byte_identical_to_the_cli(page, tmp_path, goto, tree_title):
    """The app's two downloads after its default GDM run equal ``fsviz select`` byte for byte."""
    import fsviz_app.appkit as appkit
    from fsviz import cli
    from fsviz.data import list_samples, load_sample

    goto(page, "Groups (GDM)")
    tree_title(page)
    goto(page, "Compare and export")
    with page.expect_download() as info:
        page.get_by_text("Selection CSV", exact=False).first.click()
    got = Path(info.value.path()).read_bytes()
    with page.expect_download() as info2:
        page.get_by_text("Reduced dataset CSV", exact=False).first.click()
    reduced = Path(info2.value.path()).read_bytes()
    assert info.value.suggested_filename.endswith("_selection.csv")
    assert " " not in info.value.suggested_filename and "[" not in info.value.suggested_filename

    names = list(list_samples())
    ds = load_sample(names[appkit.default_sample(names)])
    data = tmp_path / "sample.npz"
    ds.save(data)
    argv = ["select", "--method", "gdm", str(data), "-q", "-o", str(tmp_path / "s.csv")]
    argv += ["--reduced", str(tmp_path / "r.csv")]  # the app's GDM: the declared defaults, as the CLI's
    assert cli.main(argv) == 0
    assert got == (tmp_path / "s.csv").read_bytes()
    assert reduced == (tmp_path / "r.csv").read_bytes()
    frame = pd.read_csv(io.BytesIO(got))
    assert (frame["role"] == "SF").sum() >= 1 and list(frame["rank"]) == list(range(1, len(frame) + 1))


def test_deep_link_on_a_fresh_server(browser, start_server, settle, tmp_path):
    """Opening /groups first on a new server runs app.py (sidebar, navigation) before the page.

    With st.navigation and no pages/ folder next to app.py (the views live in views/),
    Streamlit always runs the entry script first; a pages/ folder would switch on its legacy
    mode, which runs the linked file alone, without the sidebar, and this would fail.
    """
    with start_server(tmp_path) as url:
        ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
        p = ctx.new_page()
        p.set_default_timeout(120_000)
        p.goto(url + "/groups")
        p.wait_for_function(
            "() => { const h = document.querySelector('h1'); "
            "return h && h.innerText.trim() === 'Groups (GDM)'; }"
        )
        settle(p)
        assert p.locator('[data-testid="stSidebar"]').get_by_text("Dataset", exact=True).count() == 1
        assert p.get_by_role("link", name="Compare and export", exact=True).count() >= 1
        assert p.locator('[data-testid="stException"]').count() == 0
        ctx.close()


def test_face_upload_highlights_one_group(page, shots, skfeature_path, goto, settle, charts_drawn):
    """ORL faces uploaded as .mat: 32 x 32 masks; highlighting the largest group fades the others."""
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_test_id("stRadioGroup").get_by_text("Upload", exact=True).click()
    settle(page)
    sidebar.locator('input[type="file"]').first.set_input_files(str(skfeature_path("ORL")))
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
