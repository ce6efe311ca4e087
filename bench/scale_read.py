"""Load + validate time of large result.json files: full and summary form.

Generates synthetic results (ioscore.results.synthetic: 12 phases, 100 ranks per host) of
1k, 10k and 100k ranks in a temporary directory under /dev/shm, and times, each in a fresh
process (so peak memory is that file's): reading + JSON decoding with the storability checks,
validation (per-rank arrays by rank_check, the rest by the JSON Schema), building the model,
and the straggler analysis of every phase. ``--jsonschema`` adds the old whole-document
JSON-Schema pass for comparison (slow: ~14 s per 10k ranks). ``--before DIR`` measures
another checkout's ``runners/`` (e.g. ``git archive main runners | tar -x -C DIR``) too,
alternating before/after runs ``--repeat`` times, and prints medians of both with the ratio.
Times are CPU seconds of the child process (wall time on a shared, loaded machine measures
the neighbours); ``parse`` is the whole ``parse_result_json`` (msgspec from the mapped file,
one phase at a time, into packed rank columns), ``load``/``valid.`` the stages apart,
from the decoded text and without shared columns (measured after the parse, which is
first). ``RSS MB`` is the child's peak resident set over parse + stragglers (what the CLI
report and the service's worker do; the file's mapped pages count while they are resident);
``held MB`` the anonymous memory resident after them, the model still alive. ``strag.`` runs
with the cyclic GC back on, so it includes the first collections over what the parse built.
Never asserts anything.

Usage: .venv/bin/python bench/scale_read.py [--ranks 1000 10000 100000] [--jsonschema]
           [--before DIR --repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ioscore.results import parse_json, storable_json, synthetic
from ioscore.results.errors import read_text
from ioscore.results.gc_pause import gc_paused
from ioscore.results.limits import MAX_JSON_DEPTH, MAX_RESULT_JSON_BYTES
from ioscore.results.stragglers import run_spreads


def _status_mb(field: str) -> float:
    """A VmRSS/RssAnon/... line of /proc/self/status, in MB."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def measure(path: Path, whole_schema: bool) -> dict[str, Any]:
    """Times of each reading stage of one file, in this process: first what the CLI report
    and the service's worker do (parse + stragglers: its peak RSS), then the stages apart."""
    times: dict[str, Any] = {}
    start = time.process_time()
    run = parse_json.parse_result_json(path)
    times["parse_total_s"] = time.process_time() - start
    start = time.process_time()
    spreads = run_spreads(run)
    times["stragglers_s"] = time.process_time() - start
    times["flagged_ranks"] = sum(len(s.rank_stragglers) for s in spreads)
    times["flagged_hosts"] = sum(len(s.host_stragglers) for s in spreads)
    times["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    times["held_mb"] = _status_mb("RssAnon")  # what the model (still alive) holds, + Python
    del run, spreads
    start = time.process_time()
    with gc_paused():  # as parse_result_json decodes
        text = read_text(path, max_bytes=MAX_RESULT_JSON_BYTES, max_line=None)
        document = storable_json.loads(text, MAX_JSON_DEPTH)
    times["load_s"] = time.process_time() - start
    start = time.process_time()
    parse_json._validate_schema(document, str(path))
    times["validate_s"] = time.process_time() - start
    if whole_schema:
        start = time.process_time()
        errors = list(parse_json._validator().iter_errors(document))
        times["jsonschema_s"] = time.process_time() - start
        times["jsonschema_errors"] = len(errors)
    return times


def write(directory: Path, ranks: int) -> dict[str, Path]:
    document = synthetic.full_document(ranks, ppn=100, slow_hosts=(1,))
    paths = {form: directory / f"{form}-{ranks}.json" for form in ("full", "summary")}
    with paths["full"].open("w", encoding="utf-8") as handle:
        json.dump(document, handle)
    summary = synthetic.summarised(document, threshold=min(4096, ranks - 1))
    paths["summary"].write_text(json.dumps(summary), encoding="utf-8")
    return paths


def _child(path: Path, runners: Path | None, whole_schema: bool) -> dict[str, Any]:
    """measure() of `path` in a fresh process, with `runners` (a checkout's runners/) first
    on the path when given."""
    env = dict(os.environ)
    if runners is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(runners), str(Path(__file__).parent)])
    command = [sys.executable, __file__, "--one", str(path)]
    if whole_schema:
        command.append("--jsonschema")
    result = subprocess.run(command, check=True, capture_output=True, env=env)
    out: dict[str, Any] = json.loads(result.stdout)
    return out


def _medians(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {key: statistics.median(run[key] for run in runs) for key in runs[0]}


def _row(ranks: int, form: str, size: float, label: str, out: dict[str, Any], js: bool) -> str:
    flags = f"{out['flagged_ranks']:.0f}/{out['flagged_hosts']:.0f}"
    return (
        f"{ranks:>7} {form:>7} {size:>8.1f} {label:>6} "
        f"{out['load_s']:>7.2f} {out['validate_s']:>8.3f} {out['parse_total_s']:>8.2f} "
        f"{out['stragglers_s']:>8.3f} {flags:>9} {out['peak_rss_mb']:>7.0f} {out['held_mb']:>7.0f}"
        + (f" {out.get('jsonschema_s', float('nan')):>12.2f}" if js else "")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, nargs="+", default=[1000, 10_000, 100_000])
    parser.add_argument("--jsonschema", action="store_true", help="also time the old pass")
    parser.add_argument("--before", type=Path, help="a checkout whose runners/ to compare")
    parser.add_argument("--repeat", type=int, default=1, help="alternating runs per code")
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)  # child process
    parser.add_argument("--write", type=Path, help=argparse.SUPPRESS)  # child process
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.jsonschema)))
        return
    if args.write:
        write(args.write, args.ranks[0])
        return
    codes: list[tuple[str, Path | None]] = [("after", None)]
    if args.before:
        codes.insert(0, ("before", args.before / "runners"))
    print(
        f"{'ranks':>7} {'form':>7} {'MB':>8} {'code':>6} {'load s':>7} {'valid. s':>8} "
        f"{'parse s':>8} {'strag. s':>8} {'flags r/h':>9} {'RSS MB':>7} {'held MB':>7}"
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
                size = path.stat().st_size / 1e6
                js = args.jsonschema and ranks <= 10_000
                runs: dict[str, list[dict[str, Any]]] = {label: [] for label, _ in codes}
                for _ in range(args.repeat):
                    for label, runners in codes:  # alternating: load drifts hit both alike
                        runs[label].append(_child(path, runners, js))
                medians = {label: _medians(found) for label, found in runs.items()}
                for label, _ in codes:
                    print(_row(ranks, form, size, label, medians[label], args.jsonschema))
                if args.before:
                    before, after = medians["before"], medians["after"]
                    ratio = before["parse_total_s"] / max(after["parse_total_s"], 1e-9)
                    strag = before["stragglers_s"] / max(after["stragglers_s"], 1e-9)
                    rss = before["peak_rss_mb"] / max(after["peak_rss_mb"], 1e-9)
                    print(
                        f"{'':>24} ratio before/after: parse x{ratio:.2f}, "
                        f"stragglers x{strag:.2f}, peak RSS x{rss:.2f}",
                        flush=True,
                    )
                path.unlink()


if __name__ == "__main__":
    main()
