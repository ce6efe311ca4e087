"""The user admin's role actions follow the role rule (``roles.may_grant_roles``) and need the
change permission on users: a staff account that may only view users grants nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client

from accounts import roles

pytestmark = pytest.mark.django_db


def _grant_admin(client: Client, user: User) -> Any:
    return client.post(
        "/admin/auth/user/",
        {"action": "grant_admin", "_selected_action": [str(user.pk)], "index": "0"},
    )


def test_view_only_staff_cannot_grant_itself_admin() -> None:
    viewer = User.objects.create_user("viewer", password="x" * 12, is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_user"))
    client = Client()
    client.force_login(viewer)
    listing = client.get("/admin/auth/user/")
    assert listing.status_code == 200 and "grant_admin" not in listing.content.decode()
    _grant_admin(client, viewer)
    assert not User.objects.get(pk=viewer.pk).groups.filter(name=roles.ADMIN).exists()


def test_staff_with_change_but_no_admin_role_cannot_grant() -> None:
    clerk = User.objects.create_user("clerk", password="x" * 12, is_staff=True)
    clerk.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_user", "change_user"])
    )
    client = Client()
    client.force_login(clerk)
    _grant_admin(client, clerk)
    assert not User.objects.get(pk=clerk.pk).groups.filter(name=roles.ADMIN).exists()


def test_superuser_grants(cast: Any) -> None:
    boss = User.objects.create_superuser("boss", "boss@example.org", "x" * 12)
    client = Client()
    client.force_login(boss)
    _grant_admin(client, cast.submitter)
    assert cast.submitter.groups.filter(name=roles.ADMIN).exists()
