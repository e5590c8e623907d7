"""AppTest: a GEO series matrix as downloaded plus its platform table, uploaded as the Data page's
"Feature annotations": the Groups page's tiles and the exported selection show the gene symbols
with the probe IDs kept."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest

import fsviz.compute as fc
import fsviz_app.appkit as appkit
from fsviz.data import Dataset
from tests.omics_files import geo_platform
from tests.test_app_pages import APP, TIMEOUT, button, goto, metric
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


def why_data():
    """40 x 30 normal data, feature 3 a near-copy of feature 0 (the AppTest script loads it too)."""
    X = np.random.default_rng(0).normal(size=(40, 30))
    X[:, 3] = X[:, 0] + 0.1 * X[:, 5]
    return Dataset(X, y=(X[:, 0] > 0).astype(int), name="why")


_WHY_NOT = """
if __name__ == "__main__":
    import streamlit as st

    import fsviz.compute as fc
    from fsviz_app.appkit.explain import why_not
    from fsviz_app.appkit.results import stored
    from fsviz_app.appkit.state import ResultKey, result_store
    from tests.test_app_feature_annotations import why_data

    ds = why_data()
    run = fc.Run("fisher", {}, 0)
    res = run.execute(ds)
    if st.session_state.get("store_selection"):
        result_store().put(ResultKey(ds.fingerprint, run.key), res)
    why_not(ds, res.selection(3), "t")
    st.session_state["explained"] = stored(ds, fc.explain_run(run, 3)) is not None
"""


@pytest.mark.parametrize("in_store", [True, False])
def test_why_not_explains_one_feature_unless_the_selection_left_the_store(in_store):
    """The selection stored: that feature's stand-in only, the explanation of every feature
    not computed; evicted: the explanation of every feature, as before. The same answer."""
    appkit.state.result_store().data.clear()  # process-wide: another test may hold the explanation
    at = AppTest.from_string(_WHY_NOT, default_timeout=60)
    at.session_state["store_selection"] = in_store
    at.run()
    j = 14
    at.selectbox(key="why_t").set_value(j).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.session_state["explained"] is not in_store
    ds = why_data()
    want = fc.explain_run(fc.Run("fisher", {}, 0), 3).execute(ds).lookup(j, ds.feature_labels)
    assert metric(at, "stand-in") == want.stand_in_name
    assert metric(at, "correlation (ρ)") == f"{want.stand_in_corr:+.3f}"
    assert metric(at, "rank") == f"{want.rank:,} of {want.n_features:,}"
    assert [i.value for i in at.info] == [want.text]
