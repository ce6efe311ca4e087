"""The validation pipeline on its own (no worker): bad run files are reported with the
file and line inside the archive, a missing archive and a crashing checker are reported
as issues instead of leaving the submission stuck."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from validation import pipeline

from .helpers import JOB_FILES, QUESTIONNAIRE, corpus_files, example_system, tar_gz

pytestmark = pytest.mark.django_db


def _context(release: Any) -> pipeline.Context:
    return pipeline.Context(
        release=release,
        target_list="research",
        scc=False,
        system=example_system(),
        questionnaire=QUESTIONNAIRE,
    )


def _rules(outcome: pipeline.Outcome) -> dict[str, pipeline.IssueRow]:
    return {issue.rule: issue for issue in outcome.issues if issue.severity == "invalid"}


def test_malformed_summary_names_the_file_and_line(
    open_release: Any, corpus_dir: Path, tmp_path: Path, media_root: Path
) -> None:
    files = corpus_files(corpus_dir, "762", "run/")
    name = next(n for n in files if n.endswith("result_summary.txt"))
    lines = files[name].decode().splitlines(keepends=True)
    lines.insert(2, "[RESULT]       ior-easy-write      not-a-number GiB/s : time 1 seconds\n")
    files[name] = "".join(lines).encode()
    archive = tmp_path / "bad.tgz"
    archive.write_bytes(tar_gz({**files, **JOB_FILES}))
    sandbox = tmp_path / "sandbox"
    sandbox.mkdir()
    outcome = pipeline.evaluate(archive, sandbox, _context(open_release))
    issue = _rules(outcome)["result-format"]
    assert issue.message.startswith(f"{name}:3: ")
    assert str(sandbox) not in issue.message
    assert outcome.run is None


def test_missing_archive_is_an_issue(open_release: Any, tmp_path: Path) -> None:
    sandbox = tmp_path / "sandbox"
    sandbox.mkdir()
    outcome = pipeline.evaluate(tmp_path / "gone.tgz", sandbox, _context(open_release))
    assert list(_rules(outcome)) == ["archive-missing"]
    assert outcome.fatal == "the stored archive is missing; please upload it again"


def test_crashing_checker_is_reported_not_swallowed(
    open_release: Any, corpus_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(run_dir: Any) -> Any:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(pipeline, "load_run", broken)  # fault injection
    archive = tmp_path / "ok.tgz"
    archive.write_bytes(tar_gz({**corpus_files(corpus_dir, "762", "run/"), **JOB_FILES}))
    sandbox = tmp_path / "sandbox"
    sandbox.mkdir()
    outcome = pipeline.evaluate(archive, sandbox, _context(open_release))
    issue = _rules(outcome)["checker-error"]
    assert "ZeroDivisionError: division by zero" in issue.message
