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

SCHEMA_VERSION = "ioscore-system/1"
SCHEMA_PATH = Path(__file__).resolve().parent / "schemas" / "ioscore-system-1.schema.json"
EXAMPLE_PATH = SCHEMA_PATH.with_name("ioscore-system-1.example.json")


_DECIMAL = {"K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18}
_BINARY = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40, "P": 2**50, "E": 2**60}
_HZ = {"Hz": 1, "kHz": 10**3, "MHz": 10**6, "GHz": 10**9}
METADATA_ROLES = {"MDS", "metadata"}
DATA_ROLES = {"OSS", "storage", "data", "NSD", "OSD", "server"}


def to_base(quantity: dict[str, Any] | None) -> float | None:
    """{value, unit} -> bytes, bytes/s or Hz (bit rates are converted to bytes/s)."""
    if not quantity:
        return None
    value = float(quantity["value"])
    unit: str = quantity["unit"]
    if unit in _HZ:
        return value * _HZ[unit]
    bits = "bit" in unit
    stem = unit.split("/")[0].replace("bit", "").replace("B", "")
    if stem.endswith("i"):
        factor = _BINARY[stem[0].upper()]
    elif stem:
        factor = _DECIMAL[stem[0].upper()]
    else:
        factor = 1
    return value * factor / (8 if bits else 1)


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
