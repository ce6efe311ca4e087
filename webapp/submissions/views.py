"""HTML pages: upload, my submissions, submission/status page, edit, review queue."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import DataError
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render, resolve_url
from django.views.decorators.http import require_POST

from accounts.roles import REVIEWER, SUBMITTER
from ioscore_site import ratelimit
from ioscore_site.errors import RoleRequired
from rankings import run_page
from validation.models import ValidationIssue

from . import access, contact
from .forms import MetadataForm, ReviewForm, UploadForm
from .intake import (
    UNSTORABLE,
    IntakeError,
    enqueue_validation,
    parse_json_field,
    receive_upload,
    save_metadata,
)
from .models import Status, Submission
from .review import decide
from .upload_limit import upload_refusal
from .workflow import OWNER, TransitionError, transition

IN_PROGRESS = {Status.SUBMITTED, Status.VALIDATING}


def _viewable(request: HttpRequest, pk: int) -> Submission:
    submission = get_object_or_404(
        Submission.objects.select_related("release", "site", "client_system", "owner"), pk=pk
    )
    if not access.can_view(request.user, submission):
        raise Http404("no such submission")
    return submission


@login_required
def upload(request: HttpRequest) -> HttpResponse:
    if not access.can_submit(request.user):
        raise RoleRequired(SUBMITTER, "upload runs")
    if request.method == "POST":
        checks = ratelimit.upload_checks(request)
        wait = ratelimit.retry_after(checks)
        if wait is not None:
            form = UploadForm(user=request.user)
            context = {"form": form, "refusal": ratelimit.too_many_message("uploads", wait)}
            response = render(request, "submissions/upload.html", context, status=429)
            response["Retry-After"] = str(wait)
            return response
        ratelimit.record(checks)
    form = UploadForm(request.POST or None, request.FILES or None, user=request.user)
    refusal = upload_refusal(request) if request.method == "POST" else None
    if refusal:
        form.is_valid()
        form.errors["archive"] = form.error_class([refusal])  # the body was not read
        return render(request, "submissions/upload.html", {"form": form}, status=413)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            result = receive_upload(
                data["archive"],
                user=request.user,
                site=data["site"],
                system=parse_json_field("system", data["system"]),
                questionnaire=parse_json_field("questionnaire", data["questionnaire"]),
                target_list=data["target_list"],
            )
        except IntakeError as exc:
            form.add_error(exc.field if exc.field in form.fields else None, str(exc))
            return render(request, "submissions/upload.html", {"form": form}, status=exc.status)
        else:
            if result.duplicate:
                messages.info(
                    request, "This archive was uploaded before; showing the existing submission."
                )
            return redirect("submission-page", pk=result.submission.pk)
    return render(request, "submissions/upload.html", {"form": form})


@login_required
def mine(request: HttpRequest) -> HttpResponse:
    rows = Submission.objects.filter(owner_id=request.user.pk).select_related("release", "site")
    return render(request, "submissions/mine.html", {"submissions": rows})


def _private_page(request: HttpRequest) -> HttpResponse:
    """For a visitor who is not logged in: what the page is and where to log in. Shown for
    every id they cannot see, existing or not (existence is not confirmed), still as a 404."""
    login_url = f"{resolve_url(settings.LOGIN_URL)}?{urlencode({'next': request.path})}"
    return render(request, "submissions/private.html", {"login_url": login_url}, status=404)


def detail(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        submission = _viewable(request, pk)
    except Http404:
        if request.user.is_authenticated:
            raise
        return _private_page(request)
    reviewer = access.can_review(request.user)
    system = getattr(submission, "system_description", None)
    questionnaire = getattr(submission, "questionnaire", None)
    phases = list(submission.phases.order_by("order", "name"))
    transitions = list(submission.transitions.select_related("actor").order_by("created", "id"))
    context = {
        "submission": submission,
        "issues": submission.issues.all(),
        "blocking": submission.issues.filter(severity=ValidationIssue.INVALID).count(),
        "phases": phases,
        "chart_data": run_page.run_charts(submission, phases, request.user) if phases else None,
        "timeline": run_page.timeline(submission, transitions),
        "system": system,
        "questionnaire": questionnaire,
        # The private contact is for the committee only.
        "submitter_email": _contact_email(system) if reviewer else "",
        "submitter_name": getattr(system, "submitter_name", "")
        if reviewer or submission.show_submitter or access.is_owner(request.user, submission)
        else "",
        "level_history": questionnaire.level_history.all() if questionnaire else [],
        "in_progress": submission.status in IN_PROGRESS,
        "is_reviewer": reviewer,
        "review_form": ReviewForm()
        if reviewer and submission.status == Status.UNDER_REVIEW
        else None,
        "can_edit": access.can_edit(request.user, submission),
        "can_withdraw": access.is_owner(request.user, submission)
        and submission.status in (Status.DRAFT, Status.SUBMITTED, Status.UNDER_REVIEW),
    }
    return render(request, "submissions/detail.html", context)


def _contact_email(system: object) -> str:
    token = getattr(system, "submitter_email_encrypted", "")
    try:
        return contact.decrypt(token)
    except contact.ContactDecryptError as exc:
        return f"(unreadable: {exc})"


def archive(request: HttpRequest, pk: int) -> FileResponse:
    submission = _viewable(request, pk)
    if not submission.archive:
        raise Http404("no archive stored for this submission")
    path = (Path(settings.MEDIA_ROOT) / submission.archive).resolve()
    if Path(settings.MEDIA_ROOT).resolve() not in path.parents or not path.is_file():
        raise Http404("archive missing")
    name = submission.archive_name or path.name
    return FileResponse(path.open("rb"), as_attachment=True, filename=name)


@login_required
def edit(request: HttpRequest, pk: int) -> HttpResponse:
    submission = _viewable(request, pk)
    if not access.can_edit(request.user, submission):
        raise PermissionDenied(
            "only the owner may edit, and only in draft, validation failed or changes requested"
        )
    system = getattr(submission, "system_description", None)
    questionnaire = getattr(submission, "questionnaire", None)
    initial = {
        "system": json.dumps(system.data, indent=1) if system else "",
        "questionnaire": json.dumps(questionnaire.answers, indent=1) if questionnaire else "",
    }
    form = MetadataForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            system_data = parse_json_field("system", form.cleaned_data["system"])
            answers = parse_json_field("questionnaire", form.cleaned_data["questionnaire"])
        except IntakeError as exc:
            form.add_error(exc.field, str(exc))
        else:
            try:
                _save_and_maybe_submit(
                    request, submission, system_data, answers, form.cleaned_data["submit_now"]
                )
            except TransitionError as exc:
                form.add_error(None, str(exc))
            except IntakeError as exc:
                form.add_error(exc.field, str(exc))
            except DataError:
                form.add_error("system", UNSTORABLE)
            else:
                return redirect("submission-page", pk=submission.pk)
    return render(request, "submissions/edit.html", {"form": form, "submission": submission})


def _save_and_maybe_submit(
    request: HttpRequest,
    submission: Submission,
    system_data: object,
    answers: object,
    submit_now: bool,
) -> None:
    from django.db import transaction

    with transaction.atomic():
        save_metadata(submission, system_data, answers, request.user)  # type: ignore[arg-type]
        if submit_now:
            if submission.status == Status.VALIDATION_FAILED:
                transition(submission, Status.DRAFT, request.user, "edited", role=OWNER)
            transition(submission, Status.SUBMITTED, request.user, "resubmitted", role=OWNER)
            enqueue_validation(submission.pk)


@require_POST
@login_required
def withdraw(request: HttpRequest, pk: int) -> HttpResponse:
    submission = _viewable(request, pk)
    if not access.is_owner(request.user, submission):
        raise PermissionDenied("only the owner may withdraw")
    try:
        transition(
            submission, Status.WITHDRAWN, request.user, request.POST.get("comment", ""), role=OWNER
        )
    except TransitionError as exc:
        messages.error(request, str(exc))
    return redirect("submission-page", pk=pk)


@login_required
def queue(request: HttpRequest) -> HttpResponse:
    if not access.can_review(request.user):
        raise RoleRequired(REVIEWER, "see the review queue")
    rows = (
        Submission.objects.filter(status=Status.UNDER_REVIEW)
        .select_related("release", "site", "client_system")
        .order_by("submitted_at", "id")
    )
    return render(request, "submissions/queue.html", {"submissions": rows})


@require_POST
@login_required
def review(request: HttpRequest, pk: int) -> HttpResponse:
    if not access.can_review(request.user):
        raise RoleRequired(REVIEWER, "record a review decision")
    submission = get_object_or_404(Submission, pk=pk)
    form = ReviewForm(request.POST)
    if not form.is_valid():
        problems = (f"{k}: {' '.join(str(e) for e in v)}" for k, v in form.errors.items())
        messages.error(request, "; ".join(problems))
        return redirect("submission-page", pk=pk)
    data = form.cleaned_data
    try:
        decide(
            submission,
            request.user,
            data["action"],
            data["comment"],
            data["assigned_level"] or None,
            data["production_eligible"],
            data["ten_node_eligible"],
        )
    except TransitionError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"submission {pk}: {submission.status}")
    return redirect("submission-page", pk=pk)
