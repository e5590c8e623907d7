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
from functools import cached_property
from numbers import Integral, Real
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, StrOptions

from fsviz import select as S
from fsviz._params import Param, describe
from fsviz._targets import needs_classes_message
from fsviz.compute import results as R
from fsviz.compute.runs import Context, Run, bind_registry, params_label

#: kinds of method whose result is a feature selection (``result.selection(k)``)
SELECTION_KINDS = ("score", "subset", "groups", "grm", "stream")


@dataclass(frozen=True, kw_only=True)
class Method:
    """How one method runs: its estimator, what fit needs, the runner and its parameters.

    Built with keywords only. :attr:`params` is the one declaration of its parameters (the
    estimator's ``_parameter_constraints`` and ``_parameter_ui``, plus ``run_params``): a
    :class:`~fsviz.compute.Run` fills its defaults from it, the app draws widgets from it and
    the CLI validates options against it.

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
    run_params : tuple of Param
        Parameters a Run takes that are not the estimator's (how the run feeds it: SAOLA's
        ``chunk`` of arriving features, GRM's ``base`` score Run).
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
    run_params: tuple[Param, ...] = ()

    @cached_property
    def params(self) -> dict[str, Param]:
        """Every parameter a Run of this method takes, by name: the estimator's declaration
        (:func:`fsviz._params.describe`; ``random_state`` is the Run's seed) and
        :attr:`run_params`. Views without an estimator declare none."""
        declared = describe(self.estimator) if self.estimator is not None else {}
        return declared | {p.name: p for p in self.run_params}

    def defaults(self) -> dict[str, Any]:
        """``{name: default}`` of the declared parameters whose default is not None."""
        return {k: p.default for k, p in self.params.items() if p.default is not None}

    def validate(self, params: dict[str, Any]) -> None:
        """Check parameter values against the declaration (unknown names included).

        Raises
        ------
        ValueError
            Naming the method, the parameter, the rule and the value received.
        """
        declared = self.params
        unknown = sorted(set(params) - set(declared))
        if unknown and self.estimator is not None:
            raise ValueError(f"{self.label}: unknown parameter(s) {unknown}; valid are {sorted(declared)}.")
        for name, value in params.items():
            if name in declared and value is not None:
                declared[name].validate(value, self.label)

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
        unknown = sorted(set(run.kwargs) - set(self.params))
        if unknown:
            raise ValueError(
                f"{self.label}: unknown parameter(s) {unknown}; valid are {sorted(self.params)}."
            )
        kw = {k: v for k, v in run.params if k in valid}
        if "random_state" in valid:
            kw["random_state"] = run.seed
        return self.estimator(**kw)


#: features per arrival of the streaming runs (``partial_fit`` on ``chunk`` columns at a time)
_CHUNK = Param(
    name="chunk",
    default=200,
    constraints=(Interval(Integral, 1, None, closed="left"),),
    label="Features per arrival",
    help="Features arrive this many at a time (partial_fit); the result does not depend on it.",
    step=50,
    practical=(1, 2000),
)
#: the size of a selection (``result.selection(k)``; the CLI's ``-k``, the app's top-k): None = all
SELECTION_SIZE = Param(
    name="k",
    default=None,
    constraints=(Interval(Integral, 1, None, closed="left"), None),
    label="Number of features",
    help="How many of the ranked or selected features to keep; none: all of them.",
    step=1,
)
_BASE = Param(name="base", default=None, label="Base score", help="The Run of the score GRM refines.")
#: the groups of a group-lasso run, which the runner turns into the estimator's index groups
_GROUP_SPEC = Param(
    name="groups",
    default=None,
    constraints=(StrOptions({"gdm", "categorical", "prior"}), Run, "array-like", None),
    label="Groups",
    help="'gdm' or a GDM Run (its groups), 'categorical' (one-hot blocks), 'prior' or index lists; "
    "none: every feature is its own group.",
)
_GROUPS_RUN = Param(
    name="groups",
    default=None,
    label="Groups",
    help="A GDM Run (its groups arrive one at a time) or the number of random groups.",
)


def _fit(est, ds, y, client=None, progress=None) -> float:
    t0 = time.perf_counter()
    kw = {}
    accepts = inspect.signature(est.fit).parameters
    if client is not None and "client" in accepts:
        kw["client"] = client
    if progress is not None and "progress" in accepts:
        kw["progress"] = progress
    est.fit(ds.X, y, **kw)
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
    # GDM's blocks as the run's progress: a fraction of the current scan (the number of scans
    # is not known in advance), and a point where a cancelled run stops
    seconds = _fit(
        est, ds, y, ctx.client, lambda phase, done, total: ctx.progress(done / max(total, 1), phase)
    )
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
    chunk = run.get("chunk")
    _CHUNK.validate(chunk, "SAOLA")
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
    chunk = run.get("chunk")
    _CHUNK.validate(chunk, run.spec.label)
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
        int(round(counts.sum())) if res.exact else int(res.n_evaluated),  # an estimate: its sample
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
        return _evaluation_regression(run, ds, of, k, reselect, chosen, red, t0, ctx)
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
            client=ctx.client,
            progress=_fold_progress(ctx, "fold"),
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


def _fold_progress(ctx: Context, what: str):
    """``progress(done, total)`` of the folds or resamples, as the run's progress."""
    return lambda done, total: ctx.progress(done / max(total, 1), f"{done} of {total} {what}s")


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
    methods = benchmark_rankers(run.get("methods", ()), run.seed)
    t0 = time.perf_counter()
    with warnings.catch_warnings():  # the clipping note travels in the result instead
        warnings.simplefilter("ignore", UserWarning)
        frame = benchmark(
            ds,
            None,
            methods,
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


def _evaluation_regression(
    run: Run, ds, of: Run, k: int, reselect: bool, chosen, red: float, t0: float, ctx: Context
):
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
            client=ctx.client,
            progress=_fold_progress(ctx, "fold"),
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
    from fsviz.evaluate import Ranker

    if isinstance(methods, (str, Run)):
        methods = [methods]
    out = []
    for m in methods:
        if isinstance(m, str):
            if m not in METHODS:
                raise ValueError(
                    f"benchmark: unknown method {m!r}; the selection methods are {selection_methods()}."
                )
            m = Run(m, {}, seed)
        if isinstance(m, Run):
            spec = m.spec
            if not spec.selects:
                raise ValueError(
                    f"benchmark: {m.method!r} is a view, not a feature selection; choose one of "
                    f"{selection_methods()}."
                )
            lifted = spec.unsupervised_with is not None and bool(m.get(spec.unsupervised_with))
            label = m.label if params_label(m) else m.method
            out.append(Ranker(label, _RunRanker(m), spec.supervised and not lifted))
        else:
            out.append(m)
    return out


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
    subsets = bootstrap_selections(
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
    return Method(
        name=name, label=label, kind=name, estimator=None, supervised=False, help=help, runner=runner
    )


METHODS: dict[str, Method] = {
    m.name: m
    for m in [
        Method(
            name="gdm",
            label="GDM",
            kind="groups",
            estimator=S.GDM,
            supervised=True,
            help="support + affiliated groups",
            runner=_gdm,
            unsupervised_with="one_class",
            regression=True,
        ),
        Method(
            name="saola",
            label="SAOLA",
            kind="stream",
            estimator=S.SAOLA,
            supervised=True,
            help="online streaming selection",
            runner=_saola,
            regression=True,
            run_params=(_CHUNK,),
        ),
        Method(
            name="group-saola",
            label="group-SAOLA",
            kind="stream",
            estimator=S.GroupSAOLA,
            supervised=True,
            help="SAOLA over groups",
            runner=_group_saola,
            regression=True,
            run_params=(_GROUPS_RUN,),
        ),
        Method(
            name="grm",
            label="GRM",
            kind="grm",
            estimator=S.GRM,
            supervised=False,
            help="global redundancy minimisation of a base score",
            runner=_grm,
            run_params=(_BASE,),
        ),
        Method(
            name="lgd",
            label="LGD",
            kind="score",
            estimator=S.LGD,
            supervised=False,
            help="local-global discrepancy (unsupervised)",
            runner=_score,
        ),
        Method(
            name="laplacian",
            label="Laplacian score",
            kind="score",
            estimator=S.LaplacianScore,
            supervised=False,
            help="unsupervised",
            runner=_score,
        ),
        Method(
            name="fisher",
            label="Fisher score",
            kind="score",
            estimator=S.FisherScore,
            supervised=True,
            help="Fisher score",
            runner=_score,
        ),
        Method(
            name="relieff",
            label="ReliefF",
            kind="score",
            estimator=S.ReliefF,
            supervised=True,
            help="ReliefF (RReliefF for a continuous target)",
            runner=_score,
            regression=True,
        ),
        Method(
            name="mi",
            label="Mutual information",
            kind="score",
            estimator=S.MutualInfo,
            supervised=True,
            help="MI with the target",
            runner=_score,
            regression=True,
        ),
        Method(
            name="f",
            label="F-score",
            kind="score",
            estimator=S.FScore,
            supervised=True,
            help="ANOVA F (F-regression for a continuous target)",
            runner=_score,
            regression=True,
        ),
        Method(
            name="pearson",
            label="|Pearson r|",
            kind="score",
            estimator=S.PearsonScore,
            supervised=True,
            help="|correlation| with the target",
            runner=_score,
            regression=True,
        ),
        Method(
            name="spearman",
            label="|Spearman rho|",
            kind="score",
            estimator=S.SpearmanScore,
            supervised=True,
            help="|rank correlation| with the target",
            runner=_score,
            regression=True,
        ),
        Method(
            name="chi2",
            label="Chi-square",
            kind="score",
            estimator=S.ChiSquare,
            supervised=True,
            help="chi-square (non-negative data)",
            runner=_score,
        ),
        Method(
            name="variance",
            label="Variance",
            kind="score",
            estimator=S.VarianceScore,
            supervised=False,
            help="variance (unsupervised)",
            runner=_score,
        ),
        Method(
            name="mcfs",
            label="MCFS",
            kind="score",
            estimator=S.MCFS,
            supervised=False,
            help="multi-cluster feature selection",
            runner=_score,
        ),
        Method(
            name="mrmr",
            label="mRMR",
            kind="subset",
            estimator=S.MRMR,
            supervised=True,
            help="minimum redundancy maximum relevance (MID)",
            runner=_subset,
        ),
        Method(
            name="fcbf",
            label="FCBF",
            kind="subset",
            estimator=S.FCBF,
            supervised=True,
            help="fast correlation-based filter",
            runner=_subset,
        ),
        Method(
            name="mifs",
            label="MIFS",
            kind="subset",
            estimator=S.MIFS,
            supervised=True,
            help="relevance - beta x summed MI with chosen",
            runner=_subset,
        ),
        Method(
            name="cife",
            label="CIFE",
            kind="subset",
            estimator=S.CIFE,
            supervised=True,
            help="MIFS(beta=1) + class-conditional MI",
            runner=_subset,
        ),
        Method(
            name="jmi",
            label="JMI",
            kind="subset",
            estimator=S.JMI,
            supervised=True,
            help="joint mutual information with each chosen",
            runner=_subset,
        ),
        Method(
            name="cmim",
            label="CMIM",
            kind="subset",
            estimator=S.CMIM,
            supervised=True,
            help="min over chosen of I(f;Y|s)",
            runner=_subset,
        ),
        Method(
            name="icap",
            label="ICAP",
            kind="subset",
            estimator=S.ICAP,
            supervised=True,
            help="CIFE with interactions capped at zero",
            runner=_subset,
        ),
        Method(
            name="disr",
            label="DISR",
            kind="subset",
            estimator=S.DISR,
            supervised=True,
            help="JMI normalised by H(f,s,Y)",
            runner=_subset,
        ),
        Method(
            name="cfs",
            label="CFS",
            kind="subset",
            estimator=S.CFS,
            supervised=True,
            help="forward search on Hall's merit (SU)",
            runner=_subset,
        ),
        Method(
            name="tscore",
            label="t-score",
            kind="score",
            estimator=S.TScore,
            supervised=True,
            help="two-class Welch t statistic",
            runner=_score,
        ),
        Method(
            name="gini",
            label="Gini index",
            kind="score",
            estimator=S.GiniIndex,
            supervised=True,
            help="Gini gain of the best split",
            runner=_score,
        ),
        Method(
            name="trace-ratio",
            label="Trace ratio",
            kind="score",
            estimator=S.TraceRatio,
            supervised=True,
            help="best k-subset by trace ratio",
            runner=_score,
        ),
        Method(
            name="spec",
            label="SPEC",
            kind="score",
            estimator=S.SPEC,
            supervised=False,
            help="spectral score (label graph if labelled)",
            runner=_score,
        ),
        Method(
            name="group-lasso",
            label="Group lasso",
            kind="score",
            estimator=S.GroupLasso,
            supervised=True,
            help="l2 penalty per group",
            runner=_group_lasso,
            run_params=(_GROUP_SPEC,),
        ),
        Method(
            name="sparse-group-lasso",
            label="Sparse group lasso",
            kind="score",
            estimator=S.SparseGroupLasso,
            supervised=True,
            help="l1 + group l2",
            runner=_group_lasso,
            run_params=(_GROUP_SPEC,),
        ),
        Method(
            name="tree-lasso",
            label="Tree lasso",
            kind="score",
            estimator=S.TreeLasso,
            supervised=True,
            help="nested groups (feature tree)",
            runner=_score,
        ),
        Method(
            name="alpha-investing",
            label="alpha-investing",
            kind="stream",
            estimator=S.AlphaInvesting,
            supervised=True,
            help="streamwise regression, alpha-wealth",
            runner=_feature_stream,
            run_params=(_CHUNK,),
        ),
        Method(
            name="osfs",
            label="OSFS",
            kind="stream",
            estimator=S.OSFS,
            supervised=True,
            help="online streaming CI tests (Wu et al.)",
            runner=_feature_stream,
            run_params=(_CHUNK,),
        ),
        Method(
            name="fast-osfs",
            label="Fast-OSFS",
            kind="stream",
            estimator=S.FastOSFS,
            supervised=True,
            help="OSFS testing the arrival first",
            runner=_feature_stream,
            run_params=(_CHUNK,),
        ),
        Method(
            name="grafting",
            label="Grafting",
            kind="stream",
            estimator=S.Grafting,
            supervised=True,
            help="l1 logistic, gradient test per arrival",
            runner=_feature_stream,
            run_params=(_CHUNK,),
        ),
        Method(
            name="ofs",
            label="OFS",
            kind="subset",
            estimator=S.OFS,
            supervised=True,
            help="online (sample-stream) truncated linear model",
            runner=_subset,
        ),
        Method(
            name="l1-svm",
            label="l1-SVM",
            kind="subset",
            estimator=S.L1SVM,
            supervised=True,
            help="l1-regularised linear SVM (liblinear)",
            runner=_subset,
        ),
        Method(
            name="svm-rfe",
            label="SVM-RFE",
            kind="subset",
            estimator=S.SVMRFE,
            supervised=True,
            help="recursive elimination with a linear SVM",
            runner=_subset,
        ),
        Method(
            name="rfs",
            label="RFS",
            kind="score",
            estimator=S.RFS,
            supervised=True,
            help="robust FS: l2,1 loss + l2,1 regulariser",
            runner=_score,
        ),
        Method(
            name="ls-l21",
            label="LS-l2,1",
            kind="score",
            estimator=S.LSL21,
            supervised=True,
            help="least squares + l2,1 (one-hot y)",
            runner=_score,
        ),
        Method(
            name="ll-l21",
            label="LL-l2,1",
            kind="score",
            estimator=S.LLL21,
            supervised=True,
            help="multinomial logistic + l2,1",
            runner=_score,
        ),
        Method(
            name="udfs",
            label="UDFS",
            kind="score",
            estimator=S.UDFS,
            supervised=False,
            help="l2,1 local discriminative (unsupervised)",
            runner=_score,
        ),
        Method(
            name="ndfs",
            label="NDFS",
            kind="score",
            estimator=S.NDFS,
            supervised=False,
            help="nonnegative spectral + l2,1 (unsupervised)",
            runner=_score,
        ),
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

bind_registry(METHODS)  # Run fills defaults from these declarations (runs.py does not import us)

#: base scores GRM refines; the neighbourhood size applies to those that have one
NEIGHBOUR_METHODS = ("lgd", "laplacian", "relieff", "mcfs")


def shared_param(names: tuple[str, ...], name: str) -> Param:
    """One widget for a parameter several methods take (the GRM page's neighbourhood size of
    :data:`NEIGHBOUR_METHODS`): label, help and step of the first method's declaration, and the
    range every one of them accepts, ends included (the intersection of their widget ranges).

    Raises
    ------
    ValueError
        When the methods' ranges do not meet.
    """
    params = [method(n).params[name] for n in names]
    ranges = [p.widget_range() for p in params]
    lo, hi = max(r[0] for r in ranges), min(r[1] for r in ranges)
    if lo > hi:
        raise ValueError(f"shared_param: the ranges of {name!r} of {list(names)} do not meet: {ranges}.")
    first = params[0]
    kind = Integral if first.kind == "int" else Real
    return Param(
        name=name,
        default=first.default,
        constraints=(Interval(kind, lo, hi, closed="both"),),
        label=f"{first.label} ({', '.join(method(n).label for n in names)})",
        help=first.help,
        step=first.step,
        practical=(lo, hi),
    )


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
    "SELECTION_SIZE",
    "benchmark_rankers",
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
    "shared_param",
]
