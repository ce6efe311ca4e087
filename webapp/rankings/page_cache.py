"""The same bytes for every anonymous visitor until what they show changes.

One owner for the response caches of the public read pages and API (list pages, trends,
compare, list entries, results). A caller names the *identity* of what the response shows
(a list's id, revision, state and build time; the public-results version...); the key is
that identity plus the full path and the negotiated format, so a change to what is shown is
a new key and nothing needs deleting. Logged-in users (their header, and on the API what
they may see, differ) and pending messages are never cached.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from typing import Any

from django.core.cache import cache
from django.http import HttpResponse, HttpResponseBase

from submissions import public_version

from .models import RankedList
from .visibility import can_see_unpublished

PAGE_SECONDS = 60


def list_version(the_list: RankedList) -> list[Any]:
    """The list's own version: a new revision, rebuild or state."""
    return [the_list.pk, the_list.revision, the_list.state, the_list.built_at.timestamp()]


def list_identity(the_list: RankedList, user: Any) -> list[Any] | None:
    """What an anonymous view of a list (page or API) shows: the list's version and the
    public-results version, which every change of what else it shows moves (an entry that
    stops being public, names rewritten in place, release dates, list type names, a new
    sibling list's tab), so the hidden entries need no part (and no query) of their own.
    ``None`` for the committee, who see hidden entries: not shared."""
    if can_see_unpublished(user):
        return None
    return [*list_version(the_list), public_version.current()]


def cache_key(request: Any, kind: str, identity: Iterable[Any]) -> str | None:
    """``None`` when the response must not be shared: a logged-in user (``request`` may be
    a Django or a DRF request; for the API its user is the token's), or messages waiting."""
    if request.user.is_authenticated or "messages" in request.COOKIES:
        return None
    text = "|".join(
        [request.get_full_path(), request.META.get("HTTP_ACCEPT", ""), *map(str, identity)]
    )
    return f"page-cache:{kind}:{hashlib.sha256(text.encode()).hexdigest()}"


def _browsable(request: Any) -> bool:
    """DRF's HTML view of the API (for browsers) holds per-visitor parts (login link, CSRF
    token); only its JSON is shared."""
    renderer = getattr(request, "accepted_renderer", None)
    return renderer is not None and renderer.format != "json"


def serve(
    request: Any,
    kind: str,
    identity: Iterable[Any] | None,
    render: Callable[[], HttpResponseBase],
    seconds: int = PAGE_SECONDS,
) -> HttpResponseBase:
    """The cached response for ``identity`` or ``render()``'s, stored when it is a 200.
    ``identity`` ``None`` means "not cacheable for this request" (e.g. the committee)."""
    key = None if identity is None or _browsable(request) else cache_key(request, kind, identity)
    if key is not None and (cached := cache.get(key)) is not None:
        content, content_type = cached
        return HttpResponse(content, content_type=content_type)
    response = render()
    if key is not None and isinstance(response, HttpResponse) and response.status_code == 200:
        if hasattr(response, "render"):  # a DRF or template response not rendered yet
            response.render()
        cache.set(key, (response.content, response["Content-Type"]), seconds)
    return response
