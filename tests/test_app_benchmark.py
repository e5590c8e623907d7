"""AppTest of the Benchmark page: curves, table and a CSV equal to the library's."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("streamlit")

import fsviz.compute as fc
import fsviz_app.appkit as appkit
from fsviz.data import load_sample
from fsviz.evaluate import benchmark
from tests.test_app_pages import figure, goto, sample_named, start


@pytest.fixture(scope="module")
def digits() -> str:
    return sample_named("digit")


def _small_run(at):
    at.multiselect(key="bench_methods").set_value(["fisher", "variance"])
    at.multiselect(key="bench_clfs").set_value(["naive_bayes", "decision_tree"])
    at.slider(key="bench_range").set_value((5, 15))
    at.select_slider(key="bench_cv").set_value(3)
    at.select_slider(key="bench_reps").set_value(5)
    next(b for b in at.button if b.label == "Run benchmark").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return at


def test_benchmark_page_runs_on_press_and_matches_the_library(digits):
    at = goto(start(digits), "benchmark")
    assert at.title[0].value == "Benchmark (survey protocol)"
    assert any("press **Run benchmark**" in i.value for i in at.info)
    assert not at.get("plotly_chart")  # nothing runs before the button
    at = _small_run(at)
    acc, clu = figure(at, 0), figure(at, 1)
    assert [a["text"] for a in acc["layout"]["annotations"]] == ["naive Bayes", "decision tree"]
    assert {t.get("name") for t in acc["data"] if t.get("mode") == "lines+markers"} == {"fisher"}
    assert {t.get("name") for t in clu["data"] if t.get("mode") == "lines+markers"} == {"variance"}
    shown = at.dataframe[0].value
    assert set(shown["method"]) == {"fisher", "variance"} and sorted(shown["k"].unique()) == [5, 10, 15]

    ds = load_sample(digits)
    want = benchmark(
        ds,
        None,
        fc.benchmark_rankers(["fisher", "variance"], 0),
        ks=[5, 10, 15],
        classifiers=["naive_bayes", "decision_tree"],
        cv=3,
        n_repeats_kmeans=5,
        random_state=0,  # the app's default seed
    )
    summary = fc.benchmark_summary(want)
    cols = ["method", "classifier", "k", "accuracy", "nmi", "acc"]
    pd.testing.assert_frame_equal(
        shown[cols].reset_index(drop=True), summary[cols].reset_index(drop=True), check_dtype=False
    )


def test_benchmark_page_reports_stability_next_to_accuracy(digits):
    at = goto(start(digits), "benchmark")
    at.checkbox(key="bench_stability").check()
    at = _small_run(at)
    table = next(d.value for d in at.dataframe if "accuracy" in d.value.columns)
    rows = table[table["kind"] == "classification"]
    assert {"kuncheva", "group_kuncheva"} <= set(table.columns)
    assert rows["kuncheva"].notna().all() and (rows["group_kuncheva"] >= rows["kuncheva"] - 1e-12).all()
    assert table.loc[table["kind"] == "clustering", "kuncheva"].isna().all()  # one selection, no folds


def test_benchmark_page_on_a_dataset_without_labels_says_so():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(40, 5)), columns=[f"g{i}" for i in range(5)])
    at = start()
    at.radio(key="source").set_value("Upload").run()
    at.file_uploader(key="upload").set_value(
        ("plain.csv", frame.to_csv(index=False).encode(), "text/csv")
    ).run()
    next(s for s in at.selectbox if s.label == "Target column").set_value(appkit.NO_TARGET).run()
    at = goto(at, "benchmark")
    assert not at.exception and not at.error
    assert any("has no class labels" in i.value for i in at.info)
    assert not at.get("plotly_chart")


def test_benchmark_page_error_shows_and_page_survives(digits):
    at = goto(start(digits), "benchmark")
    at.multiselect(key="bench_methods").set_value([])
    next(b for b in at.button if b.label == "Run benchmark").click().run()
    assert not at.exception
    assert any("at least one method" in e.value for e in at.error)
    at = _small_run(at)
    assert len(at.get("plotly_chart")) == 2
