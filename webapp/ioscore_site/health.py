"""`/healthz`: liveness for compose health checks and the demo (is the database reachable?).

Anyone may ask, so the answer says only whether the database answered; why it did not (host,
port, user names in the driver's message) goes to the log."""

from __future__ import annotations

import logging

from django.db import connection
from django.db.utils import Error as DatabaseError
from django.http import HttpRequest, JsonResponse

log = logging.getLogger(__name__)


def healthz(request: HttpRequest) -> JsonResponse:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError as exc:
        log.error("health check: the database did not answer: %s", exc)
        return JsonResponse({"status": "error", "database": "unreachable"}, status=503)
    return JsonResponse({"status": "ok", "database": "ok"})
