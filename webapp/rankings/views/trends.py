"""Trends over releases: the best entry of each release and the distribution of new entries."""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Max
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from ioscore_site.finite_json import finite
from submissions.models import ListType

from .. import charts
from ..models import ListEntry
from ..phases import PHASE_FIELDS, PHASES
from ..visibility import visible_lists


def trends(request: HttpRequest) -> HttpResponse:
    lists = visible_lists(request.user)
    types = list(ListType.objects.filter(ranked_lists__in=lists).distinct().order_by("order"))
    slugs = [t.slug for t in types]
    wanted = request.GET.get("list") or ("production" if "production" in slugs else "historical")
    error = ""
    if slugs and wanted not in slugs:
        error = f"parameter 'list': unknown or empty list type {wanted!r}"
        wanted = slugs[0]
    phase = request.GET.get("phase") or "score"
    choices = ["score", "bw", "md", *PHASES]
    if phase not in choices:
        error = f"parameter 'phase': unknown metric {phase!r}"
        phase = "score"
    of_type = lists.filter(list_type__slug=wanted).order_by("release__release_date")
    best = list(
        of_type.annotate(
            best_score=Max("entries__score"), best_bw=Max("entries__bw"), best_md=Max("entries__md")
        ).values("release__acronym", "best_score", "best_bw", "best_md")
    )
    field = {"score": "score", "bw": "bw", "md": "md"}.get(phase) or PHASE_FIELDS[
        PHASES.index(phase)
    ]
    distribution: dict[str, list[float]] = defaultdict(list)
    for acronym, origin, value in ListEntry.objects.filter(
        ranked_list__in=of_type, **{f"{field}__isnull": False}
    ).values_list("ranked_list__release__acronym", "origin_release__acronym", field):
        if acronym == origin:  # what was new in each release, not the carried-over rows
            distribution[acronym].append(value)
    chart_data = {
        "best": charts.best_payload([dict(row) for row in best]),
        "distribution": charts.distribution_payload(
            [r["release__acronym"] for r in best], distribution, phase
        ),
    }
    return render(
        request,
        "rankings/trends.html",
        {
            "nav": "trends",
            "types": types,
            "wanted": wanted,
            "phase": phase,
            "choices": choices,
            "chart_data": finite(chart_data),
            "error": error,
            "api_url": reverse("rankings:api-lists"),
        },
    )
