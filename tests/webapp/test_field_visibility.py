"""Who may see which field of a run (``submissions.fields``): the submitter's name when they
chose not to be shown, who took a step and why, and the questionnaire's note to the committee,
on the run page, the public result page and the e-mails, per reader."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from submissions import notifications
from submissions.models import LevelChange, Questionnaire, SubmissionTransition, SystemDescription

from .test_rankings import World

pytestmark = pytest.mark.django_db

OWNER_NAME = "Jane Hidden-Submitter"
REVIEWER_LOGIN = "rev-zq7"
OWNER_LOGIN = "own-kx4"
REVIEW_COMMENT = "internal remark qp93"
LEVEL_COMMENT = "level reasoning vw28"
FEEDBACK = "note to the committee only hb51"
SECRETS = (OWNER_NAME, REVIEWER_LOGIN, OWNER_LOGIN, REVIEW_COMMENT, LEVEL_COMMENT, FEEDBACK)


@pytest.fixture
def run(cast: Any) -> Any:
    cast.reviewer.username = REVIEWER_LOGIN
    cast.reviewer.save()
    cast.submitter.username = OWNER_LOGIN
    cast.submitter.save()
    world = World()
    submission = world.submission(world.release("SC19", date(2019, 11, 19)), 5.0)
    submission.owner = cast.submitter
    submission.show_submitter = False
    submission.save()
    SystemDescription.objects.update_or_create(
        submission=submission, defaults={"submitter_name": OWNER_NAME}
    )
    questionnaire, _ = Questionnaire.objects.update_or_create(
        submission=submission,
        defaults={"answers": {"purpose": "research", "feedback": FEEDBACK}},
    )
    LevelChange.objects.create(
        questionnaire=questionnaire,
        kind="assigned",
        new_level="limited",
        actor=cast.reviewer,
        comment=LEVEL_COMMENT,
    )
    SubmissionTransition.objects.create(
        submission=submission, actor=cast.submitter, from_status="draft", to_status="submitted"
    )
    SubmissionTransition.objects.create(
        submission=submission,
        actor=cast.reviewer,
        from_status="under_review",
        to_status="accepted",
        comment=REVIEW_COMMENT,
    )
    return submission


def _pages(client: Client, submission: Any) -> str:
    texts = []
    for url in (
        reverse("submission-page", args=[submission.pk]),
        reverse("rankings:result", args=[submission.pk]),
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        texts.append(response.content.decode())
    return "\n".join(texts)


def test_anonymous_reads_no_private_field(run: Any) -> None:
    text = _pages(Client(), run)
    for secret in SECRETS:
        assert secret not in text, secret
    assert "the committee" in text and "the submitter" in text


def test_submitter_shown_when_they_chose_so(run: Any) -> None:
    run.show_submitter = True
    run.save()
    text = _pages(Client(), run)
    assert OWNER_NAME in text
    assert REVIEWER_LOGIN not in text and FEEDBACK not in text


def test_owner_reads_comments_but_not_reviewer_names(cast: Any, run: Any) -> None:
    client = Client()
    client.force_login(cast.submitter)
    text = _pages(client, run)
    for shown in (OWNER_NAME, REVIEW_COMMENT, LEVEL_COMMENT, FEEDBACK):
        assert shown in text, shown
    assert REVIEWER_LOGIN not in text


def test_committee_reads_everything(cast: Any, run: Any) -> None:
    client = Client()
    client.force_login(cast.reviewer)
    text = client.get(reverse("submission-page", args=[run.pk])).content.decode()
    for shown in SECRETS:
        assert shown in text, shown


def test_mail_names_the_reviewer_to_the_committee_only(cast: Any, run: Any) -> None:
    change = run.transitions.get(to_status="accepted")
    _, to_owner = notifications.compose(change, notifications.Recipient("owner", "a@example.org"))
    _, to_committee = notifications.compose(
        change, notifications.Recipient(f"committee:{cast.admin.pk}", "b@example.org")
    )
    assert REVIEWER_LOGIN not in to_owner and "the committee" in to_owner
    assert REVIEW_COMMENT in to_owner
    assert REVIEWER_LOGIN in to_committee
