"""A worker killed (SIGKILL) in the middle of a validation leaves the submission to be
picked up again: nothing half-written, and a new worker completes it (acks_late +
redelivery after the broker's visibility timeout + the advisory lock dying with the
killed worker's database connection)."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from accounts.models import ApiToken
from submissions.models import Status, Submission

from .helpers import QUESTIONNAIRE, corpus_archive, example_system, wait_for_status

pytestmark = [pytest.mark.celery, pytest.mark.django_db(transaction=True)]


def test_killed_worker_task_is_redelivered_and_completes(
    cast: Any,
    open_release: Any,
    corpus_dir: Path,
    worker_factory: Any,
    settings: Any,
    media_root: Path,
) -> None:
    if not str(settings.CELERY_BROKER_URL).startswith("redis"):
        pytest.skip("redelivery after a crash relies on the Redis broker's visibility timeout")
    queue = f"ioscore-crash-{uuid.uuid4().hex[:8]}"
    settings.IOSCORE_VALIDATION_QUEUE = queue
    # This worker pauses between computing and storing results: we kill it right there.
    doomed = worker_factory(queue, IOSCORE_VALIDATION_PAUSE_S="30")

    _token, raw = ApiToken.issue(cast.submitter, cast.site)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    response = client.post(
        "/api/v1/submissions/",
        {
            "archive": SimpleUploadedFile("run.tgz", corpus_archive(corpus_dir, "760")),
            "system": json.dumps(example_system()),
            "questionnaire": json.dumps(QUESTIONNAIRE),
        },
        format="multipart",
    )
    submission_id = response.json()["id"]

    wait_for_status(submission_id, {Status.VALIDATING})
    time.sleep(0.5)  # well inside the 30 s pause: results computed, nothing stored yet
    doomed.kill()

    submission = Submission.objects.get(pk=submission_id)
    assert submission.status == Status.VALIDATING
    assert submission.issues.count() == 0 and submission.phases.count() == 0
    assert submission.score_total is None
    sandboxes = list((media_root / "sandbox").glob(f"sub{submission_id}-*"))
    assert len(sandboxes) == 1  # the killed task's sandbox, left behind by SIGKILL

    worker_factory(queue)  # a healthy worker on the same queue picks the message up again
    assert (
        wait_for_status(submission_id, {Status.UNDER_REVIEW, Status.VALIDATION_FAILED}, timeout=40)
        == Status.UNDER_REVIEW
    )
    submission.refresh_from_db()
    assert submission.validation_attempts == 2
    assert submission.phases.count() >= 12
    transitions = list(submission.transitions.values_list("to_status", flat=True))
    assert transitions == ["submitted", "validating", "under_review"]  # no duplicate states
