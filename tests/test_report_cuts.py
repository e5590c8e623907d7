"""The HTML report draws the cuts' views: the rule with its bound or spread, the line, p/q columns."""

import re

import fsviz.compute as fc
from fsviz.data import load_sample
from fsviz.report import build_report


def test_report_draws_each_cut():
    ds = load_sample("digits-0-vs-1")
    of = fc.Run("fisher", {}, 0)
    runs = [
        fc.cut_run(of, fc.parse_cut("cv-1se"), ks=(1, 5, 10), cv=3),
        fc.cut_run(of, fc.parse_cut("fdr:0.05"), n_permutations=199),
        fc.cut_run(of, fc.parse_cut("stability:0.8"), n_pairs=5),
        of,
    ]
    html = build_report(ds, runs, k=5, created="2026-12-02T00:00:00+00:00")
    for pattern in ("fdr:0.05 \\(Benjamini", "stability:0.8 \\(selection", "cv-1se: k = \\d+", "<th>q</th>"):
        assert re.search(pattern, html), pattern
    assert "<th>probability</th>" in html and "the cut: fdr:0.05" in html
    # sections in the fixed order of kinds: the score first, then the cuts
    assert html.index("Fisher score</a>") < html.index("Permutation significance")


def test_report_draws_the_cuts_of_gdm_and_saola():
    """The Groups and Online pages' cuts (the one-SE k on GDM's own order, stability selection of
    SAOLA) reach the report as the Compare page's do."""
    ds = load_sample("digits-0-vs-1")
    gdm, saola = fc.Run("gdm", {}, 0), fc.Run("saola", {}, 0)
    runs = [
        gdm,
        saola,
        fc.cut_run(gdm, fc.parse_cut("cv-1se"), ks=(1, 2, 5), cv=3),
        fc.cut_run(saola, fc.parse_cut("stability:0.8"), n_pairs=5),
    ]
    html = build_report(ds, runs, k=5, created="2026-12-02T00:00:00+00:00")
    assert re.search(r"cv-1se: k = [125], the smallest k within one standard error", html)
    assert "stability:0.8 (selection probability &gt;= 0.8 over 10 complementary-pair halves" in html
