"""The field-visibility rule on every page and export: each GET URL of the URL conf (the
authorization matrix's routes), filled with an accepted public run whose private fields carry
marker strings, shows none of them to an anonymous visitor or a submitter of another site
(``submissions.fields``). A new page or export is covered without a line here."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from rankings.models import ListEntry

from .test_field_visibility import SECRETS, run  # noqa: F401 (the fixture)
from .test_rankings import build
from .test_url_matrix import MISSING, routes

pytestmark = pytest.mark.django_db
SKIP = ("admin/", "api/v1/schema/", "api/v1/docs/")  # no run data (the admin: staff only)


def _path(route: str, submission: Any, list_type: str) -> str:
    for key, value in {
        "<int:pk>": str(submission.pk),
        "<str:release>": submission.release.acronym,
        "<slug:list_type>": list_type,
        "<int:system>": str(MISSING),
        "<int:io500_id>": str(MISSING),
        "<str:action>": "publish",
    }.items():
        route = route.replace(key, value)
    if route == "compare/":  # shows no run unless asked for one
        return f"/compare/?ids={submission.pk}"
    return "/" + route


@pytest.mark.parametrize("reader", ["anonymous", "other"])
def test_no_private_field_on_any_page_or_export(cast: Any, run: Any, reader: str) -> None:  # noqa: F811
    build()
    entry = ListEntry.objects.filter(submission=run).select_related("ranked_list__list_type")
    assert entry.exists(), "the run is on no list: the exports would show nothing"
    list_type = entry.first().ranked_list.list_type.slug
    client = Client()
    if reader == "other":
        client.force_login(cast.other_submitter)
    shown = 0
    for route, _name in routes():
        if route.startswith(SKIP):
            continue
        response = client.get(_path(route, run, list_type))
        if response.status_code != 200 or response.streaming:
            continue
        text = response.content.decode(errors="replace")
        for secret in SECRETS:
            assert secret not in text, f"{secret!r} on {route}"
        shown += 1
    assert shown >= 15  # home, lists, list page, CSV, JSON, result, run page, APIs ...
