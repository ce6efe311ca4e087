"""The CLI as a site installs it: a wheel built from a copy of runners/ (nothing written into
the repository), installed into a fresh virtual environment, run from a directory outside the
repository. Its schemas and job-script templates must come from the wheel's package data.

No network: the wheel is built with the development venv's setuptools and wheel
(--no-build-isolation) and installed with --no-deps; the fresh venv reaches the dependencies
(jsonschema, msgspec, plotly, requests) through a .pth line naming the development venv's
site-packages, which adds that directory without its editable install of ioscore.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
RUNNERS = REPO_ROOT / "runners"
PIP = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
# one valid published run (the sample's other runs carry findings that make validate exit 1)
SAMPLE = (
    REPO_ROOT
    / "examples/io500-sample/io500-archive/Pengcheng Laboratory"
    / "Pengcheng Cloudbrain-II on Atlas 900/SuperFS/2023/submission-660/results/2023.05.12-16.49.24"
)


@dataclass
class Installed:
    venv: Path
    outside: Path  # a working directory with no repository around it
    wheel: Path

    def ioscore(self, *args: str) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        return subprocess.run(
            [str(self.venv / "bin" / "ioscore"), *args],
            cwd=self.outside,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )


@pytest.fixture(scope="module")
def installed() -> Iterator[Installed]:
    with tempfile.TemporaryDirectory(prefix="ioscore-wheel-") as tmp:
        root = Path(tmp)
        src, dist = root / "src", root / "dist"
        shutil.copytree(
            RUNNERS, src, ignore=shutil.ignore_patterns("*.egg-info", "build", "__pycache__")
        )
        built = subprocess.run(
            [*PIP, "wheel", "-q", "--no-deps", "--no-build-isolation", str(src), "-w", str(dist)],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert built.returncode == 0, built.stdout + built.stderr
        (wheel,) = dist.glob("ioscore-*.whl")
        venv = root / "venv"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        site = subprocess.run(
            [
                str(venv / "bin" / "python"),
                "-c",
                "import sysconfig; print(sysconfig.get_path('purelib'))",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        Path(site, "dev-dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
        # the development venv's pip installs into the fresh one (it has no pip of its own)
        done = subprocess.run(
            [
                *PIP,
                "--python",
                str(venv / "bin/python"),
                "install",
                "--no-deps",
                "--no-index",
                str(wheel),
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        outside = root / "work"
        outside.mkdir()
        yield Installed(venv, outside, wheel)


def test_the_wheel_carries_schemas_and_templates(installed: Installed) -> None:
    names = subprocess.run(
        [sys.executable, "-m", "zipfile", "-l", str(installed.wheel)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for scheduler in ("local", "slurm", "pbs", "flux"):
        assert f"ioscore/templates/{scheduler}.sh" in names
    assert "ioscore/schemas/ioscore-result-1.schema.json" in names
    assert "ioscore/schemas/ioscore-system-1.schema.json" in names


def test_installed_ioscore_is_the_wheel_not_the_repository(installed: Installed) -> None:
    where = subprocess.run(
        [str(installed.venv / "bin" / "python"), "-c", "import ioscore; print(ioscore.__file__)"],
        cwd=installed.outside,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert where.startswith(str(installed.venv)), where
    assert installed.ioscore("--version").stdout.startswith("ioscore ")


def test_validate_and_report_a_result_outside_the_repository(installed: Installed) -> None:
    results = installed.outside / "results"
    shutil.copytree(SAMPLE, results)
    validated = installed.ioscore("validate", str(results))
    assert validated.returncode == 0, validated.stderr
    assert "-> VALID" in validated.stdout
    reported = installed.ioscore("report", str(results))
    assert reported.returncode == 0, reported.stderr
    assert "ior-easy-write" in reported.stdout


def test_run_renders_job_scripts_from_package_data(installed: Installed) -> None:
    ini = installed.outside / "site.ini"
    ini.write_text("[global]\ndatadir = /scratch/ioscore\n")
    for scheduler, launcher, launch in (
        ("slurm", [], "srun --nodes=2 --ntasks=8 --ntasks-per-node=4"),
        ("local", ["--launcher", "mpich"], " -n 8 -ppn 4 ioscore-suite"),
    ):
        shown = installed.ioscore(
            "run",
            str(ini),
            "--ranks",
            "8",
            "--ppn",
            "4",
            "--scheduler",
            scheduler,
            *launcher,
            "--dry-run",
        )
        assert shown.returncode == 0, shown.stderr
        assert launch in shown.stdout and str(ini) in shown.stdout


def test_sysinfo_size_and_upload_run(installed: Installed) -> None:
    info = installed.ioscore("sysinfo", "--datadir", str(installed.outside))
    assert info.returncode == 0, info.stderr
    assert json.loads(info.stdout)["schema"].startswith("ioscore-system")
    for command in ("size", "upload"):
        helped = installed.ioscore(command, "--help")
        assert helped.returncode == 0 and helped.stdout.startswith(f"usage: ioscore {command}")
    refused = installed.ioscore("size", "--from", str(installed.outside / "missing"))
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
