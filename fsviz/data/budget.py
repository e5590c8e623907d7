"""A memory budget checked before allocating, from the sizes a file declares.

A 27-byte LIBSVM file can name feature 10^9 and a 1 KB .npz can declare a 10 x 10^10
sparse matrix or hold 4 GiB of compressed zeros: what a file *declares* decides how
much memory reading it takes, not its size on disk. The loaders read those declared
sizes first (LIBSVM indices and headers, .npy headers inside .npz archives, sparse
shapes, MATLAB variable shapes, Parquet metadata, CSV column and row counts),
estimate the bytes the loaded :class:`~fsviz.data.Dataset` takes with
:func:`dense_bytes` / :func:`sparse_bytes`, and call :func:`check_memory`, which
raises :class:`MemoryBudgetError` (a ``ValueError``) naming the size, the budget and
the fix, before anything large is allocated.

The budget is, in this order: the ``memory_budget=`` argument (bytes, or a string
such as ``"2G"``), the ``FSVIZ_MEMORY_BUDGET`` environment variable, else
:func:`default_memory_budget`: one eighth of the RAM available when it is called
(at least 256 MiB), leaving room for the analyses, which need several times the
data. ``memory_budget=0`` (or ``"none"``) switches the check off.
"""

from __future__ import annotations

import os
import re

__all__ = [
    "BUDGET_ENV",
    "PER_FEATURE_BYTES",
    "MemoryBudgetError",
    "check_memory",
    "default_memory_budget",
    "dense_bytes",
    "format_bytes",
    "out_of_memory",
    "parse_size",
    "resolve_budget",
    "sparse_bytes",
]

#: environment variable holding the default budget (e.g. ``4G``, ``512M``, ``0`` = no limit)
BUDGET_ENV = "FSVIZ_MEMORY_BUDGET"
#: bytes every feature costs whatever its values: its name (a default name takes 16, a
#: Python str about 70), constant-feature flags, scores, ranks and the per-feature work arrays
PER_FEATURE_BYTES = 128
_MIN_DEFAULT = 256 << 20
_FRACTION = 8
_UNITS = {"": 1, "b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


class MemoryBudgetError(ValueError):
    """Data that would not fit the memory budget (or did not fit in memory).

    A ``ValueError``, so every ``except ValueError`` handles it; its message names the
    size, the budget and the fix. ``needed`` and ``budget`` are in bytes (``needed``
    is 0 and ``budget`` None when the process actually ran out of memory).
    """

    def __init__(self, message: str, needed: int = 0, budget: int | None = None):
        super().__init__(message)
        self.needed = int(needed)
        self.budget = budget


def format_bytes(n: float) -> str:
    """``'1.5 GiB'``: a byte count for messages."""
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(n) < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} EiB"  # pragma: no cover - unreachable


def parse_size(value) -> int:
    """Bytes from an int or a string such as ``'512M'``, ``'2 GiB'``, ``'1.5g'``, ``'0'``/``'none'`` (0).

    >>> parse_size("512M"), parse_size("2GiB"), parse_size(1000), parse_size("none")
    (536870912, 2147483648, 1000, 0)
    """
    if isinstance(value, bool):
        raise ValueError(f"memory budget must be a number of bytes or a size such as '2G'; got {value!r}.")
    if isinstance(value, (int, float)):
        if value < 0 or value != value:
            raise ValueError(f"memory budget must be >= 0 bytes; got {value!r}.")
        return int(value)
    text = str(value).strip().lower().replace("_", "")
    if text in ("none", "off", "unlimited", "inf"):
        return 0
    m = re.fullmatch(r"([0-9]*\.?[0-9]+(?:e[0-9]+)?)\s*([kmgt]?)(?:i?b)?", text)
    if not m:
        raise ValueError(
            f"memory budget {value!r} is not a size; write bytes or a size such as '512M', '4G', "
            "or 'none' for no limit."
        )
    return int(float(m.group(1)) * _UNITS[m.group(2)])


def _available_ram() -> int | None:
    try:
        import psutil

        return int(psutil.virtual_memory().available)
    except Exception:  # noqa: BLE001 - psutil missing or unsupported platform
        pass
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def default_memory_budget() -> int:
    """Bytes a loaded dataset may take by default: ``FSVIZ_MEMORY_BUDGET``, else 1/8 of the available RAM.

    At least 256 MiB; 0 means no limit. (2 GiB when the available RAM cannot be read.)
    """
    env = os.environ.get(BUDGET_ENV)
    if env:
        return parse_size(env)
    avail = _available_ram()
    if avail is None:
        return 2 << 30
    return max(_MIN_DEFAULT, avail // _FRACTION)


def resolve_budget(memory_budget=None) -> int:
    """The budget in bytes: ``memory_budget`` (int bytes or size string), else the default; 0 = none."""
    if memory_budget is None:
        return default_memory_budget()
    return parse_size(memory_budget)


def dense_bytes(n_samples: int, n_features: int, itemsize: int = 8) -> int:
    """Bytes of a dense ``n_samples x n_features`` matrix plus the per-feature overhead."""
    return int(n_samples) * int(n_features) * int(itemsize) + PER_FEATURE_BYTES * int(n_features)


def sparse_bytes(n_samples: int, n_features: int, nnz: int) -> int:
    """Bytes of a CSR/CSC matrix (float64 values, int32/int64 indices) plus the per-feature overhead."""
    return 16 * int(nnz) + 8 * (int(n_samples) + 1) + PER_FEATURE_BYTES * int(n_features)


def check_memory(needed: int, what: str, memory_budget=None, *, who: str = "fsviz") -> None:
    """Raise :class:`MemoryBudgetError` when ``needed`` bytes exceed the budget (0 = no limit).

    ``what`` describes the data (``"a dense 2 x 1000000 matrix"``); the message names
    it, the size, the budget and the fix.
    """
    budget = resolve_budget(memory_budget)
    if budget and needed > budget:
        raise MemoryBudgetError(
            f"{who}: {what} would take about {format_bytes(needed)}, over the memory budget of "
            f"{format_bytes(budget)}. Fix: use a smaller file (fewer samples or features; store "
            f"sparse data sparse), or raise the budget (memory_budget= / --memory-budget / "
            f"{BUDGET_ENV}) if the machine has the memory.",
            needed=needed,
            budget=budget,
        )


def out_of_memory(who: str, exc: BaseException | None = None) -> MemoryBudgetError:
    """The :class:`MemoryBudgetError` to raise in place of a bare ``MemoryError``."""
    detail = str(exc).strip() if exc is not None else ""
    detail = f" ({detail[:200]})" if detail else ""
    return MemoryBudgetError(
        f"{who}: ran out of memory{detail}. Fix: use a smaller dataset (fewer samples or features), "
        "close other programs, or lower the memory budget so that oversized data are refused up front."
    )
