"""Where the bench scripts find the suite, and the environment its local MPI runs need: run as
root on purpose, Open MPI's session directory and temp files in memory (never on `/`)."""

import argparse
import os
from pathlib import Path

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
