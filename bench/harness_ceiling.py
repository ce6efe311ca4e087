"""Harness ceiling: what the suite's transfer loop costs per operation when no I/O is done.

Runs `ioscore-suite ior -a DUMMY` (the no-I/O backend: the same transfer loop, timers, latency
histograms, time series and progress as a real run) next to `ior -a POSIX` doing 4 KiB
`pread`s (and `pwrite`s) on /dev/shm, alternating the two in pairs, and prints per-rank
operations per second, the cost per operation and the ratio pread cost / harness cost (goal:
>= 10). Each cell is the median over the pairs. Not a test: it prints numbers only.

    .venv/bin/python bench/harness_ceiling.py [--np 1] [--reps 7] [--mib 256]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from pathlib import Path

from suite_env import suite_ior_result


def ior(np: int, root: Path, api: str, access: list[str], mib: int) -> dict[str, float]:
    """One launch; per phase (write/read), the median over ranks of items / loop time."""
    res = root / f"res-{api}-{len(list(root.iterdir()))}"
    args = ["-a", api, *access, "-F", "-k", "-t", "4k", "-b", f"{mib}m", "-o", str(root / "file")]
    doc = suite_ior_result(np, args, res, timeout=600)
    out = {}
    for phase in doc["phases"]:
        access_name = "write" if "write" in phase["name"] else "read"
        rates = [r["items"] / (r["first_done"] - r["start"]) for r in phase["ranks"]]
        out[access_name] = statistics.median(rates)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--np", type=int, default=1)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--mib", type=int, default=256, help="MiB per rank (4 KiB transfers)")
    args = parser.parse_args()
    load = os.getloadavg()
    print(
        f"NOTE: shared machine, busy (load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on "
        f"{os.cpu_count()} cores): absolute numbers are noisy; pairs alternate so the ratios hold"
    )
    cells: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="ioscore-ceiling-", dir="/dev/shm") as tmp:
        root = Path(tmp)
        for _ in range(args.reps):
            dummy = ior(args.np, root, "DUMMY", ["-w", "-r"], args.mib)
            posix = ior(args.np, root, "POSIX", ["-w", "-r"], args.mib)
            for access in ("write", "read"):
                cells.setdefault(f"DUMMY {access}", []).append(dummy[access])
                cells.setdefault(f"POSIX {access}", []).append(posix[access])
                cells.setdefault(f"ratio {access}", []).append(dummy[access] / posix[access])
    print(f"{args.np} rank(s), 4 KiB transfers, {args.mib} MiB per rank, {args.reps} pairs")
    print(f"{'engine':<14}{'ops/s per rank':>16}{'ns per op':>12}")
    for key in ("DUMMY write", "DUMMY read", "POSIX write", "POSIX read"):
        rate = statistics.median(cells[key])
        print(f"{key:<14}{rate:>16,.0f}{1e9 / rate:>12.1f}")
    for access in ("write", "read"):
        ratios = cells[f"ratio {access}"]
        print(
            f"POSIX 4 KiB p{access} cost / harness cost ({access}): median of pairs "
            f"{statistics.median(ratios):.1f}x (pairs {min(ratios):.1f}..{max(ratios):.1f}; "
            "goal >= 10)"
        )


if __name__ == "__main__":
    main()
