"""Rate limits on logins (failed attempts, per user name and per address) and uploads (per
account and per address), answered 429 with Retry-After; and a reviewer may not decide on
their own upload."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import ApiToken
from ioscore_site import ratelimit
from submissions.models import Status, Submission

from .helpers import tar_gz

pytestmark = pytest.mark.django_db


def _login(username: str, password: str, address: str = "10.0.0.1") -> Any:
    return Client(REMOTE_ADDR=address).post(
        "/accounts/login/", {"username": username, "password": password}
    )


def test_failed_logins_per_account_are_limited(cast: Any, settings: Any) -> None:
    settings.IOSCORE_RATE_LIMITS = {"login-account": "3/300"}
    for _ in range(3):
        assert _login("submitter", "wrong").status_code == 200  # the form, with its error
    refused = _login("submitter", cast.password, address="10.0.0.2")  # even the right one
    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= 301
    assert b"too many failed logins; try again in" in refused.content
    # Another account is not affected.
    assert _login("reviewer", cast.password).status_code == 302


def test_failed_logins_per_address_are_limited(cast: Any, settings: Any) -> None:
    settings.IOSCORE_RATE_LIMITS = {"login-address": "4/300"}
    for name in ("a", "b", "c", "d"):
        assert _login(name, "wrong", address="10.9.9.9").status_code == 200
    assert _login("submitter", cast.password, address="10.9.9.9").status_code == 429
    assert _login("submitter", cast.password, address="10.9.9.8").status_code == 302


def test_the_admin_login_is_the_same_limited_page(cast: Any, settings: Any) -> None:
    settings.IOSCORE_RATE_LIMITS = {"login-account": "2/300"}
    browser = Client(REMOTE_ADDR="10.0.0.3")
    for _ in range(2):
        browser.post("/admin/login/", {"username": "admin", "password": "wrong"})
    refused = browser.post("/admin/login/", {"username": "admin", "password": cast.password})
    assert refused.status_code == 429
    # The admin still sends its users here and gets them back.
    elsewhere = Client(REMOTE_ADDR="10.0.0.4")
    assert elsewhere.get("/admin/")["Location"] == "/admin/login/?next=/admin/"
    done = elsewhere.post(
        "/admin/login/?next=/admin/", {"username": "reviewer", "password": cast.password}
    )
    assert done.status_code == 302 and done["Location"] == "/admin/"


def test_successful_logins_do_not_count(cast: Any, settings: Any) -> None:
    settings.IOSCORE_RATE_LIMITS = {"login-account": "2/300"}
    for _ in range(5):
        assert _login("submitter", cast.password).status_code == 302


def _upload(client: Any, n: int, address: str = "10.0.0.1") -> Any:
    archive = tar_gz({"run/result_summary.txt": f"IO500 version io500-sc25\n{n}\n".encode()})
    return client.post(
        "/api/v1/submissions/",
        {"archive": SimpleUploadedFile("run.tgz", archive)},
        format="multipart",
        REMOTE_ADDR=address,
    )


def test_uploads_per_account_are_limited(
    cast: Any, open_release: Any, media_root: Path, settings: Any
) -> None:
    settings.IOSCORE_RATE_LIMITS = {"upload-account": "2/3600"}
    _token, raw = ApiToken.issue(cast.submitter, cast.site)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    assert _upload(client, 1).status_code == 201
    assert _upload(client, 2, address="10.0.0.7").status_code == 201
    refused = _upload(client, 3, address="10.0.0.8")
    assert refused.status_code == 429
    assert refused.json()["error"]["message"].startswith("too many uploads; try again in")
    assert int(refused["Retry-After"]) > 0
    assert Submission.objects.count() == 2

    other = APIClient()
    _token, raw = ApiToken.issue(cast.other_submitter, cast.other_site)
    other.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    assert _upload(other, 4).status_code == 201


def test_uploads_per_address_are_limited(
    cast: Any, open_release: Any, media_root: Path, settings: Any
) -> None:
    settings.IOSCORE_RATE_LIMITS = {"upload-address": "1/3600"}
    clients = []
    for user, site in ((cast.submitter, cast.site), (cast.other_submitter, cast.other_site)):
        _token, raw = ApiToken.issue(user, site)
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
        clients.append(client)
    assert _upload(clients[0], 1, address="10.1.1.1").status_code == 201
    assert _upload(clients[1], 2, address="10.1.1.1").status_code == 429
    assert _upload(clients[1], 3, address="10.1.1.2").status_code == 201


@pytest.mark.parametrize(
    ("proxies", "forwarded", "expected"),
    [
        (0, "1.1.1.1", "10.0.0.9"),  # no proxy trusted: the header is the client's word
        (1, "6.6.6.6, 2.2.2.2", "2.2.2.2"),  # what our proxy saw, not what the client wrote
        (2, "6.6.6.6, 3.3.3.3, 4.4.4.4", "3.3.3.3"),
        (1, "", "10.0.0.9"),
    ],
)
def test_client_address_trusts_only_configured_proxies(
    settings: Any, rf: Any, proxies: int, forwarded: str, expected: str
) -> None:
    settings.IOSCORE_TRUSTED_PROXIES = proxies
    request = rf.get("/", REMOTE_ADDR="10.0.0.9", HTTP_X_FORWARDED_FOR=forwarded)
    assert ratelimit.client_address(request) == expected


def test_limits_from_the_environment_are_checked() -> None:
    assert ratelimit.parse_limits("login-account=5/60, upload-address=100/3600") == {
        "login-account": "5/60",
        "upload-address": "100/3600",
    }
    with pytest.raises(ValueError, match="bad item 'login=5'"):
        ratelimit.parse_limits("login=5")


def test_a_reviewer_may_not_decide_on_their_own_upload(cast: Any, open_release: Any) -> None:
    own = Submission.objects.create(
        release=open_release, owner=cast.reviewer, site=cast.site, status=Status.UNDER_REVIEW
    )
    api = APIClient()
    api.force_authenticate(cast.reviewer)
    response = api.post(
        f"/api/v1/submissions/{own.pk}/review/", {"action": "accept", "comment": "mine"}
    )
    assert response.status_code == 403
    assert response.json()["error"]["message"] == (
        "a reviewer may not decide on their own submission"
    )
    browser = Client()
    browser.force_login(cast.reviewer)
    browser.post(f"/submissions/{own.pk}/review/", {"action": "accept", "comment": "mine"})
    own.refresh_from_db()
    assert own.status == Status.UNDER_REVIEW

    other = Submission.objects.create(
        release=open_release, owner=cast.submitter, site=cast.site, status=Status.UNDER_REVIEW
    )
    response = api.post(
        f"/api/v1/submissions/{other.pk}/review/", {"action": "accept", "comment": "fine"}
    )
    assert response.status_code == 200
    assert response.json()["status"] == Status.ACCEPTED
