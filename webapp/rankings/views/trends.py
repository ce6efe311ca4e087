"""Trends over releases: the best entry of each release and the distribution of new entries.

The page opens on a list type that has data (the newest release's first list type with
entries), and draws the whole release sequence between the first and the last release with
entries: a release without a list of the type, or whose list is empty, is a marked gap, never
a line drawn through it.

The distribution of each release's new entries is a box drawn from the statistics stored with the
list (``rankings.maintenance.list_statistics``), not from every entry's value: the page reads a few
rows per release at any number of submissions. Anonymous views are also cached until a visible list
changes (created, rebuilt, corrected, published or withdrawn from view).
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date
from typing import Any

from django.db.models import Exists, OuterRef, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render
from django.urls import reverse

from ioscore_site.finite_json import finite
from submissions import public_version
from submissions.models import ListType, Release
from submissions.releases import PUBLICATION_DATES

from .. import charts, page_cache
from ..models import ListEntry, ListStatistic, RankedList
from ..phases import PHASES
from ..visibility import hidden_best_entries, visible_lists

BEST = ("score", "bw", "md")  # the best-per-release line's panels
METRICS = (*BEST, *PHASES)
PAGE_CACHE_SECONDS = 300


def _lists_identity(lists: QuerySet[RankedList]) -> list[str]:
    """The page for anonymous visitors is the same until one of ``lists`` (the visible
    ones) changes: each list's id, revision, build time and whether it has entries (about
    a hundred short rows)."""
    versions = (
        lists.annotate(n=_has_entries())
        .order_by("pk")
        .values_list("pk", "revision", "built_at", "n")
    )
    return [f"{pk},{r},{built.timestamp()},{n}" for pk, r, built, n in versions]


def _has_entries() -> Exists:
    return Exists(ListEntry.objects.filter(ranked_list=OuterRef("pk")))


def _lists_with_entries(lists: QuerySet[RankedList]) -> list[tuple[str, str, date, bool]]:
    """(type slug, release, release date, has entries) of every visible list, newest first.
    Whether, not how many: one index probe per list instead of counting every entry."""
    return list(
        lists.annotate(n=_has_entries())
        .order_by("-release__release_date", "list_type__order")
        .values_list("list_type__slug", "release__acronym", "release__release_date", "n")
    )


def default_type(sizes: list[tuple[str, str, date, bool]]) -> str:
    """The first list type (in list order) of the newest release that has entries."""
    for slug, _release, _day, count in sizes:
        if count:
            return slug
    return ""


def release_sequence(first: date, last: date) -> list[str]:
    """Every release from ``first`` to ``last``: the stored ones and the known release
    calendar, so a release nobody stored a list for still shows as a gap."""
    days = dict(
        Release.objects.filter(release_date__range=(first, last)).values_list(
            "acronym", "release_date"
        )
    )
    for acronym, day in PUBLICATION_DATES.items():
        if first <= day <= last:
            days.setdefault(acronym, day)
    return sorted(days, key=lambda acronym: (days[acronym], acronym))


# The query parameters the page reads (its cache key holds these alone).
TRENDS_PARAMS = ("list", "phase")


def trends(request: HttpRequest) -> HttpResponseBase:
    lists = visible_lists(request.user)
    # The page names each release's best entry: one that stops being public moves the
    # public-results version (one key read, where the hidden best entries are a join).
    identity = (
        None
        if request.user.is_authenticated
        else [*_lists_identity(lists), public_version.current()]
    )
    return page_cache.serve(
        request,
        "trends",
        identity,
        lambda: _render_trends(request, lists, set(hidden_best_entries(request.user, lists))),
        params=page_cache.read_params(request, TRENDS_PARAMS),
        seconds=PAGE_CACHE_SECONDS,
    )


def _render_trends(
    request: HttpRequest, lists: QuerySet[RankedList], hidden_best: set[int]
) -> HttpResponse:
    sizes = _lists_with_entries(lists)
    types_with_entries = {slug for slug, _r, _d, count in sizes if count}
    # Only list types with something to draw are offered.
    types = list(ListType.objects.filter(slug__in=types_with_entries).order_by("order"))
    slugs = [t.slug for t in types]
    wanted = request.GET.get("list") or default_type(sizes)
    errors = []
    if slugs and wanted not in slugs:
        errors.append(f"parameter 'list': unknown list type or no entries in {wanted!r}")
        wanted = default_type(sizes)
    phase = request.GET.get("phase") or "score"
    if phase not in METRICS:
        errors.append(f"parameter 'phase': unknown metric {phase!r}")
        phase = "score"

    of_type = lists.filter(list_type__slug=wanted)
    dated = [(day, acronym) for slug, acronym, day, count in sizes if slug == wanted and count]
    sequence = release_sequence(min(dated)[0], max(dated)[0]) if dated else []
    has_list = {acronym for slug, acronym, _d, _n in sizes if slug == wanted}
    with_entries = {acronym for slug, acronym, _d, n in sizes if slug == wanted and n}
    gaps = {
        acronym: "empty list" if acronym in has_list else "no list"
        for acronym in sequence
        if acronym not in with_entries
    }
    # The numbers drawn are stored with each list (rankings.maintenance.list_statistics): a
    # few rows per release, whatever the number of submissions.
    best: dict[str, dict[str, Any]] = defaultdict(dict)
    boxes: dict[str, ListStatistic] = {}
    for stat in (
        ListStatistic.objects.filter(ranked_list__in=of_type, metric__in=sorted({phase, *BEST}))
        .select_related("ranked_list__release")
        .only("metric", "list_best", *charts.BOX_FIELDS, "ranked_list__release__acronym")
    ):
        acronym = stat.ranked_list.release.acronym
        if stat.metric in BEST:
            best[acronym][f"best_{stat.metric}"] = stat.list_best
        if stat.metric == phase:
            boxes[acronym] = stat
    # A run not public to this reader is not named; its number stays in the box only while
    # embargoed (a withdrawn run leaves the statistics, list_statistics.restate).
    for stat in boxes.values():
        if stat.best_submission_id in hidden_best:
            stat.best_submission_id, stat.best_name = None, ""
    chart_data = {
        "best": charts.best_payload(sequence, best, gaps),
        "distribution": charts.distribution_payload(sequence, boxes, phase, gaps),
    }
    list_name = next((t.name for t in types if t.slug == wanted), "")
    return render(
        request,
        "rankings/trends.html",
        {
            "nav": "trends",
            "types": types,
            "wanted": wanted,
            "list_name": list_name,
            "phase": phase,
            "phase_label": charts.metric_label(phase),
            "choices": [(m, charts.metric_label(m)) for m in METRICS],
            "gaps": gaps,
            "chart_data": finite(chart_data),
            "error": "; ".join(errors),
            "api_url": reverse("rankings:api-lists"),
        },
    )
