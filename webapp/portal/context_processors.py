"""Template flags for the navigation (roles are groups; see accounts.roles)."""

from __future__ import annotations

from typing import Any

from accounts import roles


def role_flags(request: Any) -> dict[str, bool]:
    user = getattr(request, "user", None)
    return {"is_reviewer_user": roles.is_reviewer(user), "is_admin_user": roles.is_admin(user)}
