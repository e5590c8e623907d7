"""Safety of the run layer: cached results are read-only, everywhere they are handed out."""

import dataclasses
import inspect

import numpy as np
import pytest

import fsviz.compute as fc
import fsviz.compute.results as R
from fsviz.data import Dataset, make_grouped_classification

RESULT_CLASSES = [
    c
    for _, c in inspect.getmembers(R, inspect.isclass)
    if dataclasses.is_dataclass(c) and c.__module__ == R.__name__
]


@pytest.fixture(scope="module")
def toy():
    X, y, _ = make_grouped_classification(n_samples=80, n_features=40, n_groups=3, random_state=0)
    return Dataset(X, y, name="toy")


def test_every_result_class_is_covered():
    names = {c.__name__ for c in RESULT_CLASSES}
    assert {"Selection", "GroupResult", "ScoreResult", "GRMResult", "StreamResult", "ImagePanels"} <= names


@pytest.mark.parametrize("cls", RESULT_CLASSES, ids=lambda c: c.__name__)
def test_every_array_field_of_every_result_is_read_only(cls):
    values = {f.name: np.arange(3.0) for f in dataclasses.fields(cls)}
    values[dataclasses.fields(cls)[-1].name] = (np.arange(2), np.arange(2))  # arrays inside tuples too
    res = cls(**values)
    for f in dataclasses.fields(cls):
        value = getattr(res, f.name)
        for a in value if isinstance(value, tuple) else [value]:
            assert not a.flags.writeable, (cls.__name__, f.name)
            with pytest.raises(ValueError, match="read-only"):
                a[0] = 7


@pytest.mark.parametrize("method", ["gdm", "fisher", "mrmr", "saola"])
def test_executed_results_and_their_selections_cannot_be_changed_in_place(toy, method):
    res = fc.Run(method).execute(toy)
    before = res.selection().indices.copy()
    sel = res.selection()
    with pytest.raises(ValueError, match="read-only"):
        sel.indices[0] = sel.indices[-1]
    with pytest.raises(ValueError, match="read-only"):
        sel.indices.sort()
    assert np.array_equal(res.selection().indices, before)
    for f in dataclasses.fields(res):
        value = getattr(res, f.name)
        if isinstance(value, np.ndarray):
            assert not value.flags.writeable, f.name
