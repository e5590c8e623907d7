"""Lazy re-exports: a package lists its public names once, modules load on first use."""

from __future__ import annotations

import importlib
from collections.abc import Callable


def lazy_exports(
    package: str, table: dict[str, str]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """Return ``(__getattr__, __dir__)`` for a package re-exporting ``name -> .module``."""

    def __getattr__(name: str) -> object:
        try:
            module = table[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        value = getattr(importlib.import_module(module, package), name)
        return value

    def __dir__() -> list[str]:
        return sorted(table)

    return __getattr__, __dir__
