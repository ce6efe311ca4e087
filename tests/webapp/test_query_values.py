"""Hostile whole-number values on the list, compare and API pages answer 200 or 400, never a
500: a doubled sign, a digit that is not ASCII (``"²".isdigit()`` is true, ``int("²")`` fails),
for anonymous visitors and reviewers alike; the same for the upload form's group buttons."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from django.test import Client

from .helpers import example_system
from .test_rankings import World
from .test_upload_form import _form_values

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
        "/lists/SC19/full/?page={}",
        "/lists/SC19/full/?nodes_min={}",
        "/lists/SC19/full.csv?nodes_max={}",
        "/api/v1/lists/SC19/full/entries/?nodes_min={}",
        "/compare/?ids={}",
        "/compare/?baseline={}",
        "/compare/?page={}",
        "/trends/?page={}",
        "/api/v1/results/?offset={}",
        "/api/v1/results/?limit={}",
        "/api/v1/lists/?offset={}",
        "/api/v1/submissions/?offset={}",
        "/api/v1/acceptance/runs/?offset={}",
        "/api/v1/acceptance/runs/?site={}",
        "/api/v1/results/?after={}",
        "/review/?page={}",
    ],
)
@pytest.mark.parametrize("who", ["anonymous", "reviewer"])
def test_no_500(lists: None, cast: Any, path: str, value: str, who: str) -> None:
    client = Client(raise_request_exception=False)
    if who != "anonymous":
        client.force_login(getattr(cast, who))
        assert client.get(path.format("1")).status_code == 200, path  # the page exists
    response = client.get(path.format(value))
    assert response.status_code < 500, (path, value, response.status_code)


@pytest.mark.parametrize("value", ["²", "--1", "١٢"])
@pytest.mark.parametrize("action", ["remove:server_groups.{}", "remove:server_groups.{}.x.0"])
def test_upload_form_group_buttons_take_only_ascii_indexes(
    cast: Any, action: str, value: str
) -> None:
    values = _form_values(example_system(), {})  # two server groups to remove from
    client = Client(raise_request_exception=False)
    client.force_login(cast.submitter)
    response = client.post("/submissions/new/", {**values, "_action": action.format(value)})
    assert response.status_code == 200, (action, value, response.status_code)
    assert 'name="sys-server_groups.1.role"' in response.content.decode()  # none removed


@pytest.mark.parametrize(
    ("text", "signed", "number"),
    [
        ("12", False, 12),
        ("0012", False, 12),
        ("+3", True, 3),
        ("-3", True, -3),
        ("-3", False, None),
        ("--1", True, None),
        ("+-3", True, None),
        ("²", False, None),
        ("١٢", False, None),
        (" 2", False, None),
        ("2\n", False, None),
        ("", False, None),
        ("9" * 19, False, None),
    ],
)
def test_whole_number_takes_ascii_digits_only(text: str, signed: bool, number: int | None) -> None:
    from ioscore_site.whole_numbers import whole_number

    assert whole_number(text, signed=signed) == number
