"""The committee's work in the portal: the queue's filters, the review page with the run and
its checks side by side, decisions that change the state through the workflow (logged, mailed)
with a comment, and a 403 that names the role for everyone else."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from submissions.models import (
    PhaseResult,
    Questionnaire,
    Release,
    Status,
    Submission,
    SubmissionTransition,
)
from validation.models import ValidationIssue

from .helpers import QUESTIONNAIRE

pytestmark = pytest.mark.django_db


def _submission(cast: Any, release: Any, *, days: int = 1, **fields: Any) -> Submission:
    values = {
        "release": release,
        "owner": cast.submitter,
        "site": cast.site,
        "status": Status.UNDER_REVIEW,
        "submitted_at": timezone.now() - timedelta(days=days),
        **fields,
    }
    return Submission.objects.create(**values)


def _web(user: Any) -> Client:
    browser = Client()
    browser.force_login(user)
    return browser


def _queued_ids(page: str) -> list[int]:
    import re

    return [int(pk) for pk in re.findall(r'href="/review/(\d+)/"', page)]


def test_queue_filters_by_state_release_target_site_and_waiting_time(
    cast: Any, open_release: Any
) -> None:
    other_release = Release.objects.create(
        acronym="TST98",
        release_date=open_release.release_date,
        submission_deadline=open_release.submission_deadline,
    )
    fresh = _submission(cast, open_release, days=1)
    old = _submission(cast, open_release, days=20, target_list="production")
    elsewhere = _submission(cast, other_release, days=3)
    foreign = _submission(cast, open_release, days=5, site=cast.other_site)
    done = _submission(cast, open_release, days=30, status=Status.ACCEPTED)
    browser = _web(cast.reviewer)
    queue = browser.get("/review/").content.decode()
    assert _queued_ids(queue) == [old.pk, foreign.pk, elsewhere.pk, fresh.pk]  # oldest first
    assert done.pk not in _queued_ids(queue)
    by = {
        "release=TST98": [elsewhere.pk],
        "target=production": [old.pk],
        f"site={cast.other_site.pk}": [foreign.pk],
        "waiting=4": [old.pk, foreign.pk],
        "state=accepted": [done.pk],
        "state=&waiting=10": [done.pk, old.pk],
    }
    for query, expected in by.items():
        assert _queued_ids(browser.get(f"/review/?{query}").content.decode()) == expected, query
    bad = browser.get(f"/review/?waiting=-3&release=NOPE&site={cast.other_site.pk}")
    assert bad.status_code == 200
    assert "Ensure this value is greater than or equal to 0" in bad.content.decode()
    assert _queued_ids(bad.content.decode()) == [foreign.pk]  # the valid filter still applies


def test_review_page_shows_the_run_beside_its_checks(cast: Any, open_release: Any) -> None:
    submission = _submission(cast, open_release, score_total=12.5, score_bw=3.2, score_md=48.9)
    PhaseResult.objects.create(
        submission=submission, name="ior-easy-write", order=0, value=7.25, unit="GiB/s", time=312.4
    )
    PhaseResult.objects.create(
        submission=submission, name="timestamp", order=1, value=0.0, unit="kIOPS"
    )
    Questionnaire.objects.create(
        submission=submission, answers=QUESTIONNAIRE, claimed_level="fully_reproducible"
    )
    ValidationIssue.objects.create(
        submission=submission,
        rule="write-phase-runtime",
        severity="warning",
        message="ior-easy-write ran shorter than the stonewall",
        expected=">= 300 s",
        actual="212.0 s",
    )
    page = _web(cast.reviewer).get(f"/review/{submission.pk}/").content.decode()
    run, checks = page.split('id="rv-checks"', 1)
    assert "12.500" in run and "3.200 GiB/s" in run and "48.900 kIOPS" in run
    assert "ior-easy-write" in run and "7.250 GiB/s" in run and "312.4 s" in run
    assert "timestamp" not in run  # not a result
    assert "Fully Reproducible" in run and "System purpose" in run
    assert "For the committee (1)" in checks and "&gt;= 300 s" in checks and "212.0 s" in checks
    assert "Record decision" in page and 'name="comment"' in page


def _queued_notifications(monkeypatch: pytest.MonkeyPatch, settings: Any) -> list[int]:
    """Transition ids the notification task was queued for (the broker is not needed)."""
    from submissions import tasks

    settings.IOSCORE_NOTIFICATIONS = True
    sent: list[int] = []
    monkeypatch.setattr(
        tasks.notify_transition, "apply_async", lambda args, **_: sent.append(args[0])
    )
    return sent


@pytest.mark.parametrize(
    ("action", "state"),
    [
        ("accept", Status.ACCEPTED),
        ("request_changes", Status.CHANGES_REQUESTED),
        ("reject", Status.REJECTED),
    ],
)
def test_decisions_change_the_state_log_it_and_notify(
    cast: Any,
    open_release: Any,
    action: str,
    state: str,
    monkeypatch: pytest.MonkeyPatch,
    settings: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    sent = _queued_notifications(monkeypatch, settings)
    submission = _submission(cast, open_release)
    Questionnaire.objects.create(submission=submission, answers=QUESTIONNAIRE)
    with django_capture_on_commit_callbacks(execute=True):
        response = _web(cast.reviewer).post(
            f"/review/{submission.pk}/",
            {"action": action, "comment": "checked by two members", "assigned_level": "limited"},
        )
    assert response.status_code == 302 and response["Location"] == "/review/"
    submission.refresh_from_db()
    assert submission.status == state
    change = SubmissionTransition.objects.get(submission=submission, to_status=state)
    assert (change.actor, change.comment) == (cast.reviewer, "checked by two members")
    assert sent == [change.pk]
    assert submission.questionnaire.assigned_level == "limited"
    # what the queued task sends: the owner hears of the decision, with the comment
    from django.core import mail

    from submissions.tasks import notify_transition

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    notify_transition.apply(args=(change.pk,))
    to_owner = [m for m in mail.outbox if cast.submitter.email in m.to]
    assert len(to_owner) == 1
    assert Status(state).label in to_owner[0].subject
    assert "checked by two members" in to_owner[0].body


@pytest.mark.parametrize("action", ["request_changes", "reject", "accept"])
def test_a_decision_without_a_comment_is_refused_beside_the_field(
    cast: Any, open_release: Any, action: str
) -> None:
    submission = _submission(cast, open_release)
    response = _web(cast.reviewer).post(f"/review/{submission.pk}/", {"action": action})
    assert response.status_code == 400
    page = response.content.decode()
    at = page.index('name="comment"')
    block = page[page.rindex('<div class="sf-field', 0, at) : page.index("</div>", at)]
    assert "This field is required." in block
    submission.refresh_from_db()
    assert submission.status == Status.UNDER_REVIEW


def test_a_decision_on_a_decided_submission_says_why(cast: Any, open_release: Any) -> None:
    submission = _submission(cast, open_release, status=Status.ACCEPTED)
    response = _web(cast.reviewer).post(
        f"/review/{submission.pk}/", {"action": "reject", "comment": "too late"}
    )
    assert response.status_code == 409
    page = response.content.decode()
    assert "Not recorded: cannot go from accepted to rejected" in page
    assert "Decisions are taken on submissions under review" in page
    submission.refresh_from_db()
    assert submission.status == Status.ACCEPTED


def test_a_reviewer_does_not_decide_on_their_own_run(cast: Any, open_release: Any) -> None:
    own = _submission(cast, open_release, owner=cast.reviewer)
    browser = _web(cast.reviewer)
    assert "another committee member decides" in browser.get(f"/review/{own.pk}/").content.decode()
    refused = browser.post(f"/review/{own.pk}/", {"action": "accept", "comment": "mine"})
    assert refused.status_code == 403
    own.refresh_from_db()
    assert own.status == Status.UNDER_REVIEW


@pytest.mark.parametrize("who", ["submitter", "other"])
def test_submitters_get_403_on_review_and_manage_pages(
    cast: Any, open_release: Any, who: str
) -> None:
    submission = _submission(cast, open_release)
    browser = _web(getattr(cast, "submitter" if who == "submitter" else "other_submitter"))
    for url in (
        "/review/",
        f"/review/{submission.pk}/",
        "/manage/",
        "/manage/releases/",
        "/manage/pins/",
        "/manage/corrections/",
        "/manage/roles/",
    ):
        response = browser.get(url)
        assert response.status_code == 403, url
    posted = browser.post(f"/review/{submission.pk}/", {"action": "accept", "comment": "ok"})
    assert posted.status_code == 403
    submission.refresh_from_db()
    assert submission.status == Status.UNDER_REVIEW


def test_reviewers_review_but_do_not_manage(cast: Any) -> None:
    browser = _web(cast.reviewer)
    assert browser.get("/review/").status_code == 200
    for url in ("/manage/", "/manage/releases/", "/manage/roles/"):
        assert browser.get(url).status_code == 403, url
    admin = _web(cast.admin)
    for url in ("/manage/", "/manage/releases/", "/manage/pins/", "/manage/corrections/"):
        assert admin.get(url).status_code == 200, url
    people = admin.get("/manage/roles/").content.decode()
    assert "<td>reviewer</td>" in people and "<td>submitter</td>" in people
    assert "Management: releases" in admin.get("/review/").content.decode()
