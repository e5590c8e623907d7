"""The first click on a fresh install: how long a visitor's first GDM, histogram and GRM take
while the app's warm-up compiles the numba kernels (issue 45, part 3).

Run each scenario in a fresh process on an empty numba cache:

    NUMBA_CACHE_DIR=$(mktemp -d) python benchmarks/bench_first_visit.py --warm-up process
    NUMBA_CACHE_DIR=$(mktemp -d) python benchmarks/bench_first_visit.py --warm-up thread --old FILE
    NUMBA_CACHE_DIR=$(mktemp -d) python benchmarks/bench_first_visit.py --warm-up none

The server starts (t = 0) with its warm-up: ``process`` is the app's (``appkit.warmup.WarmUp``:
``python -m fsviz.compute.warm --app`` beside the server, runs wait for their kernels),
``thread`` a previous ``appkit/warmup.py`` given as FILE (its in-process thread), ``none`` no
warm-up. A visitor opens the default sample, reads the page for ``--delay`` seconds, then runs
the Data page's leakage check, GDM, the histogram and GRM (Fisher base) in a row, as the app
does (appkit's job threads). Each time is printed with the load average.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warm-up", choices=["process", "thread", "none"], default="process")
    ap.add_argument("--old", help="a previous appkit/warmup.py (for --warm-up thread)")
    ap.add_argument("--delay", type=float, default=15.0, help="seconds before the first click")
    a = ap.parse_args()
    if not os.environ.get("NUMBA_CACHE_DIR"):
        sys.exit("set NUMBA_CACHE_DIR to an empty folder: the first visit of a fresh install")
    t0 = time.monotonic()
    wait_for = None
    if a.warm_up == "process":
        from fsviz_app.appkit.warmup import WarmUp

        w = WarmUp()
        wait_for = w.wait_for
    elif a.warm_up == "thread":
        spec = importlib.util.spec_from_file_location("old_warmup", a.old)
        old = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(old)
        import threading

        threading.Thread(target=old._work, daemon=True).start()
    from fsviz.compute import Run
    from fsviz.compute.warm import visit_key
    from fsviz.data import list_samples, load_sample

    names = list(list_samples())
    name = next((n for n in names if "digit" in n.lower()), names[0])
    ds = load_sample(name)
    time.sleep(max(0.0, a.delay - (time.monotonic() - t0)))
    print(f"warm-up {a.warm_up}; dataset {name} {ds.X.shape}; first click at {time.monotonic() - t0:.0f} s")
    for label, run in (
        ("leakage", Run("leakage", {})),
        ("GDM", Run("gdm", {})),
        ("histogram", Run("histogram", {})),
        ("GRM", Run("grm", {"base": Run("fisher", {})})),
    ):
        t = time.monotonic()
        waited = wait_for(visit_key(run.method, dict(run.params))) if wait_for else 0.0
        run.execute(ds)
        dt = time.monotonic() - t
        print(
            f"  first {label}: {dt:6.1f} s (of which waiting for the warm-up {waited:5.1f} s), "
            f"load {os.getloadavg()[0]:.1f}",
            flush=True,
        )
    print(f"visit done at {time.monotonic() - t0:.0f} s")
    if a.warm_up == "process":
        print("  the warm-up process: " + "; ".join(f"{line} at {t:.0f} s" for t, line in w.events))
        w.proc.terminate()  # the rest of the record would compete with the next scenario


if __name__ == "__main__":
    main()
