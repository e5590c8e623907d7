"""The one registry of what fsviz can run: selectors, their refinements, and the views.

Each :class:`Method` names its estimator class directly (grep from a page's Run to the
estimator it fits), its parameters (the estimator's declaration, or a view's own) and the
runner that turns a :class:`~fsviz.compute.Run` into a result. The runners live in
:mod:`fsviz.compute.runners` (``selectors``, ``views``, ``evaluation``), one room per kind;
this module only lists them. The app, the CLI and the fold refits of cross-validation all go
through :meth:`Run.execute <fsviz.compute.Run.execute>`, which calls these runners.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property
from numbers import Integral, Real
from typing import Any

from sklearn.utils._param_validation import Interval

from fsviz import select as S
from fsviz._params import Param, describe
from fsviz._targets import needs_classes_message
from fsviz.compute.covariates import COVARIATES, adjusted_dataset
from fsviz.compute.explain import EXPLAIN_PARAMS
from fsviz.compute.explain import explain as _explain
from fsviz.compute.runners import cuts as C
from fsviz.compute.runners import evaluation as E
from fsviz.compute.runners import selectors as X
from fsviz.compute.runners import views as V
from fsviz.compute.runs import Context, Run, bind_registry

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
        ``chunk`` of arriving features, GRM's ``base`` score Run), and every parameter of a
        view (declared beside its runner in :mod:`fsviz.compute.runners`).
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
        :attr:`run_params` (a view's whole declaration: it has no estimator)."""
        declared = describe(self.estimator) if self.estimator is not None else {}
        adjust = {COVARIATES.name: COVARIATES} if self.selects else {}
        return declared | {p.name: p for p in self.run_params} | adjust

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
        if unknown:
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
        covariates = run.get("covariates") if self.selects else None
        if covariates:  # the method sees the features (and a continuous target) adjusted for them
            ctx = replace(ctx, dataset=adjusted_dataset(ds, covariates))
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
        kw = {k: v for k, v in run.params if k in valid and k != COVARIATES.name}
        if "random_state" in valid:
            kw["random_state"] = run.seed
        return self.estimator(**kw)


#: the size of a selection (``result.selection(k)``; the CLI's ``-k``, the app's top-k): None = all
SELECTION_SIZE = Param(
    name="k",
    default=None,
    constraints=(Interval(Integral, 1, None, closed="left"), None),
    label="Number of features",
    help="How many of the ranked or selected features to keep; none: all of them.",
    step=1,
)
#: the top k a page evaluates, resamples, projects or tabulates (every top-k slider)
TOP_K = E.TOP_K


# ---------------------------------------------------------------------------- the registry
def _view(
    name: str, label: str, help: str, runner: Callable[[Run, Context], Any], params: tuple[Param, ...]
) -> Method:
    """A computation the app shows that is not a selector (its kind is its name), with the
    parameters its runner declares."""
    return Method(
        name=name,
        label=label,
        kind=name,
        estimator=None,
        supervised=False,
        help=help,
        runner=runner,
        run_params=params,
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
            runner=X.gdm,
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
            runner=X.saola,
            regression=True,
            run_params=(X.CHUNK,),
        ),
        Method(
            name="group-saola",
            label="group-SAOLA",
            kind="stream",
            estimator=S.GroupSAOLA,
            supervised=True,
            help="SAOLA over groups",
            runner=X.group_saola,
            regression=True,
            run_params=(X.GROUPS_RUN,),
        ),
        Method(
            name="grm",
            label="GRM",
            kind="grm",
            estimator=S.GRM,
            supervised=False,
            help="global redundancy minimisation of a base score",
            runner=X.grm,
            run_params=(X.BASE,),
        ),
        Method(
            name="lgd",
            label="LGD",
            kind="score",
            estimator=S.LGD,
            supervised=False,
            help="local-global discrepancy (unsupervised)",
            runner=X.score,
        ),
        Method(
            name="laplacian",
            label="Laplacian score",
            kind="score",
            estimator=S.LaplacianScore,
            supervised=False,
            help="unsupervised",
            runner=X.score,
        ),
        Method(
            name="fisher",
            label="Fisher score",
            kind="score",
            estimator=S.FisherScore,
            supervised=True,
            help="Fisher score",
            runner=X.score,
        ),
        Method(
            name="relieff",
            label="ReliefF",
            kind="score",
            estimator=S.ReliefF,
            supervised=True,
            help="ReliefF (RReliefF for a continuous target)",
            runner=X.score,
            regression=True,
        ),
        Method(
            name="mi",
            label="Mutual information",
            kind="score",
            estimator=S.MutualInfo,
            supervised=True,
            help="MI with the target",
            runner=X.score,
            regression=True,
        ),
        Method(
            name="f",
            label="F-score",
            kind="score",
            estimator=S.FScore,
            supervised=True,
            help="ANOVA F (F-regression for a continuous target)",
            runner=X.score,
            regression=True,
        ),
        Method(
            name="pearson",
            label="|Pearson r|",
            kind="score",
            estimator=S.PearsonScore,
            supervised=True,
            help="|correlation| with the target",
            runner=X.score,
            regression=True,
        ),
        Method(
            name="spearman",
            label="|Spearman rho|",
            kind="score",
            estimator=S.SpearmanScore,
            supervised=True,
            help="|rank correlation| with the target",
            runner=X.score,
            regression=True,
        ),
        Method(
            name="chi2",
            label="Chi-square",
            kind="score",
            estimator=S.ChiSquare,
            supervised=True,
            help="chi-square (non-negative data)",
            runner=X.score,
        ),
        Method(
            name="variance",
            label="Variance",
            kind="score",
            estimator=S.VarianceScore,
            supervised=False,
            help="variance (unsupervised)",
            runner=X.score,
        ),
        Method(
            name="mcfs",
            label="MCFS",
            kind="score",
            estimator=S.MCFS,
            supervised=False,
            help="multi-cluster feature selection",
            runner=X.score,
        ),
        Method(
            name="mrmr",
            label="mRMR",
            kind="subset",
            estimator=S.MRMR,
            supervised=True,
            help="minimum redundancy maximum relevance (MID)",
            runner=X.subset,
        ),
        Method(
            name="fcbf",
            label="FCBF",
            kind="subset",
            estimator=S.FCBF,
            supervised=True,
            help="fast correlation-based filter",
            runner=X.subset,
        ),
        Method(
            name="mifs",
            label="MIFS",
            kind="subset",
            estimator=S.MIFS,
            supervised=True,
            help="relevance - beta x summed MI with chosen",
            runner=X.subset,
        ),
        Method(
            name="cife",
            label="CIFE",
            kind="subset",
            estimator=S.CIFE,
            supervised=True,
            help="MIFS(beta=1) + class-conditional MI",
            runner=X.subset,
        ),
        Method(
            name="jmi",
            label="JMI",
            kind="subset",
            estimator=S.JMI,
            supervised=True,
            help="joint mutual information with each chosen",
            runner=X.subset,
        ),
        Method(
            name="cmim",
            label="CMIM",
            kind="subset",
            estimator=S.CMIM,
            supervised=True,
            help="min over chosen of I(f;Y|s)",
            runner=X.subset,
        ),
        Method(
            name="icap",
            label="ICAP",
            kind="subset",
            estimator=S.ICAP,
            supervised=True,
            help="CIFE with interactions capped at zero",
            runner=X.subset,
        ),
        Method(
            name="disr",
            label="DISR",
            kind="subset",
            estimator=S.DISR,
            supervised=True,
            help="JMI normalised by H(f,s,Y)",
            runner=X.subset,
        ),
        Method(
            name="cfs",
            label="CFS",
            kind="subset",
            estimator=S.CFS,
            supervised=True,
            help="forward search on Hall's merit (SU)",
            runner=X.subset,
        ),
        Method(
            name="tscore",
            label="t-score",
            kind="score",
            estimator=S.TScore,
            supervised=True,
            help="two-class Welch t statistic",
            runner=X.score,
        ),
        Method(
            name="gini",
            label="Gini index",
            kind="score",
            estimator=S.GiniIndex,
            supervised=True,
            help="Gini gain of the best split",
            runner=X.score,
        ),
        Method(
            name="trace-ratio",
            label="Trace ratio",
            kind="score",
            estimator=S.TraceRatio,
            supervised=True,
            help="best k-subset by trace ratio",
            runner=X.score,
        ),
        Method(
            name="spec",
            label="SPEC",
            kind="score",
            estimator=S.SPEC,
            supervised=False,
            help="spectral score (label graph if labelled)",
            runner=X.score,
        ),
        Method(
            name="group-lasso",
            label="Group lasso",
            kind="score",
            estimator=S.GroupLasso,
            supervised=True,
            help="l2 penalty per group",
            runner=X.group_lasso,
            run_params=(X.GROUP_SPEC,),
        ),
        Method(
            name="sparse-group-lasso",
            label="Sparse group lasso",
            kind="score",
            estimator=S.SparseGroupLasso,
            supervised=True,
            help="l1 + group l2",
            runner=X.group_lasso,
            run_params=(X.GROUP_SPEC,),
        ),
        Method(
            name="tree-lasso",
            label="Tree lasso",
            kind="score",
            estimator=S.TreeLasso,
            supervised=True,
            help="nested groups (feature tree)",
            runner=X.score,
        ),
        Method(
            name="alpha-investing",
            label="alpha-investing",
            kind="stream",
            estimator=S.AlphaInvesting,
            supervised=True,
            help="streamwise regression, alpha-wealth",
            runner=X.feature_stream,
            run_params=(X.CHUNK,),
        ),
        Method(
            name="osfs",
            label="OSFS",
            kind="stream",
            estimator=S.OSFS,
            supervised=True,
            help="online streaming CI tests (Wu et al.)",
            runner=X.feature_stream,
            run_params=(X.CHUNK,),
        ),
        Method(
            name="fast-osfs",
            label="Fast-OSFS",
            kind="stream",
            estimator=S.FastOSFS,
            supervised=True,
            help="OSFS testing the arrival first",
            runner=X.feature_stream,
            run_params=(X.CHUNK,),
        ),
        Method(
            name="grafting",
            label="Grafting",
            kind="stream",
            estimator=S.Grafting,
            supervised=True,
            help="l1 logistic, gradient test per arrival",
            runner=X.feature_stream,
            run_params=(X.CHUNK,),
        ),
        Method(
            name="ofs",
            label="OFS",
            kind="subset",
            estimator=S.OFS,
            supervised=True,
            help="online (sample-stream) truncated linear model",
            runner=X.subset,
        ),
        Method(
            name="l1-svm",
            label="l1-SVM",
            kind="subset",
            estimator=S.L1SVM,
            supervised=True,
            help="l1-regularised linear SVM (liblinear)",
            runner=X.subset,
        ),
        Method(
            name="svm-rfe",
            label="SVM-RFE",
            kind="subset",
            estimator=S.SVMRFE,
            supervised=True,
            help="recursive elimination with a linear SVM",
            runner=X.subset,
        ),
        Method(
            name="knockoffs",
            label="Model-X knockoffs",
            kind="subset",
            estimator=S.Knockoffs,
            supervised=True,
            regression=True,
            help="knockoff+ at a target FDR (Gaussian-like X, n >= 2m)",
            runner=X.knockoffs,
        ),
        Method(
            name="rfs",
            label="RFS",
            kind="score",
            estimator=S.RFS,
            supervised=True,
            help="robust FS: l2,1 loss + l2,1 regulariser",
            runner=X.score,
        ),
        Method(
            name="ls-l21",
            label="LS-l2,1",
            kind="score",
            estimator=S.LSL21,
            supervised=True,
            help="least squares + l2,1 (one-hot y)",
            runner=X.score,
        ),
        Method(
            name="ll-l21",
            label="LL-l2,1",
            kind="score",
            estimator=S.LLL21,
            supervised=True,
            help="multinomial logistic + l2,1",
            runner=X.score,
        ),
        Method(
            name="udfs",
            label="UDFS",
            kind="score",
            estimator=S.UDFS,
            supervised=False,
            help="l2,1 local discriminative (unsupervised)",
            runner=X.score,
        ),
        Method(
            name="ndfs",
            label="NDFS",
            kind="score",
            estimator=S.NDFS,
            supervised=False,
            help="nonnegative spectral + l2,1 (unsupervised)",
            runner=X.score,
        ),
        _view("histogram", "|rho| histogram", "|rho| of all pairs", V.histogram, V.HISTOGRAM_PARAMS),
        _view(
            "evaluation",
            "Evaluation",
            "CV accuracy and redundancy of a top k",
            E.evaluation,
            E.EVALUATION_PARAMS,
        ),
        _view(
            "benchmark",
            "Benchmark (survey protocol)",
            "accuracy / NMI against top k",
            E.benchmark,
            E.BENCHMARK_PARAMS,
        ),
        _view("pairs", "Top correlated pairs", "the most correlated pairs", V.pairs, V.PAIRS_PARAMS),
        _view(
            "correlations",
            "Correlations with",
            "every feature's rho with one vector",
            V.correlations,
            V.CORRELATIONS_PARAMS,
        ),
        _view(
            "stability",
            "Bootstrap stability",
            "a selection redone on resamples",
            E.stability,
            E.STABILITY_PARAMS,
        ),
        _view(
            "explain",
            "Why not this feature",
            "every feature's rank, stand-in and reason",
            _explain,
            EXPLAIN_PARAMS,
        ),
        _view(
            "significance",
            "Permutation significance",
            "every feature's permutation p-value and BH q-value",
            C.significance,
            C.SIGNIFICANCE_PARAMS,
        ),
        _view(
            "stability-selection",
            "Stability selection",
            "each feature's and group's selection probability over complementary halves, PFER bound",
            C.stability_selection,
            C.STABILITY_SELECTION_PARAMS,
        ),
        _view(
            "cv-curve",
            "CV curve (one-SE rule)",
            "CV accuracy over k, selection in each fold; the one-standard-error k",
            C.cv_curve,
            C.CV_CURVE_PARAMS,
        ),
        _view("leakage", "Leakage check", "features that give the target away", V.leakage, ()),
        _view("projection", "PCA projection", "PCA of a feature subset", V.projection, V.PROJECTION_PARAMS),
        _view("images", "Image panels", "example images and class means", V.images, V.IMAGES_PARAMS),
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
    "TOP_K",
    "METHODS",
    "Method",
    "NEIGHBOUR_METHODS",
    "grm_default_base",
    "method",
    "methods_for",
    "score_methods",
    "score_params",
    "grm_base_params",
    "selection_methods",
    "shared_param",
]
