"""Rates over time and per rank in a phase's unit: one rule for the CLI report, the
acceptance report and the service's pages (no plotting here, so none of them needs plotly
to compute a series)."""

from __future__ import annotations

from ioscore.results.model import PhaseResult

GIB = 1024**3


def rate_scale(unit: str) -> float:
    """Divide a rank rate (bytes/s or items/s, as the suite writes it) by this for `unit`."""
    return float(GIB) if unit == "GiB/s" else 1000.0


def throughput_series(phase: PhaseResult) -> tuple[list[float], list[float]] | None:
    """(bucket start s, rate in the phase unit) from the aggregate time series, or None."""
    series = phase.timeseries
    if not series or not series.get("aggregate") or not series.get("bucket_s"):
        return None
    bucket = float(series["bucket_s"])
    per_item = 1.0  # MD phases: items are operations
    if phase.unit == "GiB/s":
        items, size = phase.extra.get("items"), phase.extra.get("bytes")
        if not items or size is None:
            return None
        per_item = float(size) / float(items)  # a phase has one transfer size
    scale = rate_scale(phase.unit)
    times = [i * bucket for i in range(len(series["aggregate"]))]
    rates = []
    for start, count in zip(times, series["aggregate"], strict=True):
        # The last bucket is usually partial: divide by the part of it the phase covered.
        covered = bucket if phase.time is None else min(bucket, phase.time - start)
        rates.append(count * per_item / (covered if covered > 0 else bucket) / scale)
    return times, rates
