"""How many public results there are (``submissions.public_counts``), as the home page and
the results API show it: exact the moment an acceptance, a withdrawal or the end of an
embargo changes it, and counted once per public-results version, not on every request."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from typing import Any
from unittest import mock

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from submissions import public_counts, workflow
from submissions.models import Submission

# autouse: every test starts and ends with an empty cache
from .test_page_cache import _fresh_cache  # noqa: F401
from .test_rankings import World, build
from .test_rankings_access import urlpatterns  # noqa: F401

pytestmark = [pytest.mark.urls(__name__), pytest.mark.django_db]


@pytest.fixture
def scene(cast: Any) -> dict[str, Any]:
    world = World()
    past = world.release("SC19", date(2019, 11, 19))
    future = world.release("ISC99", date.today() + timedelta(days=120))
    public = [world.submission(past, 5.0 + n, system=f"Public {n}") for n in range(3)]
    pending = world.submission(past, 50.0, system="Pending", status="under_review")
    embargoed = world.submission(future, 500.0, system="Embargoed")
    build()
    return {"public": public, "pending": pending, "embargoed": embargoed, "cast": cast}


def _home_count(client: Client, query: str = "") -> int:
    text = client.get(reverse("rankings:home") + query).content.decode()
    found = re.search(r"(\d+) public submissions?", text)
    assert found, text[:2000]
    return int(found.group(1))


def _api_count(client: Client, query: str = "") -> int:
    return int(client.get(reverse("rankings:api-results") + query).json()["count"])


def _counts(client: Client, query: str = "") -> tuple[int, int, int]:
    return public_counts.public_results(), _home_count(client, query), _api_count(client, query)


def test_the_count_is_the_public_results(scene: dict[str, Any]) -> None:
    assert _counts(Client()) == (3, 3, 3)  # neither the pending nor the embargoed run


def test_acceptance_and_withdrawal_change_the_count_at_once(scene: dict[str, Any]) -> None:
    client = Client()
    assert _counts(client) == (3, 3, 3)
    workflow.transition(
        scene["pending"], "accepted", scene["cast"].reviewer, "fine", role=workflow.COMMITTEE
    )
    assert _counts(client) == (4, 4, 4)
    row = Submission.objects.get(pk=scene["public"][0].pk)  # as the admin does it
    row.status = "withdrawn"
    row.save()
    assert _counts(client) == (3, 3, 3)


def test_the_end_of_an_embargo_changes_the_count_without_any_write(
    scene: dict[str, Any],
) -> None:
    client = Client()
    assert _counts(client) == (3, 3, 3)
    later = datetime.combine(date.today() + timedelta(days=121), datetime.min.time(), UTC)
    with mock.patch("django.utils.timezone.now", return_value=later):
        assert _counts(client) == (4, 4, 4)


def test_after_ranges_count_their_own_results(scene: dict[str, Any]) -> None:
    first = min(s.pk for s in scene["public"])
    assert _api_count(Client(), f"?after={first}") == 2


def _submission_counts(queries: list[dict[str, str]]) -> list[str]:
    return [
        q["sql"]
        for q in queries
        if "COUNT(" in q["sql"].upper() and '"submissions_submission"' in q["sql"]
    ]


def test_a_repeat_request_counts_no_submissions(scene: dict[str, Any]) -> None:
    client = Client()
    with CaptureQueriesContext(connection) as first:
        _counts(client)
    assert _submission_counts(first.captured_queries)  # counted once, here
    # New URLs (the response cache misses, the pages are rendered again), same version.
    with CaptureQueriesContext(connection) as again:
        assert _home_count(client, "?again=1") == _api_count(client, "?limit=2") == 3
    assert len(again) > 2  # rendered, not served whole from the response cache
    assert _submission_counts(again.captured_queries) == []


def test_the_committee_counts_every_submission(scene: dict[str, Any]) -> None:
    committee = Client()
    committee.force_login(scene["cast"].reviewer)
    assert _home_count(committee) == 5  # drafts and embargoed runs too, counted directly
    assert _home_count(Client()) == 3
