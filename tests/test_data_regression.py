"""A continuous target through the data layer: loaders keep it, Dataset knows its kind,
suggest_targets still proposes it, and the bundled diabetes sample is scikit-learn's data."""

import io

import numpy as np
import pandas as pd

from fsviz.data import Dataset, load_dataset
from fsviz.data.roles import suggest_targets
from fsviz.data.samples import make_sample


def _csv(frame: pd.DataFrame) -> io.BytesIO:
    return io.BytesIO(frame.to_csv(index=False).encode())


def test_a_float_label_column_stays_a_continuous_target():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(200, 4)), columns=list("abcd"))
    frame["price"] = rng.normal(size=200) * 1000
    ds = load_dataset(_csv(frame), label="price", fmt="csv")
    assert ds.y.dtype == np.float64 and ds.target_kind == "continuous" and ds.class_names is None
    np.testing.assert_allclose(ds.y, frame["price"].to_numpy())
    assert ds.summary().label_kind == "continuous" and ds.summary().classes == ()
    assert "continuous target" in repr(ds)


def test_whole_number_floats_are_classes_and_no_target_is_none():
    X = np.arange(12.0).reshape(6, 2)
    assert Dataset(X, y=np.array([0.0, 1.0, 2.0, 0.0, 1.0, 2.0])).target_kind == "classes"
    assert Dataset(X, y=np.array(["a", "b"] * 3)).target_kind == "classes"
    assert Dataset(X).target_kind is None


def test_suggest_targets_keeps_a_continuous_target_but_not_identifiers():
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.normal(size=(50, 3)), columns=["g1", "g2", "g3"])
    frame["target"] = rng.normal(size=50)  # fractional, distinct in every row
    frame["id"] = np.arange(50)  # whole numbers, distinct in every row: an identifier
    frame["sample_label"] = [f"s{i}" for i in range(50)]  # text, distinct: an identifier
    assert suggest_targets(frame) == ["target"]


def test_diabetes_sample_is_sklearns_with_a_standardised_target():
    from sklearn.datasets import load_diabetes

    ds = make_sample("diabetes")
    bunch = load_diabetes(scaled=False)
    np.testing.assert_array_equal(ds.X, bunch.data)
    y = bunch.target
    np.testing.assert_allclose(ds.y, (y - y.mean()) / y.std())
    assert ds.target_kind == "continuous" and list(ds.feature_names) == list(bunch.feature_names)
