"""The API's page parameters, bounded: a ``limit`` or ``offset`` beyond what PostgreSQL's
LIMIT/OFFSET take would otherwise be a 500; here it is a 400 naming the parameter."""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination

MAX_OFFSET = 10**9


class BoundedLimitOffsetPagination(LimitOffsetPagination):
    max_limit = 1000

    def get_offset(self, request: Any) -> int:
        text = request.query_params.get(self.offset_query_param, "")
        if not text.isascii():  # "²".isdigit() is true, int("²") raises
            raise ValidationError({"offset": ["must be a whole number (ASCII digits)"]})
        if text.isdigit() and (len(text) > 10 or int(text) > MAX_OFFSET):
            raise ValidationError({"offset": [f"must be at most {MAX_OFFSET}"]})
        return int(super().get_offset(request))

    def get_limit(self, request: Any) -> int | None:
        text = request.query_params.get(self.limit_query_param, "")
        if not text.isascii():
            raise ValidationError({"limit": ["must be a whole number (ASCII digits)"]})
        return super().get_limit(request)
