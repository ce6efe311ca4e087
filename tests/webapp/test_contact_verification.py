"""A contact address typed into a system description gets mail only once verified: until its
owner follows the signed, expiring link, the verification mail (a few a day at most) is the
only mail it gets; every sender (transition notifications, their sweep, regression alerts)
asks the one decision, ``accounts.mail`` (alerts go to site members, whose account addresses
count as verified, so only the notifications meet an unverified address)."""

from __future__ import annotations

import json
import time
from typing import Any
from unittest import mock

import pytest
from django.core import mail as outbox
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from accounts import mail
from accounts.models import ApiToken
from submissions import notifications
from submissions.models import Status, Submission, SubmissionTransition
from submissions.tasks import notify_transition, send_contact_verification

from .helpers import tar_gz

pytestmark = pytest.mark.django_db

STRANGER = "someone.else@example.net"


@pytest.fixture
def uploaded(cast: Any, open_release: Any, media_root: Any, settings: Any) -> Submission:
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.IOSCORE_NOTIFICATIONS = True
    _token, raw = ApiToken.issue(cast.submitter, cast.site)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    system = {"schema": "ioscore-system/1", "submitter": {"name": "S", "email": STRANGER}}
    response = client.post(
        "/api/v1/submissions/",
        {
            "archive": SimpleUploadedFile("r.tgz", tar_gz({"run/result_summary.txt": b"x\n"})),
            "system": json.dumps(system),
        },
        format="multipart",
    )
    assert response.status_code == 201, response.content
    return Submission.objects.get(pk=response.json()["id"])


def _to_stranger() -> list[Any]:
    return [m for m in outbox.outbox if STRANGER in m.to]


def _link_path(message: Any) -> str:
    line = next(word for word in message.body.split() if "/accounts/verify/" in word)
    return line[line.index("/accounts/verify/") :]


def test_an_unverified_contact_gets_only_its_verification_mail(
    uploaded: Submission, cast: Any
) -> None:
    change = SubmissionTransition.objects.get(submission=uploaded, to_status=Status.SUBMITTED)
    # The transition is mailed to the owner, not to the address typed in the description.
    assert {r.key for r in notifications.recipients(change)} == {"owner"}
    assert notify_transition.run(change.pk) == 1
    assert [m.to for m in outbox.outbox] == [[cast.submitter.email]]
    assert mail.send("[ioscore] anything", "body", STRANGER) is False  # every sender asks this

    assert send_contact_verification.run(uploaded.pk) is True
    [verification] = _to_stranger()
    assert verification.subject == "[ioscore] confirm your e-mail address"
    assert "#" not in verification.body and cast.site.name not in verification.body
    # The upload asked once; two more a day, then none (nobody can make us mail a stranger).
    assert [mail.verification_requested(STRANGER) for _ in range(3)] == [True, True, False]

    browser = Client()
    path = _link_path(verification)
    assert STRANGER not in path and "someone" not in path  # the link names nobody
    asked = browser.get(path)  # a mail scanner opening the link confirms nothing
    assert asked.status_code == 200 and b"Confirm this address" in asked.content
    assert not mail.is_verified(STRANGER)
    assert browser.post(path.replace("/verify/", "/verify/x")).status_code == 400  # tampered
    assert not mail.is_verified(STRANGER)
    done = browser.post(path)
    assert done.status_code == 200 and b"the address is confirmed" in done.content
    assert mail.is_verified(STRANGER) and mail.is_verified(STRANGER.upper())

    # From now on the contact hears of its submission, and gets no second verification mail.
    Submission.objects.filter(pk=uploaded.pk).update(status=Status.UNDER_REVIEW)
    later = SubmissionTransition.objects.create(
        submission=uploaded, from_status=Status.UNDER_REVIEW, to_status=Status.ACCEPTED
    )
    assert {r.key for r in notifications.recipients(later)} >= {"owner", "contact"}
    notify_transition.run(later.pk)
    assert [m.subject for m in _to_stranger()][1:] == [
        m.subject for m in outbox.outbox if "-> Accepted" in m.subject and STRANGER in m.to
    ]
    assert len(_to_stranger()) == 2
    assert send_contact_verification.run(uploaded.pk) is False


def test_an_expired_link_verifies_nothing(settings: Any) -> None:
    settings.IOSCORE_VERIFY_LINK_DAYS = 7
    eight_days_ago = time.time() - 8 * 86400
    with mock.patch("django.core.signing.time.time", return_value=eight_days_ago):
        old = mail.link(STRANGER)
    fresh = mail.link(STRANGER)
    browser = Client()
    path = old[old.index("/accounts/verify/") :]
    assert browser.get(path).status_code == 400
    assert browser.post(path).status_code == 400
    assert not mail.is_verified(STRANGER)
    assert browser.post(fresh[fresh.index("/accounts/verify/") :]).status_code == 200
    assert mail.is_verified(STRANGER)
