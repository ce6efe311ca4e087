"""The MPI the suite tests build with and launch under: IOSCORE_MPI=openmpi (default) or mpich.

Owns everything that differs between the two: the compiler wrapper and build directory of the
suite, the launcher (its "N ranks" words are the product's own, ioscore.launchers), how it
forwards variables and names a rank's number, and the environment Open MPI needs as root.
`python -m tests.mpi_launch make-args` prints the suite Makefile's arguments (scripts/test.sh).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ioscore.launchers import Launcher

SUITE_DIR = Path(__file__).resolve().parents[1] / "suite"


@dataclass(frozen=True)
class Mpi:
    name: str
    cc: str | None  # None: the Makefile's default (mpicc)
    build: str  # the suite's build directory under suite/
    launcher: str
    forward_flag: str | None  # names one variable to pass to the ranks; None: all are passed
    library: str  # how the first line of MPI_Get_library_version starts
    linked: str  # the start of the shared library's name a binary built with it needs
    env: dict[str, str]

    def make_args(self) -> list[str]:
        """Arguments of `make -C suite` that build with this MPI into its own directory."""
        return [f"BUILD={self.build}", *([f"CC={self.cc}"] if self.cc else [])]

    def bin(self, name: str) -> Path:
        """A built binary of the suite (ioscore-suite, ioscore-find)."""
        return SUITE_DIR / self.build / name

    def launch(self, np: int, forward: Iterable[str] = ()) -> list[str]:
        """The launcher's argv for NP ranks on this host, forwarding the variables FORWARD."""
        flags = (
            [a for n in sorted(forward) for a in (self.forward_flag, n)]
            if self.forward_flag
            else []
        )
        launch = Launcher(self.name, self.launcher).argv(np, local=True)
        return [launch[0], *flags, *launch[1:]]


OPENMPI = Mpi(
    name="openmpi",
    cc=None,
    build="build",
    launcher="mpirun",
    forward_flag="-x",
    library="Open MPI v",
    linked="libmpi.so",
    env={
        "OMPI_ALLOW_RUN_AS_ROOT": "1",
        "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
        # more ranks than cores (the tests run 4 and more on 2 cores)
        "OMPI_MCA_rmaps_base_oversubscribe": "1",
        # the session directory in RAM: the tests must not depend on free disk space
        "OMPI_MCA_orte_tmpdir_base": "/dev/shm",
    },
)
# hydra places any number of ranks on the local host and passes the whole environment unasked
MPICH = Mpi(
    name="mpich",
    cc="mpicc.mpich",
    build="build-mpich",
    launcher="mpiexec.mpich",
    forward_flag=None,
    library="MPICH Version: ",
    linked="libmpich.so",
    env={},
)
KNOWN = {m.name: m for m in (OPENMPI, MPICH)}


def current() -> Mpi:
    """The MPI named by IOSCORE_MPI (default openmpi); an unknown name is an error."""
    name = os.environ.get("IOSCORE_MPI", "openmpi") or "openmpi"
    if name not in KNOWN:
        raise SystemExit(f"IOSCORE_MPI={name}: expected one of {', '.join(sorted(KNOWN))}")
    return KNOWN[name]


MPI = current()


def of_binary(path: str | Path) -> Mpi:
    """The MPI a program was linked with (a reference build of IOR, say), which must also be
    the one that launches it; the current MPI when its libraries do not say."""
    done = subprocess.run(["ldd", str(path)], capture_output=True, text=True, check=False)
    needed = [line.split()[0] for line in done.stdout.splitlines() if line.split()]
    for mpi in KNOWN.values():
        if any(name.startswith(mpi.linked) for name in needed):
            return mpi
    return MPI


# A launched process's rank number as a sh expression: Open MPI and hydra name it differently.
SH_RANK = "${OMPI_COMM_WORLD_RANK:-${PMI_RANK:?not started by mpirun or mpiexec}}"


def mpi_env(**extra: str) -> dict[str, str]:
    """os.environ plus what the current MPI needs, plus EXTRA."""
    return {**os.environ, **MPI.env, **extra}


if __name__ == "__main__":
    if sys.argv[1:] != ["make-args"]:
        raise SystemExit("usage: python -m tests.mpi_launch make-args")
    print(" ".join(MPI.make_args()))
