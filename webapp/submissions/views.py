"""HTML pages: my submissions, a submission's archive, withdrawal.

Upload and edit are in ``upload_views``, the committee's pages in ``review_views``; the
submission/status page (the private twin of the public result page, sharing its partials and
charts) is ``rankings.views.run``.
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from . import access
from .models import Status, Submission
from .workflow import OWNER, TransitionError, transition

IN_PROGRESS = {Status.SUBMITTED, Status.VALIDATING}


def viewable(request: HttpRequest, pk: int) -> Submission:
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


def archive(request: HttpRequest, pk: int) -> FileResponse:
    submission = viewable(request, pk)
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
    submission = viewable(request, pk)
    if not access.is_owner(request.user, submission):
        raise PermissionDenied("only the owner may withdraw")
    try:
        transition(
            submission, Status.WITHDRAWN, request.user, request.POST.get("comment", ""), role=OWNER
        )
    except TransitionError as exc:
        messages.error(request, str(exc))
    return redirect("submission-page", pk=pk)
