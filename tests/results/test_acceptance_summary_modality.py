"""The multimodality gap test on the summary form: at 10,000 ranks an acceptance
launch above the rank-detail threshold keeps quantiles, a rate histogram, per-host aggregates
and the 16 slowest and 16 fastest ranks. The summary's test must find the groups the full data
has (same sizes, the slow hosts or ranks named) and never claim groups the full data lacks."""

from __future__ import annotations

import random

import pytest

from ioscore.acceptance.modality import summary_groups, two_groups
from ioscore.results.model import HostAggregate, RankSummary
from ioscore.results.rank_summary import quantiles
from ioscore.results.synthetic import summarised_phase

RANKS = 10_000
PPN = 16


def phase_of(rates: list[float]) -> dict:
    """A full-form phase of len(rates) ranks, PPN per host, with these suite rates."""
    records = []
    for rank, rate in enumerate(rates):
        records.append(
            {
                "rank": rank,
                "host": f"n{rank // PPN:04d}",
                "start": 0.0,
                "first_done": 1.0,
                "end": 1.0,
                "items": 1,
                "bytes": int(rate),
                "rate": rate,
                "verify_errors": 0,
            }
        )
    return {"name": "ior-write-0", "ranks": records, "timeseries": {"per_rank": []}}


def summary_of(rates: list[float]) -> tuple[RankSummary, dict[int, float]]:
    """The summary form of those ranks (as the library's synthetic reference writes it)."""
    phase = summarised_phase(phase_of(rates))
    raw = phase["rank_summary"]
    summary = RankSummary(
        count=raw["count"],
        quantiles=raw["quantiles"],
        histogram_edges=raw["histogram"]["rate"]["edges"],
        histogram_counts=raw["histogram"]["rate"]["counts"],
        slowest=raw["slowest"],
        fastest=raw["fastest"],
        hosts=[HostAggregate(**h) for h in raw["hosts"]],
    )
    assert len(phase["ranks"]) == 32  # only the named ranks survive
    return summary, {r["rank"]: r["rate"] for r in phase["ranks"]}


def noisy(rng: random.Random, value: float, spread: float = 0.02) -> float:
    return value * rng.uniform(1 - spread, 1 + spread)


def test_two_slow_hosts_among_10000_ranks_are_found_and_named() -> None:
    rng = random.Random(1)
    slow_hosts = {17, 301}  # 32 ranks, more than the summary names
    rates = [noisy(rng, 0.25e9 if r // PPN in slow_hosts else 1e9) for r in range(RANKS)]
    full = two_groups(rates)
    assert full is not None and len(full.low) == 32
    summary, named = summary_of(rates)
    groups = summary_groups(summary, named)
    assert groups is not None
    assert (groups.n_low, groups.n_high) == (32, RANKS - 32)
    assert groups.low_ranks == ()  # 32 slow ranks: not all of them are named
    slow = sorted(h.host for h in summary.hosts if h.rate_max <= groups.cut)
    assert slow == ["n0017", "n0301"]
    assert groups.low_median == pytest.approx(0.25e9, rel=0.05)
    assert groups.high_median == pytest.approx(1e9, rel=0.05)


def test_a_few_slow_ranks_are_named_exactly() -> None:
    rng = random.Random(2)
    slow = set(rng.sample(range(RANKS), 10))
    rates = [noisy(rng, 0.1e9 if r in slow else 1e9) for r in range(RANKS)]
    summary, named = summary_of(rates)
    groups = summary_groups(summary, named)
    assert groups is not None and groups.low_ranks == tuple(sorted(slow))
    full = two_groups(rates)
    assert full is not None and len(full.low) == groups.n_low == 10


@pytest.mark.parametrize("seed", range(6))
def test_the_summary_never_claims_groups_the_full_data_lacks(seed: int) -> None:
    rng = random.Random(seed)
    shape = seed % 3
    if shape == 0:  # one wide mode
        rates = [rng.uniform(0.5e9, 1.5e9) for _ in range(RANKS)]
    elif shape == 1:  # one tight mode with a long tail
        rates = [1e9 * rng.lognormvariate(0, 0.3) for _ in range(RANKS)]
    else:  # two modes 20 % apart: timer noise, not groups
        rates = [noisy(rng, 1e9 if rng.random() < 0.5 else 1.2e9, 0.08) for _ in range(RANKS)]
    summary, named = summary_of(rates)
    groups = summary_groups(summary, named)
    full = two_groups(rates)
    if groups is not None:
        assert full is not None and len(full.low) == groups.n_low
    if shape == 0:
        assert groups is None and full is None


def test_with_every_rank_named_it_is_the_full_data_test() -> None:
    for rates in ([1e8, 1.05e8, 1e9, 1.02e9, 0.98e9], [1e9, 1.01e9, 0.99e9, 1.02e9]):
        ranks = {rank: rate for rank, rate in enumerate(rates)}
        order = sorted(ranks, key=lambda r: (ranks[r], r))
        summary = RankSummary(
            count=len(rates),
            quantiles={"rate": quantiles(rates)},
            histogram_edges=[min(rates), max(rates)],
            histogram_counts=[len(rates)],
            slowest=order,
            fastest=order[::-1],
            hosts=[],
        )
        groups = summary_groups(summary, ranks)
        full = two_groups(rates)
        assert (groups is None) == (full is None)
        if groups is not None and full is not None:
            assert groups.n_low == len(full.low) and groups.low_ranks == (0, 1)
            assert groups.low_median == pytest.approx(full.low_median)
