"""The shareable report in a real browser: the app's "Download report" after its default runs
equals ``fsviz report --runs <the session file>`` apart from the date, and the downloaded file
opens from disk in Chromium, offline, with every figure drawn and no console error.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

DATE = re.compile(r'<span id="report-created">[^<]*</span>')
#: a figure is drawn when its plotly SVG holds marks (bars, points, tiles, lines, images)
DRAWN = """() => [...document.querySelectorAll('.plotly-graph-div')].map(el => ({
    id: el.id,
    traces: (el._fullData || []).length,
    svg: el.querySelectorAll('svg.main-svg').length,
    marks: el.querySelectorAll(
        'g.trace path, g.trace image, g.slice path, g.points path, g.bars path, g.scatterlayer path,'
        + ' g.imagelayer image, g.layer-above image').length,
}))"""


def masked(data: bytes) -> str:
    text = data.decode("utf-8")
    assert len(DATE.findall(text)) == 1
    return DATE.sub("DATE", text)


def wait_text(page, text: str, timeout: int = 120_000) -> None:
    page.wait_for_function("([t]) => document.body.innerText.includes(t)", arg=[text], timeout=timeout)


def open_offline(browser, path: Path):
    """The report from disk with every network request refused (and recorded)."""
    ctx = browser.new_context(viewport={"width": 900, "height": 1300}, offline=True)
    p = ctx.new_page()
    errors, remote = [], []
    p.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    p.on("pageerror", lambda e: errors.append(str(e)))

    def refuse(route):
        if not route.request.url.startswith("file:"):
            remote.append(route.request.url)
            return route.abort()
        return route.continue_()

    p.route("**/*", refuse)
    p.goto(path.as_uri())
    p.wait_for_load_state("load")
    p.wait_for_function(
        "() => [...document.querySelectorAll('.plotly-graph-div')].every(el => el._fullLayout)",
        timeout=60_000,
    )
    return ctx, p, errors, remote


def test_app_report_equals_the_cli_and_opens_offline(
    page, browser, shots, tmp_path, goto, settle, tree_title, report_file
):
    from fsviz import cli

    # the app's default runs on the digits sample: every page computes its own on small data
    goto(page, "Groups (GDM)")
    tree_title(page)
    goto(page, "GRM refinement")
    wait_text(page, "Shown: GRM")
    goto(page, "Online (SAOLA)")
    wait_text(page, "features arrived")
    goto(page, "Correlation sparsity")
    wait_text(page, "pairs of non-constant features")

    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_text("Session file").click()
    with page.expect_download() as info:
        sidebar.get_by_role("button", name="Save session (JSON)").click()
    session = tmp_path / "session.json"
    info.value.save_as(session)
    doc = json.loads(session.read_text())
    assert set(doc["shown"]) >= {"gdm", "grm", "stream", "histogram"}

    download = report_file(page)  # "Build report", its progress, then "Download report (HTML)"
    assert download.suggested_filename == "digits-0-vs-1_fsviz-report.html"
    app_report = tmp_path / "app.html"
    download.save_as(app_report)
    data = app_report.read_bytes()
    assert len(data) < 10_000_000, f"{len(data) / 1e6:.1f} MB"

    out = tmp_path / "cli.html"
    sample = ROOT / "sample_data" / "digits-0-vs-1.npz"
    assert cli.main(["report", str(sample), "--runs", str(session), "-o", str(out), "-q"]) == 0
    assert masked(data) == masked(out.read_bytes())  # byte for byte, apart from the date

    ctx, p, errors, remote = open_offline(browser, app_report)
    try:
        figures = p.evaluate(DRAWN)
        ids = {f["id"] for f in figures}
        assert {"fig-1-tree", "fig-1-masks", "fig-2-sparsity", "fig-3-bump", "fig-compare", "fig-pca"} <= ids
        assert any(i.endswith("-stream") for i in ids)  # SAOLA; GRM's base score is inside its GRM section
        for f in figures:
            assert f["traces"] > 0 and f["svg"] > 0 and f["marks"] > 0, f
        assert errors == [] and remote == []
        text = p.inner_text("body")
        from fsviz.report import session_runs

        for run in session_runs(doc):  # the provenance of every Run: its key, with every parameter
            assert run.key in text, run.key
        assert "How to reproduce" in text and "fsviz report digits-0-vs-1.npz --runs session.json" in text
        # hover works: plotly's hover layer answers a synthetic hover on the PCA scatter
        p.locator("#fig-pca").scroll_into_view_if_needed()
        p.evaluate("() => Plotly.Fx.hover('fig-pca', [{curveNumber: 0, pointNumber: 0}], 'xy')")
        assert p.locator("#fig-pca .hoverlayer .hovertext").count() >= 1
        p.screenshot(path=str(shots / "report_top.png"))
        pdf = tmp_path / "report.pdf"
        p.emulate_media(media="print")
        p.pdf(path=str(pdf), format="A4", print_background=True)
        assert pdf.stat().st_size > 10_000
    finally:
        ctx.close()
    assert html.escape("digits-0-vs-1") in data.decode()

    # a choice of runs: GDM alone; the session block inside gives the CLI the same document
    sidebar.locator('[data-testid="stMultiSelect"] input').last.click()
    page.keyboard.type("GDM, seed")  # filters the options to the GDM run (at its defaults)
    page.keyboard.press("Enter")
    settle(page)
    page.keyboard.press("Escape")
    sidebar.get_by_text("Top-k rows and features evaluated").click()  # the list lets go of the focus
    settle(page)
    assert sidebar.get_by_text("The report built earlier is out of date").is_visible()  # another choice
    only = tmp_path / "gdm.html"
    report_file(page).save_as(only)
    text = only.read_text()
    assert (
        '<h2 id="run-1">1. GDM' in text
        and 'id="run-2"' not in text
        and "GRM" not in text.split('id="run-1"')[1]
    )
    block = re.search(r'<pre class="code" id="session-json">(.*?)</pre>', text, re.S)[1]
    (tmp_path / "block.json").write_text(html.unescape(block))
    out = tmp_path / "gdm-cli.html"
    assert (
        cli.main(["report", str(sample), "--runs", str(tmp_path / "block.json"), "-o", str(out), "-q"]) == 0
    )
    assert masked(only.read_bytes()) == masked(out.read_bytes())
