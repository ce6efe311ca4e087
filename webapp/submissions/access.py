"""Who may see and do what (LEADERBOARD-RULES §7): one module, used by the API and the pages.

What "public" means is ``visibility``'s; this module decides per user and action.

* anonymous: accepted submissions of releases past their embargo, nothing else;
* submitters: that, plus their own submissions (any state);
* reviewers (committee): everything, and the review queue;
* admins: as reviewers, plus managing releases and lists.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from accounts import roles

from . import visibility
from .models import Submission
from .workflow import OWNER_EDITABLE


def visible_submissions(user: Any) -> QuerySet[Submission]:
    return visibility.owned_or_public(user).select_related("release", "site", "storage_system")


def can_view(user: Any, submission: Submission) -> bool:
    if visibility.sees_unpublished(user) or is_owner(user, submission):
        return True
    return visibility.is_public(submission)


def is_owner(user: Any, submission: Submission) -> bool:
    return bool(getattr(user, "is_authenticated", False) and submission.owner_id == user.pk)


def can_edit(user: Any, submission: Submission) -> bool:
    """Owners edit only drafts, failed validations and change requests (LEADERBOARD-RULES §7)."""
    return is_owner(user, submission) and submission.status in OWNER_EDITABLE


def can_review(user: Any) -> bool:
    return roles.is_reviewer(user)


def can_submit(user: Any) -> bool:
    return roles.is_submitter(user)
