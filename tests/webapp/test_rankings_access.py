"""No unreleased or unaccepted data leaks through the public pages, downloads or the API
(LEADERBOARD-RULES §7); the committee sees draft lists; exports never carry the contact."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
from django.urls import include, path, reverse

from ioscore_site import urls as site_urls

from .test_rankings import World, build

_mounted = any(getattr(p, "namespace", None) == "rankings" for p in site_urls.urlpatterns)
urlpatterns = (
    list(site_urls.urlpatterns)
    if _mounted
    else [path("", include("rankings.urls")), *site_urls.urlpatterns]
)
pytestmark = [pytest.mark.urls(__name__), pytest.mark.django_db]

SECRET_SYSTEM = "Embargoed Machine 9000"
PENDING_SYSTEM = "Pending Review Box"


@pytest.fixture
def scene(cast: Any) -> dict[str, Any]:
    world = World()
    past = world.release("SC19", date(2019, 11, 19))
    future = world.release("ISC99", date.today() + timedelta(days=120))
    public = world.submission(past, 5.0, system="Public Cluster", owner=cast.submitter)
    pending = world.submission(past, 50.0, system=PENDING_SYSTEM, status="under_review")
    embargoed = world.submission(future, 500.0, system=SECRET_SYSTEM)
    build()
    return {"public": public, "pending": pending, "embargoed": embargoed, "cast": cast}


def _all_public_outputs(client: Any) -> str:
    urls = [
        reverse("rankings:home"),
        reverse("rankings:list-index"),
        reverse("rankings:trends"),
        reverse("rankings:api-lists"),
        reverse("rankings:api-results"),
    ]
    for slug in ("historical", "full", "io500"):
        urls += [
            reverse("rankings:ranked-list", args=["SC19", slug]),
            reverse("rankings:list-csv", args=["SC19", slug]),
            reverse("rankings:list-json", args=["SC19", slug]),
            reverse("rankings:api-list-entries", args=["SC19", slug]),
        ]
    chunks = []
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        chunks.append(response.content.decode())
    return "\n".join(chunks)


def test_anonymous_sees_no_embargoed_or_unaccepted_data(client: Any, scene: dict[str, Any]) -> None:
    text = _all_public_outputs(client)
    assert "Public Cluster" in text
    assert SECRET_SYSTEM not in text and PENDING_SYSTEM not in text
    assert "ISC99" not in text
    for key in ("embargoed", "pending"):
        pk = scene[key].pk
        for name in ("rankings:result", "rankings:api-result", "rankings:api-result-phases"):
            assert client.get(reverse(name, args=[pk])).status_code == 404, (key, name)
        compare = client.get(reverse("rankings:compare"), {"ids": f"{scene['public'].pk},{pk}"})
        assert f"not found or not public: #{pk}" in compare.content.decode()
        assert SECRET_SYSTEM not in compare.content.decode()
    for slug in ("historical", "full", "io500"):
        for name in (
            "rankings:ranked-list",
            "rankings:list-csv",
            "rankings:list-json",
            "rankings:api-list-entries",
            "rankings:api-list",
        ):
            assert client.get(reverse(name, args=["ISC99", slug])).status_code == 404
    assert client.get(reverse("rankings:changelog", args=["ISC99"])).status_code == 404


def test_submitter_contact_is_never_exported(client: Any, scene: dict[str, Any]) -> None:
    text = _all_public_outputs(client)
    owner = scene["cast"].submitter
    assert owner.email not in text and owner.username not in text


def test_withdrawn_after_publication_disappears_from_public_views(
    client: Any, scene: dict[str, Any]
) -> None:
    public = scene["public"]
    # Pages seen before (and cached for anonymous visitors) must not outlive the withdrawal.
    assert "Public Cluster" in _all_public_outputs(client)
    public.status = "withdrawn"
    public.save()
    text = _all_public_outputs(client)
    assert "Public Cluster" not in text
    assert client.get(reverse("rankings:result", args=[public.pk])).status_code == 404


def test_committee_sees_draft_lists(client: Any, scene: dict[str, Any]) -> None:
    client.force_login(scene["cast"].reviewer)
    page = client.get(reverse("rankings:ranked-list", args=["ISC99", "full"]))
    assert page.status_code == 200 and SECRET_SYSTEM in page.content.decode()
    assert "Draft" in page.content.decode()
    client.force_login(scene["cast"].other_submitter)
    assert client.get(reverse("rankings:ranked-list", args=["ISC99", "full"])).status_code == 404
