"""Who may see which lists and submissions (spec §7: nothing unreleased is public).

Anonymous users (and everyone without the committee role) see only published lists of
releases whose date has passed, and only accepted submissions of such releases. Reviewers
(the committee) also see draft and frozen lists so they can check them before publication.
Every page, export and API endpoint of this app goes through these two functions.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.utils import timezone

from accounts.roles import is_reviewer
from submissions.models import Release, Status, Submission

from .models import ListEntry, ListState, RankedList

NOT_ACCEPTED = [status for status in Status.values if status != Status.ACCEPTED]


def can_see_unpublished(user: Any) -> bool:
    return is_reviewer(user)


def visible_lists(user: Any) -> QuerySet[RankedList]:
    lists = RankedList.objects.select_related("release", "list_type")
    if can_see_unpublished(user):
        return lists
    return lists.filter(state=ListState.PUBLISHED, release__release_date__lte=timezone.now().date())


def visible_submissions(user: Any) -> QuerySet[Submission]:
    submissions = Submission.objects.all()
    if can_see_unpublished(user):
        return submissions
    return submissions.filter(
        status=Status.ACCEPTED, release__release_date__lte=timezone.now().date()
    )


def hidden_submissions(user: Any, ranked_list: RankedList) -> list[int] | None:
    """Submissions on the list that this user may not see (almost always none); ``None``
    for the committee, who see everything.

    Written so PostgreSQL can start from the few non-public submissions (status index,
    release index) instead of scanning every submission; this runs on every list view."""
    if can_see_unpublished(user):
        return None
    entries = ListEntry.objects.filter(ranked_list=ranked_list).order_by()
    hidden = list(
        entries.filter(
            submission_id__in=Submission.objects.filter(status__in=NOT_ACCEPTED).values("id")
        ).values_list("submission_id", flat=True)
    )
    embargoed = list(
        Release.objects.filter(release_date__gt=timezone.now().date()).values_list("id", flat=True)
    )
    if embargoed:
        hidden += entries.filter(submission__release_id__in=embargoed).values_list(
            "submission_id", flat=True
        )
    return hidden


def entries_without(ranked_list: RankedList, hidden: list[int] | None) -> QuerySet[ListEntry]:
    entries = ListEntry.objects.filter(ranked_list=ranked_list)
    return entries.exclude(submission_id__in=hidden) if hidden else entries


def visible_entries(user: Any, ranked_list: RankedList) -> QuerySet[ListEntry]:
    """Entries of a visible list; a public list never shows a submission that is not public
    (e.g. withdrawn after publication, before the correction is recorded).

    The non-public submissions of a list are looked up first and excluded by id, so the list
    queries themselves stay on the entry table alone instead of joining every entry to its
    submission and release."""
    return entries_without(ranked_list, hidden_submissions(user, ranked_list))
