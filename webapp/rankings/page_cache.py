"""The same bytes for every anonymous visitor until what they show changes.

One owner for the response caches of the public read pages and API (list pages, trends,
compare, list entries, results). A caller names the *identity* of what the response shows
(a list's id, revision, state and build time; the public-results version...) and the
*parameters* it reads, normalised (``ViewState.cache_text``, ``read_params``); the key is
the path, those parameters, the API's negotiated format and the identity, so a change to
what is shown is a new key and nothing needs deleting, and a query parameter the view does
not read (``?x=1``) neither skips the cache nor adds an entry. Logged-in users (their
header, and on the API what they may see, differ) and pending messages are never cached.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import urlencode

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


def read_params(request: Any, names: Iterable[str]) -> str:
    """The parameters a view reads, by name, in a fixed order: the part of the query string
    its response depends on (every other parameter is left out of the key)."""
    query = getattr(request, "query_params", None) or request.GET
    return urlencode([(name, value) for name in names for value in query.getlist(name)])


def cache_key(request: Any, kind: str, identity: Iterable[Any], params: str) -> str | None:
    """``None`` when the response must not be shared: a logged-in user (``request`` may be
    a Django or a DRF request; for the API its user is the token's), or messages waiting.
    The key has a fixed length whatever ``params`` holds (a visitor's formula)."""
    if request.user.is_authenticated or "messages" in request.COOKIES:
        return None
    renderer = getattr(request, "accepted_renderer", None)
    negotiated = renderer.media_type if renderer is not None else ""
    text = "|".join([request.path, params, negotiated, *map(str, identity)])
    return f"page-cache:{kind}:{hashlib.sha256(text.encode()).hexdigest()}"


def _browsable(request: Any) -> bool:
    """DRF's HTML view of the API (for browsers) holds per-visitor parts (login link, CSRF
    token); only its JSON is shared."""
    renderer = getattr(request, "accepted_renderer", None)
    return renderer is not None and renderer.format != "json"


# Headers a cached response keeps besides its body (a download's file name).
KEPT_HEADERS = ("Content-Type", "Content-Disposition")


def serve(
    request: Any,
    kind: str,
    identity: Iterable[Any] | None,
    render: Callable[[], HttpResponseBase],
    *,
    params: str,
    seconds: int = PAGE_SECONDS,
) -> HttpResponseBase:
    """The cached response for ``identity`` and ``params`` (the normalised parameters the
    view reads; ``""`` for a view that reads none) or ``render()``'s, stored when it is a
    200. ``identity`` ``None`` means "not cacheable for this request" (e.g. the committee)."""
    key = (
        None
        if identity is None or _browsable(request)
        else cache_key(request, kind, identity, params)
    )
    if key is not None and (cached := cache.get(key)) is not None:
        content, headers = cached
        hit = HttpResponse(content)
        for name, value in headers.items():
            hit[name] = value
        return hit
    response = render()
    if key is not None and isinstance(response, HttpResponse) and response.status_code == 200:
        if hasattr(response, "render"):  # a DRF or template response not rendered yet
            response.render()
        headers = {name: response[name] for name in KEPT_HEADERS if response.has_header(name)}
        cache.set(key, (response.content, headers), seconds)
    return response
