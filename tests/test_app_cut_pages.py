"""Every ranking page draws its cut and names the rule: Groups (GDM), Online (SAOLA), Projection,
and the export of a selection that is not a ranking; the "adjust for" control starts from the
import plan's covariates."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from tests.test_app_pages import APP, TIMEOUT


def _run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def _digits() -> AppTest:
    at = _run(AppTest.from_file(APP, default_timeout=TIMEOUT))
    at.selectbox(key="sample").set_value("digits-0-vs-1")
    return _run(at)


def _compute(at: AppTest) -> AppTest:
    next(b for b in at.button if b.label.startswith("Compute")).click()
    return _run(at)


def _cut_chart(at: AppTest) -> dict:
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    titles = [str(f["layout"].get("title", {}).get("text", "")) for f in charts]
    return next(f for f, t in zip(charts, titles, strict=True) if t.startswith("the cut: "))


def test_groups_page_draws_gdms_one_se_cut_with_the_rule_named():
    at = _digits()
    at.switch_page("fsviz_app/views/groups.py")
    _run(at)
    rule = at.radio(key="gdm_cut_rule")
    assert rule.options == [
        "the method's own selection",
        "one-SE k of the CV curve",
        "stability selection (PFER bound)",
    ]
    rule.set_value("cv-1se")
    _compute(_run(at))
    fig = _cut_chart(at)
    k = int(fig["layout"]["title"]["text"].rsplit("= ", 1)[1])
    assert fig["layout"]["title"]["text"] == f"the cut: cv-1se: k = {k}"
    assert fig["layout"]["shapes"][0]["x0"] == k + 0.5
    words = f"cv-1se: k = {k}, the smallest k within one standard error"
    assert any(c.value.startswith(words) for c in at.caption)
    # the export of GDM's selection takes the same cut, and its CSV carries the rule
    at.switch_page("fsviz_app/views/compare.py")
    _run(at)
    gdm = next(o for o in at.selectbox(key="export_sel").options if o.startswith("GDM"))
    at.selectbox(key="export_sel").set_value(gdm)
    _run(at)
    at.radio(key="export_cut_rule").set_value("cv-1se")
    _run(at)
    table = at.dataframe[-1].value
    assert len(table) == k and table["rule"].str.startswith(f"cv-1se: k = {k}").all()


def test_online_page_draws_the_stability_cut_with_its_pfer_bound():
    at = _digits()
    at.switch_page("fsviz_app/views/online.py")
    _run(at)
    rule = at.radio(key="stream_cut_rule")
    assert rule.options == [
        "the method's own selection",
        "one-SE k of the CV curve",
        "stability selection (PFER bound)",
    ]
    rule.set_value("stability")
    _run(at)
    at.number_input(key="stream_cut_pi").set_value(0.9)
    _compute(_run(at))
    fig = _cut_chart(at)
    assert fig["layout"]["title"]["text"] == "the cut: stability:0.9"
    named = [c.value for c in at.caption if c.value.startswith("stability:0.9 (selection probability >= 0.9")]
    assert named and "PFER <=" in named[0]


def test_projection_page_projects_the_features_a_rule_keeps_and_names_it():
    at = _digits()
    at.switch_page("fsviz_app/views/grm.py")  # a base score and its GRM refinement
    _run(at)
    at.switch_page("fsviz_app/views/projection.py")
    _run(at)
    assert "Fisher" in at.selectbox(key="proj_left").value
    at.radio(key="proj_cut_l_rule").set_value("fdr")
    _compute(_run(at))
    fig = _cut_chart(at)
    assert fig["layout"]["title"]["text"] == "the cut: fdr:0.05"
    kept = int(fig["layout"]["shapes"][0]["x0"] - 0.5)
    pca = json.loads(at.get("plotly_chart")[-1].proto.spec)
    titles = [a["text"] for a in pca["layout"]["annotations"]]
    assert titles[0].startswith(f"Fisher score, fdr:0.05 ({kept} features;"), titles


def _covariate_script():
    import numpy as np
    import streamlit as st

    import fsviz_app.appkit as appkit
    from fsviz.data import Dataset

    rng = np.random.default_rng(0)
    names = np.array([f"s{i}" for i in range(40)])
    ann = {
        "batch": {s: f"b{i % 2}" for i, s in enumerate(names)},
        "age": {s: float(i) for i, s in enumerate(names)},
    }
    meta = {"sample_annotations": ann, "covariates": ["batch"]}  # the import plan's "covariate" role
    ds = Dataset(rng.normal(size=(40, 6)), np.arange(40) % 2, name="cov", sample_names=names, meta=meta)
    st.write(repr(appkit.adjust_for(ds, "c")))


def test_adjust_for_starts_from_the_import_plans_covariates():
    at = _run(AppTest.from_function(_covariate_script, default_timeout=60))
    box = at.multiselect(key="c")
    assert box.options == ["age", "batch"] and box.value == ["batch"]
    assert at.markdown[-1].value == "('batch',)"
    box.set_value([])
    _run(at)
    assert at.markdown[-1].value == "None"


def _batchy_upload() -> tuple[AppTest, list[str]]:
    """A table with sample ids and a label, and its sample annotations with a site column."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    n = 60
    site = rng.integers(0, 2, size=n)
    y = (rng.uniform(size=n) < np.where(site == 1, 0.8, 0.2)).astype(int)
    X = rng.normal(size=(n, 12))
    X[:, 0] += 1.5 * y
    X[:, 1:4] += 3.0 * site[:, None]
    ids = [f"s{i}" for i in range(n)]
    df = pd.DataFrame(X, columns=[f"g{j}" for j in range(12)])
    df.insert(0, "sample", ids)
    df["label"] = np.where(y == 1, "case", "control")
    pheno = pd.DataFrame({"sample": ids, "site": [f"site{s}" for s in site]})
    at = _run(AppTest.from_file(APP, default_timeout=TIMEOUT))
    at.radio(key="source").set_value("Upload")
    _run(at)
    at.file_uploader(key="upload").set_value(("batchy.csv", df.to_csv(index=False).encode(), "text/csv"))
    _run(at)
    box = next(u for u in at.get("file_uploader") if u.label.startswith("Sample annotations"))
    box.set_value(("pheno.csv", pheno.to_csv(index=False).encode(), "text/csv"))
    _run(at)
    target = next(s for s in at.selectbox if s.label == "Target column")
    if target.value != "label":
        target.set_value("label")
        _run(at)
    return at, ids


def test_compare_evaluation_and_benchmark_adjust_for_covariates_in_each_fold():
    at, _ = _batchy_upload()
    at.switch_page("fsviz_app/views/grm.py")  # a Fisher ranking and its GRM refinement
    _run(at)
    at.switch_page("fsviz_app/views/compare.py")
    _run(at)
    plain = at.dataframe[0].value
    at.multiselect(key="cmp_cov").set_value(["site"])
    next(b for b in at.button if b.label == "Evaluate").click()
    _run(at)
    adjusted = at.dataframe[0].value
    assert any(c.value.startswith("Adjusted for site: each selection is redone") for c in at.caption)
    cv = next(c for c in adjusted.columns if c.startswith("CV accuracy"))
    assert adjusted[cv].notna().all() and adjusted[cv].tolist() != plain[cv].tolist()
    at.switch_page("fsviz_app/views/benchmark.py")
    _run(at)
    at.multiselect(key="bench_methods").set_value(["fisher", "f"])
    at.multiselect(key="bench_cov").set_value(["site"])
    at.slider(key="bench_range").set_value((1, 5))
    next(b for b in at.button if b.label == "Run benchmark").click()
    _run(at)
    assert at.get("plotly_chart"), "no accuracy curves"
    # an unsupervised method cannot be adjusted in the folds: said plainly, no traceback
    at.multiselect(key="bench_methods").set_value(["fisher", "variance"])
    next(b for b in at.button if b.label == "Run benchmark").click()
    at.run()
    assert not at.exception
    assert any("supervised methods only" in e.value for e in at.error), [e.value for e in at.error]
