"""What the sections of ``benchmarks/reproduce.py`` share: where the data sets are, loading one,
timing a call, and fsviz's optional baselines."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np
from scipy.io import loadmat

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

DATA = Path(
    os.environ.get(
        "FSVIZ_DATASETS", Path(__file__).resolve().parents[2] / "shared" / "datasets" / "skfeature"
    )
)


_TINY = np.finfo(np.float64).tiny


def load(name):
    d = loadmat(DATA / f"{name}.mat")
    return np.asarray(d["X"], dtype=np.float64), np.asarray(d["Y"]).ravel()


def _timed(fn):
    t0 = time.perf_counter()
    r = fn()
    return r, time.perf_counter() - t0


def _optional(name):
    """The fsviz selector class called ``name``, or None when fsviz does not have it yet."""
    import fsviz.select

    return getattr(fsviz.select, name) if hasattr(fsviz.select, name) else None
