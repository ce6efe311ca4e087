"""The read API: the OpenAPI document the app serves validates and describes the public
endpoints; entries, results and phases answer with the numbers the pages show."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from django.urls import include, path, reverse
from openapi_spec_validator import validate

from ioscore_site import urls as site_urls

from .test_rankings import World, build

_mounted = any(getattr(p, "namespace", None) == "rankings" for p in site_urls.urlpatterns)
urlpatterns = (
    list(site_urls.urlpatterns)
    if _mounted
    else [path("", include("rankings.urls")), *site_urls.urlpatterns]
)
pytestmark = [pytest.mark.urls(__name__), pytest.mark.django_db]


def test_openapi_document_validates_and_lists_the_read_api(client: Any) -> None:
    response = client.get(reverse("openapi-schema"), {"format": "json"})
    assert response.status_code == 200
    document = response.json()
    validate(document)  # raises on an invalid OpenAPI document
    paths = document["paths"]
    for expected in (
        "/api/v1/lists/",
        "/api/v1/lists/{release}/{list_type}/",
        "/api/v1/lists/{release}/{list_type}/entries/",
        "/api/v1/results/",
        "/api/v1/results/{id}/",
        "/api/v1/results/{id}/phases/",
    ):
        assert expected in paths, expected
        assert set(paths[expected]) == {"get"}, "the rankings API is read-only"
    entry_params = {
        p["name"]
        for p in paths["/api/v1/lists/{release}/{list_type}/entries/"]["get"]["parameters"]
    }
    assert {"sort", "fs", "vendor", "year", "nodes_min", "level", "q", "limit"} <= entry_params
    schemas = document["components"]["schemas"]
    assert "PublicEntry" in schemas and "phases" in schemas["PublicEntry"]["properties"]


def test_results_and_phases_match_the_entry(client: Any) -> None:
    world = World()
    sc19 = world.release("SC19", date(2019, 11, 19))
    sub = world.submission(sc19, 4.0, bw=2.0, md=8.0)
    build()
    entries = client.get(reverse("rankings:api-list-entries", args=["SC19", "full"])).json()
    assert entries["count"] == 1
    entry = entries["results"][0]
    result = client.get(reverse("rankings:api-result", args=[sub.pk])).json()
    phases = client.get(reverse("rankings:api-result-phases", args=[sub.pk])).json()
    assert result["score_total"] == entry["score"] == 4.0
    assert {p["name"]: p["value"] for p in phases} == entry["phases"]
    assert result["phases"] == phases
    lists = client.get(reverse("rankings:api-lists")).json()["results"]
    assert {(r["release"], r["list_type"]) for r in lists} >= {
        ("SC19", "full"),
        ("SC19", "historical"),
    }
    detail = client.get(reverse("rankings:api-list", args=["SC19", "full"])).json()
    assert detail["entries_url"].endswith("/api/v1/lists/SC19/full/entries/")
    assert client.post(reverse("rankings:api-lists"), {}).status_code in (403, 405)
