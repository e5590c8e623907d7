"""Shared fixtures: real benchmark data (FSVIZ_DATASETS) and the browser for end-to-end tests."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def datasets_dir() -> Path:
    """Where the scikit-feature .mat files live (FSVIZ_DATASETS, default ../shared/datasets/skfeature)."""
    return Path(os.environ.get("FSVIZ_DATASETS", ROOT.parent / "shared" / "datasets" / "skfeature"))


def require(condition: bool, reason: str) -> None:
    """Skip when ``condition`` is false, except under CI=true where it is a failure."""
    if not condition:
        if IN_CI:
            pytest.fail(f"{reason} (a failure under CI=true, not a skip)")
        pytest.skip(reason)


@pytest.fixture
def skfeature_path():
    """Factory: ``skfeature_path("COIL20")`` -> Path of COIL20.mat, or skip/fail if absent."""

    def _path(name: str) -> Path:
        p = datasets_dir() / (name if name.endswith(".mat") else f"{name}.mat")
        require(p.is_file(), f"benchmark dataset {p} not found; set FSVIZ_DATASETS to the skfeature folder")
        return p

    return _path


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.fixture(scope="session")
def chromium_path() -> str:
    p = "/usr/bin/chromium"
    require(Path(p).exists(), "Debian's chromium is not installed (apt-get install -y chromium)")
    return p
