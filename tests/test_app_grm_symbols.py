"""AppTest: the GRM page's pasted prior groups by gene symbol (the feature annotations' display
names) as well as by probe ID; a symbol shared by two probes takes both and says so."""

from __future__ import annotations

import gzip

import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest

from tests.omics_files import geo_platform
from tests.test_app_pages import APP, TIMEOUT, button, goto
from tests.user_files import geo_series_matrix

PROBES = [f"{1000 + j}_at" for j in range(40)]


def test_pasted_symbols_take_every_probe_of_the_gene_and_unknown_ones_get_near_names():
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.radio(key="source").set_value("Upload").run()
    matrix = gzip.compress(geo_series_matrix(n_probes=40, n_samples=12))
    at.file_uploader(key="upload").set_value(("GSE1_series_matrix.txt.gz", matrix, "application/gzip")).run()
    box = next(u for u in at.get("file_uploader") if u.label.startswith("Feature annotations"))
    box.set_value(("GPL570.txt.gz", gzip.compress(geo_platform(PROBES)), "application/gzip")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    goto(at, "grm")
    assert "(IDs or gene symbols; a symbol takes all its features)" in at.text_area(key="prior_text").label
    at.text_area(key="prior_text").set_value("DDR1, SYM5\nSYM7, 1008_at").run()
    button(at, "Add pasted groups").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any(
        "'DDR1' names 2 features (1000_at, 1001_at): all of them are in group 1" in i.value for i in at.info
    )
    assert any(c.value.startswith("2 prior groups over 5 features") for c in at.caption)
    groups = next(d.value for d in at.dataframe if "features" in d.value.columns)
    assert groups["features"].tolist() == ["1000_at, 1001_at, 1005_at", "1007_at, 1008_at"]
    at.text_area(key="prior_text").set_value("SYM10, DDR2").run()
    button(at, "Add pasted groups").click().run()
    assert any("unknown feature name(s) 'DDR2' (did you mean 'DDR1'" in e.value for e in at.error)
    assert any(c.value.startswith("2 prior groups over 5 features") for c in at.caption)  # nothing coerced
