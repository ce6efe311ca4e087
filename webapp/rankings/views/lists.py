"""A ranked list page (filters, sorting, pages, the anonymous page cache), its CSV and JSON
downloads and a release's changelog of corrections."""

from __future__ import annotations

import csv
from typing import Any

from django.core.cache import cache
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    HttpResponseBase,
    JsonResponse,
)
from django.shortcuts import get_object_or_404, render

from submissions import public_version
from submissions.models import Release, Status

from .. import page_cache
from ..listview import (
    COLUMNS,
    DEFAULT_COLUMNS,
    LEVEL_LABELS,
    PAGE_SIZES,
    ListRows,
    ViewState,
    descending_by_default,
    entry_queryset,
    facet_values,
)
from ..maintenance.builder import empty_reason
from ..models import Correction, CorrectionKind, ListEntry, RankedList
from ..records import RECORD_FIELDS, csv_cell, entry_record
from ..rows import render_rows
from ..visibility import (
    can_see_unpublished,
    entries_without,
    hidden_submissions,
    visible_entries,
    visible_lists,
)
from .compare import MAX_COMPARE

FACET_CACHE_SECONDS = 300


def _get_list(request: HttpRequest, release: str, list_type: str) -> RankedList:
    return get_object_or_404(
        visible_lists(request.user), release__acronym=release, list_type__slug=list_type
    )


def _facets(
    request: HttpRequest,
    the_list: RankedList,
    entries: QuerySet[ListEntry],
    hidden: list[int] | None,
) -> dict[str, Any]:
    """Filter choices change only when the list does (new revision or rebuild) or its names
    are rewritten in place (a canonical rename moves the public-results version), so they
    are cached per both versions; a withdrawn entry can at worst leave one stale choice. The
    list's stored choices are every entry's, so they serve only a view hiding none."""
    key = ":".join(
        [
            "rankings-facets",
            *map(str, page_cache.list_version(the_list)),
            public_version.current(),
            str(int(can_see_unpublished(request.user))),
        ]
    )
    facets: dict[str, Any] | None = cache.get(key)
    if facets is None:
        facets = facet_values(entries, None if hidden else the_list.pk)
        cache.set(key, facets, FACET_CACHE_SECONDS)
    return facets


def ranked_list(request: HttpRequest, release: str, list_type: str) -> HttpResponseBase:
    the_list = _get_list(request, release, list_type)
    version = page_cache.list_identity(the_list, request.user)
    return page_cache.serve(
        request,
        "list",
        version,
        lambda: _render_list(
            request, the_list, hidden_submissions(request.user, the_list), version
        ),
    )


def _render_list(
    request: HttpRequest,
    the_list: RankedList,
    hidden: list[int] | None,
    version: list[Any] | None,
) -> HttpResponse:
    state = ViewState.from_query(request.GET)
    entries = entries_without(the_list, hidden)
    rows = ListRows(entries, state, version=version, list_id=the_list.pk)
    paginator: Paginator[ListEntry] = Paginator(rows, state.per_page)
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
            "facets": _facets(request, the_list, entries, hidden),
            "levels": [("none", "None"), *LEVEL_LABELS.items()],
            "page_sizes": PAGE_SIZES,
            "sort_links": {
                c.key: state.query(
                    sort=c.key,
                    dir="asc"
                    if state.sort == c.key and state.descending
                    else ("desc" if state.sort == c.key or descending_by_default(c.key) else "asc"),
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
    rows = entry_queryset(
        visible_entries(request.user, the_list), state, records=True, list_id=the_list.pk
    )
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
    corrections = list(
        Correction.objects.filter(ranked_list__in=lists)
        .select_related("ranked_list__list_type", "submission")
        .order_by("-created", "-id")
    )
    for correction in corrections:  # a withdrawn run's numbers are never repeated here
        if correction.submission is not None and correction.submission.status == Status.WITHDRAWN:
            correction.kind = CorrectionKind.WITHDRAWN
            correction.old_value = correction.new_value = None
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
