"""A user's own file in a real browser: upload, roles, target fix, groups, tau move, GRM with
priors, export, refresh.

The file is NCI60-shaped (generated): a ``rownames`` identifier column, 300 genes, 14 tumour
types of which five have a single sample.
"""

from __future__ import annotations

import io

import pandas as pd

from tests.user_files import european_csv, nci60_csv


def body(page) -> str:
    return page.locator('[data-testid="stMain"]').inner_text()


def test_a_users_file_from_upload_to_export_and_refresh(page, tmp_path, shots, settle, goto, upload):
    path = tmp_path / "nci60.csv"
    path.write_bytes(nci60_csv(n_genes=300))
    upload(page, path)
    page.wait_for_function("() => document.body.innerText.includes('Column roles')", timeout=60_000)
    main = body(page)
    assert "rownames" in main and "identifier" in main  # the roles table names the id column
    assert "300 features" in page.locator('[data-testid="stSidebar"]').inner_text()
    page.screenshot(path=str(shots / "user_file_data.png"), full_page=True)

    # the target check offers the fix; one click applies it
    page.get_by_role("button", name="Leave out classes with fewer than 2 samples").click()
    settle(page)
    page.wait_for_function("() => document.body.innerText.includes('Fix in force')", timeout=60_000)
    assert "59 samples" in page.locator('[data-testid="stSidebar"]').inner_text()

    # groups, and a tau move
    goto(page, "Groups (GDM)")
    page.get_by_role("button", name="Run GDM").click()
    settle(page)
    slider = page.locator('input[type="range"][aria-label^="tau"]').first
    slider.focus()
    for _ in range(5):
        page.keyboard.press("ArrowRight")  # 0.30 -> 0.35
    page.get_by_role("button", name="Run GDM").click()
    settle(page)
    page.wait_for_function("() => document.body.innerText.includes('tau=0.35')", timeout=90_000)

    # GRM with a prior group pasted by name
    goto(page, "GRM refinement")
    page.get_by_label("…or paste groups").fill("data.1, data.2, data.3")
    page.get_by_role("button", name="Add pasted groups").click()
    settle(page)
    page.get_by_role("button", name="Run GRM").click()
    settle(page)
    page.wait_for_function(
        "() => document.body.innerText.includes('What the prior groups change')", timeout=90_000
    )
    assert "nan" not in body(page).lower().split()
    page.screenshot(path=str(shots / "user_file_grm.png"), full_page=True)

    # the export offers the run on screen (the last one shown: GRM), and GDM at tau=0.35
    goto(page, "Compare and export")
    box = page.locator('[data-testid="stSelectbox"]').filter(has_text="selection").first
    box.scroll_into_view_if_needed()
    page.screenshot(path=str(shots / "user_file_export.png"), full_page=True)
    value = box.inner_text() + " ".join(box.locator("input").evaluate_all("els => els.map(e => e.value)"))
    assert "GRM" in value, value
    box.click()
    options = page.get_by_role("option").all_inner_texts()
    page.keyboard.press("Escape")
    gdm = [o for o in options if o.startswith("GDM")]
    assert len(gdm) == 1 and "tau=0.35" in gdm[0], options  # one row: the run on screen
    with page.expect_download() as dl:
        page.get_by_role("button", name="Reduced dataset CSV").click()
    reduced = pd.read_csv(io.BytesIO(dl.value.path().read_bytes()))
    assert reduced.columns[0] == "rownames" and len(reduced) == 59
    assert reduced.shape[1] == 1 + 20 + 1  # row names, the top 20 of the ranking, the target

    # a refresh keeps the uploaded file and what the pages show
    page.reload()
    settle(page)
    page.wait_for_function("() => document.body.innerText.includes('Compare and export')", timeout=60_000)
    assert "nci60" in page.locator('[data-testid="stSidebar"]').inner_text()
    goto(page, "Groups (GDM)")
    page.wait_for_function("() => document.body.innerText.includes('tau=0.35')", timeout=90_000)


def test_semicolon_decimal_comma_file_reads_as_numbers(page, tmp_path, upload):
    path = tmp_path / "messungen.csv"
    path.write_bytes(european_csv())
    upload(page, path)
    page.wait_for_function("() => document.body.innerText.includes('Column roles')", timeout=60_000)
    sidebar = page.locator('[data-testid="stSidebar"]').inner_text()
    assert "6 features" in sidebar and "60 samples" in sidebar
    box = page.locator('[data-testid="stSelectbox"]').filter(has_text="Separator").first
    shown = box.inner_text() + " ".join(box.locator("input").evaluate_all("els => els.map(e => e.value)"))
    assert "semicolon" in shown, shown  # "auto (semicolon ;)": what was detected is on screen
