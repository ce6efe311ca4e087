"""Regressions in a series: one alert per drop, against the recent median or a target."""

from __future__ import annotations

import pytest

from ioscore.results.regressions import Point, drops


def series(*values: float) -> list[Point]:
    return [Point(v) for v in values]


def test_a_thirty_percent_drop_alerts_once_while_it_lasts() -> None:
    found = drops(series(100, 104, 98, 101, 70, 69, 71))
    assert [(d.index, d.value, d.baseline) for d in found] == [(4, 70, 100.5)]
    assert found[0].fall == pytest.approx(1 - 70 / 100.5)
    assert found[0].explain("GiB/s") == (
        "70.0 GiB/s is 30% below the median of the previous runs (100 GiB/s)"
    )


def test_the_drop_is_written_as_the_site_writes_numbers() -> None:
    # mdtest's operations per second: thousands separated, never 1.7e+05
    (found,) = drops(series(251_000, 249_500, 250_300, 170_420))
    assert found.explain("ops/s") == (
        "170,420 ops/s is 32% below the median of the previous runs (250,300 ops/s)"
    )
    (found,) = drops(series(0.0123, 0.0125, 0.0124, 0.00617))
    assert found.explain("") == "0.00617 is 50% below the median of the previous runs (0.0124)"


def test_recovery_then_a_new_fall_alerts_again() -> None:
    found = drops(series(100, 100, 100, 60, 100, 100, 100, 100, 60))
    assert [d.index for d in found] == [3, 8]


def test_the_median_ignores_one_earlier_outlier() -> None:
    # a mean would be pulled to 280 by the one freak run and call 100 a 64 % drop
    assert drops(series(100, 1000, 100, 100, 100)) == []
    # and a lone freak high does not hide a real drop either
    assert [d.index for d in drops(series(100, 1000, 100, 100, 70))] == [4]


def test_too_little_history_judges_only_targets() -> None:
    assert drops(series(100, 10)) == []
    found = drops([Point(100, target=120), Point(130, target=120)])
    assert [(d.index, d.missed_target, d.below_median, d.baseline) for d in found] == [
        (0, True, False, None)
    ]
    assert found[0].explain("MiB/s") == "100 MiB/s misses its target"
    assert drops([Point(1234.5, target=2000)])[0].explain("MiB/s") == (
        "1,234 MiB/s misses its target"
    )


def test_at_most_targets_and_the_threshold_per_test() -> None:
    below = [Point(5, target=10, target_at_least=False), Point(12, 10, target_at_least=False)]
    assert [d.index for d in drops(below)] == [1]
    values = series(100, 100, 100, 75)
    assert [d.index for d in drops(values, fraction=0.2)] == [3]
    assert drops(values, fraction=0.3) == []
    with pytest.raises(ValueError, match="fraction"):
        drops(values, fraction=1.5)


def test_the_window_is_the_recent_past() -> None:
    # a slow decline: each run within 20 % of the last five, though far below the first
    values = series(100, 95, 90, 85, 80, 76, 72, 68, 65, 62, 59)
    assert drops(values, window=5) == []
    assert [d.index for d in drops(values, window=10)] == [8]  # 65 < 0.8 x median 82.5
