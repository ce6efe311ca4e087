"""A submission's public page (scores, placements, radar, phases, description), its archive
download and the redirect from an IO500 website id."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from ioscore_site.finite_json import finite
from submissions.canonical_names import as_submitted
from submissions.models import Submission

from .. import charts
from ..listview import LEVEL_LABELS
from ..models import Correction, ListEntry
from ..phases import PHASES
from ..visibility import visible_lists, visible_submissions


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
        **charts.inside_run_payload(phases),
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
            "as_submitted": as_submitted(description),
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
