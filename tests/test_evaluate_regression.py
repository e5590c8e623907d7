"""cv_regression: K-fold R^2 / RMSE with a ridge regressor, selection redone in each training fold."""

import numpy as np
import pytest
from sklearn.feature_selection import SelectKBest, f_regression
from sklearn.linear_model import Ridge
from sklearn.model_selection import KFold, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from fsviz.evaluate import cv_accuracy, cv_regression
from fsviz.select import FScore


def planted(n=200, m=30, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, m))
    y = 2.0 * X[:, 3] - 1.5 * X[:, 7] + X[:, 11] + 0.5 * rng.normal(size=n)
    return X, y


@pytest.mark.parametrize("alpha", [1.0, 10.0])
def test_equals_sklearn_pipeline_with_selection_inside_the_folds(alpha):
    X, y = planted()
    folds = KFold(n_splits=5, shuffle=True, random_state=4)
    pipe = make_pipeline(SelectKBest(f_regression, k=5), StandardScaler(), Ridge(alpha=alpha))
    ref = cross_validate(pipe, X, y, cv=folds, scoring=("r2", "neg_root_mean_squared_error"))
    got = cv_regression(X, y, FScore(), k=5, n_splits=5, random_state=4, alpha=alpha)
    np.testing.assert_allclose(got.fold_r2, ref["test_r2"], rtol=1e-10)
    np.testing.assert_allclose(got.fold_rmse, -ref["test_neg_root_mean_squared_error"], rtol=1e-10)
    assert got.reselected and got.model == "ridge"
    assert got.r2 == pytest.approx(ref["test_r2"].mean())
    assert got.r2_std == pytest.approx(ref["test_r2"].std())
    assert all(len(s) == 5 for s in got.selected)


def test_planted_features_explain_the_target_noise_does_not():
    X, y = planted()
    good = cv_regression(X, y, [3, 7, 11])
    noise = cv_regression(X, y, [0, 1, 2])
    assert good.r2 > 0.9 and noise.r2 < 0.05
    assert good.rmse < noise.rmse
    assert not good.reselected


def test_empty_selection_predicts_the_training_mean():
    X, y = planted(n=50)
    res = cv_regression(X, y, np.zeros(X.shape[1], dtype=bool), n_splits=5, random_state=0)
    splits = list(KFold(5, shuffle=True, random_state=0).split(X))
    for (tr, te), r2, rmse in zip(splits, res.fold_r2, res.fold_rmse, strict=True):
        pred = y[tr].mean()
        assert rmse == pytest.approx(np.sqrt(np.mean((y[te] - pred) ** 2)))
        assert r2 == pytest.approx(1 - np.sum((y[te] - pred) ** 2) / np.sum((y[te] - y[te].mean()) ** 2))


def test_callable_and_no_reselection():
    X, y = planted()
    calls = []

    def top3(Xt, yt):
        calls.append(Xt.shape[0])
        return np.argsort(-np.abs(np.corrcoef(Xt.T, yt)[-1, :-1]))[:3]

    res = cv_regression(X, y, top3, n_splits=4)
    assert calls == [150] * 4 and res.reselected
    once = cv_regression(X, y, FScore(), k=3, reselect=False)
    assert not once.reselected and all(set(s) == {3, 7, 11} for s in once.selected)


def test_errors_name_the_input():
    X, y = planted(n=40)
    with pytest.raises(ValueError, match="continuous target .* Use cv_accuracy"):
        cv_regression(X, (y > 0).astype(int), [0])
    with pytest.raises(ValueError, match="'n_splits' must be an int in"):
        cv_regression(X, y, [0], n_splits=1)
    with pytest.raises(ValueError, match="'alpha' must be a positive float"):
        cv_regression(X, y, [0], alpha=0.0)
    with pytest.raises(ValueError, match="'model' must be 'ridge'"):
        cv_regression(X, y, [0], model="svm")
    with pytest.raises(ValueError, match=r"y looks continuous .* Use fsviz.evaluate.cv_regression"):
        cv_accuracy(X, y, [0])
