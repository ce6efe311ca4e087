"""Hostile page/offset values on the list, compare and API pages answer 200 or 400, never a
500: a doubled sign, a digit that is not ASCII (``"²".isdigit()`` is true, ``int("²")`` fails)."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from django.test import Client

from .test_rankings import World

pytestmark = pytest.mark.django_db
VALUES = ["--1", "-1", "+-3", "²", "١٢", "1e3", "", " 2"]


@pytest.fixture
def lists() -> None:
    from rankings.maintenance.builder import build_lists

    world = World()
    release = world.release("SC19", date(2019, 11, 19))
    for n in range(3):
        world.submission(release, 1.0 + n, storage=world.storage(f"fs-{n}"), level="proprietary")
    build_lists()


@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize(
    "path",
    [
        "/compare/?page={}",
        "/trends/?page={}",
        "/api/v1/results/?offset={}",
        "/api/v1/results/?limit={}",
        "/api/v1/lists/?offset={}",
        "/api/v1/submissions/?offset={}",
        "/api/v1/acceptance/runs/?offset={}",
        "/review/?page={}",
    ],
)
def test_no_500(lists: None, cast: Any, path: str, value: str) -> None:
    client = Client(raise_request_exception=False)
    client.force_login(cast.reviewer)
    assert client.get(path.format("1")).status_code == 200, path  # the page exists
    response = client.get(path.format(value))
    assert response.status_code < 500, (path, value, response.status_code)
