"""fsviz.evaluate.benchmark: the survey's protocol checked against scikit-learn transcriptions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from joblib import parallel_config
from sklearn.cluster import KMeans
from sklearn.metrics import normalized_mutual_info_score
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils import check_random_state

import fsviz.compute as fc
from fsviz import evaluate
from fsviz.compute import Run
from fsviz.evaluate import BENCHMARK_COLUMNS, Ranker, clustering_accuracy
from fsviz.select import FCBF, MRMR, FisherScore, LaplacianScore, fisher_score


def benchmark(X, y=None, methods=(), **kw):
    """fsviz.compute.benchmark: fsviz.evaluate.benchmark with registry names and Runs resolved
    by the run layer (the evaluate floor takes estimators and ranking callables only)."""
    return fc.benchmark(X, y, methods, **kw)


def test_the_evaluate_floor_takes_rankers_and_refuses_names(data):
    X, y = data

    def fisher_rank(X, y, k):
        return np.argsort(-fisher_score(X, y), kind="stable")

    by_callable = evaluate.benchmark(X, y, [fisher_rank], ks=[2], classifiers=["naive_bayes"], cv=3)
    by_ranker = evaluate.benchmark(
        X, y, [Ranker("fisher", fisher_rank)], ks=[2], classifiers=["naive_bayes"], cv=3
    )
    assert set(by_callable["method"]) == {"fisher_rank"} and set(by_ranker["method"]) == {"fisher"}
    np.testing.assert_array_equal(by_callable["accuracy"], by_ranker["accuracy"])
    for name in ("fisher", Run("fisher")):
        with pytest.raises(ValueError, match="fsviz.compute.benchmark_rankers"):
            evaluate.benchmark(X, y, [name], ks=[2], classifiers=["naive_bayes"], cv=3)


@pytest.fixture
def data():
    rng = np.random.default_rng(3)
    n = 90
    y = np.repeat([0, 1, 2], n // 3)
    X = rng.normal(size=(n, 15))
    X[:, 2] += 1.5 * y
    X[:, 7] -= 1.0 * (y == 1)
    X[:, 11] += 0.8 * (y == 2)
    return X, y


def _fisher_order(X, y):
    return np.argsort(-fisher_score(X, y), kind="stable")


def test_columns_and_shape(data):
    X, y = data
    frame = benchmark(
        X, y, ["fisher", "laplacian"], ks=[1, 3, 5], classifiers=["naive_bayes"], cv=3, n_repeats_kmeans=2
    )
    assert tuple(frame.columns) == BENCHMARK_COLUMNS
    sup = frame[frame.kind == "classification"]
    uns = frame[frame.kind == "clustering"]
    assert len(sup) == 3 * 3 and set(sup.method) == {"fisher"} and sup.repeat.isna().all()
    assert len(uns) == 3 * 2 and set(uns.method) == {"laplacian"} and uns.fold.isna().all()
    assert (uns.classifier == "kmeans").all() and uns.accuracy.isna().all()
    assert sup.nmi.isna().all() and np.isfinite(uns[["nmi", "acc"]].to_numpy()).all()
    assert (frame.time >= 0).all()


@pytest.mark.parametrize("clf_name, clf", [("naive_bayes", GaussianNB()), ("decision_tree", None)])
def test_selection_in_fold_matches_transcription(data, clf_name, clf):
    """Stratified folds, Fisher score on each training part, classifier on its top k."""
    X, y = data
    ks = [1, 2, 4]
    frame = benchmark(X, y, ["fisher"], ks=ks, classifiers=[clf_name], cv=5, random_state=4)
    clf = clf if clf is not None else DecisionTreeClassifier(random_state=4)
    skf = StratifiedKFold(n_splits=5, shuffle=True, random_state=4)
    for f, (tr, te) in enumerate(skf.split(X, y)):
        order = _fisher_order(X[tr], y[tr])
        for k in ks:
            model = clf.fit(X[tr][:, order[:k]], y[tr])
            want = np.mean(model.predict(X[te][:, order[:k]]) == y[te])
            got = frame[(frame.k == k) & (frame.fold == f)].accuracy.item()
            assert got == pytest.approx(want, abs=1e-12)


def test_select_once_matches_cross_val_score(data):
    X, y = data
    frame = benchmark(X, y, ["fisher"], ks=[3], classifiers=["naive_bayes"], cv=4, select_in_fold=False)
    top = _fisher_order(X, y)[:3]
    skf = StratifiedKFold(n_splits=4, shuffle=True, random_state=0)
    want = cross_val_score(GaussianNB(), X[:, top], y, cv=skf)
    np.testing.assert_allclose(frame.sort_values("fold").accuracy.to_numpy(), want)
    assert frame.time.nunique() == 1  # one selection, its time repeated in every fold
    assert frame.attrs["select_in_fold"] is False


def test_clustering_matches_transcription(data):
    """Laplacian score on all samples, K-means (true number of classes) repeated; NMI/ACC per repeat."""
    X, y = data
    frame = benchmark(X, y, ["laplacian"], ks=[2, 6], n_repeats_kmeans=3, random_state=7)
    order = np.argsort(-LaplacianScore().fit(X).scores_, kind="stable")
    seeds = check_random_state(7).randint(0, 2**31 - 1, size=3)
    for k in (2, 6):
        for i, s in enumerate(seeds):
            lab = KMeans(n_clusters=3, n_init=1, random_state=int(s)).fit_predict(X[:, order[:k]])
            row = frame[(frame.k == k) & (frame.repeat == i)]
            assert row.nmi.item() == pytest.approx(normalized_mutual_info_score(y, lab, average_method="max"))
            assert row.acc.item() == pytest.approx(clustering_accuracy(y, lab))


def test_fixed_size_subset_asked_once_prefixes(data):
    """mRMR asked for max(ks): its prefixes are what mRMR(n_features=k) selects (greedy)."""
    X, y = data
    frame = benchmark(X, y, ["mrmr"], ks=[2, 5], classifiers=["naive_bayes"], cv=3)
    skf = StratifiedKFold(n_splits=3, shuffle=True, random_state=0)
    for f, (tr, te) in enumerate(skf.split(X, y)):
        for k in (2, 5):
            sel = MRMR(n_features=k).fit(X[tr], y[tr]).selected_
            want = np.mean(GaussianNB().fit(X[tr][:, sel], y[tr]).predict(X[te][:, sel]) == y[te])
            assert frame[(frame.k == k) & (frame.fold == f)].accuracy.item() == pytest.approx(want)
    assert (frame.n_used == frame.k).all()
    assert set(frame.method) == {"mrmr"}


def test_variable_size_subset_uses_all_it_selected(data):
    X, y = data
    frame = benchmark(X, y, ["fcbf"], ks=[5, 14], classifiers=["naive_bayes"], cv=3)
    skf = StratifiedKFold(n_splits=3, shuffle=True, random_state=0)
    for f, (tr, _) in enumerate(skf.split(X, y)):
        n_sel = len(FCBF().fit(X[tr], y[tr]).selected_)
        assert n_sel < 14
        assert frame[(frame.k == 14) & (frame.fold == f)].n_used.item() == n_sel


def test_estimator_and_run_agree_with_name(data):
    X, y = data
    kw = dict(ks=[2, 3], classifiers=["naive_bayes", "linear_svm"], cv=3)
    by_name = benchmark(X, y, ["fisher"], **kw)
    by_est = benchmark(X, y, [FisherScore()], **kw)
    by_run = benchmark(X, y, [Run("fisher", {}, 0)], **kw)
    cols = ["k", "classifier", "fold", "accuracy"]
    pd.testing.assert_frame_equal(by_name[cols], by_est[cols])
    pd.testing.assert_frame_equal(by_name[cols], by_run[cols])
    assert set(by_est.method) == {"FisherScore"}
    two = benchmark(X, y, ["relieff", Run("relieff", {"n_neighbors": 3})], ks=[2], classifiers=["knn"], cv=3)
    assert list(two.method.unique()) == ["relieff", "ReliefF [n_neighbors=3]"]


def test_sparse_equals_dense(data):
    X, y = data
    X = np.where(np.abs(X) < 0.7, 0.0, X)
    kw = dict(ks=[2, 4], classifiers=["naive_bayes"], cv=3, n_repeats_kmeans=2)
    dense = benchmark(X, y, ["fisher", "variance"], **kw)
    sparse = benchmark(sp.csr_matrix(X), y, ["fisher", "variance"], **kw)
    cols = ["method", "k", "fold", "repeat", "accuracy", "nmi", "acc"]
    pd.testing.assert_frame_equal(dense[cols], sparse[cols])


def test_stability_of_the_fold_selections_per_feature_and_by_groups(data):
    from fsviz.evaluate import selection_stability

    X, y = data
    X = np.column_stack([X, X[:, 2] + 0.01 * np.random.default_rng(0).normal(size=len(y))])  # a copy of 2
    frame = benchmark(
        X, y, ["fisher", "laplacian"], ks=[1, 3], classifiers=["naive_bayes"], cv=3, stability_tau=0.1
    )
    skf = StratifiedKFold(n_splits=3, shuffle=True, random_state=0)
    folds = [_fisher_order(X[tr], y[tr]) for tr, _ in skf.split(X, y)]
    for k in (1, 3):
        rows = frame[(frame["method"] == "fisher") & (frame["k"] == k)]
        tops = [f[:k] for f in folds]
        assert rows["kuncheva"].unique().tolist() == [pytest.approx(selection_stability(tops, 16))]
        grouped = selection_stability(tops, 16, X=X, tau=0.1)
        assert rows["group_kuncheva"].unique().tolist() == [pytest.approx(grouped)]
        assert grouped >= rows["kuncheva"].iloc[0]
    assert frame.loc[frame["kind"] == "clustering", ["kuncheva", "group_kuncheva"]].isna().all().all()
    plain = benchmark(X, y, ["fisher"], ks=[1], classifiers=["naive_bayes"], cv=3)
    assert list(plain.columns) == list(BENCHMARK_COLUMNS)  # the columns only on request
    with pytest.raises(ValueError, match=r"'stability_tau' must be a number in \[0, 1\)"):
        benchmark(X, y, ["fisher"], ks=[1], classifiers=["naive_bayes"], cv=3, stability_tau=1.5)


def test_k_clipped_with_a_note(data):
    X, y = data
    with pytest.warns(UserWarning, match="exceed the 15 features"):
        frame = benchmark(X, y, ["fisher"], ks=[5, 20, 30], classifiers=["naive_bayes"], cv=3)
    assert sorted(frame.k.unique()) == [5, 15]
    assert frame.attrs["notes"]


def test_progress_and_parallel_joblib(data):
    X, y = data
    seen = []
    kw = dict(ks=[2], classifiers=["naive_bayes"], cv=3, n_repeats_kmeans=2)
    serial = benchmark(X, y, ["fisher", "variance"], progress=lambda f, t: seen.append((f, t)), **kw)
    assert len(seen) == 4 and seen[-1][0] == 1.0 and "fisher, fold 1" in seen[0][1]
    with parallel_config(backend="threading"):  # the joblib path without process start-up
        parallel = benchmark(X, y, ["fisher", "variance"], n_jobs=2, **kw)
    pd.testing.assert_frame_equal(serial.drop(columns="time"), parallel.drop(columns="time"))


def test_dask_client_same_table(data, dask_client):
    X, y = data
    kw = dict(ks=[2, 3], classifiers=["naive_bayes"], cv=3, n_repeats_kmeans=2)
    local = benchmark(X, y, ["fisher", "variance"], **kw)
    seen = []
    remote = benchmark(
        X, y, ["fisher", "variance"], client=dask_client, progress=lambda f, t: seen.append(f), **kw
    )
    pd.testing.assert_frame_equal(local.drop(columns="time"), remote.drop(columns="time"))
    assert sorted(seen)[-1] == 1.0 and len(seen) == 4


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"methods": ["nope"]}, "unknown method 'nope'; the selection methods are"),
        ({"methods": ["histogram"]}, "'histogram' is a view, not a feature selection"),
        ({"methods": []}, "at least one method"),
        ({"methods": [42]}, "each method must be a selector with fit\\(\\), a Ranker or a ranking callable"),
        ({"ks": []}, "'ks' must hold at least one"),
        ({"ks": [0, 5]}, r"every k in 'ks' must be an int >= 1; got \[0\]"),
        ({"classifiers": ["svm"]}, "unknown classifier 'svm'"),
        ({"cv": 1}, "'cv' must be an int >= 2; got 1"),
        ({"cv": 31}, r"'cv' must be <= the size of the smallest class \(30 samples"),
        ({"n_repeats_kmeans": 0}, "'n_repeats_kmeans' must be an int >= 1"),
    ],
)
def test_errors(data, kwargs, match):
    X, y = data
    args = {"methods": ["fisher"], "ks": [2], "classifiers": ["naive_bayes"], "cv": 3} | kwargs
    with pytest.raises(ValueError, match=match):
        benchmark(X, y, **args)


def test_label_errors(data):
    X, y = data
    with pytest.raises(ValueError, match="class labels y are required"):
        benchmark(X, None, ["fisher"])
    with pytest.raises(ValueError, match="single class"):
        benchmark(X, np.zeros(len(y)), ["fisher"])
    with pytest.raises(ValueError, match="must hold class labels; got a 'continuous' target"):
        benchmark(X, np.linspace(0, 1, len(y)), ["fisher"])
    # cv beyond the smallest class is fine when no method is supervised (no folds)
    frame = benchmark(X, y, ["variance"], ks=[2], cv=50, n_repeats_kmeans=1)
    assert len(frame) == 1
