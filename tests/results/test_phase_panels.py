"""The panel data builder (``ioscore.results.phase_panels``): one panel per phase, from the
per-second counts of a real suite run, from the per-rank CSVs of a real IO500 archive run, or
from the phase's mean; stonewall and wear-out marks; hosts; p99 per second; round ticks."""

from __future__ import annotations

import csv
import json
import math
import random
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import pytest

from ioscore.report.html import _panel_caption
from ioscore.results import PhaseResult, RankStat, RunResult, load_run, phase_panels
from ioscore.results.numbers import significant
from ioscore.results.parse_rankcsv import attach_rank_csvs
from ioscore.results.phase_panels import MAX_POINTS, nice_ticks, phase_panel
from tests.fixtures.tiny_suite import tiny_suite_results

REPO = Path(__file__).resolve().parents[2]
AFTON = (
    REPO.parent
    / "shared/data/io500-archive-dev/University of Virginia/Afton/WEKA/2024/submission-704"
    / "results/2024.04.29-15.48.29"
)
GIB = 1024**3


def _step_at(times: list[float], values: list[float], at: float) -> float:
    """The value of a step line (each value holds until the next x) at ``at``."""
    held = values[0]
    for x, value in zip(times, values, strict=True):
        if x > at:
            break
        held = value
    return held


# --- ticks ------------------------------------------------------------------------------------


@pytest.mark.parametrize("top", [0.0007, 0.3, 1, 3.2, 9.9, 10, 47, 75.8, 123, 999, 1e6, 6.2e9])
def test_ticks_start_at_zero_and_cover_the_top_in_round_steps(top: float) -> None:
    ticks = nice_ticks(top)
    assert ticks[0] == 0 and ticks[-1] >= top
    assert 3 <= len(ticks) <= 6, ticks
    step = ticks[1]
    mantissa = step / 10 ** math.floor(math.log10(step))
    assert any(math.isclose(mantissa, m) for m in (1, 2, 2.5, 5)), step
    assert all(math.isclose(b - a, step) for a, b in pairwise(ticks))
    assert ticks[-2] < top  # the top is reached by the last step, not overshot by two


def test_no_ticks_for_nothing() -> None:
    assert nice_ticks(0) == [0.0, 1.0] and nice_ticks(float("nan")) == [0.0, 1.0]


# --- a real IO500 archive run: per-rank CSVs ------------------------------------------------


@pytest.fixture(scope="module")
def afton() -> RunResult:
    run = load_run(AFTON)
    attach_rank_csvs(run, AFTON)
    return run


def _csv(name: str) -> list[dict[str, str]]:
    with (AFTON / f"{name}.csv").open(encoding="utf-8") as handle:
        return [r for r in csv.DictReader(handle) if r.get("rank", "").strip().isdigit()]


def test_archive_run_has_a_panel_per_scored_phase(afton: RunResult) -> None:
    panels = {p.phase: p for p in phase_panels(list(afton.phases.values()))}
    assert len(panels) == 12 and "timestamp" not in panels
    assert {p.source for n, p in panels.items() if n != "find"} == {"ranks"}
    find = panels["find"]
    assert find.source == "mean" and find.rate == [pytest.approx(1132.44731)] * 2
    assert find.t == [0.0, pytest.approx(122.1074, abs=1e-3)]
    assert find.rate_axis.unit == "kIOPS" and find.time_axis.unit == "s"


def test_rank_line_is_the_sum_of_the_ranks_still_running(afton: RunResult) -> None:
    panel = phase_panel(afton.phases["ior-easy-write"])
    assert panel is not None and panel.rate_axis.unit == "GiB/s"
    rows = _csv("ior-easy-write")
    ends = [float(r["runtime-with-openclose"]) for r in rows]
    rates = [float(r["throughput"]) for r in rows]
    assert len(rows) == 850
    # 1,700 rank starts and ends are more than MAX_POINTS: the line samples the exact sum on
    # a regular grid from the first start to the last end.
    assert len(panel.t) == MAX_POINTS and panel.t[0] == 0
    for at, value in zip(panel.t[:-1], panel.rate[:-1], strict=True):
        expected = sum(rate for rate, end in zip(rates, ends, strict=True) if end > at) / GIB
        assert value == pytest.approx(expected, rel=1e-9, abs=1e-9), at
    assert panel.rate[-1] == 0 and panel.t[-1] == pytest.approx(max(ends))
    assert panel.peak == pytest.approx(sum(rates) / GIB)
    assert panel.mean == pytest.approx(75.778751)
    mdtest = phase_panel(afton.phases["mdtest-hard-stat"])
    assert mdtest is not None and mdtest.rate_axis.unit == "kIOPS"
    stat = _csv("mdtest-hard-stat")
    assert mdtest.peak == pytest.approx(sum(float(r["rate-File stat"]) for r in stat) / 1000)


def test_archive_write_phases_mark_stonewall_and_wear_out(afton: RunResult) -> None:
    # IOR -D 300 and mdtest -W 300 on their command lines; result.txt's t_delta ends them.
    for name, t_delta in (
        ("ior-easy-write", 672.5086),
        ("mdtest-easy-write", 314.5639),
        ("ior-hard-write", 1160.1708),
        ("mdtest-hard-write", 306.2030),
    ):
        panel = phase_panel(afton.phases[name])
        assert panel is not None
        assert [(m.kind, m.at) for m in panel.marks] == [
            ("stonewall", 300.0),
            ("wear-out end", pytest.approx(t_delta, abs=1e-3)),
        ], name
        assert panel.time_axis.top >= t_delta
    for name in ("ior-easy-read", "find", "mdtest-easy-delete"):
        panel = phase_panel(afton.phases[name])
        assert panel is not None and panel.marks == [] and panel.stonewall_note == "", name


# --- a real suite run: per-second counts, hosts, p99 -----------------------------------------


@pytest.fixture(scope="module")
def suite_run() -> Iterator[tuple[RunResult, dict[str, dict]]]:
    """2 ranks on two pretend nodes: per-rank time series with host names, per-second
    latency, a 1 s stonewall that the random 4 KiB read reaches and the writes do not."""
    with tiny_suite_results("ioscore-panels-", ("--simulate-ppn", "1")) as results:
        path = next(results.rglob("result.json"))
        raw = {p["name"]: p for p in json.loads(path.read_text(encoding="utf-8"))["phases"]}
        yield load_run(path.parent), raw


def test_suite_run_panels_follow_the_recorded_seconds(
    suite_run: tuple[RunResult, dict[str, dict]],
) -> None:
    run, raw = suite_run
    panels = {p.phase: p for p in phase_panels(list(run.phases.values()))}
    assert set(panels) >= {"ior-easy-write", "mdtest-hard-delete", "ior-rnd4K-easy-read"}
    assert "timestamp" not in panels
    rnd = panels["ior-rnd4K-easy-read"]
    phase = raw["ior-rnd4K-easy-read"]
    series = phase["timeseries"]
    assert rnd.source == "timeseries"
    # Per bucket: items x bytes per item / the part of the bucket in which items were done
    # (until the latest rank's end).
    per_item = phase["bytes"] / phase["items"]
    divisor = {"GiB/s": GIB, "MiB/s": 1024**2}[rnd.rate_axis.unit]
    bucket = series["bucket_s"]
    items_end = min(phase["time"], max(r["end"] for r in phase["ranks"]))
    for i, count in enumerate(series["aggregate"]):
        covered = min(bucket, items_end - i * bucket)
        assert rnd.rate[i] == pytest.approx(count * per_item / covered / divisor, rel=1e-9)
    assert rnd.t[-1] == pytest.approx(phase["time"]) and rnd.rate[-1] == 0
    # Hosts: one line per pretend node, summing to the aggregate.
    assert [h.host for h in rnd.hosts] == sorted({r["host"] for r in phase["ranks"]})
    assert len(rnd.hosts) == 2
    for i, total in enumerate(rnd.rate):
        assert sum(h.rate[i] for h in rnd.hosts) == pytest.approx(total, rel=1e-9, abs=1e-12)
    # p99 per second, as recorded, in the latency axis's unit.
    scale = {"µs": 1e-6, "ms": 1e-3, "s": 1.0}[rnd.latency_axis.unit]
    recorded = series["latency"]["p99"]
    assert rnd.p99 == [pytest.approx(v / scale) if v > 0 else None for v in recorded]
    assert len(rnd.p99_t) == len(recorded) and rnd.latency_axis.top >= max(recorded) / scale
    # The 1 s stonewall was reached (the ranks wore out after it); the writes' was not.
    stonewall = phase["stonewall"]
    assert stonewall["deadline_s"] == 1 and stonewall["stonewall_time_rank0"] >= 1
    assert [m.kind for m in rnd.marks] == ["stonewall", "wear-out end"]
    assert rnd.marks[0].at == 1.0 and rnd.marks[1].at == pytest.approx(phase["time"])
    # One spelling of the configured deadline (whole seconds) in every caption, the report's
    # included; the measured wear-out end keeps 3 significant digits.
    assert rnd.marks[0].label == "1 s"
    assert rnd.marks[1].label == f"{significant(phase['time'])} s"
    assert "; stonewall at 1 s;" in _panel_caption(rnd)
    write = panels["ior-easy-write"]
    assert write.marks == [] and "stonewall at 1 s not reached" in write.stonewall_note
    # Sub-second phases get a millisecond axis.
    assert write.time_axis.unit == ("ms" if raw["ior-easy-write"]["time"] < 1 else "s")


# --- bounds -------------------------------------------------------------------------------------


def test_many_ranks_are_sampled_to_a_bounded_line() -> None:
    rng = random.Random(7)
    ranks = [
        RankStat(rank=i, start=0.0, end=rng.uniform(50, 60), rate=rng.uniform(1e6, 2e6))
        for i in range(5000)
    ]
    phase = PhaseResult(name="mdtest-easy-stat", value=7000.0, unit="kIOPS", time=60.5, ranks=ranks)
    panel = phase_panel(phase)
    assert panel is not None and len(panel.t) == MAX_POINTS and panel.rate[-1] == 0
    for at in panel.t[:-1]:
        expected = sum(r.rate for r in ranks if r.end > at) / 1000  # type: ignore[operator,misc]
        assert _step_at(panel.t, panel.rate, at) == pytest.approx(expected, rel=1e-9)


def test_long_series_are_merged_into_wider_buckets() -> None:
    counts = [1000 + (i % 7) for i in range(900)]
    phase = PhaseResult(
        name="mdtest-easy-write",
        value=1.0,
        unit="kIOPS",
        time=900.0,
        timeseries={"bucket_s": 1.0, "aggregate": counts, "per_rank": []},
    )
    panel = phase_panel(phase)
    assert panel is not None and panel.source == "timeseries"
    assert len(panel.t) <= MAX_POINTS + 2 and "per 3 s" in panel.note
    assert panel.rate[0] == pytest.approx(sum(counts[:3]) / 3 / 1000)
    assert panel.t[-1] == 900.0


def test_a_last_bucket_is_divided_by_the_time_its_items_took() -> None:
    """An mdtest phase's time also spans its tree removal, which no bucket counts: a short
    phase in one bucket has the rate its items had (the phase's result), not a lower one from
    the whole phase time; its peak is never below its result."""
    ranks = [RankStat(rank=r, start=0.0, end=0.162, items=5000) for r in range(2)]
    phase = PhaseResult(
        name="mdtest-easy-delete",
        value=10000 / 0.162 / 1000,
        unit="kIOPS",
        time=0.236,
        ranks=ranks,
        timeseries={"bucket_s": 1, "aggregate": [10000], "per_rank": []},
    )
    panel = phase_panel(phase)
    assert panel is not None and panel.source == "timeseries"
    assert panel.peak == pytest.approx(phase.value)
    # without per-rank ends the phase time is all there is
    bare = PhaseResult(
        name=phase.name, value=phase.value, unit="kIOPS", time=0.236, timeseries=phase.timeseries
    )
    assert phase_panel(bare).peak == pytest.approx(10000 / 0.236 / 1000)  # type: ignore[union-attr]


def test_nothing_measured_gives_no_panel() -> None:
    assert phase_panel(PhaseResult(name="timestamp", value=0.0, unit="kIOPS", time=0.001)) is None
    assert phase_panel(PhaseResult(name="find", value=12.0, unit="kIOPS", time=None)) is None


def test_summary_form_ranks_are_not_summed(afton: RunResult) -> None:
    """Above the rank-detail threshold a phase keeps only its named slowest and fastest ranks:
    their sum is not the phase's rate, so the panel falls back to the mean."""
    from ioscore.results import summarise_ranks

    phase = afton.phases["ior-easy-read"]
    summary, named = summarise_ranks(list(phase.ranks))
    shrunk = PhaseResult(
        name=phase.name,
        value=phase.value,
        unit=phase.unit,
        time=phase.time,
        ranks=named,
        extra=phase.extra,
        rank_summary=summary,
    )
    panel = phase_panel(shrunk)
    assert panel is not None and panel.source == "mean"
    assert panel.rate == [pytest.approx(phase.value)] * 2
