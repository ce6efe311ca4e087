"""`ioscore-suite ior` against fio on the same pattern: the acceptance command lines' anchor.

For a few IOR command lines of ../shared/data/acceptance-commands.md (scaled by -b/-s), runs
`mpirun -np N ioscore-suite ior ...` and fio with the same access (psync engine, one job per
rank, file per process or one shared file with each job at its rank's offset, the same
transfer size, bytes per rank, fsync at the end with -e, random order with -z) alternately in
the same directory (--dir, default a temp dir in /dev/shm), and prints per test the median
MiB/s of each over --reps runs and their ratio (ioscore / fio; goal >= 0.9). fio is the
process-per-rank raw limit: it has no MPI barriers and no verification. Not a test: it prints
numbers only.

    .venv/bin/python bench/acceptance_ior_bench.py [--np 2] [--reps 5] [--dir /dev/shm]
"""

from __future__ import annotations

import json
import resource
import statistics
import subprocess
import tempfile
from pathlib import Path

from suite_env import ENV, SUITE, ratio_bench_args

FILE_LIMIT = 2 * 1024**3  # ulimit -f for both: no file grows past 2 GiB
# name -> (IOR options without -o; fpp, transfer, bytes per rank, fsync, random)
TESTS = {
    "Cori FPP write 4m -e": ("-w -a POSIX -F -C -e -g -k -b 4m -t 4m -s 64", 1, "4m", 256, 1, 0),
    "teaching shared 1m": ("-w -t 1m -b 64m -s 4", 0, "1m", 256, 0, 0),
    "CFS random 4k -e": ("-w -z -e -F -t 4k -b 64m", 1, "4k", 64, 1, 1),
}


def limit_file_size() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))


def run_ioscore(np: int, options: str, root: Path) -> float:
    res = root / "res"
    cmd = ["mpirun", "-np", str(np), str(SUITE), "ior", *options.split()]
    cmd += ["-o", str(root / "ior"), "--resultdir", str(res)]
    subprocess.run(cmd, check=True, env=ENV, capture_output=True, preexec_fn=limit_file_size)
    doc = json.loads((res / "result.json").read_text())
    subprocess.run(["rm", "-rf", str(res)], check=True)
    for f in root.glob("ior*"):
        f.unlink()
    return float(doc["phases"][0]["score"]) * 1024  # MiB/s


def run_fio(np: int, fpp: int, xfer: str, mib: int, fsync: int, random: int, root: Path) -> float:
    cmd = [
        "fio",
        "--output-format=json",
        "--group_reporting",
        "--ioengine=psync",
        "--fallocate=none",  # IOR does not preallocate: neither does the anchor
        f"--rw={'randwrite' if random else 'write'}",
        f"--bs={xfer}",
        f"--size={mib}m",
        f"--numjobs={np}",
        f"--end_fsync={fsync}",
        "--name=anchor",
        f"--directory={root}",
    ]
    if not fpp:  # one shared file, job k writes its own range like IOR's rank k
        cmd += ["--filename=shared", f"--offset_increment={mib}m"]
    out = subprocess.run(
        cmd, check=True, capture_output=True, text=True, preexec_fn=limit_file_size
    )
    bw_kib = json.loads(out.stdout)["jobs"][0]["write"]["bw"]
    for f in root.iterdir():
        f.unlink()
    return float(bw_kib) / 1024


def main() -> None:
    args = ratio_bench_args(__doc__)
    with tempfile.TemporaryDirectory(prefix="ioscore-ior-bench-", dir=args.dir) as tmp:
        root = Path(tmp)
        print(f"{'test':24} {'ioscore MiB/s':>14} {'fio MiB/s':>10} {'ratio':>6}")
        for name, (options, fpp, xfer, mib, fsync, random) in TESTS.items():
            ours, anchor = [], []
            for _ in range(args.reps):  # alternating, so drifts hit both alike
                ours.append(run_ioscore(args.np, options, root))
                anchor.append(run_fio(args.np, fpp, xfer, mib, fsync, random, root))
            a, b = statistics.median(ours), statistics.median(anchor)
            print(f"{name:24} {a:14.1f} {b:10.1f} {a / b:6.2f}")


if __name__ == "__main__":
    main()
