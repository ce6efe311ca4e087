"""Editing asks "may this owner still edit?" on the locked row: a run that a reviewer took
(or another tab resubmitted) between the page's read and its save is not written."""

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
