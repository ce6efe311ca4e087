"""The home page and the index of every visible list, grouped by release."""

from __future__ import annotations

from collections import defaultdict

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from submissions.models import Release

from ..list_statistics import list_sizes
from ..listview import ViewState, entry_queryset
from ..models import RankedList
from ..visibility import entries_without, hidden_on_lists, visible_lists, visible_submissions


def _lists_by_release(
    request: HttpRequest, counted: Release | bool | None = True
) -> dict[Release, list[RankedList]]:
    """Visible lists grouped by release, newest first, with their entry counts (``size``):
    ``counted`` True = all, a release = only its lists, False = none."""
    lists = visible_lists(request.user).order_by("-release__release_date", "list_type__order")
    sizes: dict[int, int] = {}
    if counted is not False:
        scope = lists.filter(release=counted) if isinstance(counted, Release) else lists
        sizes = list_sizes(scope.values_list("id", flat=True))
    grouped: dict[Release, list[RankedList]] = defaultdict(list)
    for ranked_list in lists:
        ranked_list.size = sizes.get(ranked_list.pk, 0)  # type: ignore[attr-defined]
        grouped[ranked_list.release].append(ranked_list)
    return grouped


def home(request: HttpRequest) -> HttpResponse:
    newest = visible_lists(request.user).order_by("-release__release_date").first()
    latest = newest.release if newest is not None else None
    grouped = _lists_by_release(request, counted=latest or False)
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
            "submission_count": visible_submissions(request.user).count(),
        },
    )


def list_index(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "rankings/list_index.html",
        {
            "nav": "lists",
            "grouped": list(_lists_by_release(request).items()),
        },
    )
