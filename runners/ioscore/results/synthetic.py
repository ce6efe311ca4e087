"""Synthetic result.json documents at any rank count, for scale benches and tests.

``full_document`` builds a valid full-form ``ioscore-result/1`` document of ``ranks`` ranks
spread over hosts of ``ppn`` ranks (optionally some hosts slow); ``summarised`` turns one into
the summary form of the contract (docs/ARCHITECTURE.md): each phase keeps only its
K slowest and K fastest rank objects plus ``rank_summary``. The suite writes the summary
form in C; this is the reference the library's readers are tested and measured with when no
100,000-rank machine is at hand. The summary comes from ``rank_summary.summarise_ranks``
(exact quantiles: nearest rank on sorted values).
"""

from __future__ import annotations

import dataclasses
import math
import random
from typing import Any

from ioscore.results.model import BW_PHASES, SCORED_PHASES, RankStat
from ioscore.results.rank_summary import EXTREME_RANKS, RANK_DETAIL_THRESHOLD, summarise_ranks

_BYTES_PER_ITEM = {"bw": 1 << 20, "md": 3901}


def _rank(
    phase: str, rank: int, host: str, slow: bool, rng: random.Random, buckets: int
) -> tuple[dict[str, Any], list[int]]:
    group = "bw" if phase in BW_PHASES else "md"
    start = rng.uniform(0.0, 0.002)
    busy = rng.uniform(9.5, 10.5) * (3.0 if slow else 1.0)
    first_done = start + busy
    end = first_done + 0.01
    items = 1000
    amount = items * _BYTES_PER_ITEM[group] if group == "bw" else items
    row = [items // buckets] * buckets
    row[-1] += items - sum(row)
    record = {
        "rank": rank,
        "host": host,
        "start": start,
        "first_done": first_done,
        "end": end,
        "items": items,
        "bytes": items * _BYTES_PER_ITEM[group],
        "rate": amount / (end - start),
        "verify_errors": 0,
    }
    return record, row


def _phase(
    name: str, ranks: int, ppn: int, slow_hosts: set[int], seed: int, buckets: int
) -> dict[str, Any]:
    rng = random.Random(f"{seed}/{name}")
    group = "bw" if name in BW_PHASES else "md"
    records, rows = [], []
    for rank in range(ranks):
        record, row = _rank(
            name, rank, f"node{rank // ppn:05d}", rank // ppn in slow_hosts, rng, buckets
        )
        records.append(record)
        rows.append(row)
    time = max(r["end"] for r in records)
    items = sum(r["items"] for r in records)
    total_bytes = sum(r["bytes"] for r in records)
    score = total_bytes / time / 2**30 if group == "bw" else items / time / 1000
    return {
        "name": name,
        "group": group,
        "unit": "GiB/s" if group == "bw" else "kIOPS",
        "score": score,
        "time": time,
        "t_start": "2026-11-23T10:00:00Z",
        "t_end": "2026-11-23T10:00:30Z",
        "valid": True,
        "invalid_reasons": [],
        "items": items,
        "bytes": total_bytes,
        "verify_errors": 0,
        "stonewall": None,
        "ranks": records,
        "timeseries": {
            "bucket_s": 1.0,
            "aggregate": [sum(column) for column in zip(*rows, strict=True)],
            "per_rank": rows,
        },
        "extra": {},
    }


def full_document(
    ranks: int, ppn: int = 100, slow_hosts: tuple[int, ...] = (), seed: int = 21, buckets: int = 8
) -> dict[str, Any]:
    """A full-form result.json of `ranks` ranks, `ppn` per host; hosts numbered in
    `slow_hosts` run every phase 3x slower. Deterministic for a given seed."""
    phases = [_phase(n, ranks, ppn, set(slow_hosts), seed, buckets) for n in SCORED_PHASES]
    bw = math.prod(p["score"] for p in phases if p["group"] == "bw") ** (1 / len(BW_PHASES))
    md_scores = [p["score"] for p in phases if p["group"] == "md"]
    md = math.prod(md_scores) ** (1 / len(md_scores))
    nodes = math.ceil(ranks / ppn)
    return {
        "schema": "ioscore-result/1",
        "version": "synthetic",
        "mode": "standard",
        "timestamp": "2026.11.23-10.00.00",
        "start": "2026-11-23T10:00:00Z",
        "end": "2026-11-23T10:10:00Z",
        "finished": True,
        "aborted": False,
        "procs": ranks,
        "nodes": nodes,
        "ppn0": min(ppn, ranks),
        "hosts": [f"node{n:05d}" for n in range(nodes)],
        "valid": True,
        "invalid_reasons": [],
        "config": {"global": {"datadir": "/synthetic"}},
        "config_hash": "00000000",
        "score_hash": "00000000",
        "scores": {"bw": bw, "md": md, "total": math.sqrt(bw * md), "valid": True},
        "phases": phases,
    }


def summarised_phase(phase: dict[str, Any], k: int = EXTREME_RANKS) -> dict[str, Any]:
    """`phase` in the summary form, summarised by the library's one summariser."""
    records = phase["ranks"]
    summary, named = summarise_ranks([RankStat(**r) for r in records], k)
    by_rank = {r["rank"]: r for r in records}
    as_json = {
        "count": summary.count,
        "full_file": None,
        "quantile_rel_error": summary.quantile_rel_error,
        "quantiles": summary.quantiles,
        "histogram": {
            "rate": {"edges": summary.histogram_edges, "counts": summary.histogram_counts}
        },
        "slowest": summary.slowest,
        "fastest": summary.fastest,
        "hosts": [dataclasses.asdict(host) for host in summary.hosts],
    }
    series = {**phase["timeseries"], "per_rank": []}  # the time series stays per phase
    return {
        **phase,
        "ranks": [by_rank[r.rank] for r in named],
        "rank_summary": as_json,
        "timeseries": series,
    }


def summarised(document: dict[str, Any], threshold: int = RANK_DETAIL_THRESHOLD) -> dict[str, Any]:
    """`document` in the summary form (every phase above `threshold` ranks summarised)."""
    phases = [summarised_phase(p) if len(p["ranks"]) > threshold else p for p in document["phases"]]
    form = "summary" if any("rank_summary" in p for p in phases) else "full"
    detail = {"form": form, "threshold": threshold, "full_file": None}
    schema = "ioscore-result/1.1" if form == "summary" else document["schema"]
    return {**document, "schema": schema, "phases": phases, "rank_detail": detail}
