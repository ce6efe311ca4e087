"""What differed between compared runs: the configuration options, the system description
and the software versions whose values are not the same in every run, one value per run,
and for an option the phases it touches.

An option's phases come from its INI section: a section named after a phase sets that
phase (``[ior-easy-write]``), a section that prefixes phase names sets all of them
(``[ior-easy]``: ``ior-easy-write``, ``ior-easy-read``), ``[global]`` and ``[debug]`` every
phase. Section names are compared without case (BENCHMARK-RULES §4.1).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from submissions.models import Submission

from .charts import DESCRIPTION_FIELDS

EVERY_PHASE_SECTIONS = ("global", "debug")
EVERY_PHASE = "every phase"
# The description fields that are software versions (the rest describe the system).
VERSION_FIELDS = (
    "fs_version",
    "client_os_version",
    "client_kernel",
    "md_software_version",
    "ds_software_version",
)


@dataclass(frozen=True)
class Difference:
    label: str
    values: list[str | None]  # one per compared run, in their order; None: not set
    phases: tuple[str, ...] = ()  # an option's phases; (EVERY_PHASE,) for [global]


def touched_phases(section: str, phases: Iterable[str]) -> tuple[str, ...]:
    """The phases an option of ``section`` sets, among ``phases`` (in their order)."""
    name = section.strip().lower()
    if name in EVERY_PHASE_SECTIONS:
        return (EVERY_PHASE,)
    return tuple(p for p in phases if p.lower() == name or p.lower().startswith(name + "-"))


def _differ(values: Sequence[Any]) -> bool:
    return len({"" if v is None else str(v) for v in values}) > 1


def _text(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)


def option_differences(subs: Sequence[Submission], phases: Sequence[str]) -> list[Difference]:
    """``[section] key`` options whose value is not the same in every run (an option one
    run does not set counts as different)."""
    configs = [s.config if isinstance(s.config, dict) else {} for s in subs]
    options: dict[tuple[str, str], None] = {}
    for config in configs:
        for section, keys in config.items():
            if isinstance(keys, dict):
                options.update(dict.fromkeys((section, key) for key in keys))
    rows = []
    for section, key in options:
        values = [
            _text(c.get(section, {}).get(key)) if isinstance(c.get(section), dict) else None
            for c in configs
        ]
        if _differ(values):
            rows.append(Difference(f"[{section}] {key}", values, touched_phases(section, phases)))
    return rows


def description_differences(subs: Sequence[Submission]) -> tuple[list[Difference], ...]:
    """(system fields, software versions) whose values differ; the benchmark's own version
    is the first software row."""
    descriptions = [getattr(s, "system_description", None) for s in subs]
    system: list[Difference] = []
    versions: list[Difference] = []
    benchmark = [_text(s.benchmark_version) for s in subs]
    if _differ(benchmark):
        versions.append(Difference("Benchmark version", benchmark))
    for name, label in DESCRIPTION_FIELDS:
        values = [_text(getattr(d, name, None)) if d is not None else None for d in descriptions]
        if _differ(values):
            (versions if name in VERSION_FIELDS else system).append(Difference(label, values))
    return system, versions


def differences(subs: Sequence[Submission], phases: Sequence[str]) -> dict[str, list[Difference]]:
    """The three groups the compare page shows, by heading; a group with no difference is
    empty."""
    system, versions = description_differences(subs)
    return {
        "Configuration options": option_differences(subs, phases),
        "System description": system,
        "Software versions": versions,
    }
