"""fsviz: feature grouping and selection for high-dimensional data.

The subpackages are imported on first use so that ``import fsviz`` stays cheap
and never pulls in Streamlit (the app lives outside the library).
"""

from __future__ import annotations

import importlib

__version__ = "0.5.0"

__all__ = ["data", "stats", "select", "evaluate", "viz", "compute", "__version__"]


def __getattr__(name: str):
    if name in __all__ and name != "__version__":
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'fsviz' has no attribute {name!r}")
