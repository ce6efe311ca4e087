"""The one place the service reaches into the shared results library ``ioscore.results``.

The library's public API is ``find_runs``, ``load_run``, ``recompute_scores``, ``check`` and
``CheckContext`` at package level. While the package ``__init__`` does not yet re-export a
name, it is taken from the library module that defines it — always the real library code,
never a copy of a rule.
"""

from __future__ import annotations

import importlib
from typing import Any

_DEFINING_MODULES = ("loader", "scoring", "rules", "jobfiles", "checks", "check")


def library_function(name: str) -> Any:
    package = importlib.import_module("ioscore.results")
    found = getattr(package, name, None)
    if found is not None:
        return found
    for module_name in _DEFINING_MODULES:
        try:
            module = importlib.import_module(f"ioscore.results.{module_name}")
        except ModuleNotFoundError:
            continue
        found = getattr(module, name, None)
        if found is not None:
            return found
    raise ImportError(f"ioscore.results has no {name!r} yet (results library not installed?)")


def find_runs(path: Any) -> Any:
    return library_function("find_runs")(path)


def load_run(run_dir: Any) -> Any:
    return library_function("load_run")(run_dir)


def recompute_scores(run: Any) -> Any:
    return library_function("recompute_scores")(run)


def result_format_error() -> type[Exception]:
    from ioscore.results.errors import ResultFormatError

    return ResultFormatError


def storable_text(text: str) -> str:
    """Valid UTF-8 without NUL (the library's rule for every string it reports)."""
    from ioscore.results.limits import storable_text as convert

    return convert(text)
