#!/usr/bin/env python3
"""ioscore-find vs GNU find vs a bare getdents64 loop on a suite-shaped tree (not a test).

The tree looks like what the suite leaves behind before its find phase (BENCHMARK-RULES
§1.5): per-rank mdtest-easy directories of empty files, one mdtest-hard directory holding most
entries (3901-byte files, all ranks), the ior files, and a timestampfile between easy and
hard. All three tools run in the same process of this script, on a warm cache, alternating,
best of --repeat:

* bare loop   bench/find_getdents_loop.c: one process, getdents64 (1 MiB), d_type only;
* ioscore-find  mpirun -np RANKS, the IO500 predicate (-newer -size 3901c -name *01*), -q;
               its own "time" (pfind's runtime, the one the score uses) and the mpirun wall;
* GNU find    the same predicate in GNU terms (-newerct @T-1.999999999, see
               tests/suite/test_find_engine.py), wall time of the process.

With --fs ext4|xfs|btrfs the tree is built in an image of that file system, loop-mounted in
a private mount namespace (bench/loopmount.py; root needed), instead of /dev/shm (tmpfs).
ioscore-find then also runs with --range-split=off, so the gain of several ranks reading the
one big directory shows next to sharing it by batches of names.

Usage: .venv/bin/python bench/find_bench.py [--fs tmpfs|ext4|xfs|btrfs] [--ranks 2]
       [--easy-ranks 4] [--easy-per-rank 150000] [--hard-per-rank 130000] [--repeat 7] [--keep]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import stat
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from loopmount import run_in_loop_mount
from suite_env import ENV as SUITE_ENV

REPO_ROOT = Path(__file__).resolve().parents[1]
SUITE_DIR = REPO_ROOT / "suite"
HARD_SIZE = 3901
ENV = {**SUITE_ENV, "LC_ALL": "C"}


def build(workdir: Path) -> tuple[Path, Path]:
    loop = workdir / "getdents_loop"
    subprocess.run(
        [
            "cc",
            "-std=c11",
            "-O2",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-o",
            str(loop),
            str(REPO_ROOT / "bench" / "find_getdents_loop.c"),
        ],
        check=True,
    )
    subprocess.run(["make", "-s", "-C", str(SUITE_DIR), "build/ioscore-find"], check=True)
    return loop, SUITE_DIR / "build" / "ioscore-find"


def _files(dir_path: Path, names: list[str], size: int) -> None:
    fd = os.open(dir_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for name in names:
            if size == 0:
                os.mknod(name, stat.S_IFREG | 0o644, dir_fd=fd)
            else:
                f = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644, dir_fd=fd)
                os.ftruncate(f, size)  # sparse: the size is what find tests
                os.close(f)
    finally:
        os.close(fd)


def make_tree(base: Path, ranks: int, easy: int, hard: int) -> tuple[Path, Path]:
    """base/data (the scanned tree) and base/results/timestampfile; reused when present."""
    data, ts = base / "data", base / "results" / "timestampfile"
    stamp = base / f"complete-{ranks}-{easy}-{hard}"
    if stamp.exists():
        return data, ts
    if base.exists():
        shutil.rmtree(base)
    t0 = time.time()
    (base / "results").mkdir(parents=True)
    (data / "ior-easy").mkdir(parents=True)
    _files(data / "ior-easy", [f"ior_file_easy.{r:08d}" for r in range(ranks)], 1 << 20)
    for r in range(ranks):
        d = data / "mdtest-easy" / "test-dir.0-0" / f"mdtest_tree.{r}.0"
        d.mkdir(parents=True)
        _files(d, [f"file.mdtest.{r}.{i}" for i in range(easy)], 0)
    (data / "ior-hard").mkdir()
    _files(data / "ior-hard", ["file"], 47008 * ranks)
    time.sleep(1.0)  # the timestampfile's second starts after every easy file
    ts.touch()
    hard_dir = data / "mdtest-hard" / "test-dir.0-0" / "mdtest_tree.0"
    hard_dir.mkdir(parents=True)
    for r in range(ranks):
        _files(hard_dir, [f"file.mdtest.{r}.{i}" for i in range(hard)], HARD_SIZE)
    stamp.touch()
    print(f"created the tree in {time.time() - t0:.1f} s", flush=True)
    return data, ts


def run_loop(loop: Path, data: Path) -> tuple[int, float]:
    out = subprocess.run([str(loop), str(data)], capture_output=True, text=True, check=True)
    m = re.match(r"scanned (\d+) dirs \d+ time ([\d.]+)", out.stdout)
    assert m, out.stdout
    return int(m.group(1)), float(m.group(2))


def run_ioscore(
    exe: Path, data: Path, ts: Path, ranks: int, extra: tuple[str, ...] = ()
) -> tuple[int, int, float, float]:
    cmd = [
        "mpirun",
        "--oversubscribe",
        "-np",
        str(ranks),
        str(exe),
        str(data),
        "-newer",
        str(ts),
        "-size",
        f"{HARD_SIZE}c",
        "-name",
        "*01*",
        "-q",
        *extra,
    ]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, env=ENV, check=True)
    wall = time.perf_counter() - t0
    keys = dict(re.findall(r"^(found|total-files|time)\s+= ([\d.]+)$", out.stdout, re.M))
    return int(keys["found"]), int(keys["total-files"]), float(keys["time"]), wall


def run_gnu(data: Path, ts: Path) -> tuple[int, float]:
    ref = int(os.stat(ts).st_ctime)
    cmd = [
        "find",
        str(data),
        "-mindepth",
        "1",
        "-xdev",
        "!",
        "-type",
        "d",
        "-name",
        "*01*",
        "-size",
        f"{HARD_SIZE}c",
        "-newerct",
        f"@{ref - 1}.999999999",
        "-printf",
        ".",
    ]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, env=ENV, check=True)
    return len(out.stdout), time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", type=Path, default=Path("/dev/shm/ioscore-find-bench"))
    ap.add_argument("--ranks", type=int, default=2, help="ranks for ioscore-find")
    ap.add_argument("--easy-ranks", type=int, default=4, help="ranks the tree is shaped for")
    ap.add_argument("--easy-per-rank", type=int, default=150_000)
    ap.add_argument("--hard-per-rank", type=int, default=130_000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--keep", action="store_true", help="keep the tree for the next run")
    ap.add_argument("--fs", choices=("tmpfs", "ext4", "xfs", "btrfs"), default="tmpfs")
    args = ap.parse_args()
    if args.fs != "tmpfs" and not os.environ.get("IOSCORE_FIND_BENCH_MOUNTED"):
        os.environ["IOSCORE_FIND_BENCH_MOUNTED"] = args.fs
        entries = args.easy_ranks * (args.easy_per_rank + args.hard_per_rank)

        def inner(mnt: Path) -> list[str]:
            return [sys.executable, *sys.argv, "--base", str(mnt / "find-bench")]

        # enough inodes for every entry; sparse files, so little data
        mkfs_extra = ("-N", str(entries + 100_000)) if args.fs == "ext4" else ()
        return run_in_loop_mount(args.fs, "8G", inner, mkfs_extra)
    on_fs = os.environ.get("IOSCORE_FIND_BENCH_MOUNTED", "tmpfs")

    workdir = Path(tempfile.mkdtemp(dir="/dev/shm", prefix="ioscore-find-bench-build-"))
    created_base = not args.base.exists()
    try:
        loop, exe = build(workdir)
        data, ts = make_tree(args.base, args.easy_ranks, args.easy_per_rank, args.hard_per_rank)
        load_before = os.getloadavg()[0]
        scanned, _ = run_loop(loop, data)  # warm the dentry cache
        gnu_found, _ = run_gnu(data, ts)
        loop_t, ioscore_t, ioscore_wall, gnu_t, names_t = [], [], [], [], []
        found = total = 0
        for _ in range(args.repeat):
            n, t = run_loop(loop, data)
            assert n == scanned
            loop_t.append(t)
            found, total, t, wall = run_ioscore(exe, data, ts, args.ranks)
            ioscore_t.append(t)
            ioscore_wall.append(wall)
            _, t = run_gnu(data, ts)
            gnu_t.append(t)
            if on_fs != "tmpfs":
                f, n, t, _ = run_ioscore(exe, data, ts, args.ranks, ("--range-split=off",))
                assert (f, n) == (found, total)
                names_t.append(t)
        assert total == scanned, (total, scanned)
        assert found == gnu_found, (found, gnu_found)
        best_loop, best_io, best_gnu = min(loop_t), min(ioscore_t), min(gnu_t)
        print(
            f"{on_fs}: {scanned:,} entries scanned, {found:,} found (GNU find: {gnu_found:,}); "
            f"{os.cpu_count()} cores; best of {args.repeat}; load average before/after "
            f"{load_before:.2f}/{os.getloadavg()[0]:.2f} (other jobs share these cores)"
        )
        print(f"{'tool':<34}{'seconds':>10}{'entries/s':>16}")
        rows = [
            ("bare getdents64 loop (1 process)", best_loop),
            (f"ioscore-find ({args.ranks} ranks, pfind time)", best_io),
            (f"ioscore-find ({args.ranks} ranks, mpirun wall)", min(ioscore_wall)),
            ("GNU find (same predicate, wall)", best_gnu),
        ]
        if names_t:
            rows.insert(3, ("  same, --range-split=off", min(names_t)))
        for label, seconds in rows:
            print(f"{label:<34}{seconds:>10.4f}{scanned / seconds:>16,.0f}")
        vs_loop = best_loop / best_io
        vs_gnu = best_gnu / best_io
        print(f"ioscore-find / bare loop = {vs_loop:.2f}  (target >= 0.8)")
        print(f"ioscore-find / GNU find  = {vs_gnu:.2f}  (target >= 3)")
        medians = [statistics.median(t) for t in (loop_t, ioscore_t, gnu_t)]
        print(
            f"medians: bare loop / ioscore-find = {medians[0] / medians[1]:.2f}, "
            f"GNU find / ioscore-find = {medians[2] / medians[1]:.2f}"
        )
        if names_t:
            print(
                f"one big directory read by several ranks vs batches of names: "
                f"{min(names_t) / best_io:.2f} x"
            )
    finally:
        shutil.rmtree(workdir)
        if created_base and not args.keep and args.base.exists():
            shutil.rmtree(args.base)
    return 0


if __name__ == "__main__":
    sys.exit(main())
