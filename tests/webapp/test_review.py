"""Review workflow: decisions need a comment, every action is logged (who, when, from, to),
claimed and assigned reproducibility levels are separate with history, owners edit only in
the editable states, and a resubmission is validated again by the real worker."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from submissions.models import LevelChange, Questionnaire, Status, Submission
from submissions.review import decide
from submissions.workflow import TransitionError

from .helpers import QUESTIONNAIRE, corpus_archive, example_system, wait_for_status


def _under_review(cast: Any, release: Any) -> Submission:
    submission = Submission.objects.create(
        release=release, owner=cast.submitter, site=cast.site, status=Status.UNDER_REVIEW
    )
    Questionnaire.objects.create(
        submission=submission, answers=QUESTIONNAIRE, claimed_level="fully_reproducible"
    )
    return submission


@pytest.mark.django_db
def test_accept_records_level_eligibility_and_log(cast: Any, open_release: Any) -> None:
    submission = _under_review(cast, open_release)
    client = APIClient()
    client.force_authenticate(cast.reviewer)
    response = client.post(
        f"/api/v1/submissions/{submission.pk}/review/",
        {
            "action": "accept",
            "comment": "complete and reproducible",
            "assigned_level": "proprietary",
            "production_eligible": False,
            "ten_node_eligible": False,
        },
        format="json",
    )
    assert response.status_code == 200, response.content
    assert response.json()["status"] == Status.ACCEPTED
    submission.refresh_from_db()
    assert submission.production_eligible is False
    assert submission.ten_node_eligible is False
    questionnaire = submission.questionnaire
    assert (questionnaire.claimed_level, questionnaire.assigned_level) == (
        "fully_reproducible",
        "proprietary",
    )
    change = LevelChange.objects.get(questionnaire=questionnaire, kind="assigned")
    assert (change.old_level, change.new_level, change.actor) == ("", "proprietary", cast.reviewer)
    log = submission.transitions.get()
    assert (log.from_status, log.to_status, log.actor, log.comment) == (
        "under_review",
        "accepted",
        cast.reviewer,
        "complete and reproducible",
    )
    assert log.created is not None


@pytest.mark.django_db
def test_committee_decision_needs_a_comment_and_the_right_state(
    cast: Any, open_release: Any
) -> None:
    submission = _under_review(cast, open_release)
    with pytest.raises(TransitionError, match="need a comment"):
        decide(submission, cast.reviewer, "reject", "  ")
    decide(submission, cast.reviewer, "reject", "not an IO500 run")
    with pytest.raises(TransitionError, match="cannot go from rejected to accepted"):
        decide(submission, cast.reviewer, "accept", "changed my mind")
    client = APIClient()
    client.force_authenticate(cast.reviewer)
    response = client.post(
        f"/api/v1/submissions/{submission.pk}/review/",
        {"action": "accept", "comment": "again"},
        format="json",
    )
    assert response.status_code == 409
    assert response.json()["error"]["message"] == "cannot go from rejected to accepted"
    missing = client.post(
        f"/api/v1/submissions/{submission.pk}/review/", {"action": "accept"}, format="json"
    )
    assert missing.status_code == 400
    assert missing.json()["error"]["fields"]["comment"] == ["This field is required."]


@pytest.mark.django_db
def test_reviewer_page_shows_issues_files_system_and_questionnaire(
    cast: Any, open_release: Any
) -> None:
    from submissions.models import SystemDescription
    from validation.models import ValidationIssue

    submission = _under_review(cast, open_release)
    SystemDescription.objects.create(submission=submission, data=example_system())
    ValidationIssue.objects.create(
        submission=submission,
        rule="version-accepted",
        severity="warning",
        message="custom version: needs a committee whitelist",
        expected=["io500-sc25"],
        actual="37a8bd082d6c",
    )
    browser = Client()
    browser.force_login(cast.reviewer)
    queue = browser.get("/review/").content.decode()
    assert f'href="/submissions/{submission.pk}/"' in queue
    page = browser.get(f"/submissions/{submission.pk}/").content.decode()
    for expected in (
        "custom version: needs a committee whitelist",
        "37a8bd082d6c",
        "Example Cluster",
        "Fully Reproducible",
        "Record decision",
        "we describe this part of the system",
    ):
        assert expected in page


@pytest.mark.celery
@pytest.mark.django_db(transaction=True)
def test_changes_requested_then_owner_edits_and_resubmits(
    cast: Any, open_release: Any, corpus_dir: Path, validation_queue: Any
) -> None:
    browser = Client()
    browser.force_login(cast.submitter)
    # Web form upload with an incomplete questionnaire -> validation fails.
    response = browser.post(
        "/submissions/new/",
        {
            "archive": SimpleUploadedFile("run.tgz", corpus_archive(corpus_dir, "762")),
            "site": cast.site.pk,
            "target_list": "research",
            "system": json.dumps(example_system(client_nodes=10, procs_per_node=32)),
            "questionnaire": json.dumps({**QUESTIONNAIRE, "trust": "we ran it twice"}),
        },
    )
    submission = Submission.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/submissions/{submission.pk}/"
    assert (
        wait_for_status(submission.pk, {"under_review", "validation_failed"})
        == Status.VALIDATION_FAILED
    )
    page = browser.get(f"/submissions/{submission.pk}/").content.decode()
    assert "trust (Trust): at least 10 words needed, got 4: &#x27;we ran it twice&#x27;" in page

    # The owner fixes the questionnaire and resubmits from the edit page.
    response = browser.post(
        f"/submissions/{submission.pk}/edit/",
        {
            "system": json.dumps(example_system(client_nodes=10, procs_per_node=32)),
            "questionnaire": json.dumps(QUESTIONNAIRE),
            "submit_now": "on",
        },
    )
    assert response.status_code == 302
    assert (
        wait_for_status(submission.pk, {"under_review", "validation_failed"}) == Status.UNDER_REVIEW
    )

    # The committee asks for changes; the owner may edit again, then it is revalidated.
    reviewer = APIClient()
    reviewer.force_authenticate(cast.reviewer)
    reviewer.post(
        f"/api/v1/submissions/{submission.pk}/review/",
        {"action": "request_changes", "comment": "name the cache layers"},
        format="json",
    )
    assert browser.get(f"/submissions/{submission.pk}/edit/").status_code == 200
    browser.post(
        f"/submissions/{submission.pk}/edit/",
        {
            "system": json.dumps(example_system(client_nodes=10, procs_per_node=32)),
            "questionnaire": json.dumps(QUESTIONNAIRE),
            "submit_now": "on",
        },
    )
    assert wait_for_status(submission.pk, {"under_review"}) == Status.UNDER_REVIEW
    steps = [
        (t.from_status, t.to_status, t.actor.username if t.actor else None)
        for t in submission.transitions.select_related("actor")
    ]
    assert steps == [
        ("draft", "submitted", "submitter"),
        ("submitted", "validating", None),
        ("validating", "validation_failed", None),
        ("validation_failed", "draft", "submitter"),
        ("draft", "submitted", "submitter"),
        ("submitted", "validating", None),
        ("validating", "under_review", None),
        ("under_review", "changes_requested", "reviewer"),
        ("changes_requested", "submitted", "submitter"),
        ("submitted", "validating", None),
        ("validating", "under_review", None),
    ]
    assert submission.issues.filter(severity="invalid").count() == 0
