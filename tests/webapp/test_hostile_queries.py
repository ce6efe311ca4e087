"""Every page and API answers a 4xx (or a page that names the bad parameter), never a 500,
for malformed query parameters and path segments: NUL bytes, huge or negative numbers,
non-numbers, junk in every parameter a view reads."""

from __future__ import annotations

from datetime import date
from typing import Any
from urllib.parse import quote

import pytest
from django.db import transaction
from django.test import Client

from .test_rankings import World, build

pytestmark = pytest.mark.django_db

PARAMETERS = (
    "sort",
    "dir",
    "cols",
    "col",
    "fs",
    "vendor",
    "year",
    "nodes_min",
    "nodes_max",
    "level",
    "q",
    "page",
    "per_page",
    "limit",
    "offset",
    "status",
    "list",
    "ids",
    "pick",
    "baseline",
    "phase",
    "format",
)
# NUL bytes are refused before any view runs (tested below); these reach the views.
VALUES = ("9" * 30, "-1", "1e309", "x" * 3000, "' OR 1=1 --")


@pytest.fixture
def pages(cast: Any) -> list[str]:
    world = World()
    sc19 = world.release("SC19", date(2019, 11, 19))
    sub = world.submission(sc19, 4.0, bw=2.0, md=8.0, owner=cast.submitter)
    world.submission(sc19, 3.0, bw=1.0, md=9.0)
    build()
    return [
        "/",
        "/lists/",
        "/lists/SC19/full/",
        "/lists/SC19/full.csv",
        "/lists/SC19/full.json",
        "/lists/SC19/changelog/",
        f"/results/{sub.pk}/",
        "/compare/",
        "/trends/",
        "/api/v1/lists/",
        "/api/v1/lists/SC19/full/",
        "/api/v1/lists/SC19/full/entries/",
        "/api/v1/results/",
        f"/api/v1/results/{sub.pk}/",
        f"/api/v1/results/{sub.pk}/phases/",
        "/api/v1/submissions/",
        "/api/v1/releases/",
        "/api/v1/review/queue/",
        "/submissions/mine/",
        f"/submissions/{sub.pk}/",
        "/review/",
        "/accounts/login/",
    ]


def _server_errors(browser: Client, page: str, query: dict[str, str]) -> list[str]:
    # A database error aborts the test's transaction; a savepoint per request keeps one
    # failure from failing every request after it.
    savepoint = transaction.savepoint()
    response = browser.get(page, query)
    transaction.savepoint_rollback(savepoint)
    if response.status_code < 500:
        return []
    shown = {name: value[:20] for name, value in query.items()}
    return [f"{page} {shown}: {response.status_code}"]


@pytest.mark.parametrize("who", ["anonymous", "reviewer"])
def test_malformed_query_parameters_never_500(pages: list[str], cast: Any, who: str) -> None:
    browser = Client(raise_request_exception=False)
    if who != "anonymous":
        browser.force_login(getattr(cast, who))
    failures = []
    for page in pages:
        # Every parameter alone with an out-of-range number (an error in another parameter
        # could otherwise stop the view before it uses this one), then every value in all.
        for name in PARAMETERS:
            failures += _server_errors(browser, page, {name: VALUES[0]})
        for value in VALUES:
            failures += _server_errors(browser, page, dict.fromkeys(PARAMETERS, value))
    assert not failures, "\n".join(failures[:40])


@pytest.mark.parametrize("value", ["\x00", "a\x00b"])
def test_nul_in_a_parameter_is_a_400_naming_it(pages: list[str], value: str) -> None:
    response = Client().get("/lists/SC19/full/", {"vendor": value})
    assert response.status_code == 400
    assert b"NUL" in response.content


@pytest.mark.parametrize(
    "path",
    [
        "/lists/%00/full/",
        "/lists/SC19/%00/",
        "/lists/SC19%00/full.csv",
        "/api/v1/lists/%00/full/entries/",
        "/lists/" + quote("x" * 3000) + "/full/",
        "/results/99999999999999999999999/",
        "/api/v1/results/99999999999999999999999/",
        "/api/v1/submissions/99999999999999999999999/",
        "/submissions/99999999999999999999999/",
    ],
)
def test_malformed_path_segments_are_4xx(pages: list[str], path: str) -> None:
    response = Client(raise_request_exception=False).get(path)
    assert 400 <= response.status_code < 500, (path, response.status_code)
