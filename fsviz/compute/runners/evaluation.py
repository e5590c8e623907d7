"""Runners of the evaluations: CV quality of a top k, the survey's benchmark, bootstrap stability.

Each of these views re-executes a selection Run (``of``, or the benchmark's ``methods``) on
training folds or resamples (:func:`fold_selector`, :func:`benchmark_rankers`), so a GRM's base
score or a group-SAOLA's GDM groups are redone inside every fold too. Their parameters are
declared here, beside their runners; a default that a library function owns (``n_boot`` of
:func:`fsviz.evaluate.bootstrap_selections`, ``cv`` and ``n_repeats_kmeans`` of
:func:`fsviz.evaluate.benchmark`) is read from its signature.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from fsviz import evaluate
from fsviz._params import Param, signature_default
from fsviz.compute import results as R
from fsviz.compute.covariates import COVARIATES, dataset_covariates, zero_columns
from fsviz.compute.runs import Context, Run, params_label, registered
from fsviz.evaluate.protocol import benchmark as _survey
from fsviz.evaluate.stability import bootstrap_selections as _bootstrap

__all__ = [
    "BENCHMARK_PARAMS",
    "CV_SCHEMES",
    "EVALUATION_PARAMS",
    "STABILITY_PARAMS",
    "TOP_K",
    "benchmark",
    "benchmark_rankers",
    "evaluation",
    "survey",
    "fold_selector",
    "stability",
]

#: the CV schemes of the "evaluation" view: stratified k-fold (k = 5, fewer when a class is
#: smaller) or leave-one-out
CV_SCHEMES = ("auto", "loo")

#: the top k a page evaluates, resamples, projects or tabulates (every top-k slider, the report's
#: top-k tables): at least 1, like the selection size; the slider spans the practical range
TOP_K = Param(
    name="k",
    default=20,
    constraints=(Interval(Integral, 1, None, closed="left"),),
    label="top-k features",
    help="How many of the first features of each selection to use.",
    step=1,
    practical=(1, 200),
)
_OF = Param(name="of", default=None, label="selection", help="The selection Run evaluated.")

EVALUATION_PARAMS = (
    _OF,
    TOP_K,
    Param(
        name="reselect",
        default=True,
        constraints=("boolean",),
        label="redo the selection in each training fold",
        help="True: no selection bias; False: the features chosen on all samples (optimistic).",
    ),
    Param(
        name="cv",
        default=CV_SCHEMES[0],
        constraints=(StrOptions(set(CV_SCHEMES)),),
        label="cross-validation",
        help="auto: stratified 5-fold (fewer when a class is smaller); loo: leave-one-out.",
    ),
    Param(
        name="model",
        default=signature_default(evaluate.cv_accuracy, "model"),
        constraints=(StrOptions({"svm", "knn"}),),
        label="classifier",
        help="Linear SVM or 1-NN on standardised features.",
    ),
)
STABILITY_PARAMS = (
    _OF,
    replace(
        TOP_K,
        default=None,
        constraints=(*TOP_K.constraints, None),
        label="top-k of each resample",
        help="How many of the first features each resample keeps; none: all it selects.",
    ),
    Param(
        name="n_boot",
        default=signature_default(_bootstrap, "n_boot"),
        constraints=(Interval(Integral, 2, None, closed="left"),),
        label="bootstrap resamples",
        help="How many times the selection is redone on samples drawn with replacement.",
        options=(5, 10, 20, 50, 100),
    ),
    Param(
        name="tau",
        default=None,
        constraints=(Interval(Real, 0, 1, closed="left"), None),
        label="group tau",
        help="Group-level stability: two resamples agree on a feature when they hold it or one "
        "with |rho| >= 1 - tau (GDM: one of its groups); none: GDM's tau.",
    ),
)
BENCHMARK_PARAMS = (
    Param(
        name="methods",
        default=(),
        label="methods",
        help="Selection methods, registry names or Runs (see 'fsviz methods').",
    ),
    Param(
        name="ks",
        default=tuple(signature_default(_survey, "ks")),
        label="numbers of top features",
        help="The k evaluated; values above the number of features are clipped to it.",
    ),
    Param(
        name="classifiers",
        default=tuple(signature_default(_survey, "classifiers")),
        label="classifiers",
        help="Classifiers trained on each top k: linear_svm, decision_tree, naive_bayes, knn.",
        options=("linear_svm", "decision_tree", "naive_bayes", "knn"),
    ),
    Param(
        name="cv",
        default=signature_default(_survey, "cv"),
        constraints=(Interval(Integral, 2, None, closed="left"),),
        label="folds",
        help="Stratified folds, at most the size of the smallest class.",
        options=(2, 3, 5, 10),
    ),
    Param(
        name="select_in_fold",
        default=signature_default(_survey, "select_in_fold"),
        constraints=("boolean",),
        label="select inside each training fold",
        help="False: select once on all samples (the survey's variant; optimistic).",
    ),
    Param(
        name="n_repeats_kmeans",
        default=signature_default(_survey, "n_repeats_kmeans"),
        constraints=(Interval(Integral, 1, None, closed="left"),),
        label="K-means repeats",
        help="K-means runs per k for unsupervised methods.",
        options=(1, 5, 10, 20),
    ),
    Param(
        name="n_jobs",
        default=signature_default(_survey, "n_jobs"),
        constraints=(Interval(Integral, None, None, closed="neither"), None),
        label="parallel jobs",
        help="Methods and folds run in parallel with joblib; none or 1: in this process.",
    ),
    Param(
        name="stability_tau",
        default=signature_default(_survey, "stability_tau"),
        constraints=(Interval(Real, 0, 1, closed="left"), None),
        label="group stability tau",
        help="Also the stability of the fold selections (columns kuncheva and group_kuncheva): two "
        "folds agree on a feature when they hold it or one with |rho| >= 1 - tau; none: not computed.",
    ),
    COVARIATES,  # adjusted for inside each training fold (supervised methods, selection in fold)
)


def evaluation(run: Run, ctx: Context) -> R.Evaluation:
    """CV accuracy (CV R^2 and RMSE for a continuous target) and redundancy of the top ``k``
    of the selection made by Run ``of``.

    ``reselect=True`` (default) redoes the selection inside every training fold through
    the same Run (no selection bias, Ambroise & McLachlan, PNAS 2002); ``False`` evaluates
    the features chosen on all samples (optimistic; for comparison only).
    """
    ds = ctx.dataset
    of, k = run.get("of"), int(run.get("k"))
    reselect = bool(run.get("reselect"))
    t0 = time.perf_counter()
    chosen = ctx.result(of).selection(k).indices
    red = float(evaluate.redundancy_rate(ds.X, chosen)) if len(chosen) > 1 else 0.0
    y = getattr(ds, "y", None)
    X, design, refit = _in_fold_adjustment(ds, of)
    if y is not None and getattr(ds, "target_kind", None) == "continuous":
        return _evaluation_regression(run, ds, of, k, reselect, chosen, red, t0, ctx, (X, design, refit))
    acc = std = float("nan")
    n_folds = 0
    scheme = str(run.get("cv"))
    note = _cv_not_possible(ds, y, scheme, len(chosen))
    if not note:
        smallest = int(np.unique(y, return_counts=True)[1].min())
        n_folds = ds.n_samples if scheme == "loo" else min(5, smallest)
        cv = evaluate.cv_accuracy(
            X,
            y,
            fold_selector(refit, k, ds) if reselect else chosen,
            k=k if reselect else None,
            model=str(run.get("model")),
            n_splits="loo" if scheme == "loo" else n_folds,
            reselect=True,
            random_state=run.seed,
            client=ctx.client,
            progress=_fold_progress(ctx, "fold"),
            covariates=design,
        )
        acc, std = cv.mean, cv.std
    seconds = time.perf_counter() - t0
    n = len(chosen)
    return R.Evaluation(
        run, ds.fingerprint, n, float(acc), red, reselect, seconds, float(std), n_folds, note=note
    )


def _in_fold_adjustment(ds, of: Run):
    """``(X, design, refit)`` for a CV of ``of``: with covariates, their design (adjusted for inside
    each training fold by the evaluation), ``X`` with the covariates' own columns zeroed (they
    explain themselves) and ``of`` without covariates for the fold refits (the folds are adjusted
    already); else ``(ds.X, None, of)``."""
    if not of.get("covariates"):
        return ds.X, None, of
    cov, own = dataset_covariates(ds, of.get("covariates"))
    return zero_columns(ds.X, own), cov, of.replace(covariates=None)


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


def survey(X, y, methods, *args, random_state: int = 0, **kwargs):
    """:func:`fsviz.evaluate.benchmark` that also takes registry names and Runs as ``methods``.

    The same protocol, arguments and table; names (``"fisher"``, ...) and Runs become rankers
    through :func:`benchmark_rankers` (a name at its declared defaults, seeded with
    ``random_state``), estimators and rankers pass through. Exported as
    ``fsviz.compute.benchmark``.

    Examples
    --------
    >>> from fsviz.compute import benchmark
    >>> from fsviz.data import load_sample
    >>> table = benchmark(load_sample("digits-0-vs-1"), None, ["fisher", "variance"],
    ...                   ks=[5, 10], cv=3, n_repeats_kmeans=2)  # doctest: +SKIP
    """
    rankers = benchmark_rankers(methods, random_state)
    return evaluate.benchmark(X, y, rankers, *args, random_state=random_state, **kwargs)


def benchmark(run: Run, ctx: Context) -> R.BenchmarkResult:
    """:func:`fsviz.evaluate.benchmark` (the survey's protocol) of the Runs or names ``methods``."""
    ds = ctx.dataset
    names = _benchmark_covariates(run)
    design, X = None, ds
    if names:  # adjusted inside each training fold by the protocol; the rankers refit unadjusted
        design, own = dataset_covariates(ds, names)
        X = zero_columns(ds.X, own) if own else ds
    methods = [
        m.replace(covariates=None) if isinstance(m, Run) and m.spec.selects else m
        for m in _as_runs(run.get("methods"), run.seed)
    ]
    methods = benchmark_rankers(methods, run.seed)
    t0 = time.perf_counter()
    with warnings.catch_warnings():  # the clipping note travels in the result instead
        warnings.simplefilter("ignore", UserWarning)
        frame = evaluate.benchmark(
            X,
            ds.y if X is not ds else None,
            methods,
            ks=list(run.get("ks")),
            classifiers=list(run.get("classifiers")),
            cv=int(run.get("cv")),
            select_in_fold=bool(run.get("select_in_fold")),
            n_repeats_kmeans=int(run.get("n_repeats_kmeans")),
            random_state=run.seed,
            n_jobs=run.get("n_jobs"),
            client=ctx.client,
            progress=ctx.progress,
            stability_tau=run.get("stability_tau"),
            covariates=design,
        )
    seconds = time.perf_counter() - t0
    return R.BenchmarkResult(run, ds.fingerprint, frame, tuple(frame.attrs.get("notes", ())), seconds)


def _as_runs(methods, seed: int) -> list:
    """``methods`` as a list, names as Runs at their defaults with ``seed`` (as
    :func:`benchmark_rankers` makes them)."""
    if isinstance(methods, (str, Run)):
        methods = [methods]
    return [Run(m, {}, seed) if isinstance(m, str) and m in registered() else m for m in methods]


def _benchmark_covariates(run: Run) -> tuple[str, ...] | None:
    """The covariates a benchmark adjusts for: its own ``covariates``, or those its method Runs
    share. Methods adjusted for different covariates are refused (one design per protocol)."""
    own = run.get("covariates")
    methods = _as_runs(run.get("methods"), run.seed)
    each = [m.get("covariates") if isinstance(m, Run) else None for m in methods]
    found = {c for c in each if c is not None} | ({tuple(own)} if own else set())
    if len(found) > 1 or (found and not own and None in each):
        raise ValueError(
            f"benchmark: the methods are adjusted for different covariates ({sorted(map(str, set(each)))}); "
            "the protocol adjusts every method inside each training fold for one set: give the "
            "benchmark's own covariates, or benchmark them separately."
        )
    return next(iter(found), None)


def _evaluation_regression(
    run: Run, ds, of: Run, k: int, reselect: bool, chosen, red: float, t0: float, ctx: Context, adjust
):
    """A continuous target: K-fold R^2 and RMSE of a ridge regression (``cv_regression``)."""
    r2 = r2_std = rmse = rmse_std = float("nan")
    n_folds = 0
    X, design, refit = adjust
    if len(chosen) and ds.n_samples >= 4:
        n_folds = min(5, ds.n_samples // 2)
        cv = evaluate.cv_regression(
            X,
            ds.y,
            fold_selector(refit, k, ds) if reselect else chosen,
            k=k if reselect else None,
            model="ridge",
            n_splits=n_folds,
            reselect=True,
            random_state=run.seed,
            client=ctx.client,
            progress=_fold_progress(ctx, "fold"),
            covariates=design,
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

    Raises
    ------
    ValueError
        ``of`` adjusts for covariates: a training fold does not carry them. The CV views adjust
        inside each fold themselves and refit ``of`` without them (the evaluation, the benchmark,
        the CV curve, stability selection); the bootstrap view does not adjust.
    """
    if of.get("covariates"):
        raise ValueError(
            f"{of.spec.label} adjusted for {', '.join(of.get('covariates'))}: the bootstrap resamples "
            "do not carry the covariates, so this view cannot adjust inside them; use stability "
            "selection (-k stability:PI; app: the cut control), which adjusts inside each half."
        )
    return _FoldSelector(of, k, dataset.feature_names)


@dataclass(frozen=True)
class _FoldSelector:
    """:func:`fold_selector`'s callable: picklable (a Dask task of the CV folds or the bootstraps
    gets the Run and the feature names, not the dataset)."""

    of: Run
    k: int | None
    feature_names: Any

    def __call__(self, X, y) -> np.ndarray:
        from fsviz.data import Dataset

        fold = Dataset(X, y=np.asarray(y), feature_names=self.feature_names, name="training fold")
        return self.of.execute(fold).selection(self.k).indices


def _fold_progress(ctx: Context, what: str):
    """``progress(done, total)`` of the folds or resamples, as the run's progress."""
    return lambda done, total: ctx.progress(done / max(total, 1), f"{done} of {total} {what}s")


@dataclass(frozen=True)
class _RunRanker:
    """``rank(X, y, k)``: Run ``run`` executed on (X, y), its selection best first (picklable)."""

    run: Run

    def __call__(self, X, y, k: int) -> np.ndarray:
        from fsviz.data import Dataset

        run = self.run
        if run.spec.kind == "subset" and run.get("n_features") is not None:
            run = run.replace(n_features=int(k))  # a fixed-size subset: ask for the largest k once
        fold = Dataset(X, y=None if y is None else np.asarray(y), name="fold")
        return run.execute(fold).selection(None).indices


def _selection_methods() -> list[str]:
    return [n for n, m in registered().items() if m.selects]


def benchmark_rankers(methods, seed: int = 0) -> list:
    """Registry names and Runs as :class:`fsviz.evaluate.Ranker` values for
    :func:`fsviz.evaluate.benchmark` (estimators and rankers pass through unchanged).

    A name is the Run of that method at its declared defaults with ``seed``; a Run keeps its
    own seed. Each ranker executes its Run on the training fold, as :func:`fold_selector`.

    Raises
    ------
    ValueError
        An unknown name, or a view (not a feature selection).
    """
    if isinstance(methods, (str, Run)):
        methods = [methods]
    out = []
    for m in methods:
        if isinstance(m, str):
            if m not in registered():
                raise ValueError(
                    f"benchmark: unknown method {m!r}; the selection methods are {_selection_methods()}."
                )
            m = Run(m, {}, seed)
        if isinstance(m, Run):
            spec = m.spec
            if not spec.selects:
                raise ValueError(
                    f"benchmark: {m.method!r} is a view, not a feature selection; choose one of "
                    f"{_selection_methods()}."
                )
            lifted = spec.unsupervised_with is not None and bool(m.get(spec.unsupervised_with))
            label = m.label if params_label(m) else m.method
            out.append(evaluate.Ranker(label, _RunRanker(m), spec.supervised and not lifted))
        else:
            out.append(m)
    return out


def stability(run: Run, ctx: Context) -> R.StabilityResult:
    """Run ``of`` redone on ``n_boot`` bootstrap resamples of the samples (its top ``k``).

    Per-feature selection frequency, Kuncheva's index (equal sizes) and Jaccard, per feature
    and per group: two resamples agree on a feature when they hold it or one of its group
    (GDM: its groups on all samples; else ``|rho| >= 1 - tau``, ``tau`` a run parameter, default
    GDM's); for GDM also how often each of its groups has a member selected.
    """
    ds = ctx.dataset
    of, k, n_boot = run.get("of"), run.get("k"), int(run.get("n_boot"))
    if ds.y is None and of.spec.supervised:
        raise ValueError(f"stability: {of.spec.label} needs the target, and dataset {ds.name!r} has none.")
    t0 = time.perf_counter()
    select = fold_selector(of, None if k is None else int(k), ds)
    y = ds.y if ds.y is not None else np.zeros(ds.n_samples)
    subsets = evaluate.bootstrap_selections(
        select,
        ds.X,
        y,
        n_boot=n_boot,
        random_state=run.seed,
        client=ctx.client,
        progress=_fold_progress(ctx, "resample"),
    )
    m = ds.n_features
    sizes = {len(s) for s in subsets}
    kun = (
        evaluate.selection_stability(subsets, m, measure="kuncheva")
        if len(sizes) == 1 and 0 < sizes.pop() < m
        else np.nan
    )
    jac = evaluate.selection_stability(subsets, m, measure="jaccard")
    gfreq, gsup = np.zeros(0), np.zeros(0, dtype=np.int64)
    if of.method == "gdm":
        base = ctx.result(of)
        parts = [g for g in base.partition() if len(g) > 1 or g[0] in set(base.support.tolist())]
        gfreq = evaluate.group_frequency(subsets, parts, m)
        gsup = np.array([g[0] for g in parts], dtype=np.int64)
        tau, same = float(of.get("tau")), {"groups": parts}  # one group, returned through any member
    else:
        tau = run.get("tau")
        tau = float(registered()["gdm"].params["tau"].default if tau is None else tau)
        same = {"X": ds.X, "tau": tau}
    gjac = evaluate.selection_stability(subsets, m, measure="jaccard", **same)
    gkun = evaluate.selection_stability(subsets, m, measure="kuncheva", **same) if kun == kun else np.nan
    freq = evaluate.selection_frequency(subsets, m)
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
        float(gkun),
        float(gjac),
        tau,
    )
