"""The one registry of what fsviz can run: selectors, their refinements, and the views.

Each :class:`Method` names its estimator class directly (grep from a page's Run to the
estimator it fits) and carries the runner that turns a :class:`~fsviz.compute.Run` into a
result. The app, the CLI and the fold refits of cross-validation all go through
:meth:`Run.execute <fsviz.compute.Run.execute>`, which calls these runners.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from fsviz import select as S
from fsviz._targets import needs_classes_message
from fsviz.compute import results as R
from fsviz.compute.runs import Context, Run

#: kinds of method whose result is a feature selection (``result.selection(k)``)
SELECTION_KINDS = ("score", "subset", "groups", "grm", "stream")


@dataclass(frozen=True)
class Method:
    """How one method runs: its estimator, what fit needs, and the runner.

    Attributes
    ----------
    name : str
        The registry key (``Run.method``).
    label : str
        The name a person reads (``"Fisher score"``).
    kind : str
        ``"score"`` (ranks every feature), ``"subset"`` (selects some, in order),
        ``"groups"`` (GDM: support and affiliated features), ``"grm"`` (refines a base
        score), ``"stream"`` (online, with a decision per arriving feature), or a view:
        ``"histogram"``, ``"evaluation"``, ``"projection"``, ``"images"``.
    estimator : type or None
        The ``fsviz.select`` class it fits.
    supervised : bool
        Needs class labels.
    help : str
        One line for ``fsviz methods`` and the app.
    runner : callable
        ``runner(run, context) -> result``.
    unsupervised_with : str or None
        A parameter that, when true, lets a supervised method run without labels
        (GDM's ``one_class``).
    regression : bool
        A supervised method that also takes a continuous target (its regression form);
        the others need class labels (see :func:`methods_for`).
    """

    name: str
    label: str
    kind: str
    estimator: type | None
    supervised: bool
    help: str
    runner: Callable[[Run, Context], Any]
    unsupervised_with: str | None = None
    regression: bool = False

    @property
    def selects(self) -> bool:
        """Whether its result is a feature selection."""
        return self.kind in SELECTION_KINDS

    def accepts(self, target_kind: str | None) -> bool:
        """Whether it runs on a dataset whose target is ``"classes"``, ``"continuous"`` or None."""
        if not self.supervised or target_kind == "classes":
            return True
        if target_kind == "continuous":
            return self.regression
        return self.unsupervised_with is not None

    def execute(self, run: Run, ctx: Context):
        ds = ctx.dataset
        lifted = self.unsupervised_with is not None and bool(run.get(self.unsupervised_with))
        if self.supervised and not lifted and getattr(ds, "y", None) is None:
            raise ValueError(
                f"{self.label} needs class labels; dataset {ds.name!r} has none. Name the label column "
                "(app: sidebar; CLI: --label) or choose an unsupervised method."
            )
        if self.supervised and not lifted and getattr(ds, "target_kind", None) == "continuous":
            if not self.regression:
                raise ValueError(
                    f"{needs_classes_message(self.label)} Dataset {ds.name!r} has a continuous target."
                )
        try:
            return self.runner(run, ctx)
        except MemoryError as e:  # one error contract: a ValueError naming the run and the fix
            from fsviz.data.budget import out_of_memory

            raise out_of_memory(self.label, e) from None

    def make(self, run: Run):
        """The estimator with the run's parameters (and ``random_state=seed`` if it takes one)."""
        valid = self.estimator().get_params()
        kw = {k: v for k, v in run.params if k in valid}
        unknown = sorted(set(run.kwargs) - set(valid) - set(_RUN_ONLY.get(self.name, ())))
        if unknown:
            raise ValueError(
                f"{self.label}: unknown parameter(s) {unknown}; "
                f"valid are {sorted(set(valid) - {'random_state'})}."
            )
        if "random_state" in valid:
            kw["random_state"] = run.seed
        kw = {k: (list(map(list, v)) if k == "prior_groups" and v else v) for k, v in kw.items()}
        return self.estimator(**kw)


#: parameters a Run takes that are not the estimator's (how the run feeds it)
_RUN_ONLY = {
    "grm": ("base",),
    "saola": ("chunk",),
    "group-saola": ("groups",),
    "alpha-investing": ("chunk",),
    "osfs": ("chunk",),
    "fast-osfs": ("chunk",),
    "grafting": ("chunk",),
}


def _fit(est, ds, y, client=None) -> float:
    t0 = time.perf_counter()
    if client is not None and "client" in inspect.signature(est.fit).parameters:
        est.fit(ds.X, y, client=client)
    else:
        est.fit(ds.X, y)
    return time.perf_counter() - t0


# ---------------------------------------------------------------------------- selectors
def _score(run: Run, ctx: Context) -> R.ScoreResult:
    ds = ctx.dataset
    est = run.spec.make(run)
    y = getattr(ds, "y", None)
    if not run.spec.supervised and getattr(ds, "target_kind", None) == "continuous":
        y = None  # unsupervised scores that can use class labels (SPEC's label graph) take none
    seconds = _fit(est, ds, y)
    return _score_result(run, ds, est, seconds)


def _score_result(run: Run, ds, est, seconds: float) -> R.ScoreResult:
    """A fitted scorer's ``scores_`` and ``ranking_`` as the run's result."""
    scores = np.asarray(est.scores_, dtype=np.float64)
    return R.ScoreResult(run, ds.fingerprint, scores, np.asarray(est.ranking_, dtype=np.int64), seconds)


def _subset(run: Run, ctx: Context) -> R.SubsetResult:
    ds = ctx.dataset
    est = run.spec.make(run)
    seconds = _fit(est, ds, ds.y)
    return R.SubsetResult(
        run,
        ds.fingerprint,
        np.asarray(est.selected_, dtype=np.int64),
        np.asarray(est.scores_, dtype=np.float64),
        seconds,
    )


def _class_value(ds, name):
    """The value in ``ds.y`` of the class a person named (class names are shown as text)."""
    if name is None:
        return None
    names = getattr(ds, "class_names", None)
    if names is not None:
        hit = np.flatnonzero(np.asarray(names).astype(str) == str(name))
        if hit.size:
            return int(hit[0])
    values = np.unique(np.asarray(ds.y))
    hit = [v for v in values.tolist() if str(v) == str(name)]
    if not hit:
        shown = np.asarray(names).astype(str).tolist() if names is not None else values.tolist()
        raise ValueError(f"GDM: 'positive' class {name!r} is not one of the labels {shown[:10]}.")
    return hit[0]


def _gdm(run: Run, ctx: Context) -> R.GroupResult:
    ds = ctx.dataset
    positive = _class_value(ds, run.get("positive")) if not run.get("one_class") else None
    est = run.spec.make(run.replace(positive=None))
    if positive is not None:
        est.set_params(positive=positive)
    y = np.ones(ds.X.shape[0]) if run.get("one_class") else ds.y
    seconds = _fit(est, ds, y, ctx.client)
    support = np.asarray(est.support_, dtype=np.int64)
    parts = [np.asarray(est.groups_.get(int(s), ()), dtype=np.int64) for s in support]
    rhos = [np.abs(np.asarray(est.group_corr_.get(int(s), ()), dtype=np.float64)) for s in support]
    af = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    scores = np.abs(np.asarray(est.scores_, dtype=np.float64))
    return R.GroupResult(
        run,
        ds.fingerprint,
        support,
        scores[support],
        af,
        np.repeat(support, [len(p) for p in parts]) if parts else np.zeros(0, dtype=np.int64),
        np.concatenate(rhos) if rhos else np.zeros(0),
        scores,
        int(est.n_correlations_),
        int(ds.X.shape[1]),
        np.asarray(est.objective_history_, dtype=np.float64),
        seconds,
    )


def _grm(run: Run, ctx: Context) -> R.GRMResult:
    ds = ctx.dataset
    base_run = run.get("base")
    if not isinstance(base_run, Run) or base_run.spec.kind != "score":
        raise ValueError(
            f"GRM: 'base' must be a Run of a scoring method ({', '.join(score_methods())}); got {base_run!r}."
        )
    base = ctx.result(base_run)
    est = run.spec.make(run)
    t0 = time.perf_counter()
    est.fit(ds.X, base.scores)
    seconds = time.perf_counter() - t0
    cand = np.asarray(est.top_, dtype=np.int64)
    refined = np.asarray(est.scores_, dtype=np.float64)
    return R.GRMResult(
        run,
        ds.fingerprint,
        base_run,
        cand,
        base.scores[cand],
        refined[cand],
        np.asarray(est.ranking_, dtype=np.int64),
        refined,
        np.asarray(est.lambda_history_, dtype=np.float64),
        seconds,
    )


def _stream_result(run, ds, est, arrival, seconds) -> R.StreamResult:
    hist = est.history_
    return R.StreamResult(
        run,
        ds.fingerprint,
        arrival,
        tuple(hist.outcomes(arrival).tolist()),
        tuple(hist.explanations(arrival).tolist()),
        hist.set_sizes(arrival),
        np.asarray(est.selected_, dtype=np.int64),
        np.asarray(est.scores_, dtype=np.float64),
        seconds,
    )


def _saola(run: Run, ctx: Context) -> R.StreamResult:
    """Features arrive ``chunk`` at a time (``partial_fit``); with a Dask client all at once."""
    ds = ctx.dataset
    est = run.spec.make(run)
    X, m = ds.X, ds.X.shape[1]
    chunk = int(run.get("chunk", 200))
    if chunk < 1:
        raise ValueError(f"SAOLA: 'chunk' must be a positive number of features per arrival; got {chunk}.")
    t0 = time.perf_counter()
    if ctx.client is not None:
        est.fit(X, ds.y, client=ctx.client)
    else:
        for start in range(0, m, chunk):
            stop = min(start + chunk, m)
            est.partial_fit(X[:, start:stop], ds.y)
            n_sel = len(est.selected_)
            text = f"{stop:,} of {m:,} features arrived; {n_sel:,} selected"
            ctx.progress(stop / m, text, arrived=stop, selected=n_sel)
    seconds = time.perf_counter() - t0
    return _stream_result(run, ds, est, np.arange(m), seconds)


def _group_saola(run: Run, ctx: Context) -> R.StreamResult:
    """Groups arrive one at a time: GDM's groups (``groups`` = a GDM Run) or a random partition
    into ``groups`` parts (the SAOLA paper's set-up), seeded by the run's seed."""
    ds = ctx.dataset
    m = ds.X.shape[1]
    spec = run.get("groups")
    if isinstance(spec, Run):
        if spec.method != "gdm":
            raise ValueError(f"group-SAOLA: 'groups' must be a GDM Run or a number of groups; got {spec!r}.")
        groups = ctx.result(spec).partition()
    elif isinstance(spec, int) and not isinstance(spec, bool):
        groups = S.random_feature_groups(m, min(max(spec, 1), m), random_state=run.seed)
    else:
        raise ValueError(
            "group-SAOLA: 'groups' must be a GDM Run (its groups) or the number of random groups; "
            f"got {spec!r}."
        )
    est = run.spec.make(run)
    ctx.progress(0.0, f"{len(groups)} groups arriving")
    t0 = time.perf_counter()
    est.fit(ds.X, ds.y, [np.asarray(g, dtype=np.int64) for g in groups])
    seconds = time.perf_counter() - t0
    ctx.progress(1.0, "done")
    arrival = np.concatenate([np.asarray(g, dtype=np.int64) for g in groups])
    arrival = np.concatenate([arrival, np.setdiff1d(np.arange(m), arrival)])  # ungrouped last
    return _stream_result(run, ds, est, arrival, seconds)


def _group_lasso(run: Run, ctx: Context) -> R.ScoreResult:
    """Group lasso / sparse group lasso with the groups the run names: ``groups`` = a GDM Run (or
    ``"gdm"``: GDM at its defaults; each SF with its AFs is one group), ``"categorical"`` (the
    dataset's one-hot blocks), ``"prior"`` (prior groups stored on the dataset) or explicit index
    lists; none: every feature is its own group."""
    ds = ctx.dataset
    spec = run.get("groups")
    label = run.spec.label
    if spec == "gdm":
        spec = Run("gdm", {}, run.seed)
    if spec is None:
        groups = None
    elif isinstance(spec, Run):
        if spec.method != "gdm":
            raise ValueError(f"{label}: 'groups' must be a GDM Run; got a {spec.method!r} Run.")
        groups = [g for g in ctx.result(spec).partition() if len(g) > 1]
    elif spec == "categorical":
        groups = ds.categorical_groups
        if not groups:
            raise ValueError(
                f"{label}: groups='categorical' needs one-hot encoded columns; dataset {ds.name!r} has none "
                "(load it with categorical='onehot')."
            )
    elif spec == "prior":
        groups = getattr(ds, "prior_groups", None) or ds.meta.get("prior_groups")
        if not groups:
            raise ValueError(
                f"{label}: groups='prior' needs prior groups on the dataset; {ds.name!r} has none."
            )
    elif isinstance(spec, str):
        raise ValueError(
            f"{label}: 'groups' must be 'gdm', 'categorical', 'prior', a GDM Run or index lists; "
            f"got {spec!r}."
        )
    else:
        groups = [list(g) for g in spec]
    est = run.spec.make(run.replace(groups=None))
    if groups is not None:
        est.set_params(groups=[np.asarray(g, dtype=np.int64) for g in groups])
    seconds = _fit(est, ds, ds.y)
    return _score_result(run, ds, est, seconds)


def _feature_stream(run: Run, ctx: Context) -> R.StreamResult:
    """The SAOLA paper's streaming baselines: features arrive ``chunk`` at a time (``partial_fit``)."""
    ds = ctx.dataset
    est = run.spec.make(run)
    X, m = ds.X, ds.X.shape[1]
    chunk = int(run.get("chunk", 200))
    if chunk < 1:
        raise ValueError(
            f"{run.spec.label}: 'chunk' must be a positive number of features per arrival; got {chunk}."
        )
    t0 = time.perf_counter()
    for start in range(0, m, chunk):
        stop = min(start + chunk, m)
        est.partial_fit(X[:, start:stop], ds.y)
        n_sel = len(est.selected_)
        ctx.progress(
            stop / m, f"{stop:,} of {m:,} features arrived; {n_sel:,} selected", arrived=stop, selected=n_sel
        )
    seconds = time.perf_counter() - t0
    return _stream_result(run, ds, est, np.arange(m), seconds)


# ---------------------------------------------------------------------------- views
def _histogram(run: Run, ctx: Context) -> R.HistogramResult:
    """Exact over all pairs up to ``max_features`` features, else a sampled estimate (flagged)."""
    from fsviz.stats import correlation_histogram

    ds = ctx.dataset
    exact = ds.X.shape[1] <= int(run.get("max_features", 20_000))
    res = correlation_histogram(
        ds.X,
        bins=int(run.get("bins", 20)),
        exact=exact,
        random_state=run.seed,
        client=ctx.client,
        progress=lambda done, total: ctx.progress(done / max(total, 1), f"{done} of {total} blocks"),
    )
    counts = np.asarray(res.counts, dtype=np.float64)
    return R.HistogramResult(
        run,
        ds.fingerprint,
        np.asarray(res.edges, dtype=np.float64),
        counts,
        bool(res.exact),
        int(round(counts.sum())),
        int(res.n_pairs),
        len(res.constant_features),
        float(res.seconds),
    )


def _evaluation(run: Run, ctx: Context) -> R.Evaluation:
    """CV accuracy (CV R^2 and RMSE for a continuous target) and redundancy of the top ``k``
    of the selection made by Run ``of``.

    ``reselect=True`` (default) redoes the selection inside every training fold through
    the same Run (no selection bias, Ambroise & McLachlan, PNAS 2002); ``False`` evaluates
    the features chosen on all samples (optimistic; for comparison only).
    """
    from fsviz.evaluate import cv_accuracy, redundancy_rate

    ds = ctx.dataset
    of, k = run.get("of"), int(run.get("k", 20))
    reselect = bool(run.get("reselect", True))
    t0 = time.perf_counter()
    chosen = ctx.result(of).selection(k).indices
    red = float(redundancy_rate(ds.X, chosen)) if len(chosen) > 1 else 0.0
    y = getattr(ds, "y", None)
    if y is not None and getattr(ds, "target_kind", None) == "continuous":
        return _evaluation_regression(run, ds, of, k, reselect, chosen, red, t0)
    acc = std = float("nan")
    n_folds = 0
    scheme = str(run.get("cv", "auto"))
    note = _cv_not_possible(ds, y, scheme, len(chosen))
    if not note:
        smallest = int(np.unique(y, return_counts=True)[1].min())
        n_folds = ds.n_samples if scheme == "loo" else min(5, smallest)
        cv = cv_accuracy(
            ds.X,
            y,
            fold_selector(of, k, ds) if reselect else chosen,
            k=k if reselect else None,
            model=str(run.get("model", "svm")),
            n_splits="loo" if scheme == "loo" else n_folds,
            reselect=True,
            random_state=run.seed,
        )
        acc, std = cv.mean, cv.std
    seconds = time.perf_counter() - t0
    n = len(chosen)
    return R.Evaluation(
        run, ds.fingerprint, n, float(acc), red, reselect, seconds, float(std), n_folds, note=note
    )


#: the CV schemes of the "evaluation" view: stratified k-fold (k = 5, fewer when a class is
#: smaller) or leave-one-out
CV_SCHEMES = ("auto", "loo")


def _cv_not_possible(ds, y, scheme: str, n_chosen: int) -> str:
    """Why a classification CV cannot run on ``ds`` (empty when it can), in the app's words."""
    if scheme not in CV_SCHEMES:
        raise ValueError(f"evaluation: 'cv' must be one of {CV_SCHEMES}; got {scheme!r}.")
    if y is None:
        return "not computed: the dataset has no target (choose a target column on the Data page)"
    if not n_chosen:
        return "not computed: the selection is empty"
    names, counts = np.unique(y, return_counts=True)
    if len(names) < 2:
        return "not computed: the target has a single class (CV accuracy needs two or more)"
    if scheme == "auto" and counts.min() < 2:
        labels, sizes = ds.class_labels() if hasattr(ds, "class_labels") else ([], [])
        ones = [c for c, n in zip(labels, sizes, strict=True) if n == 1] or [
            str(c) for c in names[counts < 2]
        ]
        listed = ", ".join(repr(c) for c in ones[:5]) + (" …" if len(ones) > 5 else "")
        return (
            f"not computed: {len(ones)} class{'es' if len(ones) != 1 else ''} with a single sample "
            f"({listed}); stratified folds need 2 per class. On the Data page, drop classes with fewer "
            "than 2 samples, or choose leave-one-out CV"
        )
    return ""


def _benchmark(run: Run, ctx: Context) -> R.BenchmarkResult:
    """:func:`fsviz.evaluate.benchmark` (the survey's protocol) of the Runs or names ``methods``."""
    import warnings

    from fsviz.evaluate import benchmark

    ds = ctx.dataset
    methods = run.get("methods", ())
    t0 = time.perf_counter()
    with warnings.catch_warnings():  # the clipping note travels in the result instead
        warnings.simplefilter("ignore", UserWarning)
        frame = benchmark(
            ds,
            None,
            list(methods) if isinstance(methods, tuple) else methods,
            ks=list(run.get("ks", range(5, 305, 5))),
            classifiers=list(run.get("classifiers", ("linear_svm", "decision_tree", "naive_bayes"))),
            cv=int(run.get("cv", 10)),
            select_in_fold=bool(run.get("select_in_fold", True)),
            n_repeats_kmeans=int(run.get("n_repeats_kmeans", 20)),
            random_state=run.seed,
            n_jobs=run.get("n_jobs"),
            client=ctx.client,
            progress=ctx.progress,
        )
    seconds = time.perf_counter() - t0
    return R.BenchmarkResult(run, ds.fingerprint, frame, tuple(frame.attrs.get("notes", ())), seconds)


def _evaluation_regression(run: Run, ds, of: Run, k: int, reselect: bool, chosen, red: float, t0: float):
    """A continuous target: K-fold R^2 and RMSE of a ridge regression (``cv_regression``)."""
    from fsviz.evaluate import cv_regression

    r2 = r2_std = rmse = rmse_std = float("nan")
    n_folds = 0
    if len(chosen) and ds.n_samples >= 4:
        n_folds = min(5, ds.n_samples // 2)
        cv = cv_regression(
            ds.X,
            ds.y,
            fold_selector(of, k, ds) if reselect else chosen,
            k=k if reselect else None,
            model="ridge",
            n_splits=n_folds,
            reselect=True,
            random_state=run.seed,
        )
        r2, r2_std, rmse, rmse_std = cv.r2, cv.r2_std, cv.rmse, cv.rmse_std
    return R.Evaluation(
        run,
        ds.fingerprint,
        len(chosen),
        float("nan"),
        red,
        reselect,
        time.perf_counter() - t0,
        float("nan"),
        n_folds,
        target="continuous",
        cv_r2=float(r2),
        cv_r2_std=float(r2_std),
        cv_rmse=float(rmse),
        cv_rmse_std=float(rmse_std),
    )


def fold_selector(of: Run, k: int | None, dataset) -> Callable[[Any, np.ndarray], np.ndarray]:
    """``f(X_train, y_train) -> indices``: Run ``of`` executed on a training fold.

    Given to :func:`fsviz.evaluate.cv_accuracy`, it redoes the whole selection (a GRM's
    base score, a group-SAOLA's GDM groups included) inside every training fold.
    """
    from fsviz.data import Dataset

    def fit(X, y) -> np.ndarray:
        fold = Dataset(X, y=np.asarray(y), feature_names=dataset.feature_names, name="training fold")
        return of.execute(fold).selection(k).indices

    return fit


def _pairs(run: Run, ctx: Context) -> R.PairsResult:
    """``fsviz.stats.top_pairs``: the ``k`` most correlated pairs, Pearson or Spearman."""
    from fsviz.stats import top_pairs

    ds = ctx.dataset
    t0 = time.perf_counter()
    frame = top_pairs(ds.X, int(run.get("k", 50)), method=str(run.get("method", "pearson")))
    i, j = frame["i"].to_numpy(np.int64), frame["j"].to_numpy(np.int64)
    return R.PairsResult(
        run, ds.fingerprint, i, j, frame["rho"].to_numpy(np.float64), time.perf_counter() - t0
    )


def _correlations(run: Run, ctx: Context) -> R.CorrelationsResult:
    """``fsviz.stats.correlations_with`` one feature (``against`` = its index) or the target."""
    from fsviz.stats import correlations_with

    ds = ctx.dataset
    against = run.get("against", "target")
    t0 = time.perf_counter()
    if against == "target":
        if ds.y is None:
            raise ValueError(f"correlation with the target: dataset {ds.name!r} has none; pick a feature.")
        rho, label = correlations_with(ds.X, ds.y, method=str(run.get("method", "pearson"))), "the target"
    else:
        j = int(against)
        rho = correlations_with(ds.X, j, method=str(run.get("method", "pearson")))
        label = str(ds.feature_names[j])
    return R.CorrelationsResult(run, ds.fingerprint, np.asarray(rho), label, time.perf_counter() - t0)


def _stability(run: Run, ctx: Context) -> R.StabilityResult:
    """Run ``of`` redone on ``n_boot`` bootstrap resamples of the samples (its top ``k``).

    Per-feature selection frequency, Kuncheva's index (equal sizes) and Jaccard; for GDM
    also how often each of its groups (on all samples) has a member selected.
    """
    from fsviz.evaluate import bootstrap_selections, group_frequency, selection_frequency, selection_stability

    ds = ctx.dataset
    of, k, n_boot = run.get("of"), run.get("k"), int(run.get("n_boot", 20))
    if ds.y is None and of.spec.supervised:
        raise ValueError(f"stability: {of.spec.label} needs the target, and dataset {ds.name!r} has none.")
    t0 = time.perf_counter()
    select = fold_selector(of, None if k is None else int(k), ds)
    y = ds.y if ds.y is not None else np.zeros(ds.n_samples)
    subsets = bootstrap_selections(select, ds.X, y, n_boot=n_boot, random_state=run.seed)
    m = ds.n_features
    sizes = {len(s) for s in subsets}
    kun = (
        selection_stability(subsets, m, measure="kuncheva")
        if len(sizes) == 1 and 0 < sizes.pop() < m
        else np.nan
    )
    jac = selection_stability(subsets, m, measure="jaccard")
    gfreq, gsup = np.zeros(0), np.zeros(0, dtype=np.int64)
    if of.method == "gdm":
        base = ctx.result(of)
        parts = [g for g in base.partition() if len(g) > 1 or g[0] in set(base.support.tolist())]
        gfreq = group_frequency(subsets, parts, m)
        gsup = np.array([g[0] for g in parts], dtype=np.int64)
    freq = selection_frequency(subsets, m)
    return R.StabilityResult(
        run,
        ds.fingerprint,
        tuple(subsets),
        freq,
        float(kun),
        float(jac),
        gfreq,
        gsup,
        time.perf_counter() - t0,
    )


def _leakage(run: Run, ctx: Context) -> R.LeakageResult:
    """``fsviz.data.leaky_features`` of the dataset's target (empty without classes)."""
    from fsviz.data import leaky_features

    ds = ctx.dataset
    t0 = time.perf_counter()
    found = ()
    if ds.y is not None and ds.is_classification and len(np.unique(ds.y)) > 1:
        found = tuple(leaky_features(ds.X, ds.labels, ds.feature_names))
    return R.LeakageResult(run, ds.fingerprint, found, time.perf_counter() - t0)


def _projection(run: Run, ctx: Context) -> R.Projection:
    """PCA to two components of the standardised columns ``features``."""
    from sklearn.decomposition import PCA

    ds = ctx.dataset
    idx = np.asarray(run.get("features", ()), dtype=np.intp)
    if idx.size == 0:
        raise ValueError("projection: 'features' is empty; choose a selection with at least one feature.")
    Xs = ds.X[:, idx]
    Xs = Xs.toarray() if sp.issparse(Xs) else np.asarray(Xs, dtype=np.float64)
    std = Xs.std(axis=0)
    Xs = (Xs - Xs.mean(axis=0)) / np.where(std > 0, std, 1.0)
    n_comp = min(2, Xs.shape[1], Xs.shape[0])
    pca = PCA(n_components=n_comp, random_state=run.seed).fit(Xs)
    coords = pca.transform(Xs)
    if n_comp < 2:
        coords = np.column_stack([coords, np.zeros(len(coords))])
    explained = np.pad(pca.explained_variance_ratio_, (0, 2 - n_comp))
    return R.Projection(run, ds.fingerprint, coords, explained, idx.astype(np.int64))


def _images(run: Run, ctx: Context) -> R.ImagePanels:
    """Example images (one per class, round robin) and per-class means, in ``shape``.

    A continuous target has no classes: random examples labelled with their ``y`` and the
    means of the samples at most / above the median of ``y``.

    Rows of X are reshaped in C order (the loader already turned MATLAB's column-major
    images upright). With more than ``max_means`` classes the first ``max_means`` are shown.
    """
    ds = ctx.dataset
    shape = run.get("shape")
    if not shape:
        raise ValueError(f"image panels: dataset {ds.name!r} has no image shape; set it in the sidebar.")
    h, w = map(int, shape)
    if h * w != ds.X.shape[1]:
        raise ValueError(f"image panels: {h} x {w} pixels do not match the {ds.X.shape[1]} features.")
    n_examples, max_means = int(run.get("n_examples", 4)), int(run.get("max_means", 4))
    X = ds.X.toarray() if sp.issparse(ds.X) else np.asarray(ds.X, dtype=np.float64)
    rng = np.random.default_rng(run.seed)
    y = getattr(ds, "y", None)
    if y is None:
        pick = rng.choice(len(X), size=min(n_examples, len(X)), replace=False)
        mean = X.mean(0).reshape(1, h, w)
        examples = X[pick].reshape(-1, h, w)
        return R.ImagePanels(run, ds.fingerprint, examples, ("",) * len(pick), mean, ("all samples",), (h, w))
    if getattr(ds, "target_kind", None) == "continuous":  # no classes: halves of the target
        pick = rng.choice(len(X), size=min(n_examples, len(X)), replace=False)
        low = y <= np.median(y)
        means = np.stack([X[low].mean(0), X[~low].mean(0) if (~low).any() else X[low].mean(0)])
        return R.ImagePanels(
            run,
            ds.fingerprint,
            X[pick].reshape(-1, h, w),
            tuple(f"y = {v:.3g}" for v in y[pick]),
            means.reshape(-1, h, w),
            ("mean, y at most its median", "mean, y above its median"),
            (h, w),
        )
    names = np.asarray(ds.labels).astype(str)
    classes = np.unique(y)
    per = [rng.permutation(np.flatnonzero(y == c)) for c in classes]
    n_cls = len(classes)
    pick = [per[i % n_cls][i // n_cls] for i in range(n_examples) if i // n_cls < len(per[i % n_cls])]
    shown = classes[:max_means]
    means = np.stack([X[y == c].mean(0) for c in shown]).reshape(-1, h, w)
    mean_labels = tuple(f"mean of class {names[np.flatnonzero(y == c)[0]]}" for c in shown)
    return R.ImagePanels(
        run,
        ds.fingerprint,
        X[pick].reshape(-1, h, w),
        tuple(str(names[p]) for p in pick),
        means,
        mean_labels,
        (h, w),
    )


# ---------------------------------------------------------------------------- the registry
def _view(name: str, label: str, help: str, runner: Callable[[Run, Context], Any]) -> Method:
    """A computation the app shows that is not a selector (its kind is its name)."""
    return Method(name, label, name, None, False, help, runner)


METHODS: dict[str, Method] = {
    m.name: m
    for m in [
        Method("gdm", "GDM", "groups", S.GDM, True, "support + affiliated groups", _gdm, "one_class", True),
        Method(
            "saola", "SAOLA", "stream", S.SAOLA, True, "online streaming selection", _saola, regression=True
        ),
        Method(
            "group-saola",
            "group-SAOLA",
            "stream",
            S.GroupSAOLA,
            True,
            "SAOLA over groups",
            _group_saola,
            regression=True,
        ),
        Method("grm", "GRM", "grm", S.GRM, False, "global redundancy minimisation of a base score", _grm),
        Method("lgd", "LGD", "score", S.LGD, False, "local-global discrepancy (unsupervised)", _score),
        Method("laplacian", "Laplacian score", "score", S.LaplacianScore, False, "unsupervised", _score),
        Method("fisher", "Fisher score", "score", S.FisherScore, True, "Fisher score", _score),
        Method(
            "relieff",
            "ReliefF",
            "score",
            S.ReliefF,
            True,
            "ReliefF (RReliefF for a continuous target)",
            _score,
            regression=True,
        ),
        Method(
            "mi",
            "Mutual information",
            "score",
            S.MutualInfo,
            True,
            "MI with the target",
            _score,
            regression=True,
        ),
        Method(
            "f",
            "F-score",
            "score",
            S.FScore,
            True,
            "ANOVA F (F-regression for a continuous target)",
            _score,
            regression=True,
        ),
        Method(
            "pearson",
            "|Pearson r|",
            "score",
            S.PearsonScore,
            True,
            "|correlation| with the target",
            _score,
            regression=True,
        ),
        Method(
            "spearman",
            "|Spearman rho|",
            "score",
            S.SpearmanScore,
            True,
            "|rank correlation| with the target",
            _score,
            regression=True,
        ),
        Method("chi2", "Chi-square", "score", S.ChiSquare, True, "chi-square (non-negative data)", _score),
        Method("variance", "Variance", "score", S.VarianceScore, False, "variance (unsupervised)", _score),
        Method("mcfs", "MCFS", "score", S.MCFS, False, "multi-cluster feature selection", _score),
        Method("mrmr", "mRMR", "subset", S.MRMR, True, "minimum redundancy maximum relevance (MID)", _subset),
        Method("fcbf", "FCBF", "subset", S.FCBF, True, "fast correlation-based filter", _subset),
        Method("mifs", "MIFS", "subset", S.MIFS, True, "relevance - beta x summed MI with chosen", _subset),
        Method("cife", "CIFE", "subset", S.CIFE, True, "MIFS(beta=1) + class-conditional MI", _subset),
        Method("jmi", "JMI", "subset", S.JMI, True, "joint mutual information with each chosen", _subset),
        Method("cmim", "CMIM", "subset", S.CMIM, True, "min over chosen of I(f;Y|s)", _subset),
        Method("icap", "ICAP", "subset", S.ICAP, True, "CIFE with interactions capped at zero", _subset),
        Method("disr", "DISR", "subset", S.DISR, True, "JMI normalised by H(f,s,Y)", _subset),
        Method("cfs", "CFS", "subset", S.CFS, True, "forward search on Hall's merit (SU)", _subset),
        Method("tscore", "t-score", "score", S.TScore, True, "two-class Welch t statistic", _score),
        Method("gini", "Gini index", "score", S.GiniIndex, True, "Gini gain of the best split", _score),
        Method(
            "trace-ratio", "Trace ratio", "score", S.TraceRatio, True, "best k-subset by trace ratio", _score
        ),
        Method("spec", "SPEC", "score", S.SPEC, False, "spectral score (label graph if labelled)", _score),
        Method(
            "group-lasso", "Group lasso", "score", S.GroupLasso, True, "l2 penalty per group", _group_lasso
        ),
        Method(
            "sparse-group-lasso",
            "Sparse group lasso",
            "score",
            S.SparseGroupLasso,
            True,
            "l1 + group l2",
            _group_lasso,
        ),
        Method(
            "tree-lasso", "Tree lasso", "score", S.TreeLasso, True, "nested groups (feature tree)", _score
        ),
        Method(
            "alpha-investing",
            "alpha-investing",
            "stream",
            S.AlphaInvesting,
            True,
            "streamwise regression, alpha-wealth",
            _feature_stream,
        ),
        Method(
            "osfs", "OSFS", "stream", S.OSFS, True, "online streaming CI tests (Wu et al.)", _feature_stream
        ),
        Method(
            "fast-osfs",
            "Fast-OSFS",
            "stream",
            S.FastOSFS,
            True,
            "OSFS testing the arrival first",
            _feature_stream,
        ),
        Method(
            "grafting",
            "Grafting",
            "stream",
            S.Grafting,
            True,
            "l1 logistic, gradient test per arrival",
            _feature_stream,
        ),
        Method("ofs", "OFS", "subset", S.OFS, True, "online (sample-stream) truncated linear model", _subset),
        Method("l1-svm", "l1-SVM", "subset", S.L1SVM, True, "l1-regularised linear SVM (liblinear)", _subset),
        Method(
            "svm-rfe", "SVM-RFE", "subset", S.SVMRFE, True, "recursive elimination with a linear SVM", _subset
        ),
        Method("rfs", "RFS", "score", S.RFS, True, "robust FS: l2,1 loss + l2,1 regulariser", _score),
        Method("ls-l21", "LS-l2,1", "score", S.LSL21, True, "least squares + l2,1 (one-hot y)", _score),
        Method("ll-l21", "LL-l2,1", "score", S.LLL21, True, "multinomial logistic + l2,1", _score),
        Method("udfs", "UDFS", "score", S.UDFS, False, "l2,1 local discriminative (unsupervised)", _score),
        Method("ndfs", "NDFS", "score", S.NDFS, False, "nonnegative spectral + l2,1 (unsupervised)", _score),
        _view("histogram", "|rho| histogram", "|rho| of all pairs", _histogram),
        _view("evaluation", "Evaluation", "CV accuracy and redundancy of a top k", _evaluation),
        _view("benchmark", "Benchmark (survey protocol)", "accuracy / NMI against top k", _benchmark),
        _view("pairs", "Top correlated pairs", "the most correlated pairs", _pairs),
        _view("correlations", "Correlations with", "every feature's rho with one vector", _correlations),
        _view("stability", "Bootstrap stability", "a selection redone on resamples", _stability),
        _view("leakage", "Leakage check", "features that give the target away", _leakage),
        _view("projection", "PCA projection", "PCA of a feature subset", _projection),
        _view("images", "Image panels", "example images and class means", _images),
    ]
}

#: base scores GRM refines; the neighbourhood size applies to those that have one
NEIGHBOUR_METHODS = ("lgd", "laplacian", "relieff", "mcfs")


def method(name: str) -> Method:
    """The registered method ``name``; ValueError listing the known ones otherwise."""
    try:
        return METHODS[name]
    except KeyError:
        raise ValueError(f"unknown method {name!r}; known are {sorted(METHODS)}.") from None


def methods_for(target_kind: str | None, kinds: tuple[str, ...] | None = None) -> list[str]:
    """Names of the methods that run on a target of this kind, in registry order.

    ``target_kind`` is ``"classes"``, ``"continuous"`` or None (no target: unsupervised
    methods, and GDM one-class); ``kinds`` keeps only those :attr:`Method.kind`.
    """
    return [n for n, m in METHODS.items() if m.accepts(target_kind) and (kinds is None or m.kind in kinds)]


def selection_methods() -> list[str]:
    """Names of the methods that select features, in registry order."""
    return [n for n, m in METHODS.items() if m.selects]


def score_methods() -> list[str]:
    """Names of the scoring methods (GRM's possible bases), in registry order."""
    return [n for n, m in METHODS.items() if m.kind == "score"]


def grm_base_params(name: str) -> dict:
    """Parameters that put a score in the form GRM takes it (0 = no evidence; docs/scores.md):
    information gain on MDL cuts. The GRM page and ``fsviz select --method grm`` start from these."""
    return {"strategy": "mdl"} if name == "mi" else {}


def grm_default_base(target_kind: str | None) -> str:
    """GRM's default base score: Fisher score where there are classes, else the Laplacian score.

    On GLIOMA, ALLAML and COIL20 GRM's gain on Fisher holds with the selection redone in each
    training fold; LGD's 1-D reading loses accuracy under GRM there (docs/reproduce.md). The
    GRM page and ``fsviz select --method grm`` start from it.
    """
    return "fisher" if target_kind == "classes" else "laplacian"


def score_params(name: str, n_neighbors: int) -> dict:
    """A base score's parameters from the GRM page: :func:`grm_base_params` and the
    neighbourhood size where it has one."""
    params = grm_base_params(name)
    if name in NEIGHBOUR_METHODS:
        params["n_neighbors"] = int(n_neighbors)
    return params


__all__ = [
    "METHODS",
    "Method",
    "NEIGHBOUR_METHODS",
    "fold_selector",
    "grm_default_base",
    "method",
    "methods_for",
    "score_methods",
    "score_params",
    "grm_base_params",
    "selection_methods",
]
