"""Accounts made from the command line (`manage.py create_account`, `manage.py demo_account`):
a user in one role group with a fresh random password, kept in a file only its owner reads;
and the one place roles are granted and revoked (`manage.py grant_role`, the roles page)."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from django.contrib.auth.models import Group, User

from .roles import ALL_ROLES


def ensure_account(username: str, role: str, *, email: str = "") -> tuple[User, str]:
    """Create (or reuse) `username`, put it in `role`'s group, give it a new random password;
    returns the user and that password. Other roles the user has are kept."""
    if role not in ALL_ROLES:
        raise ValueError(f"unknown role {role!r}; one of {', '.join(ALL_ROLES)}")
    user, _ = User.objects.get_or_create(username=username, defaults={"email": email})
    if email and user.email != email:
        user.email = email
    password = secrets.token_urlsafe(12)
    user.set_password(password)
    user.save()
    grant_role(user, role)
    return user, password


def grant_role(user: User, role: str) -> bool:
    """Put ``user`` in ``role``'s group; False when they already had it."""
    if role not in ALL_ROLES:
        raise ValueError(f"unknown role {role!r}; one of {', '.join(ALL_ROLES)}")
    if user.groups.filter(name=role).exists():
        return False
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    return True


def revoke_role(user: User, role: str) -> bool:
    """Take ``user`` out of ``role``'s group; False when they did not have it."""
    if role not in ALL_ROLES:
        raise ValueError(f"unknown role {role!r}; one of {', '.join(ALL_ROLES)}")
    group = Group.objects.filter(name=role, user=user).first()
    if group is None:
        return False
    user.groups.remove(group)
    return True


def write_secret(path: Path, text: str) -> None:
    """Write `text` to `path`, readable by its owner only (mode 0600 from the first byte)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(text + "\n")
