"""Warm the server up: the first run of each kernel in a process loads (or compiles) its numba
code, seconds that would otherwise land on the first person to open a page.

Once per server process, a background thread runs the pages' default computations on a small
generated dataset: GDM (two classes, several classes, one-class; in memory and memory-mapped),
the correlation histogram, the base scores and GRM, the leakage check.
It starts with the first session, at low priority (it yields the GIL between runs), and its
results are thrown away. ``FSVIZ_WARMUP=0`` turns it off (the test suite does, for AppTest).
"""

from __future__ import annotations

import os
import threading

import streamlit as st

#: environment variable: "0" turns the warm-up off
WARMUP_ENV = "FSVIZ_WARMUP"


def _runs():
    """The computations a first visitor meets (the Data page's leakage check, the Groups page,
    the correlation histogram, the GRM page's default bases); CV reuses their kernels."""
    from fsviz.compute import Run

    yield Run("leakage", {})
    yield Run("gdm", {})
    yield Run("gdm", {"one_class": True})
    yield Run("histogram", {})  # the page's starting form: the declared defaults
    for base in ("fisher", "lgd"):
        yield Run("grm", {"base": Run(base, {})})


def _work() -> None:
    import tempfile
    import time

    import numpy as np

    from fsviz.data import Dataset, load_dataset

    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 400))
    X[:, 1] = X[:, 0] + 0.05 * rng.standard_normal(60)
    y2 = (X[:, 0] > 0).astype(np.int64)
    y3 = np.digitize(X[:, 2], [-0.5, 0.5])
    sets = [Dataset(X, y=y2, name="warm-up"), Dataset(X, y=y3, name="warm-up 3")]
    with tempfile.TemporaryDirectory() as tmp:  # a memory-mapped file: GDM's column source
        np.save(os.path.join(tmp, "w.npy"), X.astype(np.float32))
        np.save(os.path.join(tmp, "w.y.npy"), y2)
        sets.append(load_dataset(os.path.join(tmp, "w.npy"), memory_budget=1))
        for ds in sets:
            for run in _runs():
                if ds.meta.get("format") == "npy-mmap" and run.method != "gdm":
                    continue
                try:
                    run.execute(ds)
                except Exception:  # noqa: BLE001 - a warm-up failure is the page's to show later
                    pass
                time.sleep(0.01)  # let the sessions' threads in


@st.cache_resource(show_spinner=False)
def warm_up() -> threading.Thread | None:
    """Start the warm-up thread (once per server process); None when switched off."""
    if os.environ.get(WARMUP_ENV, "1").strip() == "0":
        return None
    t = threading.Thread(target=_work, name="fsviz-warm-up", daemon=True)
    t.start()
    return t
