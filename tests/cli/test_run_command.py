"""`ioscore run`: job scripts for every scheduler, local execution and batch submission; the
job script and the job's output land in the run directory (what an upload needs)."""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from ioscore.commands.run import RunError, render_script
from ioscore.launchers import program_of
from tests.mpi_launch import MPI, SH_RANK

from .conftest import SC25_RUN

SCHEDULERS = ("local", "slurm", "pbs", "flux")


@pytest.fixture
def config(tmp_path: Path) -> Path:
    target = tmp_path / "job dir" / "config.ini"  # a space on purpose: quoting must hold
    target.parent.mkdir()
    shutil.copy(SC25_RUN / "config-orig.ini", target)
    return target


# Batch schedulers start the ranks with their own launcher unless told; local and PBS with the
# MPI's, named here so the expected words do not depend on this machine's MPI.
LAUNCHER_OPTIONS = {"local": ["--launcher", "mpich"], "pbs": ["--launcher", "openmpi"]}


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_dry_run_renders_valid_bash(ioscore_cli, config: Path, scheduler: str) -> None:  # type: ignore[no-untyped-def]
    done = ioscore_cli(
        "run",
        str(config),
        "--ranks",
        "16",
        "--ppn",
        "4",
        "--scheduler",
        scheduler,
        *LAUNCHER_OPTIONS.get(scheduler, []),
        "--dry-run",
        "--partition",
        "batch",
        "--suite-arg=--mode=standard",
    )
    assert done.returncode == 0, done.stderr
    script = done.stdout
    syntax = subprocess.run(["bash", "-n"], input=script, text=True, capture_output=True)
    assert syntax.returncode == 0, syntax.stderr
    assert "${" not in script  # every placeholder was filled
    assert f"'{config}'" in script  # quoted path with a space
    assert "--mode=standard" in script
    expected = {
        "local": [f"{program_of('mpich')} -n 16 -ppn 4 ioscore-suite"],
        "slurm": [
            "#SBATCH --nodes=4",
            "#SBATCH --ntasks=16",
            "#SBATCH --ntasks-per-node=4",
            "#SBATCH --partition=batch",
            "srun --nodes=4 --ntasks=16 --ntasks-per-node=4 ioscore-suite",
        ],
        "pbs": [
            "#PBS -l select=4:ncpus=4:mpiprocs=4",
            "#PBS -q batch",
            # a batch job never oversubscribes its allocation silently
            f"{program_of('openmpi')} -np 16 --map-by ppr:4:node ioscore-suite",
        ],
        "flux": ["#flux: -N 4", "#flux: -n 16", "#flux: -t 120m", "flux run -N 4 -n 16"],
    }[scheduler]
    for text in expected:
        assert text in script, text
    # Results: the config's resultdir (./results) relative to the config file, and the run's
    # own directory is fixed now by the timestamp handed to the suite.
    stamp = re.search(r"--timestamp (\d{4}\.\d\d\.\d\d-\d\d\.\d\d\.\d\d)", script)
    assert stamp, script
    assert f"run_dir='{config.parent / 'results' / stamp.group(1)}'" in script
    assert 'tee -a "$run_dir/job.out"' in script


def test_timestamp_resultdir_false_keeps_the_run_in_resultdir(config: Path) -> None:
    text = config.read_text(encoding="utf-8")
    assert "timestamp-resultdir = TRUE" in text
    text = text.replace("timestamp-resultdir = TRUE", "timestamp-resultdir = FALSE")
    config.write_text(text, encoding="utf-8")
    script = render_script("local", config, 2, None, "suite", suite_args=["--timestamp=T1"])
    assert f"run_dir='{config.parent / 'results'}'\n" in script
    assert script.count("--timestamp") == 1  # the user's own is kept, none added


def test_render_rejects_bad_values(config: Path) -> None:
    with pytest.raises(RunError, match="--ranks"):
        render_script("slurm", config, 0, None, "suite")
    with pytest.raises(RunError, match="--walltime"):
        render_script("slurm", config, 4, 2, "suite", walltime="two hours")
    with pytest.raises(RunError, match="shell characters"):
        render_script("slurm", config, 4, 2, "suite", partition="a;rm -rf /")
    with pytest.raises(RunError, match="unknown scheduler"):
        render_script("lsf", config, 4, 2, "suite")


def test_missing_config_is_a_clear_error(ioscore_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    done = ioscore_cli("run", str(tmp_path / "none.ini"), "--ranks", "2", "--dry-run")
    assert done.returncode == 2 and "no such config file" in done.stderr


def test_broken_config_names_the_line(ioscore_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.ini"
    bad.write_text("[global]\ndatadir /x\n", encoding="utf-8")
    done = ioscore_cli("run", str(bad), "--ranks", "2", "--dry-run")
    assert done.returncode == 2 and f"{bad}:2" in done.stderr


def _fake_tool(directory: Path, name: str, body: str) -> Path:
    tool = directory / name
    tool.write_text("#!/bin/bash\n" + body, encoding="utf-8")
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    return tool


def test_local_run_executes_under_the_launcher(ioscore_cli, config: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    if shutil.which(MPI.launcher) is None:
        pytest.skip(f"{MPI.launcher} not installed")
    marks = tmp_path / "marks"
    marks.mkdir()
    # A stand-in suite (no MPI of its own to detect: the launcher is named): each rank
    # records its rank and arguments.
    suite = _fake_tool(tmp_path, "fake-suite", f'r={SH_RANK}\necho "$r $*" > {marks}/rank-$r\n')
    done = ioscore_cli(
        "run",
        str(config),
        "--ranks",
        "2",
        "--scheduler",
        "local",
        "--launcher",
        MPI.name,
        "--suite",
        str(suite),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    where = re.search(r"job.out will appear in (.+)$", done.stdout, re.MULTILINE)
    assert where, done.stdout
    run_dir = Path(where.group(1))
    stamp = run_dir.name
    lines = sorted(p.read_text().strip() for p in marks.iterdir())
    assert lines == [f"0 {config} --timestamp {stamp}", f"1 {config} --timestamp {stamp}"]
    # the job script and everything the job printed are kept with the results
    job_script = (run_dir / "job.sh").read_text()
    assert f"--timestamp {stamp}" in job_script and f"{program_of(MPI.name)} " in job_script
    job_out = (run_dir / "job.out").read_text()
    assert "ioscore: 2 ranks" in job_out and f"are in {run_dir}" in job_out
    # the same run directory is never reused: its job.sh stays the one that ran
    again = ioscore_cli(
        "run",
        str(config),
        "--ranks",
        "2",
        "--suite",
        str(suite),
        f"--suite-arg=--timestamp={stamp}",
    )
    assert again.returncode == 2 and "already exists" in again.stderr
    assert (run_dir / "job.sh").read_text() == job_script


def test_a_failing_suite_fails_the_job_and_its_output_is_kept(  # type: ignore[no-untyped-def]
    ioscore_cli, config: Path, tmp_path: Path
) -> None:
    if shutil.which(MPI.launcher) is None:
        pytest.skip(f"{MPI.launcher} not installed")
    suite = _fake_tool(tmp_path, "failing-suite", 'echo "suite says: disk full" >&2\nexit 3\n')
    done = ioscore_cli("run", str(config), "--ranks", "1", "--suite", str(suite), timeout=120)
    assert done.returncode != 0
    run_dir = Path(re.search(r"job.out will appear in (.+)$", done.stdout, re.M).group(1))  # type: ignore[union-attr]
    assert "suite says: disk full" in (run_dir / "job.out").read_text()


def test_batch_submission_uses_the_scheduler(ioscore_cli, config: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    copy = tmp_path / "submitted.sh"
    _fake_tool(bin_dir, "sbatch", f'cp "$1" {copy}\necho "Submitted batch job 4242"\n')
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    done = ioscore_cli(
        "run", str(config), "--ranks", "8", "--ppn", "4", "--scheduler", "slurm", env=env
    )
    assert done.returncode == 0, done.stderr
    assert "Submitted batch job 4242" in done.stdout
    run_dir = Path(re.search(r"job.out will appear in (.+)$", done.stdout, re.M).group(1))  # type: ignore[union-attr]
    # what was submitted is the job.sh kept in the run directory
    assert (run_dir / "job.sh").read_text() == copy.read_text()
    assert "#SBATCH --ntasks=8" in copy.read_text()


def test_missing_scheduler_tool(ioscore_cli, config: Path) -> None:  # type: ignore[no-untyped-def]
    if shutil.which("qsub"):
        pytest.skip("PBS is installed here")
    done = ioscore_cli("run", str(config), "--ranks", "4", "--scheduler", "pbs")
    assert done.returncode == 2 and "qsub not found" in done.stderr
