"""cv_accuracy: stratified folds, reselection inside folds, models, errors."""

import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from fsviz.evaluate import cv_accuracy


def planted(rng, n=120, m=200):
    X = rng.normal(size=(n, m))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    return X, y


class TopVariance:
    """A tiny selector: scores_ = |mean difference| between classes (fit on what it is given)."""

    def __init__(self):
        pass

    def get_params(self, deep=True):
        return {}

    def set_params(self, **p):
        return self

    def fit(self, X, y):
        self.scores_ = np.abs(X[y == 1].mean(0) - X[y == 0].mean(0))
        return self


def test_fixed_indices_match_manual_loop(rng):
    X, y = planted(rng)
    res = cv_accuracy(X, y, [0, 1, 5], model="svm", n_splits=5, random_state=3)
    skf = StratifiedKFold(5, shuffle=True, random_state=3)
    want = []
    for tr, te in skf.split(X, y):
        c = make_pipeline(StandardScaler(), LinearSVC(C=1.0, max_iter=20000)).fit(X[tr][:, [0, 1, 5]], y[tr])
        want.append(np.mean(c.predict(X[te][:, [0, 1, 5]]) == y[te]))
    np.testing.assert_allclose(res.fold_scores, want)
    assert res.mean == pytest.approx(np.mean(want)) and res.std == pytest.approx(np.std(want))
    assert not res.reselected and len(res.selected) == 5


def test_knn_model(rng):
    X, y = planted(rng)
    res = cv_accuracy(X, y, np.array([0, 1]), model="knn", n_neighbors=3, random_state=0)
    skf = StratifiedKFold(5, shuffle=True, random_state=0)
    want = [
        np.mean(
            make_pipeline(StandardScaler(), KNeighborsClassifier(3))
            .fit(X[tr][:, :2], y[tr])
            .predict(X[te][:, :2])
            == y[te]
        )
        for tr, te in skf.split(X, y)
    ]
    np.testing.assert_allclose(res.fold_scores, want)


def test_reselection_avoids_selection_bias():
    # pure noise: selecting on all data then cross-validating is optimistic; reselecting is not
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 2000))
    y = np.repeat([0, 1], 30)
    biased = cv_accuracy(X, y, TopVariance(), k=10, reselect=False, random_state=0)
    honest = cv_accuracy(X, y, TopVariance(), k=10, reselect=True, random_state=0)
    assert biased.mean > 0.75
    assert honest.mean < 0.7
    assert honest.reselected and not biased.reselected
    # each fold selected its own features
    assert len({tuple(s) for s in honest.selected}) > 1


def test_callable_selector_and_planted_signal(rng):
    X, y = planted(rng)
    res = cv_accuracy(
        X, y, lambda Xt, yt: np.argsort(-np.abs(np.corrcoef(Xt.T, yt)[-1, :-1]))[:2], random_state=0
    )
    assert res.mean > 0.9
    assert all(set(s) == {0, 1} for s in res.selected)


def test_saola_inside_folds(rng):
    from fsviz.select import SAOLA

    X, y = planted(rng)
    res = cv_accuracy(X, y, SAOLA(), random_state=0)
    assert res.mean > 0.85 and res.reselected


def test_empty_selection_predicts_majority(rng):
    X, y = planted(rng)
    res = cv_accuracy(X, y, lambda Xt, yt: np.array([], dtype=int))
    assert 0.3 < res.mean < 0.7


def test_errors(rng):
    X, y = planted(rng)
    with pytest.raises(ValueError, match="'model' must be"):
        cv_accuracy(X, y, [0], model="tree")
    with pytest.raises(ValueError, match="'n_splits' must be an int >= 2"):
        cv_accuracy(X, y, [0], n_splits=1)
    with pytest.raises(ValueError, match="smallest class size"):
        cv_accuracy(X[:8], np.array([0] * 6 + [1] * 2), [0], n_splits=5)
    with pytest.raises(ValueError, match="'k' is required"):
        cv_accuracy(X, y, TopVariance())
    with pytest.raises(ValueError, match="single class"):
        cv_accuracy(X, np.zeros(len(y)), [0])
