"""Releases: create one, open it until a deadline, close it, make it the one uploads go to.

Uploads go to the open release with the nearest deadline (``intake.open_release``), so
"open", "close" and "current" are all statements about deadlines; the page says which
release is current now and what each action changes before it is applied.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from django import forms
from django.contrib import messages
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from rest_framework import serializers

from submissions.intake import IntakeError, open_release
from submissions.models import Release
from submissions.serializers import ReleaseSerializer

from . import audit
from .access import admin_only
from .confirm import ConfirmForm, confirmation

ACTIONS = ("open", "close", "current")


class ReleaseForm(forms.ModelForm):
    accepted = forms.CharField(
        required=False,
        label="Accepted benchmark versions",
        help_text="version tags, separated by spaces or commas, e.g. io500-isc26",
    )

    class Meta:
        model = Release
        fields = ["acronym", "name", "release_date", "submission_deadline", "tag_date"]
        widgets = {
            "release_date": forms.DateInput(attrs={"type": "date"}),
            "submission_deadline": forms.DateInput(attrs={"type": "date"}),
            "tag_date": forms.DateInput(attrs={"type": "date"}),
        }

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        data["accepted_versions"] = self.cleaned_accepted()
        try:  # the release API's rules, so both refuse the same releases
            ReleaseSerializer().validate(dict(data))
        except serializers.ValidationError as exc:
            detail = exc.detail if isinstance(exc.detail, dict) else {None: exc.detail}
            for name, problems in detail.items():
                for problem in problems if isinstance(problems, list) else [problems]:
                    self.add_error(name if name in self.fields else None, str(problem))
        return data

    def cleaned_accepted(self) -> list[str]:
        text = self.cleaned_data.get("accepted") or ""
        return [tag for tag in text.replace(",", " ").split() if tag][:20]


class DeadlineForm(forms.Form):
    deadline = forms.DateField(widget=forms.DateInput(attrs={"type": "date"}))


def current_release() -> Release | None:
    try:
        return open_release()
    except IntakeError:
        return None


def _yesterday() -> date:
    return timezone.now().date() - timedelta(days=1)


@admin_only
def releases(request: HttpRequest) -> HttpResponse:
    form = ReleaseForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        with transaction.atomic():
            release = form.save(commit=False)
            release.accepted_versions = form.cleaned_accepted()
            release.historic = False
            release.save()
            audit.record(request.user, release, f"created release {release.acronym}", "")
        messages.success(request, f"Release {release.acronym} created.")
        return redirect("manage-releases")
    context = {
        "form": form,
        "releases": Release.objects.order_by("-release_date"),
        "current": current_release(),
        "today": timezone.now().date(),
        "log": audit.recent(Release),
    }
    return render(request, "manage/releases.html", context, status=400 if form.errors else 200)


@admin_only
def release_action(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    """close, open (until a deadline) or current; each asks for a reason, then confirms."""
    if action not in ACTIONS:
        raise Http404(f"no release action {action!r}")
    release = get_object_or_404(Release, pk=pk)
    deadline_form = DeadlineForm(request.POST or None) if action == "open" else None
    if deadline_form is not None and request.method == "POST" and not deadline_form.is_valid():
        return confirmation(
            request, _effect(release, action, None), ConfirmForm(), deadline_form, status=400
        )
    deadline = deadline_form.cleaned_data["deadline"] if deadline_form is not None else None
    effect = _effect(release, action, deadline)
    refusal = _refusal(release, action, deadline)
    confirm = ConfirmForm(request.POST if request.POST.get("confirmed") else None)
    if refusal or not confirm.is_valid():
        return confirmation(request, effect, confirm, deadline_form, refusal=refusal)
    with transaction.atomic():
        _apply(release, action, deadline, request.user, confirm.cleaned_data["reason"])
    messages.success(request, effect)
    return redirect("manage-releases")


def _effect(release: Release, action: str, deadline: date | None) -> str:
    if action == "close":
        return (
            f"Close {release.acronym}: its submission deadline becomes {_yesterday()}, so no "
            "new upload goes to it and runs dated later fall outside its window."
        )
    if action == "open":
        until = deadline.isoformat() if deadline else "the date you choose"
        return f"Open {release.acronym} for submissions until {until} (its new deadline)."
    others = _earlier_open(release)
    names = ", ".join(r.acronym for r in others) or "none"
    return (
        f"Make {release.acronym} the release uploads go to: close the open releases with an "
        f"earlier deadline ({names}); their deadline becomes {_yesterday()}."
    )


def _earlier_open(release: Release) -> list[Release]:
    return list(
        Release.objects.filter(
            submission_deadline__gte=timezone.now().date(),
            submission_deadline__lt=release.submission_deadline,
        ).exclude(pk=release.pk)
    )


def _refusal(release: Release, action: str, deadline: date | None) -> str:
    if action == "open" and deadline is not None:
        if deadline < timezone.now().date():
            return "the new deadline is in the past"
        if deadline > release.release_date:
            return f"the deadline must not be after the release date ({release.release_date})"
    if action == "close" and not release.is_open():
        return f"{release.acronym} is already closed"
    if action == "current" and not release.is_open():
        return f"{release.acronym} is closed: open it first"
    return ""


def _apply(release: Release, action: str, deadline: date | None, actor: Any, reason: str) -> None:
    if action == "close":
        _set_deadline(release, _yesterday(), actor, "closed for submissions", reason)
    elif action == "open" and deadline is not None:
        _set_deadline(release, deadline, actor, f"opened for submissions until {deadline}", reason)
    elif action == "current":
        for other in _earlier_open(release):
            _set_deadline(
                other, _yesterday(), actor, f"closed to make {release.acronym} current", reason
            )
        audit.record(actor, release, "made the release uploads go to", reason)


def _set_deadline(release: Release, deadline: date, actor: Any, what: str, reason: str) -> None:
    old = release.submission_deadline
    release.submission_deadline = deadline
    release.save(update_fields=["submission_deadline"])
    audit.record(actor, release, f"{what} (deadline {old} -> {deadline})", reason)
