"""The Compare and export page cuts a ranking by a rule: the control, the drawn cut, the export's
p, q and rule columns."""

from __future__ import annotations

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

import fsviz.compute as fc

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def _run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_export_cut_by_fdr_draws_the_line_and_exports_p_q_rule():
    at = _run(AppTest.from_file(APP, default_timeout=180))
    at.selectbox(key="sample").set_value("digits-0-vs-1")
    _run(at)
    at.switch_page("fsviz_app/views/grm.py")
    _run(at)
    # the GRM page offers the rules that apply to a GRM ranking (no FDR: GRM is not a score)
    assert at.radio(key="grm_cut_rule").options == [
        "top k (a number you choose)",
        "one-SE k of the CV curve",
        "stability selection (PFER bound)",
    ]
    at.switch_page("fsviz_app/views/compare.py")
    _run(at)
    score = next(o for o in at.selectbox(key="export_sel").options if o.startswith("Fisher score"))
    at.selectbox(key="export_sel").set_value(score)
    _run(at)
    rule = at.radio(key="export_cut_rule")
    assert rule.options[:2] == ["top k (a number you choose)", "FDR: permutation q-values (BH)"]
    rule.set_value("fdr")
    _run(at)
    next(b for b in at.button if b.label.startswith("Compute Permutation")).click()
    _run(at)
    fig = json.loads(at.get("plotly_chart")[-1].proto.spec)
    assert fig["layout"]["title"]["text"] == "the cut: fdr:0.05"
    table = at.dataframe[-1].value
    assert list(table.columns) == [*fc.SELECTION_COLUMNS, "p", "q", "rule"] and (table["q"] <= 0.05).all()
    assert fig["layout"]["shapes"][0]["x0"] == len(table) + 0.5
    at.number_input(key="export_cut_q").set_value(0.2)
    _run(at)
    assert len(at.dataframe[-1].value) >= len(table)
    assert any(c.value.startswith("fdr:0.2 (Benjamini-Hochberg") for c in at.caption)
    # the Stability page offers the same cuts for the selection it resamples
    at.switch_page("fsviz_app/views/stability.py")
    _run(at)
    assert at.radio(key="stab_cut_rule").options[-1] == "stability selection (PFER bound)"


def _cut_script():
    import numpy as np
    import streamlit as st

    import fsviz.compute as fc
    import fsviz_app.appkit as appkit
    from fsviz.data import Dataset

    rng = np.random.default_rng(0)
    n = 80
    batch = rng.integers(0, 2, size=n)
    y = (rng.uniform(size=n) < np.where(batch == 1, 0.8, 0.2)).astype(int)
    X = rng.normal(size=(n, 12))
    X[:, 0] += 1.5 * y
    X[:, 1:4] += 3.0 * batch[:, None]  # batch-only features
    names = np.array([f"s{i}" for i in range(n)])
    meta = {"sample_annotations": {"batch": {s: f"b{b}" for s, b in zip(names, batch, strict=True)}}}
    ds = Dataset(X, y, name="batchy", sample_names=names, meta=meta)
    sel = appkit.cut_control(ds, fc.Run("f", {}, 0), key="t")
    if sel is not None:
        st.dataframe(fc.selection_frame(sel, ds.feature_names))


def test_cut_control_adjusts_for_sample_annotations():
    at = _run(AppTest.from_function(_cut_script, default_timeout=120))
    at.radio(key="t_rule").set_value("fdr")
    _run(at)
    at.number_input(key="t_q").set_value(0.1)
    _run(at)
    next(b for b in at.button if b.label.startswith("Compute")).click()
    _run(at)
    plain = set(at.dataframe[-1].value["index"])
    assert {1, 2, 3} <= plain  # the batch looks like signal
    at.multiselect(key="t_cov").set_value(["batch"])
    _run(at)
    next(b for b in at.button if b.label.startswith("Compute")).click()
    _run(at)
    adjusted = set(at.dataframe[-1].value["index"])
    assert 0 in adjusted and not adjusted & {1, 2, 3}
