"""The survey's catalogue against its peers: every case of ``benchmarks/catalogue_peers/*.py``.

    python benchmarks/bench_catalogue.py [--modules info_statistical ...] [--methods MIFS CFS ...]
        [--datasets colon ...] [--repeat 3] [--markdown catalogue.md]

Each module in ``benchmarks/catalogue_peers/`` (files not starting with ``_``) exposes
``cases() -> list[dict]``; a case has the keys ``method``, ``dataset`` (the stem of a
scikit-feature ``.mat`` file, read through ``FSVIZ_DATASETS``, default
``../shared/datasets/skfeature``), ``k``, ``fsviz`` and ``peer`` (each ``callable(X, y)
-> feature indices, best first``) and optionally ``note`` (a known peer difference). For
each case the dataset is loaded once, both callables run in this process one after the
other, and the script prints fsviz's and the peer's seconds, their ratio (peer / fsviz),
the top-k agreement (overlap / k) and whether the top k is in exactly the same order.

Timing: when a call takes less than ``--cheap`` seconds, the best of ``--repeat`` further
calls is reported. fsviz's first call is always a warm-up (numba kernels load or compile)
and not reported; a slow peer (pure Python, no JIT) is timed on its first call. Run on a shared
machine, the times are noisy; the ratio of two calls made side by side is less so. The load
average is printed with the table.

The main peer is scikit-feature, the survey's own repository; it is a benchmark-only
dependency, never needed by fsviz or its tests::

    pip install --no-deps skfeature-chappers

When it is not importable the script says so and exits 0 (nothing to compare).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy.io import loadmat

ROOT = Path(__file__).resolve().parents[1]
PEERS = Path(__file__).resolve().parent / "catalogue_peers"
sys.path.insert(0, str(ROOT))
KEYS = ("method", "dataset", "k", "fsviz", "peer")


def data_dir() -> Path:
    return Path(os.environ.get("FSVIZ_DATASETS", ROOT.parent / "shared" / "datasets" / "skfeature"))


def load(stem: str, cache: dict) -> tuple[np.ndarray, np.ndarray]:
    """X (float64) and y of ``<stem>.mat``, read once."""
    if stem not in cache:
        d = loadmat(data_dir() / f"{stem}.mat")
        X = d["X"]
        X = X.toarray() if hasattr(X, "toarray") else X
        cache[stem] = (np.asarray(X, dtype=np.float64), np.asarray(d["Y"]).ravel())
    return cache[stem]


def modules(only: list[str] | None) -> list[tuple[str, object]]:
    """Every catalogue module (by file, so the folder needs no ``__init__``), sorted by name."""
    out = []
    for path in sorted(PEERS.glob("*.py")):
        if path.name.startswith("_") or (only and path.stem not in only):
            continue
        spec = importlib.util.spec_from_file_location(f"catalogue_peers.{path.stem}", path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        spec.loader.exec_module(mod)
        out.append((path.stem, mod))
    return out


#: the clock of ``timed``: wall time, or with ``--cpu`` the process's CPU time
CLOCK = {"clock": time.perf_counter}


def timed(f: Callable[[], np.ndarray], repeat: int, cheap: float, warm: bool) -> tuple[float, np.ndarray]:
    """Seconds of ``f()`` and its result: the first call, or the best of ``repeat`` more when it
    was cheap. ``warm``: the first call is a warm-up (numba loading) and always repeated once."""
    clock = CLOCK["clock"]
    t0 = clock()
    out = f()
    first = clock() - t0
    if warm and first >= cheap:
        t0 = clock()
        out = f()
        first = clock() - t0
    if first >= cheap:
        return first, out
    best = np.inf
    for _ in range(repeat):
        t0 = clock()
        out = f()
        best = min(best, clock() - t0)
    return best, out


def agreement(ours, theirs, k: int) -> tuple[float, bool, int, int]:
    """(overlap of the two top-k / k, same order, len(ours[:k]), len(theirs[:k]))."""
    a = [int(v) for v in np.asarray(ours).ravel()[:k]]
    b = [int(v) for v in np.asarray(theirs).ravel()[:k]]
    denom = max(len(a), len(b), 1)
    return len(set(a) & set(b)) / denom, a == b, len(a), len(b)


def run_case(case: dict, cache: dict, repeat: int, cheap: float) -> dict:
    missing = [key for key in KEYS if key not in case]
    if missing:
        raise ValueError(f"catalogue case {case.get('method', '?')!r}: missing keys {missing}; needs {KEYS}.")
    X, y = load(case["dataset"], cache)
    k = int(case["k"])
    t_f, ours = timed(lambda: case["fsviz"](X, y), repeat, cheap, warm=True)
    try:
        t_p, theirs = timed(lambda: case["peer"](X, y), repeat, cheap, warm=False)
    except ImportError as e:
        return case | {"t_fsviz": t_f, "t_peer": np.nan, "overlap": np.nan, "same": False, "skip": str(e)}
    overlap, same, na, nb = agreement(ours, theirs, k)
    note = case.get("note", "")
    if na != nb:
        note = f"sizes: fsviz {na}, peer {nb}" + (f"; {note}" if note else "")
    return case | {"t_fsviz": t_f, "t_peer": t_p, "overlap": overlap, "same": same, "note": note}


def fmt_row(r: dict) -> list[str]:
    ratio = r["t_peer"] / r["t_fsviz"] if r["t_fsviz"] > 0 else np.inf
    return [
        str(r["method"]),
        str(r["dataset"]),
        str(r["k"]),
        f"{r['t_fsviz']:.4f}",
        "—" if np.isnan(r["t_peer"]) else f"{r['t_peer']:.4f}",
        "—" if np.isnan(r["t_peer"]) else f"{ratio:,.1f}x",
        "—" if np.isnan(r["overlap"]) else f"{r['overlap']:.2f}",
        "yes" if r["same"] else "no",
        r.get("skip") or r.get("note", ""),
    ]


HEADER = ["method", "dataset", "k", "fsviz s", "peer s", "peer/fsviz", "top-k overlap", "same order", "note"]


def markdown(rows: list[dict], load: str) -> str:
    lines = [
        f"Catalogue benchmark, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average {load}.",
        "",
        "| " + " | ".join(HEADER) + " |",
        "| " + " | ".join("---" for _ in HEADER) + " |",
    ]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in fmt_row(r)) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--modules", nargs="*", help="catalogue modules to run (file stems); default all")
    ap.add_argument("--methods", nargs="*", help="only these methods (as the cases name them)")
    ap.add_argument("--datasets", nargs="*", help="only these datasets")
    ap.add_argument("--repeat", type=int, default=3, help="timed calls of cheap callables (best is kept)")
    ap.add_argument("--cheap", type=float, default=1.0, help="seconds below which a call is repeated")
    ap.add_argument("--markdown", metavar="PATH", help="also write the table as Markdown")
    ap.add_argument(
        "--cpu",
        action="store_true",
        help="time CPU seconds (time.process_time) with BLAS and numba on one thread: the ratio an idle "
        "core shows, on a busy machine (issue 22)",
    )
    a = ap.parse_args(argv)
    if a.cpu:
        import numba
        from threadpoolctl import threadpool_limits

        CLOCK["clock"] = time.process_time
        numba.set_num_threads(1)
        limits = threadpool_limits(1)  # noqa: F841 - held for the whole run
    if importlib.util.find_spec("skfeature") is None:
        print(
            "bench_catalogue: scikit-feature is not importable, nothing to compare; "
            "install the benchmark-only peer with: pip install --no-deps skfeature-chappers"
        )
        return 0
    if not data_dir().is_dir():
        print(f"bench_catalogue: no datasets at {data_dir()}; set FSVIZ_DATASETS to the skfeature folder")
        return 0
    load_avg = "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    clock = "CPU seconds, one thread each" if a.cpu else "wall seconds"
    print(
        f"load average {load_avg}; {clock}; ratio = peer seconds / fsviz seconds; overlap = |top-k both| / k"
    )
    widths = [12, 12, 4, 10, 10, 10, 8, 6]
    print(" ".join(h.ljust(w) for h, w in zip(HEADER, widths, strict=False)) + " note")
    cache: dict = {}
    rows = []
    for name, mod in modules(a.modules):
        for case in mod.cases():
            if (a.methods and case["method"] not in a.methods) or (
                a.datasets and case["dataset"] not in a.datasets
            ):
                continue
            if not (data_dir() / f"{case['dataset']}.mat").is_file():
                print(f"[{name}] {case['method']}: dataset {case['dataset']!r} not found, skipped")
                continue
            r = run_case(case, cache, a.repeat, a.cheap)
            rows.append(r)
            cells = fmt_row(r)
            print(
                " ".join(c.ljust(w) for c, w in zip(cells, widths, strict=False)) + " " + cells[-1],
                flush=True,
            )
    load_avg = "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    print(f"load average at the end {load_avg}")
    if a.markdown:
        Path(a.markdown).write_text(markdown(rows, load_avg))
        print(f"wrote {a.markdown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
