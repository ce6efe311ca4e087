"""Trends over releases: the best entry of each release and the distribution of new entries.

The page opens on a list type that has data (the newest release's first list type with
entries), and draws the whole release sequence between the first and the last release with
entries: a release without a list of the type, or whose list is empty, is a marked gap, never
a line drawn through it.

Anonymous views are cached until a visible list changes (created, rebuilt, corrected,
published or withdrawn from view): the distributions hold every new entry's value, so at
100,000 submissions computing the page costs hundreds of milliseconds.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date
from typing import Any

from django.db.models import Exists, F, OuterRef, QuerySet, Subquery
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render
from django.urls import reverse

from ioscore_site.finite_json import finite
from submissions.models import ListType, Release
from submissions.releases import PUBLICATION_DATES

from .. import charts, page_cache
from ..models import ListEntry, RankedList
from ..phases import PHASE_FIELDS, PHASES
from ..visibility import visible_lists

METRICS = ("score", "bw", "md", *PHASES)
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


def _top(field: str) -> Subquery:
    """A list's highest ``field``: the first row of its (list, field) index (migration
    rankings 0005), where an aggregate would read every entry of every list of the type."""
    return Subquery(
        ListEntry.objects.filter(ranked_list=OuterRef("pk"))
        .order_by(F(field).desc())
        .values(field)[:1]
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


def trends(request: HttpRequest) -> HttpResponseBase:
    lists = visible_lists(request.user)
    return page_cache.serve(
        request,
        "trends",
        None if request.user.is_authenticated else _lists_identity(lists),
        lambda: _render_trends(request, lists),
        PAGE_CACHE_SECONDS,
    )


def _render_trends(request: HttpRequest, lists: QuerySet[RankedList]) -> HttpResponse:
    sizes = _lists_with_entries(lists)
    with_entries = {slug for slug, _r, _d, count in sizes if count}
    # Only list types with something to draw are offered.
    types = list(ListType.objects.filter(slug__in=with_entries).order_by("order"))
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
    best: dict[str, dict[str, Any]] = {
        row["release__acronym"]: dict(row)
        for row in of_type.annotate(
            best_score=_top("score"), best_bw=_top("bw"), best_md=_top("md")
        ).values("release__acronym", "best_score", "best_bw", "best_md")
    }
    dated = [(day, acronym) for slug, acronym, day, count in sizes if slug == wanted and count]
    sequence = release_sequence(min(dated)[0], max(dated)[0]) if dated else []
    has_list = {acronym for slug, acronym, _d, _n in sizes if slug == wanted}
    gaps = {
        acronym: "empty list" if acronym in has_list else "no list"
        for acronym in sequence
        if best.get(acronym, {}).get("best_score") is None
    }
    field = {"score": "score", "bw": "bw", "md": "md"}.get(phase) or PHASE_FIELDS[
        PHASES.index(phase)
    ]
    distribution: dict[str, list[float]] = defaultdict(list)
    # What was new in each release, not the carried-over rows (filtered in SQL: carried rows
    # are most of a list's entries); unordered, the chart groups by release (the entries'
    # default order sorted 100,000 rows on disk at 100,000 submissions).
    for acronym, value in (
        ListEntry.objects.filter(
            ranked_list__in=of_type,
            origin_release_id=F("ranked_list__release_id"),
            **{f"{field}__isnull": False},
        )
        .order_by()
        .values_list("ranked_list__release__acronym", field)
    ):
        distribution[acronym].append(value)
    chart_data = {
        "best": charts.best_payload(sequence, best, gaps),
        "distribution": charts.distribution_payload(sequence, distribution, phase, gaps),
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
