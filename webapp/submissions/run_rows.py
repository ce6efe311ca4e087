"""A parsed run (``ioscore.results.RunResult``) as the rows ``submissions.models`` stores.

Owned here, next to the ``PhaseResult`` model, because two writers fill those rows: the
validation worker (uploads) and the IO500 importer (history). Every value is JSON-safe
(no inf/NaN) and every string storable (valid UTF-8, no NUL).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from ioscore.results import CountRows, RunResult, storable_text


def json_safe(value: Any) -> Any:
    """``value`` as plain JSON: finite numbers (others as text), storable strings."""
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)  # JSON has no inf/NaN
    if isinstance(value, str):
        return storable_text(value)
    if isinstance(value, (list, tuple, CountRows)):  # CountRows: a result's per-rank series
        return [json_safe(v) for v in value]
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    return str(value)


def aware(value: datetime | None) -> datetime | None:
    """A run's (naive, UTC) timestamp as the aware datetime Django stores."""
    if value is None:
        return None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def phase_rows(run: RunResult) -> list[dict[str, Any]]:
    """One ``PhaseResult`` field dict per phase, in the run's order."""
    return list(iter_phase_rows(run))


def iter_phase_rows(run: RunResult) -> Iterator[dict[str, Any]]:
    """``phase_rows`` one at a time: a full-form result's phase holds a JSON object per rank
    (100,000 ranks: ~100 MB of Python objects a phase, ~1.4 GB for all 12 at once)."""
    for order, (name, phase) in enumerate(run.phases.items()):
        yield {
            "name": name,
            "order": order,
            "value": phase.value,
            "unit": phase.unit,
            "group": getattr(phase.group, "value", str(phase.group)),
            "time": phase.time,
            "valid": phase.valid,
            "invalid_reasons": list(phase.invalid_reasons),
            "score_txt": phase.score_txt,
            "extra": json_safe(phase.extra),
            "ranks": [json_safe(vars(rank)) for rank in phase.ranks],
            # above the suite's rank-detail threshold: the distributions, not every rank
            "rank_summary": json_safe(dataclasses.asdict(phase.rank_summary))
            if phase.rank_summary is not None
            else None,
            "timeseries": json_safe(phase.timeseries),
        }
