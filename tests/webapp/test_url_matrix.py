"""The authorization matrix from the URL conf: every URL the site serves has a declared answer
for each role (anonymous, the owner submitter, a submitter of another site, a reviewer, an
admin); a new URL without a row in ``EXPECTED`` fails ``test_every_url_is_declared``.

The object URLs point at the owner's run under review (``<pk>``), so a status of 404 for a role
means "not confirmed to exist", 403 "seen but not allowed", 302 "log in first".
"""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from accounts.models import ApiToken
from submissions.models import Release, Status, Submission

# Regenerate the tables after a deliberate change: IOSCORE_MATRIX_OBSERVE=<file> records the
# statuses instead of asserting them; read every changed row before pasting it.

pytestmark = pytest.mark.django_db
ROLES = ("anonymous", "owner", "other", "reviewer", "admin")
MISSING = 987654  # an id no object has (acceptance runs: none is created here)

# route -> GET status per role, in ROLES order; ``api/`` routes are asked with a token of the
# role for the user's site (reviewer and admin made members of it). ``admin/`` is the Django
# admin: a redirect to its own login for all (no role here is staff).
EXPECTED: dict[str, tuple[int, ...]] = {
    "healthz": (200, 200, 200, 200, 200),
    "admin/login/": (200, 200, 200, 200, 200),
    "admin/": (302, 302, 302, 302, 302),
    "accounts/login/": (200, 200, 200, 200, 200),
    "accounts/logout/": (405, 405, 405, 405, 405),
    "accounts/tokens/": (302, 200, 200, 200, 200),
    "accounts/tokens/<int:pk>/revoke/": (405, 405, 405, 405, 405),
    "accounts/verify/<str:token>/": (400, 400, 400, 400, 400),
    "api/v1/submissions/": (200, 200, 200, 200, 200),
    "api/v1/submissions/<int:pk>/": (404, 200, 404, 200, 200),
    "api/v1/submissions/<int:pk>/status/": (404, 200, 404, 200, 200),
    "api/v1/submissions/<int:pk>/withdraw/": (405, 405, 405, 405, 405),
    "api/v1/submissions/<int:pk>/review/": (405, 405, 405, 405, 405),
    "api/v1/review/queue/": (401, 403, 403, 200, 200),
    "api/v1/releases/": (200, 200, 200, 200, 200),
    "api/v1/releases/<int:pk>/": (200, 200, 200, 200, 200),
    "api/v1/schema/": (200, 200, 200, 200, 200),
    "api/v1/docs/": (200, 200, 200, 200, 200),
    "acceptance/": (404, 200, 200, 200, 200),
    "acceptance/upload/": (302, 200, 200, 403, 200),
    "acceptance/sites/<int:pk>/": (404, 200, 404, 404, 200),
    "acceptance/sites/<int:pk>/systems/<int:system>/": (404, 404, 404, 404, 404),
    "acceptance/sites/<int:pk>/history.csv": (404, 200, 404, 404, 200),
    "acceptance/sites/<int:pk>/alert-rules/": (405, 405, 405, 405, 405),
    "acceptance/sites/<int:pk>/systems/<int:system>/history.csv": (404, 404, 404, 404, 404),
    "acceptance/runs/<int:pk>/": (404, 404, 404, 404, 404),
    "acceptance/runs/<int:pk>/delete/": (405, 405, 405, 405, 405),
    "acceptance/runs/<int:pk>/report/": (404, 404, 404, 404, 404),
    "acceptance/runs/<int:pk>/report/content/": (404, 404, 404, 404, 404),
    "acceptance/runs/<int:pk>/archive/": (404, 404, 404, 404, 404),
    "api/v1/acceptance/runs/": (200, 200, 200, 200, 200),
    "api/v1/acceptance/runs/<int:pk>/": (404, 404, 404, 404, 404),
    "api/v1/acceptance/sites/<int:pk>/history/": (404, 200, 404, 200, 200),
    "submissions/<int:pk>/": (404, 200, 404, 200, 200),
    "submissions/new/": (302, 200, 200, 200, 200),
    "submissions/mine/": (302, 200, 200, 200, 200),
    "submissions/<int:pk>/archive/": (404, 200, 404, 200, 200),
    "submissions/<int:pk>/edit/": (302, 403, 404, 403, 403),
    "submissions/<int:pk>/withdraw/": (405, 405, 405, 405, 405),
    "submissions/<int:pk>/review/": (405, 405, 405, 405, 405),
    "review/": (302, 403, 403, 200, 200),
    "review/<int:pk>/": (302, 403, 403, 200, 200),
    "manage/": (302, 403, 403, 403, 200),
    "manage/releases/": (302, 403, 403, 403, 200),
    "manage/releases/<int:pk>/<str:action>/": (302, 403, 403, 403, 404),
    "manage/pins/": (302, 403, 403, 403, 200),
    "manage/pins/<int:pk>/remove/": (302, 403, 403, 403, 404),
    "manage/lists/": (302, 403, 403, 403, 200),
    "manage/lists/<int:pk>/publish/": (302, 403, 403, 403, 404),
    "manage/corrections/": (302, 403, 403, 403, 200),
    "manage/roles/": (302, 403, 403, 403, 200),
    "": (200, 200, 200, 200, 200),
    "lists/": (200, 200, 200, 200, 200),
    "lists/<str:release>/changelog/": (404, 404, 404, 404, 404),
    "lists/<str:release>/<slug:list_type>/": (404, 404, 404, 404, 404),
    "lists/<str:release>/<slug:list_type>.csv": (404, 404, 404, 404, 404),
    "lists/<str:release>/<slug:list_type>.json": (404, 404, 404, 404, 404),
    "results/<int:pk>/": (404, 404, 404, 200, 200),
    "results/<int:pk>/archive": (404, 404, 404, 200, 200),
    "results/io500/<int:io500_id>/": (404, 404, 404, 404, 404),
    "compare/": (200, 200, 200, 200, 200),
    "trends/": (200, 200, 200, 200, 200),
    "api/v1/lists/": (200, 200, 200, 200, 200),
    "api/v1/lists/<str:release>/<slug:list_type>/": (404, 404, 404, 404, 404),
    "api/v1/lists/<str:release>/<slug:list_type>/entries/": (404, 404, 404, 404, 404),
    "api/v1/results/": (200, 200, 200, 200, 200),
    "api/v1/results/<int:pk>/": (404, 404, 404, 200, 200),
    "api/v1/results/<int:pk>/phases/": (404, 404, 404, 200, 200),
}

# route -> status of an empty POST per role (every route not listed answers 405 to all);
# mutating routes answer 405/404/403/302 before they read the (missing) form.
POST_EXPECTED: dict[str, tuple[int, ...]] = {
    "healthz": (200, 200, 200, 200, 200),
    "admin/login/": (200, 200, 200, 200, 200),
    "admin/": (302, 302, 302, 302, 302),
    "accounts/login/": (200, 200, 200, 200, 200),
    "accounts/logout/": (200, 200, 200, 200, 200),
    "accounts/tokens/": (302, 200, 200, 200, 200),
    "accounts/tokens/<int:pk>/revoke/": (302, 404, 404, 404, 404),
    "accounts/verify/<str:token>/": (400, 400, 400, 400, 400),
    "api/v1/submissions/": (401, 400, 400, 400, 400),
    "api/v1/submissions/<int:pk>/withdraw/": (404, 200, 404, 403, 403),
    "api/v1/submissions/<int:pk>/review/": (401, 403, 403, 400, 400),
    "api/v1/releases/": (401, 403, 403, 403, 400),
    "api/v1/releases/<int:pk>/": (401, 403, 403, 403, 405),
    "acceptance/": (404, 200, 200, 200, 200),
    "acceptance/upload/": (302, 200, 200, 403, 200),
    "acceptance/sites/<int:pk>/": (404, 200, 404, 404, 200),
    "acceptance/sites/<int:pk>/systems/<int:system>/": (404, 404, 404, 404, 404),
    "acceptance/sites/<int:pk>/history.csv": (404, 200, 404, 404, 200),
    "acceptance/sites/<int:pk>/systems/<int:system>/history.csv": (404, 404, 404, 404, 404),
    "acceptance/runs/<int:pk>/": (404, 404, 404, 404, 404),
    "acceptance/sites/<int:pk>/alert-rules/": (404, 400, 404, 404, 400),
    "acceptance/runs/<int:pk>/delete/": (404, 404, 404, 404, 404),
    "acceptance/runs/<int:pk>/report/": (404, 404, 404, 404, 404),
    "acceptance/runs/<int:pk>/report/content/": (404, 404, 404, 404, 404),
    "acceptance/runs/<int:pk>/archive/": (404, 404, 404, 404, 404),
    "api/v1/acceptance/runs/": (401, 400, 400, 400, 400),
    "submissions/<int:pk>/": (404, 200, 404, 200, 200),
    "submissions/new/": (302, 200, 200, 200, 200),
    "submissions/mine/": (302, 200, 200, 200, 200),
    "submissions/<int:pk>/archive/": (404, 200, 404, 200, 200),
    "submissions/<int:pk>/edit/": (302, 403, 404, 403, 403),
    "submissions/<int:pk>/withdraw/": (302, 302, 404, 403, 403),
    "submissions/<int:pk>/review/": (302, 403, 403, 302, 302),
    "review/": (302, 403, 403, 200, 200),
    "review/<int:pk>/": (302, 403, 403, 400, 400),
    "manage/": (302, 403, 403, 403, 200),
    "manage/releases/": (302, 403, 403, 403, 200),
    "manage/releases/<int:pk>/<str:action>/": (302, 403, 403, 403, 404),
    "manage/pins/": (302, 403, 403, 403, 200),
    "manage/pins/<int:pk>/remove/": (302, 403, 403, 403, 404),
    "manage/lists/": (302, 403, 403, 403, 200),
    "manage/lists/<int:pk>/publish/": (302, 403, 403, 403, 404),
    "manage/corrections/": (302, 403, 403, 403, 200),
    "manage/roles/": (302, 403, 403, 403, 200),
    "": (200, 200, 200, 200, 200),
    "lists/": (200, 200, 200, 200, 200),
    "lists/<str:release>/changelog/": (404, 404, 404, 404, 404),
    "lists/<str:release>/<slug:list_type>/": (404, 404, 404, 404, 404),
    "lists/<str:release>/<slug:list_type>.csv": (404, 404, 404, 404, 404),
    "lists/<str:release>/<slug:list_type>.json": (404, 404, 404, 404, 404),
    "results/<int:pk>/": (404, 404, 404, 200, 200),
    "results/<int:pk>/archive": (404, 404, 404, 200, 200),
    "results/io500/<int:io500_id>/": (404, 404, 404, 404, 404),
    "compare/": (200, 200, 200, 200, 200),
    "trends/": (200, 200, 200, 200, 200),
}


def routes() -> list[tuple[str, str]]:
    """(route, name) of every URL pattern; the Django admin as one prefix."""
    found: list[tuple[str, str]] = []

    def walk(patterns: Any, prefix: str, namespace: str) -> None:
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                if route == "admin/":
                    found.append((route, "admin"))
                    continue
                inner = namespace
                if pattern.namespace:
                    inner = f"{namespace}:{pattern.namespace}" if namespace else pattern.namespace
                walk(pattern.url_patterns, route, inner)
            elif isinstance(pattern, URLPattern):
                found.append(
                    (route, f"{namespace}:{pattern.name}" if namespace else str(pattern.name))
                )

    walk(get_resolver().url_patterns, "", "")
    return found


@pytest.fixture
def world(cast: Any, open_release: Any, media_root: Path) -> dict[str, Any]:
    past = Release.objects.create(
        acronym="OLD19", release_date=date(2019, 11, 19), submission_deadline=date(2019, 11, 10)
    )
    archive = media_root / "archives" / "fixture.tar.gz"
    archive.parent.mkdir(parents=True, exist_ok=True)
    archive.write_bytes(b"\x1f\x8b fixture bytes")
    draft = Submission.objects.create(
        release=open_release,
        owner=cast.submitter,
        site=cast.site,
        status=Status.UNDER_REVIEW,
        archive="archives/fixture.tar.gz",
        archive_name="fixture.tar.gz",
    )
    return {"cast": cast, "pk": draft.pk, "release": past}


def _path(route: str, world: dict[str, Any]) -> str:
    """The route with the fixture's objects (or an id no object has) for its parameters."""
    pk = world["pk"]  # the owner's run under review
    if route.startswith(("acceptance/runs/", "api/v1/acceptance/runs/", "accounts/tokens/")):
        pk = MISSING
    elif route.startswith(("acceptance/sites/", "api/v1/acceptance/sites/")):
        pk = world["cast"].site.pk
    elif route.startswith("manage/lists/"):
        pk = MISSING
    elif route.startswith(("manage/releases/", "api/v1/releases/")):
        pk = world["release"].pk
    values = {
        "<int:pk>": str(pk),
        "<str:release>": "OLD19",
        "<slug:list_type>": "production",
        "<int:system>": str(MISSING),
        "<int:io500_id>": str(MISSING),
        "<str:action>": "publish",
        "<str:token>": "not-a-valid-token",
    }
    for key, value in values.items():
        route = route.replace(key, value)
    return "/" + route


def _client(world: dict[str, Any], role: str, route: str) -> Client:
    cast = world["cast"]
    user = {
        "anonymous": None,
        "owner": cast.submitter,
        "other": cast.other_submitter,
        "reviewer": cast.reviewer,
        "admin": cast.admin,
    }[role]
    client = Client()
    if user is None:
        return client
    if route.startswith("api/"):
        site = cast.site if role != "other" else cast.other_site
        if role in ("reviewer", "admin"):
            site.members.add(user)
        scope = role if role in ("reviewer", "admin") else "submitter"
        _token, raw = ApiToken.issue(user, site, role=scope)
        return Client(HTTP_AUTHORIZATION=f"Token {raw}")
    client.force_login(user)
    return client


CASES = [(route, role) for route, _name in routes() for role in ROLES]


def test_every_url_is_declared() -> None:
    undeclared = [route for route, _name in routes() if route not in EXPECTED]
    assert not undeclared, f"URLs without a row in EXPECTED: {undeclared}"
    stale = set(EXPECTED) - {route for route, _name in routes()}
    assert not stale, f"rows for URLs that no longer exist: {sorted(stale)}"


@pytest.mark.parametrize(("route", "role"), CASES)
def test_get(world: dict[str, Any], route: str, role: str) -> None:
    status = _client(world, role, route).get(_path(route, world)).status_code
    if os.environ.get("IOSCORE_MATRIX_OBSERVE"):
        with open(os.environ["IOSCORE_MATRIX_OBSERVE"], "a") as out:
            out.write(f"GET {route} {role} {status}\n")
        return
    assert status == EXPECTED[route][ROLES.index(role)]


@pytest.mark.parametrize(("route", "role"), [c for c in CASES if c[0] in POST_EXPECTED])
def test_post(world: dict[str, Any], route: str, role: str) -> None:
    status = _client(world, role, route).post(_path(route, world)).status_code
    if os.environ.get("IOSCORE_MATRIX_OBSERVE"):
        with open(os.environ["IOSCORE_MATRIX_OBSERVE"], "a") as out:
            out.write(f"POST {route} {role} {status}\n")
        return
    assert status == POST_EXPECTED[route][ROLES.index(role)]
