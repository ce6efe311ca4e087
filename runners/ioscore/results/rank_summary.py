"""A phase's per-rank rows as the summary form's ``RankSummary`` (issue 21): the library's one
summariser, used wherever per-rank rows outnumber the rank-detail threshold without the suite
having summarised them (the IO500 C app's per-rank CSVs, synthetic documents).

Like the suite above its ``--rank-detail-threshold`` (default ``RANK_DETAIL_THRESHOLD``), a
phase keeps only its ``EXTREME_RANKS`` slowest and fastest ranks (by ``rate``, ties by rank)
plus the distributions of every rank: p0..p100 of each timing field the rows carry
(nearest rank on the sorted values, so exact: ``quantile_rel_error`` 0), a rate histogram and
per-host aggregates. Rows without a host (the C app's CSVs name none) are counted and in the
quantiles but in no host aggregate: ``hosts`` is empty when no row names one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ioscore.results.model import QUANTILE_KEYS, HostAggregate, PhaseResult, RankStat, RankSummary
from ioscore.results.stragglers import rate_histogram

RANK_DETAIL_THRESHOLD = 4096  # ranks up to which a phase keeps every rank (the suite's default)
EXTREME_RANKS = 16  # K slowest and K fastest ranks named in the summary form
QUANTILE_FIELDS = ("rate", "start", "first_done", "end")
_PERCENT = {key: float(key[1:]) for key in QUANTILE_KEYS}


def quantiles(values: Sequence[float]) -> dict[str, float]:
    """p0..p100 of `values` (nearest rank on the sorted values); `values` must not be empty."""
    ordered = sorted(values)
    last = len(ordered) - 1
    return {key: ordered[round(pct / 100 * last)] for key, pct in _PERCENT.items()}


def _hosts(ranks: Sequence[RankStat]) -> list[HostAggregate]:
    hosts: dict[str, HostAggregate] = {}
    for r in ranks:
        if r.host is None or r.rate is None:
            continue
        start, end = r.start or 0.0, r.end or 0.0
        host = hosts.get(r.host)
        if host is None:
            host = hosts[r.host] = HostAggregate(r.host, 0, 0, 0, 0.0, r.rate, r.rate, start, end)
        host.ranks += 1
        host.items += r.items or 0
        host.bytes += r.bytes or 0
        host.rate_sum += r.rate
        host.rate_min = min(host.rate_min, r.rate)
        host.rate_max = max(host.rate_max, r.rate)
        host.start_min = min(host.start_min, start)
        host.end_max = max(host.end_max, end)
    return [hosts[name] for name in sorted(hosts)]  # by host name, as the suite sorts them


def summarise_ranks(
    ranks: Sequence[RankStat], k: int = EXTREME_RANKS
) -> tuple[RankSummary, list[RankStat]]:
    """The summary of every rank in `ranks` and the ranks it names (its `k` slowest and `k`
    fastest by rate, sorted by rank), what a summary-form phase keeps."""
    rated = sorted((r for r in ranks if r.rate is not None), key=lambda r: (r.rate, r.rank))
    slowest, fastest = rated[:k], rated[::-1][:k]
    fields = {
        name: values
        for name in QUANTILE_FIELDS
        if (values := [v for r in ranks if (v := getattr(r, name)) is not None])
    }
    histogram = rate_histogram([r.rate for r in rated])  # type: ignore[misc]
    summary = RankSummary(
        count=len(ranks),
        quantiles={name: quantiles(values) for name, values in fields.items()},
        histogram_edges=histogram["edges"],
        histogram_counts=histogram["counts"],
        slowest=[r.rank for r in slowest],
        fastest=[r.rank for r in fastest],
        hosts=_hosts(ranks),
    )
    named = {r.rank: r for r in (*slowest, *fastest)}
    return summary, [named[rank] for rank in sorted(named)]


def bounded_ranks(
    ranks: list[RankStat], threshold: int = RANK_DETAIL_THRESHOLD
) -> tuple[list[RankStat], RankSummary | None]:
    """`ranks` unchanged (no summary) up to `threshold` ranks; above it the named extremes and
    the summary of them all, as the suite writes a phase."""
    if len(ranks) <= threshold:
        return ranks, None
    summary, named = summarise_ranks(ranks)
    return named, summary


def summary_form(
    phase: PhaseResult, full_file: str | None, threshold: int = RANK_DETAIL_THRESHOLD
) -> PhaseResult:
    """`phase` as the suite writes a phase of more than `threshold` ranks: the named extremes,
    the summary of every rank (its ``full_file`` naming where every rank's record is) and the
    time series per phase only. `phase` itself when it is already summarised or small enough.

    For a full-form file above the threshold (a run with the suite's threshold raised), so
    what is kept of it is bounded whatever the run's size, as the suite's own files are."""
    if phase.rank_summary is not None or len(phase.ranks) <= threshold:
        return phase
    summary, named = summarise_ranks(list(phase.ranks))  # RankColumns: one record per rank, once
    series = phase.timeseries
    if isinstance(series, dict) and "per_rank" in series:
        series = {**series, "per_rank": []}  # a row per rank: the time series stays per phase
    return dataclasses.replace(
        phase,
        ranks=named,
        rank_summary=dataclasses.replace(summary, full_file=full_file),
        timeseries=series,
    )
