"""Command line: ``fsviz info | histogram | select | report | benchmark | methods | app``
(``python -m fsviz``).

Examples::

    fsviz app --port 8600 --data-dir /srv/data      # the explorer in the browser

    fsviz info data.csv --label class
    fsviz histogram data.mat --bins 20 -o hist.csv
    fsviz histogram big.npy --out-of-core --block-size 4096 --scheduler tcp://10.0.0.5:8786
    fsviz select --method gdm --param tau=0.3 data.csv --label class -o selected.csv
    fsviz select --method fisher -k 50 data.mat -o top50.csv --reduced top50-data.csv
    fsviz select --method grm --base laplacian --base-param n_neighbors=5 --param n_top=2000 data.mat
    fsviz benchmark data.mat --methods fisher,mrmr,laplacian --ks 5:305:5 --cv 10 -o results.csv
    fsviz report data.csv --label class --runs fsviz-session.json -o report.html
    fsviz report data.mat --method gdm --param tau=0.3 -k 20 -o report.html
    fsviz select --method spearman -k 5 diabetes.csv --label progression   # a continuous target
    fsviz info export.csv --sep ';' --decimal ,            # a European spreadsheet export
    fsviz info book.xlsx --sheet Daten --ignore notes,comment
    fsviz select --method fisher -k 20 expr.tsv --transpose yes --label class   # features as rows
    fsviz info nci60.csv --id-columns rownames --missing-target drop

A continuous target (``type_of_target``: real values with a fractional part) works with the
methods that have a regression form (``fsviz methods``: ``sup+regr``); the others stop with
``fsviz: error: ... needs class labels; y looks continuous ...``.

``report`` writes one self-contained HTML file (:mod:`fsviz.report`) of the Runs of an app session
file (``--runs``, the sidebar's "Save session (JSON)") and/or of one ``--method`` given as ``select``
takes it: byte for byte the document of the app's "Download report" for the same Runs, apart from
the creation date.

``select`` runs the same :class:`fsviz.compute.Run` as the app: the same method, parameters
and ``--seed`` give the same selection and a byte-identical selection CSV
(``rank,index,name,score,role,group``) as the app's download, and ``--reduced`` writes the
reduced dataset exactly as the app's download does (``--reduced PATH.parquet``, ``.npz``, ... or
``--reduced-format``: any registered writer, the feature annotations kept where the format can).

Results go to stdout or ``-o``; progress and messages go to stderr. Every failure ends with
one ``fsviz: error: ...`` line and a non-zero exit code, never a traceback; data larger than
``--memory-budget`` (default: ``$FSVIZ_MEMORY_BUDGET``, else 1/8 of the available RAM) are
refused before they are read, and running out of memory is an error like any other:

==  =====================================================================
0   success
1   bad input or failed run (unreadable file, invalid parameter, ...)
2   bad command line (argparse usage error)
3   internal error (a bug: please report it; ``FSVIZ_DEBUG=1`` shows the traceback)
130 interrupted
==  =====================================================================
"""

from __future__ import annotations

import argparse
import csv
import inspect
import io
import json
import os
import sys
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fsviz._dask import close_quietly
from fsviz.compute.commands import names

__all__ = ["main"]


class CLIError(Exception):
    """A problem the user can fix; printed as one line, exit code 1."""


# --------------------------------------------------------------------------------- helpers
class _Progress:
    """``progress(done, total)`` printing to stderr (in place on a terminal)."""

    def __init__(self, label: str, quiet: bool):
        self.label, self.quiet = label, quiet
        self.tty = sys.stderr.isatty()
        self.last = -1.0
        self.t0 = time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        if self.quiet:
            return
        frac = done / max(total, 1)
        if not self.tty and done < total and frac - self.last < 0.1:
            return
        self.last = frac
        msg = (
            f"fsviz: {self.label}: {done}/{total} ({100 * frac:.0f}%, {time.perf_counter() - self.t0:.1f} s)"
        )
        sys.stderr.write(("\r" + msg + ("\n" if done >= total else "")) if self.tty else msg + "\n")
        sys.stderr.flush()


def _say(args: argparse.Namespace, msg: str) -> None:
    if not getattr(args, "quiet", False):
        print(f"fsviz: {msg}", file=sys.stderr)


def _with_plan(text: str, kwargs: dict) -> dict:
    """``--plan``: the plan (JSON, or a file of it) instead of the reading options one by one."""
    from fsviz.data.loaders import load_defaults
    from fsviz.data.plan import ImportPlan

    if not text.lstrip().startswith("{") and os.path.exists(text):
        from fsviz.data.filetypes import check_regular, read_regular
        from fsviz.data.plan import MAX_PLAN_BYTES

        if check_regular(text, "--plan").st_size > MAX_PLAN_BYTES:  # a regular file, a plan's size
            raise CLIError(f"--plan: {text!r} is larger than a plan (at most {MAX_PLAN_BYTES:,} bytes).")
        text = read_regular(text, "--plan").decode("utf-8", errors="replace")
    plan = ImportPlan.from_json(text, "--plan")
    defaults = load_defaults()
    keep = ("memory_budget", "allow_external")
    clash = sorted(
        k for k, v in kwargs.items() if k not in keep and k in defaults and v is not None and v != defaults[k]
    )
    if clash:
        raise CLIError(f"--plan: give {clash} in the plan, not beside it.")
    return {k: v for k, v in kwargs.items() if k in keep} | {"plan": plan}


def _load(args: argparse.Namespace):
    """The dataset through ``fsviz.data.load_dataset`` (the reading options, ``--covariates``)."""
    path = args.data
    if not os.path.exists(path):
        raise OSError(f"input file {path!r} does not exist.")
    kwargs: dict[str, Any] = {"fmt": args.format, "memory_budget": args.memory_budget}
    if getattr(args, "allow_external", False):
        kwargs["allow_external"] = True
    kwargs |= {"missing": args.missing, "categorical": args.categorical}
    kwargs |= {
        "sep": _SEPS.get(args.sep, args.sep),
        "decimal": args.decimal,
        "transpose": {"no": False, "yes": True}.get(args.transpose, args.transpose),
        "missing_target": args.missing_target,
        "target_kind": args.target_kind,
    }
    if args.sheet is not None:
        kwargs["sheet"] = int(args.sheet) if args.sheet.lstrip("-").isdigit() else args.sheet
    if args.id_columns is not None:
        low = args.id_columns.strip().lower()
        kwargs["id_columns"] = "auto" if low == "auto" else None if low == "none" else names(args.id_columns)
    if args.ignore:
        kwargs["ignore"] = names(args.ignore)
    if args.label is not None:
        kwargs["label"] = None if args.label.strip().lower() == "none" else args.label
    kwargs |= {
        "header": None if args.header == "no" else 0,
        "skip_rows": args.skip_rows,
        "comment": args.comment,
        "encoding": args.encoding,
        "duplicates": args.duplicates,
        "dates": args.dates,
        "transform": args.transform,
        "min_class_size": args.min_class_size,
        "sample_annotations": args.sample_annotations,
        "annotation_key": args.annotation_key,
        "matrix": args.matrix,
        "var_names": args.var_names,
        "compression": args.compression,
        "member": args.member,
        "intensity": args.intensity,
        "feature_annotations": args.feature_annotations,
        "feature_key": args.feature_key,
        "feature_display": args.feature_display,
    }
    if args.na_values is not None:
        kwargs["na_values"] = [v.strip() for v in args.na_values.split(",")]
    if args.plan:
        kwargs = _with_plan(args.plan, kwargs)
    t = time.perf_counter()
    ds = _load_with_covariates(path, _covariate_names(args), kwargs)
    _say(args, f"loaded {path}: {ds.n_samples} x {ds.n_features} in {time.perf_counter() - t:.1f} s")
    return ds


def _covariate_names(args: argparse.Namespace) -> tuple[str, ...] | None:
    """``--covariates``' names (None when absent or ``none``)."""
    from fsviz.compute.covariates import parse_covariates

    return parse_covariates(getattr(args, "covariates", None))


def _load_with_covariates(path, covariates, kwargs: dict):
    """The dataset; ``--covariates`` naming columns of the table reads them with the role
    "covariate" (out of the features, text columns too, as ``--plan '{"covariates": [...]}'``).
    Names that are no column of the table nor of the sample annotations (a .mat file's features)
    are left to the run, which looks for them among the features (the file is then read again)."""
    from fsviz.data import load_dataset
    from fsviz.data.covariates import CovariateNotFoundError

    # sandbox=True: a crash in a file reader is an error line
    if covariates and "plan" not in kwargs:
        try:
            return load_dataset(path, sandbox=True, covariates=list(covariates), **kwargs)
        except CovariateNotFoundError:
            pass
    return load_dataset(path, sandbox=True, **kwargs)


#: --sep words for characters a shell makes awkward
_SEPS = {"comma": ",", "semicolon": ";", "tab": "\t", "\\t": "\t", "pipe": "|", "space": "whitespace"}


def _client(args: argparse.Namespace):
    if not getattr(args, "scheduler", None):
        return None
    from fsviz._dask import as_client

    client = as_client(args.scheduler, timeout=f"{args.scheduler_timeout}s")  # ValueError: not an address
    if not os.environ.get("FSVIZ_DEBUG"):  # a lost scheduler is one error line, not Dask's tracebacks
        import logging

        logging.getLogger("distributed").setLevel(logging.CRITICAL)
    _say(args, f"connected to Dask scheduler {args.scheduler} ({len(client.nthreads())} workers)")
    return client


# -------------------------------------------------------------------------------- commands
def cmd_info(args: argparse.Namespace) -> int:
    ds = _load(args)
    s = ds.summary()
    info: dict[str, Any] = {
        "name": s.name,
        "path": args.data,
        "n_samples": s.n_samples,
        "n_features": s.n_features,
        "storage": "sparse" if s.is_sparse else "dense",
        "density": 1.0 - s.sparsity,
        "constant_features": s.n_constant,
        "pairs": s.n_features * (s.n_features - 1) // 2,
        "fingerprint": s.fingerprint,
        "image_shape": list(s.image_shape) if s.image_shape else None,
    }
    info["target"] = s.label_kind or "none"
    if ds.meta.get("label_column"):
        info["target_column"] = ds.meta["label_column"]
    if ds.meta.get("id_columns") or ds.sample_names is not None:
        info["identifiers"] = ds.meta.get("id_columns") or [ds.meta.get("id_column", "sample")]
    if ds.meta.get("ignored"):
        info["ignored"] = ds.meta["ignored"]
    if s.label_kind == "classes":
        info["classes"] = dict(zip(s.classes, s.class_counts, strict=True))
    elif s.label_kind == "continuous":  # a regression target: its range, not 200 "classes"
        y = ds.y
        info["target_range"] = [float(y.min()), float(y.max())]
        info["target_mean"] = float(y.mean())
    from fsviz.data import check_target

    issues = check_target(ds, cv=getattr(args, "cv", 5) or 5)
    if issues:
        info["target_issues"] = [{"kind": i.kind, "message": i.message, "fix": i.fix} for i in issues]
    if ds.meta.get("notes"):
        info["notes"] = list(ds.meta["notes"])
    if args.json:
        print(json.dumps(info, indent=2, default=str))
    else:
        for k, v in info.items():
            if k == "target_issues":
                for i in v:
                    print(f"{'target issue':18s} {i['message']} Fix: {i['fix']}.")
            elif k == "notes":
                for note in v:
                    print(f"{'note':18s} {note}")
            else:
                print(f"{k:18s} {v}")
    return 0


def cmd_histogram(args: argparse.Namespace) -> int:
    import fsviz.compute as fc

    run = fc.histogram_run(args)
    if args.out_of_core:
        from fsviz.data.chunked import open_chunked

        if not os.path.exists(args.data):
            raise OSError(f"input file {args.data!r} does not exist.")
        source = open_chunked(args.data, label=args.label)
        shape = f"{source.n_samples} samples x {source.n_features} features"
        _say(args, f"opened {args.data} out of core: {shape}")
        data = _OutOfCore(source, args.data)
    else:
        data = _load(args)
    client = _client(args)
    try:
        h = run.execute(data, _RunProgress("histogram", args.quiet), client=client)
    finally:
        close_quietly(client)  # its scheduler may be gone: the run's own error says so
    _say(
        args,
        f"{'exact' if h.exact else 'ESTIMATED'} histogram of {h.n_pairs_total:,} pairs in {h.seconds:.1f} s "
        f"({h.algorithm}; {h.n_evaluated:,} pair correlations computed; "
        f"{h.n_constant} constant features excluded)",
    )
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["lower", "upper", "count", "fraction", "fraction_at_least_lower", "exact"])
    fractions, tail = h.fractions, h.tail_fractions
    for k in range(h.counts.size):
        c = int(h.counts[k]) if h.exact else float(h.counts[k])
        w.writerow(
            [
                f"{h.edges[k]:.6g}",
                f"{h.edges[k + 1]:.6g}",
                c,
                f"{fractions[k]:.6e}",
                f"{tail[k]:.6e}",
                h.exact,
            ]
        )
    _write(args, buf.getvalue())
    return 0


@dataclass(frozen=True)
class _OutOfCore:
    """Data read block by block (``--out-of-core``): what the histogram Run reads of a dataset."""

    X: Any
    name: str
    fingerprint: str = ""


def _write(args: argparse.Namespace, text: str) -> None:
    if args.output in (None, "-"):
        sys.stdout.write(text)
        return
    with open(args.output, "w", newline="") as f:
        f.write(text)
    _say(args, f"wrote {args.output}")


def _write_reduced(args: argparse.Namespace, ds, indices, raw: bool) -> None:
    """``--reduced PATH``: the dataset restricted to the exported features, written by the
    registered writer of ``--reduced-format``, else of PATH's suffix, else CSV (the app's download,
    byte for byte)."""
    import fsviz.compute as fc
    from fsviz.data.formats import get_writer, writers
    from fsviz.data.formats.writer_registry import writer_for_suffix

    writer = get_writer(args.reduced_format or "csv")
    if args.reduced_format is None:
        writer = writer_for_suffix(args.reduced) or writer
    annotated = ds.meta.get("feature_info") is not None
    if writer.name == "csv":
        with open(args.reduced, "wb") as fh:
            fh.write(fc.reduced_csv(ds, indices, raw=raw))
        if annotated:
            keep = [w.suffixes[0] for w in writers() if w.feature_info]
            _say(
                args,
                f"the reduced CSV names the features by their IDs only; {' or '.join(keep)} files keep "
                "their annotations (display names)",
            )
    else:
        options = (
            {"formula_safe": not raw} if "formula_safe" in inspect.signature(writer.write).parameters else {}
        )
        ds.subset(features=indices).save(args.reduced, fmt=writer.name, **options)
    _say(args, f"wrote the reduced dataset ({len(indices)} features, {writer.name}) to {args.reduced}")


class _RunProgress(_Progress):
    """A Run's ``progress(fraction, text)`` printed like the histogram's block counts."""

    def __call__(self, frac: float, text: str = "", **info: Any) -> None:  # type: ignore[override]
        super().__call__(int(round(1000 * frac)), 1000)


def _run_of(args: argparse.Namespace, target_kind: str | None = "classes"):
    """The selection Run of ``select`` / ``report --method``, checked before the data is read."""
    import fsviz.compute as fc

    return fc.select_run(args, target_kind)


def _named_priors(args: argparse.Namespace, run, ds):
    """``run`` with the prior groups ``--prior-group`` names, found among ``ds``'s features (IDs,
    gene symbols) as the app's GRM page finds pasted names; a symbol that took several features
    is said."""
    from fsviz.compute.commands import with_prior_groups

    run, notes = with_prior_groups(run, getattr(args, "prior_group", None), ds)
    for note in notes:
        _say(args, f"--prior-group: {note}")
    return run


def _plan_covariates(args: argparse.Namespace, run, ds):
    """``run`` adjusted for the covariates the import plan marked (``ds.meta["covariates"]``) when
    ``--covariates`` is not given (``--covariates none``: no adjustment)."""
    import fsviz.compute as fc

    marked = fc.default_covariates(ds)
    if getattr(args, "covariates", None) is not None or not marked or not run.spec.selects:
        return run
    _say(args, f"adjusting for the import plan's covariates {', '.join(marked)} (--covariates none: do not)")
    return run.replace(covariates=marked)


def cmd_select(args: argparse.Namespace) -> int:
    import fsviz.compute as fc
    from fsviz.data.feature_info import export_display_names

    run = _run_of(args)
    ds = _load(args)
    if run.method == "grm" and args.base is None:
        run = _run_of(args, ds.target_kind)
    run = _named_priors(args, _plan_covariates(args, run, ds), ds)
    client = _client(args)
    _say(args, f"running {run.label}, seed {run.seed} ...")
    try:
        res = run.execute(ds, _RunProgress(run.method, args.quiet), client=client)
    finally:
        close_quietly(client)  # its scheduler may be gone: the run's own error says so
    _say(args, f"{run.spec.label} finished in {res.seconds:.1f} s")
    if isinstance(args.n_features, fc.Cut):
        options = {
            "n_permutations": args.permutations,
            "null": args.permutation_null,
            "n_pairs": args.pairs,
            "per_half": args.per_half,
            "cv": args.cv_folds,
        }
        numbers = fc.cut_run(run, args.n_features, **options)
        _say(args, f"cutting by {args.n_features.text}: running {numbers.label} ...")
        sel = fc.cut_selection(
            run,
            args.n_features,
            ds,
            results=lambda r: res if r == run else r.execute(ds, _RunProgress(r.method, args.quiet)),
            **options,
        )
        _say(args, f"rule: {sel.rule}")
    else:
        sel = res.selection(args.n_features)
    raw = bool(getattr(args, "csv_raw", False))
    explanation = None
    if args.explain:  # every unselected feature after the selection, its stand-in and the reason
        explain = fc.explain_run(
            run, sel.n_features if isinstance(args.n_features, fc.Cut) else args.n_features
        )
        explanation = explain.execute(ds, results=lambda r: res if r == run else r.execute(ds))
        _say(
            args, f"explained {ds.n_features - sel.n_features:,} unselected features ({explanation.measure})"
        )
    shown = export_display_names(ds)  # a display_name column beside name when features are annotated
    _write(args, fc.selection_csv(sel, ds.feature_names, explanation, raw=raw, display_names=shown).decode())
    if args.reduced:
        _write_reduced(args, ds, sel.indices, raw)
    if args.provenance:
        with open(args.provenance, "wb") as fh:
            fh.write(fc.provenance_json(sel, ds))
        _say(args, f"wrote the provenance (dataset, method, parameters, seed, version) to {args.provenance}")
    _say(args, f"{sel.n_features} features selected")
    return 0


def _report_runs(args: argparse.Namespace, ds) -> list:
    """The Runs ``fsviz report`` draws: those of ``--runs`` (same dataset), then ``--method``'s."""
    from fsviz.report import session_runs

    runs = []
    if args.runs:
        from fsviz.compute.session import MAX_SESSION_BYTES, parse_json

        try:
            with open(args.runs, "rb") as fh:
                doc = parse_json(fh.read(MAX_SESSION_BYTES + 1), f"--runs {args.runs!r}")
        except OSError as e:
            raise CLIError(f"--runs: cannot read {args.runs!r} as a session JSON file ({e}).") from None
        want = (doc.get("dataset") or {}) if isinstance(doc, dict) else {}
        if want.get("fingerprint") != ds.fingerprint:
            raise CLIError(
                f"--runs: {args.runs!r} was saved on dataset {want.get('name')!r} (fingerprint "
                f"{str(want.get('fingerprint'))[:12]}…), not on {ds.name!r} ({ds.fingerprint[:12]}…); "
                "give the data file the session was made on."
            )
        runs += session_runs(doc)
    if args.method:
        runs.append(_named_priors(args, _plan_covariates(args, _run_of(args, ds.target_kind), ds), ds))
    return runs


def cmd_report(args: argparse.Namespace) -> int:
    from fsviz.report import build_report

    if not args.runs and not args.method:
        raise CLIError("report: give --runs SESSION.json (the app's saved session) and/or --method.")
    if args.method:
        _run_of(args)  # unknown parameters fail before the data is read
    ds = _load(args)
    runs = _report_runs(args, ds)
    _say(args, f"building the report of {len(runs)} run(s) on {ds.name} ...")
    t = time.perf_counter()
    data = build_report(ds, runs, k=args.top_k).encode("utf-8")
    _say(args, f"report built in {time.perf_counter() - t:.1f} s ({len(data) / 1e6:.1f} MB)")
    if args.output in (None, "-"):
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        with open(args.output, "wb") as fh:
            fh.write(data)
        _say(args, f"wrote {args.output}")
    return 0


def cmd_benchmark(args: argparse.Namespace) -> int:
    import fsviz.compute as fc

    run = fc.benchmark_run(args)
    ds = _load(args)
    client = _client(args)
    n = len(run.get("methods"))
    _say(args, f"benchmarking {n} method(s) on {ds.name}, {run.get('cv')} folds, seed {run.seed} ...")
    try:
        res = run.execute(ds, _RunProgress("benchmark", args.quiet), client=client)
    finally:
        close_quietly(client)  # its scheduler may be gone: the run's own error says so
    for note in res.notes:
        _say(args, note)
    _say(args, f"benchmark finished in {res.seconds:.1f} s ({len(res.table)} rows)")
    _write(args, fc.benchmark_csv(res.table).decode())
    return 0


def cmd_methods(args: argparse.Namespace) -> int:
    import fsviz.compute as fc

    for name in fc.selection_methods():
        spec = fc.method(name)
        kind = "unsupervised" if not spec.supervised else ("sup+regr" if spec.regression else "supervised")
        print(f"{name:12s} {spec.estimator.__name__:15s} {spec.kind:7s} {kind:12s} {spec.label}: {spec.help}")
    print(
        "\nsupervised: needs class labels; sup+regr: class labels or a continuous target (regression); "
        "unsupervised: no target."
    )
    return 0


# ---------------------------------------------------------------------------------- parser
def _parser() -> argparse.ArgumentParser:
    from fsviz import __version__
    from fsviz.cli_args import add_data_args
    from fsviz.compute import commands
    from fsviz.data.formats import writers  # --reduced's formats: the registered writers

    p = argparse.ArgumentParser(
        prog="fsviz", description="Feature grouping and selection for high-dimensional data."
    )
    p.add_argument("--version", action="version", version=f"fsviz {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    q = sub.add_parser("info", help="summary of a dataset")
    add_data_args(q)
    q.add_argument("--json", action="store_true", help="print JSON instead of aligned text")
    q.set_defaults(func=cmd_info)

    q = sub.add_parser("histogram", help="histogram of |correlation| over all feature pairs (TPAMI Fig. 1)")
    add_data_args(q)
    commands.add_histogram_options(q)
    q.add_argument(
        "--out-of-core",
        action="store_true",
        help="read .npy (memory-mapped), .parquet or zarr block by block instead of loading it",
    )
    q.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="Dask scheduler address, e.g. tcp://host:8786 (tcp://HOST:PORT, tls://HOST:PORT or HOST:PORT)",
    )
    q.add_argument(
        "--scheduler-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="give up connecting to the scheduler after this long (default 10)",
    )
    q.add_argument("-o", "--output", help="write the histogram CSV here (default: stdout)")
    q.set_defaults(func=cmd_histogram)

    q = sub.add_parser("select", help="run a feature selector and export the selection as CSV")
    add_data_args(q)
    commands.add_select_options(q)
    q.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="Dask scheduler address for methods that take a client "
        "(tcp://HOST:PORT, tls://HOST:PORT or HOST:PORT)",
    )
    q.add_argument(
        "--scheduler-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="give up connecting to the scheduler after this long (default 10)",
    )
    q.add_argument("-o", "--output", help="selection CSV (rank,index,name,score,role,group); default: stdout")
    q.add_argument(
        "--explain",
        action="store_true",
        help="append every unselected feature (role 'unselected') with columns stand_in, stand_in_corr "
        "(its most correlated selected feature, in the method's measure) and reason",
    )
    q.add_argument(
        "--reduced",
        metavar="PATH",
        help="also write the dataset restricted to the exported features, in the format of PATH's suffix "
        f"({', '.join(s for w in writers() for s in w.suffixes)}; CSV otherwise)",
    )
    q.add_argument(
        "--reduced-format",
        choices=[w.name for w in writers()],
        help="the format of --reduced whatever its suffix (the registered writers; Parquet, npz and svmlight "
        "keep the feature annotations)",
    )
    q.add_argument(
        "--csv-raw",
        action="store_true",
        help="write names exactly, for programs; by default a name that begins like a spreadsheet formula "
        "(= + - @ tab CR) gets a ' in front, so opening the CSV in a spreadsheet runs nothing",
    )
    q.add_argument(
        "--provenance",
        metavar="PATH",
        help="also write JSON: dataset name and fingerprint, method, every parameter, seed, version, date",
    )
    q.set_defaults(func=cmd_select)

    q = sub.add_parser("report", help="one self-contained HTML report of runs: figures, tables, provenance")
    add_data_args(q)
    q.add_argument(
        "--runs",
        metavar="SESSION.json",
        help="the app's session file (sidebar: Save session) or a report's session block: its runs",
    )
    commands.add_report_options(q)
    q.add_argument("-o", "--output", help="the HTML file to write (default: stdout)")
    q.set_defaults(func=cmd_report)

    q = sub.add_parser(
        "benchmark", help="the survey's protocol: accuracy (NMI/ACC) against the number of features, as CSV"
    )
    add_data_args(q)
    commands.add_benchmark_options(q)
    q.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="Dask scheduler address: run them on a cluster (tcp://HOST:PORT, tls://HOST:PORT or HOST:PORT)",
    )
    q.add_argument(
        "--scheduler-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="give up connecting to the scheduler after this long (default 10)",
    )
    q.add_argument(
        "-o",
        "--output",
        help="CSV: method,kind,k,n_used,classifier,fold,repeat,accuracy,nmi,acc,time; default: stdout",
    )
    q.set_defaults(func=cmd_benchmark)

    q = sub.add_parser("methods", help="list the selection methods and whether they are available")
    q.set_defaults(func=cmd_methods)

    q = sub.add_parser(
        "app",
        help="start the explorer in the browser (Streamlit) from the installed package",
        description="Serve the explorer; sample data is written on first use into the user cache folder.",
    )
    q.add_argument("--port", type=int, default=8501, help="port to serve on (default: 8501)")
    q.add_argument("--address", default=None, help="address to bind (default: Streamlit's, all interfaces)")
    q.add_argument("--data-dir", default=None, metavar="DIR", help="a server folder listed as a data source")
    q.add_argument("--scheduler", default=None, metavar="ADDR", help="a Dask scheduler for heavy runs")
    q.set_defaults(func=cmd_app)
    return p


def cmd_app(args) -> int:
    """``fsviz app``: the explorer, served by Streamlit until interrupted (:mod:`fsviz_app.launch`)."""
    from fsviz_app.launch import serve

    return serve(port=args.port, address=args.address, data_dir=args.data_dir, scheduler=args.scheduler)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"fsviz: warning: {message}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (see the module docstring)."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help/--version (0) or usage errors (2)
        return int(e.code or 0)
    try:
        with warnings.catch_warnings():  # library warnings become one-line messages on stderr
            warnings.simplefilter("ignore" if getattr(args, "quiet", False) else "default")
            warnings.showwarning = _show_warning
            return int(args.func(args))
    except KeyboardInterrupt:
        print("fsviz: interrupted", file=sys.stderr)
        return 130
    except (CLIError, ValueError, OSError, ImportError, TypeError, KeyError, MemoryError) as e:
        if os.environ.get("FSVIZ_DEBUG"):
            raise
        if isinstance(e, MemoryError) and not isinstance(e, ValueError):
            from fsviz.data.budget import out_of_memory

            e = out_of_memory(f"fsviz {getattr(args, 'command', '')}".strip(), e)
        msg = " ".join(str(e).split()) or type(e).__name__  # one line, whatever the message
        if isinstance(e, (TypeError, KeyError)):
            msg = f"{type(e).__name__}: {msg}"
        print(f"fsviz: error: {msg}", file=sys.stderr)
        return 1
    except Exception as e:
        if os.environ.get("FSVIZ_DEBUG"):
            raise
        msg = " ".join(str(e).split())
        print(
            f"fsviz: error: internal error: {type(e).__name__}: {msg} (set FSVIZ_DEBUG=1 for the traceback)",
            file=sys.stderr,
        )
        return 3


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
