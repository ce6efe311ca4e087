"""Only admins manage (``accounts.roles``); reviewers and submitters get a 403 that says so."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse

from accounts import roles
from accounts.refusals import RoleRequired


def admin_only(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    @login_required
    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not roles.is_admin(request.user):
            raise RoleRequired(roles.ADMIN, "manage releases, lists and roles")
        return view(request, *args, **kwargs)

    return wrapped
