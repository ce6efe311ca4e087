"""No byte of an upload body is stored before the sender is known: an anonymous multipart
POST with a made-up CSRF cookie is refused with its body unread (the CSRF check parses the
body of such a POST before any view runs)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.test.client import BOUNDARY, MULTIPART_CONTENT, FakePayload, encode_multipart

pytestmark = pytest.mark.django_db
BODY_MB = 8


class CountingPayload(FakePayload):
    """The request body as the server reads it, counting the bytes taken."""

    taken = 0

    def read(self, size: int = -1) -> bytes:
        chunk = super().read(size)
        self.taken += len(chunk)
        return chunk

    def readline(self, size: int = -1) -> bytes:
        line = super().readline(size)
        self.taken += len(line)
        return line


def _post(client: Client, url: str, archive: bytes) -> tuple[Any, int]:
    from io import BytesIO

    upload = BytesIO(archive)
    upload.name = "results.tar.gz"
    body = encode_multipart(BOUNDARY, {"archive": upload, "csrfmiddlewaretoken": "x" * 64})
    payload = CountingPayload(body)
    environ = {
        "wsgi.input": payload,
        "CONTENT_LENGTH": str(len(body)),
        "CONTENT_TYPE": MULTIPART_CONTENT,
    }
    response = client.generic("POST", url, **environ)
    return response, payload.taken


@pytest.mark.parametrize(
    "url", ["/submissions/new/", "/acceptance/upload/", "/api/v1/submissions/"]
)
def test_anonymous_upload_body_is_not_read(url: str, media_root: Path) -> None:
    client = Client(enforce_csrf_checks=True)
    client.cookies["csrftoken"] = "y" * 32  # made up
    response, taken = _post(client, url, b"\0" * (BODY_MB << 20))
    assert response.status_code in (401, 403), (url, response.status_code)
    # the parser reads in 64 KiB chunks: the first, with the fields before the file, at most
    assert taken <= 128 * 1024, f"{url}: read {taken} bytes of an anonymous upload"
    assert not any((media_root / "tmp").iterdir())


def test_a_logged_in_upload_is_still_read(cast: Any, media_root: Path) -> None:
    client = Client()
    client.force_login(cast.submitter)
    _response, taken = _post(client, "/submissions/new/", b"\0" * (1 << 20))
    assert taken > 1 << 20
