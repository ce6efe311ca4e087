"""Intake follows the validation workers' capacity: with every place of the queue taken (the
workers x the backlog window / the time limit), a further upload is refused before it is
stored, 503 for the whole service and 429 for a site or an account holding its share, with a
Retry-After of when a place of that scope frees; and the system check refuses upload rate
limits that admit more validation time than the workers have."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from rest_framework.test import APIClient

from accounts.models import ApiToken, Site
from accounts.roles import SUBMITTER
from submissions.admission import check_capacity
from submissions.models import Status, Submission

from .helpers import tar_gz

pytestmark = pytest.mark.django_db


@pytest.fixture
def small_service(settings: Any) -> None:
    """One worker, 300 s per validation, an hour and a quarter of backlog: 4 places in all,
    2 per site, 1 per account (the rate limits, not what is tested here, out of the way)."""
    settings.IOSCORE_VALIDATION_WORKERS = 1
    settings.IOSCORE_VALIDATION_TIME_LIMIT_S = 300.0
    settings.IOSCORE_VALIDATION_BACKLOG_S = 1200
    settings.IOSCORE_RATE_LIMITS = {"upload-account": "100/3600", "upload-address": "100/3600"}


def _member(name: str, site: Any) -> APIClient:
    user = User.objects.create_user(name, f"{name}@example.org", "pw")
    user.groups.add(Group.objects.get_or_create(name=SUBMITTER)[0])
    site.members.add(user)
    _token, raw = ApiToken.issue(user, site)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    return client


def _upload(client: APIClient, n: int) -> Any:
    archive = tar_gz({"run/result_summary.txt": f"IO500 version io500-sc25\n{n}\n".encode()})
    return client.post(
        "/api/v1/submissions/",
        {"archive": SimpleUploadedFile("run.tgz", archive)},
        format="multipart",
    )


def _refused(response: Any, status: int, retry_after: int, why: str) -> None:
    assert response.status_code == status, response.content
    assert int(response["Retry-After"]) == retry_after
    message = response.json()["error"]["message"]
    assert why in message and f"try again in {retry_after} s" in message


def test_uploads_beyond_the_workers_capacity_are_refused(
    small_service: None, cast: Any, open_release: Any, media_root: Path
) -> None:
    def stored() -> set[Path]:
        return {p for p in (media_root / "archives").rglob("*") if p.is_file()}

    before = stored()  # the media directory is the session's: other tests' archives are there
    third_site = Site.objects.create(name="Third Lab", abbreviation="TL", country="FRA")
    first = _member("first", cast.site)
    assert _upload(first, 1).status_code == 201
    # An account holds one place: its next run waits for the first one (300 s, 1 worker).
    _refused(_upload(first, 2), 429, 300, "you have too many runs in validation")
    assert _upload(_member("second", cast.site), 3).status_code == 201
    # The site holds its two places now.
    _refused(_upload(_member("third", cast.site), 4), 429, 300, f"site {cast.site}")
    other = _member("lab1", cast.other_site)
    assert _upload(other, 5).status_code == 201
    assert _upload(_member("lab2", cast.other_site), 6).status_code == 201
    # Other Lab's oldest run is third in the queue: three validations of 300 s on one worker.
    _refused(_upload(_member("lab3", cast.other_site), 7), 429, 900, "Other Lab")
    # Four places taken: the service is full for everyone.
    _refused(_upload(_member("newcomer", third_site), 8), 503, 300, "validation queue is full")
    assert Submission.objects.count() == 4  # nothing of a refused upload was stored
    assert len(stored() - before) == 4

    # A finished validation frees its place.
    Submission.objects.filter(owner__username="first").update(status=Status.UNDER_REVIEW)
    assert _upload(first, 9).status_code == 201


def test_the_system_check_refuses_rates_beyond_the_workers(settings: Any) -> None:
    settings.IOSCORE_VALIDATION_WORKERS = 1
    settings.IOSCORE_VALIDATION_TIME_LIMIT_S = 300.0
    settings.IOSCORE_RATE_LIMITS = {"upload-account": "12/3600", "upload-address": "12/3600"}
    assert check_capacity() == []  # 12 validations of 300 s fill one worker's hour exactly
    settings.IOSCORE_RATE_LIMITS = {"upload-account": "12/3600", "upload-address": "13/3600"}
    errors = check_capacity()
    assert [e.id for e in errors] == ["ioscore.E002"]
    assert "upload-address = 13/3600 s" in errors[0].msg and "3900 s of work" in errors[0].msg
    assert "at most 12/3600" in errors[0].hint
    with pytest.raises(SystemCheckError, match=r"ioscore\.E002"):
        call_command("check")
    settings.IOSCORE_VALIDATION_WORKERS = 2  # a second worker makes room
    assert check_capacity() == []


def test_a_resubmission_takes_a_place_as_an_upload_does(
    small_service: None, cast: Any, open_release: Any, media_root: Path
) -> None:
    from django.test import Client

    from .helpers import QUESTIONNAIRE, example_system
    from .test_upload_form import _form_values, _owned

    waiting = _owned(cast, open_release, Status.SUBMITTED, example_system(), QUESTIONNAIRE)
    sent_back = _owned(
        cast, open_release, Status.CHANGES_REQUESTED, example_system(), QUESTIONNAIRE
    )
    browser = Client()
    browser.force_login(cast.submitter)
    values = {**_form_values(example_system(), QUESTIONNAIRE), "submit_now": "1"}
    refused = browser.post(f"/submissions/{sent_back.pk}/edit/", values)
    assert refused.status_code == 400
    assert "you have too many runs in validation" in refused.content.decode()
    sent_back.refresh_from_db()
    assert sent_back.status == Status.CHANGES_REQUESTED  # not queued
    Submission.objects.filter(pk=waiting.pk).update(status=Status.UNDER_REVIEW)
    assert browser.post(f"/submissions/{sent_back.pk}/edit/", values).status_code == 302
    sent_back.refresh_from_db()
    assert sent_back.status == Status.SUBMITTED
