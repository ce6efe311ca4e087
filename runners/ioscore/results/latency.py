"""Operation latency of a phase as result.json records it, in either histogram layout.

* log-linear (current): ``latency.histogram`` = {layout, sub_buckets, rel_error}; percentiles
  p50 p90 p99 p99_9 p99_99 within ``rel_error`` of the exact nearest-rank value; the time
  series may carry the same percentiles and the max per second (``timeseries.latency``).
* log2 (older results): no ``histogram`` member, power-of-two buckets, p50/p90/p99 the upper
  bound of their bucket (up to 2x the true value); p99_9 and p99_99 are unknown (None).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ioscore.results.model import PhaseResult

QUANTILE_KEYS = ("p50", "p90", "p99", "p99_9", "p99_99")
QUANTILE_LABELS = {"p50": "p50", "p90": "p90", "p99": "p99", "p99_9": "p99.9", "p99_99": "p99.99"}
LOG2_REL_ERROR = 1.0  # a log2 bucket's upper bound is at most twice any value in it


def _seconds(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


@dataclass(frozen=True)
class LatencySummary:
    op: str | None
    ops: int
    layout: str  # "log-linear" | "log2"
    rel_error: float
    quantiles: dict[str, float | None]  # QUANTILE_KEYS -> seconds, None when not recorded
    max: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "ops": self.ops,
            "layout": self.layout,
            "rel_error": self.rel_error,
            **self.quantiles,
            "max": self.max,
        }


def summary_from_json(latency: Any) -> LatencySummary | None:
    """A result.json ``latency`` object (phase or rank) in either layout; None if absent."""
    if not isinstance(latency, dict):
        return None
    histogram = latency.get("histogram")
    if isinstance(histogram, dict) and histogram.get("layout") == "log-linear":
        layout, rel_error = "log-linear", float(histogram.get("rel_error") or 0.0)
    else:
        layout, rel_error = "log2", LOG2_REL_ERROR
    ops = latency.get("ops")
    op = latency.get("op")
    return LatencySummary(
        op=op if isinstance(op, str) else None,
        ops=ops if isinstance(ops, int) and not isinstance(ops, bool) else 0,
        layout=layout,
        rel_error=rel_error,
        quantiles={key: _seconds(latency.get(key)) for key in QUANTILE_KEYS},
        max=_seconds(latency.get("max")),
    )


def phase_latency(phase: PhaseResult) -> LatencySummary | None:
    """The phase's merged latency, or None when it timed no operation."""
    return summary_from_json(phase.extra.get("latency"))


@dataclass(frozen=True)
class LatencySeries:
    """Per time-series bucket: the merged percentiles and the max of that bucket."""

    bucket_s: float
    ops: list[int]
    quantiles: dict[str, list[float]]
    max: list[float]


def series_from_json(timeseries: Any) -> LatencySeries | None:
    """``timeseries.latency`` of a phase; None in results that have none."""
    if not isinstance(timeseries, dict) or not isinstance(timeseries.get("latency"), dict):
        return None
    raw = timeseries["latency"]

    def numbers(key: str) -> list[float]:
        values = raw.get(key)
        return [float(v) for v in values] if isinstance(values, list) else []

    return LatencySeries(
        bucket_s=float(timeseries.get("bucket_s") or 1.0),
        ops=[int(v) for v in raw.get("ops") or []],
        quantiles={key: numbers(key) for key in QUANTILE_KEYS},
        max=numbers("max"),
    )


def format_seconds(value: float | None) -> str:
    """Latency for a text table: '-' when unknown, else ns/us/ms/s with 4 digits."""
    if value is None:
        return "-"
    if value < 1e-6:
        return f"{value * 1e9:.0f} ns"
    if value < 1e-3:
        return f"{value * 1e6:.4g} us"
    if value < 1:
        return f"{value * 1e3:.4g} ms"
    return f"{value:.4g} s"


LATENCY_HEADER = ("phase", "op", "ops", *(QUANTILE_LABELS[k] for k in QUANTILE_KEYS), "max")


def format_latency_table(phases: list[PhaseResult]) -> str:
    """The phases' latency percentiles as a fixed-width table ('' when none has any)."""
    rows = []
    for phase in phases:
        lat = phase_latency(phase)
        if lat is None or lat.ops == 0:
            continue
        rows.append(
            (
                phase.name,
                lat.op or "-",
                str(lat.ops),
                *(format_seconds(lat.quantiles[k]) for k in QUANTILE_KEYS),
                format_seconds(lat.max),
            )
        )
    if not rows:
        return ""
    cells = [LATENCY_HEADER, *rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(LATENCY_HEADER))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)) for line in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(line.rstrip() for line in lines)
