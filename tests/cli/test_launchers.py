"""ioscore.launchers: the words of each launcher for N ranks, P per node; which launcher and
executable fit this machine; and a real acceptance plan run locally under each MPI built here,
its launcher found from the suite binary alone (2 ranks, /dev/shm, ulimit -f)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ioscore.launchers import Launcher, LauncherError, choose, detect, program_of
from ioscore.machine import identify_mpi
from tests.cli.test_acceptance_plan import cli, write_plan
from tests.fixtures.acceptance_suite import scratch
from tests.mpi_launch import KNOWN, SUITE_DIR, Mpi

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


@pytest.mark.parametrize(
    ("name", "ranks", "ppn", "local", "words"),
    [
        ("openmpi", 16, 4, False, "mpirun -np 16 --map-by ppr:4:node"),
        ("openmpi", 2, None, False, "mpirun -np 2"),
        (
            "openmpi",
            8,
            None,
            True,
            "mpirun --oversubscribe" + (" --allow-run-as-root" if ROOT else "") + " -np 8",
        ),
        ("mpich", 16, 4, False, "mpiexec -n 16 -ppn 4"),
        ("mpich", 16, 4, True, "mpiexec -n 16 -ppn 4"),  # hydra oversubscribes and runs as root
        ("mpich", 3, None, True, "mpiexec -n 3"),
        ("srun", 16, 4, False, "srun --nodes=4 --ntasks=16 --ntasks-per-node=4"),
        ("srun", 10, 4, False, "srun --nodes=3 --ntasks=10 --ntasks-per-node=4"),
        ("srun", 2, None, False, "srun --nodes=1 --ntasks=2 --ntasks-per-node=2"),
        ("flux", 16, 4, False, "flux run -N 4 -n 16 --tasks-per-node=4"),
        ("flux", 2, None, False, "flux run -N 1 -n 2"),
    ],
)
def test_words_of_each_launcher(
    name: str, ranks: int, ppn: int | None, local: bool, words: str
) -> None:
    program = {"openmpi": "mpirun", "mpich": "mpiexec"}.get(name, name)
    assert " ".join(Launcher(name, program).argv(ranks, ppn, local=local)) == words


def test_bad_layouts_and_names_are_refused() -> None:
    with pytest.raises(LauncherError, match="--ranks must be >= 1"):
        Launcher("mpich", "mpiexec").argv(0)
    with pytest.raises(LauncherError, match="--ppn must be >= 1"):
        Launcher("srun", "srun").argv(4, 0)
    with pytest.raises(LauncherError, match="unknown launcher 'aprun'"):
        choose("aprun")


def test_a_scheduler_brings_its_own_launcher_unless_told() -> None:
    assert choose(None, "slurm") == Launcher("srun", "srun")
    assert choose(None, "flux") == Launcher("flux", "flux")
    assert choose("mpich", "slurm").name == "mpich"  # hydra under Slurm, when asked
    assert choose(None, "pbs").name in ("openmpi", "mpich")


@pytest.mark.parametrize("name", ["openmpi", "mpich"])
def test_the_executable_found_belongs_to_that_mpi(name: str) -> None:
    """With both MPIs installed (Debian's alternatives) `mpiexec` is one of them: each
    launcher's executable must be its own MPI's, whatever the plain names point to."""
    if shutil.which(KNOWN[name].launcher) is None:
        pytest.skip(f"{name} is not installed here ({KNOWN[name].launcher})")
    program = program_of(name)
    version = subprocess.run([program, "--version"], capture_output=True, text=True, check=False)
    found = identify_mpi(version.stdout + version.stderr)
    assert found is not None, version.stdout
    assert {"Open MPI": "openmpi"}.get(found[0], "mpich") == name


def built(mpi: Mpi) -> Path:
    """MPI's suite binary, built (incrementally) when its compiler wrapper is installed."""
    if shutil.which(mpi.cc or "mpicc") is None:
        pytest.skip(f"{mpi.cc or 'mpicc'} not installed: no {mpi.name} build here")
    make = subprocess.run(
        ["make", "-s", "-C", str(SUITE_DIR), *mpi.make_args()], capture_output=True, text=True
    )
    assert make.returncode == 0, make.stdout + make.stderr
    return mpi.bin("ioscore-suite")


@pytest.mark.mpi
@pytest.mark.parametrize("mpi", KNOWN.values(), ids=KNOWN.keys())
def test_a_plan_runs_under_the_launcher_of_the_suites_mpi(mpi: Mpi) -> None:
    """No --launcher: the suite binary's own MPI picks the launcher, and every launch of the
    plan really is one job of 2 ranks (a wrong launcher starts 2 singletons of 1 rank)."""
    suite = built(mpi)
    assert detect(str(suite)) == mpi.name
    with scratch(f"ioscore-launch-{mpi.name}-") as root:
        plan = write_plan(root)
        (root / "data").mkdir()
        results = root / "results"
        done = cli("run", str(plan), "--results", str(results), "--suite", str(suite))
        assert done.returncode == 0, done.stdout + done.stderr
        launches = [
            line.strip()
            for line in (results / "job.sh").read_text().splitlines()
            if "--resultdir" in line
        ]
        assert len(launches) == 3
        assert all(program_of(mpi.name) in line for line in launches), launches
        for part in ("fpp/write", "fpp/read", "md/run"):
            doc = json.loads((results / part / "result.json").read_text())
            assert doc["mpi_library"].startswith(mpi.library), doc["mpi_library"]
            assert [r["rank"] for r in doc["phases"][0]["ranks"]] == [0, 1], part


def test_the_probe_of_a_missing_mpi_falls_back_to_hydra(monkeypatch, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Nothing says which MPI (no suite, no launcher on PATH): hydra's standard `mpiexec -n`."""
    monkeypatch.setenv("PATH", str(tmp_path))
    assert detect(None) == "mpich" and detect(str(tmp_path / "no-suite")) == "mpich"
    assert choose(None).program == "mpiexec"
