"""The trends page: opens on a list type with data, labels its axes with units, marks the
releases without entries as gaps, and keeps values a log axis cannot show out of it.

The page tests run on the real IO500 data (``../shared/data``; skipped with the reason when it
is absent): its history has real gaps (no list data for ISC22 and SC22) and empty lists (no
Production entries for the imported releases).
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from rankings.charts import best_payload, distribution_payload, metric_label
from rankings.models import ListEntry, ListStatistic, RankedList
from rankings.views.trends import release_sequence

pytestmark = pytest.mark.django_db
DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
full_data = pytest.mark.skipif(
    not (DATA / "io500-archive-dev").is_dir(), reason=f"the full IO500 data is not at {DATA}"
)


def _chart_data(html: str) -> dict[str, Any]:
    match = re.search(r'<script id="chart-data" type="application/json">(.*?)</script>', html, re.S)
    assert match, "the page carries no chart data"
    data: dict[str, Any] = json.loads(match.group(1))
    return data


def _options(html: str, select_id: str) -> list[tuple[str, bool]]:
    block = re.search(rf'<select id="{select_id}"[^>]*>(.*?)</select>', html, re.S)
    assert block
    return [
        (value, bool(selected))
        for value, selected in re.findall(r'<option value="([^"]*)"( selected)?', block.group(1))
    ]


def test_labels_carry_units() -> None:
    assert metric_label("score") == "Score"
    assert metric_label("bw") == "BW (GiB/s)"
    assert metric_label("md") == "MD (kIOPS)"
    assert metric_label("ior-hard-read") == "ior-hard-read (GiB/s)"
    assert metric_label("find") == "find (kIOPS)"


def test_payloads_break_lines_at_gaps_and_keep_non_positive_values_off_a_log_axis() -> None:
    best = best_payload(
        ["A", "B", "C"],
        {"A": {"best_score": 1.0, "best_bw": 2.0, "best_md": 3.0}, "C": {"best_score": 4.0}},
        {"B": "no list"},
    )
    assert best["releases"] == ["A", "B", "C"]
    assert best["gaps"] == [{"release": "B", "reason": "no list"}]
    score, bw, md = best["panels"]
    assert (score["title"], bw["title"], md["title"]) == ("Score", "BW (GiB/s)", "MD (kIOPS)")
    assert score["values"] == [1.0, None, 4.0] and bw["values"] == [2.0, None, None]

    box = {"minimum": 5.0, "q1": 5.5, "median": 6.0, "q3": 6.5, "maximum": 7.0}
    boxes = {
        "A": ListStatistic(count=2, not_drawn=2, best_submission_id=9, best_name="X", **box),
        "C": ListStatistic(count=0, not_drawn=1),
    }
    dist = distribution_payload(["A", "B", "C"], boxes, "bw", {"B": "empty list"})
    assert dist["title"] == "BW (GiB/s)" and dist["unit"] == "GiB/s"
    assert dist["boxes"] == [
        {
            "count": 2,
            "min": 5.0,
            "q1": 5.5,
            "median": 6.0,
            "q3": 6.5,
            "max": 7.0,
            "best": {"id": 9, "name": "X"},
        },
        None,
        None,
    ]
    assert dist["not_drawn"] == 3
    assert dist["gaps"] == [
        {"release": "B", "reason": "empty list"},
        {"release": "C", "reason": "no new entries"},
    ]


@full_data
def test_trends_open_on_data_and_mark_the_gaps_of_the_release_sequence() -> None:
    call_command("import_io500", str(DATA), stdout=io.StringIO())
    call_command("build_lists", stdout=io.StringIO())
    client = Client()
    # The imported history has Production lists, all empty: they are not what opens.
    assert RankedList.objects.filter(list_type__slug="production").exists()
    assert not ListEntry.objects.filter(ranked_list__list_type__slug="production").exists()

    html = client.get(reverse("rankings:trends")).content.decode()
    offered = dict(_options(html, "t-list"))
    assert "production" not in offered
    newest = RankedList.objects.order_by("-release__release_date").first()
    assert newest is not None
    opened = [value for value, selected in offered.items() if selected]
    assert opened == ["historical"]  # the newest release's first list type with entries
    data = _chart_data(html)
    best = data["best"]
    assert best["releases"][-1] == newest.release.acronym
    score = best["panels"][0]["values"]
    assert sum(v is not None for v in score) >= 8
    assert [p["title"] for p in best["panels"]] == ["Score", "BW (GiB/s)", "MD (kIOPS)"]

    # No list data exists for ISC22 and SC22: gaps in their place, between SC21 and ISC23.
    releases = best["releases"]
    assert releases.index("SC21") + 3 == releases.index("ISC23")
    for acronym in ("ISC22", "SC22"):
        at = releases.index(acronym)
        assert score[at] is None
        assert {"release": acronym, "reason": "no list"} in best["gaps"]
    assert "ISC22 (no list)" in html and "SC22 (no list)" in html

    # A release whose list is empty is a gap too, named so.
    sc23 = RankedList.objects.get(release__acronym="SC23", list_type__slug="historical")
    sc23.entries.all().delete()
    sc23.save()  # new built_at: no cached page
    best = _chart_data(client.get(reverse("rankings:trends")).content.decode())["best"]
    assert {"release": "SC23", "reason": "empty list"} in best["gaps"]
    assert best["panels"][1]["values"][best["releases"].index("SC23")] is None

    # The distribution axis says what and in which unit; values <= 0 are counted, not drawn.
    html = client.get(reverse("rankings:trends"), {"list": "historical", "phase": "find"}).content
    page = html.decode()
    dist = _chart_data(page)["distribution"]
    assert dist["title"] == "find (kIOPS)"
    drawn = [box["min"] for box in dist["boxes"] if box]
    assert drawn and min(drawn) > 0
    new_entries = ListEntry.objects.filter(
        ranked_list__list_type__slug="historical", find__isnull=False
    ).exclude(origin_release__isnull=True)
    zero = sum(
        1
        for e in new_entries.select_related("ranked_list__release", "origin_release")
        if e.ranked_list.release.acronym == e.origin_release.acronym and e.find <= 0
    )
    assert zero >= 1 and dist["not_drawn"] == zero  # a run whose find failed (0 kIOPS)
    assert f"{zero} entr" in page and "without a positive find (kIOPS)" in page
    assert "find (kIOPS) of the new entries" in page


@full_data
def test_a_list_type_without_entries_is_refused_with_a_message() -> None:
    call_command("import_io500", str(DATA), stdout=io.StringIO())
    call_command("build_lists", stdout=io.StringIO())
    response = Client().get(reverse("rankings:trends"), {"list": "production", "phase": "nope"})
    assert response.status_code == 200
    html = response.content.decode()
    assert "unknown metric &#x27;nope&#x27;" in html
    assert "no entries in &#x27;production&#x27;" in html
    data = _chart_data(html)
    assert any(v is not None for v in data["best"]["panels"][0]["values"])


def test_no_lists_at_all_renders_a_plain_message() -> None:
    response = Client().get(reverse("rankings:trends"))
    assert response.status_code == 200
    assert "No list has entries yet" in response.content.decode()


def test_release_sequence_adds_calendar_releases_without_rows() -> None:
    from datetime import date

    from submissions.models import Release

    Release.objects.create(
        acronym="SC21",
        release_date=date(2021, 11, 16),
        submission_deadline=date(2021, 11, 1),
    )
    sequence = release_sequence(date(2021, 11, 16), date(2023, 5, 23))
    assert sequence == ["SC21", "ISC22", "SC22", "ISC23"]
