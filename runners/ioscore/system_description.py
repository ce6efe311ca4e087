"""The structured system description (LEADERBOARD-RULES §4): one schema for CLI and service.

`ioscore sysinfo` writes documents of this schema, `ioscore upload --system` sends them, and
the service validates them with the same file, so a submitter sees locally what the server
will say. The schema lives in `ioscore/schemas/ioscore-system-1.schema.json`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from ioscore.results.quantities import DATA_ROLES, METADATA_ROLES, to_base

__all__ = [
    "DATA_ROLES",
    "METADATA_ROLES",
    "SCHEMA_VERSION",
    "Problem",
    "merge",
    "schema",
    "to_base",
    "validate",
]

SCHEMA_VERSION = "ioscore-system/1"
SCHEMA_PATH = Path(__file__).resolve().parent / "schemas" / "ioscore-system-1.schema.json"
EXAMPLE_PATH = SCHEMA_PATH.with_name("ioscore-system-1.example.json")


@dataclass
class Problem:
    path: str  # JSON path of the offending key, e.g. "run.client_nodes"
    message: str

    def __str__(self) -> str:
        return f"{self.path or '(top level)'}: {self.message}"


@cache
def schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return loaded


def validate(data: Any) -> list[Problem]:
    """Every schema violation, each naming the key path."""
    validator = jsonschema.Draft202012Validator(schema())
    problems = []
    for error in sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.path))):
        path = ".".join(str(part) for part in error.absolute_path)
        problems.append(Problem(path, error.message))
    return problems


def merge(base: Any, detected: Any) -> Any:
    """Deep merge: what the site admin wrote (``base``) wins; detection fills the gaps.

    Lists of node groups merge item by item, so a base listing one client node group gets the
    detected OS and processor facts it leaves out.
    """
    if isinstance(base, dict) and isinstance(detected, dict):
        merged = dict(detected)
        for key, value in base.items():
            merged[key] = merge(value, detected[key]) if key in detected else value
        return merged
    if isinstance(base, list) and isinstance(detected, list):
        tail = base[len(detected) :] if len(base) > len(detected) else []
        return [merge(b, d) for b, d in zip(base, detected, strict=False)] + tail
    return base
