"""The webapp's apps depend one way: validation and rankings build on submissions, never the
reverse.

An AST walk over the source (import-linter style, without the dependency): every import in
``submissions`` that names ``validation`` or ``rankings`` is a violation, and no module of
these apps imports another of them inside a function (the old way of hiding a cycle from
Python's import system). The reverse direction goes through
``submissions.signals.validation_requested``; the IO500 import command (a rankings command)
hands the list writer to ``submissions.importer``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

WEBAPP = Path(__file__).resolve().parents[2] / "webapp"
APPS = ("submissions", "validation", "rankings")


def _imports(tree: ast.AST) -> Iterator[tuple[str, bool, int]]:
    """(module named, inside a function?, line) for every import in ``tree``."""

    def walk(node: ast.AST, in_function: bool) -> Iterator[tuple[str, bool, int]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield alias.name, in_function, child.lineno
            elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
                yield child.module, in_function, child.lineno
            nested = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            yield from walk(child, nested)

    yield from walk(tree, False)


def _modules(app: str) -> list[Path]:
    files = sorted((WEBAPP / app).rglob("*.py"))
    assert files, f"no sources under {WEBAPP / app}"
    return [path for path in files if "migrations" not in path.parts]


def _top(module: str) -> str:
    return module.split(".", 1)[0]


@pytest.mark.parametrize("app", APPS)
def test_imports_follow_the_dependency_direction(app: str) -> None:
    forbidden = {"submissions": {"validation", "rankings"}, "validation": set(), "rankings": set()}
    others = set(APPS) - {app}
    problems = []
    for path in _modules(app):
        for module, in_function, line in _imports(ast.parse(path.read_text("utf-8"))):
            where = f"{path.relative_to(WEBAPP)}:{line} imports {module}"
            if _top(module) in forbidden[app]:
                problems.append(f"{where} (submissions must not depend on {_top(module)})")
            elif _top(module) in others and in_function:
                problems.append(f"{where} inside a function (import it at module level)")
    assert problems == []


def test_the_walk_sees_function_local_imports() -> None:
    # The checker itself must be able to fail: a function-local import is found and flagged.
    source = "import os\ndef f():\n    from validation.tasks import x\n"
    assert list(_imports(ast.parse(source))) == [("os", False, 1), ("validation.tasks", True, 3)]


@pytest.mark.django_db
def test_validation_is_requested_through_the_signal_after_commit(
    monkeypatch: pytest.MonkeyPatch, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from submissions.signals import request_validation
    from validation.tasks import validate_submission

    sent: list[tuple[Any, str]] = []
    monkeypatch.setattr(
        validate_submission, "apply_async", lambda args, queue, **_: sent.append((args, queue))
    )
    settings.IOSCORE_VALIDATION_QUEUE = "queue-of-this-test"
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        request_validation(4711)
    assert sent == []  # nothing leaves before the transaction commits
    for callback in callbacks:
        callback()
    assert sent == [((4711,), "queue-of-this-test")]


def test_the_service_uses_the_librarys_public_api_only() -> None:
    """``from ioscore.results import NAME`` with NAME in ``__all__``: never a private module,
    so the library may reorganise its modules without breaking the service."""
    import ioscore.results

    public = set(ioscore.results.__all__)
    problems = []
    for path in sorted(WEBAPP.rglob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            where = f"{path.relative_to(WEBAPP)}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "ioscore.results"
            ):
                if node.module != "ioscore.results":
                    problems.append(f"{where} imports the private module {node.module}")
                problems += [
                    f"{where} imports {alias.name}, not in ioscore.results.__all__"
                    for alias in node.names
                    if alias.name not in public
                ]
            elif isinstance(node, ast.Import):
                problems += [
                    f"{where} imports {alias.name}"
                    for alias in node.names
                    if alias.name.startswith("ioscore.results.")
                ]
    assert problems == []
