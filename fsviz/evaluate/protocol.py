"""The survey's evaluation protocol: accuracy (or NMI/ACC) against the number of selected features.

Li et al., "Feature Selection: A Data Perspective" (ACM CSUR 2017), section 6.4:

* supervised methods: 10-fold cross-validation; the selector runs on the training part,
  three classifiers (linear SVM, decision tree, naive Bayes) are trained on the top
  ``k = 5, 10, ..., 300`` features and scored on the test part; accuracy is averaged
  over the folds;
* unsupervised methods: the selector runs on all samples, K-means with the true number
  of classes clusters the top ``k`` features, repeated 20 times; NMI (eq. 118) and
  clustering accuracy ACC (eq. 119) are averaged over the repeats.

Methods are estimators or ranking callables; this floor does not import the run layer.
:func:`fsviz.compute.benchmark_rankers` turns registry names and Runs into rankers that
execute the Run on a :class:`fsviz.data.Dataset` of the training fold, so the numbers here,
on the app's Benchmark page and from ``fsviz benchmark`` are the same.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import clone, is_classifier
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import type_of_target

from fsviz.evaluate._selection import fitted_indices
from fsviz.evaluate.clustering import clustering_accuracy, normalized_mutual_info
from fsviz.stats.covariates import Covariates, check_confounding, covariate_design, residualize

#: columns of the tidy table :func:`benchmark` returns, in order
BENCHMARK_COLUMNS = (
    "method",
    "kind",
    "k",
    "n_used",
    "classifier",
    "fold",
    "repeat",
    "accuracy",
    "nmi",
    "acc",
    "time",
)


def _linear_svm(seed: int):
    # the survey's linear SVM, on features standardised with the training fold's statistics
    return make_pipeline(StandardScaler(), LinearSVC(C=1.0, max_iter=20000, random_state=seed))


def _decision_tree(seed: int):
    return DecisionTreeClassifier(random_state=seed)


def _naive_bayes(seed: int):
    return GaussianNB()


def _knn(seed: int):
    return make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=1))


#: the classifiers by name: ``name -> factory(seed) -> unfitted estimator``
CLASSIFIERS: dict[str, Callable[[int], Any]] = {
    "linear_svm": _linear_svm,
    "decision_tree": _decision_tree,
    "naive_bayes": _naive_bayes,
    "knn": _knn,
}


@dataclass(frozen=True)
class Ranker:
    """A ranking the benchmark evaluates: ``rank(X, y, k) -> feature indices, best first``.

    ``k`` is the largest number of features the benchmark reads (a method of fixed size
    selects that many; one that decides its own size may return fewer). Unsupervised
    rankers get ``y=None``. :func:`fsviz.compute.benchmark_rankers` makes them from
    registry names and Runs (this module does not import the run layer).
    """

    label: str
    rank: Callable[[Any, Any, int], Any]
    supervised: bool = True


@dataclass(frozen=True)
class _Entry:
    """One method to benchmark: its label and either a ranker or an estimator."""

    label: str
    ranker: Ranker | None
    estimator: Any  # unfitted estimator or None
    supervised: bool
    k_top: int


# ---------------------------------------------------------------------------- validation
def _entries(methods, n_features: int, k_top: int, seed: int) -> list[_Entry]:
    from fsviz.select._subset_common import SelectedSubsetMixin

    if isinstance(methods, (str, Ranker)) or hasattr(methods, "fit") or callable(methods):
        methods = [methods]
    methods = list(methods)
    if not methods:
        raise ValueError("benchmark: 'methods' must name at least one method; got an empty list.")
    out: list[_Entry] = []
    for m in methods:
        if isinstance(m, Ranker):
            out.append(_Entry(m.label, m, None, bool(m.supervised), k_top))
        elif hasattr(m, "fit"):
            est = clone(m)
            if isinstance(est, SelectedSubsetMixin) and est.get_params().get("n_features") is not None:
                est.set_params(n_features=k_top)  # a fixed-size subset: ask for the largest k once
            try:
                supervised = bool(est.__sklearn_tags__().target_tags.required)
            except AttributeError:
                supervised = True
            out.append(_Entry(type(m).__name__, None, est, supervised, k_top))
        elif callable(m) and not isinstance(m, (str, type)):
            out.append(_Entry(getattr(m, "__name__", "ranker"), Ranker("", m), None, True, k_top))
        else:
            raise ValueError(
                "benchmark: each method must be a selector with fit(), a Ranker or a ranking callable "
                f"rank(X, y, k); got {type(m).__name__}: {m!r:.80}. Registry names and Runs: call "
                "fsviz.compute.benchmark (the same protocol; it takes them), or pass "
                "fsviz.compute.benchmark_rankers(methods)."
            )
    seen: dict[str, int] = {}
    unique = []
    for e in out:  # two entries with one label (two Runs of mRMR, say) stay apart
        seen[e.label] = seen.get(e.label, 0) + 1
        label = e.label if seen[e.label] == 1 else f"{e.label} #{seen[e.label]}"
        unique.append(_Entry(label, e.ranker, e.estimator, e.supervised, e.k_top))
    return unique


def _ks(ks, n_features: int) -> tuple[np.ndarray, list[str]]:
    if isinstance(ks, Integral):
        ks = [ks]
    try:
        raw = list(ks)
    except TypeError:
        raise ValueError(f"benchmark: 'ks' must be an int or a sequence of ints; got {ks!r}.") from None
    if not raw:
        raise ValueError("benchmark: 'ks' must hold at least one number of features; got an empty sequence.")
    bad = [k for k in raw if isinstance(k, bool) or not isinstance(k, Integral) or k < 1]
    if bad:
        raise ValueError(f"benchmark: every k in 'ks' must be an int >= 1; got {bad[:5]}.")
    arr = np.unique(np.asarray(raw, dtype=np.int64))
    notes = []
    if arr.max() > n_features:
        over = arr[arr > n_features]
        arr = np.union1d(arr[arr <= n_features], [n_features])
        notes.append(
            f"benchmark: {len(over)} value(s) of k exceed the {n_features} features "
            f"({over[:3].tolist()}{' ...' if len(over) > 3 else ''}); clipped to k = {n_features} "
            "(all features)."
        )
    return arr, notes


def _classifiers(classifiers, seed: int) -> list[tuple[str, Any]]:
    if isinstance(classifiers, str) or hasattr(classifiers, "fit"):
        classifiers = [classifiers]
    out = []
    for c in classifiers:
        if isinstance(c, str):
            if c not in CLASSIFIERS:
                raise ValueError(f"benchmark: unknown classifier {c!r}; known are {sorted(CLASSIFIERS)}.")
            out.append((c, CLASSIFIERS[c](seed)))
        elif is_classifier(c):
            out.append((type(c).__name__, clone(c)))
        else:
            raise ValueError(
                f"benchmark: each classifier must be one of {sorted(CLASSIFIERS)} or a scikit-learn "
                f"classifier; got {c!r:.80}."
            )
    if not out:
        raise ValueError("benchmark: 'classifiers' must hold at least one classifier; got none.")
    return out


# ---------------------------------------------------------------------------- the work units
def _rank(entry: _Entry, X, y, feature_names) -> tuple[np.ndarray, float]:
    """Features best first as the method ranks them on (X, y), and its selection seconds."""
    if entry.ranker is not None:
        t0 = time.perf_counter()
        order = entry.ranker.rank(X, y if entry.supervised else None, entry.k_top)
        return np.asarray(order, dtype=np.int64), time.perf_counter() - t0
    est = clone(entry.estimator)
    t0 = time.perf_counter()
    est.fit(X, y) if entry.supervised else est.fit(X)
    seconds = time.perf_counter() - t0
    if hasattr(est, "selected_"):
        order = np.asarray(est.selected_, dtype=np.int64)
    elif hasattr(est, "ranking_"):
        order = np.argsort(np.asarray(est.ranking_), kind="stable").astype(np.int64)
    else:
        order = fitted_indices(est, X.shape[1], "benchmark")
    return order, seconds


def _columns(X, idx: np.ndarray) -> np.ndarray:
    part = X[:, idx]
    return part.toarray() if sp.issparse(part) else np.asarray(part, dtype=np.float64)


def _classify(entry, order, seconds, fold, X, y, train, test, ks, classifiers) -> list[tuple]:
    """Accuracy of every classifier on the top k of ``order`` for every k (one fold)."""
    top = order[: int(ks.max())]
    Xtr, Xte = _columns(X[train], top), _columns(X[test], top)
    ytr, yte = y[train], y[test]
    majority = np.unique(ytr, return_counts=True)
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for name, clf in classifiers:
            for k in ks:
                used = min(int(k), len(top))
                if used == 0:  # nothing selected: predict the training fold's majority class
                    acc = float(np.mean(yte == majority[0][np.argmax(majority[1])]))
                else:
                    model = clone(clf).fit(Xtr[:, :used], ytr)
                    acc = float(np.mean(model.predict(Xte[:, :used]) == yte))
                rows.append(
                    (
                        entry.label,
                        "classification",
                        int(k),
                        used,
                        name,
                        fold,
                        None,
                        acc,
                        np.nan,
                        np.nan,
                        seconds,
                    )
                )
    return rows


def _task_in_fold(entry, fold, X, y, train, test, ks, classifiers, feature_names) -> tuple[list, np.ndarray]:
    order, seconds = _rank(entry, X[train], y[train], feature_names)
    return _classify(entry, order, seconds, fold, X, y, train, test, ks, classifiers), order


def _task_in_fold_adjusted(
    entry, fold, X, y, train, test, ks, classifiers, feature_names, design
) -> tuple[list, np.ndarray]:
    """:func:`_task_in_fold` on the features residualised on the covariates by a fit on the
    training rows only (the test rows get that training fit's residuals)."""
    Xa = residualize(X, design, rows=train)
    return _task_in_fold(entry, fold, Xa, y, train, test, ks, classifiers, feature_names)


def _task_once(entry, X, y, splits, ks, classifiers, feature_names) -> tuple[list, None]:
    order, seconds = _rank(entry, X, y, feature_names)
    rows = []
    for fold, (train, test) in enumerate(splits):
        rows += _classify(entry, order, seconds, fold, X, y, train, test, ks, classifiers)
    return rows, None


def _stability_columns(frame, entries, tasks, parts, X, ks, tau) -> pd.DataFrame:
    """Kuncheva's index of the fold selections' top k, per feature and by groups at ``tau``
    (:func:`fsviz.evaluate.selection_stability`), for every supervised method and k."""
    from fsviz.evaluate.stability import selection_stability

    m = X.shape[1]
    orders: dict[str, list] = {}
    for (_, fn, before, _), (_, order) in zip(tasks, parts, strict=True):
        if fn is _task_in_fold:
            orders.setdefault(before[0].label, []).append(order)
    values = {}
    for e in entries:
        folds = orders.get(e.label, [])
        for k in ks.tolist():
            subsets = [np.asarray(o[:k], dtype=np.int64) for o in folds]
            sizes = {len(s) for s in subsets}
            if len(subsets) < 2 or len(sizes) != 1 or not 0 < sizes.pop() < m:
                values[(e.label, k)] = (np.nan, np.nan)  # sizes differ (a method that stops early)
                continue
            values[(e.label, k)] = (
                selection_stability(subsets, m, "kuncheva"),
                selection_stability(subsets, m, "kuncheva", X=X, tau=tau),
            )
    keys = list(zip(frame["method"], frame["k"], strict=True))
    frame["kuncheva"] = [values.get(key, (np.nan, np.nan))[0] for key in keys]
    frame["group_kuncheva"] = [values.get(key, (np.nan, np.nan))[1] for key in keys]
    return frame


def _task_cluster(entry, X, y, ks, n_repeats, seed, feature_names) -> tuple[list, None]:
    order, seconds = _rank(entry, X, y, feature_names)
    top = order[: int(ks.max())]
    Xt = _columns(X, top)
    n_clusters = int(np.unique(y).shape[0])
    seeds = check_random_state(seed).randint(0, 2**31 - 1, size=n_repeats)
    rows = []
    for k in ks:
        used = min(int(k), len(top))
        for r, s in enumerate(seeds):
            if used == 0:
                lab = np.zeros(len(y), dtype=np.int64)
            else:  # one K-means run from a random start per repeat; the repeats are averaged
                lab = KMeans(n_clusters=n_clusters, n_init=1, random_state=int(s)).fit_predict(Xt[:, :used])
            nmi, acc = normalized_mutual_info(y, lab), clustering_accuracy(y, lab)
            rows.append(
                (entry.label, "clustering", int(k), used, "kmeans", None, r, np.nan, nmi, acc, seconds)
            )
    return rows, None


def _call(fn, args):
    return fn(*args)


# ---------------------------------------------------------------------------- driver
def _run_tasks(tasks, shared, n_jobs, client, progress) -> list[tuple]:
    """Run ``tasks`` = [(label, fn, args-before-shared, args-after-shared)] and report progress;
    each task gives ``(rows, fold selection or None)``, in the order of ``tasks``.

    ``shared`` (X, y) is scattered once to a Dask cluster; with joblib it is memory-mapped
    by joblib itself when large.
    """
    total = len(tasks)
    out: list = [None] * total
    if client is not None:
        from distributed import as_completed

        X_f, y_f = client.scatter(list(shared), broadcast=True)
        futures = {}
        for i, (_, fn, before, after) in enumerate(tasks):
            futures[client.submit(fn, *before, X_f, y_f, *after, pure=False)] = i
        try:
            for done, fut in enumerate(as_completed(futures, loop=client.loop), start=1):  # any client
                i = futures[fut]
                out[i] = fut.result()
                progress(done / total, f"{tasks[i][0]} done ({done} of {total})")
        except BaseException:  # a stopped run (e.g. cancelled from its progress) frees the workers
            client.cancel(list(futures))
            raise
        return out
    if n_jobs is None or n_jobs == 1:
        for i, (label, fn, before, after) in enumerate(tasks):
            out[i] = fn(*before, *shared, *after)
            progress((i + 1) / total, f"{label} done ({i + 1} of {total})")
        return out
    from joblib import Parallel, delayed

    jobs = (
        delayed(_indexed)(i, fn, (*before, *shared, *after)) for i, (_, fn, before, after) in enumerate(tasks)
    )
    for done, (i, rows) in enumerate(Parallel(n_jobs=n_jobs, return_as="generator_unordered")(jobs), start=1):
        out[i] = rows
        progress(done / total, f"{tasks[i][0]} done ({done} of {total})")
    return out


def _indexed(i, fn, args):
    return i, fn(*args)


def _noop(frac: float, text: str, **info: Any) -> None:
    return None


def benchmark(
    X,
    y,
    methods: Iterable[Any],
    ks: Iterable[int] | int = range(5, 305, 5),
    classifiers: Sequence[Any] = ("linear_svm", "decision_tree", "naive_bayes"),
    cv: int = 10,
    *,
    select_in_fold: bool = True,
    n_repeats_kmeans: int = 20,
    random_state: int = 0,
    n_jobs: int | None = None,
    client: Any = None,
    progress: Callable[..., None] | None = None,
    stability_tau: float | None = None,
    covariates=None,
) -> pd.DataFrame:
    """Evaluate feature selection methods as the survey does (section 6.4).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features) or fsviz.data.Dataset
        A Dataset brings its feature names, and its labels when ``y`` is None.
    y : array-like of shape (n_samples,) or None
        Class labels (at least two classes). Unsupervised methods never see them while
        selecting; they are the ground truth of NMI and ACC.
    methods : iterable of estimator, Ranker or callable
        Selector instances (fitted with ``fit(X, y)``, or ``fit(X)`` when their
        scikit-learn tags say no target is needed; features read from ``selected_``,
        ``ranking_`` or ``scores_``), :class:`Ranker` values or ranking callables
        ``rank(X, y, k) -> indices best first``. Registry names (``"fisher"``, ...) and
        Runs: call :func:`fsviz.compute.benchmark`, this protocol with names and Runs
        (or turn them into rankers with :func:`fsviz.compute.benchmark_rankers`). Supervised methods
        are evaluated by classification, unsupervised ones by clustering. A subset method
        of fixed size (an integer ``n_features``: mRMR, MIFS, JMI, ...) is asked for
        ``max(ks)`` features once and its prefixes are the top k; a method that decides its
        own size (FCBF, CFS, SAOLA) may select fewer than k: then all it selected is used,
        as the survey does, and ``n_used`` < ``k`` says so.
    ks : iterable of int or int, default=range(5, 305, 5)
        Numbers of top features to evaluate (the survey's 5, 10, ..., 300). Values larger
        than the number of features are clipped to it (one row at ``k = n_features``) with a
        ``UserWarning``; the note is also in ``frame.attrs["notes"]``.
    classifiers : sequence of str or classifier, default=("linear_svm", "decision_tree", "naive_bayes")
        The survey's three classifiers (linear SVM on standardised features, a decision
        tree, Gaussian naive Bayes), ``"knn"`` (1-NN on standardised features) or any
        scikit-learn classifier. ConvergenceWarnings of the linear SVM are silenced.
    cv : int, default=10
        Stratified folds (shuffled with ``random_state``); at most the size of the smallest class.
    select_in_fold : bool, default=True
        Select inside each training fold (the test fold never influences the features).
        False selects once on all samples and evaluates those features in every fold
        (the survey's variant; optimistically biased).
    n_repeats_kmeans : int, default=20
        K-means runs (one random start each, seeds derived from ``random_state``) per k for
        unsupervised methods.
    random_state : int, default=0
        The seed of the folds, the trees and K-means.
    n_jobs : int or None, default=None
        Work units (one per method and fold; one per method when selecting once) run in
        parallel with joblib; None or 1 runs them in this process.
    client : dask.distributed.Client, optional
        Run the work units on a Dask cluster instead (X and y are scattered once).
    progress : callable, optional
        ``progress(fraction_done, text)`` after each work unit.
    stability_tau : float in [0, 1), optional
        Also report how stable each supervised method's selection is across the training folds
        (``select_in_fold=True``): the columns ``kuncheva`` (Kuncheva's index of the folds' top
        k) and ``group_kuncheva`` (the same, two folds agreeing on a feature when they hold it
        or one with ``|rho| >= 1 - stability_tau``; :func:`fsviz.evaluate.selection_stability`),
        one value per method and k repeated on its rows; NaN for clustering rows, selections
        made once, and methods whose top k differ in size.
    covariates : DataFrame, mapping, array or Covariates, optional
        Adjust for these inside every training fold (:mod:`fsviz.stats.covariates`): the features
        are residualised on the covariates by a least-squares fit on the training rows, and the
        test rows with that same fit, before the selection and the classifiers see them. Needs
        ``select_in_fold=True`` and supervised methods; a target the batches predict perfectly is
        refused.

    Returns
    -------
    pandas.DataFrame
        One row per (method, k, classifier, fold) for supervised methods and per
        (method, k, repeat) for unsupervised ones, with the columns
        :data:`BENCHMARK_COLUMNS`: ``method`` (the ranker's label or the class name), ``kind``
        (``"classification"`` or ``"clustering"``), ``k``, ``n_used`` (features actually
        used), ``classifier`` (``"kmeans"`` for clustering rows), ``fold`` and ``repeat``
        (nullable ints), ``accuracy`` (test-fold accuracy), ``nmi`` and ``acc`` (clustering
        rows) and ``time`` (seconds the selector took on that fold, or once on all samples).

    Raises
    ------
    ValueError
        No labels, a single class, a continuous target, ``cv`` < 2 or larger than the
        smallest class, an unknown method or classifier, or a bad ``ks``.

    References
    ----------
    Li et al., "Feature Selection: A Data Perspective", ACM CSUR 2017, section 6.4 and
    eq. (117)-(119); Ambroise & McLachlan, PNAS 2002 (selection inside the folds).

    Examples
    --------
    >>> import numpy as np
    >>> from fsviz.evaluate import benchmark
    >>> from fsviz.select import FisherScore
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 12)); y = (X[:, 3] > 0).astype(int)
    >>> frame = benchmark(X, y, [FisherScore()], ks=[1, 2], classifiers=["naive_bayes"], cv=3)
    >>> frame.groupby("k")["accuracy"].mean().round(2).tolist()
    [0.98, 0.97]
    """
    from fsviz.data import Dataset

    if isinstance(X, Dataset):
        feature_names = X.feature_names
        if y is None:
            y = X.y
        X = X.X
    else:
        feature_names = None
    progress = progress or _noop
    if y is None:
        raise ValueError(
            "benchmark: class labels y are required (accuracy for supervised methods, NMI/ACC against "
            "the classes for unsupervised ones); got None."
        )
    X = X.tocsr() if sp.issparse(X) else np.ascontiguousarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"benchmark: X must be 2-D (n_samples, n_features); got shape {X.shape}.")
    y = np.asarray(y).ravel()
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"benchmark: y has {y.shape[0]} labels but X has {X.shape[0]} samples.")
    target = type_of_target(y)
    if target not in ("binary", "multiclass"):
        raise ValueError(f"benchmark: y must hold class labels; got a {target!r} target.")
    classes, y, counts = np.unique(y, return_inverse=True, return_counts=True)
    if len(classes) < 2:
        raise ValueError(
            f"benchmark: y has a single class ({classes[0]!r}); the protocol needs at least two."
        )
    if isinstance(random_state, bool) or not isinstance(random_state, Integral):
        raise ValueError(f"benchmark: 'random_state' must be an int; got {random_state!r}.")
    n_features = X.shape[1]
    ks, notes = _ks(ks, n_features)
    entries = _entries(methods, n_features, int(ks.max()), int(random_state))
    clfs = _classifiers(classifiers, int(random_state))
    if (
        isinstance(n_repeats_kmeans, bool)
        or not isinstance(n_repeats_kmeans, Integral)
        or n_repeats_kmeans < 1
    ):
        raise ValueError(f"benchmark: 'n_repeats_kmeans' must be an int >= 1; got {n_repeats_kmeans!r}.")
    supervised = [e for e in entries if e.supervised]
    if supervised:
        if isinstance(cv, bool) or not isinstance(cv, Integral) or cv < 2:
            raise ValueError(f"benchmark: 'cv' must be an int >= 2; got {cv!r}.")
        if cv > counts.min():
            raise ValueError(
                f"benchmark: 'cv' must be <= the size of the smallest class ({counts.min()} samples of "
                f"class {classes[np.argmin(counts)]!r}) for stratified folds; got {cv}."
            )
    for note in notes:
        warnings.warn(note, UserWarning, stacklevel=2)

    design = None
    if covariates is not None:
        if not select_in_fold or len(supervised) < len(entries):
            raise ValueError(
                "benchmark: covariates are adjusted inside each training fold, so they need "
                "select_in_fold=True and supervised methods only."
            )
        cov = (
            covariates if isinstance(covariates, Covariates) else covariate_design(covariates, X.shape[0], y)
        )
        check_confounding(y, cov, who="benchmark")
        design = cov.design
    splits = []
    if supervised:
        skf = StratifiedKFold(n_splits=int(cv), shuffle=True, random_state=int(random_state))
        splits = [(tr, te) for tr, te in skf.split(np.zeros(X.shape[0]), y)]
    tasks = []
    for e in entries:
        if not e.supervised:
            args = (ks, int(n_repeats_kmeans), int(random_state), feature_names)
            tasks.append((e.label, _task_cluster, (e,), args))
        elif design is not None:
            for f, (tr, te) in enumerate(splits):
                args = (tr, te, ks, clfs, feature_names, design)
                tasks.append((f"{e.label}, fold {f + 1}", _task_in_fold_adjusted, (e, f), args))
        elif select_in_fold:
            for f, (tr, te) in enumerate(splits):
                tasks.append(
                    (f"{e.label}, fold {f + 1}", _task_in_fold, (e, f), (tr, te, ks, clfs, feature_names))
                )
        else:
            tasks.append((e.label, _task_once, (e,), (splits, ks, clfs, feature_names)))
    if stability_tau is not None and (
        isinstance(stability_tau, bool) or not isinstance(stability_tau, Real) or not 0 <= stability_tau < 1
    ):
        raise ValueError(
            f"benchmark: 'stability_tau' must be a number in [0, 1) or None; got {stability_tau!r}."
        )
    parts = _run_tasks(tasks, (X, y), n_jobs, client, progress)
    rows = [r for part, _ in parts for r in part]
    frame = pd.DataFrame(rows, columns=list(BENCHMARK_COLUMNS))
    frame["fold"] = frame["fold"].astype("Int64")
    frame["repeat"] = frame["repeat"].astype("Int64")
    frame["k"] = frame["k"].astype(np.int64)
    frame["n_used"] = frame["n_used"].astype(np.int64)
    for c in ("accuracy", "nmi", "acc", "time"):
        frame[c] = frame[c].astype(np.float64)
    order = {e.label: i for i, e in enumerate(entries)}
    corder = {name: i for i, (name, _) in enumerate(clfs)} | {"kmeans": len(clfs)}
    frame = frame.assign(_m=frame["method"].map(order), _c=frame["classifier"].map(corder))
    frame = frame.sort_values(["_m", "_c", "k", "fold", "repeat"], kind="stable").drop(columns=["_m", "_c"])
    frame = frame.reset_index(drop=True)
    if stability_tau is not None:
        frame = _stability_columns(frame, entries, tasks, parts, X, ks, float(stability_tau))
    frame.attrs["notes"] = notes
    frame.attrs["select_in_fold"] = bool(select_in_fold)
    return frame


__all__ = ["BENCHMARK_COLUMNS", "CLASSIFIERS", "Ranker", "benchmark"]
