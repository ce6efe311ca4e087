"""Multimodality hints: do an operation's per-rank rates (or per-iteration values) form groups?

NERSC's guidance asks of every number how uncertain it is, including whether its distribution
has more than one mode: a mean over 30 fast ranks and 2 slow ones (one slow link, one bad
OST) describes neither group. The test here is a **gap test** on the sorted values, robust
to outliers because it uses no mean or variance:

* split at the largest gap between neighbours (both sides non-empty);
* the values form two groups when that gap is at least ``GAP_FACTOR`` (2) times the wider
  group's own range *and* at least ``MIN_RELATIVE_GAP`` (25 %) of the median value, so two
  tight clusters a few per cent apart (timer noise) are not called groups.

At least ``MIN_VALUES`` (3) values are needed. The hint says, in plain words, how many values
sit in each group, at which typical (median) value, and for ranks the hosts of the smaller
group, e.g. "per-rank write rates form two groups: 30 ranks at ~1.1 GiB/s, 2 at ~0.4 GiB/s
(hosts n12, n13)".

Summary form (a launch above the suite's rank-detail threshold: ``PhaseResult.rank_summary``
instead of every rank): the same test runs per iteration on what the summary keeps, the
exact p0 and p100, the rate histogram and the named slowest and fastest ranks (exact values).
Where a value is only known to lie in a histogram bucket, the gap takes its smallest and the
groups' ranges their largest possible size, so the summary never claims groups that the full
data would not show; with every rank named the result is the full-data test's. Its rates are
the suite's per-rank rates (amount over each rank's open-to-close span), and the hint says it
is working from the summary.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import median

from ioscore.acceptance.results import Iteration, Operation
from ioscore.acceptance.targets import BANDWIDTH
from ioscore.results.model import RankSummary

GAP_FACTOR = 2.0
MIN_RELATIVE_GAP = 0.25
MIN_VALUES = 3
MAX_NAMED_HOSTS = 6


@dataclass(frozen=True)
class Groups:
    low: list[float]
    high: list[float]
    gap: float

    @property
    def low_median(self) -> float:
        return median(self.low)

    @property
    def high_median(self) -> float:
        return median(self.high)


def two_groups(values: list[float]) -> Groups | None:
    """The two groups of `values` by the gap test, or None (one group or too few values)."""
    ordered = sorted(values)
    if len(ordered) < MIN_VALUES:
        return None
    gaps = [(ordered[i + 1] - ordered[i], i) for i in range(len(ordered) - 1)]
    gap, at = max(gaps)
    low, high = ordered[: at + 1], ordered[at + 1 :]
    within = max(low[-1] - low[0], high[-1] - high[0])
    if gap <= 0 or gap < GAP_FACTOR * within or gap < MIN_RELATIVE_GAP * median(ordered):
        return None
    return Groups(low, high, gap)


def _shown(value: float, quantity: str) -> str:
    if quantity == BANDWIDTH:
        if value >= 1 << 30:
            return f"~{value / (1 << 30):.2g} GiB/s"
        return f"~{value / (1 << 20):.3g} MiB/s"
    return f"~{value:,.0f} ops/s" if value >= 1000 else f"~{value:.3g} ops/s"


@dataclass(frozen=True)
class Hint:
    operation: str
    over: str  # "ranks" or "iterations"
    text: str
    low_members: tuple[str, ...]  # ranks (or iterations) of the low group
    hosts: tuple[str, ...]  # hosts of the low group's ranks

    def to_dict(self) -> dict[str, object]:
        return {
            "operation": self.operation,
            "over": self.over,
            "text": self.text,
            "low_members": list(self.low_members),
            "hosts": list(self.hosts),
        }


def rank_means(op: Operation) -> dict[int, float]:
    """Each rank's work rate averaged over the iterations (ranks missing from one are kept)."""
    collected: dict[int, list[float]] = {}
    for iteration in op.iterations:
        for rank, rate in iteration.rank_rates.items():
            collected.setdefault(rank, []).append(rate)
    return {rank: sum(v) / len(v) for rank, v in collected.items()}


def _group_text(
    what: str, counts: tuple[int, int], medians: tuple[float, float], quantity: str, unit_word: str
) -> str:
    """counts and medians: (low, high)."""
    word = unit_word if counts[1] > 1 else unit_word.rstrip("s")
    return (
        f"{what} form two groups: {counts[1]} {word} at {_shown(medians[1], quantity)}, "
        f"{counts[0]} at {_shown(medians[0], quantity)}"
    )


@dataclass(frozen=True)
class SummaryGroups:
    """The two groups the gap test finds in a phase's rank summary."""

    n_low: int
    n_high: int
    low_median: float
    high_median: float
    cut: float  # every low rank's rate is at most this, every high rank's above it
    low_ranks: tuple[int, ...]  # the low group's ranks when the summary names them all, else ()


class _Ordered:
    """Bounds of the k-th smallest rate (1-based) of a summarised phase: exact for the named
    slowest and fastest ranks, else the histogram bucket that holds it, within [p0, p100]."""

    def __init__(self, summary: RankSummary, rates: dict[int, float]) -> None:
        self.n = summary.count
        self.slow = [rates[r] for r in summary.slowest if r in rates]
        self.fast = [rates[r] for r in summary.fastest if r in rates]
        self.p0 = summary.quantiles["rate"]["p0"]
        self.p100 = summary.quantiles["rate"]["p100"]
        edges, counts = summary.histogram_edges, summary.histogram_counts
        self.buckets = [(edges[i], edges[i + 1], c) for i, c in enumerate(counts) if c > 0]

    def bounds(self, k: int) -> tuple[float, float]:
        if k <= len(self.slow):
            return self.slow[k - 1], self.slow[k - 1]
        if self.n - k < len(self.fast):
            return self.fast[self.n - k], self.fast[self.n - k]
        seen = 0
        for lo, hi, count in self.buckets:
            seen += count
            if seen >= k:
                return max(lo, self.p0), min(hi, self.p100)
        return self.p0, self.p100

    def value(self, k: int) -> float:
        lo, hi = self.bounds(k)
        return (lo + hi) / 2

    def median(self, first: int, count: int) -> float:
        """Median of the count values from the first-th smallest on (as statistics.median)."""
        middle = first + (count - 1) // 2
        return (
            self.value(middle) if count % 2 else (self.value(middle) + self.value(middle + 1)) / 2
        )

    def splits(self) -> set[int]:
        """Low-group sizes worth trying: bucket boundaries and every split among named ranks."""
        sizes, seen = set(range(1, len(self.slow) + 1)), 0
        sizes |= {self.n - k for k in range(1, len(self.fast) + 1)}
        for _, _, count in self.buckets:
            seen += count
            sizes.add(seen)
        return {k for k in sizes if 0 < k < self.n}


def summary_groups(summary: RankSummary, rates: dict[int, float]) -> SummaryGroups | None:
    """The gap test on a rank summary (module docstring); `rates`: the named ranks' rates."""
    quantiles = summary.quantiles.get("rate") or {}
    if summary.count < MIN_VALUES or not {"p0", "p50", "p100"} <= quantiles.keys():
        return None
    ordered = _Ordered(summary, rates)
    best: tuple[float, float, int] | None = None  # (smallest gap, largest range, low size)
    for k in sorted(ordered.splits()):
        low_max, high_min = ordered.bounds(k)[1], ordered.bounds(k + 1)[0]
        gap = high_min - low_max
        within = max(low_max - ordered.p0, ordered.p100 - high_min)
        if best is None or gap > best[0]:
            best = (gap, within, k)
    if best is None:
        return None
    gap, within, k = best
    if gap <= 0 or gap < GAP_FACTOR * within or gap < MIN_RELATIVE_GAP * quantiles["p50"]:
        return None
    n_high = summary.count - k
    low_ranks = tuple(sorted(summary.slowest[:k])) if k <= len(ordered.slow) else ()
    return SummaryGroups(
        n_low=k,
        n_high=n_high,
        low_median=ordered.median(1, k),
        high_median=ordered.median(k + 1, n_high),
        cut=ordered.bounds(k)[1],
        low_ranks=low_ranks,
    )


def _summary_hint(op: Operation, iteration: Iteration, groups: SummaryGroups, shown: int) -> Hint:
    summary = iteration.phase.rank_summary
    assert summary is not None
    rates = {r.rank: r.rate for r in iteration.phase.ranks if r.rate is not None}
    host_of = {r.rank: r.host for r in iteration.phase.ranks}
    if groups.low_ranks:
        hosts = tuple(sorted({h for r in groups.low_ranks if (h := host_of.get(r))}))
    else:  # hosts whose every rank is in the low group
        hosts = tuple(sorted(h.host for h in summary.hosts if h.rate_max <= groups.cut))
    text = _group_text(
        f"per-rank {op.label} rates of iteration {iteration.index}",
        (groups.n_low, groups.n_high),
        (groups.low_median, groups.high_median),
        op.quantity,
        "ranks",
    )
    named = ", ".join(hosts[:MAX_NAMED_HOSTS]) + (" …" if len(hosts) > MAX_NAMED_HOSTS else "")
    if hosts and len(hosts) < len(summary.hosts):
        text += f" (hosts {named})"
    elif groups.low_ranks and len(groups.low_ranks) <= MAX_NAMED_HOSTS:
        text += f" (ranks {', '.join(map(str, groups.low_ranks))})"
    text += (
        f" [from the rank summary of {summary.count} ranks: rate histogram, quantiles and the "
        f"{len(rates)} named slowest and fastest ranks; {shown} of {len(op.iterations)} "
        "iterations show two groups]"
    )
    return Hint(op.key, "ranks", text, tuple(map(str, groups.low_ranks)), hosts)


def summary_rank_hint(op: Operation) -> Hint | None:
    """The per-rank hint of an operation whose phases carry rank summaries: the first
    iteration with two groups, saying how many iterations have them."""
    found = []
    for iteration in op.iterations:
        summary = iteration.phase.rank_summary
        if summary is None:
            continue
        rates = {r.rank: r.rate for r in iteration.phase.ranks if r.rate is not None}
        groups = summary_groups(summary, rates)
        if groups is not None:
            found.append((iteration, groups))
    if not found:
        return None
    return _summary_hint(op, found[0][0], found[0][1], len(found))


def _summarised(op: Operation) -> bool:
    return any(it.phase.rank_summary is not None for it in op.iterations)


def operation_hints(op: Operation) -> list[Hint]:
    """The hints for one operation: per-rank rates, then per-iteration values."""
    hints = []
    if _summarised(op):  # the named ranks are not all ranks: the summary's own test
        hint = summary_rank_hint(op)
        hints += [hint] if hint else []
    ranks = {} if _summarised(op) else rank_means(op)
    groups = two_groups(list(ranks.values()))
    if groups is not None:
        cut = groups.low[-1]
        slow = sorted(rank for rank, rate in ranks.items() if rate <= cut)
        host_of: dict[int, str | None] = {}
        for iteration in op.iterations:
            host_of.update(iteration.rank_hosts)
        hosts = tuple(sorted({h for r in slow if (h := host_of.get(r))}))
        text = _group_text(
            f"per-rank {op.label} rates",
            (len(groups.low), len(groups.high)),
            (groups.low_median, groups.high_median),
            op.quantity,
            "ranks",
        )
        named = ", ".join(hosts[:MAX_NAMED_HOSTS]) + (" …" if len(hosts) > MAX_NAMED_HOSTS else "")
        all_hosts = {h for h in host_of.values() if h}
        if hosts and len(hosts) < len(all_hosts):
            text += f" (hosts {named})"
        elif len(slow) <= MAX_NAMED_HOSTS:
            text += f" (ranks {', '.join(map(str, slow))})"
        hints.append(Hint(op.key, "ranks", text, tuple(map(str, slow)), hosts))
    values = {it.index: it.value for it in op.iterations}
    groups = two_groups(list(values.values()))
    if groups is not None:
        cut = groups.low[-1]
        low = sorted(i for i, v in values.items() if v <= cut)
        text = _group_text(
            f"per-iteration {op.label} values",
            (len(groups.low), len(groups.high)),
            (groups.low_median, groups.high_median),
            op.quantity,
            "iterations",
        )
        text += f" (iterations {', '.join(map(str, low))})"
        hints.append(Hint(op.key, "iterations", text, tuple(map(str, low)), ()))
    return hints
