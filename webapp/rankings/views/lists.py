"""A ranked list page (filters, sorting, pages, what-if scoring, the anonymous page cache),
its CSV and JSON downloads (cached the same way) and a release's changelog of corrections."""

from __future__ import annotations

import csv
from collections.abc import Callable
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

from ioscore.results import EDITIONS, FORMULA_FUNCTIONS, MAX_FORMULA_CHARS, formula_names
from submissions import public_version
from submissions.models import Release, Status

from .. import page_cache
from ..listview import (
    COLUMNS,
    DEFAULT_COLUMNS,
    LEVEL_LABELS,
    PAGE_SIZES,
    WHATIF_SORT,
    ViewState,
    WhatIfRows,
    descending_by_default,
    entry_queryset,
    facet_values,
    shown_rows,
)
from ..maintenance.builder import empty_reason
from ..models import Correction, CorrectionKind, ListEntry, RankedList
from ..records import (
    RECORD_FIELDS,
    WHATIF_FIELDS,
    csv_cell,
    entry_record,
    scoring_record,
    whatif_record,
)
from ..rows import render_rows
from ..visibility import (
    can_see_unpublished,
    entries_without,
    hidden_submissions,
    visible_entries,
    visible_lists,
)
from ..whatif import OFFICIAL
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
    state = ViewState.from_query(request.GET)
    return page_cache.serve(
        request,
        "list",
        version,
        lambda: _render_list(
            request, the_list, state, hidden_submissions(request.user, the_list), version
        ),
        params=state.cache_text(),
    )


def _render_list(
    request: HttpRequest,
    the_list: RankedList,
    state: ViewState,
    hidden: list[int] | None,
    version: list[Any] | None,
) -> HttpResponse:
    entries = entries_without(the_list, hidden)
    rows = shown_rows(entries, state, list_id=the_list.pk, version=version)
    paginator: Paginator[ListEntry] = Paginator(rows, state.per_page)  # type: ignore[arg-type]
    page = paginator.get_page(state.page)
    siblings = (
        visible_lists(request.user).filter(release=the_list.release).order_by("list_type__order")
    )
    columns = [COLUMNS[key] for key in state.columns]
    list_key = f"{the_list.release.acronym}/{the_list.list_type.slug}"
    whatif = isinstance(rows, WhatIfRows)
    sorts = [c.key for c in columns] + ([WHATIF_SORT] if whatif else [])
    return render(
        request,
        "rankings/list.html",
        {
            "nav": "lists",
            "list": the_list,
            "siblings": siblings,
            "state": state,
            "page": page,
            "rows": render_rows(page.object_list, columns, list_key, whatif=whatif),
            "columns": columns,
            "all_columns": list(COLUMNS.values()),
            "default_columns": DEFAULT_COLUMNS,
            "facets": _facets(request, the_list, entries, hidden),
            "levels": [("none", "None"), *LEVEL_LABELS.items()],
            "page_sizes": PAGE_SIZES,
            "sort_links": {
                key: state.query(
                    sort=key,
                    dir="asc"
                    if state.sort == key and state.descending
                    else ("desc" if state.sort == key or descending_by_default(key) else "asc"),
                    page="",
                )
                for key in sorts
            },
            "prev_query": state.query(page=page.previous_page_number())
            if page.has_previous()
            else "",
            "next_query": state.query(page=page.next_page_number()) if page.has_next() else "",
            "corrections": the_list.corrections.count(),
            "max_compare": MAX_COMPARE,
            "empty_reason": empty_reason(the_list.list_type.slug),
            "editions": list(EDITIONS.values()),
            "chosen_edition": state.scoring.edition_param or OFFICIAL,
            "reranking": rows.reranking if isinstance(rows, WhatIfRows) else None,
            "whatif_sort": WHATIF_SORT,
            "formula_names": formula_names(),
            "formula_functions": ", ".join(FORMULA_FUNCTIONS),
            "max_formula_chars": MAX_FORMULA_CHARS,
        },
    )


def _export_rows(
    request: HttpRequest, the_list: RankedList, state: ViewState, version: list[Any] | None
) -> list[dict[str, Any]]:
    """Every row of the view (no pages), as public records, with the what-if fields when
    the view has a scoring."""
    entries = visible_entries(request.user, the_list)
    if not state.scoring.active:
        rows = entry_queryset(entries, state, records=True, list_id=the_list.pk)
        return [entry_record(e, the_list) for e in rows]
    shown = shown_rows(
        entries, state, list_id=the_list.pk, version=version, records=True, window=slice(0, None)
    )
    return [entry_record(e, the_list) | whatif_record(e, state.scoring) for e in shown[:]]


def _export(
    request: HttpRequest,
    release: str,
    list_type: str,
    kind: str,
    write: Callable[[RankedList, ViewState, list[dict[str, Any]]], HttpResponse],
) -> HttpResponseBase:
    """A whole-list download through the anonymous page cache, keyed on the view's
    normalised parameters (pages and columns do not change a download)."""
    the_list = _get_list(request, release, list_type)
    version = page_cache.list_identity(the_list, request.user)
    state = ViewState.from_query(request.GET)
    return page_cache.serve(
        request,
        kind,
        version,
        lambda: write(the_list, state, _export_rows(request, the_list, state, version)),
        params=state.cache_text(paged=False),
    )


def _refusal(state: ViewState) -> list[str]:
    """What makes a download's parameters unusable: the bad values and a formula that
    cannot be used."""
    formula = [f"parameter 'formula': {state.scoring.error}"] if state.scoring.error else []
    return [*state.errors, *formula]


def export_csv(request: HttpRequest, release: str, list_type: str) -> HttpResponseBase:
    return _export(request, release, list_type, "list-csv", _write_csv)


def _write_csv(
    the_list: RankedList, state: ViewState, records: list[dict[str, Any]]
) -> HttpResponse:
    if refusal := _refusal(state):
        return HttpResponseBadRequest("; ".join(refusal), content_type="text/plain")
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    name = f"ioscore-{the_list.release.acronym}-{the_list.list_type.slug}-r{the_list.revision}"
    response["Content-Disposition"] = f'attachment; filename="{name}.csv"'
    fields = RECORD_FIELDS + (WHATIF_FIELDS if state.scoring.active else ())
    writer = csv.DictWriter(response, fieldnames=fields)
    writer.writeheader()
    for record in records:
        writer.writerow({key: csv_cell(value) for key, value in record.items()})
    return response


def export_json(request: HttpRequest, release: str, list_type: str) -> HttpResponseBase:
    return _export(request, release, list_type, "list-json", _write_json)


def _write_json(
    the_list: RankedList, state: ViewState, records: list[dict[str, Any]]
) -> HttpResponse:
    if refusal := _refusal(state):
        return JsonResponse({"errors": refusal}, status=400)
    document: dict[str, Any] = {
        "release": the_list.release.acronym,
        "list": the_list.list_type.slug,
        "list_name": the_list.list_type.name,
        "revision": the_list.revision,
        "state": the_list.state,
        "count": len(records),
    }
    if state.scoring.active:
        document["whatif"] = scoring_record(state.scoring)
    document["entries"] = records
    return JsonResponse(document)


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
