"""Editing asks "may this owner still edit?" on the locked row: a run that a reviewer took
(or another tab resubmitted) between the page's read and its save is not written. And a
resubmission, which costs a validation like an upload, counts against the upload limit."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from submissions import upload_views
from submissions.models import Status, Submission

from .helpers import QUESTIONNAIRE, example_system
from .test_upload_form import _form_values, _owned

pytestmark = pytest.mark.django_db


def test_a_run_taken_out_of_the_owners_hands_meanwhile_is_not_written(
    cast: Any, open_release: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    submission = _owned(
        cast, open_release, Status.CHANGES_REQUESTED, example_system(), QUESTIONNAIRE
    )
    read = upload_views.viewable

    def read_then_resubmitted_elsewhere(request: Any, pk: int) -> Submission:
        seen = read(request, pk)  # the view's own (unlocked) read: still editable
        Submission.objects.filter(pk=pk).update(status=Status.UNDER_REVIEW)
        return seen

    monkeypatch.setattr(upload_views, "viewable", read_then_resubmitted_elsewhere)
    values = _form_values(example_system(), QUESTIONNAIRE)
    values["sys-server_groups.0.media.0.model"] = "CHANGED-LATE"
    browser = Client()
    browser.force_login(cast.submitter)
    response = browser.post(f"/submissions/{submission.pk}/edit/", {**values, "submit_now": "1"})
    assert response.status_code == 400
    assert "can no longer be edited" in response.content.decode()
    submission.refresh_from_db()
    assert submission.status == Status.UNDER_REVIEW
    media = submission.system_description.data["server_groups"][0]["media"][0]
    assert media.get("model") != "CHANGED-LATE"


def test_resubmitting_shares_the_upload_rate_limit(
    cast: Any, open_release: Any, settings: Any
) -> None:
    from django.core.cache import cache

    cache.clear()
    settings.IOSCORE_RATE_LIMITS = {"upload-account": "1/3600"}
    submission = _owned(
        cast, open_release, Status.CHANGES_REQUESTED, example_system(), QUESTIONNAIRE
    )
    browser = Client()
    browser.force_login(cast.submitter)
    values = {**_form_values(example_system(), QUESTIONNAIRE), "submit_now": "1"}
    first = browser.post(f"/submissions/{submission.pk}/edit/", values)
    assert first.status_code == 302
    Submission.objects.filter(pk=submission.pk).update(status=Status.CHANGES_REQUESTED)
    again = browser.post(f"/submissions/{submission.pk}/edit/", values)
    assert again.status_code == 400
    assert "too many uploads and resubmissions" in again.content.decode()
    submission.refresh_from_db()
    assert submission.status == Status.CHANGES_REQUESTED  # not queued for validation again
