"""One error envelope for the whole API: {"error": {"status", "message", "fields"}}."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from rest_framework.response import Response
from rest_framework.views import exception_handler


def _first_message(data: Any) -> str:
    if isinstance(data, dict):
        if "detail" in data:
            return str(data["detail"])
        for key, value in data.items():
            return f"{key}: {_first_message(value)}"
    if isinstance(data, list) and data:
        return _first_message(data[0])
    return str(data)


def error_envelope(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, RequestDataTooBig):  # Django's refusal, raised while DRF parses
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return error(413, f"request body larger than {limit} bytes")
    response = exception_handler(exc, context)
    if response is None:
        return None
    data = response.data
    fields = {k: v for k, v in data.items() if k != "detail"} if isinstance(data, dict) else {}
    response.data = {
        "error": {"status": response.status_code, "message": _first_message(data), "fields": fields}
    }
    return response


def error(status: int, message: str, field: str | None = None) -> Response:
    fields = {field: [message]} if field else {}
    return Response(
        {"error": {"status": status, "message": message, "fields": fields}}, status=status
    )
