"""Nothing lost when the broker is down: besides list updates (test_broker_outage), a mail
that was due and a validation that never started are found by beat's sweeps in what the
database says, and happen once the broker is back (a real worker does them)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction

from submissions.models import NotificationDelivery, Status, Submission
from submissions.tasks import resend_missing_notifications
from submissions.workflow import OWNER, transition
from validation.tasks import requeue_stuck_validations

from .helpers import tar_gz, wait_for_status
from .test_broker_outage import broker_down

pytestmark = [pytest.mark.celery, pytest.mark.django_db(transaction=True)]


def _delivered(change_pk: int, timeout: float = 30) -> set[str]:
    deadline = time.monotonic() + timeout
    while True:
        found = set(
            NotificationDelivery.objects.filter(transition_id=change_pk).values_list(
                "recipient", flat=True
            )
        )
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


def test_a_mail_dropped_while_the_broker_was_down_is_sent_by_the_sweep(
    cast: Any, open_release: Any, validation_queue: Any
) -> None:
    run = Submission.objects.create(
        release=open_release, owner=cast.submitter, site=cast.site, status=Status.UNDER_REVIEW
    )
    with broker_down():
        with transaction.atomic():
            change = transition(run, Status.WITHDRAWN, cast.submitter, "withdrawn", role=OWNER)
        assert resend_missing_notifications(older_than_s=0) == 1  # still down: dropped again
    time.sleep(1)  # what a worker would have sent by now
    assert not NotificationDelivery.objects.filter(transition=change).exists()

    assert resend_missing_notifications(older_than_s=0) == 1  # back: beat's sweep
    assert "owner" in _delivered(change.pk)
    validation_queue.wait_idle()
    assert resend_missing_notifications(older_than_s=0) == 0  # nothing left to send
    assert resend_missing_notifications(older_than_s=600) == 0  # too young to be missing


def test_a_validation_never_started_is_started_by_the_sweep(
    cast: Any, open_release: Any, validation_queue: Any
) -> None:
    from submissions.intake import receive_upload

    data = tar_gz({"io500-run/result_summary.txt": b"[RESULT] nothing valid here\n"})
    with broker_down():
        result = receive_upload(
            SimpleUploadedFile("run.tgz", data), user=cast.submitter, site=cast.site
        )
    pk = result.submission.pk
    time.sleep(1)
    assert Submission.objects.get(pk=pk).status == Status.SUBMITTED  # nobody heard of it

    assert requeue_stuck_validations(older_than_s=0) == 1  # beat's sweep, broker back
    assert wait_for_status(pk, {Status.VALIDATION_FAILED, Status.UNDER_REVIEW}) in {
        Status.VALIDATION_FAILED,
        Status.UNDER_REVIEW,
    }
