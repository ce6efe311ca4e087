"""Straggler rule and rank spread (ioscore.results.stragglers), on constructed rank data and
on a real suite run (whose per-rank and time-series numbers must add up to the phase totals)."""

from __future__ import annotations

import random
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from statistics import median

import pytest

from ioscore.results import PhaseResult, RankStat, RunResult, find_runs, load_run
from ioscore.results.stragglers import (
    LATE_MIN_S,
    MIN_JUDGED_S,
    RATE_FRACTION,
    host_stragglers,
    median_without,
    phase_spread,
    rank_stragglers,
    run_spreads,
    tail_seconds,
)
from tests.fixtures.tiny_suite import (
    SUITE,
    TINY_CONFIG,
    _scratch_parent,
    tiny_suite_results,
)
from tests.mpi_launch import MPI, mpi_env


def ranks_with_rates(rates: list[float], done: float = 2.0, host: str = "n0") -> list[RankStat]:
    """Ranks that each ran `done` s in their main loop at `rates` items/s (end: after a sync)."""
    return [
        RankStat(
            rank=i,
            host=host,
            start=0.0,
            first_done=done,
            end=done + 0.5,
            items=round(rate * done),
            rate=rate * done / (done + 0.5),
        )
        for i, rate in enumerate(rates)
    ]


def phase_of(ranks: list[RankStat]) -> PhaseResult:
    return PhaseResult(name="mdtest-easy-stat", value=1.0, unit="kIOPS", time=2.0, ranks=ranks)


def flagged(ranks: list[RankStat]) -> list[int]:
    return [flag.rank for flag in rank_stragglers(phase_of(ranks))]


def test_equal_ranks_are_not_stragglers() -> None:
    assert flagged(ranks_with_rates([100.0, 101.0, 99.0, 100.5])) == []


def test_rank_below_half_the_peer_median_is_flagged_and_named() -> None:
    ranks = ranks_with_rates([100.0, 100.0, 40.0, 100.0])
    flags = rank_stragglers(phase_of(ranks))
    assert [f.rank for f in flags] == [2]
    assert "peer median 100" in flags[0].reason
    spread = phase_spread(phase_of(ranks))
    assert spread.slowest_rank == 2
    assert (spread.rate_min, spread.rate_median, spread.rate_max) == (40.0, 100.0, 100.0)
    assert spread.straggler_ranks == [2]


def test_rank_just_above_the_threshold_is_not_flagged() -> None:
    assert flagged(ranks_with_rates([100.0, 100.0, RATE_FRACTION * 100.0 * 1.02])) == []


def test_two_ranks_only_the_slow_one_is_flagged() -> None:
    # Compared with its peers only: the fast rank is not a straggler against the slow one.
    assert flagged(ranks_with_rates([100.0, 45.0])) == [1]


def test_fixed_work_slow_rank_is_found_although_end_is_synchronised() -> None:
    # Same items; rank 1 needs 4x the time. `end` is equal for all (closing barrier), so the
    # suite's start..end rate is equal too; the work rate (to first_done) tells them apart.
    ranks = ranks_with_rates([100.0, 100.0, 100.0], done=0.5)
    ranks[1].first_done = 2.0
    for stat in ranks:
        stat.end = 2.01
        stat.rate = (stat.items or 0) / 2.01
    assert flagged(ranks) == [1]


def test_rank_that_started_late_and_finished_late_is_flagged() -> None:
    # Normal work rate, but it started 0.8 s late and held the phase up.
    ranks = ranks_with_rates([100.0, 100.0, 100.0])
    ranks[1].start, ranks[1].first_done = 0.8, 2.8
    flags = rank_stragglers(phase_of(ranks))
    assert [f.rank for f in flags] == [1]
    assert "after the peer median" in flags[0].reason


def test_late_by_less_than_the_noise_floor_is_not_flagged() -> None:
    ranks = ranks_with_rates([100.0, 100.0, 100.0], done=0.2)
    # 0.09 s late is 31 % of the 0.29 s phase, but below the absolute floor.
    ranks[2].start = LATE_MIN_S * 0.9
    ranks[2].first_done = ranks[2].start + 0.2
    assert flagged(ranks) == []


def test_phases_shorter_than_the_judged_minimum_flag_nothing() -> None:
    ranks = ranks_with_rates([100.0, 100.0, 5.0], done=MIN_JUDGED_S / 2)
    ranks[2].items = 1
    assert flagged(ranks) == []
    assert phase_spread(phase_of(ranks)).slowest_rank == 2  # still named, just not flagged


def test_stonewalled_phase_with_wearout_uses_items_before_the_deadline() -> None:
    # After wear-out both ranks hold 300 items and leave the main loop at the deadline; the
    # time series shows rank 1 managed only 50 of them before the 2 s deadline.
    ranks = ranks_with_rates([150.0, 150.0])
    phase = PhaseResult(
        name="mdtest-easy-write",
        value=1.0,
        unit="kIOPS",
        ranks=ranks,
        timeseries={
            "bucket_s": 1,
            "aggregate": [175, 175, 250],
            "per_rank": [[150, 150, 0], [25, 25, 250]],
        },
        extra={"stonewall": {"deadline_s": 2, "wearout_items": 250}},
    )
    flags = rank_stragglers(phase)
    assert [f.rank for f in flags] == [1]
    assert phase_spread(phase).rate_min == pytest.approx(25.0)


def test_slow_host_is_flagged_with_its_ranks() -> None:
    ranks = ranks_with_rates([100.0, 100.0], host="fast-a")
    ranks += ranks_with_rates([95.0, 105.0], host="fast-b")
    ranks += ranks_with_rates([30.0, 35.0], host="slow")
    for index, stat in enumerate(ranks):
        stat.rank = index
    flags = host_stragglers(phase_of(ranks))
    assert [(f.host, f.ranks) for f in flags] == [("slow", (4, 5))]
    assert phase_spread(phase_of(ranks)).slowest_host == "slow"


def test_single_host_is_never_a_host_straggler() -> None:
    assert host_stragglers(phase_of(ranks_with_rates([100.0, 10.0]))) == []


def test_tail_is_last_minus_first_main_loop_exit() -> None:
    ranks = ranks_with_rates([1.0, 1.0, 1.0])
    ranks[0].first_done = 1.0
    ranks[1].first_done = 2.5
    ranks[2].first_done, ranks[2].end = None, 1.9  # end stands in
    assert tail_seconds(ranks) == pytest.approx(1.5)


def test_phase_without_rank_data_has_no_spread() -> None:
    spread = phase_spread(phase_of([]))
    assert not spread.has_rank_data
    assert spread.rate_median is None and spread.tail_s is None and spread.rank_stragglers == []


# --- a real suite run -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def suite_run() -> Iterator[RunResult]:
    with tiny_suite_results("ioscore-stragglers-") as results:
        (run_dir,) = find_runs(results)
        yield load_run(run_dir)


def test_rank_items_and_bytes_add_up_to_the_phase_totals(suite_run: RunResult) -> None:
    for phase in suite_run.phases.values():
        assert len(phase.ranks) == suite_run.procs == 2, phase.name
        assert sum(r.items or 0 for r in phase.ranks) == phase.extra["items"], phase.name
        assert sum(r.bytes or 0 for r in phase.ranks) == phase.extra["bytes"], phase.name
        for stat in phase.ranks:
            assert stat.first_done is not None and stat.end is not None
            assert stat.first_done <= stat.end + 1e-9, (phase.name, stat)


def test_timeseries_buckets_add_up_to_the_phase_items(suite_run: RunResult) -> None:
    with_series = 0
    for phase in suite_run.phases.values():
        series = phase.timeseries
        assert series is not None, phase.name
        if not series["aggregate"]:
            continue  # find and the timestamp phase record no time series
        with_series += 1
        assert sum(series["aggregate"]) == phase.extra["items"], phase.name
        per_rank = series["per_rank"]
        assert [sum(row) for row in per_rank] == [r.items for r in phase.ranks], phase.name
        columns = [
            sum(row[i] for row in per_rank if i < len(row)) for i in range(len(series["aggregate"]))
        ]
        assert columns == series["aggregate"], phase.name
    assert with_series >= 10  # every ior and mdtest phase


def test_real_run_spreads_are_consistent(suite_run: RunResult) -> None:
    spreads = run_spreads(suite_run)
    assert [s.phase for s in spreads] == list(suite_run.phases)
    for spread in spreads:
        assert spread.ranks == 2
        assert spread.rate_min is not None and spread.rate_max is not None
        assert spread.rate_min <= (spread.rate_median or 0) <= spread.rate_max
        assert spread.tail_s is not None and spread.tail_s >= 0


def _suite_help() -> str:
    if not SUITE.is_file():
        return ""
    done = subprocess.run([str(SUITE), "--help"], capture_output=True, text=True, check=False)
    return done.stdout + done.stderr


DELAYED_RANK = 1
DELAY_US = 4000  # per operation: rank 1 needs >= 0.2 s for 50 items, rank 0 a few ms


def test_delayed_rank_is_flagged_as_straggler(tmp_path: Path) -> None:
    if "--debug-delay-rank" not in _suite_help():
        pytest.skip("the suite has no --debug-delay-rank option yet")
    scratch = Path(tempfile.mkdtemp(prefix="ioscore-delay-", dir=_scratch_parent()))
    try:
        config = scratch / "tiny.ini"
        # The random 4K read is fixed-work at the writers' scale: a delayed rank would take hours.
        skip_rnd4k = "\n[ior-rnd4K-easy-read]\nrun = FALSE\n"
        config.write_text(TINY_CONFIG.format(root=scratch) + skip_rnd4k, encoding="utf-8")
        env = mpi_env()
        args = ["--debug-delay-rank", str(DELAYED_RANK), "--debug-delay-us", str(DELAY_US)]
        command = [*MPI.launch(2), str(SUITE), str(config), "-q", *args]
        done = subprocess.run(
            command, cwd=scratch, env=env, capture_output=True, text=True, timeout=300, check=False
        )
        assert done.returncode == 0, done.stdout + done.stderr
        (run_dir,) = find_runs(scratch / "results")
        run = load_run(run_dir)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    # Every phase long enough to judge: the delayed rank is the slow one, and only it.
    judged = [p for p in run.phases.values() if p.name not in ("timestamp", "find")]
    judged = [p for p in judged if p.name != "ior-rnd4K-easy-read"]
    for name in (p.name for p in judged):
        spread = phase_spread(run.phases[name])
        assert spread.slowest_rank == DELAYED_RANK, name
        assert spread.straggler_ranks == [DELAYED_RANK], (name, spread)


@pytest.mark.parametrize("size", [2, 3, 4, 7, 10])
def test_median_without_matches_the_plain_median(size: int) -> None:
    values = sorted(float((i * 37) % 11) for i in range(size))
    for value in values:
        rest = list(values)
        rest.remove(value)
        assert median_without(values, value) == pytest.approx(median(rest))


@pytest.mark.parametrize("seed", range(6))
def test_rank_rule_on_every_rank_matches_the_plain_leave_one_out_rule(seed: int) -> None:
    # rank_stragglers clears most ranks by two bounds before judging; the flags must be those
    # of judging every rank against the plain median of all the others.
    rng = random.Random(seed)
    ranks = []
    for i in range(60):
        start = rng.choice([0.0, 0.0, rng.uniform(0, 1.5)])  # some start late
        busy = rng.choice([2.0, 2.0, rng.uniform(0.5, 4.0)])  # ties and slow ones
        ranks.append(
            RankStat(
                rank=i,
                host=f"n{i % 6}",
                start=start,
                first_done=start + busy,
                end=4.5,
                items=100,
                bytes=100,
                rate=100 / 4.5,
            )
        )
    phase = PhaseResult(name="mdtest-easy-stat", value=1.0, unit="kIOPS", ranks=ranks)
    duration = max(r.first_done for r in ranks if r.first_done is not None)
    expected = []
    for stat in ranks:
        others = [r for r in ranks if r is not stat]
        rate = stat.items / (stat.first_done - stat.start)
        peer_rate = median(o.items / (o.first_done - o.start) for o in others)
        late = stat.first_done - median(o.first_done for o in others)
        if rate < RATE_FRACTION * peer_rate or (late > 0.25 * duration and late > LATE_MIN_S):
            expected.append(stat.rank)
    assert [flag.rank for flag in rank_stragglers(phase)] == expected
    assert expected  # the cases do flag some ranks
