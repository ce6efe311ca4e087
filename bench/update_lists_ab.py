#!/usr/bin/env python3
"""The list builder against an earlier version of itself, on an existing generated database
(issue 21): one acceptance's ``update_lists`` (``service_scale.accept_one``: one more run in
the newest release, lists updated incrementally), or ``--build``, a full ``build_lists()``
over lists already built (it reads, proposes and compares every list, and writes nothing).

The earlier version is a git revision (``--before``, default ``main``) exported to a temporary
directory; each run is a fresh process of one tree or the other, in alternation, so a machine
shared with other work slows both alike. Every acceptance adds a submission to the database
(both sides see one more each round): run it on a copy, never on the generated database.
The median of each side and their ratio are the numbers to read: the wall time, and the CPU
time of the Python process (what the builder's own Python costs, the database's work not
included; a busy machine disturbs it less than the wall time).

Usage (from the repository root):

    createdb -h 127.0.0.1 -U postgres -T ioscore_service_scale_100000 mine_scale100k
    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/mine_scale100k \\
        .venv/bin/python bench/update_lists_ab.py [--before REV] [--rounds 3] [--build]

Not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent


def measure_here(build: bool) -> dict[str, object]:
    """One measurement with this tree's code (the child process of ``main``)."""
    sys.path.insert(0, str(HERE))
    import pages_bench as pb

    pb.setup_django(os.environ["DATABASE_URL"], pb.shim_dir())
    import service_scale as ss

    from rankings.builder import build_lists

    cpu = time.process_time()
    if build:
        started = time.perf_counter()
        report = build_lists()
        took = time.perf_counter() - started
        summary = report.lines()[0]
    else:
        result = ss.accept_one()
        took = result["update_s"]
        summary = f"written {result['written']}, skipped {result['skipped']}"
    return {"s": took, "cpu_s": time.process_time() - cpu, "report": summary}


def export(revision: str) -> Path:
    """The code of ``revision`` (what a run imports) in a temporary directory."""
    target = Path(tempfile.mkdtemp(prefix="update-lists-ab-"))
    archive = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "archive", revision, "bench", "webapp", "runners"],
        check=True,
        capture_output=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target


def run(tree: Path, build: bool) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(tree / "runners")}
    command = [sys.executable, str(tree / "bench" / "update_lists_ab.py"), "--child"]
    if build:
        command.append("--build")
    out = subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="main", help="git revision to compare with")
    parser.add_argument("--after", help="git revision to measure (default: this working tree)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--build", action="store_true", help="full build_lists(), not one accept")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure_here(args.build)))
        return
    before = export(args.before)
    after = export(args.after) if args.after else REPO_ROOT
    try:
        # An exported tree has no copy of this script when it predates it.
        for tree in {before, after} - {REPO_ROOT}:
            shutil.copy(Path(__file__), tree / "bench" / "update_lists_ab.py")
        times: dict[str, list[float]] = {"before": [], "after": []}
        cpu: dict[str, list[float]] = {"before": [], "after": []}
        what = "build_lists()" if args.build else "update_lists([one accepted])"
        for round_ in range(args.rounds):
            for side, tree in (("before", before), ("after", after)):
                result = run(tree, args.build)
                times[side].append(float(result["s"]))  # type: ignore[arg-type]
                cpu[side].append(float(result["cpu_s"]))  # type: ignore[arg-type]
                print(
                    f"round {round_ + 1} {side:6s} {result['s']:7.2f} s, "
                    f"{result['cpu_s']:6.2f} s CPU here  ({result['report']})",
                    flush=True,
                )
        after_name = args.after or "working tree"
        print(f"{what}, median of {args.rounds}: before {args.before}, after {after_name}")
        for label, values in (("wall", times), ("CPU of the Python process", cpu)):
            b, a = statistics.median(values["before"]), statistics.median(values["after"])
            print(f"  {label}: before {b:.2f} s, after {a:.2f} s, ratio {b / a:.2f}x")
    finally:
        for tree in {before, after} - {REPO_ROOT}:
            shutil.rmtree(tree)


if __name__ == "__main__":
    main()
