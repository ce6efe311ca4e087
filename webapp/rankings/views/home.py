"""The home page and the index of every visible list, grouped by release."""

from __future__ import annotations

from collections import defaultdict
from itertools import chain

from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render

from submissions import public_counts, public_version
from submissions.models import Release

from .. import page_cache
from ..listview import ViewState, entry_queryset
from ..maintenance.list_statistics import list_sizes
from ..models import RankedList
from ..visibility import (
    can_see_unpublished,
    entries_without,
    hidden_on_lists,
    visible_lists,
    visible_submissions,
)


def _newest_first(request: HttpRequest) -> list[RankedList]:
    return list(visible_lists(request.user).order_by("-release__release_date", "list_type__order"))


def _by_release(
    lists: list[RankedList], counted: Release | bool | None
) -> dict[Release, list[RankedList]]:
    """``lists`` grouped by release, with their entry counts (``size``): ``counted`` True =
    all, a release = only its lists, False or None = none."""
    sizes: dict[int, int] = {}
    if counted is True:
        sizes = list_sizes(rl.pk for rl in lists)
    elif isinstance(counted, Release):
        sizes = list_sizes(rl.pk for rl in lists if rl.release_id == counted.pk)
    grouped: dict[Release, list[RankedList]] = defaultdict(list)
    for ranked_list in lists:
        ranked_list.size = sizes.get(ranked_list.pk, 0)  # type: ignore[attr-defined]
        grouped[ranked_list.release].append(ranked_list)
    return grouped


def home(request: HttpRequest) -> HttpResponseBase:
    """Served from the anonymous cache until the public results or a visible list change (a
    list built, revised, published or withdrawn changes the set of identities)."""
    lists = _newest_first(request)
    identity = None
    if not can_see_unpublished(request.user):
        # Hidden entries need no part of their own: only a visibility change hides one, and
        # that moves the public-results version.
        identity = [
            public_version.current(),
            *chain.from_iterable(page_cache.list_version(rl) for rl in lists),
        ]
    return page_cache.serve(
        request, "home", identity, lambda: _render_home(request, lists), params=""
    )


def _submission_count(request: HttpRequest) -> int:
    if can_see_unpublished(request.user):  # drafts too, which move no public version
        return visible_submissions(request.user).count()
    return public_counts.public_results()


def _render_home(request: HttpRequest, lists: list[RankedList]) -> HttpResponse:
    latest = lists[0].release if lists else None
    grouped = _by_release(lists, counted=latest)
    previews = []
    if latest is not None:
        shown = grouped[latest]
        hidden = hidden_on_lists(request.user, [rl.pk for rl in shown])
        for ranked_list in shown:
            entries = entries_without(
                ranked_list, None if hidden is None else hidden[ranked_list.pk]
            )
            previews.append((ranked_list, list(entry_queryset(entries, ViewState())[:5])))
    return render(
        request,
        "rankings/home.html",
        {
            "nav": "home",
            "latest": latest,
            "previews": previews,
            "releases": list(grouped.items())[:6],
            "release_count": len(grouped),
            "submission_count": _submission_count(request),
        },
    )


def list_index(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "rankings/list_index.html",
        {
            "nav": "lists",
            "grouped": list(_by_release(_newest_first(request), counted=True).items()),
        },
    )
