"""Helpers for the service tests: build archives from the real corpus, wait for states."""

from __future__ import annotations

import io
import json
import tarfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_SYSTEM = REPO_ROOT / "runners" / "ioscore" / "schemas" / "ioscore-system-1.example.json"

JOB_FILES = {
    "job/run-io500.slurm": b"#!/bin/bash\n#SBATCH -N 13\nsrun ./io500 config.ini\n",
    "job/slurm-4242.out": b"IO500 version io500-sc25\n... run output ...\n",
}

WORDS = "we describe this part of the system in enough plain words for the committee here"
QUESTIONNAIRE = {
    key: WORDS
    for key in (
        "purpose",
        "availability",
        "storage_software",
        "runtime_environment",
        "fault_tolerance",
        "execution",
        "caching",
        "data_source",
        "trust",
    )
}
QUESTIONNAIRE["expected_level"] = "fully_reproducible"


def example_system(**run: Any) -> dict[str, Any]:
    """The schema's example description, with run fields overridden."""
    data: dict[str, Any] = json.loads(EXAMPLE_SYSTEM.read_text())
    data["run"].update(run)
    return data


def tar_gz(
    files: dict[str, bytes], extra: Callable[[tarfile.TarFile], None] | None = None
) -> bytes:
    """A .tar.gz of ``files`` (name -> content); ``extra`` may add hostile members."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, content in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            info.mtime = 1_700_000_000
            archive.addfile(info, io.BytesIO(content))
        if extra is not None:
            extra(archive)
    return buffer.getvalue()


def corpus_files(corpus: Path, submission_id: str, prefix: str = "") -> dict[str, bytes]:
    root = corpus / "io500-submissions" / "dev" / submission_id
    return {
        prefix + str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def corpus_archive(
    corpus: Path, submission_id: str, with_job_files: bool = True, unique: str = ""
) -> bytes:
    """A .tar.gz of a real corpus submission directory (+ a job script and its output)."""
    prefix = f"sub-{submission_id}/"
    files = corpus_files(corpus, submission_id, prefix)
    if with_job_files:
        files.update({prefix + name: content for name, content in JOB_FILES.items()})
    if unique:  # different bytes, same run: a distinct upload
        files[prefix + "job/notes.txt"] = unique.encode()
    return tar_gz(files)


def wait_for_status(submission_id: int, wanted: set[str], timeout: float = 30.0) -> str:
    from submissions.models import Submission

    deadline = time.monotonic() + timeout
    status = ""
    while time.monotonic() < deadline:
        status = Submission.objects.values_list("status", flat=True).get(pk=submission_id)
        if status in wanted:
            return str(status)
        time.sleep(0.05)
    raise AssertionError(f"submission {submission_id} still {status!r} after {timeout} s")


def files_under(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if p.is_file()}
