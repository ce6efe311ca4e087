"""Shared paths for the CLI tests (the real corpus under ../shared/data)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
DEV = REPO_ROOT.parent / "shared" / "data" / "io500-submissions" / "dev"
SC25_RUN = DEV / "762" / "results" / "2025.10.21-12.48.03"


@pytest.fixture
def sc25_copy(tmp_path: Path) -> Path:
    """The corpus run as a submitter would upload it: with the job script and its output
    (the corpus keeps only the result files)."""
    target = tmp_path / "sc25"
    shutil.copytree(SC25_RUN, target)
    (target / "job.sh").write_text("#!/bin/bash\n#SBATCH -N 10\nsrun ./io500 config.ini\n")
    (target / "slurm-4242.out").write_text("IO500 version io500-sc25 (standard)\n")
    return target


@pytest.fixture
def ioscore_cli() -> Callable[..., subprocess.CompletedProcess[str]]:
    """Run the installed console script (falls back to `python -m ioscore.cli`)."""
    script = Path(sys.executable).with_name("ioscore")
    base = [str(script)] if script.exists() else [sys.executable, "-m", "ioscore.cli"]

    def run(
        *args: str, timeout: float = 60, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*base, *args], capture_output=True, text=True, timeout=timeout, check=False, env=env
        )

    return run
