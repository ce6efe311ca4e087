"""Bad intake requests get one clear error envelope naming the field (never a traceback)
and leave nothing behind."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from accounts.models import ApiToken
from submissions.models import Release, Submission

from .helpers import files_under, tar_gz

pytestmark = pytest.mark.django_db
ARCHIVE = tar_gz({"run/result_summary.txt": b"IO500 version io500-sc25\n"})


@pytest.fixture
def client(cast: Any, open_release: Any, media_root: Path) -> APIClient:
    _token, raw = ApiToken.issue(cast.submitter, cast.site)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    return api


def _post(client: APIClient, **fields: Any) -> Any:
    data = {"archive": SimpleUploadedFile("run.tgz", ARCHIVE), **fields}
    return client.post("/api/v1/submissions/", data, format="multipart")


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        (
            {"system": '{"schema": "ioscore-system/1",\n "site": }'},
            "system",
            "system: invalid JSON at line 2 column 10: Expecting value",
        ),
        (
            {"questionnaire": "[1, 2]"},
            "questionnaire",
            "questionnaire: must be a JSON object, got list",
        ),
        (
            {"target_list": "fastest"},
            "target_list",
            'target_list: "fastest" is not a valid choice.',
        ),
    ],
)
def test_bad_fields_are_named(
    client: APIClient, media_root: Path, fields: dict[str, str], field: str, message: str
) -> None:
    before = files_under(media_root)
    response = _post(client, **fields)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["message"] == message
    assert field in error["fields"]
    assert Submission.objects.count() == 0
    assert files_under(media_root) == before


def test_missing_archive(client: APIClient) -> None:
    response = client.post("/api/v1/submissions/", {}, format="multipart")
    assert response.status_code == 400
    assert response.json()["error"]["message"] == "archive: No file was submitted."


def test_too_large_upload_is_refused(client: APIClient, settings: Any, media_root: Path) -> None:
    settings.IOSCORE_UPLOAD_MAX_BYTES = 64
    before = files_under(media_root)
    response = _post(client)
    assert response.status_code == 413
    assert response.json()["error"]["message"] == "archive larger than 64 bytes"
    assert files_under(media_root) == before


def test_no_open_release(client: APIClient, open_release: Any, media_root: Path) -> None:
    Release.objects.filter(pk=open_release.pk).update(
        submission_deadline=open_release.release_date.replace(year=2000)
    )
    before = files_under(media_root)
    response = _post(client)
    assert response.status_code == 400
    assert response.json()["error"]["message"] == "no release is open for submissions"
    assert files_under(media_root) == before


def test_openapi_document_describes_the_intake(client: APIClient) -> None:
    schema = client.get("/api/v1/schema/?format=json").json()
    upload = schema["paths"]["/api/v1/submissions/"]["post"]
    assert set(upload["responses"]) == {"200", "201"}
    status = schema["paths"]["/api/v1/submissions/{id}/status/"]["get"]
    assert status["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/Status"
    )
