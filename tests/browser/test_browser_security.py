"""Hostile uploads against a live server (docs/app.md, "Uploads and the server").

A fresh server with a small memory budget: one session uploads files made to read the server's
files or take it down while another keeps working; an uploaded file pointing outside itself
gives its message and the next upload works; exported names are neutralised for spreadsheets;
memory stays within the budget over many uploads.
"""

from __future__ import annotations

import io
import time
import urllib.request
from pathlib import Path

import hostile_files as hf
import pandas as pd
import pytest

BUDGET_MIB = 96
VIEWPORT = {"width": 1400, "height": 1000}


@pytest.fixture(scope="module")
def budget_server(start_server, tmp_path_factory):
    with start_server(tmp_path_factory.mktemp("budget"), {"FSVIZ_MEMORY_BUDGET": f"{BUDGET_MIB}M"}) as url:
        yield url


def _session(browser, url, settle):
    ctx = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
    page = ctx.new_page()
    page.set_default_timeout(120_000)
    page.goto(url)
    settle(page)
    return ctx, page


def _main(page) -> str:
    return page.locator('[data-testid="stMain"]').inner_text()


def _sidebar(page) -> str:
    return page.locator('[data-testid="stSidebar"]').inner_text()


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def test_hostile_uploads_never_disturb_another_session(
    browser, budget_server, tmp_path, settle, goto, upload
):
    ctx_b, b = _session(browser, budget_server, settle)
    ctx_a, a = _session(browser, budget_server, settle)
    goto(b, "Groups (GDM)")
    assert "digits" in _sidebar(b)
    far = tmp_path / "far.xlsx"
    far.write_bytes(hf.xlsx_far_corner())
    upload(a, far)
    a.wait_for_function("() => document.body.innerText.includes('16,384 columns')", timeout=60_000)
    vds = hf.h5ad_virtual(tmp_path / "vds.h5ad", tmp_path / "server")
    upload(a, vds)
    a.wait_for_function("() => document.body.innerText.includes('virtual dataset')", timeout=60_000)
    assert hf.SECRET not in _main(a) + _sidebar(a)
    assert urllib.request.urlopen(budget_server + "/_stcore/health", timeout=5).read().strip() == b"ok"
    goto(b, "Correlation sparsity")  # the other session never noticed
    assert b.locator('[data-testid="stException"]').count() == 0
    assert "digits" in _sidebar(b) and "Error" not in _main(b)[:200]
    ctx_a.close()
    ctx_b.close()


def test_hostile_h5ad_then_formula_names_with_a_neutralised_export(
    browser, budget_server, tmp_path, settle, goto, upload, shots
):
    ctx, page = _session(browser, budget_server, settle)
    link = hf.h5ad_external_link(tmp_path / "link.h5ad", tmp_path / "server")
    upload(page, link)
    page.wait_for_function("() => document.body.innerText.includes('external link')", timeout=60_000)
    assert hf.SECRET not in _main(page) + _sidebar(page)
    page.screenshot(path=str(shots / "security_h5ad_refused.png"), full_page=True)
    formula = tmp_path / "formula.csv"
    formula.write_bytes(hf.formula_csv())
    upload(page, formula)
    page.wait_for_function("() => document.body.innerText.includes('Column roles')", timeout=60_000)
    assert "6 features" in _sidebar(page), _sidebar(page)
    goto(page, "Groups (GDM)")  # small data: the default run starts by itself
    page.wait_for_function("() => document.body.innerText.includes('support feature')", timeout=120_000)
    goto(page, "Compare and export")
    with page.expect_download() as dl:
        page.get_by_role("button", name="Selection CSV (rank, index, name, score, role, group)").click()
    names = pd.read_csv(io.BytesIO(dl.value.path().read_bytes()), keep_default_na=False)["name"].tolist()
    assert names and all(not str(n).startswith(("=", "+", "-", "@")) for n in names), names
    assert any(str(n).startswith("'") for n in names), names
    ctx.close()


def test_upload_memory_stays_within_the_budget(browser, budget_server, settle):
    """A small version of benchmarks/bench_upload_memory.py: 10 uploads of 4 MiB in one session
    (the uploads' share of the 96 MiB budget holds fewer than six of them)."""
    pid = budget_server.pid
    ctx, page = _session(browser, budget_server, settle)
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_test_id("stRadioGroup").get_by_text("Upload", exact=True).click()
    settle(page)
    box = sidebar.locator('[data-testid="stFileUploader"]').filter(has_text="Data file")
    start, peak = _rss_mib(pid), 0.0
    for i in range(10):
        data = _csv(4, i)
        box.locator('input[type="file"]').set_input_files(
            files=[{"name": f"u{i}.csv", "mimeType": "text/csv", "buffer": data}]
        )
        settle(page)
        assert page.locator('[data-testid="stException"]').count() == 0
        peak = max(peak, _rss_mib(pid))
    ctx.close()
    # the stores hold at most the budget; parsing one file and the allocator's slack come on top
    assert peak - start < BUDGET_MIB + 160, (start, peak)
    time.sleep(1)


def _csv(mib: float, seed: int) -> bytes:
    import numpy as np

    rng = np.random.default_rng(seed)
    n, m = 1000, max(2, int(mib * (1 << 20) / (1000 * 16)))  # tall: parsing, not width, is tested
    frame = pd.DataFrame(np.round(rng.normal(size=(n, m)), 10), columns=[f"g{j}" for j in range(m)])
    frame["class"] = np.where(np.arange(n) % 2 == 0, "a", "b")
    return frame.to_csv(index=False).encode()
