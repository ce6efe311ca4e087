"""HTML pages: my submissions, the submission/status page, its archive, withdrawal.

Upload and edit are in ``upload_views``, the committee's pages in ``review_views``.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render, resolve_url
from django.views.decorators.http import require_POST

from ioscore.results import Severity

from . import access, contact
from .forms import ReviewForm
from .models import Status, Submission
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
    context = {
        "submission": submission,
        "issues": submission.issues.all(),
        "blocking": submission.issues.filter(severity=Severity.INVALID.value).count(),
        "phases": submission.phases.all(),
        "transitions": submission.transitions.select_related("actor"),
        "system": system,
        "system_json": json.dumps(system.data, indent=1) if system else "",
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
