"""The 12 scored phases as the rankings app stores and shows them.

Phase names and order come from the results library (the one place that defines them); this
module only maps them to the frozen ``ListEntry`` columns and display units.
"""

from __future__ import annotations

from ioscore.results import BW_PHASES, SCORED_PHASES

PHASES: tuple[str, ...] = SCORED_PHASES


def field_name(phase: str) -> str:
    """``ior-easy-write`` -> ``ior_easy_write`` (the ListEntry column)."""
    return phase.replace("-", "_")


PHASE_FIELDS: tuple[str, ...] = tuple(field_name(p) for p in PHASES)
FIELD_TO_PHASE: dict[str, str] = {field_name(p): p for p in PHASES}


def unit(phase: str) -> str:
    return "GiB/s" if phase in BW_PHASES else "kIOPS"
