"""The per-phase summary of a run: what `ioscore report` prints and the HTML table shows."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from ioscore.results.model import RunResult
from ioscore.results.stragglers import PhaseSpread, phase_spread
from ioscore.results.throughput import rate_scale


@dataclass
class SummaryRow:
    phase: str
    score: float
    unit: str
    time_s: float | None
    ranks: int  # ranks with per-rank data (0 for IO500-format runs)
    rate_unit: str  # unit of the work-rate columns (per rank): GiB/s or kIOPS
    rate_min: float | None = None
    rate_median: float | None = None
    rate_max: float | None = None
    tail_s: float | None = None
    slowest_rank: int | None = None
    slowest_host: str | None = None
    straggler_ranks: list[int] = field(default_factory=list)
    straggler_hosts: list[str] = field(default_factory=list)
    straggler_reasons: list[str] = field(default_factory=list)
    valid: bool = True

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _scaled(value: float | None, scale: float) -> float | None:
    return None if value is None else value / scale


def row_for(run: RunResult, name: str, spread: PhaseSpread) -> SummaryRow:
    phase = run.phases[name]
    scale = rate_scale(phase.unit)
    return SummaryRow(
        phase=name,
        score=phase.value,
        unit=phase.unit,
        time_s=phase.time,
        ranks=spread.ranks,
        rate_unit=phase.unit,
        rate_min=_scaled(spread.rate_min, scale),
        rate_median=_scaled(spread.rate_median, scale),
        rate_max=_scaled(spread.rate_max, scale),
        tail_s=spread.tail_s,
        slowest_rank=spread.slowest_rank,
        slowest_host=spread.slowest_host,
        straggler_ranks=spread.straggler_ranks,
        straggler_hosts=[flag.host for flag in spread.host_stragglers],
        straggler_reasons=[f"rank {f.rank}: {f.reason}" for f in spread.rank_stragglers]
        + [f"host {f.host}: {f.reason}" for f in spread.host_stragglers],
        valid=phase.valid,
    )


def summary_rows(run: RunResult) -> list[SummaryRow]:
    return [row_for(run, name, phase_spread(phase)) for name, phase in run.phases.items()]


def has_rank_data(rows: list[SummaryRow]) -> bool:
    return any(row.ranks > 0 for row in rows)


def _num(value: float | None, digits: int = 4) -> str:
    return "-" if value is None else f"{value:.{digits}g}"


def _stragglers(row: SummaryRow) -> str:
    if row.ranks == 0:
        return "-"
    parts = [f"rank {r}" for r in row.straggler_ranks] + [f"host {h}" for h in row.straggler_hosts]
    return ", ".join(parts) if parts else "none"


HEADER = (
    "phase",
    "score",
    "unit",
    "time s",
    "ranks",
    "min/rank",
    "median/rank",
    "max/rank",
    "tail s",
    "stragglers",
)


def table_cells(row: SummaryRow) -> tuple[str, ...]:
    score = f"{row.score:.6g}" + ("" if row.valid else " [INVALID]")
    return (
        row.phase,
        score,
        row.unit,
        _num(row.time_s),
        str(row.ranks) if row.ranks else "-",
        _num(row.rate_min),
        _num(row.rate_median),
        _num(row.rate_max),
        _num(row.tail_s, 3),
        _stragglers(row),
    )


def format_table(rows: list[SummaryRow]) -> str:
    """A fixed-width text table; rates per rank are in the phase's unit."""
    cells = [HEADER, *(table_cells(row) for row in rows)]
    widths = [max(len(line[i]) for line in cells) for i in range(len(HEADER))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)) for line in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(line.rstrip() for line in lines)
