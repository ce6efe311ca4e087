"""A run against what its declared hardware can carry ("speed of light"), for its pages: the
library's ceilings and findings (``ioscore.results.run_findings``, the rule validation applies)
worked out from the stored phases and the description as it stands now, so a run imported or
validated before a description was corrected says the same as a fresh validation would.

A finding beyond the hardware is a warning for the committee and a note for the public; a
possible cache effect is a note for both.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ioscore import system_description
from ioscore.results import RunResult, ceilings, run_findings
from submissions.run_rows import library_phase

BEYOND = "beyond-hardware"
GiB = 2**30


def _described(description: Any) -> dict[str, Any] | None:
    """The description's document when the schema accepts it (the arithmetic reads its
    quantities); None otherwise, as validation passes no description it refuses."""
    data = getattr(description, "data", None)
    if not isinstance(data, dict) or not data or system_description.validate(data):
        return None
    return data


def plausibility(phases: Iterable[Any], description: Any, reviewer: bool) -> dict[str, Any]:
    """What the page's plausibility section shows: the ceilings with their arithmetic and the
    findings, split into what a reviewer must look at and what is only noted."""
    nothing: dict[str, Any] = {"limits": [], "warnings": [], "notes": [], "reviewer": reviewer}
    data = _described(description)
    stored = {row.name: library_phase(row) for row in phases}
    # a list-only entry has no phases: nothing was measured here to compare
    if data is None or not any(p.unit == "GiB/s" and p.value > 0 for p in stored.values()):
        return nothing
    run = RunResult(
        source="stored phases",
        format="stored",
        version=None,
        mode=None,
        phases=stored,
        printed=None,
    )
    findings = run_findings(run, data)
    beyond = [f for f in findings if f.kind == BEYOND]
    cache = [f for f in findings if f.kind != BEYOND]
    return {
        "limits": [
            {
                "name": c.name,
                "arithmetic": c.arithmetic,
                "rate": c.bytes_per_s,
                "gib": c.bytes_per_s / GiB,
            }
            for c in ceilings(data)
        ],
        # the public reads every finding as a note; the committee must look at the first kind
        "warnings": beyond if reviewer else [],
        "notes": cache if reviewer else beyond + cache,
        "reviewer": reviewer,
    }
