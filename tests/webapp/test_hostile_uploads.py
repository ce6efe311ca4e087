"""Hostile uploads answer a 4xx with a clear message, and leave nothing in media/ behind:
malformed archives, malformed metadata documents, oversized or lying request bodies, and
identical bytes from another account. Each hostile input is built here, small."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from accounts.models import ApiToken
from submissions.models import Submission
from submissions.upload_limit import LimitedUploadHandler

from .helpers import files_under, tar_gz

pytestmark = pytest.mark.django_db
GOOD = {"run/result_summary.txt": b"IO500 version io500-sc25\n"}
URL = "/api/v1/submissions/"


def _client(user: Any, site: Any) -> APIClient:
    _token, raw = ApiToken.issue(user, site)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    return client


@pytest.fixture
def client(cast: Any, open_release: Any, media_root: Path) -> APIClient:
    return _client(cast.submitter, cast.site)


def _post(client: APIClient, archive: bytes, name: str = "run.tar.gz", **fields: Any) -> Any:
    data = {"archive": SimpleUploadedFile(name, archive), **fields}
    return client.post(URL, data, format="multipart")


def _refused(response: Any, status: int, expected: str, field: str) -> str:
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert expected in error["message"], error["message"]
    assert field in error["fields"]
    assert Submission.objects.count() == 0
    return str(error["message"])


# --- malformed archives ---------------------------------------------------------------------


def _directories(count: int) -> bytes:
    def add(archive: tarfile.TarFile) -> None:
        for i in range(count):
            info = tarfile.TarInfo(f"run/d{i}")
            info.type = tarfile.DIRTYPE
            archive.addfile(info)

    return tar_gz(GOOD, add)


def _zip(method: int = zipfile.ZIP_DEFLATED) -> bytearray:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        archive.writestr("run/result_summary.txt", b"IO500 version io500-sc25\n" * 200)
    return bytearray(buffer.getvalue())


def _corrupt_deflate() -> bytes:
    data = _zip()
    start = 30 + len("run/result_summary.txt")  # the first member's compressed bytes
    data[start : start + 8] = b"\xff" * 8
    return bytes(data)


def _unknown_method() -> bytes:
    data = _zip(zipfile.ZIP_STORED)
    data[8:10] = (99).to_bytes(2, "little")  # local header
    central = data.find(b"PK\x01\x02")
    data[central + 10 : central + 12] = (99).to_bytes(2, "little")
    return bytes(data)


def _non_utf8_name() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.GNU_FORMAT) as archive:
        info = tarfile.TarInfo("run/result_summary.txt")
        info.size = len(GOOD["run/result_summary.txt"])
        archive.addfile(info, io.BytesIO(GOOD["run/result_summary.txt"]))
        link = tarfile.TarInfo("run/\udcff\udcfe-link")  # bytes ff fe: not UTF-8
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc/passwd"
        archive.addfile(link)
    return buffer.getvalue()


def _cut_in_last_header() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name in ("run/result_summary.txt", "run/result.txt"):
            info = tarfile.TarInfo(name)
            info.size = 100
            archive.addfile(info, io.BytesIO(b"x" * 100))
    whole = buffer.getvalue()
    second_header = 512 + 512  # header + one padded data block of the first member
    return gzip.compress(whole[: second_header + 200])


MALFORMED = {
    "corrupt-deflate": (_corrupt_deflate, "run.zip", "archive is corrupt or truncated"),
    "unknown-zip-method": (_unknown_method, "run.zip", "unsupported zip compression method 99"),
    "non-utf8-name": (_non_utf8_name, "run.tar.gz", "run/\\udcff\\udcfe-link: member names"),
    "cut-in-last-header": (_cut_in_last_header, "run.tar.gz", "corrupt or truncated"),
    "gzip-of-garbage": (lambda: gzip.compress(b"no tar here " * 100), "run.tgz", "corrupt"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_archive_is_a_clear_400(client: APIClient, media_root: Path, case: str) -> None:
    build, name, expected = MALFORMED[case]
    before = files_under(media_root)
    _refused(_post(client, build(), name), 400, expected, "archive")
    assert files_under(media_root) == before


def test_directories_count_as_entries(client: APIClient, media_root: Path, settings: Any) -> None:
    settings.IOSCORE_ARCHIVE_MAX_FILES = 100
    before = files_under(media_root)
    message = _refused(_post(client, _directories(5000)), 400, "too many entries", "archive")
    assert "more than 100 files and directories" in message
    assert files_under(media_root) == before


def test_deep_paths_are_refused(client: APIClient) -> None:
    deep = "/".join(["d"] * 70) + "/result_summary.txt"
    _refused(_post(client, tar_gz({deep: b"x"})), 400, "nested deeper than 64 levels", "archive")


# --- malformed metadata documents -----------------------------------------------------------

DEEP = "[" * 100_000 + "]" * 100_000
METADATA = {
    "nan": ('{"schema": "ioscore-system/1", "x": NaN}', "NaN is not a JSON number"),
    "infinity": (
        '{"schema": "ioscore-system/1", "x": -Infinity}',
        "-Infinity is not a JSON number",
    ),
    "overflowing-float": ('{"x": 1e400}', "number 1e400 is beyond the double-precision range"),
    "huge-integer": ('{"x": ' + "9" * 5000 + "}", "is beyond the 64-bit range"),
    "nul": ('{"x": "a\\u0000b"}', "string at /x contains a NUL character"),
    "nul-in-key": ('{"a\\u0000": 1}', "a key in (top level) contains a NUL character"),
    "lone-surrogate": ('{"x": "\\ud800"}', "lone surrogate"),
    "deep-nesting": ('{"x": ' + DEEP + "}", "nested deeper than 32 levels"),
    "moderate-nesting": ('{"x": ' + "[" * 40 + "]" * 40 + "}", "nested deeper than 32 levels"),
    "long-schema": (json.dumps({"schema": "s" * 100_000}), "'schema' must be a string of at"),
    "schema-not-text": ('{"schema": {"a": 1}}', "'schema' must be a string"),
}


@pytest.mark.parametrize(
    ("case", "field"),
    [
        (case, field)
        for case in sorted(METADATA)
        for field in ("system", "questionnaire")
        if "schema" not in case or field == "system"  # the schema belongs to the description
    ],
)
def test_malformed_metadata_is_a_clear_400(
    client: APIClient, media_root: Path, case: str, field: str
) -> None:
    text, expected = METADATA[case]
    before = files_under(media_root)
    message = _refused(_post(client, tar_gz(GOOD), **{field: text}), 400, expected, field)
    assert message.startswith(f"{field}: ")
    assert files_under(media_root) == before


@pytest.mark.parametrize(
    "email", ["someone@example.org\r\nBcc: victim@example.org", "not an address", "a@b\n"]
)
def test_submitter_email_is_validated(client: APIClient, media_root: Path, email: str) -> None:
    system = {"schema": "ioscore-system/1", "submitter": {"name": "A", "email": email}}
    before = files_under(media_root)
    _refused(
        _post(client, tar_gz(GOOD), system=json.dumps(system)),
        400,
        "submitter.email is not a valid e-mail address",
        "system",
    )
    assert files_under(media_root) == before


# --- request bodies -------------------------------------------------------------------------


def test_lying_content_length_is_refused_before_reading(
    client: APIClient, media_root: Path
) -> None:
    # The test client's payload raises if read past its real 1 kB: a 413 proves that the
    # body was never read, so no worker waits for 2 GB that never come.
    before = files_under(media_root)
    response = client.generic(
        "POST",
        URL,
        b"x" * 1024,
        content_type="multipart/form-data; boundary=BoUnDaRy",
        CONTENT_LENGTH=str(2 << 30),
    )
    _refused(response, 413, "archive larger than", "archive")
    assert files_under(media_root) == before


def test_oversized_upload_stops_while_streaming(
    client: APIClient, media_root: Path, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.IOSCORE_UPLOAD_MAX_BYTES = 256 << 10
    seen: list[int] = []
    original = LimitedUploadHandler.receive_data_chunk

    def spy(self: LimitedUploadHandler, raw_data: bytes, start: int) -> bytes | None:
        seen.append(start + len(raw_data))
        return original(self, raw_data, start)

    monkeypatch.setattr(LimitedUploadHandler, "receive_data_chunk", spy)
    before = files_under(media_root)
    body = bytes(range(256)) * (16 << 10)  # 4 MiB, 16 times the limit
    response = _post(client, body)
    _refused(response, 413, f"archive larger than {256 << 10} bytes", "archive")
    assert max(seen) <= (256 << 10) + LimitedUploadHandler.chunk_size  # stopped at the limit
    assert files_under(media_root) == before


def test_oversized_upload_through_the_form_is_a_413(
    cast: Any, open_release: Any, media_root: Path, settings: Any
) -> None:
    from django.test import Client

    settings.IOSCORE_UPLOAD_MAX_BYTES = 1024
    browser = Client()
    browser.force_login(cast.submitter)
    response = browser.post(
        "/submissions/new/",
        {"archive": SimpleUploadedFile("run.tgz", b"x" * 4096), "site": cast.site.pk},
    )
    assert response.status_code == 413
    assert b"archive larger than 1024 bytes" in response.content
    assert Submission.objects.count() == 0


def test_lying_content_length_through_the_form_is_a_413_not_a_csrf_error(
    cast: Any, open_release: Any, media_root: Path
) -> None:
    from django.test import Client

    browser = Client(enforce_csrf_checks=True)
    browser.force_login(cast.submitter)
    browser.cookies["csrftoken"] = "a" * 32  # as a browser that loaded the form has
    response = browser.generic(
        "POST",
        "/submissions/new/",
        b"x" * 1024,
        content_type="multipart/form-data; boundary=BoUnDaRy",
        CONTENT_LENGTH=str(2 << 30),
    )
    assert response.status_code == 413
    assert b"archive larger than" in response.content
    assert Submission.objects.count() == 0


# --- duplicates -----------------------------------------------------------------------------


def test_identical_bytes_from_another_account_reveal_nothing(
    client: APIClient, cast: Any, media_root: Path
) -> None:
    archive = tar_gz(GOOD)
    first = _post(client, archive)
    assert first.status_code == 201, first.content
    first_id = first.json()["id"]

    again = _post(client, archive)  # the owner sees their own submission again
    assert again.status_code == 200
    assert again.json()["id"] == first_id and again.json()["duplicate"] is True

    # Someone else gets the answer of a new upload: their own submission, nothing of the first.
    other_client = _client(cast.other_submitter, cast.other_site)
    fresh = _post(other_client, tar_gz({**GOOD, "run/note.txt": b"different bytes\n"}))
    other = _post(other_client, archive)
    assert other.status_code == fresh.status_code == 201, other.content
    assert set(other.json()) == set(fresh.json())
    assert other.json()["duplicate"] is False and other.json()["status"] == fresh.json()["status"]
    assert other.json()["id"] != first_id and f"/{first_id}/" not in other.content.decode()
    theirs = Submission.objects.get(pk=other.json()["id"])
    assert theirs.owner == cast.other_submitter and theirs.site == cast.other_site
    assert Submission.objects.filter(owner=cast.submitter).count() == 1
    # ... and they too are told of their own duplicate.
    repeated = _post(other_client, archive)
    assert repeated.status_code == 200 and repeated.json()["id"] == theirs.pk


# --- JSON request bodies --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('{"comment": "a\\u0000b"}', "JSON body: string at /comment contains a NUL character"),
        ('{"comment": "\\udc80"}', "JSON body: string at /comment contains a lone surrogate"),
        ('{"comment": NaN}', "JSON body: NaN is not a JSON number"),
        ('{"comment": ' + "[" * 50_000 + "]" * 50_000 + "}", "JSON body: nested deeper than"),
        ('{"comment": "unterminated', "JSON parse error"),
    ],
)
def test_unstorable_json_bodies_are_a_400(client: APIClient, body: str, expected: str) -> None:
    first = _post(client, tar_gz(GOOD))
    assert first.status_code == 201
    pk = first.json()["id"]
    response = client.post(
        f"/api/v1/submissions/{pk}/withdraw/", body, content_type="application/json"
    )
    assert response.status_code == 400, response.content
    assert response.json()["error"]["message"].startswith(expected)
    assert Submission.objects.get(pk=pk).status != "withdrawn"


def test_oversized_json_body_is_a_413(client: APIClient, settings: Any) -> None:
    pk = _post(client, tar_gz(GOOD)).json()["id"]
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = client.post(
        f"/api/v1/submissions/{pk}/withdraw/",
        json.dumps({"comment": "x" * 5000}),
        content_type="application/json",
    )
    assert response.status_code == 413
    assert response.json()["error"]["message"] == "request body larger than 1000 bytes"


@pytest.mark.parametrize("site", ["9" * 30, "-1", "1e3"])
def test_out_of_range_site_is_a_4xx(client: APIClient, site: str) -> None:
    response = _post(client, tar_gz(GOOD), site=site)
    assert 400 <= response.status_code < 500
    assert Submission.objects.count() == 0


def test_control_characters_never_reach_the_stored_file_name(client: APIClient) -> None:
    response = _post(client, tar_gz(GOOD), name="run\x00\x1b[31m\x7f.tgz")
    assert response.status_code == 201, response.content
    assert Submission.objects.get().archive_name == "run[31m.tgz"
