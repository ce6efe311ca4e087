"""The reported latency percentiles against the exact ones of the traced operations.

IOSCORE_LATENCY_TRACE makes every rank write each timed operation (the second of the phase it
completed in, its latency in ns) to a file of its own; the exact nearest-rank percentiles of
the union over the ranks must match result.json's, merged over ranks through the per-host
reduction, within the histogram's stated error: per phase, and per second of the time series.
"""

from __future__ import annotations

import json
import math
import subprocess
from collections import defaultdict
from pathlib import Path

import jsonschema
from suite_helpers import (
    MPI_ENV,
    SCHEMA_PATH,
    Workspace,
    limited_suite,
    only_result_dir,
    small_ini,
)

from tests.mpi_launch import MPI

KEYS = {"p50": 0.5, "p90": 0.9, "p99": 0.99, "p99_9": 0.999, "p99_99": 0.9999}
REL_ERROR = 1 / 128  # the layout's bound, reported as histogram.rel_error


def nearest_rank(sorted_ns: list[int], q: float) -> float:
    rank = max(1, math.ceil(q * len(sorted_ns) - 1e-9))
    return sorted_ns[rank - 1] * 1e-9


def read_trace(prefix: Path, phase: str) -> tuple[list[int], dict[int, list[int]]]:
    """Every traced operation of a phase over all ranks, and the successful ones by second."""
    every: list[int] = []
    by_second: dict[int, list[int]] = defaultdict(list)
    for path in prefix.parent.glob(f"{prefix.name}.{phase}.*"):
        for line in path.read_text().splitlines():
            sec, ns = (int(x) for x in line.split())
            every.append(ns)
            if sec >= 0:
                by_second[sec].append(ns)
    return sorted(every), {s: sorted(v) for s, v in by_second.items()}


def test_percentiles_match_the_traced_operations(suite_bin: Path, workspace: Workspace) -> None:
    # enough operations that p99.9 is not the max: 4 KiB transfers, 3 ranks on 2 simulated hosts
    ini = workspace.write_ini(small_ini(workspace, ior_easy="transferSize = 4k\nblockSize = 8m\n"))
    prefix = workspace.root / "trace" / "lat"
    prefix.parent.mkdir()
    proc = subprocess.run(
        [*MPI.launch(3), *limited_suite(str(ini), "--quiet", "--simulate-ppn", "2")],
        capture_output=True,
        text=True,
        env={**MPI_ENV, "IOSCORE_LATENCY_TRACE": str(prefix)},
        timeout=180,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr
    run_dir = only_result_dir(workspace)
    doc = json.loads((run_dir / "result.json").read_text())
    jsonschema.validate(doc, json.loads(SCHEMA_PATH.read_text()))
    checked = 0
    for phase in doc["phases"]:
        if "latency" not in phase:
            continue
        lat = phase["latency"]
        assert lat["histogram"]["rel_error"] == REL_ERROR
        every, by_second = read_trace(prefix, phase["name"])
        assert len(every) == lat["ops"], phase["name"]
        assert lat["max"] == every[-1] * 1e-9
        for key, q in KEYS.items():
            exact = nearest_rank(every, q)
            assert abs(lat[key] - exact) <= REL_ERROR * exact, (phase["name"], key)
        # per second: the time series' percentiles and exact max
        series = phase["timeseries"]["latency"]
        assert len(series["ops"]) == len(phase["timeseries"]["aggregate"])
        for sec, ops in enumerate(series["ops"]):
            values = by_second.get(sec, [])
            assert ops == len(values), (phase["name"], sec)
            if not values:
                assert series["max"][sec] == 0
                continue
            assert series["max"][sec] == values[-1] * 1e-9
            for key, q in KEYS.items():
                exact = nearest_rank(values, q)
                assert abs(series[key][sec] - exact) <= REL_ERROR * exact, (phase["name"], sec)
        checked += 1
        if phase["name"] == "ior-easy-write":
            assert lat["op"] == "write" and lat["ops"] >= 6000
            assert lat["p99_9"] < lat["max"] or lat["ops"] < 1000
    assert checked >= 8
    # the text summary carries the same percentiles as a comment line per phase
    text = (run_dir / "result.txt").read_text()
    assert text.count("; latency: ops ") == checked
