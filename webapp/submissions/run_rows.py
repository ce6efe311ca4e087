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
from pathlib import PurePath
from typing import Any

from ioscore.results import (
    CountRows,
    RankStat,
    RankSummary,
    RunResult,
    storable_text,
    summary_form,
)
from ioscore.results import PhaseResult as LibraryPhase


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


def bounded_run(run: RunResult) -> RunResult:
    """`run` as it is stored. A phase of more than the rank-detail threshold in the full form
    (the suite's threshold raised) is kept in the summary form, as the suite writes it: every
    page and API reads a bounded row (a 100,000-rank full-form run was ~250 MB of rank JSON,
    decoded on every view), and the run's file, kept unchanged in the archive, holds every
    rank (the summary's ``full_file``). The validation child hands the worker this (1 MB at
    100,000 ranks, where the whole run pickled to 150 MB), after its checks saw every rank."""
    full_file = PurePath(run.source).name or None
    phases = {name: summary_form(phase, full_file) for name, phase in run.phases.items()}
    if all(phases[name] is phase for name, phase in run.phases.items()):
        return run
    return dataclasses.replace(run, phases=phases)


def iter_phase_rows(run: RunResult) -> Iterator[dict[str, Any]]:
    """``phase_rows`` of the run as it is stored (``bounded_run``), one at a time."""
    for order, (name, phase) in enumerate(bounded_run(run).phases.items()):
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
            **rank_fields(phase),
        }


def rank_fields(phase: LibraryPhase) -> dict[str, Any]:
    """The per-rank columns of a phase's row: ``ranks``, ``rank_summary``, ``timeseries``."""
    return {
        "ranks": [json_safe(vars(rank)) for rank in phase.ranks],
        # above the suite's rank-detail threshold: the distributions, not every rank
        "rank_summary": json_safe(dataclasses.asdict(phase.rank_summary))
        if phase.rank_summary is not None
        else None,
        "timeseries": json_safe(phase.timeseries),
    }


_RANK_FIELDS = frozenset(f.name for f in dataclasses.fields(RankStat))


def library_phase(row: Any) -> LibraryPhase:
    """A stored phase row (``PhaseResult``, or its historical model in a migration) as the
    results library's model, so the library's rules and charts run on what was stored."""
    ranks = [
        RankStat(**{k: v for k, v in r.items() if k in _RANK_FIELDS})
        for r in (row.ranks or [])
        if isinstance(r, dict) and isinstance(r.get("rank"), int)
    ]
    return LibraryPhase(
        name=row.name,
        value=row.value,
        unit=row.unit,
        time=row.time,
        valid=row.valid,
        ranks=ranks,
        timeseries=row.timeseries if isinstance(row.timeseries, dict) else None,
        extra=row.extra if isinstance(row.extra, dict) else {},
        rank_summary=RankSummary.from_stored(row.rank_summary)
        if isinstance(row.rank_summary, dict)
        else None,
    )
