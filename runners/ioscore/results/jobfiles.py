"""The job files an upload must carry (LEADERBOARD-RULES §9.3): the script that launched the
run and the job's output, both non-empty, anywhere in the upload.

Shared by `ioscore validate` (so a submitter learns it before uploading) and the service's
archive checks. `ioscore run` writes them as job.sh and job.out into the run directory.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ioscore.results.archive import is_macos_metadata
from ioscore.results.model import Issue, Severity

JOB_SCRIPT_SUFFIXES = (".sh", ".slurm", ".sbatch", ".pbs", ".job", ".flux", ".bash", ".lsf")
JOB_OUTPUT_SUFFIXES = (".out", ".log", ".err", ".stdout", ".stderr", ".o", ".e")
JOB_OUTPUT_PREFIXES = ("slurm-", "stdout")


@dataclass(frozen=True)
class JobFiles:
    scripts: tuple[str, ...]  # paths relative to the searched root
    outputs: tuple[str, ...]


def find_job_files(root: Path) -> JobFiles:
    scripts, outputs = [], []
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            path = Path(dirpath) / name
            relative = str(path.relative_to(root))
            if is_macos_metadata(relative) or path.is_symlink() or path.stat().st_size == 0:
                continue
            lower = name.lower()
            if lower.endswith(JOB_SCRIPT_SUFFIXES):
                scripts.append(relative)
            elif lower.endswith(JOB_OUTPUT_SUFFIXES) or lower.startswith(JOB_OUTPUT_PREFIXES):
                outputs.append(relative)
    return JobFiles(tuple(sorted(scripts)), tuple(sorted(outputs)))


def job_file_issues(root: Path) -> list[Issue]:
    """Blocking issues for a missing job script or job output (empty list when both exist)."""
    found = find_job_files(root)
    wanted = (
        (found.scripts, "archive-job-script", "job or launch script", "run.sh, job.slurm",
         "job.sh", JOB_SCRIPT_SUFFIXES),
        (found.outputs, "archive-job-output", "job stdout/stderr", "slurm-123.out, job.log",
         "job.out", JOB_OUTPUT_SUFFIXES),
    )  # fmt: skip
    return [
        Issue(
            rule=rule,
            severity=Severity.INVALID,
            message=f"no non-empty {what} in the upload (e.g. {examples}); `ioscore run` "
            f"writes {ours} into the run directory",
            expected="a file ending in " + "/".join(suffixes),
        )
        for present, rule, what, examples, ours, suffixes in wanted
        if not present
    ]
