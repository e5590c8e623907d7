"""AppTest: a GEO series matrix as downloaded plus its platform table, uploaded as the Data page's
"Feature annotations": the Groups page's tiles and the exported selection show the gene symbols
with the probe IDs kept."""

from __future__ import annotations

import gzip
import json

import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest

import fsviz.compute as fc
import fsviz_app.appkit as appkit
from tests.omics_files import geo_platform
from tests.test_app_pages import APP, TIMEOUT, button, goto
from tests.user_files import geo_series_matrix

PROBES = [f"{1000 + j}_at" for j in range(40)]


def _dataset(at: AppTest):
    return appkit.state._datasets().get(at.session_state["dataset_key"])


def _features_box(at: AppTest):
    return next(u for u in at.get("file_uploader") if u.label.startswith("Feature annotations"))


def test_a_platform_table_upload_labels_the_groups_tiles_and_the_export_with_symbols():
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.radio(key="source").set_value("Upload").run()
    matrix = gzip.compress(geo_series_matrix(n_probes=40, n_samples=12))
    at.file_uploader(key="upload").set_value(("GSE1_series_matrix.txt.gz", matrix, "application/gzip")).run()
    assert not at.exception, [e.value for e in at.exception]
    assert _dataset(at).feature_labels.tolist()[:2] == PROBES[:2]
    # a platform whose key is not the probe IDs: an error on the page, the session stays usable
    _features_box(at).set_value(("wrong.csv", b"ID,Gene Symbol\nILMN_1,A\nILMN_2,B\n", "text/csv")).run()
    assert not at.exception and any(
        "no identifier column holds the feature names" in e.value for e in at.error
    )
    platform = gzip.compress(geo_platform(PROBES))
    _features_box(at).set_value(("GPL570-55999.txt.gz", platform, "application/gzip")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    ds = _dataset(at)
    assert ds.feature_labels.tolist()[:4] == [
        "DDR1 (1000_at)",
        "DDR1 (1001_at)",
        "1002_at",
        "RFC2 /// MIR4640 (1003_at)",
    ]
    assert ds.meta["plan"]["feature_annotations"] == "GPL570-55999.txt.gz"  # the reproduce lines name it
    goto(at, "groups")
    button(at, "Run GDM").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    tree = next(c for c in at.get("plotly_chart") if "treemap" in c.proto.spec)
    labels = " ".join(str(v) for v in json.loads(tree.proto.spec)["data"][0]["labels"])
    assert "(10" in labels and "SYM" in labels  # "SYMBOL (probe)" tiles
    at.selectbox(key="why_gdm").set_value(4).run()  # "Why not this feature?" by its label
    assert not at.exception and not at.error, [e.value for e in at.error]
    why = [i.value for i in at.info] + [s.value for s in at.success]
    assert any("SYM4 (1004_at)" in t for t in why), why
    sel = fc.Run("fisher").execute(ds).selection(5)
    export = fc.read_selection_csv(appkit.export_csv(ds, sel, explained=False))
    assert export["name"].tolist() == [PROBES[j] for j in sel.indices]
    assert export["display_name"].tolist() == [ds.feature_info["display_name"].iloc[j] for j in sel.indices]


_WIDE_PICKER = """
if __name__ == "__main__":
    import numpy as np
    import pandas as pd
    import streamlit as st

    from fsviz.data import Dataset
    from fsviz_app.appkit.explain import _pick_feature

    m = 1200  # over the picker's list limit: a name is typed
    ids = [f"ENSG{j:05d}" for j in range(m)]
    info = pd.DataFrame({"display_name": [f"GENE{j}" if j % 2 else "" for j in range(m)]}, index=ids)
    X = np.random.default_rng(0).normal(size=(6, m))
    ds = Dataset(X, y=np.array([0, 1] * 3), feature_names=ids, meta={"feature_info": info})
    st.session_state["picked"] = _pick_feature(ds, "t")
"""


@pytest.mark.parametrize(
    ("typed", "index", "warned"),
    [
        ("ENSG00007", 7, False),
        ("GENE7 (ENSG00007)", 7, False),
        ("GENE9", 9, False),
        ("", None, False),
        ("ENSG0000", None, True),
        ("nothing", None, True),
    ],
)
def test_why_not_at_width_finds_a_typed_id_label_or_symbol(typed, index, warned):
    at = AppTest.from_string(_WIDE_PICKER, default_timeout=60).run()
    at.text_input(key="why_name_t").set_value(typed).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["picked"] == index
    assert bool(at.warning) == warned
    if typed == "ENSG0000":  # a part of names: the closest are offered
        assert "Names containing it: ENSG00000" in at.warning[0].value
