"""The CV curve over k and the one-standard-error rule (fsviz.evaluate.one_se)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fsviz.evaluate import benchmark, cv_curve, one_se_rule
from fsviz.select import FScore


def _table(acc: dict[int, list[float]], method="m", classifier="c") -> pd.DataFrame:
    rows = [(method, classifier, k, f, a) for k, accs in acc.items() for f, a in enumerate(accs)]
    return pd.DataFrame(rows, columns=["method", "classifier", "k", "fold", "accuracy"])


def test_one_se_by_hand():
    acc = {1: [0.5, 0.6, 0.7], 5: [0.8, 0.85, 0.9], 10: [0.9, 0.92, 0.88], 20: [0.91, 0.9, 0.89]}
    curve = one_se_rule(_table(acc))
    means = {k: np.mean(v) for k, v in acc.items()}
    se = {k: np.std(v, ddof=1) / np.sqrt(3) for k, v in acc.items()}
    assert curve.best_k == 10  # 0.9 = 0.9 at k = 20: the smaller k wins the tie
    assert curve.threshold == pytest.approx(means[10] - se[10])
    assert means[5] < curve.threshold  # 0.85 < 0.9 - 0.0115
    assert curve.k_1se == 10 and curve.n_folds == 3
    np.testing.assert_allclose(curve.se, [se[k] for k in (1, 5, 10, 20)])


def test_one_se_prefers_the_smaller_k_within_the_spread():
    # best k = 8 (mean 0.93, se 0.0476 / 2 = 0.0238): k = 4 (0.91) is within it, k = 2 (0.825) is not
    acc = {2: [0.8, 0.9, 0.7, 0.9], 4: [0.9, 0.92, 0.88, 0.94], 8: [0.9, 1.0, 0.9, 0.92]}
    curve = one_se_rule(_table(acc))
    assert curve.best_k == 8 and curve.k_1se == 4
    assert curve.threshold == pytest.approx(0.93 - np.std([0.9, 1.0, 0.9, 0.92], ddof=1) / 2)


def test_one_se_needs_one_method():
    t = pd.concat([_table({1: [0.5, 0.6]}, method="a"), _table({1: [0.5, 0.6]}, method="b")])
    with pytest.raises(ValueError, match="2 methods"):
        one_se_rule(t)
    assert one_se_rule(t, method="b").k_1se == 1


def test_cv_curve_is_the_in_fold_benchmark():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 30))
    y = np.repeat([0, 1], 30)
    X[y == 1, :4] += 1.0
    curve = cv_curve(X, y, FScore(), [1, 4, 16], cv=3, random_state=0)
    table = benchmark(X, y, [FScore()], ks=[1, 4, 16], classifiers=["linear_svm"], cv=3, random_state=0)
    means = table.groupby("k")["accuracy"].mean().to_numpy()
    np.testing.assert_allclose(curve.mean, means)
    assert curve.k_1se <= curve.best_k and curve.mean[curve.ks == curve.k_1se][0] >= curve.threshold
