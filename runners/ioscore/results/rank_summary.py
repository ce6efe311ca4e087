"""A phase's per-rank rows as the summary form's ``RankSummary``: the library's one
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
from typing import Any, TypeVar

from ioscore.results.model import (
    QUANTILE_KEYS,
    HostAggregate,
    PhaseResult,
    RankColumns,
    RankStat,
    RankSummary,
)
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


def _hosts(
    hosts: Sequence[str | None],
    rates: Sequence[float | None],
    starts: Sequence[float | None],
    ends: Sequence[float | None],
    items: Sequence[int | None],
    nbytes: Sequence[int | None],
) -> list[HostAggregate]:
    """Per-host sums of the rated ranks, from the ranks' columns (a running list per host:
    an attribute update per rank on 100,000 ranks cost a second a phase)."""
    sums: dict[str, list[Any]] = {}
    for host, rate, start, end, count, size in zip(
        hosts, rates, starts, ends, items, nbytes, strict=True
    ):
        if host is None or rate is None:
            continue
        start, end = start or 0.0, end or 0.0
        acc = sums.get(host)
        if acc is None:  # ranks, items, bytes, rate sum, min, max, start min, end max
            sums[host] = [1, count or 0, size or 0, 0.0 + rate, rate, rate, start, end]
            continue
        acc[0] += 1
        acc[1] += count or 0
        acc[2] += size or 0
        acc[3] += rate
        if rate < acc[4]:
            acc[4] = rate
        if rate > acc[5]:
            acc[5] = rate
        if start < acc[6]:
            acc[6] = start
        if end > acc[7]:
            acc[7] = end
    # by host name, as the suite sorts them
    return [HostAggregate(name, *sums[name]) for name in sorted(sums)]


def _column(ranks: Sequence[RankStat], name: str) -> Sequence[Any]:
    if isinstance(ranks, RankColumns):
        return ranks.column(name)
    return [getattr(r, name) for r in ranks]


def summarise_ranks(
    ranks: Sequence[RankStat], k: int = EXTREME_RANKS
) -> tuple[RankSummary, list[RankStat]]:
    """The summary of every rank in `ranks` and the ranks it names (its `k` slowest and `k`
    fastest by rate, ties by rank, sorted by rank), what a summary-form phase keeps.

    Computed on the ranks' columns (``RankColumns`` hands them over without a RankStat per
    rank): faster than building and reading a record per rank."""
    columns = {name: _column(ranks, name) for name in ("rank", "host", "items", "bytes")}
    columns.update((name, _column(ranks, name)) for name in QUANTILE_FIELDS)
    rates, numbers = columns["rate"], columns["rank"]
    # (rate, rank, index): ties by rank, then by place, as a stable sort on (rate, rank)
    rated = sorted(
        (rate, number, index)
        for index, (rate, number) in enumerate(zip(rates, numbers, strict=True))
        if rate is not None
    )
    slowest, fastest = rated[:k], rated[::-1][:k]
    fields = {
        name: values
        for name in QUANTILE_FIELDS
        if (values := [v for v in columns[name] if v is not None])
    }
    histogram = rate_histogram([rate for rate, _, _ in rated])
    summary = RankSummary(
        count=len(ranks),
        quantiles={name: quantiles(values) for name, values in fields.items()},
        histogram_edges=histogram["edges"],
        histogram_counts=histogram["counts"],
        slowest=[number for _, number, _ in slowest],
        fastest=[number for _, number, _ in fastest],
        hosts=_hosts(
            columns["host"],
            rates,
            columns["start"],
            columns["end"],
            columns["items"],
            columns["bytes"],
        ),
    )
    named = {number: ranks[index] for _, number, index in (*slowest, *fastest)}
    return summary, [named[number] for number in sorted(named)]


_Ranks = TypeVar("_Ranks", bound=Sequence[RankStat])


def bounded_ranks(
    ranks: _Ranks, threshold: int = RANK_DETAIL_THRESHOLD
) -> tuple[_Ranks | list[RankStat], RankSummary | None]:
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
    if phase.rank_summary is not None:
        return phase
    named, summary = bounded_ranks(phase.ranks, threshold)
    if summary is None:
        return phase
    series = phase.timeseries
    if isinstance(series, dict) and "per_rank" in series:
        series = {**series, "per_rank": []}  # a row per rank: the time series stays per phase
    return dataclasses.replace(
        phase,
        ranks=named,
        rank_summary=dataclasses.replace(summary, full_file=full_file),
        timeseries=series,
    )
