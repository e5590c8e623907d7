"""Omics files as their tools write them, in a real browser (issue 42): a 10x ``.tar.gz`` with its
cell annotations through GDM, "Why not this feature?" and the selection export in gene symbols;
a MaxQuant ``proteinGroups.txt`` with its experimental design through GRM with a pasted prior
group of gene names and the report, whose reproduce lines carry the dataset's fingerprint.

The files are generated in the tools' shapes (tests/omics_files.py).
"""

from __future__ import annotations

import html
import io
import re

import pandas as pd

from tests.omics_files import cell_annotations, maxquant, tenx_tar_gz


def _main(page) -> str:
    return page.locator('[data-testid="stMain"]').inner_text()


def _wait_text(page, text: str, timeout: int = 60_000) -> None:
    try:
        page.wait_for_function("([t]) => document.body.innerText.includes(t)", arg=[text], timeout=timeout)
    except Exception:
        page.screenshot(path=f"/tmp/omics_fail_{text[:12].replace(' ', '_')}.png", full_page=True)
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


def _annotations(page, settle, name: str, data: bytes, mime: str) -> None:
    box = page.locator('[data-testid="stFileUploader"]').filter(has_text="Sample annotations")
    box.locator('input[type="file"]').set_input_files(
        files=[{"name": name, "mimeType": mime, "buffer": data}]
    )
    settle(page)


def test_10x_archive_with_cell_annotations_to_gene_symbols_in_why_not_and_the_export(
    page, tmp_path, shots, settle, goto, upload, pick
):
    archive, (_, barcodes, _, symbols, kind) = tenx_tar_gz()
    path = tmp_path / "pbmc_filtered.tar.gz"
    path.write_bytes(archive)
    upload(page, path)
    _wait_text(page, "60 cells x 40 genes")  # read as a 10x matrix, said
    _annotations(page, settle, "cell_annotations.csv", cell_annotations(barcodes, kind), "text/csv")
    pick(page, "Target column", "cell_type")
    _wait_target(page, "cell_type")
    page.screenshot(path=str(shots / "omics_10x_data.png"), full_page=True)

    goto(page, "Groups (GDM)")
    page.get_by_role("button", name="Run GDM").click()
    settle(page)
    _wait_text(page, "support features")
    why = page.locator('[data-testid="stSelectbox"]').filter(has_text="Why not this feature?").first
    why.scroll_into_view_if_needed()
    why.click()
    page.keyboard.type("GENE12")
    option = page.get_by_role("option").filter(has_text="GENE12").first
    option.click()
    settle(page)
    _wait_text(page, "GENE12: rank")  # the answer names the feature by its gene symbol
    assert re.search(r"GENE12: rank \d+ of 40", _main(page))
    page.screenshot(path=str(shots / "omics_10x_why_not.png"), full_page=True)

    goto(page, "Compare and export")
    with page.expect_download() as dl:
        page.get_by_role("button", name="Selection CSV").first.click()
    frame = pd.read_csv(io.BytesIO(dl.value.path().read_bytes()), keep_default_na=False)
    assert {"rank", "name", "role"} <= set(frame.columns) and len(frame) > 0
    known = set(symbols)
    named = [n.rsplit("-", 1)[0] if n.rsplit("-", 1)[0] in known else n for n in frame["name"]]
    assert all(n in known for n in named), list(frame["name"])  # gene symbols, not Ensembl ids
    assert not frame["name"].str.startswith("ENSG").any()


def test_maxquant_with_design_through_grm_prior_genes_to_the_report_fingerprint(
    page, tmp_path, shots, settle, goto, upload, pick, report_file
):
    pg, design, _ = maxquant()
    path = tmp_path / "proteinGroups.txt"
    path.write_bytes(pg)
    upload(page, path)
    _wait_text(page, "MaxQuant protein-groups table")
    _annotations(page, settle, "experimental_design.tsv", design, "text/tab-separated-values")
    pick(page, "Target column", "Condition")
    _wait_target(page, "Condition")
    page.screenshot(path=str(shots / "omics_maxquant_data.png"), full_page=True)

    goto(page, "GRM refinement")
    paste = page.get_by_label("…or paste groups")
    paste.wait_for(timeout=300_000)  # a first visit on cold numba caches compiles the base scores
    paste.fill("GENE1, GENE2, GENE3, GENE4")
    page.get_by_role("button", name="Add pasted groups").click()
    settle(page)
    page.get_by_role("button", name="Run GRM").click()
    settle(page)
    _wait_text(page, "What the prior groups change")
    assert "1 prior group" in _main(page)
    page.screenshot(path=str(shots / "omics_maxquant_grm.png"), full_page=True)

    report = html.unescape(report_file(page).path().read_text(encoding="utf-8"))
    python = re.search(r'<pre class="code" id="reproduce-python">(.*?)</pre>', report, re.S).group(1)
    fingerprint = re.search(r"assert ds\.fingerprint == '([0-9a-f]{64})'", python).group(1)
    header = report.split('<h2 id="reproduce">')[0]
    assert fingerprint in header  # the dataset's fingerprint as the report's header shows it
    cli = re.search(r'<pre class="code" id="reproduce-cli">(.*?)</pre>', report, re.S).group(1)
    assert "--method grm" in cli and "experimental_design.tsv" in cli, cli
    named = re.search(r"--prior-group (\S+)", cli)  # the gene names on the command line too
    assert named and sorted(named.group(1).split(",")) == ["GENE1", "GENE2", "GENE3", "GENE4"], cli
    group = re.search(
        r"'prior_groups': prior_groups_from_names\(\[\[([^\]]+)\]\], ds.feature_names\)", python
    )
    assert group and group.group(1) == "'GENE1', 'GENE2', 'GENE3', 'GENE4'", python  # by name, one group
