"""Latency in result.json: the log-linear histogram of current results and the power-of-two
buckets of older ones both read, through the loader and into `ioscore report`'s table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ioscore.results import ResultFormatError, load_run
from ioscore.results.latency import (
    format_latency_table,
    phase_latency,
    series_from_json,
    summary_from_json,
)

EXAMPLE = Path(__file__).resolve().parents[2] / "suite/schema/examples/short-run-np2.result.json"

# as the suite wrote it before the log-linear layout: log2 buckets, p50/p90/p99/max only
OLD_LATENCY: dict[str, Any] = {
    "unit": "s",
    "ops": 100,
    "p50": 1.024e-6,
    "p90": 1.024e-6,
    "p99": 1e-3,
    "max": 1e-3,
    "buckets": [{"le": 1.024e-6, "count": 98}, {"le": 1.048576e-3, "count": 2}],
}
OLD_RANK_LATENCY = {k: v for k, v in OLD_LATENCY.items() if k != "buckets"}
NEW_LATENCY: dict[str, Any] = {
    "unit": "s",
    "op": "write",
    "ops": 3,
    "p50": 1.5e-6,
    "p90": 2.5e-6,
    "p99": 2.5e-6,
    "p99_9": 2.5e-6,
    "p99_99": 2.5e-6,
    "max": 2.5e-6,
    "histogram": {"layout": "log-linear", "sub_buckets": 64, "rel_error": 1 / 128},
    "buckets": [{"le": 1.504e-6, "count": 2}, {"le": 2.528e-6, "count": 1}],
}
NEW_SERIES = {
    "unit": "s",
    "ops": [2, 0, 1],
    **{k: [1.5e-6, 0, 2.5e-6] for k in ("p50", "p90", "p99", "p99_9", "p99_99", "max")},
}


def with_latency(run_dir: Path, latency: dict[str, Any], series: dict[str, Any] | None) -> Path:
    """The shipped example result with `latency` on ior-easy-write and its ranks."""
    doc = json.loads(EXAMPLE.read_text())
    phase = next(p for p in doc["phases"] if p["name"] == "ior-easy-write")
    phase["latency"] = latency
    rank_latency = {k: v for k, v in latency.items() if k not in ("buckets", "histogram", "op")}
    for rank in phase["ranks"]:
        rank["latency"] = rank_latency
    if series is not None:
        phase["timeseries"]["aggregate"] = [2, 0, 1]
        phase["timeseries"]["per_rank"] = [[1, 0, 1], [1, 0, 0]]
        phase["timeseries"]["latency"] = series
    (run_dir / "result.json").write_text(json.dumps(doc), "utf-8")
    return run_dir


def test_old_power_of_two_results_still_read(tmp_path: Path) -> None:
    run = load_run(with_latency(tmp_path, OLD_LATENCY, None))
    phase = run.phases["ior-easy-write"]
    lat = phase_latency(phase)
    assert lat is not None
    assert lat.layout == "log2" and lat.rel_error == 1.0 and lat.ops == 100
    assert lat.quantiles["p50"] == 1.024e-6 and lat.quantiles["p99"] == 1e-3
    assert lat.quantiles["p99_9"] is None and lat.quantiles["p99_99"] is None
    assert lat.max == 1e-3 and lat.op is None
    assert series_from_json(phase.timeseries) is None
    table = format_latency_table(list(run.phases.values()))
    row = next(line for line in table.splitlines() if line.startswith("ior-easy-write"))
    assert row.split() == [
        "ior-easy-write",
        "-",
        "100",
        "1.024",
        "us",
        "1.024",
        "us",
        "1",
        "ms",
        "-",
        "-",
        "1",
        "ms",
    ]


def test_log_linear_results_read_with_series(tmp_path: Path) -> None:
    run = load_run(with_latency(tmp_path, NEW_LATENCY, NEW_SERIES))
    phase = run.phases["ior-easy-write"]
    lat = phase_latency(phase)
    assert lat is not None
    assert lat.layout == "log-linear" and lat.rel_error == 1 / 128 and lat.op == "write"
    assert lat.quantiles["p99_9"] == 2.5e-6 and lat.max == 2.5e-6
    series = series_from_json(phase.timeseries)
    assert series is not None
    assert series.ops == [2, 0, 1] and series.quantiles["p99_9"] == [1.5e-6, 0, 2.5e-6]
    assert series.max == [1.5e-6, 0, 2.5e-6]
    assert "p99.9" in format_latency_table(list(run.phases.values())).splitlines()[0]


@pytest.mark.parametrize("bad", [{"p99_9": -1.0}, {"p99_99": "fast"}])
def test_bad_new_percentiles_are_refused(tmp_path: Path, bad: dict[str, Any]) -> None:
    with pytest.raises(ResultFormatError):
        load_run(with_latency(tmp_path, {**NEW_LATENCY, **bad}, None))


def test_summary_ignores_non_objects() -> None:
    assert summary_from_json(None) is None and summary_from_json([1]) is None
