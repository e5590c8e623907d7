"""Runners of the cuts: how many features a selection keeps, by a rule with an error rate.

``significance`` gives every feature of a score Run its label-permutation p-value and BH
q-value (:func:`fsviz.evaluate.permutation_pvalues`); the FDR cut of ``fsviz select -k fdr:Q``
keeps the features at q <= Q. The parameters are declared here, beside the runners.
"""

from __future__ import annotations

import time
from numbers import Integral

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from fsviz._params import Param, signature_default
from fsviz.compute import results as R
from fsviz.compute.covariates import adjusted_dataset, dataset_covariates, zero_columns
from fsviz.compute.runners.evaluation import benchmark_rankers, fold_selector
from fsviz.compute.runs import Context, Run
from fsviz.evaluate.one_se import cv_curve as _cv_curve
from fsviz.evaluate.significance import permutation_pvalues
from fsviz.evaluate.stable import stability_selection as _stability_selection

__all__ = [
    "N_PAIRS",
    "N_PERMUTATIONS",
    "PERMUTATION_NULL",
    "SIGNIFICANCE_PARAMS",
    "STABILITY_SELECTION_PARAMS",
    "CV_CURVE_PARAMS",
    "cv_curve",
    "default_ks",
    "default_q",
    "significance",
    "stability_selection",
]

N_PERMUTATIONS = Param(
    name="n_permutations",
    default=signature_default(permutation_pvalues, "n_permutations"),
    constraints=(Interval(Integral, 1, None, closed="left"),),
    label="label permutations",
    help="How many permutations of the target each score is recomputed on; the smallest p-value "
    "is 1 / (permutations + 1), so BH at level q over m features needs about m / q of them.",
    step=100,
    practical=(99, 20000),
)
PERMUTATION_NULL = Param(
    name="null",
    default=signature_default(permutation_pvalues, "null"),
    constraints=(StrOptions({"feature", "pooled"}),),
    label="permutation null",
    help="feature: each feature against its own permuted scores (exact); pooled: against all "
    "features' permuted scores (resolution 1/(B m); assumes one null distribution for every feature).",
)
STABILITY_K = Param(
    name="k",
    default=None,
    constraints=(Interval(Integral, 1, None, closed="left"), None),
    label="features per half",
    help="q, the features each half of the samples keeps; none: sqrt(0.6 m), which bounds the PFER "
    "at threshold 0.8 by 1 (the bound grows as q squared).",
    step=1,
)
N_PAIRS = Param(
    name="n_pairs",
    default=signature_default(_stability_selection, "n_pairs"),
    constraints=(Interval(Integral, 1, None, closed="left"),),
    label="complementary pairs",
    help="How many times the samples are split into two halves (Shah & Samworth use 50).",
    step=5,
    practical=(5, 200),
)
STABILITY_GROUPS = Param(
    name="groups",
    default="auto",
    constraints=(StrOptions({"auto", "none"}), Run),
    label="groups",
    help="Groups counted: auto = GDM's (the selection's own for GDM, else GDM with its defaults "
    "where there are labels), none, or a GDM Run.",
)
STABILITY_SELECTION_PARAMS = (
    Param(name="of", default=None, label="selection", help="The selection Run redone on each half."),
    STABILITY_K,
    N_PAIRS,
    STABILITY_GROUPS,
)
CV_CURVE_PARAMS = (
    Param(name="of", default=None, label="selection", help="The selection Run whose top k are evaluated."),
    Param(
        name="ks",
        default=None,
        label="numbers of top features",
        help="The k of the curve; none: 1, 2, 3, 5, 7, 10, 15, 20, 30, ... up to min(m, 200).",
    ),
    Param(
        name="n_folds",
        default=signature_default(_cv_curve, "cv"),
        constraints=(Interval(Integral, 2, None, closed="left"),),
        label="folds",
        help="Stratified folds (at most the size of the smallest class).",
        options=(3, 5, 10),
    ),
    Param(
        name="classifier",
        default="linear_svm",
        constraints=(StrOptions({"linear_svm", "knn", "naive_bayes", "decision_tree"}),),
        label="classifier",
        help="Trained on each training fold's top k, scored on its test fold.",
    ),
)
SIGNIFICANCE_PARAMS = (
    Param(name="of", default=None, label="score", help="The score Run whose features are tested."),
    N_PERMUTATIONS,
    PERMUTATION_NULL,
)


def _score_of(run: Run, who: str) -> Run:
    of = run.get("of")
    if not isinstance(of, Run) or of.spec.kind != "score":
        raise ValueError(f"{who}: 'of' must be the Run of a scoring method (fisher, f, mi, ...); got {of!r}.")
    return of


def significance(run: Run, ctx: Context) -> R.SignificanceResult:
    """Permutation p-values (``n_permutations``, seeded by the run's seed) and BH q-values of ``of``."""
    ds = ctx.dataset
    of = _score_of(run, "significance")
    est = of.spec.make(of)
    y = getattr(ds, "y", None)
    if y is None:
        raise ValueError(
            f"significance: dataset {ds.name!r} has no target, so there are no labels to permute; "
            "name the label column (app: sidebar; CLI: --label)."
        )
    t0 = time.perf_counter()
    strata = None
    if of.get("covariates"):  # adjusted features, and the labels permuted within the batches
        strata = dataset_covariates(ds, of.get("covariates"))[0].strata
        ds = adjusted_dataset(ds, of.get("covariates"))
        y = ds.y
    res = permutation_pvalues(
        est,
        ds.X,
        y,
        strata=strata,
        n_permutations=int(run.get("n_permutations")),
        random_state=run.seed,
        null=run.get("null"),
    )
    return R.SignificanceResult(
        run,
        ds.fingerprint,
        of,
        np.asarray(res.scores),
        np.asarray(res.pvalues),
        np.asarray(res.qvalues),
        res.n_permutations,
        res.null,
        res.batched,
        time.perf_counter() - t0,
    )


def default_q(n_features: int, threshold: float = 0.8, pfer: float = 1.0) -> int:
    """The features per half that bound the PFER at ``threshold`` by ``pfer``:
    ``floor(sqrt(pfer (2 threshold - 1) m))``, at least 1."""
    return max(1, int(np.floor(np.sqrt(pfer * (2.0 * threshold - 1.0) * n_features))))


def _groups(run: Run, of: Run, ctx: Context) -> list[np.ndarray] | None:
    spec = run.get("groups")
    ds = ctx.dataset
    if spec == "none":
        return None
    if spec == "auto":
        if of.method == "gdm":
            spec = of
        elif getattr(ds, "y", None) is not None and getattr(ds, "target_kind", None) is not None:
            spec = Run("gdm", {}, run.seed)
        else:
            return None
    if not isinstance(spec, Run) or spec.method != "gdm":
        raise ValueError(f"stability-selection: 'groups' must be 'auto', 'none' or a GDM Run; got {spec!r}.")
    return [g for g in ctx.result(spec).partition() if len(g) > 1]


def stability_selection(run: Run, ctx: Context) -> R.StabilitySelection:
    """Run ``of`` redone on ``2 n_pairs`` complementary halves of the samples, ``k`` features each."""
    ds = ctx.dataset
    of = run.get("of")
    if not isinstance(of, Run) or not of.spec.selects:
        raise ValueError(f"stability-selection: 'of' must be the Run of a selection method; got {of!r}.")
    if ds.y is None and of.spec.supervised:
        raise ValueError(
            f"stability-selection: {of.spec.label} needs the target, and dataset {ds.name!r} has none."
        )
    k = run.get("k")
    k = default_q(ds.n_features) if k is None else int(k)
    groups = _groups(run, of, ctx)
    t0 = time.perf_counter()
    y = ds.y if ds.y is not None else np.zeros(ds.n_samples)
    X, design = ds.X, None
    if of.get("covariates"):  # adjusted inside each half, by a fit on that half's rows
        design, own = dataset_covariates(ds, of.get("covariates"))
        X = zero_columns(X, own)  # a covariate column explains itself
    res = _stability_selection(
        fold_selector(of.replace(covariates=None), k, ds),
        X,
        y,
        covariates=design,
        n_pairs=int(run.get("n_pairs")),
        groups=groups,
        random_state=run.seed,
        client=ctx.client,
        progress=lambda done, total: ctx.progress(done / max(total, 1), f"{done} of {total} halves"),
    )
    return R.StabilitySelection(
        run,
        ds.fingerprint,
        of,
        np.asarray(res.probabilities),
        np.asarray(res.group_probabilities),
        tuple(np.asarray(g) for g in res.groups),
        res.q,
        res.q_groups,
        int(run.get("n_pairs")),
        time.perf_counter() - t0,
    )


def default_ks(n_features: int, top: int = 200) -> tuple[int, ...]:
    """1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200 (times 10 ...), up to ``min(m, top)``."""
    steps = [1, 1.5, 2, 3, 5, 7]
    grid = sorted({int(round(s * 10**e)) for e in range(0, 7) for s in steps} | {1, 2, 3})
    top = min(int(n_features), int(top))
    return tuple(k for k in grid if k <= top) + (() if top in grid else (top,))


def cv_curve(run: Run, ctx: Context) -> R.CVCurveResult:
    """CV accuracy of ``of``'s top k over ``ks`` (selection inside each training fold), one-SE k."""
    ds = ctx.dataset
    of = run.get("of")
    if not isinstance(of, Run) or not of.spec.selects:
        raise ValueError(f"cv-curve: 'of' must be the Run of a selection method; got {of!r}.")
    if ds.y is None or getattr(ds, "target_kind", "classes") != "classes":
        raise ValueError(
            f"cv-curve: the one-SE rule scores classification accuracy, and dataset {ds.name!r} has no "
            "class labels; name the label column (app: sidebar; CLI: --label)."
        )
    design = None
    if of.get("covariates"):  # adjusted inside each training fold by the protocol
        design, own = dataset_covariates(ds, of.get("covariates"))
        if own:
            raise ValueError(
                f"cv-curve: covariates {[str(ds.feature_names[j]) for j in own]} are columns of the table; "
                "the CV curve takes covariates from the sample annotations only."
            )
    ks = run.get("ks")
    ks = default_ks(ds.n_features) if ks is None else tuple(int(k) for k in ks)
    t0 = time.perf_counter()
    curve = _cv_curve(
        ds,
        None,
        benchmark_rankers([of.replace(covariates=None)], of.seed)[0],
        ks,
        classifier=run.get("classifier"),
        cv=int(run.get("n_folds")),
        random_state=run.seed,
        client=ctx.client,
        progress=ctx.progress,
        covariates=design,
    )
    return R.CVCurveResult(
        run,
        ds.fingerprint,
        of,
        curve.ks,
        curve.mean,
        curve.se,
        curve.n_folds,
        curve.best_k,
        curve.k_1se,
        curve.threshold,
        curve.classifier,
        time.perf_counter() - t0,
    )
