"""ioscore.results.jobfiles: which files count as the job script and the job output
(LEADERBOARD-RULES §9.3)."""

from __future__ import annotations

import os
from pathlib import Path

from ioscore.results import Severity, find_job_files, job_file_issues


def _write(path: Path, text: str = "x\n") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_scripts_and_outputs_are_found_anywhere_by_their_names(tmp_path: Path) -> None:
    _write(tmp_path / "job" / "run-io500.SLURM")  # case does not matter
    _write(tmp_path / "results" / "2025.01.01-00.00.00" / "job.out")
    _write(tmp_path / "slurm-4242")  # Slurm's default output name has no suffix
    _write(tmp_path / "notes.txt")
    found = find_job_files(tmp_path)
    assert found.scripts == ("job/run-io500.SLURM",)
    assert found.outputs == ("results/2025.01.01-00.00.00/job.out", "slurm-4242")
    assert job_file_issues(tmp_path) == []


def test_empty_files_links_and_macos_metadata_do_not_count(tmp_path: Path) -> None:
    _write(tmp_path / "empty.sh", "")
    _write(tmp_path / "._run.sh")
    _write(tmp_path / "__MACOSX" / "job.out")
    _write(tmp_path / "elsewhere" / "real.out")
    os.symlink(tmp_path / "elsewhere" / "real.out", tmp_path / "link.out")
    (tmp_path / "elsewhere" / "real.out").unlink()  # a dangling link is not a job output
    assert find_job_files(tmp_path).scripts == ()
    assert find_job_files(tmp_path).outputs == ()
    issues = job_file_issues(tmp_path)
    assert [(i.rule, i.severity) for i in issues] == [
        ("archive-job-script", Severity.INVALID),
        ("archive-job-output", Severity.INVALID),
    ]
    assert ".sh" in str(issues[0].expected) and ".out" in str(issues[1].expected)
