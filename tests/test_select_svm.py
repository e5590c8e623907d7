"""SVM baselines: l1-SVM and SVM-RFE against scikit-learn."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_selection import RFE
from sklearn.svm import LinearSVC, l1_min_c
from sklearn.utils.estimator_checks import parametrize_with_checks

from fsviz.select import L1SVM, SVMRFE


def planted(n=150, m=40, seed=0, n_classes=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, m))
    s = X[:, 3] - X[:, 17] + 0.5 * X[:, 30] + 0.5 * rng.normal(size=n)
    y = np.digitize(s, np.quantile(s, np.linspace(0, 1, n_classes + 1)[1:-1]))
    return X, y


# ----------------------------------------------------------------------------- L1SVM
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("sparse", [False, True])
def test_l1svm_equals_linearsvc_l1_at_the_same_C(n_classes, sparse):
    X, y = planted(n_classes=n_classes)
    Xi = sp.csr_matrix(X) if sparse else X
    est = L1SVM(C=0.05, random_state=0).fit(Xi, y)
    seed = int(np.random.RandomState(0).randint(np.iinfo(np.int32).max))
    ref = LinearSVC(penalty="l1", loss="squared_hinge", dual=False, C=0.05, random_state=seed).fit(Xi, y)
    np.testing.assert_array_equal(est.coef_, ref.coef_)
    nz = np.flatnonzero(np.any(ref.coef_ != 0, axis=0))
    assert sorted(est.selected_.tolist()) == nz.tolist() and 0 < nz.size < X.shape[1]
    assert est.path_.shape == (1, 2) and est.C_ == 0.05
    # scores: largest |w| over the classes, selection in decreasing score
    np.testing.assert_array_equal(est.scores_, np.abs(ref.coef_).max(axis=0))
    assert np.all(np.diff(est.scores_[est.selected_]) <= 0)


@pytest.mark.parametrize("k", [1, 3, 8])
def test_l1svm_path_reaches_the_requested_number_of_features(k):
    X, y = planted(seed=1)
    est = L1SVM(n_features=k, random_state=0).fit(X, y)
    assert len(est.selected_) == k
    C, nnz = est.path_[:, 0], est.path_[:, 1]
    assert C[0] == pytest.approx(l1_min_c(X, y, loss="squared_hinge")) and nnz[0] == 0
    # the returned C is the smallest C seen with at least k features
    assert est.C_ == C[nnz >= k].min()
    ref = LinearSVC(penalty="l1", loss="squared_hinge", dual=False, C=est.C_, random_state=est.random_state)
    ref.set_params(random_state=int(np.random.RandomState(0).randint(np.iinfo(np.int32).max))).fit(X, y)
    top = np.argsort(-np.abs(ref.coef_[0]), kind="stable")[:k]
    assert est.selected_.tolist() == top.tolist()
    if k == 3:
        assert set(est.selected_.tolist()) == {3, 17, 30}


# ----------------------------------------------------------------------------- SVMRFE
@pytest.mark.parametrize(
    "params",
    [
        dict(n_features_to_select=5, step=1),
        dict(n_features_to_select=3, step=4, C=0.1),
        dict(n_features_to_select=0.25, step=0.1),
        dict(n_features_to_select=None, step=2, loss="hinge", dual=True),
    ],
)
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # hinge loss, same in both
def test_svmrfe_ranking_equals_sklearn_rfe(params, n_classes):
    X, y = planted(n_classes=n_classes, seed=2)
    est = SVMRFE(**params, random_state=0).fit(X, y)
    svc_kw = {k: v for k, v in params.items() if k in ("C", "loss", "dual")}
    rfe = RFE(LinearSVC(random_state=0, **svc_kw), **{k: params[k] for k in ("n_features_to_select", "step")})
    rfe.fit(X, y)
    np.testing.assert_array_equal(est.ranking_, rfe.ranking_)
    np.testing.assert_array_equal(est.get_support(), rfe.support_)
    np.testing.assert_allclose(est.coef_, rfe.estimator_.coef_)
    w2 = (est.coef_**2).sum(axis=0)
    assert est.selected_.tolist() == np.flatnonzero(rfe.support_)[np.argsort(-w2, kind="stable")].tolist()
    # scores order the features: kept ones first (by weight), then by elimination round
    order = np.argsort(-est.scores_, kind="stable")
    assert order[: len(est.selected_)].tolist() == est.selected_.tolist()
    assert np.all(np.diff(est.ranking_[order]) >= 0)


def test_svmrfe_sparse_equals_dense():
    X, y = planted(seed=3)
    X[np.abs(X) < 0.6] = 0.0
    a = SVMRFE(n_features_to_select=4, step=3, random_state=0).fit(X, y)
    b = SVMRFE(n_features_to_select=4, step=3, random_state=0).fit(sp.csr_matrix(X), y)
    np.testing.assert_array_equal(a.ranking_, b.ranking_)


def test_svmrfe_finds_the_planted_features():
    X, y = planted(n=300, seed=4)
    assert set(SVMRFE(n_features_to_select=3, step=2, random_state=0).fit(X, y).selected_.tolist()) == {
        3,
        17,
        30,
    }


# ----------------------------------------------------------------------------- errors & conventions
@pytest.mark.parametrize(
    "est,match",
    [
        (L1SVM(C=0), r"The 'C' parameter of L1SVM must be a float in the range \(0.0, inf\)\. Got 0"),
        (
            L1SVM(n_features=0),
            r"The 'n_features' parameter of L1SVM must be an int in the range \[1, inf\) or None\. Got 0",
        ),
        (
            SVMRFE(step=0),
            r"The 'step' parameter of SVMRFE must be an int in the range \[1, inf\) or a float in the range "
            r"\(0.0, 1.0\)\. Got 0 instead",
        ),
        (
            SVMRFE(n_features_to_select=1.5),
            r"The 'n_features_to_select' parameter of SVMRFE must be an int in the range \[1, inf\), "
            r"a float in the range \(0.0, 1.0\) or None\. Got 1.5",
        ),
        (
            SVMRFE(loss="log"),
            r"The 'loss' parameter of SVMRFE must be a str among "
            r"\{'(squared_hinge|hinge)', '(squared_hinge|hinge)'\}\. Got 'log' instead",
        ),
        (
            SVMRFE(max_iter=0),
            r"The 'max_iter' parameter of SVMRFE must be an int in the range \[1, inf\)\. Got 0",
        ),
    ],
)
def test_errors_name_the_parameter_and_value(est, match):
    X, y = planted()
    with pytest.raises(ValueError, match=match):
        est.fit(X, y)


@parametrize_with_checks([L1SVM(random_state=0), SVMRFE(random_state=0)])
def test_sklearn_conventions(estimator, check):
    check(estimator)
