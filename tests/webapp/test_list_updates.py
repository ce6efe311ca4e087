"""Accepting a submission updates the ranked lists: the review API's acceptance
queues ``rankings.tasks.update_lists_of`` after the commit, the real worker runs it, and the
run appears on its lists exactly as a full rebuild would place it. Builders take turns on
one PostgreSQL advisory lock."""

from __future__ import annotations

import threading
import time
from datetime import date
from typing import Any

import pytest
from rest_framework.test import APIClient

from .test_incremental_lists import assert_equals_full_rebuild
from .test_rankings import World


def _review(cast: Any, submission: Any, action: str) -> None:
    client = APIClient()
    client.force_authenticate(cast.reviewer)
    response = client.post(
        f"/api/v1/submissions/{submission.pk}/review/",
        {"action": action, "comment": "checked by the committee"},
        format="json",
    )
    assert response.status_code == 200, response.content


def _slugs_holding(submission_id: int, timeout: float = 60.0) -> set[str]:
    """The list types of the newest release holding the run, once the worker put it there."""
    from rankings.models import ListEntry

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        slugs = set(
            ListEntry.objects.filter(submission_id=submission_id).values_list(
                "ranked_list__list_type__slug", flat=True
            )
        )
        if slugs:
            return slugs
        time.sleep(0.1)
    raise AssertionError(f"submission {submission_id} on no list after {timeout} s")


def draft_lists_and_a_run_under_review(cast: Any) -> Any:
    """A release whose lists are drafts of three runs, and a fourth run under review that
    enters the historical, full, research and ten-node-research lists when accepted."""
    from rankings.maintenance.builder import build_lists

    world = World()
    release = world.release("ISC24", date(2024, 5, 14))
    for n in range(3):
        world.submission(release, 10.0 + n, storage=world.storage(f"fs-{n}"), level="proprietary")
    build_lists(today=date(2023, 1, 1))  # drafts: lists still collecting submissions
    return world.submission(
        release,
        50.0,
        storage=world.storage("new-fs"),
        level="proprietary",
        nodes=10,
        status="under_review",
        owner=cast.submitter,
    )


@pytest.mark.django_db(transaction=True)
def test_an_acceptance_through_the_review_api_puts_the_run_on_its_lists(
    cast: Any, lists_queue: Any
) -> None:
    run = draft_lists_and_a_run_under_review(cast)
    _review(cast, run, "accept")
    assert _slugs_holding(run.pk) == {"historical", "full", "research", "ten-node-research"}
    lists_queue.wait_idle()
    assert_equals_full_rebuild()


@pytest.mark.django_db
def test_only_entering_accepted_queues_an_update_after_the_commit(
    cast: Any,
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    from rankings import tasks

    settings.IOSCORE_LIST_UPDATES = True
    settings.IOSCORE_LISTS_QUEUE = "lists-q"
    sent: list[tuple[Any, str]] = []
    monkeypatch.setattr(
        tasks.update_lists_of, "apply_async", lambda args, queue, **_: sent.append((args, queue))
    )
    world = World()
    release = world.release("ISC24", date(2024, 5, 14))
    accepted = world.submission(release, 1.0, status="under_review", owner=cast.submitter)
    rejected = world.submission(release, 2.0, status="under_review", owner=cast.submitter)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        _review(cast, accepted, "accept")
        _review(cast, rejected, "reject")
    assert sent == []  # nothing before the commit
    for callback in callbacks:
        callback()
    assert sent == [(([accepted.pk],), "lists-q")]


@pytest.mark.django_db
def test_list_updates_can_be_turned_off(
    cast: Any,
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    from rankings import tasks

    settings.IOSCORE_LIST_UPDATES = False
    sent: list[Any] = []
    monkeypatch.setattr(tasks.update_lists_of, "apply_async", lambda *a, **k: sent.append(a))
    world = World()
    run = world.submission(
        world.release("ISC24", date(2024, 5, 14)), 1.0, status="under_review", owner=cast.submitter
    )
    with django_capture_on_commit_callbacks(execute=True):
        _review(cast, run, "accept")
    assert sent == []


@pytest.mark.django_db(transaction=True)
def test_a_second_writer_waits_for_the_lists_lock() -> None:
    """While one builder holds the lock, another connection cannot take it."""
    from django.db import connection

    from rankings.maintenance.list_lock import LISTS, LOCK_NAMESPACE, lists_locked

    def other_connection_gets_it() -> bool:
        got: list[bool] = []

        def attempt() -> None:
            try:
                with connection.cursor() as cursor:  # a thread has its own connection
                    cursor.execute(
                        "SELECT pg_try_advisory_xact_lock(%s, %s)", [LOCK_NAMESPACE, LISTS]
                    )
                    got.append(bool(cursor.fetchone()[0]))
            finally:
                connection.close()

        thread = threading.Thread(target=attempt)
        thread.start()
        thread.join()
        return got[0]

    with lists_locked():
        assert not other_connection_gets_it()
    assert other_connection_gets_it()


@pytest.mark.django_db
def test_an_admin_edit_of_an_accepted_run_queues_an_update(
    settings: Any, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    from types import SimpleNamespace

    from django.contrib.admin.sites import site as admin_site

    from rankings import tasks
    from submissions.admin import SubmissionAdmin
    from submissions.models import Submission

    settings.IOSCORE_LIST_UPDATES = True
    sent: list[Any] = []
    monkeypatch.setattr(
        tasks.update_lists_of, "apply_async", lambda args, queue, **_: sent.append(args)
    )
    world = World()
    release = world.release("ISC24", date(2024, 5, 14))
    accepted = world.submission(release, 1.0)
    draft = world.submission(release, 2.0, status="draft")
    admin = SubmissionAdmin(Submission, admin_site)
    with django_capture_on_commit_callbacks(execute=True):
        for run in (accepted, draft):
            run.score_total = 3.0
            admin.save_model(None, run, SimpleNamespace(changed_data=["score_total"]), True)
        admin.save_model(None, accepted, SimpleNamespace(changed_data=[]), True)
    assert sent == [([accepted.pk],)]
