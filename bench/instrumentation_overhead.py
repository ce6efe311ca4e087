"""Cost of the suite's instrumentation (latency histograms + live progress) per phase.

Runs ioscore-suite alternately with instrumentation on and off (IOSCORE_NO_INSTRUMENTATION=1,
a bench-only switch) on the same tiny /dev/shm workload; each cell is the median phase score of
--reps runs; the ratio is on / off (target: >= 0.99). find has no timed operations and is
left out of the mean (its score varies a lot between runs of this tiny tree). Progress stays
on (no --quiet) in the "on" runs so its reductions are part of the cost. Not a test: it prints
numbers only.

    .venv/bin/python bench/instrumentation_overhead.py [--np 2] [--reps 5] [--stonewall 2]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from suite_env import ENV, REPO, SUITE

# no timed operations of their own: left out of the mean
UNTIMED_PHASES = {"find", "timestamp"}


def config(root: Path, stonewall: int) -> str:
    return (
        f"[global]\ndatadir = {root}/data\nresultdir = {root}/results\n"
        f"[debug]\nstonewall-time = {stonewall}\n"
        "[ior-easy]\ntransferSize = 64k\nblockSize = 128m\n"
        "[ior-hard]\nsegmentCount = 2000\n"
        "[mdtest-easy]\nn = 20000\n"
        "[mdtest-hard]\nn = 10000\n"
    )


def one_run(np: int, stonewall: int, instrumented: bool) -> dict[str, float]:
    env = dict(ENV)
    if not instrumented:
        env["IOSCORE_NO_INSTRUMENTATION"] = "1"
    with tempfile.TemporaryDirectory(prefix="ioscore-instr-bench-", dir="/dev/shm") as tmp:
        root = Path(tmp)
        ini = root / "config.ini"
        ini.write_text(config(root, stonewall))
        cmd = ["mpirun", "--oversubscribe", "-np", str(np), str(SUITE), str(ini)]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
        if proc.returncode != 0:
            sys.exit(f"{' '.join(cmd)} failed:\n{proc.stderr}")
        (result,) = (root / "results").glob("*/result.json")
        doc = json.loads(result.read_text())
        has_latency = any("latency" in p for p in doc["phases"])
        if has_latency != instrumented:
            sys.exit(f"instrumentation switch not honoured (latency present: {has_latency})")
        return {p["name"]: float(p["score"]) for p in doc["phases"] if p["ran"] and p["score"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--np", type=int, default=2)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--stonewall", type=int, default=2)
    args = parser.parse_args()
    subprocess.run(["make", "-s", "-C", str(REPO / "suite")], check=True)
    on: dict[str, list[float]] = {}
    off: dict[str, list[float]] = {}
    for rep in range(args.reps):  # alternate (and swap the order), so drift hits both alike
        order = ((True, on), (False, off)) if rep % 2 == 0 else ((False, off), (True, on))
        for instrumented, cells in order:
            for name, score in one_run(args.np, args.stonewall, instrumented).items():
                cells.setdefault(name, []).append(score)
    print(f"np={args.np} reps={args.reps} stonewall={args.stonewall}s on /dev/shm (median scores)")
    print(f"{'phase':<22} {'on':>12} {'off':>12} {'on/off':>8}")
    ratios = []
    for name in on:
        if name not in off:
            continue
        a, b = statistics.median(on[name]), statistics.median(off[name])
        ratio = a / b if b else float("nan")
        control = name in UNTIMED_PHASES
        if not control:
            ratios.append(ratio)
        note = "  (no timed operations; not in the mean)" if control else ""
        print(f"{name:<22} {a:>12.4f} {b:>12.4f} {ratio:>8.3f}{note}")
    print(
        f"geometric mean of the instrumented phases' ratios: "
        f"{statistics.geometric_mean(ratios):.3f} (target >= 0.99)"
    )


if __name__ == "__main__":
    main()
