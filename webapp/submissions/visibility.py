"""What "public" means, in one place (LEADERBOARD-RULES §7: nothing unreleased is public).

* public: an accepted submission of a release whose date has passed (the embargo is over);
  a ranked list is public when published and its release's date has passed (the list's own
  state is ``rankings.visibility``'s part, the embargo is this module's ``released``);
* private: everything else, seen by the committee (reviewers, admins) and, for their own
  submissions, by the owner on the submission pages and API;
* hidden: the entries of a public list whose submission is not public (withdrawn after
  publication, or still embargoed); the lists leave them out for everyone but the committee.

``submissions.access`` (pages and API of submissions) and ``rankings.visibility`` (lists,
pages, exports and API of the rankings) both read these definitions; none of them writes
its own status or date test.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts import roles

from .models import Release, Status, Submission

# The statuses a public submission may have; every other status is private.
PUBLIC_STATUSES = (Status.ACCEPTED,)
NOT_PUBLIC_STATUSES = tuple(status for status in Status.values if status not in PUBLIC_STATUSES)


def _today(today: date | None) -> date:
    return today or timezone.now().date()


def sees_unpublished(user: Any) -> bool:
    """The committee sees private submissions, draft and frozen lists."""
    return roles.is_reviewer(user)


def released(prefix: str = "release__", today: date | None = None) -> Q:
    """Rows whose release (reached through ``prefix``) is past its embargo."""
    return Q(**{f"{prefix}release_date__lte": _today(today)})


def public_filter(today: date | None = None) -> Q:
    return Q(status__in=PUBLIC_STATUSES) & released(today=today)


def is_public(submission: Submission, today: date | None = None) -> bool:
    """``public_filter`` for one loaded row."""
    return submission.status in PUBLIC_STATUSES and not submission.release.is_embargoed(today)


def embargoed_release_ids(today: date | None = None) -> list[int]:
    """The (few) releases still under embargo: an index lookup, not a join per row."""
    return list(Release.objects.filter(release_date__gt=_today(today)).values_list("id", flat=True))


def public_submissions(user: Any) -> QuerySet[Submission]:
    """What the rankings show ``user``: public results, or everything for the committee."""
    if sees_unpublished(user):
        return Submission.objects.all()
    return Submission.objects.filter(public_filter())


def owned_or_public(user: Any) -> QuerySet[Submission]:
    """What the submission pages and API show ``user``: the rankings' set plus their own."""
    if sees_unpublished(user):
        return Submission.objects.all()
    if getattr(user, "is_authenticated", False):
        return Submission.objects.filter(public_filter() | Q(owner=user))
    return Submission.objects.filter(public_filter())
