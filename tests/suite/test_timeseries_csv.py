"""<phase>-timeseries.csv carries result.json's 1 s buckets in long format, for every phase."""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fixtures.tiny_suite import tiny_suite_results


@pytest.fixture(scope="module")
def run_dir() -> Iterator[Path]:
    with tiny_suite_results("ioscore-timeseries-csv-") as results:
        (run,) = [p for p in results.iterdir() if p.is_dir()]
        yield run


@pytest.mark.mpi
def test_timeseries_csv_matches_result_json(run_dir: Path) -> None:
    document = json.loads((run_dir / "result.json").read_text())
    checked = 0
    for phase in document["phases"]:
        series = phase["timeseries"]
        path = run_dir / f"{phase['name']}-timeseries.csv"
        if not series["aggregate"]:
            assert not path.exists(), path
            continue
        rows = list(csv.DictReader(path.open()))
        assert list(rows[0]) == ["bucket_start_s", "bucket_end_s", "rank", "items"]
        aggregate = {int(r["bucket_start_s"]): int(r["items"]) for r in rows if r["rank"] == "all"}
        per_rank: dict[int, dict[int, int]] = defaultdict(dict)
        for r in rows:
            if r["rank"] != "all":
                per_rank[int(r["rank"])][int(r["bucket_start_s"])] = int(r["items"])
        assert [aggregate[b] for b in sorted(aggregate)] == series["aggregate"], phase["name"]
        for rank, buckets in enumerate(series["per_rank"]):
            assert [per_rank[rank][b] for b in sorted(per_rank[rank])] == buckets
        # Every bucket's ranks add up to the bucket, and the buckets to the phase's items.
        for bucket, total in aggregate.items():
            assert sum(per_rank[r][bucket] for r in per_rank) == total
        assert sum(aggregate.values()) == sum(r["items"] for r in phase["ranks"])
        checked += 1
    assert checked >= 12  # every I/O and metadata phase carries a series


@pytest.mark.mpi
def test_latency_csv_matches_result_json(run_dir: Path) -> None:
    """<phase>-latency.csv is result.json's per-second latency, second by second; a second
    without operations has empty cells, not a zero latency."""
    document = json.loads((run_dir / "result.json").read_text())
    checked = 0
    for phase in document["phases"]:
        latency = phase["timeseries"].get("latency")
        path = run_dir / f"{phase['name']}-latency.csv"
        if not latency or not latency["ops"]:
            assert not path.exists(), path
            continue
        rows = list(csv.DictReader(path.open()))
        keys = [k for k in latency if k.startswith("p")]
        assert list(rows[0]) == [
            "second_start_s",
            "second_end_s",
            "ops",
            *(f"{k}_s" for k in keys),
            "max_s",
        ]
        assert [int(r["second_start_s"]) for r in rows] == list(range(len(latency["ops"])))
        assert [int(r["ops"]) for r in rows] == latency["ops"]
        for second, row in enumerate(rows):
            for key in [*keys, "max"]:
                cell = row[f"{key}_s"]
                if latency["ops"][second] == 0:
                    assert cell == "", (phase["name"], second, key)
                else:
                    assert float(cell) == pytest.approx(latency[key][second], rel=1e-8)
        # the percentiles of a second are ordered and bounded by its slowest operation
        for row in rows:
            if int(row["ops"]):
                values = [float(row[f"{k}_s"]) for k in [*keys, "max"]]
                assert values == sorted(values) and values[0] > 0, (phase["name"], row)
        checked += 1
    assert checked >= 12  # every I/O and metadata phase carries a latency series
