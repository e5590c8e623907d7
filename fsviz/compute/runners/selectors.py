"""Runners of the selectors: a :class:`~fsviz.compute.Run` of an estimator in, a result out.

Each runner fits the estimator the run's :class:`~fsviz.compute.Method` names (``run.spec.make``)
on the dataset of the :class:`~fsviz.compute.Context` and returns a frozen result of
:mod:`fsviz.compute.results`. The run-only parameters (how a run feeds its estimator: SAOLA's
``chunk``, GRM's ``base``, the groups of group lasso and group-SAOLA) are declared here, beside
the runner that reads them; the registry attaches them to their methods.
"""

from __future__ import annotations

import inspect
import time
from numbers import Integral

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from fsviz import select as S
from fsviz._params import Param
from fsviz.compute import results as R
from fsviz.compute.runs import Context, Run, registered

__all__ = [
    "BASE",
    "CHUNK",
    "GROUPS_RUN",
    "GROUP_SPEC",
    "feature_stream",
    "gdm",
    "grm",
    "group_lasso",
    "group_saola",
    "knockoffs",
    "saola",
    "score",
    "subset",
]

#: features per arrival of the streaming runs (``partial_fit`` on ``chunk`` columns at a time)
CHUNK = Param(
    name="chunk",
    default=200,
    constraints=(Interval(Integral, 1, None, closed="left"),),
    label="Features per arrival",
    help="Features arrive this many at a time (partial_fit); the result does not depend on it.",
    step=50,
    practical=(1, 2000),
)
BASE = Param(name="base", default=None, label="Base score", help="The Run of the score GRM refines.")
#: the groups of a group-lasso run, which the runner turns into the estimator's index groups
GROUP_SPEC = Param(
    name="groups",
    default=None,
    constraints=(StrOptions({"gdm", "categorical", "prior"}), Run, "array-like", None),
    label="Groups",
    help="'gdm' or a GDM Run (its groups), 'categorical' (one-hot blocks), 'prior' or index lists; "
    "none: every feature is its own group.",
)
GROUPS_RUN = Param(
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


def score(run: Run, ctx: Context) -> R.ScoreResult:
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


def subset(run: Run, ctx: Context) -> R.SubsetResult:
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


def knockoffs(run: Run, ctx: Context) -> R.SubsetResult:
    """Model-X knockoffs at the run's ``fdr``: the selection, ``W`` and the knockoff+ threshold.

    Sparse data are densified: knockoffs need ``n >= 2 m`` (the estimator refuses fewer samples,
    saying why), so the matrix is at most ``n x n/2``.
    """
    ds = ctx.dataset
    est = run.spec.make(run)
    X = ds.X.toarray() if hasattr(ds.X, "toarray") else ds.X
    t0 = time.perf_counter()
    est.fit(X, ds.y)
    seconds = time.perf_counter() - t0
    sel = np.asarray(est.selected_, dtype=np.int64)
    q, T = float(run.get("fdr")), float(est.threshold_)
    statistic = {"lasso": "lasso coefficient difference", "score": "|r| difference"}[run.get("statistic")]
    rule = (
        f"knockoffs:{q:g} (model-X knockoffs, knockoff+ threshold W >= {T:.4g} at FDR <= {q:g}; W = "
        f"{statistic}; second-order Gaussian knockoffs, n >= 2m; H0_j: feature j independent of the "
        "target given the other features)"
    )
    return R.SubsetResult(
        run,
        ds.fingerprint,
        sel,
        np.asarray(est.scores_, dtype=np.float64),
        seconds,
        rule=rule,
        columns=(("W", np.asarray(est.W_, dtype=np.float64)[sel]), ("threshold", np.full(sel.size, T))),
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


def gdm(run: Run, ctx: Context) -> R.GroupResult:
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


def grm(run: Run, ctx: Context) -> R.GRMResult:
    ds = ctx.dataset
    base_run = run.get("base")
    if not isinstance(base_run, Run) or base_run.spec.kind != "score":
        scores = ", ".join(n for n, m in registered().items() if m.kind == "score")
        raise ValueError(f"GRM: 'base' must be a Run of a scoring method ({scores}); got {base_run!r}.")
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


def saola(run: Run, ctx: Context) -> R.StreamResult:
    """Features arrive ``chunk`` at a time (``partial_fit``); with a Dask client all at once."""
    ds = ctx.dataset
    est = run.spec.make(run)
    X, m = ds.X, ds.X.shape[1]
    chunk = run.get("chunk")
    CHUNK.validate(chunk, "SAOLA")
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


def group_saola(run: Run, ctx: Context) -> R.StreamResult:
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


def group_lasso(run: Run, ctx: Context) -> R.ScoreResult:
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


def feature_stream(run: Run, ctx: Context) -> R.StreamResult:
    """The SAOLA paper's streaming baselines: features arrive ``chunk`` at a time (``partial_fit``)."""
    ds = ctx.dataset
    est = run.spec.make(run)
    X, m = ds.X, ds.X.shape[1]
    chunk = run.get("chunk")
    CHUNK.validate(chunk, run.spec.label)
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
