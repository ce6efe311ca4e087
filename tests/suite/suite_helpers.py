"""Helpers for driving the native suite (`suite/<build>/ioscore-suite`) under the MPI launcher.

Every run uses fresh temporary data and result directories; data goes to /dev/shm when it
exists (fast, never the repository). Configs are written as real INI files so the binary's own
parser is what the tests exercise.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.mpi_launch import MPI, mpi_env

REPO_ROOT = Path(__file__).resolve().parents[2]
SUITE_DIR = REPO_ROOT / "suite"
SUITE_BIN = MPI.bin("ioscore-suite")
SCHEMA_PATH = SUITE_DIR / "schema" / "ioscore-result-1.schema.json"
CORPUS_DIR = REPO_ROOT.parent / "shared" / "data" / "io500-submissions"
MPI_ENV = mpi_env(TMPDIR="/dev/shm")


@pytest.fixture(scope="session")
def suite_bin() -> Path:
    """The suite binary, built (incrementally) once per session."""
    build = subprocess.run(
        ["make", "-s", "-C", str(SUITE_DIR), *MPI.make_args()], capture_output=True, text=True
    )
    assert build.returncode == 0, build.stdout + build.stderr
    assert SUITE_BIN.is_file()
    return SUITE_BIN


@dataclass
class Workspace:
    """A scratch area: data root, result root and the INI file of one test."""

    root: Path
    data: Path
    results: Path
    ini: Path

    def write_ini(self, text: str) -> Path:
        self.ini.write_text(text)
        return self.ini


@pytest.fixture
def workspace() -> Iterator[Workspace]:
    base = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    with tempfile.TemporaryDirectory(prefix="ioscore-suite-test-", dir=base) as tmp:
        root = Path(tmp)
        yield Workspace(root, root / "data", root / "results", root / "config.ini")


def small_ini(
    ws: Workspace,
    *,
    stonewall: int = 1,
    extra: str = "",
    ior_easy: str = "",
    global_extra: str = "",
    debug_extra: str = "",
) -> str:
    """A short test configuration: every phase, tiny sizes, a stonewall of `stonewall` s."""
    return (
        f"[global]\ndatadir = {ws.data}\nresultdir = {ws.results}\n{global_extra}\n"
        f"[debug]\nstonewall-time = {stonewall}\n{debug_extra}\n"
        f"[ior-easy]\ntransferSize = 64k\nblockSize = 2m\n{ior_easy}\n"
        "[ior-hard]\nsegmentCount = 40\n"
        "[mdtest-easy]\nn = 120\n"
        "[mdtest-hard]\nn = 120\n"
        f"{extra}"
    )


FILE_LIMIT_KIB = 262144  # ulimit -f of every suite process the tests start: no file > 256 MiB


def limited_suite(*args: str) -> list[str]:
    """The suite binary with ARGS, run under `ulimit -f` (MPI.launch(n) before it: ranks)."""
    return ["bash", "-c", f'ulimit -f {FILE_LIMIT_KIB} && exec "$0" "$@"', str(SUITE_BIN), *args]


def run_suite(
    np: int, *args: str, timeout: float = 90, check: bool = False, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """ioscore-suite ARGS on N ranks, every rank under ulimit -f; the completed process."""
    cmd = [*MPI.launch(np), *limited_suite(*args)]
    proc = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        env=MPI_ENV,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        cwd=cwd,
    )
    if check:
        assert proc.returncode == 0, f"{cmd}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    return proc


def run_helper(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """The binary as a plain process (MPI singleton): for --score-from and similar helpers."""
    return subprocess.run(
        [str(SUITE_BIN), *args],
        capture_output=True,
        text=True,
        env=MPI_ENV,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def only_result_dir(ws: Workspace) -> Path:
    """The single timestamped result directory of a run."""
    dirs = [p for p in ws.results.iterdir() if p.is_dir()]
    assert len(dirs) == 1, dirs
    return dirs[0]


STANDARD_PHASES = (
    "ior-easy-write",
    "mdtest-easy-write",
    "timestamp",
    "ior-hard-write",
    "mdtest-hard-write",
    "find",
    "ior-easy-read",
    "mdtest-easy-stat",
    "ior-hard-read",
    "mdtest-hard-stat",
    "mdtest-easy-delete",
    "mdtest-hard-read",
    "mdtest-hard-delete",
    "ior-rnd4K-easy-read",
)


def parse_result_txt(path: Path) -> dict[str, dict[str, str | list[str]]]:
    """result.txt -> {section: {key: value, "_comments": [...]}} (keys as printed, trimmed)."""
    sections: dict[str, dict[str, str | list[str]]] = {}
    current: dict[str, str | list[str]] = {"_comments": []}
    for line in path.read_text().splitlines():
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {"_comments": []})
        elif line.startswith(";"):
            comments = current["_comments"]
            assert isinstance(comments, list)
            comments.append(line)
        elif " = " in line:
            key, value = line.split(" = ", 1)
            current[key.strip()] = value
    return sections


def run_subcommand(
    cwd: Path, name: str, args: list[str], np: int = 2, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """ioscore-suite NAME ARGS on N ranks (ior, mdtest) in `cwd`, every rank under ulimit -f."""
    return run_suite(np, name, *args, timeout=timeout, cwd=cwd)
