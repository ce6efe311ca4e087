"""Load + validate time of large result.json files (issue 21): full and summary form.

Generates synthetic results (ioscore.results.synthetic: 12 phases, 100 ranks per host) of
1k, 10k and 100k ranks in a temporary directory under /dev/shm, and times, each in a fresh
process (so peak memory is that file's): reading + JSON decoding with the storability checks,
validation (per-rank arrays by rank_check, the rest by the JSON Schema), building the model,
and the straggler analysis of every phase. ``--jsonschema`` adds the old whole-document
JSON-Schema pass for comparison (slow: ~14 s per 10k ranks). Never asserts anything.

Usage: .venv/bin/python bench/scale_read.py [--ranks 1000 10000 100000] [--jsonschema]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ioscore.results import parse_json, storable_json, synthetic
from ioscore.results.errors import read_text
from ioscore.results.limits import MAX_JSON_DEPTH, MAX_RESULT_JSON_BYTES
from ioscore.results.stragglers import run_spreads


def measure(path: Path, whole_schema: bool) -> dict[str, Any]:
    """Times of each reading stage of one file, in this process."""
    times: dict[str, Any] = {}
    start = time.perf_counter()
    with parse_json._without_gc_pauses():  # as parse_result_json decodes
        text = read_text(path, max_bytes=MAX_RESULT_JSON_BYTES, max_line=None)
        document = storable_json.loads(text, MAX_JSON_DEPTH)
    times["load_s"] = time.perf_counter() - start
    start = time.perf_counter()
    parse_json._validate_schema(document, str(path))
    times["validate_s"] = time.perf_counter() - start
    if whole_schema:
        start = time.perf_counter()
        errors = list(parse_json._validator().iter_errors(document))
        times["jsonschema_s"] = time.perf_counter() - start
        times["jsonschema_errors"] = len(errors)
    del document, text
    start = time.perf_counter()
    run = parse_json.parse_result_json(path)
    times["parse_total_s"] = time.perf_counter() - start
    start = time.perf_counter()
    spreads = run_spreads(run)
    times["stragglers_s"] = time.perf_counter() - start
    times["flagged_ranks"] = sum(len(s.rank_stragglers) for s in spreads)
    times["flagged_hosts"] = sum(len(s.host_stragglers) for s in spreads)
    times["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return times


def write(directory: Path, ranks: int) -> dict[str, Path]:
    document = synthetic.full_document(ranks, ppn=100, slow_hosts=(1,))
    paths = {form: directory / f"{form}-{ranks}.json" for form in ("full", "summary")}
    with paths["full"].open("w", encoding="utf-8") as handle:
        json.dump(document, handle)
    summary = synthetic.summarised(document, threshold=min(4096, ranks - 1))
    paths["summary"].write_text(json.dumps(summary), encoding="utf-8")
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, nargs="+", default=[1000, 10_000, 100_000])
    parser.add_argument("--jsonschema", action="store_true", help="also time the old pass")
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)  # child process
    parser.add_argument("--write", type=Path, help=argparse.SUPPRESS)  # child process
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.jsonschema)))
        return
    if args.write:
        write(args.write, args.ranks[0])
        return
    print(
        f"{'ranks':>7} {'form':>7} {'MB':>8} {'load s':>7} {'valid. s':>8} {'parse s':>8} "
        f"{'strag. s':>8} {'flags r/h':>9} {'RSS MB':>7}"
        + (f" {'jsonschema s':>12}" if args.jsonschema else "")
    )
    with tempfile.TemporaryDirectory(dir="/dev/shm", prefix="scale_read.") as tmp:
        for ranks in args.ranks:
            # Generated in a child too: the parent stays small, and a child's peak RSS (which
            # Linux carries across fork + exec) is its own.
            generate = [sys.executable, __file__, "--write", tmp, "--ranks", str(ranks)]
            subprocess.run(generate, check=True)
            for form in ("full", "summary"):
                path = Path(tmp) / f"{form}-{ranks}.json"
                command = [sys.executable, __file__, "--one", str(path)]
                if args.jsonschema and ranks <= 10_000:
                    command.append("--jsonschema")
                out = json.loads(subprocess.run(command, check=True, capture_output=True).stdout)
                flags = f"{out['flagged_ranks']}/{out['flagged_hosts']}"
                print(
                    f"{ranks:>7} {form:>7} {path.stat().st_size / 1e6:>8.1f} "
                    f"{out['load_s']:>7.2f} {out['validate_s']:>8.3f} {out['parse_total_s']:>8.2f} "
                    f"{out['stragglers_s']:>8.3f} {flags:>9} {out['peak_rss_mb']:>7.0f}"
                    + (
                        f" {out.get('jsonschema_s', float('nan')):>12.2f}"
                        if args.jsonschema
                        else ""
                    ),
                    flush=True,
                )
                path.unlink()


if __name__ == "__main__":
    main()
