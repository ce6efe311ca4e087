"""Public pages: home, list index, ranked lists, downloads, submission pages, compare, trends.

Views are thin: visibility comes from ``visibility``, list rows from ``listview``, chart data
from ``charts``; the templates render and ``static/js/rankings.js`` draws the plotly charts.
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections import defaultdict
from functools import partial
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.core.paginator import Paginator
from django.db.models import Count, Max, QuerySet
from django.http import (
    FileResponse,
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    JsonResponse,
)
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse

from ioscore_site.finite_json import finite
from submissions.models import ListType, PhaseResult, Release, Submission

from . import charts
from .builder import empty_reason
from .listview import (
    COLUMNS,
    DEFAULT_COLUMNS,
    LEVEL_LABELS,
    PAGE_SIZES,
    ViewState,
    entry_queryset,
    facet_values,
    filtered_entries,
)
from .models import Correction, ListEntry, RankedList
from .phases import PHASE_FIELDS, PHASES, unit
from .records import RECORD_FIELDS, csv_cell, entry_record
from .rows import render_rows
from .visibility import (
    can_see_unpublished,
    entries_without,
    hidden_submissions,
    visible_entries,
    visible_lists,
    visible_submissions,
)

MAX_COMPARE = 6
FACET_CACHE_SECONDS = 300
PAGE_CACHE_SECONDS = 60


def _lists_by_release(
    request: HttpRequest, counted: Release | bool | None = True
) -> dict[Release, list[RankedList]]:
    """Visible lists grouped by release, newest first. Entry counts (``size``) cost a scan
    of every entry, so ``counted`` limits them: True = all, a release = only its lists."""
    lists = visible_lists(request.user).order_by("-release__release_date", "list_type__order")
    sizes: dict[int, int] = {}
    if counted is not False:
        scope = ListEntry.objects.filter(ranked_list__in=lists.values("id"))
        if isinstance(counted, Release):
            scope = scope.filter(ranked_list__release=counted)
        sizes = dict(
            scope.order_by()
            .values_list("ranked_list")
            .annotate(n=Count("id"))
            .values_list("ranked_list", "n")
        )
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
        for ranked_list in grouped[latest]:
            top = entry_queryset(visible_entries(request.user, ranked_list), ViewState())[:5]
            previews.append((ranked_list, list(top)))
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


def _get_list(request: HttpRequest, release: str, list_type: str) -> RankedList:
    return get_object_or_404(
        visible_lists(request.user), release__acronym=release, list_type__slug=list_type
    )


def _facets(
    request: HttpRequest, the_list: RankedList, entries: QuerySet[ListEntry]
) -> dict[str, Any]:
    """Filter choices change only when the list does (new revision or rebuild), so they are
    cached per list version; a withdrawn entry can at worst leave one stale choice."""
    key = ":".join(
        [
            "rankings-facets",
            str(the_list.pk),
            str(the_list.revision),
            str(the_list.built_at.timestamp()),
            str(int(can_see_unpublished(request.user))),
        ]
    )
    facets: dict[str, Any] | None = cache.get(key)
    if facets is None:
        facets = facet_values(entries)
        cache.set(key, facets, FACET_CACHE_SECONDS)
    return facets


def _page_cache_key(
    request: HttpRequest, the_list: RankedList, hidden: list[int] | None
) -> str | None:
    """Anonymous views of a list are the same for everyone until the list changes (new
    revision or rebuild) or one of its submissions stops being public, so the key holds all
    of these; logged-in users (their header differs) and pending messages are not cached."""
    if hidden is None or request.user.is_authenticated or "messages" in request.COOKIES:
        return None
    identity = "|".join(
        [
            request.get_full_path(),
            str(the_list.pk),
            str(the_list.revision),
            the_list.state,
            str(the_list.built_at.timestamp()),
            ",".join(map(str, sorted(hidden))),
        ]
    )
    return "rankings-page:" + hashlib.sha256(identity.encode()).hexdigest()


def ranked_list(request: HttpRequest, release: str, list_type: str) -> HttpResponse:
    the_list = _get_list(request, release, list_type)
    hidden = hidden_submissions(request.user, the_list)
    cache_key = _page_cache_key(request, the_list, hidden)
    if cache_key is not None and (cached := cache.get(cache_key)) is not None:
        return HttpResponse(cached)
    response = _render_list(request, the_list, entries_without(the_list, hidden))
    if cache_key is not None:
        cache.set(cache_key, response.content, PAGE_CACHE_SECONDS)
    return response


def _render_list(
    request: HttpRequest, the_list: RankedList, entries: QuerySet[ListEntry]
) -> HttpResponse:
    state = ViewState.from_query(request.GET)
    rows = entry_queryset(entries, state)
    paginator = Paginator(rows, state.per_page)
    # Count on the entry table alone; the row query's joins are only for the shown rows.
    paginator.__dict__["count"] = filtered_entries(entries, state).count()
    page = paginator.get_page(state.page)
    siblings = (
        visible_lists(request.user).filter(release=the_list.release).order_by("list_type__order")
    )
    columns = [COLUMNS[key] for key in state.columns]
    list_key = f"{the_list.release.acronym}/{the_list.list_type.slug}"
    return render(
        request,
        "rankings/list.html",
        {
            "nav": "lists",
            "list": the_list,
            "siblings": siblings,
            "state": state,
            "page": page,
            "rows": render_rows(page.object_list, columns, list_key),
            "columns": columns,
            "all_columns": list(COLUMNS.values()),
            "default_columns": DEFAULT_COLUMNS,
            "facets": _facets(request, the_list, entries),
            "levels": [("none", "None"), *LEVEL_LABELS.items()],
            "page_sizes": PAGE_SIZES,
            "sort_links": {
                c.key: state.query(
                    sort=c.key,
                    dir="asc"
                    if state.sort == c.key and state.descending
                    else (
                        "desc"
                        if state.sort == c.key
                        or (
                            c.numeric
                            and c.key not in ("rank", "bw_rank", "md_rank", "client_nodes", "procs")
                        )
                        else "asc"
                    ),
                    page="",
                )
                for c in columns
            },
            "prev_query": state.query(page=page.previous_page_number())
            if page.has_previous()
            else "",
            "next_query": state.query(page=page.next_page_number()) if page.has_next() else "",
            "corrections": the_list.corrections.count(),
            "max_compare": MAX_COMPARE,
            "empty_reason": empty_reason(the_list.list_type.slug),
        },
    )


def _export_rows(
    request: HttpRequest, the_list: RankedList
) -> tuple[ViewState, list[dict[str, Any]]]:
    state = ViewState.from_query(request.GET)
    rows = entry_queryset(visible_entries(request.user, the_list), state)
    return state, [entry_record(e, the_list) for e in rows]


def export_csv(request: HttpRequest, release: str, list_type: str) -> HttpResponse:
    the_list = _get_list(request, release, list_type)
    state, records = _export_rows(request, the_list)
    if state.errors:
        return HttpResponseBadRequest("; ".join(state.errors), content_type="text/plain")
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    name = f"ioscore-{the_list.release.acronym}-{the_list.list_type.slug}-r{the_list.revision}"
    response["Content-Disposition"] = f'attachment; filename="{name}.csv"'
    writer = csv.DictWriter(response, fieldnames=RECORD_FIELDS)
    writer.writeheader()
    for record in records:
        writer.writerow({key: csv_cell(value) for key, value in record.items()})
    return response


def export_json(request: HttpRequest, release: str, list_type: str) -> HttpResponse:
    the_list = _get_list(request, release, list_type)
    state, records = _export_rows(request, the_list)
    if state.errors:
        return JsonResponse({"errors": state.errors}, status=400)
    return JsonResponse(
        {
            "release": the_list.release.acronym,
            "list": the_list.list_type.slug,
            "list_name": the_list.list_type.name,
            "revision": the_list.revision,
            "state": the_list.state,
            "count": len(records),
            "entries": records,
        }
    )


def changelog(request: HttpRequest, release: str) -> HttpResponse:
    the_release = get_object_or_404(Release, acronym=release)
    lists = visible_lists(request.user).filter(release=the_release)
    if not lists.exists():
        raise Http404("no visible lists for this release")
    corrections = (
        Correction.objects.filter(ranked_list__in=lists)
        .select_related("ranked_list__list_type", "submission")
        .order_by("-created", "-id")
    )
    return render(
        request,
        "rankings/changelog.html",
        {
            "nav": "lists",
            "release": the_release,
            "corrections": corrections,
            "lists": lists,
        },
    )


# --- submission page ------------------------------------------------------------------------


def _public_submission(request: HttpRequest, pk: int) -> Submission:
    return get_object_or_404(
        visible_submissions(request.user).select_related(
            "release", "site", "client_system", "storage_system"
        ),
        pk=pk,
    )


def _optional(obj: Any, name: str) -> Any:
    try:
        return getattr(obj, name)
    except Exception:  # the reverse one-to-one row does not exist
        return None


def _entries_of(request: HttpRequest, submission: Submission) -> QuerySet[ListEntry]:
    return (
        ListEntry.objects.filter(submission=submission, ranked_list__in=visible_lists(request.user))
        .select_related("ranked_list__release", "ranked_list__list_type")
        .order_by("-ranked_list__release__release_date", "ranked_list__list_type__order")
    )


def _context_entry(entries: list[ListEntry], wanted: str) -> ListEntry | None:
    """The list the radar is normalised to: ?list=<release>/<type>, else the newest award list
    holding the submission, else its newest list."""
    for entry in entries:
        key = f"{entry.ranked_list.release.acronym}/{entry.ranked_list.list_type.slug}"
        if key == wanted:
            return entry
    for entry in entries:
        if entry.ranked_list.list_type.award:
            return entry
    return entries[0] if entries else None


def _printed_product(submission: Submission) -> bool:
    """The run's file printed TOTAL = BW x MD (SC17's script): shown as printed beside the
    score IO500 ranks, sqrt(BW x MD)."""
    printed, bw, md = submission.printed_total, submission.score_bw, submission.score_md
    if printed is None or bw is None or md is None or bw * md <= 0:
        return False
    return (
        abs(printed - bw * md) <= 1e-3 * bw * md
        and abs(printed - (bw * md) ** 0.5) > 1e-3 * printed
    )


def submission_page(request: HttpRequest, pk: int) -> HttpResponse:
    submission = _public_submission(request, pk)
    phases = list(submission.phases.order_by("order", "name"))
    entries = list(_entries_of(request, submission))
    context_entry = _context_entry(entries, request.GET.get("list", ""))
    scored = {p.name: p.value for p in phases if p.name in PHASES}
    list_best = charts.list_best(context_entry.ranked_list) if context_entry is not None else None
    history_best = charts.history_best(visible_submissions(request.user))
    description = _optional(submission, "system_description")
    questionnaire = _optional(submission, "questionnaire")
    history = (
        visible_submissions(request.user)
        .filter(storage_system=submission.storage_system_id)
        .exclude(pk=submission.pk)
        .select_related("release")
        .order_by("release__release_date")
        if submission.storage_system_id
        else Submission.objects.none()
    )
    chart_data = {
        "radar": charts.radar_payload(
            [(f"#{submission.pk}", scored)],
            list_best,
            history_best,
            str(context_entry.ranked_list) if context_entry else "",
        ),
        "timeseries": charts.timeseries_payload(phases),
        "spread": charts.spread_payload(phases),
    }
    issues = list(submission.issues.all()) if hasattr(submission, "issues") else []
    return render(
        request,
        "rankings/submission.html",
        {
            "nav": "lists",
            "submission": submission,
            "phases": phases,
            "scored_phases": PHASES,
            "entries": entries,
            "latest_entries": [
                e for e in entries if e.ranked_list.release_id == entries[0].ranked_list.release_id
            ],
            "older_entries": [
                e for e in entries if e.ranked_list.release_id != entries[0].ranked_list.release_id
            ],
            "context_entry": context_entry,
            "description": description,
            "description_rows": charts.description_rows(description),
            "description_tree": json.dumps(description.data, indent=2, sort_keys=True)
            if description is not None and description.data
            else "",
            "questionnaire": questionnaire,
            "level_label": LEVEL_LABELS.get(questionnaire.assigned_level, "")
            if questionnaire
            else "",
            "history": history,
            "issues": issues,
            "corrections": Correction.objects.filter(
                submission=submission, ranked_list__in=visible_lists(request.user)
            ).select_related("ranked_list__release", "ranked_list__list_type"),
            "chart_data": finite(chart_data),
            "has_archive": bool(submission.archive),
            "product_total": _printed_product(submission),
        },
    )


def io500_result(request: HttpRequest, io500_id: int) -> HttpResponse:
    """``/results/io500/<id>/``: the submission of an IO500 website id (= archive
    ``submission-<N>``), with the same visibility as its own page."""
    matches = visible_submissions(request.user).filter(io500_id=io500_id).order_by("pk")
    submission = matches.first()
    if submission is None:
        raise Http404(f"no visible submission with IO500 id {io500_id}")
    return redirect("rankings:result", pk=submission.pk)


def submission_archive(request: HttpRequest, pk: int) -> FileResponse:
    submission = _public_submission(request, pk)
    if not submission.archive:
        raise Http404("this submission has no stored archive")
    root = Path(settings.MEDIA_ROOT).resolve()
    path = (root / submission.archive).resolve()
    if root not in path.parents or not path.is_file():
        raise Http404("archive file not found")
    name = submission.archive_name or path.name
    return FileResponse(path.open("rb"), as_attachment=True, filename=name)


# --- compare --------------------------------------------------------------------------------


def _parse_ids(text: str) -> list[int]:
    ids: list[int] = []
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        if not part.isdigit():
            raise ValueError(f"parameter 'ids': {part!r} is not a submission id")
        if int(part) not in ids:
            ids.append(int(part))
    return ids


def compare(request: HttpRequest) -> HttpResponse:
    error = ""
    try:
        # ?ids=1,2,3 (permalinks) or repeated ?pick= (the list page's checkboxes)
        ids = _parse_ids(",".join([request.GET.get("ids", ""), *request.GET.getlist("pick")]))
    except ValueError as exc:
        ids, error = [], str(exc)
    if len(ids) > MAX_COMPARE:
        error = f"pick at most {MAX_COMPARE} submissions (got {len(ids)})"
        ids = ids[:MAX_COMPARE]
    found = {
        s.pk: s
        for s in visible_submissions(request.user)
        .filter(pk__in=ids)
        .select_related("release", "site", "client_system", "system_description")
    }
    missing = [i for i in ids if i not in found]
    if missing:
        error = "not found or not public: " + ", ".join(f"#{i}" for i in missing)
    subs = [found[i] for i in ids if i in found]
    if not error and 0 < len(subs) < 2:
        error = "pick at least 2 submissions to compare"
    values: dict[int, dict[str, float]] = defaultdict(dict)
    for sid, name, value in PhaseResult.objects.filter(
        submission__in=subs, name__in=PHASES
    ).values_list("submission_id", "name", "value"):
        values[sid][name] = value
    baseline_id = _int_or_none(request.GET.get("baseline"))
    baseline = next((s for s in subs if s.pk == baseline_id), subs[0] if subs else None)
    labels = {s.pk: charts.submission_label(s) for s in subs}
    metrics = [("score", "Score", ""), ("bw", "BW", "GiB/s"), ("md", "MD", "kIOPS")]
    ratio_rows = []
    for key, label, metric_unit in metrics:
        ratio_rows.append(
            charts.ratio_row(
                label,
                metric_unit,
                subs,
                baseline,
                partial(_metric_of, key),
            )
        )
    for phase in PHASES:
        ratio_rows.append(
            charts.ratio_row(phase, unit(phase), subs, baseline, partial(_phase_of, values, phase))
        )
    history_best = charts.history_best(visible_submissions(request.user))
    series = [(labels[s.pk], values[s.pk]) for s in subs]
    chart_data = {
        "radar": charts.radar_payload(series, None, history_best, ""),
        "bars": charts.bars_payload(series),
        "ids": [s.pk for s in subs],
    }
    return render(
        request,
        "rankings/compare.html",
        {
            "nav": "compare",
            "error": error,
            "subs": subs,
            "labels": labels,
            "baseline": baseline,
            "ratio_rows": ratio_rows,
            "diff_rows": charts.description_diff(subs),
            "chart_data": finite(chart_data),
            "ids_text": ",".join(str(s.pk) for s in subs) or request.GET.get("ids", ""),
            "max_compare": MAX_COMPARE,
        },
    )


def _metric_of(metric: str, submission: Submission) -> float | None:
    return {"score": submission.score_total, "bw": submission.score_bw, "md": submission.score_md}[
        metric
    ]


def _phase_of(
    values: dict[int, dict[str, float]], phase: str, submission: Submission
) -> float | None:
    return values[submission.pk].get(phase)


def _int_or_none(text: str | None) -> int | None:
    return int(text) if text and text.isdigit() else None


# --- trends ---------------------------------------------------------------------------------


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
