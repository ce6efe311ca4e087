"""A refusal that names the role a page needs: views raise ``RoleRequired(role, action)``
and the 403 page (``portal.errors``) names the role and links to log in."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied

from . import roles

ROLE_WORDS = {
    roles.SUBMITTER: "submitter",
    roles.REVIEWER: "reviewer (committee member)",
    roles.ADMIN: "administrator",
}


class RoleRequired(PermissionDenied):
    """Refusal because the viewer lacks ``role`` (one of ``accounts.roles.ALL_ROLES``)."""

    def __init__(self, role: str, action: str) -> None:
        super().__init__(f"only a {ROLE_WORDS.get(role, role)} may {action}")
        self.role = role
        self.action = action
