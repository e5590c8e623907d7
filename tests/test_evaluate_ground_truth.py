"""success_hits against hand-computed cases in the TPAMI paper's form."""

from types import SimpleNamespace

import numpy as np
import pytest

from fsviz.evaluate import success_hits


@pytest.fixture
def truth():
    # 3 SFs with 2, 0, 1 affiliated features: 6 true features
    return SimpleNamespace(
        support=np.array([10, 20, 30]),
        groups={10: np.array([11, 12]), 20: np.array([], dtype=int), 30: np.array([31])},
    )


def test_selection_form(truth):
    h = success_hits([10, 20, 12, 99, 98], None, truth)
    assert h.triple == "2/1/2"
    assert (h.n_correct, h.n_truth) == (3, 6)
    assert h.rate == pytest.approx(0.5)
    assert h.n_spurious == 2


def test_grouping_form(truth):
    found_groups = {10: np.array([11, 12, 50]), 30: np.array([31]), 20: np.array([])}
    h = success_hits([10, 20, 30], found_groups, truth)
    assert h.triple == "3/0/0"
    assert h.n_correct == 6 and h.rate == 1.0
    assert h.n_matched == 6 and h.n_spurious == 1
    # an AF put under the wrong support feature is found but not matched
    h2 = success_hits([10, 30], {10: np.array([31]), 30: np.array([11])}, truth)
    assert h2.n_correct == 4 and h2.n_matched == 2
    assert "66.7%" in str(h2)


def test_af_selected_as_support_matches_its_group(truth):
    # GDM may pick an affiliated feature as the support feature of the group
    h = success_hits([11], {11: np.array([10, 12])}, truth)
    assert h.n_correct == 3 and h.n_matched == 3 and h.triple == "0/1/0"


def test_errors(truth):
    with pytest.raises(ValueError, match="attributes 'support'"):
        success_hits([1], None, object())
    with pytest.raises(ValueError, match="integer feature indices"):
        success_hits([1.5], None, truth)


def test_with_generator_ground_truth():
    from fsviz.data import make_grouped_classification

    X, _y, truth = make_grouped_classification(n_samples=200, n_features=300, n_groups=5, random_state=0)
    n_true = len(truth.support) + sum(len(v) for v in truth.groups.values())
    perfect = success_hits(truth.support, truth.groups, truth)
    assert perfect.rate == 1.0 and perfect.n_truth == n_true and perfect.n_matched == n_true
    assert perfect.triple == f"{len(truth.support)}/0/0"
    noise = [
        j
        for j in range(X.shape[1])
        if j not in set(truth.support) and all(j not in v for v in truth.groups.values())
    ][:3]
    h = success_hits(list(truth.support[:2]) + noise, None, truth)
    assert h.triple == "2/0/3" and h.rate == pytest.approx(2 / n_true)


def test_precision_reports_false_positives(truth):
    h = success_hits([10, 20, 12, 99, 98], None, truth)
    assert (h.n_found, h.n_spurious) == (5, 2)
    assert h.precision == pytest.approx(3 / 5) and h.selection_precision == pytest.approx(3 / 5)
    # a grouping with one spurious affiliated feature: full hit rate, precision 6/7
    g = success_hits([10, 20, 30], {10: np.array([11, 12, 50]), 30: np.array([31])}, truth)
    assert g.rate == 1.0 and g.precision == pytest.approx(6 / 7) and g.selection_precision == 1.0
    assert "precision 85.7% (6/7)" in str(g)
    # reporting everything gets the full hit rate but a low precision
    every = success_hits(np.arange(1000), None, truth)
    assert every.rate == 1.0 and every.precision == pytest.approx(6 / 1000)
    empty = success_hits(np.array([], dtype=int), None, truth)
    assert empty.precision == 0.0 and empty.selection_precision == 0.0 and empty.n_found == 0
