"""The house's rooms depend one way: every webapp app and every ``ioscore`` subpackage is a
room with declared allowed imports, and no room imports one above it.

An AST walk over the source (import-linter style, without the dependency): each module is
mapped to its room, each import to the room it names, and an import not in the room's
declared list is a violation. A room not declared here fails the test, so a new app or
subpackage has to say where it stands. No app module imports another app inside a function
(the old way of hiding a cycle from Python's import system); the project's wiring (settings,
URLs, Celery start-up, error views) may, as Django requires. The reverse direction goes
through signals: ``submissions.signals.validation_requested`` and ``lists_changed``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
WEBAPP = REPO / "webapp"
LIBRARY = REPO / "runners" / "ioscore"

# The library: what each part of ``ioscore`` may import (besides itself). The CLI's commands
# sit on top; nothing below them imports a command.
LIBRARY_ROOMS: dict[str, set[str]] = {
    "ioscore": set(),  # the package itself: its version
    "ioscore.results": set(),
    "ioscore.schemas": set(),
    "ioscore.fslayout": {"ioscore.results"},
    "ioscore.system_description": {"ioscore.results"},
    "ioscore.machine": set(),
    "ioscore.launchers": {"ioscore.machine"},
    "ioscore.testbed": {"ioscore", "ioscore.results"},
    "ioscore.acceptance": {"ioscore", "ioscore.results", "ioscore.fslayout"},
    "ioscore.report": {"ioscore", "ioscore.results", "ioscore.acceptance"},
    "ioscore.commands": {
        "ioscore",
        "ioscore.results",
        "ioscore.schemas",
        "ioscore.fslayout",
        "ioscore.system_description",
        "ioscore.machine",
        "ioscore.launchers",
        "ioscore.testbed",
        "ioscore.acceptance",
        "ioscore.report",
    },
    "ioscore.cli": {"ioscore", "ioscore.commands"},
}

# What the service may use of the library: its parts, never the CLI's commands or report.
SERVICE_LIBRARY = {
    "ioscore.results",
    "ioscore.system_description",
    "ioscore.acceptance",
    "ioscore.fslayout",
}

# The service, lowest room first. ``rankings.models`` is the rankings app's tables, read by
# list maintenance and by the public pages alike; ``project`` is the wiring that names every
# app (settings, URLs, Celery, error views); ``ioscore_site`` the shared web utilities.
SERVICE_ROOMS: dict[str, set[str]] = {
    "ioscore_site": {"ioscore.results"},
    "accounts": {"ioscore_site"},
    "portal": {"ioscore_site", "accounts", "ioscore.results"},
    "submissions": {"ioscore_site", "accounts", "portal", *SERVICE_LIBRARY},
    "validation": {"ioscore_site", "submissions", *SERVICE_LIBRARY},
    "rankings.models": {"submissions", *SERVICE_LIBRARY},
    "rankings.maintenance": {
        "ioscore_site",
        "accounts",
        "submissions",
        "rankings.models",
        *SERVICE_LIBRARY,
    },
    "rankings": {
        "ioscore_site",
        "accounts",
        "portal",
        "submissions",
        "rankings.models",
        "rankings.maintenance",
        *SERVICE_LIBRARY,
    },
    "io500archive": {
        "accounts",
        "submissions",
        "rankings.models",
        "rankings.maintenance",
        *SERVICE_LIBRARY,
    },
    "acceptance": {
        "ioscore_site",
        "accounts",
        "portal",
        "submissions",
        "rankings",
        "rankings.models",
        *SERVICE_LIBRARY,
    },
    "portal_manage": {
        "ioscore_site",
        "accounts",
        "portal",
        "submissions",
        "rankings.models",
        "rankings.maintenance",
        *SERVICE_LIBRARY,
    },
    "project": {
        "ioscore_site",
        "accounts",
        "portal",
        "submissions",
        "validation",
        "rankings",
        "rankings.models",
        "rankings.maintenance",
        "io500archive",
        "acceptance",
        "portal_manage",
        *SERVICE_LIBRARY,
    },
}

PROJECT_MODULES = {"settings", "urls", "celery", "wsgi"}
RANKINGS_MODELS = {"models", "phases"}
# List maintenance outside its package: the Celery tasks (Celery finds them as
# ``rankings.tasks``), the app config connecting them, the maintenance commands.
RANKINGS_MAINTENANCE = {"maintenance", "tasks", "apps", "management"}


def _imports(
    tree: ast.AST, package: str = "", names: bool = False
) -> Iterator[tuple[str, bool, int]]:
    """(module named, inside a function?, line) for every import in ``tree``; a relative
    import is resolved against ``package``; with ``names``, ``from M import a`` gives ``M.a``
    (``a`` may be a module: ``from ioscore import system_description``)."""

    def walk(node: ast.AST, in_function: bool) -> Iterator[tuple[str, bool, int]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield alias.name, in_function, child.lineno
            elif isinstance(child, ast.ImportFrom):
                if child.level == 0 and child.module and names:
                    for alias in child.names:
                        yield f"{child.module}.{alias.name}", in_function, child.lineno
                elif child.level == 0 and child.module:
                    yield child.module, in_function, child.lineno
                elif child.level and package:
                    parts = package.split(".")
                    base = ".".join(parts[: len(parts) - (child.level - 1)])
                    if child.module and names:
                        for alias in child.names:
                            yield f"{base}.{child.module}.{alias.name}", in_function, child.lineno
                    elif child.module:
                        yield f"{base}.{child.module}", in_function, child.lineno
                    else:
                        for alias in child.names:
                            yield f"{base}.{alias.name}", in_function, child.lineno
            nested = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            yield from walk(child, nested)

    yield from walk(tree, False)


def service_room(module: str) -> str | None:
    """The room of a dotted module name, or None for a module outside the house."""
    parts = module.split(".")
    top = parts[0]
    if top == "ioscore":
        return library_room(module)
    if top == "ioscore_site":
        return "project" if len(parts) > 1 and parts[1] in PROJECT_MODULES else top
    if top == "rankings" and len(parts) > 1:
        if parts[1] in RANKINGS_MODELS:
            return "rankings.models"
        if parts[1] in RANKINGS_MAINTENANCE:
            return "rankings.maintenance"
    return top if top in SERVICE_ROOMS else None


def library_room(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "ioscore":
        return None
    room = f"ioscore.{parts[1]}" if len(parts) > 1 else "ioscore"
    return room if room in LIBRARY_ROOMS else "ioscore"  # e.g. ``ioscore.__version__``


def _module_name(root: Path, path: Path) -> tuple[str, str]:
    """(dotted module name, its package) of a source file under ``root``."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
        return ".".join(parts), ".".join(parts)
    return ".".join(parts), ".".join(parts[:-1])


def _sources(root: Path) -> list[Path]:
    return [
        path
        for path in sorted(root.rglob("*.py"))
        if "migrations" not in path.parts and path.name != "manage.py"
    ]


def _violations(
    root: Path, rooms: dict[str, set[str]], room_of: Any, local_ok: set[str]
) -> list[str]:
    problems = []
    for path in _sources(root):
        module, package = _module_name(root, path)
        # The project package's own __init__ starts Celery: it is wiring, not a utility.
        room = "project" if module == "ioscore_site" else room_of(module)
        if room is None:
            problems.append(f"{path.relative_to(root.parent)} is in no declared room")
            continue
        for named, in_function, line in _imports(
            ast.parse(path.read_text("utf-8")), package, names=True
        ):
            target = room_of(named)
            if target is None or target == room:
                continue
            where = f"{path.relative_to(root.parent)}:{line} imports {named}"
            if target not in rooms[room]:
                problems.append(f"{where} ({room} may not import {target})")
            elif in_function and room not in local_ok:
                problems.append(f"{where} inside a function (import it at module level)")
    return problems


def test_every_app_and_subpackage_is_a_declared_room() -> None:
    apps = {p.parent.name for p in WEBAPP.glob("*/__init__.py")}
    assert apps - {"ioscore_site"} <= set(SERVICE_ROOMS), apps - set(SERVICE_ROOMS)
    parts = {p.parent.name for p in LIBRARY.glob("*/__init__.py")}
    parts |= {p.stem for p in LIBRARY.glob("*.py") if p.stem != "__init__"}
    assert {f"ioscore.{name}" for name in parts} <= set(LIBRARY_ROOMS)


def test_no_room_imports_one_above_it() -> None:
    # Every declared edge points down: the rooms, ordered as declared, form no cycle.
    for rooms in (SERVICE_ROOMS, LIBRARY_ROOMS):
        order = list(rooms)
        for room, allowed in rooms.items():
            above = {other for other in allowed if other in rooms}
            assert all(order.index(other) < order.index(room) for other in above), room


def test_the_service_follows_the_declared_rooms() -> None:
    assert _violations(WEBAPP, SERVICE_ROOMS, service_room, {"project"}) == []


def test_the_library_follows_the_declared_rooms() -> None:
    # The library may import lazily (plotly only for charts, acceptance only for its uploads);
    # the direction is what counts.
    assert _violations(LIBRARY.parent, LIBRARY_ROOMS, library_room, set(LIBRARY_ROOMS)) == []


def test_the_walk_sees_function_local_imports() -> None:
    # The checker itself must be able to fail: a function-local import is found and flagged.
    source = "import os\ndef f():\n    from validation.tasks import x\n"
    assert list(_imports(ast.parse(source))) == [("os", False, 1), ("validation.tasks", True, 3)]


def test_the_walk_flags_a_back_edge(tmp_path: Path) -> None:
    # A lower room importing a higher one is reported, relative imports resolved too.
    app = tmp_path / "submissions"
    app.mkdir()
    (app / "__init__.py").write_text("")
    (app / "x.py").write_text("from rankings.views import home\nfrom .models import Y\n")
    found = _violations(tmp_path, SERVICE_ROOMS, service_room, set())
    assert len(found) == 1 and "submissions may not import rankings" in found[0]


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
