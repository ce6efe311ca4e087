"""API tokens: scoped to a site and a role, revocable, expiring; the tokens page shows when
each expires and was last used; a token stops working for a site its user left."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiToken
from submissions.models import Release, Status, Submission

pytestmark = pytest.mark.django_db


def _client(raw: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    return client


def test_token_stops_when_its_user_leaves_the_site(cast: Any) -> None:
    _token, raw = ApiToken.issue(cast.submitter, cast.site)
    assert _client(raw).get("/api/v1/submissions/").status_code == 200
    cast.site.members.remove(cast.submitter)
    response = _client(raw).post("/api/v1/submissions/", {}, format="multipart")
    assert response.status_code == 401


def test_expired_token_is_refused(cast: Any) -> None:
    token, raw = ApiToken.issue(cast.submitter, cast.site)
    token.expires_at = timezone.now() - timedelta(seconds=1)
    token.save()
    assert _client(raw).get("/api/v1/submissions/").status_code == 401
    assert not token.is_active


def test_token_acts_with_its_role_not_the_users(cast: Any, open_release: Any) -> None:
    """A reviewer's upload-only token does not read others' private runs."""
    private = Submission.objects.create(
        release=open_release, owner=cast.other_submitter, site=cast.site, status=Status.DRAFT
    )
    cast.site.members.add(cast.reviewer)
    _t, upload_only = ApiToken.issue(cast.reviewer, cast.site, role="submitter")
    _t, reviewing = ApiToken.issue(cast.reviewer, cast.site, role="reviewer")
    url = f"/api/v1/submissions/{private.pk}/"
    assert _client(upload_only).get(url).status_code == 404
    assert _client(reviewing).get(url).status_code == 200
    # nor does an admin's submitter token manage releases
    cast.site.members.add(cast.admin)
    _t, admin_upload = ApiToken.issue(cast.admin, cast.site, role="submitter")
    release = Release.objects.get(pk=open_release.pk)
    patched = _client(admin_upload).patch(
        f"/api/v1/releases/{release.pk}/", {"name": "renamed"}, format="json"
    )
    assert patched.status_code == 403


def test_a_user_cannot_issue_a_role_they_do_not_have(cast: Any) -> None:
    browser = Client()
    browser.force_login(cast.submitter)
    response = browser.post(
        "/accounts/tokens/", {"site": cast.site.pk, "name": "x", "role": "admin"}
    )
    assert response.status_code == 200
    assert not ApiToken.objects.filter(user=cast.submitter).exists()


def test_tokens_page_shows_role_expiry_and_last_use(cast: Any) -> None:
    browser = Client()
    browser.force_login(cast.submitter)
    browser.post("/accounts/tokens/", {"site": cast.site.pk, "name": "ci", "role": "submitter"})
    token = ApiToken.objects.get(user=cast.submitter)
    assert token.role == "submitter" and token.expires_at > timezone.now() + timedelta(days=30)
    used = timezone.now() - timedelta(days=3)
    ApiToken.objects.filter(pk=token.pk).update(last_used=used)
    page = browser.get("/accounts/tokens/").content.decode()
    assert f"{token.expires_at:%Y-%m-%d}" in page
    assert f"{used:%Y-%m-%d %H:%M}" in page
    assert '<th scope="col">Expires</th>' in page and '<th scope="col">Last used</th>' in page
    browser.post(f"/accounts/tokens/{token.pk}/revoke/")
    token.refresh_from_db()
    assert token.revoked_at is not None
