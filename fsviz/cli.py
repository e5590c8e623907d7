"""Command line: ``fsviz info | histogram | select | methods`` (also ``python -m fsviz``).

Examples::

    fsviz info data.csv --label class
    fsviz histogram data.mat --bins 20 -o hist.csv
    fsviz histogram big.npy --out-of-core --block-size 4096 --scheduler tcp://10.0.0.5:8786
    fsviz select --method gdm --param tau=0.3 data.csv --label class -o selected.csv
    fsviz select --method fisher -k 50 data.mat -o top50.csv
    fsviz select --method grm --base laplacian --param n_top=2000 data.mat -o grm.csv

Results go to stdout or ``-o``; progress and messages go to stderr. Bad input ends with
a one-line message and a non-zero exit code, never a traceback:

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
import ast
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

import numpy as np

__all__ = ["METHODS", "main"]


# ----------------------------------------------------------------------------- method table
@dataclass(frozen=True)
class MethodSpec:
    """How the CLI runs one selector: its class in ``fsviz.select`` and what fit needs."""

    cls: str
    supervised: bool
    kind: str  # "score" (ranking + top-k), "subset" (selected_), "groups" (support_/groups_), "grm"
    help: str


METHODS: dict[str, MethodSpec] = {
    "gdm": MethodSpec(
        "GDM", True, "groups", "Group Discovery Machine: support (SF) + affiliated (AF) features"
    ),
    "saola": MethodSpec("SAOLA", True, "subset", "online streaming selection (Fisher's Z or SU tests)"),
    "grm": MethodSpec("GRM", False, "grm", "global redundancy minimisation of a base score (--base)"),
    "fisher": MethodSpec("FisherScore", True, "score", "Fisher score"),
    "laplacian": MethodSpec("LaplacianScore", False, "score", "Laplacian score (unsupervised)"),
    "lgd": MethodSpec("LGD", False, "score", "local-global discrepancy score (unsupervised)"),
    "relieff": MethodSpec("ReliefF", True, "score", "ReliefF"),
    "mi": MethodSpec("MutualInfo", True, "score", "mutual information with the label"),
    "f": MethodSpec("FScore", True, "score", "ANOVA F-score"),
    "chi2": MethodSpec("ChiSquare", True, "score", "chi-square (non-negative features)"),
    "variance": MethodSpec("VarianceScore", False, "score", "variance (unsupervised)"),
    "mcfs": MethodSpec("MCFS", False, "score", "multi-cluster feature selection (unsupervised)"),
    "mrmr": MethodSpec("MRMR", True, "subset", "minimum redundancy maximum relevance"),
    "fcbf": MethodSpec("FCBF", True, "subset", "fast correlation-based filter"),
}


class CLIError(Exception):
    """A problem the user can fix; printed as one line, exit code 1."""


def _method_class(name: str):
    spec = METHODS[name]
    try:
        import fsviz.select as sel

        return getattr(sel, spec.cls)
    except (ImportError, AttributeError) as e:
        raise CLIError(
            f"method {name!r} ({spec.cls}) is not available in this installation: {type(e).__name__}: {e}"
        ) from None


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


def _load(args: argparse.Namespace):
    """The dataset through ``fsviz.data.load_dataset`` (label column, format)."""
    path = args.data
    if not os.path.exists(path):
        raise OSError(f"input file {path!r} does not exist.")
    try:
        from fsviz.data import load_dataset
    except (ImportError, AttributeError) as e:
        raise CLIError(f"the data loaders (fsviz.data.load_dataset) are not available: {e}") from None
    kwargs: dict[str, Any] = {"fmt": args.format}
    if args.label is not None:
        kwargs["label"] = args.label
    t = time.perf_counter()
    ds = load_dataset(path, **kwargs)
    _say(
        args,
        f"loaded {path}: {ds.X.shape[0]} samples x {ds.X.shape[1]} "
        f"features in {time.perf_counter() - t:.1f} s",
    )
    return ds


def _client(args: argparse.Namespace):
    if not getattr(args, "scheduler", None):
        return None
    from fsviz._dask import as_client

    client = as_client(args.scheduler, timeout=f"{args.scheduler_timeout}s")
    _say(args, f"connected to Dask scheduler {args.scheduler} ({len(client.nthreads())} workers)")
    return client


def _parse_params(items: Sequence[str] | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items or ():
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise CLIError(f"--param expects NAME=VALUE (e.g. --param tau=0.3); got {item!r}.")
        try:
            value = ast.literal_eval(raw.strip())
        except (ValueError, SyntaxError):
            value = raw.strip()  # bare words such as pearson stay strings
        out[key] = value
    return out


def _names(ds, m: int) -> list[str]:
    names = getattr(ds, "feature_names", None)
    if names is None or len(names) != m:
        return [f"f{j}" for j in range(m)]
    return [str(n) for n in names]


# -------------------------------------------------------------------------------- commands
def cmd_info(args: argparse.Namespace) -> int:
    import scipy.sparse as sp

    ds = _load(args)
    X, y = ds.X, getattr(ds, "y", None)
    n, m = X.shape
    if sp.issparse(X):
        nnz = int(X.nnz)
        from fsviz.stats.moments import column_moments

        _, norm = column_moments(X)
    else:
        Xa = np.asarray(X)
        nnz = int(np.count_nonzero(Xa))
        norm = Xa.std(axis=0)
    info: dict[str, Any] = {
        "name": getattr(ds, "name", os.path.basename(args.data)),
        "path": args.data,
        "n_samples": int(n),
        "n_features": int(m),
        "storage": "sparse" if sp.issparse(X) else "dense",
        "density": nnz / max(n * m, 1),
        # the Dataset's exact check (all values equal); a std of 0 misses constants with rounding
        "constant_features": len(ds.constant_features)
        if hasattr(ds, "constant_features")
        else int((norm == 0).sum()),
        "pairs": m * (m - 1) // 2,
        "fingerprint": getattr(ds, "fingerprint", None),
        "image_shape": list(ds.image_shape) if getattr(ds, "image_shape", None) else None,
    }
    if y is not None:
        vals, cnt = np.unique(np.asarray(y), return_counts=True)
        info["classes"] = {str(v): int(c) for v, c in zip(vals, cnt, strict=False)}
    if args.json:
        print(json.dumps(info, indent=2))
    else:
        for k, v in info.items():
            print(f"{k:18s} {v}")
    return 0


def _edges(args: argparse.Namespace):
    if args.edges:
        try:
            return np.array([float(v) for v in args.edges.split(",")])
        except ValueError:
            raise CLIError(
                f"--edges expects comma-separated numbers such as 0,0.1,0.5,1; got {args.edges!r}."
            ) from None
    return args.bins


def cmd_histogram(args: argparse.Namespace) -> int:
    from fsviz.stats import correlation_histogram

    if args.out_of_core:
        from fsviz.data.chunked import open_chunked

        if not os.path.exists(args.data):
            raise OSError(f"input file {args.data!r} does not exist.")
        data = open_chunked(args.data, label=args.label)
        _say(args, f"opened {args.data} out of core: {data.n_samples} samples x {data.n_features} features")
    else:
        data = _load(args).X
    edges = _edges(args)
    client = _client(args)
    try:
        h = correlation_histogram(
            data,
            bins=edges,
            block_size=args.block_size,
            client=client,
            exact=not args.estimate,
            n_sample_pairs=args.sample_pairs,
            random_state=args.seed,
            precision=args.precision,
            progress=_Progress("histogram", args.quiet),
        )
    finally:
        if client is not None:
            client.close()
    _say(
        args,
        f"{'exact' if h.exact else 'ESTIMATED'} histogram of {h.n_pairs:,} pairs in {h.seconds:.1f} s "
        f"({h.method}; {h.n_evaluated:,} pair correlations computed; "
        f"{h.constant_features.size} constant features excluded)",
    )
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["lower", "upper", "count", "fraction", "fraction_at_least_lower", "exact"])
    for k in range(h.counts.size):
        c = int(h.counts[k]) if h.exact else float(h.counts[k])
        w.writerow(
            [
                f"{h.edges[k]:.6g}",
                f"{h.edges[k + 1]:.6g}",
                c,
                f"{h.fractions[k]:.6e}",
                f"{h.tail_fractions[k]:.6e}",
                h.exact,
            ]
        )
    _write(args, buf.getvalue())
    return 0


def _write(args: argparse.Namespace, text: str) -> None:
    if args.output in (None, "-"):
        sys.stdout.write(text)
        return
    with open(args.output, "w", newline="") as f:
        f.write(text)
    _say(args, f"wrote {args.output}")


def _fit_kwargs(est, args, client) -> dict[str, Any]:
    if client is None:
        return {}
    if "client" in inspect.signature(est.fit).parameters:
        return {"client": client}
    _say(args, f"{type(est).__name__}.fit does not take a Dask client; running locally")
    return {}


def _make(name: str, params: dict[str, Any], args: argparse.Namespace):
    cls = _method_class(name)
    accepted = set(inspect.signature(cls.__init__).parameters) - {"self"}
    if args.n_features is not None and "n_features" in accepted:
        params.setdefault("n_features", args.n_features)
    unknown = sorted(set(params) - accepted)
    if unknown:
        raise CLIError(f"method {name!r} has no parameter(s) {unknown}; valid: {sorted(accepted)}.")
    return cls(**params)


def _rows_from(est, spec: MethodSpec, names: list[str], k: int | None) -> list[list[Any]]:
    scores = getattr(est, "scores_", None)
    scores = None if scores is None else np.asarray(scores, dtype=np.float64)

    def sc(j: int) -> str:
        return "" if scores is None or j >= scores.size else f"{scores[j]:.10g}"

    rows: list[list[Any]] = []
    if spec.kind == "groups":
        support = [int(j) for j in np.asarray(est.support_).ravel()]
        groups = getattr(est, "groups_", {}) or {}
        for g, s in enumerate(support, start=1):
            rows.append([s, names[s], sc(s), "SF", g])
        for g, s in enumerate(support, start=1):
            for a in np.asarray(groups.get(s, ()), dtype=int).ravel():
                rows.append([int(a), names[int(a)], sc(int(a)), "AF", g])
        return rows
    if spec.kind in ("subset",) or (spec.kind == "grm" and hasattr(est, "selected_")):
        sel = np.asarray(est.selected_, dtype=int).ravel()
    else:
        sel = np.asarray(est.get_support(indices=True), dtype=int)
        ranking = getattr(est, "ranking_", None)
        if ranking is not None:
            sel = sel[np.argsort(np.asarray(ranking)[sel], kind="stable")]
    if k is not None and spec.kind == "subset":
        sel = sel[:k]
    return [[int(j), names[int(j)], sc(int(j)), "selected", ""] for j in sel]


def cmd_select(args: argparse.Namespace) -> int:
    name = args.method
    spec = METHODS[name]
    params = _parse_params(args.param)
    est = _make(name, params, args)  # fails fast on unknown methods/params, before loading data
    ds = _load(args)
    X, y = ds.X, getattr(ds, "y", None)
    if spec.supervised and y is None:
        raise CLIError(f"method {name!r} needs class labels; name the label column with --label.")
    client = _client(args)
    names = _names(ds, X.shape[1])
    t = time.perf_counter()
    _say(args, f"running {type(est).__name__}({', '.join(f'{k}={v!r}' for k, v in params.items())}) ...")
    if spec.kind == "grm":
        base_spec = METHODS[args.base]
        if base_spec.kind != "score":
            raise CLIError(
                f"--base must be a scoring method "
                f"({', '.join(k for k, v in METHODS.items() if v.kind == 'score')}); got {args.base!r}."
            )
        if base_spec.supervised and y is None:
            raise CLIError(f"--base {args.base} needs class labels; name the label column with --label.")
        base = _make(args.base, {}, argparse.Namespace(n_features=None))
        base.fit(X, y)
        scores = np.asarray(base.scores_, dtype=np.float64)
        _say(args, f"base score {args.base} computed in {time.perf_counter() - t:.1f} s")
        est.fit(X, scores)
    else:
        try:
            est.fit(X, y, **_fit_kwargs(est, args, client))
        finally:
            if client is not None:
                client.close()
    _say(args, f"{name} finished in {time.perf_counter() - t:.1f} s")
    rows = _rows_from(est, spec, names, args.n_features)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["index", "name", "score", "role", "group"])
    w.writerows(rows)
    _write(args, buf.getvalue())
    _say(args, f"{len(rows)} features selected")
    return 0


def cmd_methods(args: argparse.Namespace) -> int:
    for name, spec in METHODS.items():
        try:
            _method_class(name)
            status = "available"
        except CLIError as e:
            status = f"unavailable ({str(e).split(': ', 1)[-1]})"
        print(
            f"{name:10s} {spec.cls:15s} {'supervised' if spec.supervised else 'unsupervised':12s} "
            f"{status:10s} {spec.help}"
        )
    return 0


# ---------------------------------------------------------------------------------- parser
def _parser() -> argparse.ArgumentParser:
    from fsviz import __version__

    p = argparse.ArgumentParser(
        prog="fsviz", description="Feature grouping and selection for high-dimensional data."
    )
    p.add_argument("--version", action="version", version=f"fsviz {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def data_args(q: argparse.ArgumentParser) -> None:
        q.add_argument("data", metavar="DATA", help="CSV/TSV, Parquet, .mat, LIBSVM or .npz file")
        q.add_argument("--label", help="label column (CSV/TSV/Parquet); default: the loader's choice")
        q.add_argument(
            "--format",
            choices=["csv", "tsv", "parquet", "mat", "libsvm", "npz"],
            help="file format when the extension does not tell",
        )
        q.add_argument("-q", "--quiet", action="store_true", help="no progress or messages on stderr")

    q = sub.add_parser("info", help="summary of a dataset")
    data_args(q)
    q.add_argument("--json", action="store_true", help="print JSON instead of aligned text")
    q.set_defaults(func=cmd_info)

    q = sub.add_parser("histogram", help="histogram of |correlation| over all feature pairs (TPAMI Fig. 1)")
    data_args(q)
    q.add_argument(
        "--bins", type=int, default=20, help="equal-width bins on [0, 1] (default 20: steps of 0.05)"
    )
    q.add_argument("--edges", help="explicit bin edges, comma-separated, e.g. 0,0.1,0.3,0.5,1")
    g = q.add_mutually_exclusive_group()
    g.add_argument(
        "--exact", dest="estimate", action="store_false", help="exact counts over all pairs (default)"
    )
    g.add_argument("--estimate", dest="estimate", action="store_true", help="estimate from sampled pairs")
    q.set_defaults(estimate=False)
    q.add_argument("--sample-pairs", type=int, default=1_000_000, help="pairs sampled with --estimate")
    q.add_argument("--seed", type=int, default=0, help="seed of the pair sample")
    q.add_argument("--block-size", type=int, default=2048, help="features per block (dense data)")
    q.add_argument(
        "--precision",
        choices=["float64", "float32"],
        default="float64",
        help="dense BLAS precision (float32 re-checks values near edges; counts stay exact)",
    )
    q.add_argument(
        "--out-of-core",
        action="store_true",
        help="read .npy (memory-mapped), .parquet or zarr block by block instead of loading it",
    )
    q.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler address, e.g. tcp://host:8786")
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
    data_args(q)
    q.add_argument("--method", required=True, choices=sorted(METHODS), help="selector")
    q.add_argument(
        "--param",
        action="append",
        metavar="NAME=VALUE",
        help="estimator parameter, repeatable (e.g. --param tau=0.3 --param max_iter=5)",
    )
    q.add_argument(
        "-k", "--n-features", type=int, help="number of features to keep (scorers, subset methods)"
    )
    q.add_argument(
        "--base",
        default="fisher",
        choices=sorted(k for k, v in METHODS.items() if v.kind == "score"),
        help="base score refined by --method grm (default fisher)",
    )
    q.add_argument(
        "--scheduler", metavar="ADDRESS", help="Dask scheduler address for methods that take a client"
    )
    q.add_argument(
        "--scheduler-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="give up connecting to the scheduler after this long (default 10)",
    )
    q.add_argument("-o", "--output", help="CSV path (index,name,score,role,group); default: stdout")
    q.set_defaults(func=cmd_select)

    q = sub.add_parser("methods", help="list the selection methods and whether they are available")
    q.set_defaults(func=cmd_methods)
    return p


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
        msg = str(e).strip() or type(e).__name__
        if isinstance(e, (TypeError, KeyError)):
            msg = f"{type(e).__name__}: {msg}"
        print(f"fsviz: error: {msg}", file=sys.stderr)
        return 1
    except Exception as e:
        if os.environ.get("FSVIZ_DEBUG"):
            raise
        print(
            f"fsviz: internal error: {type(e).__name__}: {e} (set FSVIZ_DEBUG=1 for the traceback)",
            file=sys.stderr,
        )
        return 3


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
