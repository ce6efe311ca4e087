"""The three roles are Django groups; these helpers are the only place that names them."""

from __future__ import annotations

from typing import Any

SUBMITTER = "submitter"
REVIEWER = "reviewer"
ADMIN = "admin"
ALL_ROLES = (SUBMITTER, REVIEWER, ADMIN)


def _groups(user: Any) -> set[str]:
    if not getattr(user, "is_authenticated", False):
        return set()
    cached = getattr(user, "_ioscore_groups", None)
    if cached is None:
        cached = set(user.groups.values_list("name", flat=True))
        user._ioscore_groups = cached
    return cached


def is_admin(user: Any) -> bool:
    return bool(getattr(user, "is_superuser", False)) or ADMIN in _groups(user)


def is_reviewer(user: Any) -> bool:
    """Reviewers (the committee) and admins may see and act on the review queue."""
    return is_admin(user) or REVIEWER in _groups(user)


def is_submitter(user: Any) -> bool:
    return is_reviewer(user) or SUBMITTER in _groups(user)
