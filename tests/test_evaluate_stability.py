"""Kuncheva index and Jaccard against the textbook formulas."""

import itertools

import numpy as np
import pytest

from fsviz.evaluate import selection_stability, subsample_stability


def kuncheva_ref(A, B, n):
    k = len(A)
    r = len(set(A) & set(B))
    return (r * n - k * k) / (k * (n - k))


def test_kuncheva_textbook(rng):
    n = 50
    sets = [rng.choice(n, 7, replace=False) for _ in range(5)]
    want = np.mean([kuncheva_ref(a, b, n) for a, b in itertools.combinations(sets, 2)])
    assert selection_stability(sets, n) == pytest.approx(want)


def test_kuncheva_hand_values():
    # identical sets -> 1; disjoint sets of size k=n/2 -> -1
    assert selection_stability([[0, 1], [0, 1]], 10) == pytest.approx(1.0)
    assert selection_stability([[0, 1], [2, 3]], 4) == pytest.approx(-1.0)
    # n=10, k=2, r=1: (10 - 4) / (2 * 8) = 0.375
    assert selection_stability([[0, 1], [1, 5]], 10) == pytest.approx(0.375)


def test_jaccard():
    assert selection_stability([[0, 1, 2], [1, 2, 3], [7]], 10, "jaccard") == pytest.approx(
        np.mean([2 / 4, 0.0, 0.0])
    )
    assert selection_stability([[], []], 5, "jaccard") == 1.0
    mask = np.zeros(10, dtype=bool)
    mask[[1, 2, 3]] = True
    assert selection_stability([mask, [1, 2, 3]], 10, "jaccard") == 1.0


def test_errors():
    with pytest.raises(ValueError, match="equal size"):
        selection_stability([[0, 1], [0]], 10)
    with pytest.raises(ValueError, match="0 < k < n_features"):
        selection_stability([[0, 1], [0, 1]], 2)
    with pytest.raises(ValueError, match="at least two"):
        selection_stability([[0]], 10)
    with pytest.raises(ValueError, match="'measure' must be"):
        selection_stability([[0], [1]], 10, "dice")


def test_subsample_stability_planted_vs_noise(rng):
    X = rng.normal(size=(150, 40))
    y = (X[:, 0] + X[:, 1] + X[:, 2] > 0).astype(int)

    def top3(Xt, yt):
        return np.argsort(-np.abs(np.corrcoef(Xt.T, yt)[-1, :-1]), kind="stable")[:3]

    def noise3(Xt, yt):
        return np.random.default_rng(len(yt) + int(Xt[0, 0] * 1e6) % 1000).choice(40, 3, replace=False)

    good = subsample_stability(top3, X, y, n_subsamples=6, random_state=0)
    bad = subsample_stability(noise3, X, y, n_subsamples=6, random_state=0)
    assert good.index > 0.9 and bad.index < 0.5
    assert len(good.subsets) == 6
