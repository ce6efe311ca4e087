"""Acceptance runs are private per-site history: the site's members and admins see them;
anonymous visitors, other sites' members and the committee get 404 (not 403: existence is not
confirmed); nothing appears in public lists or APIs. The API is documented in the schema."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from acceptance.models import AcceptanceRun
from accounts.models import ApiToken

from .acceptance_helpers import acceptance_results, pack

pytestmark = [pytest.mark.mpi, pytest.mark.django_db]


@pytest.fixture(scope="module")
def archive() -> Iterator[bytes]:
    with acceptance_results("ioscore-webapp-acceptance-access-") as results:
        yield pack(results)


@pytest.fixture
def run(cast: Any, media_root: Path, archive: bytes) -> AcceptanceRun:
    _token, raw = ApiToken.issue(cast.submitter, cast.site)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    response = api.post(
        "/api/v1/acceptance/runs/",
        {"archive": SimpleUploadedFile("r.tgz", archive), "label": "secret-label-42"},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    return AcceptanceRun.objects.get(pk=response.json()["id"])


def urls(run: AcceptanceRun) -> list[str]:
    return [
        f"/acceptance/runs/{run.pk}/",
        f"/acceptance/runs/{run.pk}/report/",
        f"/acceptance/runs/{run.pk}/report/?download=1",
        f"/acceptance/runs/{run.pk}/report/content/",
        f"/acceptance/runs/{run.pk}/archive/",
        f"/acceptance/sites/{run.site_id}/",
        f"/api/v1/acceptance/runs/{run.pk}/",
        f"/api/v1/acceptance/sites/{run.site_id}/history/",
    ]


def as_user(user: Any) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@pytest.mark.parametrize("who", ["anonymous", "other", "reviewer"])
def test_everyone_else_gets_404_and_an_empty_list(run: AcceptanceRun, cast: Any, who: str) -> None:
    user = (
        None if who == "anonymous" else getattr(cast, "other_submitter" if who == "other" else who)
    )
    client = as_user(user)
    for url in urls(run):
        response = client.get(url)
        assert response.status_code == 404, url
        assert b"secret-label-42" not in b"".join(
            getattr(response, "streaming_content", [response.content])
        )
    listed = client.get("/api/v1/acceptance/runs/")
    assert listed.status_code == 200 and listed.json()["count"] == 0
    index = client.get("/acceptance/")
    assert index.status_code == 404 if user is None else b"Test University" not in index.content


def test_anonymous_sees_the_private_page_not_a_confirmation(run: AcceptanceRun) -> None:
    existing = Client().get(f"/acceptance/runs/{run.pk}/")
    missing = Client().get(f"/acceptance/runs/{run.pk + 1000}/")
    assert existing.status_code == missing.status_code == 404
    # The same page for both (but for the login link's next=): nothing is confirmed.
    shown = existing.content.replace(f"runs%2F{run.pk}%2F".encode(), b"runs%2FN%2F")
    assert shown == missing.content.replace(f"runs%2F{run.pk + 1000}%2F".encode(), b"runs%2FN%2F")
    assert b"log in" in existing.content and b"secret-label-42" not in existing.content


def test_members_and_admins_see_it(run: AcceptanceRun, cast: Any) -> None:
    for user in (cast.submitter, cast.admin):
        client = as_user(user)
        for url in urls(run):
            assert client.get(url).status_code == 200, (user, url)
        assert client.get("/api/v1/acceptance/runs/").json()["count"] == 1
    page = as_user(cast.submitter).get("/acceptance/").content.decode()
    assert f"/acceptance/sites/{cast.site.pk}/" in page


def test_never_on_public_pages_or_the_submission_api(run: AcceptanceRun) -> None:
    for url in ("/", "/api/v1/submissions/", "/api/v1/lists/"):
        response = Client().get(url)
        assert response.status_code in (200, 404), url
        assert b"secret-label-42" not in response.content


def test_other_sites_cannot_upload_into_this_site(
    cast: Any, media_root: Path, archive: bytes
) -> None:
    _token, raw = ApiToken.issue(cast.other_submitter, cast.other_site)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    refused = api.post(
        "/api/v1/acceptance/runs/",
        {"archive": SimpleUploadedFile("r.tgz", archive), "site": cast.site.pk},
        format="multipart",
    )
    assert refused.status_code == 403
    session = APIClient()
    session.force_login(cast.other_submitter)
    chosen = session.post(
        "/api/v1/acceptance/runs/",
        {"archive": SimpleUploadedFile("r.tgz", archive), "site": cast.site.pk},
        format="multipart",
    )
    assert chosen.status_code == 400 and chosen.json()["error"]["fields"] == {
        "site": ["choose one of your sites (field 'site')"]
    }
    anonymous = APIClient().post(
        "/api/v1/acceptance/runs/",
        {"archive": SimpleUploadedFile("r.tgz", archive)},
        format="multipart",
    )
    assert anonymous.status_code == 401
    assert not AcceptanceRun.objects.exists()


def test_api_is_in_the_openapi_schema(db: None) -> None:
    schema = Client().get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    document = schema.json()
    paths = document["paths"]
    assert {"get", "post"} <= set(paths["/api/v1/acceptance/runs/"])
    assert {"get", "patch", "delete"} <= set(paths["/api/v1/acceptance/runs/{id}/"])
    listing = paths["/api/v1/acceptance/runs/"]["get"]
    assert {"site", "storage_system", "limit", "offset"} <= {
        p["name"] for p in listing["parameters"]
    }
    page = listing["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert "results" in document["components"]["schemas"][page.rsplit("/", 1)[1]]["properties"]
    assert "get" in paths["/api/v1/acceptance/sites/{id}/history/"]
    upload = paths["/api/v1/acceptance/runs/"]["post"]["requestBody"]["content"]
    fields = upload["multipart/form-data"]["schema"]["$ref"].rsplit("/", 1)[1]
    assert {"archive", "results", "report", "storage_system"} <= set(
        document["components"]["schemas"][fields]["properties"]
    )


def test_who_may_change_or_delete(run: AcceptanceRun, cast: Any) -> None:
    from django.contrib.auth.models import Group, User

    url = f"/api/v1/acceptance/runs/{run.pk}/"
    for outsider in (cast.other_submitter, cast.reviewer):
        api = APIClient()
        api.force_authenticate(outsider)
        assert api.patch(url, {"label": "x"}, format="json").status_code == 404
        assert api.delete(url).status_code == 404
        assert as_user(outsider).post(f"/acceptance/runs/{run.pk}/delete/").status_code == 404
    assert APIClient().delete(url).status_code == 404
    colleague = User.objects.create_user("colleague", "c@example.org", cast.password)
    colleague.groups.add(Group.objects.get(name="submitter"))
    cast.site.members.add(colleague)
    api = APIClient()
    api.force_authenticate(colleague)
    assert api.patch(url, {"label": "colleague's label"}, format="json").status_code == 200
    assert api.delete(url).status_code == 403  # not the uploader
    admin = APIClient()
    admin.force_authenticate(cast.admin)
    assert admin.delete(url).status_code == 204
