"""The submission/status page of a run for its owner, the committee and (once public) anyone:
the private twin of the public result page, built from the same partials and charts.

Visibility is the submissions app's (``submissions.views.viewable``); a visitor who is not
logged in gets the "private" page for every id, existing or not.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from ioscore.results import Severity
from portal.templatetags.navigation import login_url
from submissions import access, contact, fields
from submissions.canonical_names import as_submitted
from submissions.forms import ReviewForm
from submissions.models import Status
from submissions.views import viewable

from .. import run_page

IN_PROGRESS = {Status.SUBMITTED, Status.VALIDATING}


def _private_page(request: HttpRequest) -> HttpResponse:
    """For a visitor who is not logged in: what the page is and where to log in. Shown for
    every id they cannot see, existing or not (existence is not confirmed), still as a 404."""
    return render(
        request, "submissions/private.html", {"login_url": login_url(request)}, status=404
    )


def run_status_page(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        submission = viewable(request, pk)
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
        "blocking": submission.issues.filter(severity=Severity.INVALID.value).count(),
        "phases": phases,
        "chart_data": run_page.run_charts(submission, phases, request.user) if phases else None,
        "timeline": run_page.timeline(submission, transitions, request.user),
        "system": system,
        "as_submitted": as_submitted(system),
        "questionnaire": questionnaire,
        # The private contact is for the committee only.
        "submitter_email": _contact_email(system) if reviewer else "",
        "submitter_name": fields.submitter_name(request.user, submission, system),
        "level_history": [
            {
                "created": change.created,
                "kind": change.kind,
                "old_level": change.old_level,
                "new_level": change.new_level,
                "who": fields.actor_name(request.user, submission, change.actor),
                "comment": fields.comment(request.user, submission, change.comment),
            }
            for change in questionnaire.level_history.select_related("actor")
        ]
        if questionnaire
        else [],
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
