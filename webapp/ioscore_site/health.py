"""`/healthz`: liveness for compose health checks and the demo (is the database reachable?)."""

from __future__ import annotations

from django.db import connection
from django.db.utils import Error as DatabaseError
from django.http import HttpRequest, JsonResponse


def healthz(request: HttpRequest) -> JsonResponse:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError as exc:
        return JsonResponse({"status": "error", "database": str(exc)}, status=503)
    return JsonResponse({"status": "ok", "database": "ok"})
