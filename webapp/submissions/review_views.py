"""The committee's pages: the review queue with filters and the review page, where the run and
its automatic checks sit side by side with the decision form.

Decisions go through ``review.decide`` (and so ``workflow.transition``), like the API's: the
same state rules, the same log line, the same e-mails.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from accounts.models import Site
from accounts.refusals import RoleRequired
from accounts.roles import REVIEWER
from ioscore.results import Severity

from . import access
from .forms import ReviewForm
from .models import Release, Status, Submission, TargetList
from .questionnaire import LEVEL_KEY, OPTIONAL, QUESTIONS
from .review import OwnSubmissionError, decide
from .workflow import TransitionError

PAGE_SIZE = 50
ANY = ""


class QueueFilter(forms.Form):
    """The queue's filters, from the query string (bad values are reported, not fatal)."""

    state = forms.ChoiceField(
        choices=[(ANY, "any state"), *Status.choices], required=False, initial=Status.UNDER_REVIEW
    )
    release = forms.ModelChoiceField(
        queryset=Release.objects.order_by("-release_date"),
        to_field_name="acronym",
        required=False,
        empty_label="any release",
    )
    target = forms.ChoiceField(
        choices=[(ANY, "any list"), *TargetList.choices], required=False, label="Target list"
    )
    site = forms.ModelChoiceField(  # by id: abbreviations are neither unique nor required
        queryset=Site.objects.order_by("name"), required=False, empty_label="any site"
    )
    waiting = forms.IntegerField(
        min_value=0,
        max_value=3650,
        required=False,
        label="Waiting at least (days)",
        help_text="days since it was submitted",
    )

    def rows(self) -> QuerySet[Submission]:
        rows = Submission.objects.select_related(
            "release", "site", "client_system", "system_description"
        ).annotate(
            blocking=Count("issues", filter=Q(issues__severity=Severity.INVALID.value)),
            warnings=Count("issues", filter=Q(issues__severity=Severity.WARNING.value)),
        )
        self.is_valid()  # a bad filter is named on the page; the good ones still apply
        data: dict[str, Any] = self.cleaned_data
        if data.get("state"):
            rows = rows.filter(status=data["state"])
        if data.get("release"):
            rows = rows.filter(release=data["release"])
        if data.get("target"):
            rows = rows.filter(target_list=data["target"])
        if data.get("site"):
            rows = rows.filter(site=data["site"])
        if data.get("waiting") is not None:
            cutoff = timezone.now() - timedelta(days=data["waiting"])
            rows = rows.filter(submitted_at__lte=cutoff)
        return rows.order_by("submitted_at", "id")


def _committee_only(request: HttpRequest, action: str) -> None:
    if not access.can_review(request.user):
        raise RoleRequired(REVIEWER, action)


@login_required
def queue(request: HttpRequest) -> HttpResponse:
    _committee_only(request, "see the review queue")
    params = request.GET.copy()
    if "state" not in params:
        params["state"] = Status.UNDER_REVIEW  # what the committee has to do
    filters = QueueFilter(params)
    page = Paginator(filters.rows(), PAGE_SIZE).get_page(request.GET.get("page"))
    query = params.copy()
    query.pop("page", None)
    context = {"filters": filters, "page": page, "now": timezone.now(), "query": query.urlencode()}
    return render(request, "submissions/queue.html", context)


def plain(value: Any) -> str:
    """An issue's expected/actual value in words: lists joined, mappings as key: value."""
    if value is None:
        return "\u2013"  # en dash, as the tables show a missing value
    if isinstance(value, list | tuple):
        return ", ".join(plain(v) for v in value) or "none"
    if isinstance(value, dict):
        return "; ".join(f"{k}: {plain(v)}" for k, v in value.items())
    return str(value)


def _review_context(request: HttpRequest, submission: Submission, form: ReviewForm) -> dict:
    issues = [(i, plain(i.expected), plain(i.actual)) for i in submission.issues.all()]
    questionnaire = getattr(submission, "questionnaire", None)
    answers = questionnaire.answers if questionnaire else {}
    labels = {**QUESTIONS, **OPTIONAL}
    own = submission.owner_id == request.user.pk
    return {
        "submission": submission,
        "system": getattr(submission, "system_description", None),
        "phases": [p for p in submission.phases.all() if p.name != "timestamp"],
        "issue_groups": [
            (label, [row for row in issues if row[0].severity == severity])
            for severity, label in (
                (Severity.INVALID.value, "Blocking"),
                (Severity.WARNING.value, "For the committee"),
                (Severity.INFO.value, "Could not be checked"),
            )
        ],
        "issue_count": len(issues),
        "answers": [(labels.get(k, k), answers.get(k, "")) for k in labels if k in answers],
        "questionnaire": questionnaire,
        "claimed_level": answers.get(LEVEL_KEY, ""),
        "transitions": submission.transitions.select_related("actor"),
        "form": form if submission.status == Status.UNDER_REVIEW and not own else None,
        "refusals": form.non_field_errors() if form.is_bound else [],
        "own": own,
    }


@login_required
def review_page(request: HttpRequest, pk: int) -> HttpResponse:
    _committee_only(request, "review submissions")
    submission = get_object_or_404(
        Submission.objects.select_related("release", "site", "client_system", "owner"), pk=pk
    )
    form = ReviewForm(request.POST or None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                _decide(request, submission, form.cleaned_data)
            except OwnSubmissionError as exc:
                raise PermissionDenied(str(exc)) from None
            except TransitionError as exc:
                form.add_error(None, str(exc))
                status = 409  # the state does not allow it (decided meanwhile, withdrawn)
            else:
                messages.success(
                    request, f"Submission {pk}: {Status(submission.status).label.lower()}."
                )
                return redirect("review-queue")
        status = max(status, 400)
    return render(
        request,
        "submissions/review.html",
        _review_context(request, submission, form),
        status=status,
    )


def _decide(request: HttpRequest, submission: Submission, data: dict[str, Any]) -> None:
    decide(
        submission,
        request.user,
        data["action"],
        data["comment"],
        data["assigned_level"] or None,
        data["production_eligible"],
        data["ten_node_eligible"],
    )


@require_POST
@login_required
def review(request: HttpRequest, pk: int) -> HttpResponse:
    """The decision form posted from the submission page; answers with a redirect to it."""
    _committee_only(request, "record a review decision")
    submission = get_object_or_404(Submission, pk=pk)
    form = ReviewForm(request.POST)
    if not form.is_valid():
        problems = (f"{k}: {' '.join(str(e) for e in v)}" for k, v in form.errors.items())
        messages.error(request, "; ".join(problems))
        return redirect("submission-page", pk=pk)
    try:
        _decide(request, submission, form.cleaned_data)
    except TransitionError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"submission {pk}: {submission.status}")
    return redirect("submission-page", pk=pk)
