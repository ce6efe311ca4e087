"""Acceptance targets: "write >= 700 GB/s", "creates >= 6,800/s", parsed strictly.

A target names an operation of an IOR or mdtest run, ">=" (or "≥"), a number (digits, an
optional decimal part, thousands separated by commas) and a unit. Units are case-sensitive and
exactly one of ``UNITS``: decimal (GB/s = 10^9 B/s) and binary (GiB/s = 2^30 B/s) bandwidth,
or operation rates (ops/s, /s, IOPS, kIOPS). A bandwidth target applies only to IOR
operations; a rate target to mdtest operations, or to IOR operations as transfers per second.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_TARGET_CHARS = 200

# unit -> (quantity, factor to the canonical unit: B/s for bandwidth, ops/s for rate)
UNITS: dict[str, tuple[str, float]] = {
    "TB/s": ("bandwidth", 1e12),
    "GB/s": ("bandwidth", 1e9),
    "MB/s": ("bandwidth", 1e6),
    "TiB/s": ("bandwidth", float(1 << 40)),
    "GiB/s": ("bandwidth", float(1 << 30)),
    "MiB/s": ("bandwidth", float(1 << 20)),
    "kIOPS": ("rate", 1e3),
    "IOPS": ("rate", 1.0),
    "ops/s": ("rate", 1.0),
    "/s": ("rate", 1.0),
}
BANDWIDTH, RATE = "bandwidth", "rate"

IOR_OPERATIONS = ("write", "read", "readback", "reread")
MDTEST_OBJECTS = ("tree", "dir", "file")
MDTEST_ACTIONS = ("write", "stat", "read", "rename", "delete")
MDTEST_OPERATIONS = tuple(f"{o}-{a}" for o in MDTEST_OBJECTS for a in MDTEST_ACTIONS)

# Words plans use for mdtest operations -> the operation key ("file-write" = file creation).
ALIASES = {
    "creates": "file-write",
    "creations": "file-write",
    "stats": "file-stat",
    "removals": "file-delete",
    "unlinks": "file-delete",
    "deletes": "file-delete",
}
for _obj, _word in (("file", "file"), ("dir", "dir"), ("tree", "tree")):
    ALIASES.update(
        {
            f"{_word}-creates": f"{_obj}-write",
            f"{_word}-creation": f"{_obj}-write",
            f"{_word}-stats": f"{_obj}-stat",
            f"{_word}-reads": f"{_obj}-read",
            f"{_word}-renames": f"{_obj}-rename",
            f"{_word}-removals": f"{_obj}-delete",
            f"{_word}-removal": f"{_obj}-delete",
            f"{_word}-unlinks": f"{_obj}-delete",
            f"{_word}-deletes": f"{_obj}-delete",
        }
    )
OPERATION_NAMES = (*IOR_OPERATIONS, *MDTEST_OPERATIONS, *sorted(ALIASES))

# Linear-time patterns (no nested or overlapping repetition) on input of bounded length.
_NUMBER = re.compile(r"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?")
_SPLIT = re.compile(r"^([A-Za-z][A-Za-z-]*)\s*(>=|≥)\s*([0-9][0-9,.]*)\s+(\S+)$")


class TargetError(ValueError):
    """A target that cannot be understood; the message quotes it and says what was expected."""


@dataclass(frozen=True)
class Target:
    text: str  # as written in the plan
    operation: str  # canonical key: "write", "read", "file-write", ...
    threshold: float  # in `unit`
    unit: str  # one of UNITS

    @property
    def quantity(self) -> str:
        return UNITS[self.unit][0]

    @property
    def threshold_canonical(self) -> float:
        """The threshold in B/s (bandwidth) or ops/s (rate)."""
        return self.threshold * UNITS[self.unit][1]

    def to_dict(self) -> dict[str, object]:
        return {
            "text": self.text,
            "operation": self.operation,
            "threshold": self.threshold,
            "unit": self.unit,
            "quantity": self.quantity,
        }


def operation_key(name: str) -> str:
    """A plan's operation word -> the operation key; TargetError names the accepted words."""
    word = name.strip().lower()
    key = ALIASES.get(word, word)
    if key not in IOR_OPERATIONS and key not in MDTEST_OPERATIONS:
        raise TargetError(
            f"unknown operation {name!r}: use one of {', '.join(IOR_OPERATIONS)} (IOR), "
            f"{', '.join(MDTEST_OPERATIONS)} or creates, stats, removals (mdtest)"
        )
    return key


def parse_target(text: str) -> Target:
    """'write >= 700 GB/s' -> Target; TargetError says what is wrong."""
    if not isinstance(text, str):
        raise TargetError(f"a target is a string like 'write >= 700 GB/s', got {text!r}")
    if len(text) > MAX_TARGET_CHARS:
        raise TargetError(f"target longer than {MAX_TARGET_CHARS} characters")
    # The unit may be glued to the number ("6800/s", "700GB/s"): put a space between them.
    spaced = re.sub(r"([0-9])([A-Za-z/])", r"\1 \2", text.strip(), count=1)
    match = _SPLIT.match(spaced)
    if not match:
        raise TargetError(
            f"target {text!r}: expected 'OPERATION >= NUMBER UNIT', e.g. 'write >= 700 GB/s' "
            "or 'creates >= 6,800/s'"
        )
    name, _, number, unit = match.groups()
    operation = operation_key(name)
    if not _NUMBER.fullmatch(number):
        raise TargetError(f"target {text!r}: {number!r} is not a number (e.g. 700, 6,800, 1.5)")
    if unit not in UNITS:
        raise TargetError(
            f"target {text!r}: unknown unit {unit!r}; use one of {', '.join(UNITS)} "
            "(case matters: GB/s is 10^9 B/s, GiB/s 2^30 B/s)"
        )
    threshold = float(number.replace(",", ""))
    if threshold <= 0:
        raise TargetError(f"target {text!r}: the threshold must be above 0")
    if UNITS[unit][0] == BANDWIDTH and operation in MDTEST_OPERATIONS:
        raise TargetError(
            f"target {text!r}: {operation} is an mdtest operation; give a rate (ops/s, kIOPS)"
        )
    return Target(text=text.strip(), operation=operation, threshold=threshold, unit=unit)


def format_quantity(value: float, unit: str) -> str:
    """A canonical value (B/s or ops/s) shown in `unit`: 7.0e11 B/s -> '700 GB/s'."""
    shown = value / UNITS[unit][1]
    text = f"{shown:,.0f}" if abs(shown) >= 1000 else f"{shown:.4g}"
    return f"{text}/s" if unit == "/s" else f"{text} {unit}"
