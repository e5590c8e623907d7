"""Kuncheva index and Jaccard against the textbook formulas."""

import itertools

import numpy as np
import pytest

from fsviz.evaluate import (
    bootstrap_selections,
    group_frequency,
    selection_frequency,
    selection_stability,
    subsample_stability,
)


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


def test_selection_frequency_hand_made():
    subsets = [[0, 1], [1, 2], np.array([False, True, False, True, False]), [1, 0]]
    np.testing.assert_array_equal(selection_frequency(subsets, 5), [0.5, 1.0, 0.25, 0.25, 0.0])
    with pytest.raises(ValueError, match="selection_frequency: feature indices must lie in"):
        selection_frequency([[7]], 5)
    with pytest.raises(ValueError, match="needs at least one selection"):
        selection_frequency([], 5)


def test_group_frequency_any_member_counts():
    subsets = [[0], [2, 5], [4], [1, 2]]
    groups = [[0, 1, 2], [3, 4], [5], [6]]
    # group 0 is hit by resamples 0, 1, 3 (resample 3 twice, counted once)
    np.testing.assert_allclose(group_frequency(subsets, groups, 7), [0.75, 0.25, 0.25, 0.0])
    np.testing.assert_allclose(group_frequency(subsets, groups), [0.75, 0.25, 0.25, 0.0])
    with pytest.raises(ValueError, match=r"group members must lie in \[0, 5\)"):
        group_frequency(subsets[:1], [[0, 9]], 5)


def test_bootstrap_selections_resamples_rows_deterministically():
    X = np.arange(40.0).reshape(20, 2)
    y = np.arange(20) % 2
    seen = []

    def pick(Xb, yb):
        seen.append(Xb[:, 0].copy())
        return [int(Xb[:, 0].sum() > 380)]  # depends on the resample

    a = bootstrap_selections(pick, X, y, n_boot=6, random_state=3)
    rows_a = [s.copy() for s in seen]
    b = bootstrap_selections(pick, X, y, n_boot=6, random_state=3)
    assert len(a) == 6 and all(s.dtype == np.int64 for s in a)
    assert [s.tolist() for s in a] == [s.tolist() for s in b]
    assert all(r.shape == (20,) and np.isin(r, X[:, 0]).all() for r in rows_a)
    assert any(np.unique(r).size < 20 for r in rows_a)  # drawn with replacement
    freq = selection_frequency(a, 2)
    assert freq.sum() == pytest.approx(1.0)
    with pytest.raises(ValueError, match="'n_boot' must be an int >= 2; got 1"):
        bootstrap_selections(pick, X, y, n_boot=1)
    with pytest.raises(ValueError, match="'select_fn' must be a callable"):
        bootstrap_selections([0], X, y)


# ---------------------------------------------------------------------------- by groups
def matched_overlap_ref(A, B, same) -> int:
    """|A & B| + the largest number of disjoint pairs (a, b), a in A - B, b in B - A, same(a, b):
    by trying every assignment (tiny sets only)."""
    a, b = sorted(set(A) - set(B)), sorted(set(B) - set(A))
    best = 0
    for perm in itertools.permutations(b, min(len(a), len(b))):
        best = max(best, sum(bool(same(x, y)) for x, y in zip(a, perm, strict=True)))
    return len(set(A) & set(B)) + best


def test_group_index_equals_the_feature_index_on_independent_features(rng):
    X = rng.normal(size=(400, 30))  # independent: every sample |rho| far below 1 - tau
    sets = [rng.choice(30, 6, replace=False) for _ in range(8)]
    for measure in ("kuncheva", "jaccard"):
        plain = selection_stability(sets, 30, measure)
        assert selection_stability(sets, 30, measure, X=X, tau=0.3) == pytest.approx(plain, abs=1e-15)


def test_group_index_is_at_least_the_feature_index_on_grouped_features(rng):
    from fsviz.data import make_grouped_classification

    X, _, truth = make_grouped_classification(n_samples=300, n_features=200, n_groups=5, random_state=3)
    members = [np.concatenate([[s], a]) for s, a in truth.groups.items()]
    # each selection takes one random member of every group: the same groups, other members
    sets = [np.array([rng.choice(g) for g in members]) for _ in range(10)]
    for measure in ("kuncheva", "jaccard"):
        plain = selection_stability(sets, 200, measure)
        grouped = selection_stability(sets, 200, measure, X=X, tau=0.3)
        by_groups = selection_stability(sets, 200, measure, groups=members)
        assert grouped >= plain and by_groups >= plain
        assert by_groups == pytest.approx(1.0)  # always the same groups: perfectly stable by groups
    assert selection_stability(sets, 200, "jaccard") < 0.9  # per feature it looks unstable


def test_matched_overlap_is_a_maximum_matching(rng):
    """Against every assignment on small random similarity structures; a feature is paired once."""
    from fsviz.evaluate.stability import _matched_intersections

    for _ in range(30):
        S = rng.random((12, 12)) < 0.25
        S = S | S.T
        sets = [rng.choice(12, 4, replace=False) for _ in range(3)]
        got = _matched_intersections(sets, lambda a, b, S=S: S[np.ix_(a, b)])
        pairs = itertools.combinations(sets, 2)
        want = [matched_overlap_ref(A, B, lambda x, y, S=S: S[x, y]) for A, B in pairs]
        np.testing.assert_array_equal(got, want)
    # one feature similar to two others is matched once: r = 1, not 2
    X = np.random.default_rng(0).normal(size=(100, 3))
    X[:, 1] = X[:, 0]
    X[:, 2] = X[:, 0]
    assert selection_stability([[0], [1, 2]], 3, "jaccard", X=X, tau=0.0) == pytest.approx(0.5)


def test_group_index_errors(rng):
    X = rng.normal(size=(20, 10))
    with pytest.raises(ValueError, match="needs both X and tau"):
        selection_stability([[0], [1]], 10, X=X)
    with pytest.raises(ValueError, match="needs both X and tau"):
        selection_stability([[0], [1]], 10, tau=0.3)
    with pytest.raises(ValueError, match=r"'tau' must be a number in \[0, 1\)"):
        selection_stability([[0], [1]], 10, X=X, tau=1.0)
    with pytest.raises(ValueError, match="either X and tau or groups"):
        selection_stability([[0], [1]], 10, X=X, tau=0.3, groups=[[0, 1]])
    with pytest.raises(ValueError, match="n_features=12 columns"):
        selection_stability([[0], [1]], 12, X=X, tau=0.3)
    with pytest.raises(ValueError, match=r"group members must lie in \[0, 10\)"):
        selection_stability([[0], [1]], 10, groups=[[0, 10]])


def test_folds_and_resamples_reach_a_selector_read_only_and_a_dataset_does_not_copy_them():
    from fsviz.data import Dataset
    from fsviz.evaluate import bootstrap_selections, cv_accuracy

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 6))
    y = np.repeat([0, 1], 20)
    seen = []

    def selector(Xf, yf):
        ds = Dataset(Xf, y=yf)
        seen.append((Xf.flags.writeable, np.shares_memory(ds.X, Xf)))
        return np.array([0, 1])

    bootstrap_selections(selector, X, y, n_boot=3, random_state=0)
    cv_accuracy(X, y, selector, k=2, n_splits=2, random_state=0)
    assert seen and all(flags == (False, True) for flags in seen)
    assert X.flags.writeable  # the caller's matrix is untouched
