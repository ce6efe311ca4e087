"""io_uring against POSIX at 4 KiB random transfers, on /dev/shm and on a loop-mounted ext4.

`ioscore-suite ior -a IOURING --iouring.depth=D` and `ior -a POSIX` write and then read the
same file-per-process layout with 4 KiB transfers at random offsets (-z, a fixed seed),
alternating in pairs; each ratio (io_uring / POSIX operations per second) is the median of the
pairs' ratios. The ext4 file system is an image in /dev/shm loop-mounted in a private mount
namespace (bench/loopmount.py): a block device under the file system, torn down at the end;
that part needs root and loop devices and is skipped with the reason otherwise. With
--direct both engines use O_DIRECT (-B) on ext4 (tmpfs has no O_DIRECT). Not a test: it
prints numbers only.

    .venv/bin/python bench/iouring_vs_posix.py [--np 1] [--reps 7] [--depth 16] [--mib 64]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from loopmount import run_in_loop_mount
from suite_env import ENV, SUITE, suite_ior_result


def ior(args: argparse.Namespace, root: Path, engine: list[str], direct: bool) -> dict[str, float]:
    """One write+read launch: ops/s of each access over all ranks (items / phase time)."""
    res = root / f"res-{len(list(root.iterdir()))}"
    ior_args = [
        *engine, "-w", "-r", "-z", "--random-offset-seed", "11", "-F", "-t", "4k",
        "-b", f"{args.mib}m", *(["-B"] if direct else []), "-o", str(root / "file"),
    ]  # fmt: skip
    doc = suite_ior_result(args.np, ior_args, res)
    out = {}
    for phase in doc["phases"]:
        access = "write" if "write" in phase["name"] else "read"
        out[access] = phase["items"] / phase["time"]
        out[access + " p99"] = phase["latency"]["p99"]
    return out


def measure(args: argparse.Namespace, where: Path, label: str, direct: bool) -> None:
    uring = ["-a", "IOURING", f"--iouring.depth={args.depth}"]
    cells: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="ioscore-uring-bench-", dir=where) as tmp:
        root = Path(tmp)
        for rep in range(args.reps):
            order = [("IOURING", uring), ("POSIX", ["-a", "POSIX"])]
            if rep % 2:
                order.reverse()  # alternate which engine goes first
            got = {name: ior(args, root, engine, direct) for name, engine in order}
            for access in ("write", "read"):
                for name in ("IOURING", "POSIX"):
                    cells.setdefault(f"{name} {access}", []).append(got[name][access])
                    cells.setdefault(f"{name} {access} p99", []).append(got[name][access + " p99"])
                ratio = got["IOURING"][access] / got["POSIX"][access]
                cells.setdefault(f"ratio {access}", []).append(ratio)
    mode = "O_DIRECT" if direct else "buffered"
    print(
        f"\n{label} ({mode}), {args.np} rank(s), 4 KiB random, depth {args.depth}, "
        f"{args.reps} pairs"
    )
    print(f"{'':<8}{'io_uring kIOPS':>15}{'POSIX kIOPS':>13}{'ratio':>8}{'pairs':>14}"
          f"{'p99 uring':>11}{'p99 POSIX':>11}")  # fmt: skip
    for access in ("write", "read"):
        ratios = cells[f"ratio {access}"]
        print(
            f"{access:<8}{statistics.median(cells[f'IOURING {access}']) / 1e3:>15.1f}"
            f"{statistics.median(cells[f'POSIX {access}']) / 1e3:>13.1f}"
            f"{statistics.median(ratios):>8.2f}"
            f"{f'{min(ratios):.2f}..{max(ratios):.2f}':>14}"
            f"{statistics.median(cells[f'IOURING {access} p99']) * 1e6:>9.1f}us"
            f"{statistics.median(cells[f'POSIX {access} p99']) * 1e6:>9.1f}us"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--np", type=int, default=1)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--depth", type=int, default=16)
    parser.add_argument("--mib", type=int, default=64, help="MiB per rank")
    parser.add_argument("--only-dir", help=argparse.SUPPRESS)  # inside the loop mount
    parser.add_argument("--label", default="", help=argparse.SUPPRESS)
    parser.add_argument("--direct", action="store_true", help="O_DIRECT on ext4 too")
    args = parser.parse_args()
    if args.depth < 8:
        sys.exit("--depth: the comparison is at queue depth >= 8")
    version = subprocess.run([str(SUITE), "--version"], capture_output=True, text=True, env=ENV)
    if "io_uring: yes" not in version.stdout:
        sys.exit("this suite build has no io_uring backend (install liburing-dev, rebuild)")
    if args.only_dir:
        measure(args, Path(args.only_dir), args.label, args.direct)
        return
    load = os.getloadavg()
    print(
        f"NOTE: shared machine, busy (load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on "
        f"{os.cpu_count()} cores): absolute numbers are noisy; pairs alternate so the ratios hold"
    )
    measure(args, Path("/dev/shm"), "tmpfs /dev/shm", False)
    if os.geteuid() != 0:
        print("\next4 on a loop device: SKIPPED (needs root for losetup and mount)")
        return
    common = [sys.executable, str(Path(__file__).resolve()), "--np", str(args.np)]
    common += ["--reps", str(args.reps), "--depth", str(args.depth), "--mib", str(args.mib)]
    for direct in (False, True) if args.direct else (False,):
        size = f"{max(1024, 3 * args.np * args.mib)}M"
        rc = run_in_loop_mount(
            "ext4",
            size,
            lambda mnt, d=direct: [
                *common,
                "--only-dir",
                str(mnt),
                "--label",
                "ext4 on a loop device (image in /dev/shm)",
                *(["--direct"] if d else []),
            ],
        )
        if rc != 0:
            print(f"\next4 on a loop device: SKIPPED (the loop mount failed, exit {rc})")


if __name__ == "__main__":
    main()
