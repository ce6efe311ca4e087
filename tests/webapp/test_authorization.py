"""Authorization matrix: every role against every endpoint (LEADERBOARD-RULES §7).

Anonymous users see only accepted submissions of released lists; submitters also their own;
reviewers everything plus the queue; only admins manage releases. Invisible submissions are
404 (their existence is not confirmed), forbidden actions on visible ones 403.
"""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import ApiToken
from submissions.models import Release, Status, Submission

pytestmark = pytest.mark.django_db
ROLES = ("anonymous", "submitter", "other", "reviewer", "admin")


@pytest.fixture
def world(cast: Any, open_release: Any, media_root: Path) -> dict[str, Any]:
    past = Release.objects.create(
        acronym="OLD19", release_date=date(2019, 11, 19), submission_deadline=date(2019, 11, 10)
    )
    archive = media_root / "archives" / "fixture.tar.gz"
    archive.parent.mkdir(parents=True, exist_ok=True)
    archive.write_bytes(b"\x1f\x8b fixture bytes")

    def make(status: str, release: Any, owner: Any) -> Submission:
        return Submission.objects.create(
            release=release,
            owner=owner,
            site=cast.site,
            status=status,
            archive="archives/fixture.tar.gz",
            archive_name="fixture.tar.gz",
        )

    return {
        "cast": cast,
        "own_draft": make(Status.DRAFT, open_release, cast.submitter),
        "own_review": make(Status.UNDER_REVIEW, open_release, cast.submitter),
        "embargoed": make(Status.ACCEPTED, open_release, cast.other_submitter),
        "public": make(Status.ACCEPTED, past, cast.other_submitter),
        "rejected": make(Status.REJECTED, past, cast.other_submitter),
    }


def _user(cast: Any, role: str) -> Any:
    return {
        "anonymous": None,
        "submitter": cast.submitter,
        "other": cast.other_submitter,
        "reviewer": cast.reviewer,
        "admin": cast.admin,
    }[role]


def api(cast: Any, role: str) -> APIClient:
    client = APIClient()
    user = _user(cast, role)
    if user is not None:
        site = cast.site if role != "other" else cast.other_site
        if role in ("reviewer", "admin"):
            site.members.add(user)
        scope = role if role in ("reviewer", "admin") else "submitter"
        _token, raw = ApiToken.issue(user, site, role=scope)
        client.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    return client


def web(cast: Any, role: str) -> Client:
    client = Client()
    user = _user(cast, role)
    if user is not None:
        client.force_login(user)
    return client


# Who may see each submission (detail, status, page, raw archive).
VISIBLE = {
    "own_draft": {"submitter", "reviewer", "admin"},
    "own_review": {"submitter", "reviewer", "admin"},
    "embargoed": {"other", "reviewer", "admin"},
    "public": set(ROLES),
    "rejected": {"other", "reviewer", "admin"},
}


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("which", sorted(VISIBLE))
def test_submission_visibility(world: dict[str, Any], role: str, which: str) -> None:
    pk = world[which].pk
    expected = 200 if role in VISIBLE[which] else 404
    client = api(world["cast"], role)
    assert client.get(f"/api/v1/submissions/{pk}/").status_code == expected
    assert client.get(f"/api/v1/submissions/{pk}/status/").status_code == expected
    browser = web(world["cast"], role)
    assert browser.get(f"/submissions/{pk}/").status_code == expected
    assert browser.get(f"/submissions/{pk}/archive/").status_code == expected


@pytest.mark.parametrize("role", ROLES)
def test_submission_list_shows_only_visible(world: dict[str, Any], role: str) -> None:
    listed = {row["id"] for row in api(world["cast"], role).get("/api/v1/submissions/").json()}
    expected = {world[k].pk for k, who in VISIBLE.items() if role in who}
    assert listed == expected


@pytest.mark.parametrize(
    ("role", "expected"),
    [
        ("anonymous", 401),
        ("submitter", 200),
        ("reviewer", 200),
        ("admin", 200),
    ],
)
def test_review_queue_api(world: dict[str, Any], role: str, expected: int) -> None:
    response = api(world["cast"], role).get("/api/v1/review/queue/")
    assert response.status_code == (403 if role == "submitter" else expected)
    if response.status_code == 200:
        assert [row["id"] for row in response.json()] == [world["own_review"].pk]


@pytest.mark.parametrize(
    ("role", "expected"),
    [
        ("anonymous", 302),
        ("submitter", 403),
        ("reviewer", 200),
        ("admin", 200),
    ],
)
def test_review_queue_page(world: dict[str, Any], role: str, expected: int) -> None:
    assert web(world["cast"], role).get("/review/").status_code == expected


@pytest.mark.parametrize(
    ("role", "expected"),
    [
        ("anonymous", 401),
        ("submitter", 403),
        ("other", 403),
        ("reviewer", 200),
        ("admin", 200),
    ],
)
def test_review_decision_api(world: dict[str, Any], role: str, expected: int) -> None:
    pk = world["own_review"].pk
    response = api(world["cast"], role).post(
        f"/api/v1/submissions/{pk}/review/",
        {"action": "request_changes", "comment": "please add the job script"},
        format="json",
    )
    assert response.status_code == expected, response.content
    world["own_review"].refresh_from_db()
    assert (world["own_review"].status == Status.CHANGES_REQUESTED) == (expected == 200)


@pytest.mark.parametrize(
    ("role", "expected"),
    [
        ("anonymous", 302),
        ("submitter", 403),
        ("reviewer", 302),
        ("admin", 302),
    ],
)
def test_review_decision_page(world: dict[str, Any], role: str, expected: int) -> None:
    pk = world["own_review"].pk
    response = web(world["cast"], role).post(
        f"/submissions/{pk}/review/", {"action": "reject", "comment": "duplicate run"}
    )
    assert response.status_code == expected
    world["own_review"].refresh_from_db()
    decided = role in ("reviewer", "admin")
    assert world["own_review"].status == (Status.REJECTED if decided else Status.UNDER_REVIEW)


@pytest.mark.parametrize(
    ("role", "expected"),
    [
        ("anonymous", 404),
        ("submitter", 200),
        ("other", 404),
        ("reviewer", 403),
        ("admin", 403),
    ],
)
def test_withdraw_only_by_owner(world: dict[str, Any], role: str, expected: int) -> None:
    pk = world["own_draft"].pk
    response = api(world["cast"], role).post(f"/api/v1/submissions/{pk}/withdraw/")
    assert response.status_code == expected
    world["own_draft"].refresh_from_db()
    assert (world["own_draft"].status == Status.WITHDRAWN) == (expected == 200)


@pytest.mark.parametrize(
    ("role", "which", "expected"),
    [
        ("anonymous", "own_draft", 302),
        ("submitter", "own_draft", 200),
        ("submitter", "own_review", 403),
        ("other", "own_draft", 404),
        ("reviewer", "own_draft", 403),
    ],
)
def test_edit_page(world: dict[str, Any], role: str, which: str, expected: int) -> None:
    assert (
        web(world["cast"], role).get(f"/submissions/{world[which].pk}/edit/").status_code
        == expected
    )


@pytest.mark.parametrize(
    ("role", "expected"),
    [
        ("anonymous", 302),
        ("submitter", 200),
        ("reviewer", 200),
        ("admin", 200),
    ],
)
def test_upload_page(world: dict[str, Any], role: str, expected: int) -> None:
    assert web(world["cast"], role).get("/submissions/new/").status_code == expected


def test_user_without_role_cannot_upload(world: dict[str, Any]) -> None:
    nobody = User.objects.create_user("nobody", password="x" * 12)
    world["cast"].site.members.add(nobody)
    _token, raw = ApiToken.issue(nobody, world["cast"].site)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    response = client.post("/api/v1/submissions/", {}, format="multipart")
    assert response.status_code == 403
    assert response.json()["error"]["message"] == "only submitters may upload"
    browser = Client()
    browser.force_login(nobody)
    assert browser.get("/submissions/new/").status_code == 403


@pytest.mark.parametrize(
    ("role", "expected"),
    [
        ("anonymous", 401),
        ("submitter", 403),
        ("reviewer", 403),
        ("admin", 201),
    ],
)
def test_only_admins_manage_releases(world: dict[str, Any], role: str, expected: int) -> None:
    client = api(world["cast"], role)
    today = date.today()
    response = client.post(
        "/api/v1/releases/",
        {
            "acronym": "NEW30",
            "release_date": str(today + timedelta(days=90)),
            "submission_deadline": str(today + timedelta(days=80)),
            "accepted_versions": ["io500-new30"],
        },
        format="json",
    )
    assert response.status_code == expected, response.content
    assert Release.objects.filter(acronym="NEW30").exists() == (expected == 201)
    release = Release.objects.get(acronym="OLD19")
    patched = client.patch(f"/api/v1/releases/{release.pk}/", {"name": "renamed"}, format="json")
    assert patched.status_code == (200 if expected == 201 else expected)
    assert client.get("/api/v1/releases/").status_code == 200  # reading is public


def test_revoked_token_is_refused(world: dict[str, Any]) -> None:
    token, raw = ApiToken.issue(world["cast"].submitter, world["cast"].site)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    assert client.get("/api/v1/submissions/").status_code == 200
    token.revoke()
    response = client.get("/api/v1/submissions/")
    assert response.status_code == 401
    assert response.json()["error"]["message"].startswith("Invalid, expired or revoked")


def test_token_is_stored_hashed_and_scoped_to_its_site(world: dict[str, Any]) -> None:
    cast = world["cast"]
    token, raw = ApiToken.issue(cast.submitter, cast.site)
    assert raw not in (token.digest, token.prefix) and len(token.digest) == 64
    assert not ApiToken.objects.filter(digest=raw).exists()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = client.post(
        "/api/v1/submissions/",
        {
            "archive": SimpleUploadedFile("x.tgz", b"data"),
            "site": cast.other_site.pk,
        },
        format="multipart",
    )
    assert response.status_code == 403
    assert response.json()["error"]["fields"] == {
        "site": ["this API token is scoped to another site"]
    }
