"""The site's error pages: 403 names the role a page needs and links to log in (coming back
afterwards), 404 says what was not found, 500 is plain and touches no database.

Views say which role they need by raising ``accounts.refusals.RoleRequired(role, action)``;
a plain ``PermissionDenied`` still gets the styled page with its message.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseServerError
from django.shortcuts import render
from django.template import loader
from django.urls import Resolver404

from accounts import roles
from accounts.refusals import ROLE_WORDS

from .templatetags.navigation import login_url


def _user_roles(user: Any) -> list[str]:
    checks = ((roles.ADMIN, roles.is_admin), (roles.REVIEWER, roles.is_reviewer))
    found = [ROLE_WORDS[name] for name, check in checks if check(user)]
    if roles.is_submitter(user) and not found:
        found.append(ROLE_WORDS[roles.SUBMITTER])
    return found


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    user = getattr(request, "user", None)
    role = getattr(exception, "role", "")
    context = {
        "message": str(exception) if str(exception) else "",
        "needed_role": ROLE_WORDS.get(role, ""),
        "action": getattr(exception, "action", ""),
        "your_roles": _user_roles(user),
        "login_url": login_url(request),
    }
    return render(request, "403.html", context, status=403)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    # A URL that matches no route carries the resolver's internals: say it plainly instead.
    message = "" if isinstance(exception, Resolver404) else str(exception)
    if message.startswith("No ") and message.endswith(" matches the given query."):
        message = "no such " + message[3:].split(" matches")[0].lower()
    context = {"message": message, "path": request.path, "login_url": login_url(request)}
    return render(request, "404.html", context, status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    """No request context: nothing here may need the database or the session."""
    return HttpResponseServerError(loader.get_template("500.html").render({}))
