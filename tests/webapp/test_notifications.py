"""E-mail on every transition (LEADERBOARD-RULES §7), sent by a real Celery worker after the commit.

The worker writes each message to a file (Django's file-based e-mail backend), so the test
reads exactly what an SMTP server would have received.
"""

from __future__ import annotations

import email
import time
from email.message import Message
from pathlib import Path
from typing import Any

import pytest
from django.core import mail

from submissions.models import NotificationDelivery, Status, Submission, SubmissionTransition

from .helpers import wait_for_status
from .test_validation_flow import _client, _upload_corpus_run

CONTACT = "a.submitter@example.org"  # the example system description's submitter e-mail


def _subject(message: Message) -> str:
    return " ".join(str(message["Subject"]).split())  # long subjects arrive folded


def _mails(
    mail_dir: Path,
    subject_part: str,
    expected: int,
    timeout: float = 30,
    also: str = "",
    body: str = "",
) -> list[Message]:
    """Messages in the worker's mail files whose subject contains subject_part (and `also`)
    and whose text contains `body` (a worker's mail files outlive the test that made them)."""
    deadline = time.monotonic() + timeout
    while True:
        found = []
        for path in sorted(mail_dir.glob("*.log")) if mail_dir.exists() else []:
            # one file per connection; messages are separated by a line of 79 dashes
            for chunk in path.read_text().split("-" * 79 + "\n"):
                if chunk.strip():
                    message = email.message_from_string(chunk)
                    subject = _subject(message)
                    if subject_part in subject and also in subject and body in str(message):
                        found.append(message)
        if len(found) >= expected or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


@pytest.mark.celery
@pytest.mark.django_db(transaction=True)
def test_every_transition_is_mailed_to_the_submitter_and_review_to_the_committee(
    cast: Any, open_release: Any, corpus_dir: Path, validation_queue: Any
) -> None:
    client = _client(cast)
    body = _upload_corpus_run(client, corpus_dir, "760", client_nodes=13, procs_per_node=24)
    pk = body["id"]
    assert wait_for_status(pk, {Status.UNDER_REVIEW}) == Status.UNDER_REVIEW
    # submitted, validating, under review: three transitions to the owner; the contact address
    # typed in the description is not verified, so it hears of none of them
    reached_review = _mails(validation_queue.mail_dir, f"#{pk} ", expected=3 + 2)
    subjects = {_subject(m) for m in reached_review}
    assert any("Validating -> Under review" in s for s in subjects), subjects
    to_review = [m for m in reached_review if "-> Under review" in _subject(m)]
    assert sorted(str(m["To"]) for m in to_review) == sorted(
        [cast.submitter.email, cast.reviewer.email, cast.admin.email]
    )
    # only the owner side hears of the earlier steps
    earlier = [m for m in reached_review if "-> Under review" not in _subject(m)]
    assert {str(m["To"]) for m in earlier} == {cast.submitter.email}
    # the contact gets its verification link, and nothing else, until it follows it
    # (earlier tests' uploads named the same contact: any of its links confirms it)
    verifications = _mails(validation_queue.mail_dir, "confirm your e-mail address", expected=1)
    assert verifications and {str(m["To"]) for m in verifications} == {CONTACT}
    link = next(w for w in verifications[-1].get_payload().split() if "/accounts/verify/" in w)
    from django.test import Client

    assert Client().post(link[link.index("/accounts/verify/") :]).status_code == 200

    # the committee decides with a comment; the owner side gets it, with the comment
    from submissions.review import decide

    decide(
        Submission.objects.get(pk=pk),
        cast.reviewer,
        "request_changes",
        "Please add\nthe job output.",
    )
    # the worker's mail folder is shared by the module's tests: this submission's mails only
    changes = _mails(validation_queue.mail_dir, "-> Changes requested", 2, also=f"#{pk} ")
    assert sorted(str(m["To"]) for m in changes) == sorted([cast.submitter.email, CONTACT])
    text = changes[0].get_payload()
    assert "Please add\n  the job output." in text and "the committee" in text
    assert "reviewer" not in text  # the committee member is not named to the submitter
    assert f"/submissions/{pk}/" in text
    # every delivery is recorded by recipient key, never by address
    change = SubmissionTransition.objects.get(submission_id=pk, to_status=Status.CHANGES_REQUESTED)
    keys = set(
        NotificationDelivery.objects.filter(transition=change).values_list("recipient", flat=True)
    )
    assert keys == {"owner", "contact"}


@pytest.mark.django_db
def test_a_repeated_task_mails_nobody_twice(cast: Any, open_release: Any, settings: Any) -> None:
    """The task is idempotent per recipient: what a Celery retry relies on."""
    from submissions.models import Submission
    from submissions.tasks import notify_transition

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    submission = Submission.objects.create(
        release=open_release, site=cast.site, owner=cast.submitter
    )
    change = SubmissionTransition.objects.create(
        submission=submission, from_status=Status.VALIDATING, to_status=Status.UNDER_REVIEW
    )
    assert notify_transition.run(change.pk) == 3  # owner, reviewer, admin
    assert notify_transition.run(change.pk) == 0
    assert sorted(m.to[0] for m in mail.outbox) == sorted(
        [cast.submitter.email, cast.reviewer.email, cast.admin.email]
    )


@pytest.mark.django_db
def test_a_failing_mail_server_records_nothing_so_the_retry_sends_it(
    cast: Any, open_release: Any, settings: Any
) -> None:
    import smtplib

    from submissions.tasks import notify_transition

    submission = Submission.objects.create(
        release=open_release, site=cast.site, owner=cast.submitter
    )
    change = SubmissionTransition.objects.create(
        submission=submission, from_status=Status.DRAFT, to_status=Status.SUBMITTED
    )
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", 9, 2
    with pytest.raises((smtplib.SMTPException, OSError)):  # Celery retries on these
        notify_transition.run(change.pk)
    assert not NotificationDelivery.objects.filter(transition=change).exists()
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    assert notify_transition.run(change.pk) == 1
    assert [m.to for m in mail.outbox] == [[cast.submitter.email]]


@pytest.mark.django_db
def test_mail_is_queued_only_when_the_transition_commits(
    cast: Any, open_release: Any, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from submissions.workflow import OWNER, transition

    settings.IOSCORE_NOTIFICATIONS = True
    submission = Submission.objects.create(
        release=open_release, site=cast.site, owner=cast.submitter
    )
    with django_capture_on_commit_callbacks() as callbacks:
        transition(submission, Status.SUBMITTED, cast.submitter, "uploaded", role=OWNER)
    assert len(callbacks) == 1  # the e-mail task, sent on commit (a rollback drops it)
    settings.IOSCORE_NOTIFICATIONS = False
    with django_capture_on_commit_callbacks() as callbacks:
        transition(submission, Status.WITHDRAWN, cast.submitter, "", role=OWNER)
    assert callbacks == []
