"""Who may upload and how much, enforced while the request body streams in.

No byte of an uploaded file is stored for a request without a logged-in user: the CSRF check
(which parses the body of every POST carrying a CSRF cookie) would otherwise spool an
anonymous upload to disk before any view could ask who sent it. The API authenticates its
tokens before it reads a body (DRF sets the Django request's user), so it passes here too.

Django would otherwise write a whole multipart body to disk before the intake sees its size,
and wait for every byte a client announces. This handler refuses a request whose declared
``Content-Length`` is already too large before reading any of it, and stops reading (removing
the partial temp file) as soon as a file passes ``IOSCORE_UPLOAD_MAX_BYTES``. The refusal is
left on the request for the view, which answers 413 with ``upload_refusal(request)``.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.files.uploadhandler import StopUpload, TemporaryFileUploadHandler
from django.http import HttpRequest, HttpResponse, QueryDict
from django.utils.datastructures import MultiValueDict
from django.views.csrf import csrf_failure as default_csrf_failure

_REFUSAL = "_ioscore_upload_refusal"
_REFUSAL_STATUS = "_ioscore_upload_refusal_status"
LOGIN_FIRST = "log in before uploading: the body of an anonymous upload is not read"


def too_large_message() -> str:
    return f"archive larger than {settings.IOSCORE_UPLOAD_MAX_BYTES} bytes"


def upload_refusal(request: Any) -> str | None:
    """The reason the body was not read in full, if it was refused (413)."""
    return getattr(request, _REFUSAL, None)


class LimitedUploadHandler(TemporaryFileUploadHandler):
    """Spools files to ``FILE_UPLOAD_TEMP_DIR`` and stops at the configured size."""

    def handle_raw_input(
        self,
        input_data: Any,
        META: dict[str, Any],
        content_length: int,
        boundary: str,
        encoding: str | None = None,
    ) -> tuple[QueryDict, MultiValueDict[str, Any]] | None:
        # Form fields may add up to DATA_UPLOAD_MAX_MEMORY_SIZE beside the file itself.
        allowed = settings.IOSCORE_UPLOAD_MAX_BYTES + (settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0)
        if content_length > allowed:
            self._refuse(too_large_message(), 413)
            return QueryDict(), MultiValueDict()
        self.received = 0
        return None

    def new_file(self, *args: Any, **kwargs: Any) -> None:
        # Form fields (a login form sent as multipart) are read; a file part is not.
        user = getattr(self.request, "user", None)
        if not getattr(user, "is_authenticated", False):
            self._refuse(LOGIN_FIRST, 403)
            raise StopUpload(connection_reset=True)  # stop reading the body here
        super().new_file(*args, **kwargs)

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes | None:
        self.received = start + len(raw_data)
        if self.received > settings.IOSCORE_UPLOAD_MAX_BYTES:
            self.file.close()  # a NamedTemporaryFile: closing removes it
            self._refuse(too_large_message(), 413)
            raise StopUpload(connection_reset=True)
        return super().receive_data_chunk(raw_data, start)

    def _refuse(self, message: str, status: int) -> None:
        request: HttpRequest | None = self.request
        if request is not None:
            setattr(request, _REFUSAL, message)
            setattr(request, _REFUSAL_STATUS, status)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF_FAILURE_VIEW: a body refused unread carries no CSRF token either; say why it was
    refused (403 anonymous, 413 too large) instead of a misleading CSRF error."""
    refusal = upload_refusal(request)
    if refusal:
        status = getattr(request, _REFUSAL_STATUS, 413)
        return HttpResponse(refusal, status=status, content_type="text/plain; charset=utf-8")
    return default_csrf_failure(request, reason)
