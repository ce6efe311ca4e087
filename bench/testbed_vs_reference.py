"""ioscore beside the reference tools on the pretend cluster: same nodes, same file system.

Two comparisons, each alternating ioscore and the reference run for run, `--pairs` times:
- the IO500 standard run: ioscore-suite and a reference IO500 build (`--io500 PATH`, the
  `io500` binary of IO500/io500 built from source with its IOR and pfind) on one INI; each
  phase's score, ratio ioscore / reference per pair, then the median and the spread (min-max
  of the pair ratios, so instability shows);
- IOR command lines: `ioscore-suite ior` and IOR itself (`--ior PATH`, hpc/ior built from
  source) on the same lines; the Max(MiB) of each write and read row of "Summary of all tests".

    .venv/bin/python bench/testbed_vs_reference.py --io500 ~/ref/io500 --ior ~/ref/bin/ior

It uses a running bed (`ioscore testbed up`) when there is one and otherwise brings up its own
(--nodes, --servers, --size-gib) and takes it down at the end. The reference builds are never
part of this repository. Not a test: it prints numbers and asserts nothing.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ioscore.testbed import lifecycle
from ioscore.testbed.layout import MOUNT_POINT, Bed

REPO = Path(__file__).resolve().parents[1]
SUITE = REPO / "suite" / "build" / "ioscore-suite"
FILE_LIMIT_KIB = 4 * 2**20  # ulimit -f of every rank: no file above 4 GiB

INI = """[global]
datadir = {data}
resultdir = {results}
[debug]
stonewall-time = {stonewall}
[ior-easy]
transferSize = 1m
blockSize = {easy_mib}m
[ior-hard]
segmentCount = {hard_segments}
[mdtest-easy]
n = {md_files}
[mdtest-hard]
n = {md_files}
"""

IOR_LINES = [
    "-w -r -e -F -C -t 1m -b 32m",  # file per process, shifted read: the servers' speed
    "-w -r -e -C -t 1m -b 32m",  # one shared file
    "-w -r -e -F -C -t 47008 -b 47008 -s 300",  # ior-hard's record size, interleaved segments
    "-w -r -e -F -C -t 4k -b 4m -z",  # random 4 KiB
]
_RESULT = re.compile(r"^\[RESULT\]\s+(\S+)\s+([\d.]+)\s", re.M)
_SUMMARY_ROW = re.compile(r"^(write|read)\s+([\d.]+)\s", re.M)


def bed_run(np: int, *argv: str, timeout: float = 1800) -> tuple[str, float]:
    """PROGRAM on NP ranks of the bed under ulimit -f; (stdout, wall seconds), and ("", wall)
    with its last error line printed when it fails (a failed side gets no ratio)."""
    limited = ["bash", "-c", f'ulimit -f {FILE_LIMIT_KIB} && exec "$0" "$@"', *argv]
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "ioscore.cli", "testbed", "mpirun", "-np", str(np), "--", *limited],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    wall = time.monotonic() - start
    if done.returncode != 0:
        said = [ln for ln in (done.stdout + done.stderr).splitlines() if "ERROR" in ln]
        print(f"  FAILED: {' '.join(argv[:2])}: {said[-1] if said else done.returncode}")
        return "", wall
    return done.stdout, wall


def on_node(*argv: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "ioscore.cli", "testbed", "exec", "node1", "--", *argv], check=True
    )


def io500_pairs(args: argparse.Namespace, scratch: Path) -> None:
    ratios: dict[str, list[float]] = {}
    for pair in range(args.pairs):
        for name, program in (("ioscore", str(SUITE)), ("reference", str(args.io500))):
            data = MOUNT_POINT / f"bench-{name}-{pair}"
            on_node("mkdir", "-p", str(data))
            ini = scratch / f"{name}-{pair}.ini"
            (scratch / f"results-{name}-{pair}").mkdir()  # the reference does not create it
            ini.write_text(
                INI.format(
                    data=data,
                    results=scratch / f"results-{name}-{pair}",
                    stonewall=args.stonewall,
                    easy_mib=args.easy_mib,
                    hard_segments=args.hard_segments,
                    md_files=args.md_files,
                )
            )
            out, wall = bed_run(args.np, program, str(ini))
            on_node("rm", "-rf", str(data))
            scores = {m.group(1): float(m.group(2)) for m in _RESULT.finditer(out)}
            print(f"  pair {pair + 1} {name:9} {wall:6.1f} s  " + _brief(scores), flush=True)
            if name == "ioscore":
                mine = scores
            else:
                for phase, value in scores.items():
                    if value > 0 and mine.get(phase):
                        ratios.setdefault(phase, []).append(mine[phase] / value)
    _table("IO500 phase", ratios)


def ior_pairs(args: argparse.Namespace, scratch: Path) -> None:
    ratios: dict[str, list[float]] = {}
    for pair in range(args.pairs):
        for line in IOR_LINES:
            rows = {}
            results = ["--resultdir", str(scratch / f"ior-{pair}-{IOR_LINES.index(line)}")]
            for name, program in (
                ("ioscore", [str(SUITE), "ior", *results]),
                ("IOR", [str(args.ior)]),
            ):
                target = MOUNT_POINT / f"bench-ior-{name}-{pair}"
                out, _ = bed_run(args.np, *program, *line.split(), "-o", str(target))
                rows[name] = {m.group(1): float(m.group(2)) for m in _SUMMARY_ROW.finditer(out)}
            for access in ("write", "read"):
                theirs = rows["IOR"].get(access)
                if theirs:
                    ratios.setdefault(f"{line} {access}", []).append(
                        rows["ioscore"].get(access, 0.0) / theirs
                    )
            print(f"  pair {pair + 1} {line}: {rows}", flush=True)
    _table("ior line", ratios)


def _brief(scores: dict[str, float]) -> str:
    return " ".join(f"{k.replace('mdtest-', 'md-')}={v:.3g}" for k, v in scores.items())


def _table(title: str, ratios: dict[str, list[float]]) -> None:
    print(f"\n{title:<52} {'median':>7} {'min':>6} {'max':>6}  (ioscore / reference)")
    for key, values in ratios.items():
        print(f"{key:<52} {statistics.median(values):7.2f} {min(values):6.2f} {max(values):6.2f}")
    print()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--io500", type=Path, help="a reference IO500 `io500` binary")
    parser.add_argument("--ior", type=Path, help="a reference IOR `ior` binary")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--np", type=int, default=8, help="ranks over the bed's nodes")
    parser.add_argument("--nodes", type=int, default=4, help="for a bed this script brings up")
    parser.add_argument("--servers", type=int, default=3)
    parser.add_argument("--size-gib", type=float, default=12.0)
    parser.add_argument("--stonewall", type=int, default=5)
    parser.add_argument("--easy-mib", type=int, default=256)
    parser.add_argument("--hard-segments", type=int, default=2000)
    parser.add_argument("--md-files", type=int, default=5000)
    args = parser.parse_args()
    if not (args.io500 or args.ior):
        parser.error("name a reference: --io500 PATH and/or --ior PATH")
    own = Bed.load() is None
    if own:
        lifecycle.up(args.nodes, args.servers, size_gib=args.size_gib)
    try:
        with tempfile.TemporaryDirectory(prefix="ioscore-bed-bench-", dir="/dev/shm") as tmp:
            if args.io500:
                io500_pairs(args, Path(tmp))
            if args.ior:
                ior_pairs(args, Path(tmp))
    finally:
        if own:
            lifecycle.down()
    return 0


if __name__ == "__main__":
    sys.exit(main())
