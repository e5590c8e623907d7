"""The benchmark view Run, its tables (summary, CSV) and its figures."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

import fsviz.compute as fc
from fsviz.compute import Run
from fsviz.data import Dataset
from fsviz.evaluate import benchmark
from fsviz.viz import accuracy_curves, clustering_curves


@pytest.fixture(scope="module")
def ds():
    rng = np.random.default_rng(5)
    y = np.repeat([0, 1], 30)
    X = rng.normal(size=(60, 10))
    X[:, 4] += 1.2 * y
    return Dataset(X, y=np.where(y == 1, "b", "a"), name="toy")


RUN = Run(
    "benchmark",
    {
        "methods": ("fisher", "variance"),
        "ks": (1, 3, 20),
        "classifiers": ("naive_bayes", "decision_tree"),
        "cv": 3,
        "n_repeats_kmeans": 2,
    },
    seed=2,
)


@pytest.fixture(scope="module")
def result(ds):
    return RUN.execute(ds)


def test_view_run_is_the_library_call(ds, result):
    with pytest.warns(UserWarning, match="clipped"):
        direct = benchmark(
            ds.X,
            ds.y,
            fc.benchmark_rankers(["fisher", "variance"], 2),
            ks=[1, 3, 20],
            classifiers=["naive_bayes", "decision_tree"],
            cv=3,
            n_repeats_kmeans=2,
            random_state=2,
        )
    cols = [c for c in direct.columns if c != "time"]
    pd.testing.assert_frame_equal(result.table[cols], direct[cols])
    assert isinstance(result, fc.BenchmarkResult) and result.fingerprint == ds.fingerprint
    assert result.notes and "clipped to k = 10" in result.notes[0]
    assert not RUN.spec.selects and RUN.spec.kind == "benchmark"


def test_view_run_needs_labels(ds):
    with pytest.raises(ValueError, match="class labels y are required"):
        RUN.execute(Dataset(ds.X, name="unlabelled"))


def test_summary_means_and_spreads(result):
    s = fc.benchmark_summary(result.table)
    t = result.table
    row = s[(s.method == "fisher") & (s.classifier == "naive_bayes") & (s.k == 3)]
    folds = t[(t.method == "fisher") & (t.classifier == "naive_bayes") & (t.k == 3)].accuracy
    assert row.accuracy.item() == pytest.approx(folds.mean())
    assert row.accuracy_std.item() == pytest.approx(np.std(folds))
    assert np.isnan(row.nmi.item())
    cl = s[(s.method == "variance") & (s.k == 1)]
    reps = t[(t.method == "variance") & (t.k == 1)]
    assert cl.nmi.item() == pytest.approx(reps.nmi.mean()) and cl.classifier.item() == "kmeans"
    assert len(s) == 2 * 3 + 3  # fisher: 2 classifiers x 3 ks; variance: 3 ks


def test_csv_round_trips(result):
    data = fc.benchmark_csv(result.table)
    back = pd.read_csv(io.BytesIO(data), dtype={"fold": "Int64", "repeat": "Int64"})
    pd.testing.assert_frame_equal(back, result.table, check_dtype=False)
    assert data.splitlines()[0].decode() == ",".join(result.table.columns)


def test_figures_one_panel_per_classifier_and_bands(result):
    s = fc.benchmark_summary(result.table)
    fig = accuracy_curves(s)
    assert [a.text for a in fig.layout.annotations] == ["naive Bayes", "decision tree"]
    lines = [t for t in fig.data if t.mode == "lines+markers"]
    bands = [t for t in fig.data if t.fill == "toself"]
    assert len(lines) == 2 and len(bands) == 2 and {t.name for t in lines} == {"fisher"}
    mean = s[(s.method == "fisher") & (s.classifier == "naive_bayes")].sort_values("k")
    np.testing.assert_allclose(lines[0].y, mean.accuracy)
    np.testing.assert_allclose(bands[0].y[: len(mean)], np.clip(mean.accuracy + mean.accuracy_std, 0, 1))
    cfig = clustering_curves(s)
    assert [t.name for t in cfig.data if t.mode == "lines+markers"] == ["variance", "variance"]
    with pytest.raises(ValueError, match="lacks"):
        accuracy_curves(pd.DataFrame({"method": ["a"]}))
