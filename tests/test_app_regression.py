"""AppTest of every page on the diabetes sample (a continuous target).

Each page says what it does with a continuous target, offers only the methods valid for
it, labels quality as R²/RMSE (never accuracy), and shows a method that needs class
labels as an ``st.error`` message, never as an exception.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("streamlit")

from test_app_pages import arr, button, figure, goto, metric, start

import fsviz.compute as fc
from fsviz.data import load_sample

SAMPLE = "diabetes"


@pytest.fixture(scope="module")
def app():
    """One session on the diabetes sample, shared by the page tests (results stay cached)."""
    return start(SAMPLE)


def _no_accuracy(at) -> None:
    texts = [m.label for m in at.metric] + [c.value for c in at.caption]
    assert not any("accuracy" in t.lower() for t in texts), texts


def test_data_page_shows_the_target_kind_and_its_distribution(app):
    at = app  # the Data page is the entry page
    assert at.title[0].value == "Data"
    assert metric(at, "target") == "continuous" and metric(at, "classes") == "none"
    assert any(s.value == "Continuous target" for s in at.subheader)
    stats = next(d.value for d in at.dataframe if list(d.value.columns) == ["statistic", "value"])
    table = dict(zip(stats["statistic"], stats["value"], strict=True))
    assert table["kind"] == "continuous" and table["distinct values"] != "2"
    fig = figure(at)
    assert fig["layout"]["title"]["text"].startswith("Distribution of the continuous target (442 samples)")
    assert int(arr(fig["data"][0]["y"]).sum()) == 442
    assert not at.error and not at.exception


def test_groups_page_runs_gdm_regression(app):
    at = goto(app, "groups")
    assert any("Continuous target: GDM runs its regression form" in i.value for i in at.info)
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert int(next(m.value for m in at.metric if m.label == "support features (SF)")) >= 1
    assert not any(s.key == "gdm_positive" for s in at.selectbox)  # no classes to pick from


def test_image_masks_and_correlation_pages(app):
    at = goto(app, "image_masks")
    assert any("no image shape" in i.value for i in at.info) and not at.exception
    at = goto(app, "correlation_sparsity")
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("with the continuous target" in c.value for c in at.caption)
    assert len(at.get("plotly_chart")) >= 1


def test_grm_page_offers_regression_scores_and_reports_r2(app):
    at = goto(app, "grm")
    base = next(s for s in at.selectbox if s.label == "base score")
    want = {fc.method(n).label for n in fc.methods_for("continuous", kinds=("score",))}
    assert set(base.options) == want and base.value == "laplacian"  # the default without classes
    assert (
        "Fisher score" not in base.options and "F-score" in base.options and "|Spearman rho|" in base.options
    )
    assert any("only base scores with a regression form" in c.value for c in at.caption)
    base.set_value("f")
    button(at, "Run GRM").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any(m.label.startswith("CV R² of top") for m in at.metric)
    assert any(
        c.value.startswith("CV R² with the selection redone") and "RMSE" in c.value for c in at.caption
    )
    _no_accuracy(at)


def test_online_page_streams_with_fisher_z(app):
    at = goto(app, "online")
    data = at.selectbox(key="saola_data")
    assert "discrete" not in data.options
    assert any("Fisher's Z test of each feature's correlation" in c.value for c in at.caption)
    if not at.metric:  # not run automatically yet
        button(at, "Run stream").click().run()
    assert 1 <= int(metric(at, "final selection")) <= 10
    assert not at.exception and not at.error


def test_projection_colours_by_the_target(app):
    # GDM's run first: the store is shared by every session of the worker, and a test in another
    # module may have let this session's earlier GDM result go
    at = goto(goto(app, "groups"), "projection")
    fig = figure(at)
    traces = [t for t in fig["data"] if t["type"] == "scattergl"]
    assert len(traces) == 2  # one per panel, not one per distinct target value
    assert traces[0]["marker"]["colorscale"] and traces[0]["marker"]["showscale"]
    assert "continuous target" in fig["layout"]["title"]["text"]
    assert not at.exception


def test_stability_page(app):
    # the selection it resamples first (see test_projection_colours_by_the_target)
    at = goto(goto(app, "groups"), "stability")
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert 0.0 <= float(metric(at, "Jaccard index")) <= 1.0


def test_compare_page_reports_r2_and_rmse(app):
    at = goto(app, "compare")
    table = at.dataframe[0].value
    assert {fc.CV_R2_HONEST, fc.CV_RMSE, fc.CV_STD, "redundancy"} <= set(table.columns)
    assert fc.CV_HONEST not in table.columns and fc.CV_R2_BIASED not in table.columns
    assert table[fc.CV_R2_HONEST].notna().all() and (table[fc.CV_RMSE] > 0).all()
    assert figure(at)["layout"]["yaxis"]["title"]["text"] == fc.CV_R2_HONEST
    assert any("CV R² and RMSE" in c.value for c in at.caption)
    _no_accuracy(at)
    at.checkbox(key="cmp_biased").check()
    button(at, "Evaluate").click().run()
    assert at.dataframe[0].value[fc.CV_R2_BIASED].notna().all() and not at.exception


def test_class_only_method_is_a_message_not_a_crash():
    ds = load_sample(SAMPLE)
    with pytest.raises(ValueError, match="Fisher score needs class labels; y looks continuous"):
        fc.Run("fisher", {}, seed=0).execute(ds)


def test_image_panels_of_a_continuous_target():
    ds = load_sample(SAMPLE)  # 10 features drawn as 2 x 5 "images"
    res = fc.Run("images", {"shape": (2, 5), "n_examples": 3}, seed=0).execute(ds)
    assert res.means.shape == (2, 2, 5) and len(res.example_labels) == 3
    assert all(lab.startswith("y = ") for lab in res.example_labels)
    low = ds.y <= np.median(ds.y)
    np.testing.assert_allclose(res.means[0].ravel(), ds.X[low].mean(0))
    np.testing.assert_allclose(res.means[1].ravel(), ds.X[~low].mean(0))
