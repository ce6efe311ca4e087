"""The library's one summariser (``rank_summary.summarise_ranks``) against its definition,
written out here rank by rank: the named ranks, nearest-rank quantiles and per-host sums; the
same summary from a list of RankStat and from the reader's packed columns; and
``summary_form`` keeping a phase at the threshold whole and summarising one above it."""

from __future__ import annotations

import random
from array import array
from collections import defaultdict
from typing import Any

import pytest

from ioscore.results import summarise_ranks, summary_form
from ioscore.results.model import RANK_FIELDS, PhaseResult, RankColumns, RankStat

K = 4


def _ranks(count: int, seed: int) -> list[RankStat]:
    """Ranks with the odd cases: missing rates, hosts and times, tied rates, int rates."""
    rng = random.Random(seed)
    ranks = []
    for number in rng.sample(range(count * 3), count):  # rank numbers out of order
        rate: Any = rng.choice([1.5, 2.0, 2.0, 7, None, rng.uniform(0.1, 9.0)])
        ranks.append(
            RankStat(
                rank=number,
                host=rng.choice([None, "n1", "n2", "n3", "a0"]),
                start=rng.choice([None, 0.0, rng.uniform(0, 1)]),
                end=rng.choice([None, rng.uniform(1, 3)]),
                items=rng.choice([None, rng.randrange(100)]),
                rate=rate,
                first_done=rng.choice([None, rng.uniform(1, 2)]),
                bytes=rng.choice([None, rng.randrange(1 << 20)]),
            )
        )
    return ranks


def _nearest_rank(values: list[float], percent: int) -> float:
    ordered = sorted(values)
    return ordered[round(percent / 100 * (len(ordered) - 1))]


@pytest.mark.parametrize("seed", range(6))
def test_the_summary_is_what_its_definition_says(seed: int) -> None:
    ranks = _ranks(300, seed)
    summary, named = summarise_ranks(ranks, k=K)
    rated = sorted((r for r in ranks if r.rate is not None), key=lambda r: (r.rate, r.rank))
    assert summary.count == len(ranks)
    assert summary.slowest == [r.rank for r in rated[:K]]
    assert summary.fastest == [r.rank for r in reversed(rated)][:K]
    assert named == sorted(rated[:K] + rated[-K:], key=lambda r: r.rank)
    for name in ("rate", "start", "first_done", "end"):
        values = [getattr(r, name) for r in ranks if getattr(r, name) is not None]
        for percent in (0, 1, 5, 25, 50, 75, 95, 99, 100):
            assert summary.quantiles[name][f"p{percent}"] == _nearest_rank(values, percent)
    assert sum(summary.histogram_counts) == len(rated)
    per_host: dict[str, list[RankStat]] = defaultdict(list)
    for r in ranks:
        if r.host is not None and r.rate is not None:
            per_host[r.host].append(r)
    assert [h.host for h in summary.hosts] == sorted(per_host)
    for host in summary.hosts:
        mine = per_host[host.host]
        assert host.ranks == len(mine)
        assert host.items == sum(r.items or 0 for r in mine)
        assert host.bytes == sum(r.bytes or 0 for r in mine)
        assert host.rate_sum == pytest.approx(sum(r.rate for r in mine))  # type: ignore[misc]
        assert (host.rate_min, host.rate_max) == (
            min(r.rate for r in mine),  # type: ignore[type-var]
            max(r.rate for r in mine),  # type: ignore[type-var]
        )
        assert host.start_min == min(r.start or 0.0 for r in mine)
        assert host.end_max == max(r.end or 0.0 for r in mine)


def _packed(ranks: list[RankStat]) -> RankColumns:
    """The ranks as the fast reader hands them over: numeric columns as arrays where full."""
    columns: list[Any] = []
    for name in RANK_FIELDS:
        values = [getattr(r, name) for r in ranks]
        if None not in values and all(isinstance(v, float) for v in values):
            columns.append(array("d", values))
        else:
            columns.append(values)
    return RankColumns(columns)


@pytest.mark.parametrize("full", [False, True])
def test_packed_columns_give_the_same_summary(full: bool) -> None:
    ranks = _ranks(200, 99)
    if full:  # every value present, so the floats are packed in arrays
        ranks = [RankStat(r.rank, "h", 0.5, 2.0, 3, float(r.rank % 17), 1.0, 4) for r in ranks]
    packed = _packed(ranks)
    assert summarise_ranks(packed, k=K) == summarise_ranks(ranks, k=K)


def test_summary_form_keeps_a_phase_at_the_threshold_whole() -> None:
    ranks = _ranks(40, 5)
    series = {"bucket_s": 1.0, "aggregate": [1, 2], "per_rank": [[1, 0]] * 40}
    phase = PhaseResult("ior-easy-write", 1.0, "GiB/s", ranks=ranks, timeseries=series)
    assert summary_form(phase, "result.json", threshold=40) is phase
    summarised = summary_form(phase, "result.json", threshold=39)
    summary, named = summarise_ranks(ranks)
    assert summarised.ranks == named
    assert summarised.rank_summary is not None
    assert summarised.rank_summary.full_file == "result.json"
    assert summarised.rank_summary.quantiles == summary.quantiles
    assert summarised.timeseries == {**series, "per_rank": []}
    assert phase.ranks is ranks and phase.rank_summary is None  # the phase is not modified
    assert summary_form(summarised, None, threshold=1) is summarised  # already summarised
