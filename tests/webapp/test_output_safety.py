"""What the service sends a visitor cannot be turned against them: only http(s) URLs become
links, every page carries a strict Content-Security-Policy (and the templates have no inline
script it would have to allow), exported cells are never spreadsheet formulas, and a
non-finite number never reaches a chart, an export or the API (all stay valid JSON)."""

from __future__ import annotations

import csv
import html
import io
import json
import math
import re
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from submissions.models import SystemDescription

from .test_rankings import World, build

pytestmark = pytest.mark.django_db
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def world() -> World:
    return World()


@pytest.fixture
def sc19(world: World) -> Any:
    return world.release("SC19", date(2019, 11, 19))


def _chart_data(page: bytes) -> Any:
    found = re.search(rb'<script id="chart-data" type="application/json">(.*?)</script>', page)
    assert found, "no chart data on the page"
    return json.loads(found.group(1), parse_constant=_refuse)  # as strict as JSON.parse


def _refuse(name: str) -> None:
    raise AssertionError(f"{name} in JSON")


# --- links ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(document.cookie)",
        "JaVaScRiPt:alert(1)",
        " javascript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "vbscript:msgbox(1)",
        "//evil.example.org/",
    ],
)
def test_only_http_urls_become_links(world: World, sc19: Any, client: Client, url: str) -> None:
    sub = world.submission(sc19, 4.0)
    SystemDescription.objects.filter(submission=sub).update(data_center_url=url, raw_files_url=url)
    page = client.get(f"/results/{sub.pk}/").content.decode()
    assert "Data-center page" in page
    links = [html.unescape(href).strip() for href in re.findall(r'href="([^"]*)"', page)]
    assert url.strip() not in links
    assert html.escape(url.strip()) in page  # still shown, as text


def test_http_urls_stay_links(world: World, sc19: Any, client: Client) -> None:
    sub = world.submission(sc19, 4.0)
    SystemDescription.objects.filter(submission=sub).update(
        data_center_url="https://dc.example.org/a?b=1&c=2"
    )
    page = client.get(f"/results/{sub.pk}/").content.decode()
    assert 'href="https://dc.example.org/a?b=1&amp;c=2"' in page


def test_result_page_of_a_submission_without_any_metadata(
    world: World, sc19: Any, client: Client
) -> None:
    # An API upload has no client system and may have no description or questionnaire.
    sub = world.submission(sc19, 4.0)
    SystemDescription.objects.filter(submission=sub).delete()
    assert sub.client_system_id is None
    response = client.get(f"/results/{sub.pk}/")
    assert response.status_code == 200
    assert "Unnamed system" in response.content.decode()


# --- headers and templates ------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/", "/lists/", "/accounts/login/", "/api/v1/lists/"])
def test_security_headers_on_every_page(client: Client, path: str) -> None:
    response = client.get(path)
    policy = response["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["script-src"] == "'self'"  # no inline script, no eval, no CDN
    assert directives["object-src"] == "'none'"
    assert directives["frame-ancestors"] == "'none'"
    assert directives["base-uri"] == "'none'"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["X-Frame-Options"] == "DENY"
    assert response["Referrer-Policy"] == "same-origin"


def test_templates_have_no_inline_script() -> None:
    templates = [*REPO.glob("webapp/**/templates/**/*.html")]
    assert templates
    inline = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>", re.IGNORECASE)
    handlers = re.compile(r"\son[a-z]+\s*=", re.IGNORECASE)
    for template in templates:
        text = template.read_text(encoding="utf-8")
        assert not inline.search(text), f"inline script in {template}"
        assert not handlers.search(text), f"inline event handler in {template}"
        assert "javascript:" not in text.lower(), template


# --- exports and charts ---------------------------------------------------------------------

FORMULAS = ['=HYPERLINK("http://evil","x")', "+1+1", "-2+3", "@SUM(A1)", "\tTAB", "\rCR"]


@pytest.mark.parametrize("text", FORMULAS)
def test_csv_cells_are_never_formulas(world: World, sc19: Any, client: Client, text: str) -> None:
    world.submission(sc19, 4.0, system=text)
    build()
    response = client.get("/lists/SC19/full.csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert rows[0]["system"] == "'" + text
    assert rows[0]["score"] == "4.0"  # numbers stay numbers


def test_non_finite_numbers_never_leave_the_service(
    world: World, sc19: Any, client: Client, cast: Any
) -> None:
    from submissions.models import PhaseResult

    good = world.submission(sc19, 4.0)
    bad = world.submission(sc19, 3.0)
    build()
    PhaseResult.objects.filter(submission=bad, name="ior-easy-write").update(value=math.inf)
    PhaseResult.objects.filter(submission=bad, name="ior-hard-write").update(value=math.nan)
    from rankings.models import ListEntry

    ListEntry.objects.filter(submission=bad).update(score=math.inf, bw=math.nan)

    exported = client.get("/lists/SC19/full.json")
    assert exported.status_code == 200
    records = json.loads(exported.content, parse_constant=_refuse)["entries"]
    worst = next(r for r in records if r["submission_id"] == bad.pk)
    assert worst["score"] is None and worst["bw"] is None
    table = client.get("/lists/SC19/full.csv").content.decode()
    assert "inf" not in table.lower() and "nan" not in table.lower()

    api = client.get("/api/v1/lists/SC19/full/entries/")
    assert api.status_code == 200
    json.loads(api.content, parse_constant=_refuse)
    phases = client.get(f"/api/v1/results/{bad.pk}/phases/")
    assert phases.status_code == 200
    values = {p["name"]: p["value"] for p in json.loads(phases.content, parse_constant=_refuse)}
    assert values["ior-easy-write"] is None and values["ior-hard-write"] is None

    for path in (f"/results/{bad.pk}/", f"/compare/?ids={good.pk},{bad.pk}", "/trends/"):
        response = client.get(path)
        assert response.status_code == 200, path
        _chart_data(response.content)
