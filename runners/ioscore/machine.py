"""What this machine has, read without side effects: files under /proc, /sys and /etc and the
`--version` of tools on PATH. Every read is optional: a missing file or tool is recorded with
the reason (``Probe.unavailable``), never an error. `ioscore sysinfo` describes the node with
it; the launchers pick the MPI's own launcher with it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any


class Probe:
    """Collects values and the reasons for the ones it could not read."""

    def __init__(
        self,
        proc_root: Path = Path("/proc"),
        etc_root: Path = Path("/etc"),
        sys_root: Path = Path("/sys"),
    ) -> None:
        self.proc, self.etc, self.sys = proc_root, etc_root, sys_root
        self.unavailable: list[dict[str, str]] = []

    def missing(self, field: str, reason: str) -> None:
        self.unavailable.append({"field": field, "reason": reason})

    def read(self, path: Path, field: str) -> str | None:
        try:
            return path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            self.missing(field, f"{path}: {exc.strerror or exc}")
            return None

    def command(self, argv: list[str], field: str, timeout: float = 10.0) -> str | None:
        if shutil.which(argv[0]) is None:
            self.missing(field, f"{argv[0]} not installed")
            return None
        try:
            done = subprocess.run(
                argv,
                capture_output=True,
                text=True,
                timeout=timeout,
                errors="replace",
                stdin=subprocess.DEVNULL,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            self.missing(field, f"{' '.join(argv)}: {exc}")
            return None
        output = (done.stdout or "") + (done.stderr or "")
        if done.returncode != 0 and not output.strip():
            self.missing(field, f"{' '.join(argv)} exited {done.returncode}")
            return None
        return output


_MPI_VERSIONS = (
    (r"Open MPI\)?\s+v?([\d.]+\w*)", "Open MPI"),
    (r"(?:MPICH|HYDRA)[^\n]*?[Vv]ersion:?\s+([\d.]+\w*)", "MPICH"),
    (r"Intel\(R\) MPI Library[^\n]*?(\d[\d.]+)", "Intel MPI"),
    (r"MVAPICH2? Version:?\s+([\d.]+\w*)", "MVAPICH"),
    # hydra's own `mpiexec --version` (MPICH's, also MVAPICH's): the version on the next line
    (r"HYDRA build details:\s*Version:\s+([\d.]+\w*)", "MPICH"),
)


def identify_mpi(text: str) -> tuple[str, str] | None:
    """(implementation, version) named by a launcher's `--version` or a library string."""
    for pattern, name in _MPI_VERSIONS:
        match = re.search(pattern, text)
        if match:
            return name, match.group(1)
    return None


def mpi_info(probe: Probe) -> dict[str, Any]:
    for argv in (["mpirun", "--version"], ["mpiexec", "--version"], ["mpichversion"]):
        output = probe.command(argv, "mpi")
        if not output:
            continue
        found = identify_mpi(output)
        if found:
            return {"implementation": found[0], "version": found[1], "probe": argv[0]}
        first = output.strip().splitlines()[0] if output.strip() else ""
        return {"implementation": None, "version": None, "probe": argv[0], "raw": first}
    return {"implementation": None, "version": None}
