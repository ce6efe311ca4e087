"""`ioscore-suite mdtest` against the bare syscall loop: the mdtest command lines' anchor.

For the file tests of ../shared/data/acceptance-commands.md (scaled by -n), runs
`mpirun -np N ioscore-suite mdtest -F -C -T [-E] -r -Y -n N ...` and the C anchor of the
suite's own bench (suite_md_anchor.c: the same syscalls, a directory per rank ("easy", -u) or
one shared directory with 3901-byte files ("hard", -w/-e 3901), a sync after the creates as -Y)
alternately in the same directory (--dir, default a temp dir in /dev/shm), and prints per test
and operation the median ops/s of each over --reps runs and their ratio (ioscore / anchor;
goal >= 0.9). Not a test: it prints numbers only. mdtest's layout puts every file two
directories deeper than the anchor's (test-dir.0-0/mdtest_tree.<r>.0/): on tmpfs, perf shows the
kernel's path walk (__d_lookup_rcu, link_path_walk) as the largest cost of stat and unlink, so
their ratios there measure the namespace, not the loop.

    .venv/bin/python bench/acceptance_mdtest_bench.py [--np 2] [--reps 5] [--dir /dev/shm]
"""

from __future__ import annotations

import json
import resource
import statistics
import subprocess
import tempfile
from pathlib import Path

from suite_env import ENV, SUITE, ratio_bench_args

ANCHOR_SRC = Path(__file__).resolve().with_name("suite_md_anchor.c")
FILE_LIMIT = 2 * 1024**3  # ulimit -f for both
# name -> (mdtest options without -n/-d, files per rank, anchor layout, operation -> anchor op)
TESTS = {
    "Lustre HDD -F -u (n 20 x250)": (
        "-F -C -T -r -u",
        5000,
        "easy",
        {"File creation": "create", "File stat": "stat", "File removal": "delete"},
    ),
    "shared dir -w/-e 3901": (
        "-F -C -T -E -r -w 3901 -e 3901",
        3000,
        "hard",
        {
            "File creation": "create",
            "File stat": "stat",
            "File read": "read",
            "File removal": "delete",
        },
    ),
}


def limit_file_size() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))


def build_anchor(root: Path) -> Path:
    binary = root / "suite_md_anchor"
    cmd = ["mpicc", "-O2", "-std=c11", "-Wall", "-Wextra", "-Werror", "-o", str(binary)]
    subprocess.run([*cmd, str(ANCHOR_SRC)], check=True, env=ENV)
    return binary


def run_ioscore(np: int, options: str, files: int, root: Path) -> dict[str, float]:
    res = root / "res"
    cmd = ["mpirun", "-np", str(np), str(SUITE), "mdtest", *options.split(), "-n", str(files)]
    cmd += ["-d", str(root / "out"), "--resultdir", str(res)]
    subprocess.run(cmd, check=True, env=ENV, capture_output=True, preexec_fn=limit_file_size)
    doc = json.loads((res / "result.json").read_text())
    subprocess.run(["rm", "-rf", str(res), str(root / "out")], check=True)
    return {s["operation"]: s["mean"] for s in doc["summary"]}


def run_anchor(binary: Path, np: int, mode: str, files: int, root: Path) -> float:
    cmd = ["mpirun", "-np", str(np), str(binary), mode, str(root), str(files)]
    out = subprocess.run(
        cmd, check=True, env=ENV, capture_output=True, text=True, preexec_fn=limit_file_size
    )
    _, total, seconds = out.stdout.split()
    return float(total) / float(seconds)


def main() -> None:
    args = ratio_bench_args(__doc__)
    with tempfile.TemporaryDirectory(prefix="ioscore-mdtest-bench-", dir=args.dir) as tmp:
        root = Path(tmp)
        binary = build_anchor(root)
        work = root / "work"
        work.mkdir()
        print(
            f"{'test':30} {'operation':14} {'ioscore ops/s':>14} {'anchor ops/s':>13} {'ratio':>6}"
        )
        for name, (options, files, layout, ops) in TESTS.items():
            ours: dict[str, list[float]] = {op: [] for op in ops}
            anchor: dict[str, list[float]] = {op: [] for op in ops}
            for _ in range(args.reps):  # alternating, so drifts hit both alike
                rates = run_ioscore(args.np, options, files, work)
                for op, anchor_op in ops.items():  # the anchor's phases in mdtest's order
                    ours[op].append(rates[op])
                    anchor[op].append(
                        run_anchor(binary, args.np, f"{layout}-{anchor_op}", files, work)
                    )
                subprocess.run(["rm", "-rf", str(work)], check=True)
                work.mkdir()
            for op in ops:
                a, b = statistics.median(ours[op]), statistics.median(anchor[op])
                print(f"{name:30} {op:14} {a:14.0f} {b:13.0f} {a / b:6.2f}")


if __name__ == "__main__":
    main()
