"""Synthetic result.json documents at any rank count, for scale benches and tests (issue 21).

``full_document`` builds a valid full-form ``ioscore-result/1`` document of ``ranks`` ranks
spread over hosts of ``ppn`` ranks (optionally some hosts slow); ``summarised`` turns one into
the summary form of the contract (docs/ARCHITECTURE.md, issue 21): each phase keeps only its
K slowest and K fastest rank objects plus ``rank_summary``. The suite writes the summary
form in C; this is the reference the library's readers are tested and measured with when no
100,000-rank machine is at hand. Quantiles here are exact (nearest rank on sorted values).
"""

from __future__ import annotations

import math
import random
from typing import Any

from ioscore.results.model import BW_PHASES, QUANTILE_KEYS, SCORED_PHASES
from ioscore.results.stragglers import rate_histogram

EXTREME_RANKS = 16  # K slowest and K fastest ranks named in the summary form
_PERCENT = {key: float(key[1:]) for key in QUANTILE_KEYS}
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


def quantiles(values: list[float]) -> dict[str, float]:
    """p0..p100 of `values` (nearest rank on the sorted values)."""
    ordered = sorted(values)
    last = len(ordered) - 1
    return {key: ordered[round(pct / 100 * last)] for key, pct in _PERCENT.items()}


def _hosts(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    hosts: dict[str, dict[str, Any]] = {}  # by host name, as the suite sorts them
    for r in records:
        host = hosts.setdefault(
            r["host"],
            {
                "host": r["host"],
                "ranks": 0,
                "items": 0,
                "bytes": 0,
                "rate_sum": 0.0,
                "rate_min": r["rate"],
                "rate_max": r["rate"],
                "start_min": r["start"],
                "end_max": r["end"],
            },
        )
        host["ranks"] += 1
        host["items"] += r["items"]
        host["bytes"] += r["bytes"]
        host["rate_sum"] += r["rate"]
        host["rate_min"] = min(host["rate_min"], r["rate"])
        host["rate_max"] = max(host["rate_max"], r["rate"])
        host["start_min"] = min(host["start_min"], r["start"])
        host["end_max"] = max(host["end_max"], r["end"])
    return [hosts[name] for name in sorted(hosts)]


def summarised_phase(phase: dict[str, Any], k: int = EXTREME_RANKS) -> dict[str, Any]:
    records = phase["ranks"]
    by_rate = sorted(records, key=lambda r: (r["rate"], r["rank"]))
    slowest, fastest = by_rate[:k], by_rate[::-1][:k]
    named = {r["rank"]: r for r in (*slowest, *fastest)}
    summary = {
        "count": len(records),
        "full_file": None,
        "quantile_rel_error": 0.0,
        "quantiles": {
            field: quantiles([r[field] for r in records])
            for field in ("rate", "start", "first_done", "end")
        },
        "histogram": {"rate": rate_histogram([r["rate"] for r in records])},
        "slowest": [r["rank"] for r in slowest],
        "fastest": [r["rank"] for r in fastest],
        "hosts": _hosts(records),
    }
    series = {**phase["timeseries"], "per_rank": []}  # the time series stays per phase
    return {
        **phase,
        "ranks": [named[rank] for rank in sorted(named)],
        "rank_summary": summary,
        "timeseries": series,
    }


def summarised(document: dict[str, Any], threshold: int = 4096) -> dict[str, Any]:
    """`document` in the summary form (every phase above `threshold` ranks summarised)."""
    phases = [summarised_phase(p) if len(p["ranks"]) > threshold else p for p in document["phases"]]
    form = "summary" if any("rank_summary" in p for p in phases) else "full"
    detail = {"form": form, "threshold": threshold, "full_file": None}
    schema = "ioscore-result/1.1" if form == "summary" else document["schema"]
    return {**document, "schema": schema, "phases": phases, "rank_detail": detail}
