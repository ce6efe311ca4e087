"""ioscore-suite phase by phase beside a raw anchor on the same directory and sizes.

IOR-style phases are compared with fio doing the same I/O pattern (psync pwrite/pread, the
same transfer sizes, file per process / one shared file of interleaved 47008-byte records,
fsync at the end of writes, random 4 KiB reads for the same time). mdtest-style phases are
compared with bench/suite_md_anchor.c, a minimal C loop of the same syscalls. find is set
beside GNU find (one process), for information only. Suite and anchor runs alternate; each
cell is the median of --reps runs; the ratio is suite / anchor (target: >= 0.95).

    .venv/bin/python bench/suite_vs_anchor.py [--np 2] [--reps 3] [--target shm|disk|DIR]

"disk" means a real block file system: a 6 GiB ext4 image loop-mounted in a private mount
namespace (needs root), so the numbers do not depend on how full the root disk is; pass a
directory to use another file system. Not a test: it prints numbers and asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from loopmount import run_in_loop_mount
from suite_env import ENV, REPO, SUITE

from ioscore.results.model import SCORED_PHASES

ANCHOR_SRC = REPO / "bench" / "suite_md_anchor.c"
RECORD = 47008
PHASES = [*SCORED_PHASES, "ior-rnd4K-easy-read"]


class Sizes:
    """The workload shared by the suite and the anchors."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.np: int = args.np
        self.easy_mib: int = args.easy_mib
        self.hard_segments: int = args.hard_segments
        self.md_files: int = args.md_files
        self.rnd_seconds: int = args.rnd_seconds


def mpirun(np: int, *args: str) -> str:
    # unbound like fio's jobs, so neither side is pinned to a core another process is using
    cmd = ["mpirun", "--oversubscribe", "--bind-to", "none", "-np", str(np), *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=ENV)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stderr[-2000:]}")
    return proc.stdout


def run_suite(base: Path, sz: Sizes, tag: str) -> dict[str, float]:
    """One whole standard run; returns phase -> score (GiB/s or kIOPS)."""
    res = base / "suite-results"
    ini = base / "bench.ini"
    # the stonewall is the rnd4K duration; the sizes are small enough for writes to finish first
    ini.write_text(
        f"[global]\ndatadir = {base}/suite-data\nresultdir = {res}\n"
        f"[debug]\nstonewall-time = {sz.rnd_seconds}\n"
        f"[ior-easy]\ntransferSize = 2m\nblockSize = {sz.easy_mib}m\n"
        f"[ior-hard]\nsegmentCount = {sz.hard_segments}\n"
        f"[mdtest-easy]\nn = {sz.md_files}\n[mdtest-hard]\nn = {sz.md_files}\n"
    )
    mpirun(sz.np, str(SUITE), str(ini), "--timestamp", tag, "--quiet")
    doc = json.loads((res / tag / "result.json").read_text())
    shutil.rmtree(res / tag)  # the result directory this repetition created
    for p in doc["phases"]:
        sw = p["stonewall"]
        if p["name"] != "ior-rnd4K-easy-read" and sw and sw["wearout_items"]:
            print(f"  warning: {p['name']} hit the stonewall; use smaller sizes", file=sys.stderr)
    return {p["name"]: float(p["score"]) for p in doc["phases"]}


def fio(args: list[str]) -> list[dict[str, Any]]:
    """Runs fio; returns one result per job (no group reporting: each job's runtime is
    needed, and a grouped job_runtime is the sum over the jobs)."""
    # no fallocate: fio would otherwise allocate the file's blocks before its timed window,
    # which the suite (like IOR) does inside it; no invalidate: fio would drop the page cache
    # of its files before reading, which the suite (like IOR without drop-caches) does not
    cmd = [
        "fio",
        "--output-format=json",
        "--ioengine=psync",
        "--fallocate=none",
        "--invalidate=0",
        *args,
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stderr[-2000:]}")
    jobs: list[dict[str, Any]] = json.loads(proc.stdout[proc.stdout.index("{") :])["jobs"]
    return jobs


def fio_gib(jobs: list[dict[str, Any]], kind: str) -> float:
    """Aggregate GiB/s: all bytes over the slowest job's whole runtime. fio's own bw leaves
    out end_fsync; the suite's score (like IOR's) includes open, the final fsync and close."""
    seconds = max(max(float(j["job_runtime"]), float(j[kind]["runtime"])) for j in jobs) / 1e3
    return sum(float(j[kind]["io_bytes"]) for j in jobs) / seconds / 2**30


def md(anchor: Path, sz: Sizes, mode: str, data: Path) -> float:
    out = mpirun(sz.np, str(anchor), mode, str(data), str(sz.md_files)).split()
    return float(out[1]) / float(out[2]) / 1000.0


def gnu_find_rate(data: Path) -> float:
    timed = subprocess.run(
        ["bash", "-c", f"TIMEFORMAT=%R; time find {data} -size 3901c -name '*01*' | wc -l"],
        capture_output=True,
        text=True,
        check=True,
    )
    seconds = float(timed.stderr.strip().splitlines()[-1])
    scanned = sum(len(files) for _, _, files in os.walk(data))
    return scanned / max(seconds, 1e-3) / 1000.0


def run_anchor(base: Path, sz: Sizes, anchor: Path) -> dict[str, float]:
    data = base / "anchor-data"
    data.mkdir()
    easy_files = [
        f"--directory={data}",
        f"--size={sz.easy_mib}m",
        f"--numjobs={sz.np}",
        "--filename_format=ior_file_easy.$jobnum",
    ]
    hard = [
        f"--filename={data}/hardfile",
        f"--bs={RECORD}",
        f"--numjobs={sz.np}",
        f"--offset_increment={RECORD}",
        f"--size={RECORD * sz.hard_segments * sz.np}",
        f"--io_size={RECORD * sz.hard_segments}",
    ]
    skip = RECORD * (sz.np - 1)  # record j of rank p at (j*N + p) * 47008

    def hard_rw(rw: str) -> str:
        return f"--rw={rw}:{skip}" if skip else f"--rw={rw}"

    s: dict[str, float] = {}
    s["ior-easy-write"] = fio_gib(
        fio(["--name=easy-w", "--rw=write", "--bs=2m", "--end_fsync=1", *easy_files]), "write"
    )
    s["mdtest-easy-write"] = md(anchor, sz, "easy-create", data)
    s["ior-hard-write"] = fio_gib(
        fio(["--name=hard-w", hard_rw("write"), "--end_fsync=1", *hard]), "write"
    )
    s["mdtest-hard-write"] = md(anchor, sz, "hard-create", data)
    s["find"] = gnu_find_rate(data)
    s["ior-easy-read"] = fio_gib(
        fio(["--name=easy-r", "--rw=read", "--bs=2m", *easy_files]), "read"
    )
    s["mdtest-easy-stat"] = md(anchor, sz, "easy-stat", data)
    s["ior-hard-read"] = fio_gib(fio(["--name=hard-r", hard_rw("read"), *hard]), "read")
    s["mdtest-hard-stat"] = md(anchor, sz, "hard-stat", data)
    s["mdtest-easy-delete"] = md(anchor, sz, "easy-delete", data)
    s["mdtest-hard-read"] = md(anchor, sz, "hard-read", data)
    s["mdtest-hard-delete"] = md(anchor, sz, "hard-delete", data)
    s["ior-rnd4K-easy-read"] = fio_gib(
        fio(
            [
                "--name=rnd",
                "--rw=randread",
                "--bs=4k",
                "--time_based",
                f"--runtime={sz.rnd_seconds}",
                *easy_files,
            ]
        ),
        "read",
    )
    shutil.rmtree(data)  # the anchor data this repetition created
    return s


def build_anchor(tmp: Path) -> Path:
    exe = tmp / "suite_md_anchor"
    subprocess.run(
        [
            "mpicc",
            "-O2",
            "-std=c11",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-o",
            str(exe),
            str(ANCHOR_SRC),
        ],
        check=True,
        env=ENV,
    )
    return exe


def fs_type(path: Path) -> str:
    out = subprocess.run(["df", "-T", str(path)], capture_output=True, text=True).stdout
    fields = re.split(r"\s+", out.splitlines()[-1])
    return fields[1] if len(fields) > 1 else "?"


def bench_dir(base: Path, sz: Sizes, reps: int) -> None:
    with tempfile.TemporaryDirectory(prefix="anchor-bin-", dir="/dev/shm") as tmp:
        anchor = build_anchor(Path(tmp))
        suite_runs: list[dict[str, float]] = []
        anchor_runs: list[dict[str, float]] = []
        for rep in range(reps):  # alternate: suite, anchor, suite, anchor, ...
            suite_runs.append(run_suite(base, sz, f"rep{rep}"))
            anchor_runs.append(run_anchor(base, sz, anchor))
    print(
        f"\n{base} ({fs_type(base)}): np={sz.np}, ior-easy {sz.easy_mib} MiB/rank in 2 MiB "
        f"transfers, ior-hard {sz.hard_segments} x 47008 B/rank, mdtest {sz.md_files} "
        f"files/rank, rnd4K {sz.rnd_seconds} s; median of {reps}"
    )
    print(f"{'phase':22s} {'suite':>14s} {'anchor':>14s} {'ratio':>6s}  anchor")
    for phase in PHASES:
        a = statistics.median(r[phase] for r in suite_runs)
        b = statistics.median(r[phase] for r in anchor_runs)
        unit = "GiB/s" if phase.startswith("ior") else "kIOPS"
        tool = (
            "fio"
            if phase.startswith("ior")
            else ("GNU find, 1 process (info)" if phase == "find" else "C loop")
        )
        print(f"{phase:22s} {a:8.3f} {unit} {b:8.3f} {unit} {a / b:6.2f}  {tool}")
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--np", type=int, default=2)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--target", default="shm", help="shm, disk, or a directory")
    parser.add_argument("--easy-mib", type=int, default=1024)
    parser.add_argument("--hard-segments", type=int, default=4000)
    parser.add_argument("--md-files", type=int, default=100000)
    parser.add_argument("--rnd-seconds", type=int, default=5)
    args = parser.parse_args()
    if not SUITE.is_file():
        subprocess.run(["make", "-s", "-C", str(REPO / "suite")], check=True)
    sz = Sizes(args)
    if args.target == "disk":

        def inner(mnt: Path) -> list[str]:
            cmd = [sys.executable, str(Path(__file__).resolve()), "--target", str(mnt)]
            for key in ("np", "reps", "easy_mib", "hard_segments", "md_files", "rnd_seconds"):
                cmd += [f"--{key.replace('_', '-')}", str(getattr(args, key))]
            return cmd

        if run_in_loop_mount("ext4", "6G", inner) != 0:
            sys.exit("the bench inside the ext4 image failed")
        return
    root = Path("/dev/shm") if args.target == "shm" else Path(args.target)
    with tempfile.TemporaryDirectory(prefix="suite-bench-", dir=root) as tmp:
        bench_dir(Path(tmp), sz, args.reps)


if __name__ == "__main__":
    main()
