"""Rates over time and per rank in a phase's unit: one rule for the CLI report, the
acceptance report and the service's pages (no plotting here, so none of them needs plotly
to compute a series)."""

from __future__ import annotations

from collections.abc import Sequence

from ioscore.results.model import PhaseResult

GIB = 1024**3


def rate_scale(unit: str) -> float:
    """Divide a rank rate (bytes/s or items/s, as the suite writes it) by this for `unit`."""
    return float(GIB) if unit == "GiB/s" else 1000.0


def item_size(phase: PhaseResult) -> float | None:
    """What one counted item is in the rate's base unit: bytes per transfer for a GiB/s phase
    (a phase has one transfer size), 1 operation otherwise; None when unknown."""
    if phase.unit != "GiB/s":
        return 1.0  # MD phases: items are operations
    items, size = phase.extra.get("items"), phase.extra.get("bytes")
    if not items or size is None:
        return None
    return float(size) / float(items)


def items_end(phase: PhaseResult) -> float | None:
    """Seconds from the phase start to its last counted item: the latest rank end where the
    ranks carry one, else the phase time. The phase time can be longer (an mdtest phase's
    tree removal, the closing barrier), and no bucket counts that tail."""
    ends: list[float | None] = [r.end for r in phase.ranks]
    if phase.rank_summary is not None:  # the named ranks alone may miss the latest
        ends.append(phase.rank_summary.quantiles.get("end", {}).get("p100"))
    latest = max((e for e in ends if e is not None and e > 0), default=None)
    if latest is None or phase.time is None:
        return latest if latest is not None else phase.time
    return min(latest, phase.time)


def bucket_rates(phase: PhaseResult, counts: Sequence[float], bucket: float) -> list[float] | None:
    """Items completed per bucket (from the phase start) as rates in the phase unit; None when
    an item's size is unknown. The last bucket is usually partial: it is divided by the part
    of it in which items were done (up to ``items_end``)."""
    per_item = item_size(phase)
    if per_item is None:
        return None
    scale = rate_scale(phase.unit)
    end = items_end(phase)
    rates = []
    for index, count in enumerate(counts):
        start = index * bucket
        covered = bucket if end is None else min(bucket, end - start)
        rates.append(count * per_item / (covered if covered > 0 else bucket) / scale)
    return rates


def throughput_series(phase: PhaseResult) -> tuple[list[float], list[float]] | None:
    """(bucket start s, rate in the phase unit) from the aggregate time series, or None."""
    series = phase.timeseries
    if not series or not series.get("aggregate") or not series.get("bucket_s"):
        return None
    bucket = float(series["bucket_s"])
    rates = bucket_rates(phase, series["aggregate"], bucket)
    if rates is None:
        return None
    return [i * bucket for i in range(len(rates))], rates
