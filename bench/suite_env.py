"""Where the bench scripts find the suite, and the environment its local MPI runs need: run as
root on purpose, Open MPI's session directory and temp files in memory (never on `/`)."""

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
