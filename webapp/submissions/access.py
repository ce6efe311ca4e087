"""Who may see and do what (brief §6): one module, used by the API and the pages.

* anonymous: accepted submissions of releases past their embargo, nothing else;
* submitters: that, plus their own submissions (any state);
* reviewers (committee): everything, and the review queue;
* admins: as reviewers, plus managing releases and lists.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts import roles

from .models import Status, Submission
from .workflow import OWNER_EDITABLE


def public_filter() -> Q:
    return Q(status=Status.ACCEPTED, release__release_date__lte=timezone.now().date())


def visible_submissions(user: Any) -> QuerySet[Submission]:
    queryset = Submission.objects.select_related("release", "site", "storage_system")
    if roles.is_reviewer(user):
        return queryset
    if getattr(user, "is_authenticated", False):
        return queryset.filter(public_filter() | Q(owner=user))
    return queryset.filter(public_filter())


def can_view(user: Any, submission: Submission) -> bool:
    if roles.is_reviewer(user):
        return True
    if getattr(user, "is_authenticated", False) and submission.owner_id == user.pk:
        return True
    return submission.is_public


def is_owner(user: Any, submission: Submission) -> bool:
    return bool(getattr(user, "is_authenticated", False) and submission.owner_id == user.pk)


def can_edit(user: Any, submission: Submission) -> bool:
    """Owners edit only drafts, failed validations and change requests (spec §7)."""
    return is_owner(user, submission) and submission.status in OWNER_EDITABLE


def can_review(user: Any) -> bool:
    return roles.is_reviewer(user)


def can_submit(user: Any) -> bool:
    return roles.is_submitter(user)
