"""`ioscore report` on large runs: load vs straggler analysis vs HTML, and the leave-one-out
median against the naive per-rank median, side by side.

Builds a synthetic result.json from the suite's real example (suite/schema/examples) with its
two ranks replicated to N ranks on N/64 hosts (one slow rank per phase), in a temporary
directory. Prints seconds per stage and ratios; never asserts anything.
Usage: .venv/bin/python bench/report_bench.py [--ranks 1024 8192]
"""

from __future__ import annotations

import argparse
import copy
import json
import tempfile
import time
from pathlib import Path
from statistics import median
from typing import Any

from ioscore.report import render_html, summary_rows
from ioscore.results import load_run
from ioscore.results.stragglers import median_without, run_spreads

EXAMPLE = Path(__file__).resolve().parents[1] / "suite/schema/examples/short-run-np2.result.json"


def scaled_document(ranks: int) -> dict[str, Any]:
    document = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    document["procs"] = ranks
    for phase in document["phases"]:
        template = phase["ranks"][0]
        rows = []
        for rank in range(ranks):
            row = copy.deepcopy(template)
            row.update(rank=rank, host=f"node{rank // 64:04d}")
            if rank == ranks - 1:  # one straggler: 4x the main-loop time
                row["first_done"] = row["first_done"] * 4 + 0.2
            rows.append(row)
        phase["ranks"] = rows
        series = phase.get("timeseries")
        if series:
            series["per_rank"] = [list(series["per_rank"][0]) for _ in range(ranks)]
            series["aggregate"] = [sum(c) for c in zip(*series["per_rank"], strict=True)]
        phase["items"] = sum(r["items"] for r in rows)
        phase["bytes"] = sum(r["bytes"] for r in rows)
    return document


def measure(ranks: int) -> str:
    with tempfile.TemporaryDirectory(prefix="report-bench-") as scratch:
        run_dir = Path(scratch)
        (run_dir / "result.json").write_text(json.dumps(scaled_document(ranks)), "utf-8")
        start = time.perf_counter()
        run = load_run(run_dir)
        loaded = time.perf_counter()
        run_spreads(run)
        analysed = time.perf_counter()
        page = render_html(run, summary_rows(run))
        rendered = time.perf_counter()
    # Leave-one-out medians for every rank: naive (copy + median) against median_without.
    values = sorted(float(i % 97) for i in range(min(ranks, 4096)))
    naive_start = time.perf_counter()
    for index in range(len(values)):
        median(values[:index] + values[index + 1 :])
    fast_start = time.perf_counter()
    for value in values:
        median_without(values, value)
    fast_end = time.perf_counter()
    ratio = (fast_start - naive_start) / (fast_end - fast_start)
    return (
        f"{ranks:>6} {loaded - start:>8.3f} {analysed - loaded:>13.3f} "
        f"{rendered - analysed:>8.3f} {len(page) / 1e6:>8.2f} {ratio:>18.0f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ranks", type=int, nargs="+", default=[1024, 8192])
    args = parser.parse_args()
    header = ("ranks", "load s", "stragglers s", "html s", "html MB", "naive/l-o-o median")
    print(
        f"{header[0]:>6} {header[1]:>8} {header[2]:>13} {header[3]:>8} {header[4]:>8} "
        f"{header[5]:>19}"
    )
    for ranks in args.ranks:
        print(measure(ranks))


if __name__ == "__main__":
    main()
