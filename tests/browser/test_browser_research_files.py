"""Files as researchers have them, in a real browser: a GEO series matrix from upload to an
exported GDM selection, and an expression matrix with its phenotype table in a second file
through GRM with a prior group, a refresh and the report's reproduce lines.

The files are generated in the public files' shapes (tests/user_files.py).
"""

from __future__ import annotations

import html
import io
import re

import pandas as pd

from tests.user_files import expression_with_repeats, geo_series_matrix


def _main(page) -> str:
    return page.locator('[data-testid="stMain"]').inner_text()


def _sidebar(page) -> str:
    return page.locator('[data-testid="stSidebar"]').inner_text()


def _wait_text(page, text: str, timeout: int = 60_000) -> None:
    try:
        page.wait_for_function("([t]) => document.body.innerText.includes(t)", arg=[text], timeout=timeout)
    except Exception:
        page.screenshot(path=f"/tmp/research_fail_{text[:12].replace(' ', '_')}.png", full_page=True)
        raise


def _target(page) -> str:
    """What the sidebar's Target column box shows."""
    boxes = page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]')
    box = boxes.filter(has_text="Target column")
    values = box.locator("input").evaluate_all("els => els.map(e => e.value)")
    return box.inner_text() + " " + " ".join(values)


def _wait_target(page, name: str) -> None:
    for _ in range(120):
        if name in _target(page):
            return
        page.wait_for_timeout(500)
    raise AssertionError(f"the target is not {name!r}: {_target(page)!r}")


def test_geo_series_matrix_to_an_exported_gdm_selection(page, tmp_path, shots, settle, goto, upload, pick):
    path = tmp_path / "GSE00000_series_matrix.txt"
    path.write_bytes(geo_series_matrix())
    upload(page, path)
    _wait_text(page, "GEO series matrix: 300 probes x 24 samples")  # the proposal, said
    assert "24 samples × 300 features" in _sidebar(page)  # samples as rows: the probes are the features
    page.get_by_text("The import plan as JSON").click()  # the plan is on screen, whole
    _wait_text(page, '"transpose": "auto"')
    page.keyboard.press("Escape")
    page.screenshot(path=str(shots / "research_geo_data.png"), full_page=True)

    pick(page, "Target column", "sex")  # a !Sample_characteristics line as the target
    _wait_target(page, "sex")
    goto(page, "Groups (GDM)")
    page.get_by_role("button", name="Run GDM").click()
    settle(page)
    _wait_text(page, "support features")

    goto(page, "Compare and export")
    with page.expect_download() as dl:
        page.get_by_role("button", name="Selection CSV").first.click()
    frame = pd.read_csv(io.BytesIO(dl.value.path().read_bytes()), keep_default_na=False)
    assert {"rank", "name", "role"} <= set(frame.columns) and len(frame) > 0
    assert frame["name"].str.endswith("_at").all()  # probe ids: the matrix was read transposed


def test_expression_matrix_with_phenotype_table_through_grm_refresh_and_report(
    page, tmp_path, shots, settle, goto, upload, report_file
):
    matrix, pheno = expression_with_repeats(n_genes=300, n_samples=30, n_repeat=6)
    path = tmp_path / "expr.csv"
    path.write_bytes(matrix)
    upload(page, path)
    _wait_text(page, "Import plan: expr.csv")
    features = page.locator('[data-testid="stMetric"]').filter(has_text="features")
    assert "294" in features.first.inner_text()  # 6 repeated symbols averaged, none one-hot encoded
    box = page.locator('[data-testid="stFileUploader"]').filter(has_text="Sample annotations")
    box.locator('input[type="file"]').set_input_files(
        files=[{"name": "pheno.csv", "mimeType": "text/csv", "buffer": pheno}]
    )
    settle(page)
    _wait_target(page, "disease_state")  # the phenotype table's column is the target
    page.screenshot(path=str(shots / "research_expression_data.png"), full_page=True)

    goto(page, "GRM refinement")
    genes = [g for g in pd.read_csv(io.BytesIO(matrix)).iloc[:, 0].astype(str)][:3]
    paste = page.get_by_label("…or paste groups")
    paste.wait_for(timeout=300_000)  # a first visit on cold numba caches compiles the base scores
    paste.fill(", ".join(genes))
    page.get_by_role("button", name="Add pasted groups").click()
    settle(page)
    page.get_by_role("button", name="Run GRM").click()
    settle(page)
    _wait_text(page, "What the prior groups change")

    page.reload()  # the upload, its annotations and the prior group survive a refresh
    settle(page)
    _wait_text(page, "GRM refinement")
    assert "expr" in _sidebar(page)
    goto(page, "GRM refinement")
    _wait_text(page, "What the prior groups change")
    assert "1 prior group" in _main(page)

    report = html.unescape(report_file(page).path().read_text(encoding="utf-8"))
    cli = re.search(r'<pre class="code" id="reproduce-cli">(.*?)</pre>', report, re.S).group(1)
    assert '"sample_annotations":"pheno.csv"' in cli and "--method grm" in cli, cli  # the plan, verbatim
    named = re.search(r"--prior-group (\S+)", cli)  # the prior group kept through the refresh, by name
    assert named and sorted(named.group(1).split(",")) == sorted(genes), cli
    python = re.search(r'<pre class="code" id="reproduce-python">(.*?)</pre>', report, re.S).group(1)
    assert "sample_annotations='pheno.csv'" in python, python
