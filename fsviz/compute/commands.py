"""The command-line form of a Run: ``fsviz select``, ``histogram`` and ``benchmark``.

One table per command names the option that carries each declared parameter; the option's
type, default, choices and help are drawn from the declaration
(:attr:`Method.params <fsviz.compute.Method.params>`), never restated. The same table reads a
parsed command line into a :class:`~fsviz.compute.Run` (:func:`select_run`,
:func:`histogram_run`, :func:`benchmark_run`) and writes a Run back as a command line
(:func:`command_line`, which the report's "how to reproduce" block prints and checks by
parsing it back here). So ``fsviz.cli`` and ``fsviz.report`` both depend on this module and
neither on the other.
"""

from __future__ import annotations

import argparse
import ast
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Any

from fsviz.compute.covariates import parse_covariates
from fsviz.compute.cuts import Cut, cut_run, parse_k
from fsviz.compute.registry import (
    SELECTION_SIZE,
    TOP_K,
    grm_base_params,
    grm_default_base,
    method,
    score_methods,
    selection_methods,
)
from fsviz.compute.runners.cuts import N_PAIRS, N_PERMUTATIONS, PERMUTATION_NULL
from fsviz.compute.runs import SEED_MAX, Run

__all__ = [
    "add_benchmark_options",
    "add_histogram_options",
    "add_report_options",
    "add_select_options",
    "benchmark_run",
    "command_line",
    "histogram_run",
    "names",
    "param_text",
    "parse_params",
    "seed_text",
    "select_run",
    "with_prior_groups",
]


# ----------------------------------------------------------------------------- values as text
def parse_params(items: Sequence[str] | None) -> dict[str, Any]:
    """``["tau=0.3", "corr=pearson"]`` -> ``{"tau": 0.3, "corr": "pearson"}`` (``--param``).

    Values are read with ``ast.literal_eval``; bare words stay strings.

    Raises
    ------
    ValueError
        An item that is not ``NAME=VALUE``.
    """
    out: dict[str, Any] = {}
    for item in items or ():
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise ValueError(f"--param expects NAME=VALUE (e.g. --param tau=0.3); got {item!r}.")
        try:
            value = ast.literal_eval(raw.strip())
        except (ValueError, SyntaxError):
            value = raw.strip()  # bare words such as pearson stay strings
        out[key] = value
    return out


def _listed(v: Any) -> Any:
    return [_listed(x) for x in v] if isinstance(v, tuple) else v


def param_text(v: Any) -> str:
    """A value as ``--param NAME=VALUE`` takes it back (:func:`parse_params`)."""
    if isinstance(v, tuple):
        return json.dumps(_listed(v))
    return v if isinstance(v, str) else repr(v)


def names(text: str) -> list[str]:
    """``"a, b,c"`` -> ``["a", "b", "c"]``."""
    return [p.strip() for p in text.split(",") if p.strip()]


def _int_list(text: str, option: str) -> tuple[int, ...]:
    """``"5:305:5"`` (start:stop:step, stop excluded, as Python's range) or ``"5,10,20"``."""
    try:
        if ":" in text:
            parts = [int(p) for p in text.split(":")]
            if len(parts) not in (2, 3):
                raise ValueError
            return tuple(range(*parts))
        return tuple(int(p) for p in text.split(",") if p.strip())
    except ValueError:
        raise ValueError(
            f"{option} expects START:STOP[:STEP] (STOP excluded) or comma-separated ints, e.g. 5:305:5 or "
            f"5,10,50; got {text!r}."
        ) from None


def _float_list(text: str, option: str) -> tuple[float, ...]:
    try:
        return tuple(float(v) for v in text.split(","))
    except ValueError:
        raise ValueError(
            f"{option} expects comma-separated numbers such as 0,0.1,0.5,1; got {text!r}."
        ) from None


def _range_text(values: Sequence[int]) -> str:
    """``(5, 10, ..., 300)`` as ``5:305:5`` when evenly spaced, else ``5,10,20``."""
    v = list(values)
    if len(v) > 2 and len({b - a for a, b in zip(v, v[1:], strict=False)}) == 1 and v[1] > v[0]:
        return f"{v[0]}:{v[-1] + v[1] - v[0]}:{v[1] - v[0]}"
    return ",".join(map(str, v))


def _comma(values: Sequence[Any]) -> str:
    return ",".join(map(str, values))


# ----------------------------------------------------------------------------- option tables
@dataclass(frozen=True)
class _Option:
    """One option of a command: ``flag`` carries the declared parameter ``param``.

    ``argtype`` is argparse's ``type`` (a bad int is a usage error); ``parse`` turns typed text
    into the value when the Run is made (a bad list is one error line naming the option);
    ``write`` turns the value into text again and ``shown`` the default for the help.
    ``always``: a command line written back names it even at its default.
    """

    flag: str
    param: str
    argtype: Callable[[str], Any] | None = None
    parse: Callable[[str, str], Any] | None = None
    write: Callable[[Any], str] = str
    shown: Callable[[Any], str] = str
    always: bool = False
    required: bool = False
    syntax: str = ""

    def declared(self, name: str):
        return method(name).params[self.param]


def _names(text: str, option: str) -> tuple[str, ...]:
    return tuple(names(text))


#: ``fsviz histogram``: the "histogram" view's parameters (``max_features`` is the group of
#: ``--exact``, ``--estimate`` and ``--max-features`` in :func:`add_histogram_options`)
_HISTOGRAM = (
    _Option("--bins", "bins", int, always=True),
    _Option(
        "--edges", "edges", parse=_float_list, write=_comma, syntax=", comma-separated, e.g. 0,0.1,0.5,1"
    ),
    _Option("--sample-pairs", "n_sample_pairs", int),
    _Option("--block-size", "block_size", int),
    _Option("--precision", "precision"),
)
#: ``fsviz benchmark``: the "benchmark" view's parameters (``select_in_fold`` is ``--select-once``)
_BENCHMARK = (
    _Option(
        "--methods",
        "methods",
        parse=_names,
        write=_comma,
        always=True,
        required=True,
        syntax=", comma-separated, e.g. fisher,mrmr,laplacian",
    ),
    _Option(
        "--ks",
        "ks",
        parse=_int_list,
        write=_comma,
        shown=_range_text,
        always=True,
        syntax=": START:STOP[:STEP] (STOP excluded) or a list",
    ),
    _Option(
        "--classifiers",
        "classifiers",
        parse=_names,
        write=_comma,
        shown=_comma,
        always=True,
        syntax=", comma-separated",
    ),
    _Option("--cv", "cv", int, always=True),
    _Option("--repeats", "n_repeats_kmeans", int, always=True),
    _Option("--n-jobs", "n_jobs", int),
    _Option("--stability-tau", "stability_tau", float),
    _Option(
        "--covariates",
        "covariates",
        parse=lambda text, option: parse_covariates(text),
        write=_comma,
        syntax=" (comma-separated; fitted inside each training fold)",
    ),
)
#: the seed of a Run made from a command line, by default the Run's own (as the app's)
_SEED = next(f.default for f in fields(Run) if f.name == "seed")


def _add(q: argparse.ArgumentParser, name: str, options: Sequence[_Option]) -> None:
    """argparse options drawn from the declarations: default, choices, help."""
    for o in options:
        p = o.declared(name)
        kw: dict[str, Any] = {"dest": o.param, "default": p.default, "required": o.required}
        if o.argtype is not None:
            kw["type"] = o.argtype
        if p.choices:
            kw["choices"] = list(p.choices)
        said = "" if p.default is None or p.default == () else f" (default {o.shown(p.default)})"
        text = (p.help[:1].lower() if p.help[1:2].islower() else p.help[:1]) + p.help[1:].rstrip(".")
        kw["help"] = f"{text}{o.syntax}{said}".replace("%", "%%")
        kw["metavar"] = o.flag.lstrip("-").upper().replace("-", "_")
        q.add_argument(o.flag, **kw)


def seed_text(text: str) -> int:
    """``--seed``: an int in numpy's range (what a Run takes)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an int; got {text!r}") from None
    if not 0 <= value <= SEED_MAX:
        raise argparse.ArgumentTypeError(f"must be in [0, {SEED_MAX}]; got {value}")
    return value


def _seed(q: argparse.ArgumentParser, what: str) -> None:
    q.add_argument("--seed", type=seed_text, default=_SEED, help=f"{what} (default {_SEED}, as the app)")


def add_histogram_options(q: argparse.ArgumentParser) -> None:
    """The options of ``fsviz histogram`` that make its Run."""
    _add(q, "histogram", _HISTOGRAM)
    limit = method("histogram").params["max_features"]
    g = q.add_mutually_exclusive_group()
    g.add_argument(
        "--exact",
        dest="max_features",
        action="store_const",
        const=None,
        help="exact counts over all pairs, whatever the size (the command's default)",
    )
    g.add_argument(
        "--estimate", dest="max_features", action="store_const", const=0, help="estimate from sampled pairs"
    )
    g.add_argument(
        "--max-features",
        dest="max_features",
        type=int,
        metavar="N",
        help=f"{limit.label} (the app's default: {limit.default})",
    )
    q.set_defaults(max_features=None)
    _seed(q, "seed of the pair sample")


def add_benchmark_options(q: argparse.ArgumentParser) -> None:
    """The options of ``fsviz benchmark`` that make its Run."""
    _add(q, "benchmark", _BENCHMARK)
    q.add_argument(
        "--select-once",
        dest="select_in_fold",
        action="store_false",
        help="select on all samples once instead of inside each training fold (optimistic)",
    )
    _seed(q, "random_state of every run, fold split and model")


def add_select_options(q: argparse.ArgumentParser, *, k_option: bool = True) -> None:
    """The options of ``fsviz select`` (and ``report``) that make a selection Run."""
    q.add_argument("--method", required=k_option, choices=selection_methods(), help="selector")
    q.add_argument(
        "--param",
        action="append",
        metavar="NAME=VALUE",
        help="estimator parameter, repeatable (e.g. --param tau=0.3 --param max_iter=5)",
    )
    if k_option:
        q.add_argument(
            "-k",
            "--n-features",
            type=_k_value,
            metavar="K|RULE",
            help=f"{SELECTION_SIZE.help} (mRMR and the other fixed-size subsets select K); or a rule: "
            "fdr:Q keeps a score's features at BH q-value <= Q on label-permutation p-values "
            "(the CSV then has p, q and rule columns); stability:PI keeps the features a selection "
            "picks on at least PI of the halves of the samples, with the PFER bound (columns "
            "probability, group_probability, rule); cv-1se keeps the smallest top k within one "
            "standard error of the best CV accuracy; with --method knockoffs, fdr:Q is knockoff+ at FDR Q "
            "(columns W, threshold, rule) (docs/significance.md)",
        )
        q.add_argument(
            "--permutations",
            type=int,
            metavar="B",
            help=f"label permutations of -k fdr:Q (default {N_PERMUTATIONS.default}); the smallest "
            "p-value is 1/(B+1), so BH over m features at level Q needs B of about m/Q",
        )
        q.add_argument(
            "--pairs",
            type=int,
            metavar="B",
            help=f"complementary pairs of halves for -k stability:PI (default {N_PAIRS.default})",
        )
        q.add_argument(
            "--per-half",
            type=int,
            metavar="Q",
            help="features each half keeps for -k stability:PI (default: sqrt(0.6 m), PFER <= 1 at 0.8)",
        )
        q.add_argument(
            "--cv-folds",
            type=int,
            metavar="N",
            help="stratified folds of -k cv-1se's CV curve (default 5; the selection is redone in each)",
        )
        q.add_argument(
            "--permutation-null",
            choices=PERMUTATION_NULL.choices,
            help=f"-k fdr:Q's null (default {PERMUTATION_NULL.default}): {PERMUTATION_NULL.help}",
        )
    q.add_argument(
        "--covariates",
        metavar="NAMES",
        help="adjust for these, comma-separated: columns of the sample annotations "
        "(--sample-annotations) or of the table; features (and a continuous target) are "
        "residualised on them (text columns one-hot), permutations stay within batches; default: "
        "the columns the import plan marks 'covariate'; 'none': no adjustment",
    )
    q.add_argument(
        "--prior-group",
        action="append",
        metavar="NAMES",
        help="a prior group of --method grm: its features, comma-separated, by name, gene symbol (a "
        "symbol takes all its features, e.g. the probes of a gene or 10x's MATR3 and MATR3-1) or "
        "'SYMBOL (ID)' label, as the app's GRM page takes them; repeat it for each group",
    )
    q.add_argument(
        "--base",
        default=None,
        choices=score_methods(),
        help="base score refined by --method grm (default: fisher with class labels, else laplacian)",
    )
    q.add_argument(
        "--base-param",
        action="append",
        metavar="NAME=VALUE",
        help="parameter of the --base score, repeatable (e.g. --base-param n_neighbors=5)",
    )
    _seed(q, "random_state of every estimator")


def add_report_options(q: argparse.ArgumentParser) -> None:
    """``fsviz report``'s selection options and its top k."""
    add_select_options(q, k_option=False)
    q.add_argument(
        "-k",
        "--top-k",
        type=int,
        default=TOP_K.default,
        help=f"rows of each top-k table and features evaluated by CV (default {TOP_K.default}, as the app)",
    )
    q.set_defaults(n_features=None)


# ----------------------------------------------------------------------------- command line -> Run
def _k_value(text: str) -> int | Cut:
    """``-k``: a number, or a rule (:func:`fsviz.compute.cuts.parse_k`); argparse reports the error."""
    try:
        return parse_k(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def select_run(ns: argparse.Namespace, target_kind: str | None = "classes") -> Run:
    """The selection Run that ``fsviz select`` asks for, checked before any data is read
    (``target_kind`` picks GRM's default base once it is).

    Raises
    ------
    ValueError
        An unknown parameter, a value outside the declaration, or a bad ``-k``.
    """
    spec = method(ns.method)
    params = parse_params(ns.param)
    if isinstance(ns.n_features, Cut):
        cut_run(Run(spec.name, {}, ns.seed), ns.n_features)  # the rule applies to this method
    else:
        SELECTION_SIZE.validate(ns.n_features, "fsviz select -k/--n-features")
    if (
        isinstance(ns.n_features, int)
        and spec.kind == "subset"
        and "n_features" in spec.estimator().get_params()
    ):
        params.setdefault("n_features", ns.n_features)  # mRMR selects as many as it exports
    if spec.name == "knockoffs" and isinstance(ns.n_features, Cut) and ns.n_features.rule == "fdr":
        params["fdr"] = ns.n_features.level  # -k fdr:Q is knockoff+ at FDR Q
    covariates = parse_covariates(getattr(ns, "covariates", None))
    if covariates:
        params["covariates"] = covariates
    named = getattr(ns, "prior_group", None)
    if named and spec.name != "grm":
        raise ValueError("--prior-group applies to --method grm only.")
    if named and params.get("prior_groups"):
        raise ValueError(
            "give GRM's prior groups once: --prior-group (names) or --param prior_groups= (column "
            "positions), not both."
        )
    if spec.name == "grm":
        name = ns.base or grm_default_base(target_kind)
        params["base"] = Run(name, grm_base_params(name) | parse_params(ns.base_param), ns.seed)
    elif ns.base_param:
        raise ValueError("--base-param applies to --method grm only.")
    if spec.name == "group-saola" and params.get("groups", "gdm") == "gdm":
        params["groups"] = Run("gdm", {}, ns.seed)  # GDM's groups (with its defaults)
    run = Run(spec.name, params, ns.seed)
    for r in (run, run.get("base"), run.get("groups")):
        if isinstance(r, Run) and r.spec.estimator is not None:
            try:  # unknown names and values outside the declaration fail before the data is read
                r.spec.validate(r.kwargs)
                r.spec.make(r)
            except (TypeError, ValueError) as e:
                raise ValueError(f"method {r.method!r}: {e}") from None
    return run


def with_prior_groups(run: Run, groups: Sequence[str] | None, dataset) -> tuple[Run, tuple[str, ...]]:
    """``run`` (GRM) with the prior groups ``--prior-group`` names, found among ``dataset``'s
    features as the app's GRM page finds pasted names
    (:func:`~fsviz.compute.resolve_prior_groups` with :func:`~fsviz.compute.name_aliases`), and
    the notes to show (a symbol that took several features). ``run`` as it is without ``groups``.

    Raises
    ------
    ValueError
        An unknown name (with its near names), a feature in two groups, a group of one feature.
    """
    from fsviz.compute.parsing import name_aliases, resolve_prior_groups

    if not groups:
        return run, ()
    blank = [i for i, g in enumerate(groups, start=1) if not names(g)]
    if blank:
        raise ValueError(
            f"--prior-group number {blank[0]} names no feature; give its names, comma-separated."
        )
    try:
        got = resolve_prior_groups("\n".join(groups), dataset.feature_names, aliases=name_aliases(dataset))
    except ValueError as e:
        raise ValueError(f"--prior-group (line N: the N-th --prior-group): {e}") from None
    return run.replace(prior_groups=got.groups), got.notes


def _view_run(name: str, options: Sequence[_Option], ns: argparse.Namespace, extra=()) -> Run:
    params = {p: getattr(ns, p) for p in extra}
    for o in options:
        value = getattr(ns, o.param)
        params[o.param] = o.parse(value, o.flag) if o.parse is not None and isinstance(value, str) else value
    return Run(name, params, ns.seed)


def histogram_run(ns: argparse.Namespace) -> Run:
    """The "histogram" Run that ``fsviz histogram`` executes."""
    return _view_run("histogram", _HISTOGRAM, ns, ("max_features",))


def benchmark_run(ns: argparse.Namespace) -> Run:
    """The "benchmark" Run that ``fsviz benchmark`` executes.

    Raises
    ------
    ValueError
        A name that is not a selection method.
    """
    run = _view_run("benchmark", _BENCHMARK, ns, ("select_in_fold",))
    known = selection_methods()
    unknown = [m for m in run.get("methods") if m not in known]
    if unknown:
        raise ValueError(
            f"--methods: unknown method(s) {unknown}; choose from {known} (see 'fsviz methods')."
        )
    return run.replace(n_jobs=None) if run.get("n_jobs") == 1 else run  # 1 job: this process


# ----------------------------------------------------------------------------- Run -> command line
class _Quiet(argparse.ArgumentParser):
    """A parser that raises instead of printing usage and exiting (a line checked in the report)."""

    def error(self, message: str):
        raise ValueError(message)


def _parser(command: str) -> argparse.ArgumentParser:
    q = _Quiet(prog=f"fsviz {command}", add_help=False)
    q.add_argument("data")
    {"select": add_select_options, "histogram": add_histogram_options, "benchmark": add_benchmark_options}[
        command
    ](q)
    return q


def _select_args(run: Run, k: int, named: list[list[str]] | None = None) -> list[str] | None:
    args = ["--method", run.method]
    for group in named or ():
        args += ["--prior-group", ",".join(group)]
    for name, value in run.params:
        if named and name == "prior_groups":
            continue
        if run.method == "grm" and name == "base":
            args += ["--base", value.method]
            args += [f"--base-param={n}={param_text(v)}" for n, v in value.params]
            continue
        if name == "covariates":
            args += ["--covariates", ",".join(value)] if value else []
            continue
        if run.method == "group-saola" and name == "groups" and isinstance(value, Run):
            if value != Run("gdm", {}, run.seed):
                return None
            continue
        args.append(f"--param={name}={param_text(value)}")
    return args + ["--seed", str(run.seed), "-k", str(k)]


def _view_args(run: Run, options: Sequence[_Option]) -> list[str]:
    args = []
    for o in options:
        value = run.get(o.param)
        if o.always or value != o.declared(run.method).default:
            if value is not None:
                args += [o.flag, o.write(value)]
    return args


def command_line(
    run: Run, target_kind: str | None = "classes", k: int | None = None, dataset=None
) -> list[str] | None:
    """``run`` as a command, its options without the data: ``["select", "--method", ...]``,
    ``["histogram", ...]`` or ``["benchmark", ...]``; None when no command gives exactly this
    Run (a view the CLI does not compute, a group-SAOLA on other groups than GDM's defaults).

    Each line is checked by parsing it back into a Run equal to ``run``. ``k`` is the ``-k``
    of a selection (its exported top k). With the ``dataset`` it runs on, GRM's prior groups
    are written as ``--prior-group`` names (gene symbols where a symbol names just the group's
    features: :func:`~fsviz.compute.prior_group_names`) and read back against it; without it,
    or when no names give them back, as column positions (``--param prior_groups=``).
    """
    named = None
    if dataset is not None and run.method == "grm" and run.get("prior_groups"):
        from fsviz.compute.parsing import name_aliases, prior_group_names

        aliases = name_aliases(dataset)
        named = prior_group_names(run.get("prior_groups"), dataset.feature_names, aliases=aliases)
    if named:
        line = _command_line(run, target_kind, k, named, dataset)
        if line is not None:
            return line
    return _command_line(run, target_kind, k)


def _command_line(
    run: Run, target_kind: str | None, k: int | None, named: list[list[str]] | None = None, dataset=None
) -> list[str] | None:
    """:func:`command_line` with the prior groups' names given (``named``), checked by parsing."""
    if run.spec.selects:
        command, args = "select", _select_args(run, TOP_K.default if k is None else k, named)
    elif run.method == "histogram":
        limit = run.get("max_features")
        args = _view_args(run, _HISTOGRAM)
        args += [] if limit is None else ["--estimate"] if limit == 0 else ["--max-features", str(limit)]
        command, args = "histogram", args + ["--seed", str(run.seed)]
    elif run.method == "benchmark":
        args = _view_args(run, _BENCHMARK) + ["--seed", str(run.seed)]
        command, args = "benchmark", args + ([] if run.get("select_in_fold") else ["--select-once"])
    else:
        return None
    if args is None:
        return None

    def select(ns: argparse.Namespace) -> Run:
        back = select_run(ns, target_kind)
        return with_prior_groups(back, ns.prior_group, dataset)[0] if named else back

    make = {"select": select, "histogram": histogram_run}
    try:
        ns = _parser(command).parse_args(["DATA", *args])
        back = make.get(command, benchmark_run)(ns)
    except (SystemExit, ValueError, TypeError):
        return None
    return [command, *args] if back == run else None
