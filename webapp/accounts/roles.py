"""The three roles are Django groups; these helpers are the only place that names them."""

from __future__ import annotations

from typing import Any

SUBMITTER = "submitter"
REVIEWER = "reviewer"
ADMIN = "admin"
ALL_ROLES = (SUBMITTER, REVIEWER, ADMIN)


# What each role includes; a request made with an API token has at most the token's role.
INCLUDED = {SUBMITTER: {SUBMITTER}, REVIEWER: {SUBMITTER, REVIEWER}, ADMIN: set(ALL_ROLES)}


def _groups(user: Any) -> set[str]:
    if not getattr(user, "is_authenticated", False):
        return set()
    cached = getattr(user, "_ioscore_groups", None)
    if cached is None:
        cached = set(user.groups.values_list("name", flat=True))
        if getattr(user, "is_superuser", False):
            cached.add(ADMIN)
        ceiling = getattr(user, "_ioscore_ceiling", None)
        if ceiling is not None:
            cached &= INCLUDED[ceiling]
        user._ioscore_groups = cached
    return cached


def limit_to(user: Any, role: str) -> None:
    """For this request, ``user`` acts with at most ``role`` (an API token's scope)."""
    user._ioscore_ceiling = role
    user._ioscore_groups = None


def is_admin(user: Any) -> bool:
    return ADMIN in _groups(user)


def is_reviewer(user: Any) -> bool:
    """Reviewers (the committee) and admins may see and act on the review queue."""
    return is_admin(user) or REVIEWER in _groups(user)


def is_submitter(user: Any) -> bool:
    return is_reviewer(user) or SUBMITTER in _groups(user)


def may_grant_roles(user: Any) -> bool:
    """Who may give or take roles (/manage/roles/, the user admin's actions): admins only."""
    return is_admin(user)
