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
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import median

from ioscore.acceptance.results import Operation
from ioscore.acceptance.targets import BANDWIDTH

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


def _group_text(what: str, groups: Groups, quantity: str, unit_word: str) -> str:
    word = unit_word if len(groups.high) > 1 else unit_word.rstrip("s")
    return (
        f"{what} form two groups: {len(groups.high)} {word} at "
        f"{_shown(groups.high_median, quantity)}, {len(groups.low)} at "
        f"{_shown(groups.low_median, quantity)}"
    )


def operation_hints(op: Operation) -> list[Hint]:
    """The hints for one operation: per-rank rates, then per-iteration values."""
    hints = []
    ranks = rank_means(op)
    groups = two_groups(list(ranks.values()))
    if groups is not None:
        cut = groups.low[-1]
        slow = sorted(rank for rank, rate in ranks.items() if rate <= cut)
        host_of: dict[int, str | None] = {}
        for iteration in op.iterations:
            host_of.update(iteration.rank_hosts)
        hosts = tuple(sorted({h for r in slow if (h := host_of.get(r))}))
        text = _group_text(f"per-rank {op.label} rates", groups, op.quantity, "ranks")
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
        text = _group_text(f"per-iteration {op.label} values", groups, op.quantity, "iterations")
        text += f" (iterations {', '.join(map(str, low))})"
        hints.append(Hint(op.key, "iterations", text, tuple(map(str, low)), ()))
    return hints
