"""Acceptance launches at simulated rank counts: how large an `ioscore-suite ior`
(or `mdtest`) result.json of the summary form is and how long the library takes to read it
and build the acceptance report (statistics, multimodality hints, stragglers), the work of
`ioscore report` and of the service's acceptance intake.

The subcommands write their phases with the IO500 run's gathering and writer, so a phase of
an acceptance launch at N ranks is the phase `suite/build/ioscore-simulate-ranks N` writes;
this script renames the simulator's ior-easy-write/-read (mdtest-easy-write/-stat/-delete)
phases into `-i 3` acceptance launches (ior-write-0 ... / mdtest-file-write-0 ...). For
comparison the full form of the same launches at the smaller counts comes from the library's
synthetic reference (ioscore.results.synthetic). Prints a table; never asserts anything.
Usage: .venv/bin/python bench/acceptance_scale.py [--ranks 1000 10000 100000] [--full 1000 10000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from scale_results import REPO, simulate

from ioscore.acceptance.report import build_report, report_dict
from ioscore.results.synthetic import full_document

REPS = 3  # -i 3, as acceptance plans usually ask
LAUNCHES = {
    "ior": {"ior-easy-write": "ior-write-{}", "ior-easy-read": "ior-read-{}"},
    "mdtest": {
        "mdtest-easy-write": "mdtest-file-write-{}",
        "mdtest-easy-stat": "mdtest-file-stat-{}",
        "mdtest-easy-delete": "mdtest-file-delete-{}",
    },
}


def acceptance_document(io500: dict[str, Any], mode: str) -> dict[str, Any]:
    """The IO500 document's phases as one `-i 3` launch of `mode`."""
    by_name = {p["name"]: p for p in io500["phases"]}
    phases = [
        {**by_name[source], "name": target.format(i)}
        for i in range(REPS)
        for source, target in LAUNCHES[mode].items()
    ]
    return {**io500, "mode": mode, "phases": phases, "measurement_notes": [], "summary": None}


def measure(root: Path, io500: dict[str, Any]) -> dict[str, Any]:
    """Writes both launches below root and reads them as `ioscore report` does."""
    size = 0
    for mode in LAUNCHES:
        (root / mode).mkdir(parents=True)
        text = json.dumps(acceptance_document(io500, mode))
        (root / mode / "result.json").write_text(text)
        size = max(size, len(text))
    start = time.perf_counter()
    report = build_report(root)
    built = report_dict(report)
    elapsed = time.perf_counter() - start
    hints = sum(len(op["multimodality"]) for t in built["tests"] for op in t["operations"])
    if report.unreadable:
        raise SystemExit(f"unreadable: {report.unreadable[0]}")
    return {"bytes": size, "seconds": elapsed, "tests": len(built["tests"]), "hints": hints}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--full", type=int, nargs="*", default=[1000, 10000])
    parser.add_argument("--dir", default="/dev/shm")
    args = parser.parse_args()
    subprocess.run(["make", "-s", "-C", str(REPO / "suite")], check=True)
    print(
        f"{'ranks':>8} {'form':>8} {'largest result.json':>20} {'report (2 launches)':>20}"
        f" {'hints':>6}"
    )
    for ranks in sorted(set(args.ranks) | set(args.full)):
        forms = []
        with tempfile.TemporaryDirectory(prefix="ioscore-acc-scale-", dir=args.dir) as tmp:
            if ranks in args.ranks:
                simulate(ranks, Path(tmp) / "sim")
                io500 = json.loads((Path(tmp) / "sim" / "result.json").read_text())
                forms.append(("summary", measure(Path(tmp) / "summary", io500)))
            if ranks in args.full:
                forms.append(("full", measure(Path(tmp) / "full", full_document(ranks))))
        for form, row in forms:
            print(
                f"{ranks:>8} {form:>8} {row['bytes'] / 1e6:>17.2f} MB {row['seconds']:>18.2f} s"
                f" {row['hints']:>6}"
            )


if __name__ == "__main__":
    main()
