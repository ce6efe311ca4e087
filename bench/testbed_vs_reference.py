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
import functools
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from reference_pairs import Ratios, ior_max_rates
from reference_pairs import io500_pairs as io500_pairs_of
from suite_env import SUITE

from ioscore.testbed import lifecycle
from ioscore.testbed.layout import MOUNT_POINT, Bed

FILE_LIMIT_KIB = 4 * 2**20  # ulimit -f of every rank: no file above 4 GiB

IOR_LINES = [
    "-w -r -e -F -C -t 1m -b 32m",  # file per process, shifted read: the servers' speed
    "-w -r -e -C -t 1m -b 32m",  # one shared file
    "-w -r -e -F -C -t 47008 -b 47008 -s 300",  # ior-hard's record size, interleaved segments
    "-w -r -e -F -C -t 4k -b 4m -z",  # random 4 KiB
]


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
    def on_data(action: str, path: Path) -> None:
        on_node(*(["mkdir", "-p"] if action == "make" else ["rm", "-rf"]), str(path))

    sizes = {
        "stonewall": args.stonewall,
        "easy_mib": args.easy_mib,
        "hard_segments": args.hard_segments,
        "md_files": args.md_files,
    }
    programs = {"ioscore": str(SUITE), "reference": str(args.io500)}
    launch = functools.partial(bed_run, args.np)
    io500_pairs_of(args.pairs, programs, launch, scratch, MOUNT_POINT, sizes, on_data).print_table(
        "IO500 phase"
    )


def ior_pairs(args: argparse.Namespace, scratch: Path) -> None:
    ratios = Ratios()
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
                rows[name] = ior_max_rates(out)
            for access in ("write", "read"):
                ratios.add(f"{line} {access}", rows["ioscore"].get(access), rows["IOR"].get(access))
            print(f"  pair {pair + 1} {line}: {rows}", flush=True)
    ratios.print_table("ior line")


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
