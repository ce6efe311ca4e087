"""The API's page parameters, bounded: a ``limit`` or ``offset`` beyond what PostgreSQL's
LIMIT/OFFSET take would otherwise be a 500; here it is a 400 naming the parameter. Big
collections count through a short-lived cache (``CachedCountPagination``)."""

from __future__ import annotations

import hashlib
from typing import Any

from django.core.cache import cache
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination

MAX_OFFSET = 10**9


class BoundedLimitOffsetPagination(LimitOffsetPagination):
    max_limit = 1000

    def get_offset(self, request: Any) -> int:
        text = request.query_params.get(self.offset_query_param, "")
        if text.isdigit() and (len(text) > 10 or int(text) > MAX_OFFSET):
            raise ValidationError({"offset": [f"must be at most {MAX_OFFSET}"]})
        return int(super().get_offset(request))


class CachedCountPagination(BoundedLimitOffsetPagination):
    """Pages whose ``count`` is remembered for ``count_seconds``: counting every public result
    is a pass over the whole table (about 100 ms at 100,000 submissions), the page itself an
    index walk. The key is the count's own SQL, so each visibility (and each day of the
    embargo) has its own count; a client may see a count up to ``count_seconds`` old."""

    count_seconds = 30

    def get_count(self, queryset: Any) -> int:
        sql = str(queryset.order_by().query)
        key = "api-count:" + hashlib.sha256(sql.encode()).hexdigest()
        count = cache.get(key)
        if count is None:
            count = int(super().get_count(queryset))
            cache.set(key, count, self.count_seconds)
        return int(count)
