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
from fsviz.compute.runs import Context, Run
from fsviz.evaluate.significance import permutation_pvalues

__all__ = ["N_PERMUTATIONS", "PERMUTATION_NULL", "SIGNIFICANCE_PARAMS", "significance"]

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
    res = permutation_pvalues(
        est,
        ds.X,
        y,
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
