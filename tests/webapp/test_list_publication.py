"""Lists become public and change only through recorded steps: an admin publishes a draft
list with a confirmation and a reason (the admin log says who, when and what), and an import
of the IO500 website's lists that changes a published list records corrections, shown in the
release's public changelog."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
from django.contrib.admin.models import LogEntry
from django.test import Client
from django.urls import reverse

from io500archive.published import IMPORT_REASON, import_published_lists
from io500archive.records import PublishedLists, PublishedRow
from rankings.models import Correction, ListState, RankedList

from .test_rankings import World, build

pytestmark = pytest.mark.django_db


def _as(user: Any) -> Client:
    browser = Client()
    browser.force_login(user)
    return browser


def test_an_admin_publishes_a_draft_list_as_a_recorded_step(cast: Any) -> None:
    world = World()
    coming = world.release("ISC99", date.today() + timedelta(days=40))
    world.submission(coming, 12.0, system="Coming Cluster")
    build()
    draft = RankedList.objects.filter(release=coming).order_by("list_type__order").first()
    assert draft is not None and draft.state == ListState.DRAFT
    url = f"/manage/lists/{draft.pk}/publish/"

    admin = _as(cast.admin)
    listed = admin.get("/manage/lists/")
    assert listed.status_code == 200 and url in listed.content.decode()
    assert _as(cast.reviewer).post(url, {"confirmed": "1", "reason": "x"}).status_code == 403
    asked = admin.post(url)  # the first POST shows what will happen and asks for a reason
    assert (
        asked.status_code == 200 and "becomes public on the release date" in asked.content.decode()
    )
    assert admin.post(url, {"confirmed": "1", "reason": ""}).status_code == 200  # no reason
    draft.refresh_from_db()
    assert draft.state == ListState.DRAFT and not LogEntry.objects.exists()

    done = admin.post(url, {"confirmed": "1", "reason": "committee vote of the release"})
    assert done.status_code == 302 and done["Location"] == "/manage/lists/"
    draft.refresh_from_db()
    assert draft.state == ListState.PUBLISHED and draft.published_at is not None
    line = LogEntry.objects.get(object_id=str(draft.pk))
    assert line.user == cast.admin and line.content_type.model == "rankedlist"
    assert line.change_message.startswith("published the list (revision 1, 1 entry)")
    assert "committee vote of the release" in line.change_message
    assert "committee vote of the release" in admin.get("/manage/lists/").content.decode()
    again = admin.post(url, {"confirmed": "1", "reason": "twice"})
    assert again.status_code == 409 and LogEntry.objects.count() == 1


def _row(line: int, rank: int, sub: Any, score: float, system: str) -> PublishedRow:
    return PublishedRow(
        line=line,
        release="SC19",
        slug="io500",
        rank=rank,
        web_id=sub.pk,
        web_release="SC19",
        system=system,
        institution="Ranking University",
        filesystem="Lustre",
        storage_vendor="Vendor",
        client_nodes=10,
        score=score,
        bw=score,
        md=score,
    )


def test_the_io500_import_records_what_it_changes_in_a_published_list(
    client: Any, cast: Any
) -> None:
    world = World()
    sc19 = world.release("SC19", date(2019, 11, 19))
    a, b, c = (world.submission(sc19, s) for s in (9.0, 5.0, 3.0))
    subs = {s.pk: s for s in (a, b, c)}

    def load(rows: list[PublishedRow]) -> list[str]:
        return import_published_lists(PublishedLists(rows, 0, 0), subs, {}, lambda _a: sc19)

    load([_row(2, 1, a, 9.0, "Alpha"), _row(3, 2, b, 5.0, "Beta")])
    ranked = RankedList.objects.get(release=sc19, list_type__slug="io500")
    assert ranked.state == ListState.PUBLISHED and ranked.revision == 1
    assert not Correction.objects.exists()  # a list written for the first time is no correction
    assert "unchanged" in load([_row(2, 1, a, 9.0, "Alpha"), _row(3, 2, b, 5.0, "Beta")])[-1]
    assert not Correction.objects.exists()

    # The website's list changed: b's score, a's system name, b out and c in.
    lines = load([_row(2, 1, a, 9.5, "Alpha II"), _row(3, 2, c, 3.0, "Gamma")])
    assert lines[-1].endswith("2 entries written, 4 corrections recorded")
    ranked.refresh_from_db()
    assert ranked.revision == 2
    found = {
        (x.kind, x.submission_id): (x.old_value, x.new_value)
        for x in Correction.objects.filter(ranked_list=ranked, revision=2, reason=IMPORT_REASON)
    }
    assert found == {
        ("added", c.pk): (None, {"score": 3.0}),
        ("removed", b.pk): ({"score": 5.0}, None),
        ("score", a.pk): (
            {"score": 9.0, "bw": 9.0, "md": 9.0},
            {"score": 9.5, "bw": 9.5, "md": 9.5},
        ),
        ("rename", a.pk): ({"system": "Alpha"}, {"system": "Alpha II"}),
    }
    page = client.get(reverse("rankings:changelog", args=["SC19"])).content.decode()
    assert page.count(IMPORT_REASON.replace("'", "&#x27;")) == 4
