"""One meaning of "public": the query filter, the per-row test, the list entries left out and
the per-user sets agree for every status and both sides of the embargo."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser

from rankings import visibility as rankings_visibility
from submissions import access, visibility
from submissions.models import Status, Submission

from .test_rankings import World

pytestmark = pytest.mark.django_db


@pytest.fixture
def everything(cast: Any) -> dict[tuple[str, bool], Any]:
    """One submission per (status, embargoed), owned by the cast's submitter."""
    world = World()
    past = world.release("SC19", date(2019, 11, 19))
    future = world.release("ISC99", date.today() + timedelta(days=120))
    return {
        (status, release is future): world.submission(
            release, 1.0, status=status, owner=cast.submitter
        )
        for status in Status.values
        for release in (past, future)
    }


def test_public_means_accepted_and_released(everything: dict[tuple[str, bool], Any]) -> None:
    public_ids = set(Submission.objects.filter(visibility.public_filter()).values_list("pk"))
    for (status, embargoed), submission in everything.items():
        expected = status == Status.ACCEPTED and not embargoed
        assert visibility.is_public(submission) is expected, (status, embargoed)
        assert ((submission.pk,) in public_ids) is expected, (status, embargoed)


def test_audiences(cast: Any, everything: dict[tuple[str, bool], Any]) -> None:
    public = {s.pk for s in everything.values() if visibility.is_public(s)}
    assert len(public) == 1
    every = {s.pk for s in everything.values()}
    anonymous = AnonymousUser()

    def ids(queryset: Any) -> set[int]:
        return set(queryset.values_list("pk", flat=True))

    # The rankings show public results only, the committee everything.
    assert ids(rankings_visibility.visible_submissions(anonymous)) == public
    assert ids(rankings_visibility.visible_submissions(cast.submitter)) == public
    assert ids(rankings_visibility.visible_submissions(cast.reviewer)) == every
    # The submission pages and API add the owner's own submissions.
    assert ids(access.visible_submissions(anonymous)) == public
    assert ids(access.visible_submissions(cast.submitter)) == every
    assert ids(access.visible_submissions(cast.other_submitter)) == public
    for submission in everything.values():
        assert access.can_view(anonymous, submission) is (submission.pk in public)
        assert access.can_view(cast.submitter, submission)
        assert access.can_view(cast.reviewer, submission)
