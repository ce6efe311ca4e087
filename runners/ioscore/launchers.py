"""How to start N ranks, P per node: the command line of each launcher, and which one fits.

A job script, an acceptance plan's launches and `ioscore size`'s probe all need the same
thing: "N ranks of this program, P on each node". The launchers say it differently:

- openmpi: Open MPI's `mpirun -np N --map-by ppr:P:node`. It refuses more ranks than cores and
  refuses root unless told, so a launch on this machine adds `--oversubscribe` (and
  `--allow-run-as-root` as root); a batch job gets neither, so it fails rather than silently
  oversubscribing the allocation.
- mpich: MPICH's hydra `mpiexec -n N -ppn P`, also Intel MPI's and MVAPICH's `mpiexec.hydra`
  and Cray PALS's `mpiexec`; hydra places any number of ranks on a host and runs as root.
- srun: Slurm's `srun --nodes=K --ntasks=N --ntasks-per-node=P` (Cray MPICH on Slurm too).
- flux: `flux run -N K -n N --tasks-per-node=P`.

The launcher must belong to the MPI the suite was built with, so the default comes from the
suite binary's `--version` (the library it was linked with), else from the MPI on PATH
(`ioscore sysinfo`'s probe); `--launcher` overrides both.
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
from dataclasses import dataclass

from ioscore.machine import Probe, identify_mpi, mpi_info

LAUNCHERS = ("openmpi", "mpich", "srun", "flux")
# An MPI implementation (sysinfo's names) -> the launcher its mpiexec understands.
_BY_IMPLEMENTATION = {
    "Open MPI": "openmpi",
    "MPICH": "mpich",
    "Intel MPI": "mpich",
    "MVAPICH": "mpich",
}
# Where each MPI's own launcher may be installed; with several MPIs side by side (Debian's
# alternatives) the plain name may belong to the other one, so each candidate is asked.
_PROGRAMS = {
    "openmpi": ("mpirun", "mpiexec", "mpirun.openmpi", "mpiexec.openmpi"),
    "mpich": ("mpiexec", "mpiexec.hydra", "mpiexec.mpich", "mpirun", "mpirun.mpich"),
}
# The scheduler's own launcher, used unless --launcher says otherwise; other schedulers
# (local, pbs) start the ranks with the MPI's launcher.
SCHEDULER_LAUNCHER = {"slurm": "srun", "flux": "flux"}


class LauncherError(Exception):
    pass


@dataclass(frozen=True)
class Launcher:
    name: str
    program: str  # the launcher's executable (name or path)

    def argv(self, ranks: int, ppn: int | None = None, *, local: bool = False) -> list[str]:
        """The words before the program: RANKS ranks, PPN per node (None: all on one node).

        `local`: the ranks start on this machine now (`scheduler local`, a probe), which
        may have fewer cores than ranks and may be run as root.
        """
        if ranks < 1:
            raise LauncherError("--ranks must be >= 1")
        if ppn is not None and ppn < 1:
            raise LauncherError("--ppn must be >= 1")
        per_node = ppn if ppn is not None else ranks
        nodes = math.ceil(ranks / per_node)
        if self.name == "openmpi":
            words = [self.program]
            if local:
                words.append("--oversubscribe")
                if hasattr(os, "geteuid") and os.geteuid() == 0:
                    words.append("--allow-run-as-root")
            words += ["-np", str(ranks)]
            return words + (["--map-by", f"ppr:{per_node}:node"] if ppn is not None else [])
        if self.name == "mpich":
            return [
                self.program,
                "-n",
                str(ranks),
                *(["-ppn", str(ppn)] if ppn is not None else []),
            ]
        if self.name == "srun":
            return [
                self.program,
                f"--nodes={nodes}",
                f"--ntasks={ranks}",
                f"--ntasks-per-node={per_node}",
            ]
        if self.name == "flux":
            return [self.program, "run", "-N", str(nodes), "-n", str(ranks)] + (
                [f"--tasks-per-node={per_node}"] if ppn is not None else []
            )
        raise LauncherError(f"unknown launcher {self.name!r}; choose one of {', '.join(LAUNCHERS)}")


def _launcher_of(version_text: str) -> str | None:
    found = identify_mpi(version_text)
    return _BY_IMPLEMENTATION.get(found[0]) if found else None


def suite_launcher(suite: str) -> str | None:
    """The launcher of the MPI the suite binary was linked with (its `--version`), or None."""
    path = shutil.which(suite)
    if path is None:
        return None
    output = Probe().command([path, "--version"], "mpi")
    mpi_line = next(
        (line for line in (output or "").splitlines() if line.startswith("MPI: ")), None
    )
    return _launcher_of(mpi_line) if mpi_line else None


def detect(suite: str | None = None) -> str:
    """The launcher for SUITE's MPI, else for the MPI on PATH; when neither says, hydra's
    (its `mpiexec -n N` is the form the MPI standard recommends)."""
    found = suite_launcher(suite) if suite else None
    if found is None:
        found = _BY_IMPLEMENTATION.get(mpi_info(Probe()).get("implementation") or "")
    return found or "mpich"


def program_of(name: str) -> str:
    """The executable of launcher NAME here: the first candidate whose `--version` names that
    MPI, else the usual name (a job script may run where other modules are loaded)."""
    if name not in _PROGRAMS:
        return name  # srun, flux
    for candidate in _PROGRAMS[name]:
        if shutil.which(candidate) is None:
            continue
        if _launcher_of(Probe().command([candidate, "--version"], "mpi") or "") == name:
            return candidate
    return _PROGRAMS[name][0]


def choose(name: str | None, scheduler: str = "local", suite: str | None = None) -> Launcher:
    """The launcher a job uses: NAME when given, else the scheduler's own, else detected."""
    if name is not None and name not in LAUNCHERS:
        raise LauncherError(f"unknown launcher {name!r}; choose one of {', '.join(LAUNCHERS)}")
    name = name or SCHEDULER_LAUNCHER.get(scheduler) or detect(suite)
    return Launcher(name, program_of(name))


def add_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--launcher",
        choices=LAUNCHERS,
        help="how ranks are started: openmpi (mpirun), mpich (hydra's mpiexec -n -ppn; also "
        "Intel MPI, MVAPICH, Cray PALS), srun, flux (default: the scheduler's own for slurm and "
        "flux, else the launcher of the MPI the suite was built with)",
    )
