"""Stability selection with complementary pairs (fsviz.evaluate.stability_selection): halves,
probabilities against a brute-force loop, group counts, the PFER bound."""

from __future__ import annotations

import numpy as np
import pytest

from fsviz.evaluate import complementary_pairs, group_frequency, pfer_bound, stability_selection
from fsviz.select import FScore


def _data(n=60, m=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, m))
    y = np.repeat([0, 1], n // 2)
    X[y == 1, :3] += 1.5
    X[:, 3] = X[:, 0] + 0.1 * rng.normal(size=n)  # a near copy of feature 0: one group
    return X, y


def test_halves_are_disjoint_stratified_and_seeded():
    y = np.array([0] * 7 + [1] * 10)
    pairs = complementary_pairs(y, 5, random_state=0)
    for a, b in pairs:
        assert np.intersect1d(a, b).size == 0 and a.size == b.size == 3 + 5
        assert (y[a] == 0).sum() == (y[b] == 0).sum() == 3
    again = complementary_pairs(y, 5, random_state=0)
    assert all(
        np.array_equal(a, c) and np.array_equal(b, d) for (a, b), (c, d) in zip(pairs, again, strict=True)
    )


def test_probabilities_equal_a_loop_over_halves():
    X, y = _data()
    groups = [np.array([0, 3]), np.array([1]), np.array([2])]
    res = stability_selection(FScore(), X, y, k=4, n_pairs=6, groups=groups, random_state=2)
    subsets = []
    for a, b in complementary_pairs(y, 6, random_state=2):
        for h in (a, b):
            s = FScore().fit(X[h], y[h]).scores_
            subsets.append(np.argsort(-s, kind="stable")[:4])
    freq = np.zeros(X.shape[1])
    for s in subsets:
        freq[s] += 1
    np.testing.assert_allclose(res.probabilities, freq / 12)
    np.testing.assert_allclose(res.group_probabilities, group_frequency(subsets, groups, X.shape[1]))
    assert res.q == 4 and len(res.subsets) == 12
    assert res.group_probabilities[0] >= max(res.probabilities[0], res.probabilities[3])
    hit = np.mean([sum(bool(set(s.tolist()) & set(g.tolist())) for g in groups) for s in subsets])
    assert res.q_groups == pytest.approx(hit)
    assert res.group_pfer(0.8) == pytest.approx(hit**2 / (0.6 * 3))


def test_stable_set_and_pfer():
    X, y = _data(n=80, seed=1)
    res = stability_selection(FScore(), X, y, k=5, n_pairs=10, random_state=0)
    assert set(res.selected(0.9).tolist()) <= set(np.flatnonzero(res.probabilities >= 0.9).tolist())
    assert {0, 1, 2} <= set(res.selected(0.7).tolist())
    assert res.pfer(0.8) == pytest.approx(25 / (0.6 * 40)) == pfer_bound(5, 40, 0.8)
    assert np.all(np.diff(res.probabilities[res.selected(0.6)]) <= 0)


def test_callable_selector_and_errors():
    X, y = _data()
    res = stability_selection(lambda Xh, yh: [0, 5], X, y, n_pairs=2, random_state=0)
    assert res.probabilities[0] == res.probabilities[5] == 1 and res.probabilities.sum() == 2
    for bad in (0.5, 1.2, True):
        with pytest.raises(ValueError, match="threshold must be in \\(0.5, 1\\]"):
            res.selected(bad)
    with pytest.raises(ValueError, match="'n_pairs'"):
        stability_selection(FScore(), X, y, k=3, n_pairs=0)
    with pytest.raises(ValueError, match="'k' is required"):
        stability_selection(FScore(), X, y, n_pairs=1)


@pytest.mark.slow
def test_false_selections_stay_under_the_pfer_bound():
    """20 seeds of planted groups: the mean number of false stable features <= the bound (+2 SE)."""
    from fsviz.data import make_grouped_classification

    v, bounds = [], []
    for seed in range(20):
        X, y, truth = make_grouped_classification(
            n_samples=100, n_features=200, n_groups=4, max_affiliates=2, random_state=seed
        )
        true = set(truth.support.tolist()) | {int(a) for g in truth.groups.values() for a in g}
        res = stability_selection(FScore(), X, y, k=10, n_pairs=25, random_state=seed)
        v.append(sum(i not in true for i in res.selected(0.8)))
        bounds.append(res.pfer(0.8))
    v = np.asarray(v, dtype=float)
    assert v.mean() <= np.mean(bounds) + 2 * v.std(ddof=1) / np.sqrt(20)
