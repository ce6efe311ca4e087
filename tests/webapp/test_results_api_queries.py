"""The public results API at scale: a page costs the same few queries whatever its
size or its submissions' phase count, never reads the per-rank JSON columns, and answers with
the records ``PublicResultSerializer`` (the OpenAPI description) makes of the same rows."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from .test_rankings import World
from .test_rankings_api import urlpatterns  # noqa: F401  (the rankings URLs, mounted)

pytestmark = [pytest.mark.urls(__name__), pytest.mark.django_db]

PER_RANK_COLUMNS = ('"ranks"', '"rank_summary"', '"timeseries"', '"extra"', '"data"', '"config"')


def _world(count: int) -> tuple[World, list[Any]]:
    world = World()
    sc19 = world.release("SC19", date(2019, 11, 19))
    levels = ["limited", ""]  # every other one without a questionnaire
    return world, [world.submission(sc19, 1.0 + n, level=levels[n % 2]) for n in range(count)]


def _get(client: Any, path: str) -> tuple[Any, list[str]]:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(path)
    assert response.status_code == 200, path
    return response.json(), [q["sql"] for q in captured.captured_queries]


def _extra_phases(submissions: list[Any], count: int) -> None:
    from submissions import public_version
    from submissions.models import PhaseResult

    PhaseResult.objects.bulk_create(
        PhaseResult(submission=s, name=f"extra-{n}", order=100 + n, value=n, unit="s")
        for s in submissions
        for n in range(count)
    )
    # Phases of public results written in bulk, as only an archive import does: it moves
    # the public-results version so cached API pages are not served.
    public_version.bump()


def test_queries_do_not_grow_with_page_size_or_phase_count(client: Any) -> None:
    _, subs = _world(12)
    _, small = _get(client, "/api/v1/results/?limit=2")
    body, large = _get(client, "/api/v1/results/?limit=12")
    assert len(body["results"]) == 12
    _extra_phases(subs, 20)
    body, many_phases = _get(client, "/api/v1/results/?limit=12")
    assert all(len(r["phases"]) > 20 for r in body["results"])
    # The public-results version (the response cache's key, then the count's), the count
    # (first request only, then cached per version: the embargoed releases, the accepted
    # runs per release), the ids, their rows, their phases. The phases' bulk write moved the
    # version, so the last request counts again, like the first.
    assert len(small) == len(many_phases) <= 7 and len(large) <= 5
    _, detail = _get(client, f"/api/v1/results/{subs[0].pk}/")
    _, phases = _get(client, f"/api/v1/results/{subs[0].pk}/phases/")
    assert len(detail) <= 3 and len(phases) <= 2


def test_list_and_detail_never_read_the_large_json_columns(client: Any) -> None:
    from submissions.models import PhaseResult

    _, subs = _world(3)
    PhaseResult.objects.filter(submission=subs[0]).update(
        ranks=[{"rank": r, "host": "n1", "bw": 1.0} for r in range(500)],
        rank_summary={"quantiles": [1, 2, 3]},
    )
    for path in (
        "/api/v1/results/",
        f"/api/v1/results/{subs[0].pk}/",
        f"/api/v1/results/{subs[0].pk}/phases/",
    ):
        _, queries = _get(client, path)
        for sql in queries:
            assert not any(column in sql for column in PER_RANK_COLUMNS), (path, sql)


def test_records_are_what_the_documented_serializer_makes(client: Any) -> None:
    from rankings.api import PublicPhaseSerializer, PublicResultSerializer
    from submissions.models import ClientSystem, PhaseResult, Submission, SystemDescription

    world, subs = _world(4)
    # The variants the record resolves: a described system, a blank one that falls back to
    # the client system, none at all; a run start; a level and none; invalid phases.
    client_system = ClientSystem.objects.create(site=world.site, name="Client Cluster")
    SystemDescription.objects.filter(submission=subs[1]).update(system="")
    Submission.objects.filter(pk=subs[1].pk).update(
        client_system=client_system, run_start=datetime(2019, 6, 1, 12, 30, 5, 120, tzinfo=UTC)
    )
    SystemDescription.objects.filter(submission=subs[2]).delete()
    PhaseResult.objects.filter(submission=subs[3], name="find").update(
        valid=False, invalid_reasons=["too short"], time=12.5
    )
    listed = client.get("/api/v1/results/").json()
    assert listed["count"] == 4
    for sub, record in zip(subs, listed["results"], strict=True):
        instance = Submission.objects.get(pk=sub.pk)
        expected = PublicResultSerializer(instance).data
        expected["phases"] = PublicPhaseSerializer(
            instance.phases.order_by("order", "name"), many=True
        ).data
        as_json = client.get(f"/api/v1/results/{sub.pk}/").json()
        assert record == as_json == _json(expected)
        assert client.get(f"/api/v1/results/{sub.pk}/phases/").json() == as_json["phases"]
    assert [r["system"] for r in listed["results"][:3]] == [
        f"System {subs[0].pk}",
        "Client Cluster",
        "",
    ]
    assert listed["results"][1]["run_start"] == "2019-06-01T12:30:05.000120Z"
    assert listed["results"][0]["reproducibility"] and not listed["results"][1]["reproducibility"]


def test_hidden_results_stay_hidden(client: Any) -> None:
    world, subs = _world(2)
    sc19 = subs[0].release
    draft = world.submission(sc19, 9.0, status="submitted")
    ids = [r["id"] for r in client.get("/api/v1/results/").json()["results"]]
    assert ids == sorted(s.pk for s in subs)
    assert client.get(f"/api/v1/results/{draft.pk}/").status_code == 404
    assert client.get(f"/api/v1/results/{draft.pk}/phases/").status_code == 404


def _json(data: Any) -> Any:
    import json

    from rest_framework.renderers import JSONRenderer

    return json.loads(JSONRenderer().render(data))


def test_the_count_is_exact_and_counted_once(client: Any) -> None:
    world, subs = _world(3)
    world.submission(subs[0].release, 9.0, status="under_review")
    body, first = _get(client, "/api/v1/results/?limit=1")
    assert body["count"] == 3 and len(body["results"]) == 1
    body, second = _get(client, "/api/v1/results/?limit=1&offset=2")
    assert body["count"] == 3 and body["results"][0]["id"] == subs[2].pk
    assert sum("COUNT(" in sql for sql in first) == 1
    assert sum("COUNT(" in sql for sql in second) == 0


def test_after_pages_by_id_and_refuses_what_is_not_an_id(client: Any) -> None:
    _, subs = _world(5)
    body, _ = _get(client, f"/api/v1/results/?after={subs[1].pk}&limit=2")
    assert [r["id"] for r in body["results"]] == [subs[2].pk, subs[3].pk]
    assert body["count"] == 3
    body, _ = _get(client, f"/api/v1/results/?after={subs[3].pk}&limit=2")
    assert [r["id"] for r in body["results"]] == [subs[4].pk] and body["next"] is None
    for bad in ("-1", "x", "9" * 30):
        response = client.get("/api/v1/results/", {"after": bad})
        assert response.status_code == 400 and "after" in response.json()["error"]["fields"], bad
    schema = client.get("/api/v1/schema/", {"format": "json"}).json()
    params = {p["name"] for p in schema["paths"]["/api/v1/results/"]["get"]["parameters"]}
    assert {"after", "limit", "offset"} <= params
