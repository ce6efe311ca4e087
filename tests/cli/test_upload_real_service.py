"""`ioscore upload` against the real service: Django (pytest-django's live server on the test
PostgreSQL database) and a real Celery worker validating with the same results library."""

from __future__ import annotations

import json
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ioscore.cli import main
from tests.webapp.helpers import QUESTIONNAIRE, example_system

from .conftest import DEV

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.fixture
def submission_dir(tmp_path: Path) -> Path:
    """Real corpus run 760 (io500-sc25, 13 nodes x 24 ppn) plus a job script and its output."""
    target = tmp_path / "submission"
    shutil.copytree(DEV / "760", target)
    (target / "job").mkdir()
    (target / "job" / "run-io500.slurm").write_text("#!/bin/bash\n#SBATCH -N 13\nsrun io500\n")
    (target / "job" / "slurm-4242.out").write_text("IO500 version io500-sc25\n...\n")
    return target


@pytest.fixture
def metadata(tmp_path: Path) -> tuple[Path, Path]:
    system_file = tmp_path / "system.json"
    system = example_system(client_nodes=13, procs_per_node=24)
    system_file.write_text(json.dumps(system), encoding="utf-8")
    questionnaire_file = tmp_path / "questionnaire.json"
    questionnaire_file.write_text(json.dumps(QUESTIONNAIRE), encoding="utf-8")
    return system_file, questionnaire_file


def _upload_args(
    server: str, token: str, directory: Path, metadata: tuple[Path, Path], poll_timeout: str
) -> list[str]:
    system, questionnaire = metadata
    return [
        "upload",
        str(directory),
        "--server",
        server,
        "--token",
        token,
        "--system",
        str(system),
        "--questionnaire",
        str(questionnaire),
        "--poll-interval",
        "0.2",
        "--poll-timeout",
        poll_timeout,
    ]


@pytest.fixture
def unconsumed_validation_queue(settings: Any) -> Iterator[str]:
    """A validation queue no worker reads, whatever workers earlier tests of the session left
    consuming the instance's default queue; emptied afterwards."""
    from ioscore_site.celery import app

    queue = f"ioscore-no-worker-{uuid.uuid4().hex[:8]}"
    settings.IOSCORE_VALIDATION_QUEUE = queue
    yield queue
    with app.connection_for_write() as connection:
        connection.default_channel.queue_purge(queue)


def test_intake_and_dedup_on_the_real_service(
    live_server: Any,
    cast: Any,
    open_release: Any,
    media_root: Path,
    submission_dir: Path,
    metadata: tuple[Path, Path],
    capsys: pytest.CaptureFixture[str],
    unconsumed_validation_queue: str,
) -> None:
    """No worker: the upload is stored and stays `submitted`; the CLI stops polling in time."""
    from accounts.models import ApiToken
    from submissions.models import Submission

    _token, raw = ApiToken.issue(cast.submitter, cast.site, "cli test")
    args = _upload_args(live_server.url, raw, submission_dir, metadata, "1")
    assert main(args) == 0
    captured = capsys.readouterr()
    (submission,) = Submission.objects.all()
    assert f"submission {submission.pk}: submitted" in captured.out
    assert f"/submissions/{submission.pk}/" in captured.out
    assert "still validating" in captured.err
    assert main(args) == 0
    assert "already uploaded" in capsys.readouterr().err
    assert Submission.objects.count() == 1
    wrong = _upload_args(live_server.url, "ios_not-a-token", submission_dir, metadata, "1")
    assert main(wrong) == 3
    assert "check --token" in capsys.readouterr().err


@pytest.mark.celery
def test_validation_result_reaches_the_cli(
    live_server: Any,
    cast: Any,
    open_release: Any,
    validation_queue: Any,
    submission_dir: Path,
    metadata: tuple[Path, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """With the real Celery worker the CLI follows the status to `under_review`."""
    from accounts.models import ApiToken
    from submissions.models import Status, Submission

    _token, raw = ApiToken.issue(cast.submitter, cast.site, "cli test")
    assert main(_upload_args(live_server.url, raw, submission_dir, metadata, "60")) == 0
    out = capsys.readouterr().out
    (submission,) = Submission.objects.all()
    assert submission.status == Status.UNDER_REVIEW
    assert f"submission {submission.pk}: under_review" in out
    assert submission.benchmark_version == "io500-sc25"
