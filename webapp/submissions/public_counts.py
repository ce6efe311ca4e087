"""How many public results there are, counted once per public-results version.

Counting the public submissions is a pass over the submissions (a join of every row to its
release); the answer changes only when what is public does, and every
such change moves ``public_version.current()`` (the embargo's end through its date). So a
count cached under the version is exact, never stale, and a repeat costs one cache read.
The home page and the results API (also its ``after`` ranges) count here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from django.core.cache import cache
from django.db.models import Count, QuerySet

from . import public_version
from .models import Submission
from .visibility import PUBLIC_STATUSES, embargoed_release_ids

# Long enough that each count is taken about once per version; the version's date makes
# every key new the next day anyway.
COUNT_SECONDS = 24 * 3600


def _once_per_version(what: str, compute: Callable[[], int]) -> int:
    # The version is read before counting: a change committed in between gives a count
    # newer than its key (replaced at the next version), never an older one.
    key = f"public-count:{public_version.current()}:{what}"
    cached = cache.get(key)
    if cached is None:
        cached = compute()
        cache.set(key, cached, COUNT_SECONDS)
    return int(cached)


def count(public_results: QuerySet[Submission]) -> int:
    """The size of ``public_results``, a query over public submissions only (the committee's
    view also holds drafts, whose changes move no version: count those directly)."""
    sql = str(public_results.order_by().values("pk").query)
    return _once_per_version(hashlib.sha256(sql.encode()).hexdigest(), public_results.count)


def _count_public() -> int:
    """Accepted submissions per release, from the (status, release) index alone (an index-only
    scan, no join), less the few releases still under embargo."""
    per_release = (
        Submission.objects.filter(status__in=PUBLIC_STATUSES)
        .order_by()
        .values_list("release_id")
        .annotate(n=Count("*"))
    )
    embargoed = set(embargoed_release_ids())
    return sum(n for release_id, n in per_release if release_id not in embargoed)


def public_results() -> int:
    """Accepted submissions whose release date has passed (``visibility.public_filter``)."""
    return _once_per_version("all", _count_public)
