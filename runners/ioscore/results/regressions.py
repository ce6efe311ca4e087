"""Regressions in a series of measurements: a point well below its recent median, or missing its
target, raises one alert per drop.

A drop starts at the first low point after a point that was not low, so a storage system that
stays slow for five runs alerts once, and alerts again only after it recovered and fell anew.
The baseline is the median of the points before (not the mean: one earlier outlier must not
hide a drop or fake one), and a series needs a few points of history before it can judge.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from ioscore.results.numbers import significant

DEFAULT_FRACTION = 0.2  # a fall of more than this below the recent median is a drop
DEFAULT_WINDOW = 5  # how many earlier points make the recent median
MIN_HISTORY = 3  # a baseline needs at least this many earlier points


@dataclass(frozen=True)
class Point:
    value: float  # higher is better (bandwidth, operations per second)
    target: float | None = None
    target_at_least: bool = True


@dataclass(frozen=True)
class Drop:
    index: int  # the point where the drop starts
    value: float
    baseline: float | None  # the recent median, None when there was too little history
    fall: float | None  # 1 - value / baseline
    below_median: bool
    missed_target: bool

    def explain(self, unit: str) -> str:
        """The drop in words, its numbers as the site writes them; ``unit`` may be empty (a
        score)."""
        value, baseline = (
            f"{significant(x)}{' ' + unit if unit else ''}"
            for x in (self.value, self.baseline or 0)
        )
        reasons = []
        if self.below_median and self.baseline is not None and self.fall is not None:
            reasons.append(
                f"{value} is {self.fall:.0%} below the median of the previous runs ({baseline})"
            )
        if self.missed_target:
            reasons.append(f"{value} misses its target")
        return "; ".join(reasons)


def _missed(point: Point) -> bool:
    if point.target is None:
        return False
    return point.value < point.target if point.target_at_least else point.value > point.target


def drops(
    points: Sequence[Point],
    fraction: float = DEFAULT_FRACTION,
    window: int = DEFAULT_WINDOW,
) -> list[Drop]:
    """The points where a drop starts, oldest first."""
    if not 0 < fraction < 1 or window < 1:
        raise ValueError(f"fraction must be in (0, 1) and window >= 1, not {fraction}, {window}")
    found: list[Drop] = []
    was_low = False
    for index, point in enumerate(points):
        history = [p.value for p in points[max(0, index - window) : index]]
        baseline = statistics.median(history) if len(history) >= MIN_HISTORY else None
        below = baseline is not None and baseline > 0 and point.value < (1 - fraction) * baseline
        missed = _missed(point)
        low = below or missed
        if low and not was_low:
            fall = 1 - point.value / baseline if baseline else None
            found.append(Drop(index, point.value, baseline, fall, below, missed))
        was_low = low
    return found
