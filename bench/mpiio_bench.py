"""MPI-IO against POSIX for ior-easy and ior-hard, with fio's psync as the raw limit.

Runs ioscore-suite with only the four IOR phases, alternately as POSIX, MPI-IO (independent)
and MPI-IO with `collective = TRUE` for ior-hard, plus POSIX with dataPacketType =
incompressible (the cost of generating unique data per transfer), all in the same directory
(--dir, default a temp dir in /dev/shm). fio runs the same transfer sizes and bytes per rank
with its MPI-less psync engine, one job per rank (write with a final fsync, then read). Each
cell is the median GiB/s of --reps alternating runs. Not a test: it prints numbers only.

    .venv/bin/python bench/mpiio_bench.py [--np 2] [--reps 3] [--stonewall 2] [--dir /dev/shm]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from suite_env import ENV, REPO, SUITE

PHASES = ("ior-easy-write", "ior-easy-read", "ior-hard-write", "ior-hard-read")
XFER, BLOCK_MIB, HARD_RECORD, SEGMENTS = 2 * 1024 * 1024, 512, 47008, 10000
FILE_LIMIT = 4 * 1024**3  # ulimit -f for the suite and fio: no file grows past 4 GiB
VARIANTS = {  # name -> (API, ior-hard collective, dataPacketType)
    "POSIX": ("POSIX", False, "timestamp"),
    "MPIIO": ("MPIIO", False, "timestamp"),
    "MPIIO-coll": ("MPIIO", True, "timestamp"),
    "POSIX-incompr": ("POSIX", False, "incompressible"),
}


def limit_file_size() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))


def config(root: Path, stonewall: int, api: str, collective: bool, packet: str) -> str:
    return (
        f"[global]\ndatadir = {root}/data\nresultdir = {root}/results\n"
        f"timestamp-datadir = FALSE\napi = {api}\ndataPacketType = {packet}\n"
        f"[debug]\nstonewall-time = {stonewall}\n"
        f"[ior-easy]\ntransferSize = 2m\nblockSize = {BLOCK_MIB}m\n"
        f"[ior-hard]\nsegmentCount = {SEGMENTS}\ncollective = {'TRUE' if collective else 'FALSE'}\n"
        "[mdtest-easy]\nrun = FALSE\n[mdtest-hard]\nrun = FALSE\n[find]\nrun = FALSE\n"
        "[ior-rnd4K-easy-read]\nrun = FALSE\n"
    )


def suite_run(np: int, base: Path, stonewall: int, variant: str) -> dict[str, float]:
    api, collective, packet = VARIANTS[variant]
    with tempfile.TemporaryDirectory(prefix="ioscore-mpiio-bench-", dir=base) as tmp:
        root = Path(tmp)
        ini = root / "config.ini"
        ini.write_text(config(root, stonewall, api, collective, packet))
        cmd = ["mpirun", "--oversubscribe", "-np", str(np), str(SUITE), str(ini), "-q"]
        proc = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            env=ENV,
            timeout=600,
            preexec_fn=limit_file_size,
        )
        if proc.returncode != 0:
            sys.exit(f"{' '.join(cmd)} failed:\n{proc.stderr}")
        (result,) = (root / "results").glob("*/result.json")
        doc = json.loads(result.read_text())
        scores = {p["name"]: float(p["score"]) for p in doc["phases"] if p["name"] in PHASES}
        if any(p["verify_errors"] for p in doc["phases"]):
            sys.exit(f"{variant}: verification errors")
        return scores


def fio_run(np: int, base: Path, bs: int, size: int) -> dict[str, float]:
    """fio psync, one job (file) per rank: sequential write + fsync, then read; GiB/s."""
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="ioscore-fio-bench-", dir=base) as tmp:
        for rw in ("write", "read"):
            cmd = [
                "fio",
                "--name=ioscore",
                f"--directory={tmp}",
                f"--rw={rw}",
                f"--bs={bs}",
                f"--size={size}",
                f"--numjobs={np}",
                "--ioengine=psync",
                "--end_fsync=1",
                "--group_reporting",
                "--output-format=json",
            ]
            proc = subprocess.run(
                cmd, capture_output=True, text=True, timeout=600, preexec_fn=limit_file_size
            )
            if proc.returncode != 0:
                sys.exit(f"{' '.join(cmd)} failed:\n{proc.stderr}")
            job = json.loads(proc.stdout)["jobs"][0]
            out[rw] = job[rw]["bw_bytes"] / 2**30
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--np", type=int, default=2)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--stonewall", type=int, default=2)
    parser.add_argument("--dir", type=Path, default=Path("/dev/shm"))
    args = parser.parse_args()
    subprocess.run(["make", "-s", "-C", str(REPO / "suite")], check=True)
    cells: dict[str, dict[str, list[float]]] = {v: {p: [] for p in PHASES} for v in VARIANTS}
    fio: dict[str, list[float]] = {p: [] for p in PHASES}
    names = list(VARIANTS)
    for rep in range(args.reps):  # rotate the order, so drift hits every variant alike
        for variant in names[rep % len(names) :] + names[: rep % len(names)]:
            for phase, score in suite_run(args.np, args.dir, args.stonewall, variant).items():
                cells[variant][phase].append(score)
        easy = fio_run(args.np, args.dir, XFER, BLOCK_MIB * 1024 * 1024)
        hard = fio_run(args.np, args.dir, HARD_RECORD, HARD_RECORD * SEGMENTS)
        for phase, value in (
            ("ior-easy-write", easy["write"]),
            ("ior-easy-read", easy["read"]),
            ("ior-hard-write", hard["write"]),
            ("ior-hard-read", hard["read"]),
        ):
            fio[phase].append(value)
    med = {v: {p: statistics.median(cells[v][p]) for p in PHASES} for v in VARIANTS}
    fio_med = {p: statistics.median(fio[p]) for p in PHASES}
    print(
        f"np={args.np} reps={args.reps} stonewall={args.stonewall}s in {args.dir} "
        "(median GiB/s of alternating runs; fio psync has no stonewall: it moves the suite's "
        "upper bound of bytes per rank)"
    )
    header = f"{'phase':<16}" + "".join(f"{v:>14}" for v in VARIANTS) + f"{'fio psync':>11}"
    header += f"{'MPIIO/POSIX':>13}{'coll/POSIX':>12}{'POSIX/fio':>11}{'incompr/ts':>12}"
    print(header)
    for p in PHASES:
        row = f"{p:<16}" + "".join(f"{med[v][p]:>14.3f}" for v in VARIANTS)
        posix = med["POSIX"][p]
        row += f"{fio_med[p]:>11.3f}"
        row += f"{med['MPIIO'][p] / posix:>13.3f}{med['MPIIO-coll'][p] / posix:>12.3f}"
        row += f"{posix / fio_med[p]:>11.3f}{med['POSIX-incompr'][p] / posix:>12.3f}"
        print(row)


if __name__ == "__main__":
    main()
