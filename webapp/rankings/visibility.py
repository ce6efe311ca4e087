"""Which lists, entries and results of the rankings a user sees.

The meanings (public, private, hidden; the embargo) are ``submissions.visibility``'s; this
module adds the list's own state: anonymous users (and everyone without the committee role)
see published lists of releases past their date, and only public submissions on them. The
committee also sees draft and frozen lists so they can check them before publication. Every
page, export and API endpoint of this app goes through these functions.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from submissions import visibility
from submissions.models import Submission

from .models import ListEntry, ListState, ListStatistic, RankedList


def can_see_unpublished(user: Any) -> bool:
    return visibility.sees_unpublished(user)


def visible_lists(user: Any) -> QuerySet[RankedList]:
    lists = RankedList.objects.select_related("release", "list_type")
    if can_see_unpublished(user):
        return lists
    return lists.filter(visibility.released(), state=ListState.PUBLISHED)


def visible_submissions(user: Any) -> QuerySet[Submission]:
    return visibility.public_submissions(user)


def hidden_submissions(user: Any, ranked_list: RankedList) -> list[int] | None:
    """Submissions on the list that this user may not see (almost always none); ``None``
    for the committee, who see everything.

    Written so PostgreSQL can start from the few non-public submissions (status index,
    release index) instead of scanning every submission; this runs on every list view."""
    hidden = hidden_on_lists(user, [ranked_list.pk])
    return None if hidden is None else hidden[ranked_list.pk]


def hidden_on_lists(user: Any, list_ids: list[int]) -> dict[int, list[int]] | None:
    """``hidden_submissions`` of several lists in one or two queries (the home page shows a
    preview of each of the newest release's lists)."""
    if can_see_unpublished(user):
        return None
    hidden: dict[int, list[int]] = {pk: [] for pk in list_ids}
    entries = ListEntry.objects.filter(ranked_list__in=list_ids).order_by()
    not_public = Submission.objects.filter(status__in=visibility.NOT_PUBLIC_STATUSES)
    rows = list(
        entries.filter(submission_id__in=not_public.values("id")).values_list(
            "ranked_list_id", "submission_id"
        )
    )
    embargoed = visibility.embargoed_release_ids()
    if embargoed:
        rows += entries.filter(submission__release_id__in=embargoed).values_list(
            "ranked_list_id", "submission_id"
        )
    for list_id, submission_id in rows:
        hidden[list_id].append(submission_id)
    return hidden


def hidden_best_entries(user: Any, lists: QuerySet[RankedList]) -> list[int]:
    """Submissions named as a list's best new entry (``ListStatistic``, on the trends chart)
    that this user may not see: a join from the few statistics rows, not a scan of every
    submission."""
    if can_see_unpublished(user):
        return []
    not_public = ~Q(best_submission__status__in=visibility.PUBLIC_STATUSES) | ~visibility.released(
        "best_submission__release__"
    )
    rows = ListStatistic.objects.filter(ranked_list__in=lists, best_submission__isnull=False)
    return sorted(set(rows.filter(not_public).values_list("best_submission_id", flat=True)))


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
