"""NMI against scikit-learn, ACC by Hungarian matching against brute force over permutations."""

import itertools

import numpy as np
import pytest
from sklearn.metrics import normalized_mutual_info_score

from fsviz.evaluate import clustering_accuracy, clustering_scores, normalized_mutual_info


@pytest.mark.parametrize("average", ["max", "arithmetic", "geometric", "min"])
def test_nmi_equals_sklearn(average, rng):
    for _ in range(5):
        a = rng.integers(0, 4, 80)
        b = rng.integers(0, 5, 80)
        assert normalized_mutual_info(a, b, average) == pytest.approx(
            normalized_mutual_info_score(a, b, average_method=average), abs=1e-12
        )


def test_acc_equals_brute_force(rng):
    for _ in range(5):
        t = rng.integers(0, 4, 60)
        p = rng.integers(0, 4, 60)
        best = max(np.mean(np.array(perm)[p] == t) for perm in itertools.permutations(range(4)))
        assert clustering_accuracy(t, p) == pytest.approx(best)


def test_acc_hand_value():
    # clusters relabelled: perfect; one sample off -> 5/6
    assert clustering_accuracy([0, 0, 1, 1, 2, 2], [2, 2, 0, 0, 1, 1]) == 1.0
    assert clustering_accuracy([0, 0, 1, 1, 2, 2], [2, 2, 0, 0, 1, 0]) == pytest.approx(5 / 6)


def test_clustering_scores_separated_blobs(rng):
    y = np.repeat([0, 1, 2], 40)
    X = rng.normal(size=(120, 3)) * 0.3 + np.eye(3)[y] * 5
    s = clustering_scores(X, y, random_state=0, n_repeats=2)
    assert s.nmi == pytest.approx(1.0) and s.acc == pytest.approx(1.0) and s.n_clusters == 3
    noise = clustering_scores(rng.normal(size=(120, 3)), y, random_state=0)
    assert noise.acc < 0.6 and noise.nmi < 0.2
    assert clustering_scores(X, y, random_state=5) == clustering_scores(X, y, random_state=5)


def test_errors(rng):
    with pytest.raises(ValueError, match="'n_clusters' must be"):
        clustering_scores(rng.normal(size=(10, 2)), np.arange(10) % 2, n_clusters=0)
    with pytest.raises(ValueError, match="labels but X_selected has"):
        clustering_scores(rng.normal(size=(10, 2)), np.arange(9) % 2)
    with pytest.raises(ValueError, match="'average' must be"):
        normalized_mutual_info([0, 1], [0, 1], "sum")
