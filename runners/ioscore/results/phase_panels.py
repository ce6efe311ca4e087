"""One small chart per phase: the phase's rate over its own time axis, in a unit that reads well
(MiB/s or GiB/s, ops/s or kIOPS), with the stonewall and the end of the wear-out marked, the
rate of each host where the run recorded one, and the p99 latency per second where the run
recorded it. Plain data: the service's run page and ``ioscore report`` draw the same panels.

Where the line comes from, best first (``PhasePanel.source``):

* ``timeseries``: result.json's per-second counts (``throughput.throughput_series``);
* ``ranks``: the IO500 C app's per-rank CSVs give each rank's runtime and mean rate; the line
  is the sum of the rates of the ranks still running (each rank taken at its mean rate), so a
  rank that finished early shows as a step down, and the tail as the last steps;
* ``mean``: only the phase's total and time are known (find, bash-era runs): a flat line.

Axes carry their tick positions (0 to a round top, 3 to 6 steps); presenters label them with
three significant digits and the axis unit.
"""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from ioscore.results.latency import series_from_json
from ioscore.results.model import PhaseResult
from ioscore.results.numbers import significant, whole_or_significant
from ioscore.results.throughput import bucket_rates, rate_scale

MAX_POINTS = 300  # per line; longer series are merged into wider buckets
MAX_HOST_LINES = 32  # above this many hosts the panel names the count instead
MIB = 1024.0**2
GIB = 1024.0**3
# IO500's write phases give the stonewall on their command line: IOR -D N, mdtest -W N.
_DEADLINE_OPTION = re.compile(r"(?:^|\s)-(?:D|W)\s*=?\s*'?(\d+(?:\.\d+)?)")


@dataclass(frozen=True)
class Axis:
    unit: str  # what the tick labels carry: "GiB/s", "ops/s", "s", "ms", "µs", ...
    top: float  # the axis runs from 0 to top (the last tick), in ``unit``
    ticks: list[float]


@dataclass(frozen=True)
class Mark:
    kind: str  # "stonewall" | "wear-out end"
    at: float  # seconds since the phase start (in the time axis's unit: see ``at_shown``)
    at_shown: float
    text: str
    label: str  # ``at`` in words for captions: the whole configured seconds, or 3 digits


def deadline_label(deadline: float) -> str:
    """A configured stonewall deadline (IOR -D, mdtest -W: whole seconds) as captions spell it."""
    return f"{whole_or_significant(deadline)} s"


@dataclass(frozen=True)
class HostLine:
    host: str
    rate: list[float]  # same x as the panel's rate, in the rate axis's unit


@dataclass
class PhasePanel:
    phase: str
    source: str  # "timeseries" | "ranks" | "mean"
    note: str  # how the line was made, in words
    t: list[float]  # x, in the time axis's unit
    rate: list[float]  # y, in the rate axis's unit; drawn as steps (value holds until next x)
    time_axis: Axis
    rate_axis: Axis
    peak: float  # highest point of the line, rate axis unit
    mean: float | None  # the phase's result in the rate axis unit
    duration_s: float
    marks: list[Mark] = field(default_factory=list)
    stonewall_note: str = ""  # a deadline that was set but not reached, in words
    hosts: list[HostLine] = field(default_factory=list)
    hosts_not_drawn: int = 0  # hosts recorded but beyond MAX_HOST_LINES
    p99_t: list[float] = field(default_factory=list)  # bucket midpoints, time axis unit
    p99: list[float | None] = field(default_factory=list)  # None: no timed operation
    latency_axis: Axis | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# --- axes -----------------------------------------------------------------------------------


def nice_ticks(top: float) -> list[float]:
    """0 and round steps (1, 2, 2.5 or 5 times a power of ten) up to at least ``top``."""
    if not math.isfinite(top) or top <= 0:
        return [0.0, 1.0]
    raw = top / 4
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw - 1e-12 * raw)
    count = math.ceil(top / step - 1e-9)
    # round() keeps 0.30000000000000004 from reaching a label
    return [round(i * step, 12) for i in range(count + 1)]


def _axis(unit: str, top: float) -> Axis:
    ticks = nice_ticks(top)
    return Axis(unit=unit, top=ticks[-1], ticks=ticks)


def rate_unit(phase_unit: str, peak_base: float) -> tuple[str, float]:
    """(unit, divisor of the base rate) for a peak in bytes/s or operations/s."""
    if phase_unit == "GiB/s":
        return ("GiB/s", GIB) if peak_base >= GIB else ("MiB/s", MIB)
    return ("kIOPS", 1000.0) if peak_base >= 1000.0 else ("ops/s", 1.0)


def time_unit(end_s: float) -> tuple[str, float]:
    return ("s", 1.0) if end_s >= 1.0 else ("ms", 1e-3)


def latency_unit(top_s: float) -> tuple[str, float]:
    if top_s >= 1.0:
        return "s", 1.0
    if top_s >= 1e-3:
        return "ms", 1e-3
    return "µs", 1e-6


# --- the line -------------------------------------------------------------------------------


def _merged(counts: list[float], factor: int) -> list[float]:
    return [sum(counts[i : i + factor]) for i in range(0, len(counts), factor)]


def _from_timeseries(phase: PhaseResult) -> tuple[list[float], list[float], float, int] | None:
    """(bucket starts s, base rates, bucket s, recorded buckets per bucket) from the
    per-second counts; more than MAX_POINTS buckets are merged into wider ones."""
    series = phase.timeseries or {}
    counts, recorded = list(series.get("aggregate") or []), series.get("bucket_s")
    if not counts or not recorded:
        return None
    factor = max(1, math.ceil(len(counts) / MAX_POINTS))
    bucket = float(recorded) * factor
    rates = bucket_rates(phase, _merged(counts, factor), bucket)
    if rates is None or not any(rates):
        return None
    scale = rate_scale(phase.unit)
    return [i * bucket for i in range(len(rates))], [r * scale for r in rates], bucket, factor


def _from_ranks(phase: PhaseResult) -> tuple[list[float], list[float]] | None:
    """Steps of the summed mean rates of the ranks running at each moment; None in the summary
    form, whose ranks are only the named slowest and fastest."""
    if phase.rank_summary is not None:
        return None
    events: list[tuple[float, float]] = []
    for rank in phase.ranks:
        if rank.end is None or rank.rate is None or rank.rate <= 0:
            continue
        start = rank.start or 0.0
        if rank.end <= start:
            continue
        events += [(start, rank.rate), (rank.end, -rank.rate)]
    if not events:
        return None
    events.sort()
    times: list[float] = []
    levels: list[float] = []
    level = 0.0
    for at, change in events:
        level += change
        if times and at == times[-1]:
            levels[-1] = level
        else:
            times.append(at)
            levels.append(level)
    levels[-1] = 0.0  # float sums leave dust where every rank has stopped
    if len(times) > MAX_POINTS:  # sample the step function on a regular grid, keeping the ends
        grid = [times[0] + (times[-1] - times[0]) * i / (MAX_POINTS - 1) for i in range(MAX_POINTS)]
        levels = [levels[max(0, bisect.bisect_right(times, at) - 1)] for at in grid]
        levels[-1] = 0.0
        times = grid
    return times, [max(0.0, v) for v in levels]


def _deadline(phase: PhaseResult) -> float | None:
    stonewall = phase.extra.get("stonewall")
    if isinstance(stonewall, dict) and isinstance(stonewall.get("deadline_s"), int | float):
        return float(stonewall["deadline_s"]) or None
    exe = phase.extra.get("exe")
    if isinstance(exe, str) and (match := _DEADLINE_OPTION.search(exe)):
        return float(match.group(1)) or None
    return None


def _stonewall_hit(phase: PhaseResult, deadline: float, end: float) -> bool:
    stonewall = phase.extra.get("stonewall")
    if isinstance(stonewall, dict):
        at = stonewall.get("stonewall_time_rank0")
        return bool(stonewall.get("wearout_items")) or (
            isinstance(at, int | float) and at >= deadline * 0.999
        )
    return end > deadline  # IO500's files: the phase ran past its deadline


def _marks(phase: PhaseResult, end: float, time_scale: float) -> tuple[list[Mark], str]:
    deadline = _deadline(phase)
    if deadline is None:
        return [], ""
    if not _stonewall_hit(phase, deadline, end):
        return [], f"stonewall at {deadline_label(deadline)} not reached: the work was done first"
    said = deadline_label(deadline)
    marks = [Mark("stonewall", deadline, deadline / time_scale, f"stonewall {said}", said)]
    if end > deadline * 1.001:
        worn = f"{significant(end)} s"  # measured, so 3 significant digits
        marks.append(Mark("wear-out end", end, end / time_scale, "wear-out end", worn))
    return marks, ""


def _host_lines(
    phase: PhaseResult, divisor: float, factor: int, end: float
) -> tuple[list[HostLine], int]:
    """A line per host (its ranks' per-second counts summed), on the panel's buckets; none
    when the ranks name fewer than two hosts or the time series is the aggregate only."""
    series = phase.timeseries or {}
    per_rank = series.get("per_rank") or []
    hosts = [r.host for r in phase.ranks]
    width = len(series.get("aggregate") or [])
    if len(per_rank) != len(hosts) or not all(hosts) or len(set(hosts)) < 2 or not width:
        return [], 0
    sums: dict[str, list[float]] = {}
    for host, row in zip(hosts, per_rank, strict=True):
        total = sums.setdefault(str(host), [0.0] * width)
        for i, count in enumerate(list(row)[:width]):
            total[i] += count
    bucket = float(series["bucket_s"]) * factor
    scale = rate_scale(phase.unit) / divisor
    names = sorted(sums)
    lines = []
    for host in names[:MAX_HOST_LINES]:
        rates = bucket_rates(phase, _merged(sums[host], factor), bucket) or []
        starts = [i * bucket for i in range(len(rates))]
        lines.append(HostLine(host, _tail(starts, [r * scale for r in rates], bucket, end)[1]))
    return lines, len(names) - len(lines)


def _tail(
    starts: list[float], levels: list[float], bucket: float, end: float
) -> tuple[list[float], list[float]]:
    """Close a bucketed step line: the last bucket ends at min(its end, the phase end), and
    a phase that went on after its last completed operation (a long sync or close) is at 0
    from there to its end."""
    last = max(starts[-1], min(end, starts[-1] + bucket))
    times, values = [*starts, last], [*levels, 0.0]
    if end > last * 1.0001:
        times.append(end)
        values.append(0.0)
    return times, values


def _p99(
    phase: PhaseResult, time_scale: float, end: float
) -> tuple[list[float], list[float | None], Axis | None]:
    latency = series_from_json(phase.timeseries)
    values = latency.quantiles.get("p99", []) if latency is not None else []
    if latency is None or not any(v > 0 for v in values):
        return [], [], None
    unit, scale = latency_unit(max(values))
    bucket = latency.bucket_s
    # the middle of the part of each bucket the phase covered
    times = [(i * bucket + min(end, (i + 1) * bucket)) / 2 / time_scale for i in range(len(values))]
    shown = [v / scale if v > 0 else None for v in values]
    return times, shown, _axis(unit, max(values) / scale * 1.05)


def phase_panel(phase: PhaseResult) -> PhasePanel | None:
    """The panel of one phase; None when it measured nothing over time (the timestamp step,
    a phase without a rate or a duration)."""
    if not phase.value or phase.value <= 0:
        return None
    base_scale = rate_scale(phase.unit)
    end = float(phase.time or 0.0)
    from_series = _from_timeseries(phase)
    factor = 1
    if from_series is not None:
        starts, base, bucket, factor = from_series
        end = end or len(base) * bucket
        times, levels = _tail([*starts], [*base], bucket, end)
        source = "timeseries"
        per = "second" if bucket == 1 else f"{bucket:g} s"
        note = f"Measured: operations completed per {per}, all ranks"
    elif (from_ranks := _from_ranks(phase)) is not None:
        times, levels = from_ranks
        end = max(end, times[-1])
        source = "ranks"
        note = (
            "Estimated from each rank's runtime and mean rate (the run recorded no time "
            "series): the sum over the ranks still running"
        )
    elif end > 0:
        level = phase.value * base_scale
        times, levels = [0.0, end], [level, level]
        source = "mean"
        note = "The phase's mean rate: the run recorded only its total and time"
    else:
        return None
    peak_base = max(levels)
    if peak_base <= 0:
        return None
    unit, divisor = rate_unit(phase.unit, peak_base)
    t_unit, t_scale = time_unit(end)
    marks, stonewall_note = _marks(phase, end, t_scale)
    hosts, not_drawn = (
        _host_lines(phase, divisor, factor, end) if source == "timeseries" else ([], 0)
    )
    host_peak = max((max(h.rate) for h in hosts if h.rate), default=0.0)
    p99_t, p99, latency_axis = _p99(phase, t_scale, end)
    mark_end = max((m.at for m in marks), default=0.0)
    return PhasePanel(
        phase=phase.name,
        source=source,
        note=note,
        t=[t / t_scale for t in times],
        rate=[v / divisor for v in levels],
        time_axis=_axis(t_unit, max(end, mark_end) / t_scale),
        rate_axis=_axis(unit, max(peak_base / divisor, host_peak) * 1.05),
        peak=peak_base / divisor,
        mean=phase.value * base_scale / divisor,
        duration_s=end,
        marks=marks,
        stonewall_note=stonewall_note,
        hosts=hosts,
        hosts_not_drawn=not_drawn,
        p99_t=p99_t,
        p99=p99,
        latency_axis=latency_axis,
    )


def phase_panels(phases: list[PhaseResult]) -> list[PhasePanel]:
    """A panel per phase that has one, in the run's order."""
    return [panel for phase in phases if (panel := phase_panel(phase)) is not None]
