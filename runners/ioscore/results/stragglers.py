"""Per-phase rank spread and straggler detection (pure functions on the result model).

Only runs with per-rank data (ioscore's result.json) have something to analyse; IO500-format
runs give an empty rank list and every function here returns "no data" for them.

Definitions, per phase. A rank's **work rate** is what it achieved on its own, without the
closing synchronisation (``end`` includes the barrier where fast ranks wait for slow ones, so
the suite's per-rank ``rate`` over start..end is nearly equal for all ranks):

* normally ``work rate = amount / (first_done - start)``, ``first_done`` being the end of the
  rank's main loop and ``amount`` its bytes for GiB/s phases, its items otherwise;
* in a stonewalled phase with wear-out (``stonewall.wearout_items > 0``) every rank's main
  loop ends at the deadline and wear-out then brings every rank to the same item count, so
  the rank's items completed before the deadline (from its time series buckets, scaled to
  bytes for GiB/s phases) divided by the deadline are used instead;
* without ``first_done`` the suite's ``rate`` is used.

* **spread**: minimum, median and maximum of the work rates.
* **tail**: ``max(first_done) - min(first_done)`` over the ranks, in seconds: from the first
  rank out of its main loop to the last one (``end`` stands in when ``first_done`` is absent).
* **slowest rank**: the rank with the lowest work rate (ties: the lower rank number); the
  **slowest host**: the host with the lowest mean work rate of its ranks.

A rank is a **straggler** when it is compared with its peers (every *other* rank of the
phase, so that with two ranks the slow one is not part of its own yardstick) and

1. ``work rate < RATE_FRACTION (0.5) x median(peer work rates)``: a fixed-work phase (reads,
   stat, delete) shows a slow rank as the same items in more time, a stonewalled phase as
   fewer items by the deadline; or
2. it finishes late: ``first_done - median(peer first_done) > LATE_FRACTION (0.25) x phase
   duration`` (phase duration = the latest ``first_done``) *and* by more than ``LATE_MIN_S``
   (0.1 s), so timer noise never counts. This catches a rank whose own rate looks normal but
   that started late and so held the whole phase up.

A host is a straggler when it is compared with the other hosts (at least two hosts) and the
mean work rate of its ranks is below ``RATE_FRACTION x median(mean rate of each other host)``.
Phases with fewer than two ranks (or two hosts, for hosts) never flag anything, and neither
do phases shorter than ``MIN_JUDGED_S`` (0.05 s, latest ``first_done``): below that, rank
rates measure timer resolution and scheduling noise, not storage (a 0.5 ms find over a few
hundred entries easily differs 2x between two ranks).

**Summary form** (a result above the suite's rank-detail threshold): the file keeps
only its K slowest and K fastest rank objects plus per-rank quantiles and per-host aggregates
(``PhaseResult.rank_summary``). The same rules then judge the named ranks against the p50
quantiles (of the suite's ``rate`` and of ``first_done``; phase duration = p100 of
``first_done``), and the hosts by the aggregates' mean rate (``rate_sum / ranks``). The suite's
rate stands in for the work rate there: without the per-rank time series, wear-out cannot be
taken out, so a stonewalled phase's rate rule is as good as the suite's rate.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import compress, groupby, repeat
from operator import attrgetter, eq, gt, is_not, lt, or_, sub, truediv
from statistics import median
from typing import Any

from ioscore.results.model import PhaseResult, RankColumns, RankStat, RunResult

RATE_FRACTION = 0.5
LATE_FRACTION = 0.25
LATE_MIN_S = 0.1
MIN_JUDGED_S = 0.05
HISTOGRAM_BINS = 32  # as the suite's summary form


@dataclass(frozen=True)
class RankFlag:
    rank: int
    host: str | None
    reason: str  # human-readable, names the numbers compared


@dataclass(frozen=True)
class HostFlag:
    host: str
    ranks: tuple[int, ...]
    reason: str


@dataclass
class PhaseSpread:
    phase: str
    ranks: int  # ranks with a rate
    rate_min: float | None = None
    rate_median: float | None = None
    rate_max: float | None = None
    tail_s: float | None = None
    slowest_rank: int | None = None
    slowest_host: str | None = None
    rank_stragglers: list[RankFlag] = field(default_factory=list)
    host_stragglers: list[HostFlag] = field(default_factory=list)

    @property
    def has_rank_data(self) -> bool:
        return self.ranks > 0

    @property
    def straggler_ranks(self) -> list[int]:
        return [flag.rank for flag in self.rank_stragglers]


# The full form's 100,000 ranks x 12 phases are analysed column by column: one
# list per RankStat field, arithmetic and comparisons mapped at C speed.


def _column(ranks: Sequence[RankStat], name: str) -> Sequence[Any]:
    if isinstance(ranks, RankColumns):
        return ranks.column(name)
    return list(map(attrgetter(name), ranks))


def _done_column(ranks: Sequence[RankStat]) -> Sequence[float | None]:
    """Each rank's first_done, its end standing in when first_done is absent."""
    first = _column(ranks, "first_done")
    if None not in first:
        return first
    return [f if f is not None else e for f, e in zip(first, _column(ranks, "end"), strict=True)]


def _rated(ranks: Sequence[RankStat], rates: dict[int, float]) -> Sequence[int]:
    """Indices of the ranks that have a rate in `rates`."""
    numbers = _column(ranks, "rank")
    if len(rates) == len(numbers) and all(map(rates.__contains__, numbers)):
        return range(len(numbers))
    return list(compress(range(len(numbers)), map(rates.__contains__, numbers)))


def _present(values: Sequence[Any]) -> Sequence[Any]:
    """The values that are not None (`values` itself when all are: not to be modified)."""
    return [v for v in values if v is not None] if None in values else values


def _picked(values: Sequence[Any], indices: Sequence[int]) -> Sequence[Any]:
    """values[i] for i in indices (`values` itself for all of them: not to be modified)."""
    if isinstance(indices, range) and len(indices) == len(values):
        return values
    return list(map(values.__getitem__, indices))


def _stonewall_amounts(phase: PhaseResult) -> dict[int, float] | None:
    """Per rank: amount done before the deadline, when wear-out equalised the item counts."""
    stonewall = phase.extra.get("stonewall")
    series = phase.timeseries or {}
    if not isinstance(stonewall, dict) or not stonewall.get("wearout_items"):
        return None
    deadline, bucket = stonewall.get("deadline_s"), series.get("bucket_s")
    per_rank = series.get("per_rank") or []
    if not deadline or not bucket or len(per_rank) != len(phase.ranks):
        return None
    buckets = max(1, math.ceil(float(deadline) / float(bucket) - 1e-9))
    amounts = {}
    for stat, row in zip(phase.ranks, per_rank, strict=True):
        items = float(sum(row[:buckets]))
        if phase.unit == "GiB/s" and stat.items:
            items *= (stat.bytes or 0) / stat.items
        amounts[stat.rank] = items / float(deadline)
    return amounts


def work_rates(phase: PhaseResult) -> dict[int, float]:
    """Rank -> work rate (bytes/s for GiB/s phases, items/s otherwise); see the docstring."""
    from_stonewall = _stonewall_amounts(phase)
    if from_stonewall is not None:
        return from_stonewall
    ranks = phase.ranks
    amounts = _column(ranks, "bytes" if phase.unit == "GiB/s" else "items")
    done, start = _column(ranks, "first_done"), _column(ranks, "start")
    if ranks and None not in amounts and None not in done and None not in start:
        spans = list(map(sub, done, start))
        if min(spans) > 0:  # every rank by the first rule, in one pass
            return dict(zip(_column(ranks, "rank"), map(truediv, amounts, spans), strict=True))
    rates: dict[int, float] = {}
    for stat in phase.ranks:
        amount = stat.bytes if phase.unit == "GiB/s" else stat.items
        busy = None if stat.first_done is None else stat.first_done - (stat.start or 0.0)
        if amount is not None and busy is not None and busy > 0:
            rates[stat.rank] = amount / busy
        elif stat.rate is not None:
            rates[stat.rank] = stat.rate
    return rates


def judged_rates(phase: PhaseResult, work: dict[int, float] | None = None) -> dict[int, float]:
    """The rates the rank rule compares: work rates, or in the summary form the suite's rate
    of the named ranks, the quantity the summary's quantiles describe (a work rate against the
    median suite rate would compare two different things)."""
    if phase.rank_summary is None:
        return work_rates(phase) if work is None else work
    return {r.rank: r.rate for r in phase.ranks if r.rate is not None}


def median_without(ordered: list[float], value: float) -> float:
    """Median of `ordered` (sorted) with one occurrence of `value` left out, in O(1).

    Leaving out the first occurrence of `value` (at ``bisect_left(ordered, value)``) shifts
    the entries from there on by one, so entry ``index`` of the shorter list is
    ``ordered[index]`` exactly when ``ordered[index] < value``: no search needed, which
    matters at 100,000 ranks x 12 phases.
    """
    count = len(ordered) - 1

    def at(index: int) -> float:  # index into the list without `value`
        return ordered[index] if ordered[index] < value else ordered[index + 1]

    if count % 2:
        return at(count // 2)
    return (at(count // 2 - 1) + at(count // 2)) / 2


def _duration(done: Sequence[float | None]) -> float | None:
    present = _present(done)
    return max(present) if present else None


def _quantile(phase: PhaseResult, field: str, key: str) -> float | None:
    summary = phase.rank_summary
    values = summary.quantiles.get(field) if summary else None
    return values.get(key) if values else None


def _phase_duration(phase: PhaseResult, done: Sequence[float | None]) -> float | None:
    """The latest first_done (`done`: of the ranks that count), or its p100 quantile in the
    summary form."""
    if phase.rank_summary is not None:
        return _quantile(phase, "first_done", "p100") or _quantile(phase, "end", "p100")
    return _duration(done)


def _rank_verdict(rate: float, peer_rate: float, late: float | None, duration: float) -> str | None:
    """The rank rule (module docstring) on one rank: why it is a straggler, or None."""
    if rate < RATE_FRACTION * peer_rate:
        return f"work rate {rate:.4g} < {RATE_FRACTION} x peer median {peer_rate:.4g}"
    if late is not None and late > LATE_FRACTION * duration and late > LATE_MIN_S:
        return (
            f"done {late:.3g} s after the peer median (> {LATE_FRACTION} x phase {duration:.3g} s)"
        )
    return None


def rank_stragglers(phase: PhaseResult, work: dict[int, float] | None = None) -> list[RankFlag]:
    """Ranks well below (or well after) their peers; see the module docstring for the rule.
    ``work``: the phase's ``work_rates``, when the caller has them already.

    Summary form (``phase.rank_summary``): the ranks the file names (its slowest and fastest)
    are judged by the same rule, their peers' medians being the summary's p50 of ``rate`` and
    of ``first_done`` over all ranks (leaving one rank out of 4,096 or more moves a median by
    at most one order statistic).
    """
    return _rank_flags(phase, judged_rates(phase, work))


def _rank_flags(
    phase: PhaseResult, rates: dict[int, float], ordered: list[float] | None = None
) -> list[RankFlag]:
    """``rank_stragglers`` with the judged rates; `ordered`: ``sorted(rates.values())``,
    when the caller has it."""
    ranks = phase.ranks
    rated = _rated(ranks, rates)
    numbers, all_done = _column(ranks, "rank"), _done_column(ranks)
    rated_rates = list(map(rates.__getitem__, _picked(numbers, rated)))
    rated_done = _picked(all_done, rated)
    duration = _phase_duration(phase, rated_done)
    counted = phase.rank_summary.count if phase.rank_summary else len(rated)
    if counted < 2 or not rated or duration is None or duration < MIN_JUDGED_S:
        return []
    candidates: Sequence[int] = range(len(rated))
    if phase.rank_summary is not None:
        median_rate = _quantile(phase, "rate", "p50")
        median_done = _quantile(phase, "first_done", "p50")
        if median_rate is None:
            return []

        def peer_rate(rate: float) -> float:
            return median_rate

        def late_by(done: float) -> float | None:
            return None if median_done is None else done - median_done
    else:
        # Peers = every other rank: leave-one-out medians over sorted lists (large runs stay
        # fast).
        every_rank = isinstance(rated, range)  # then rated_rates are rates.values()
        ordered_rates = ordered if ordered is not None and every_rank else sorted(rated_rates)
        ordered_done = sorted(_present(rated_done))

        def peer_rate(rate: float) -> float:
            return median_without(ordered_rates, rate)

        def late_by(done: float) -> float | None:
            return done - median_without(ordered_done, done) if len(ordered_done) > 1 else None

        candidates = _candidates(rated_rates, rated_done, ordered_rates, ordered_done, duration)
    hosts = _column(ranks, "host")
    flags = []
    for j in candidates:
        rate, done = rated_rates[j], rated_done[j]
        reason = _rank_verdict(
            rate, peer_rate(rate), None if done is None else late_by(done), duration
        )
        if reason:
            flags.append(RankFlag(numbers[rated[j]], hosts[rated[j]], reason))
    return flags


def _candidates(
    rates: list[float],
    done: Sequence[float | None],
    ordered_rates: list[float],
    ordered_done: list[float],
    duration: float,
) -> list[int]:
    """Positions of the ranks the rule could flag (in `rates` and `done`, in order): a rank's
    leave-one-out median is at most the one without the lowest value (rates) and at least
    the one without the highest (first_done), so ranks past both bounds are cleared without
    judging each (100,000 ranks x 12 phases)."""
    slow_below = RATE_FRACTION * median_without(ordered_rates, ordered_rates[0])
    slow = map(gt, repeat(slow_below), rates)
    if len(ordered_done) < 2:
        return list(compress(range(len(rates)), slow))
    earliest_peer = median_without(ordered_done, ordered_done[-1])
    late_by = max(LATE_FRACTION * duration, LATE_MIN_S)  # the rule's two late conditions
    late: Iterable[bool]
    if None in done:
        late = (d is not None and d - earliest_peer > late_by for d in done)
    else:
        late = map(lt, repeat(late_by), map(sub, done, repeat(earliest_peer)))
    return list(compress(range(len(rates)), map(or_, slow, late)))


def host_rates(phase: PhaseResult, work: dict[int, float] | None = None) -> dict[str, float]:
    """Mean work rate of each host's ranks (ranks without a host or a rate are left out).

    Summary form: the host aggregates' mean rate (``rate_sum / ranks``).
    """
    if phase.rank_summary is not None:
        return {h.host: h.rate_sum / h.ranks for h in phase.rank_summary.hosts if h.ranks > 0}
    rates = work_rates(phase) if work is None else work
    numbers, all_hosts = _column(phase.ranks, "rank"), _column(phase.ranks, "host")
    kept = _rated(phase.ranks, rates)
    hosts = _picked(all_hosts, kept)
    if None in hosts:
        kept = list(compress(kept, map(is_not, hosts, repeat(None))))
        hosts = _picked(all_hosts, kept)
    values: Sequence[float] = list(map(rates.__getitem__, _picked(numbers, kept)))
    # Listed in order of first appearance, grouped at C speed: as they come when each
    # host's ranks are contiguous (the suite's order), else sorted by host. fsum is exact,
    # so the order of a host's rates does not matter (nor statistics.mean's exact
    # fractions, ~60 us per host of 100 ranks).
    means: dict[str, float] = dict.fromkeys(hosts, 0.0)
    if len(list(groupby(hosts))) != len(means):
        order = sorted(range(len(hosts)), key=hosts.__getitem__)
        hosts, values = _picked(hosts, order), _picked(values, order)
    start = 0
    for host, members in groupby(hosts):
        end = start + len(list(members))
        means[host] = math.fsum(values[start:end]) / (end - start)
        start = end
    return means


def host_stragglers(phase: PhaseResult, work: dict[int, float] | None = None) -> list[HostFlag]:
    """Hosts well below the others; in the summary form ``HostFlag.ranks`` lists the host's
    ranks the file names (its slowest and fastest), not every rank of the host. ``work``:
    the phase's ``work_rates``, when the caller has them already."""
    return _host_flags(phase, host_rates(phase, work))


def _host_flags(phase: PhaseResult, rates: dict[str, float]) -> list[HostFlag]:
    """``host_stragglers`` from the phase's ``host_rates``."""
    duration = _phase_duration(phase, _done_column(phase.ranks))
    if len(rates) < 2 or duration is None or duration < MIN_JUDGED_S:
        return []
    ordered = sorted(rates.values())
    flags = []
    numbers, hosts = _column(phase.ranks, "rank"), _column(phase.ranks, "host")
    for host, rate in rates.items():
        peer_rate = median_without(ordered, rate)
        if rate < RATE_FRACTION * peer_rate:
            members = tuple(sorted(compress(numbers, map(eq, repeat(host), hosts))))
            reason = (
                f"mean work rate {rate:.4g} < {RATE_FRACTION} x other hosts' median {peer_rate:.4g}"
            )
            flags.append(HostFlag(host, members, reason))
    return flags


def tail_seconds(ranks: Sequence[RankStat]) -> float | None:
    done = _present(_done_column(ranks))
    return max(done) - min(done) if done else None


def phase_spread(phase: PhaseResult) -> PhaseSpread:
    """The phase's spread; in the summary form min/median/max and the tail come from the
    quantiles (of the suite's rate and of first_done) and the slowest rank is the one of
    lowest work rate among the ranks the file names."""
    rates = work_rates(phase)  # of the named ranks in the summary form
    summary = phase.rank_summary
    spread = PhaseSpread(phase=phase.name, ranks=summary.count if summary else len(rates))
    if not rates:
        return spread
    if summary is not None:
        spread.rate_min = _quantile(phase, "rate", "p0")
        spread.rate_median = _quantile(phase, "rate", "p50")
        spread.rate_max = _quantile(phase, "rate", "p100")
        first, last = _quantile(phase, "first_done", "p0"), _quantile(phase, "first_done", "p100")
        spread.tail_s = None if first is None or last is None else last - first
    else:
        ordered = sorted(rates.values())
        spread.rate_min, spread.rate_median = ordered[0], median(ordered)  # sorted: O(n)
        spread.rate_max = ordered[-1]
        spread.tail_s = tail_seconds(phase.ranks)
    # The lowest (rate, rank): the lowest rank number of the lowest rate.
    lowest = min(rates.values())
    spread.slowest_rank = min(compress(rates, map(eq, repeat(lowest), rates.values())))
    per_host = host_rates(phase, rates)
    if per_host:
        spread.slowest_host = min(per_host, key=lambda h: (per_host[h], h))
    spread.rank_stragglers = _rank_flags(phase, rates, ordered if summary is None else None)
    spread.host_stragglers = _host_flags(phase, per_host)
    return spread


def rate_histogram(rates: list[float], bins: int = HISTOGRAM_BINS) -> dict[str, list[Any]]:
    """Ranks per rate bin, like the summary form's histogram: ``counts[i]`` rates lie in
    ``edges[i] <= rate < edges[i+1]`` (the highest in the last bin); equal-width bins from the
    lowest to the highest rate, one bin when all are equal, none without rates."""
    if not rates:
        return {"edges": [], "counts": []}
    low, high = min(rates), max(rates)
    if high <= low:
        return {"edges": [low, high], "counts": [len(rates)]}
    width = (high - low) / bins
    counts = [0] * bins
    for rate in rates:
        counts[min(bins - 1, int((rate - low) / width))] += 1
    return {"edges": [low + i * width for i in range(bins)] + [high], "counts": counts}


def run_spreads(run: RunResult) -> list[PhaseSpread]:
    """One PhaseSpread per phase, in the run's phase order."""
    return [phase_spread(phase) for phase in run.phases.values()]
