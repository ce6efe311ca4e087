"""Where the bench scripts find the suite, and the environment its local MPI runs need: run as
root on purpose, Open MPI's session directory and temp files in memory (never on `/`)."""

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SUITE = REPO / "suite" / "build" / "ioscore-suite"
ENV = {
    **os.environ,
    "OMPI_ALLOW_RUN_AS_ROOT": "1",
    "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
    "OMPI_MCA_orte_tmpdir_base": "/dev/shm",
    "TMPDIR": "/dev/shm",
}


def ratio_bench_args(doc: str) -> argparse.Namespace:
    """The options of the ioscore-vs-anchor benches: ranks, alternating runs, directory."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--np", type=int, default=2)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--dir", default="/dev/shm")
    return parser.parse_args()


def suite_ior_result(np: int, ior_args: list[str], resultdir: Path, timeout: float = 900) -> Any:
    """`mpirun -np NP ioscore-suite ior IOR_ARGS` with every rank under `ulimit -f` (4 GiB);
    its result.json. A failed launch ends the bench with the command and its error output."""
    cmd = [
        "mpirun", "--oversubscribe", "-np", str(np), "bash", "-c",
        'ulimit -f 4194304 && exec "$0" "$@"', str(SUITE), "ior", *ior_args,
        "--resultdir", str(resultdir),
    ]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=timeout)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{proc.stderr}")
    return json.loads((resultdir / "result.json").read_text())
