"""Validation helpers: label requirements for supervised methods, finite checks, constant warnings."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from fsviz.data import Dataset, DataWarning, check_classification, require_labels
from fsviz.data.validation import check_finite, names_preview, warn_constant


def test_require_labels():
    ds = Dataset(np.eye(3), y=[0, 1, 0])
    assert require_labels(ds, who="FisherScore").tolist() == [0, 1, 0]
    with pytest.raises(
        ValueError,
        match=r"FisherScore: needs class labels, but dataset 'u' has none \(y is None\)\. "
        r"Fix: load it with a label column",
    ):
        require_labels(Dataset(np.eye(3), name="u"), who="FisherScore")


def test_check_classification_ok():
    classes, counts = check_classification(np.array([2, 1, 2, 2]), who="GDM")
    assert classes.tolist() == [1, 2] and counts.tolist() == [1, 3]
    classes, counts = check_classification(Dataset(np.eye(4), y=["a", "b", "a", "b"]), min_per_class=2)
    assert counts.tolist() == [2, 2]


def test_check_classification_errors():
    with pytest.raises(
        ValueError,
        match=r"GDM: needs at least 2 classes in y; got a single class \(1\) among 3 "
        r"samples\. Fix: choose another label column",
    ):
        check_classification([1, 1, 1], who="GDM")
    with pytest.raises(
        ValueError, match=r"ReliefF: every class needs at least 3 samples; class\(es\) \[0\] have 1"
    ):
        check_classification([0, 1, 1, 1], who="ReliefF", min_per_class=3)
    with pytest.raises(ValueError, match=r"needs class labels, but y is continuous \(e\.g\. 0\.5\)"):
        check_classification([0.5, 1.0, 2.0])
    with pytest.raises(ValueError, match=r"y has 2 labels but X has 3 samples"):
        check_classification([0, 1], n_samples=3)
    with pytest.raises(ValueError, match=r"y must be 1-D; got shape \(2, 2\)"):
        check_classification([[0, 1], [1, 0]])
    with pytest.raises(ValueError, match=r"needs class labels; got y=None"):
        check_classification(None)
    with pytest.raises(ValueError, match=r"has none"):
        check_classification(Dataset(np.eye(2)), who="MRMR")
    with pytest.raises(ValueError, match=r"1 missing/non-finite labels"):
        check_classification(np.array([0.0, np.nan, 1.0]))


def test_check_finite_dense_and_sparse_positions():
    X = np.zeros((3, 3))
    X[0, 2] = np.nan
    X[2, 0] = -np.inf
    with pytest.raises(
        ValueError,
        match=r"X must be finite; found 2 non-finite value\(s\) \(1 missing/NaN, 1 infinite\) "
        r"in 2 column\(s\) \['c', 'a'\]|in 2 column\(s\) \['a', 'c'\]",
    ):
        check_finite(X, ["a", "b", "c"], who="t")
    with pytest.raises(ValueError, match=r"row 0 column 'c' \(NaN\); row 2 column 'a' \(-inf\)"):
        check_finite(sp.csc_matrix(X), ["a", "b", "c"], who="t")
    check_finite(np.ones((2, 2)))  # no error
    many = np.full((2, 8), np.nan)
    with pytest.raises(ValueError, match=r"16 non-finite.* and 11 more"):
        check_finite(many)


def test_warn_constant_and_preview():
    with pytest.warns(DataWarning, match=r"12 constant feature\(s\) \['f0', .*'f9'\] \(\+2 more\) are kept"):
        warn_constant(np.arange(12), [f"f{j}" for j in range(12)])
    with warnings_none():
        warn_constant(np.array([], dtype=int), [])
    assert names_preview(["a", "b", "c"], 2) == "['a', 'b'] (+1 more)"
    assert names_preview([np.int64(3)]) == "[3]"


class warnings_none:
    """Context manager asserting no warning is emitted."""

    def __enter__(self):
        import warnings

        self._cm = warnings.catch_warnings(record=True)
        self.rec = self._cm.__enter__()
        warnings.simplefilter("always")
        return self

    def __exit__(self, *exc):
        self._cm.__exit__(*exc)
        assert not self.rec, [str(w.message) for w in self.rec]
