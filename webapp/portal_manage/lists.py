"""List pins, publishing a draft list, and list corrections.

Publishing makes a draft (or frozen) list public as it stands, once its release date has
passed; it is the only way a list the builder drafted becomes published, and, like every
action here, it is confirmed with a reason and recorded in the admin log (who, when, what).

A pin is the committee's choice of which run represents a storage system on a de-duplicated
list (``rankings.StoragePin``, read by the builder). A correction applies the builder's
current proposal to frozen or published lists as recorded ``Correction`` rows: the same
``build_lists`` that ``manage.py build_lists --correct REASON`` calls, first as a check, then
with the reason; the admin who confirmed it is recorded as its approver.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone

from rankings.maintenance.builder import BuildReport, build_lists
from rankings.maintenance.persistence import publish as publish_list
from rankings.models import Correction, ListState, RankedList, StoragePin
from submissions.models import ListType, Release, Submission

from . import audit
from .access import admin_only
from .confirm import ConfirmForm, confirmation


class PinForm(forms.Form):
    list_type = forms.ModelChoiceField(
        queryset=ListType.objects.filter(award=True),
        help_text="pins apply to the de-duplicated (award) lists of this type",
    )
    submission = forms.IntegerField(
        min_value=1,
        max_value=2**63 - 1,  # the id column's range
        label="Submission #",
        help_text="the run to show for its storage system",
    )

    def clean_submission(self) -> Submission:
        number = self.cleaned_data["submission"]
        found = Submission.objects.select_related("storage_system").filter(pk=number).first()
        if found is None:
            raise forms.ValidationError(f"there is no submission #{number}")
        if found.storage_system is None:
            raise forms.ValidationError(f"submission #{number} has no storage system to pin")
        return found


@admin_only
def pins(request: HttpRequest) -> HttpResponse:
    actor: Any = request.user
    form = PinForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        submission: Submission = form.cleaned_data["submission"]
        list_type: ListType = form.cleaned_data["list_type"]
        assert submission.storage_system is not None  # checked by the form
        system = submission.storage_system.canonical()
        replaced = StoragePin.objects.filter(list_type=list_type, storage_system=system).first()
        effect = (
            f"On {list_type.name} lists, show submission #{submission.pk} for storage system "
            f"{system}"
            + (f", instead of the pinned #{replaced.submission_id}" if replaced else "")
            + ". Draft lists follow at the next build; frozen or published lists only through "
            "a correction."
        )
        confirm = ConfirmForm(request.POST if request.POST.get("confirmed") else None)
        if not confirm.is_valid():
            return confirmation(request, effect, confirm, form)
        with transaction.atomic():
            StoragePin.objects.update_or_create(
                list_type=list_type,
                storage_system=system,
                defaults={
                    "submission": submission,
                    "reason": confirm.cleaned_data["reason"],
                    "created_by": actor,
                    "created": timezone.now(),
                },
            )
        messages.success(request, effect)
        return redirect("manage-pins")
    rows = StoragePin.objects.select_related(
        "list_type", "storage_system", "submission", "created_by"
    ).order_by("-created")
    context = {"form": form, "pins": rows, "log": audit.recent(StoragePin)}
    return render(request, "manage/pins.html", context, status=400 if form.errors else 200)


@admin_only
def unpin(request: HttpRequest, pk: int) -> HttpResponse:
    pin = get_object_or_404(StoragePin.objects.select_related("list_type", "storage_system"), pk=pk)
    effect = (
        f"Remove the pin of submission #{pin.submission_id} for {pin.storage_system} on "
        f"{pin.list_type.name} lists: the highest score represents the system again."
    )
    confirm = ConfirmForm(request.POST if request.POST.get("confirmed") else None)
    if not confirm.is_valid():
        return confirmation(request, effect, confirm)
    with transaction.atomic():
        audit.record(request.user, pin, "removed the pin", confirm.cleaned_data["reason"])
        pin.delete()
    messages.success(request, effect)
    return redirect("manage-pins")


@admin_only
def lists(request: HttpRequest) -> HttpResponse:
    """The lists not published yet, each with its publish step, and the log of publications."""
    waiting = (
        RankedList.objects.exclude(state=ListState.PUBLISHED)
        .select_related("release", "list_type")
        .order_by("-release__release_date", "list_type__order")
    )
    context = {"lists": waiting, "log": audit.recent(RankedList)}
    return render(request, "manage/lists.html", context)


@admin_only
def publish(request: HttpRequest, pk: int) -> HttpResponse:
    ranked_list = get_object_or_404(
        RankedList.objects.select_related("release", "list_type"), pk=pk
    )
    count = ranked_list.entries.count()
    size = f"{count} {'entry' if count == 1 else 'entries'}"
    release = ranked_list.release
    when = (
        "it is public at once"
        if release.release_date <= timezone.now().date()
        else f"it becomes public on the release date, {release.release_date}"
    )
    effect = (
        f"Publish the {ranked_list} (revision {ranked_list.revision}, {size}) as it "
        f"stands: {when}. From then on it changes only through corrections, shown in the "
        "public changelog."
    )
    refusal = "it is published already" if ranked_list.state == ListState.PUBLISHED else ""
    confirm = ConfirmForm(request.POST if request.POST.get("confirmed") else None)
    if refusal or not confirm.is_valid():
        return confirmation(request, effect, confirm, refusal=refusal)
    with transaction.atomic():
        locked = RankedList.objects.select_for_update().get(pk=ranked_list.pk)
        if locked.state == ListState.PUBLISHED:  # published meanwhile by another admin
            return confirmation(request, effect, confirm, refusal="it is published already")
        publish_list(locked)
        audit.record(
            request.user,
            locked,
            f"published the list (revision {locked.revision}, {size})",
            confirm.cleaned_data["reason"],
        )
    messages.success(request, effect)
    return redirect("manage-lists")


class CorrectionScope(forms.Form):
    release = forms.ModelChoiceField(
        queryset=Release.objects.order_by("-release_date"),
        to_field_name="acronym",
        required=False,
        empty_label="every release",
        help_text="write only this release's lists (later releases carry them at their build)",
    )


@admin_only
def corrections(request: HttpRequest) -> HttpResponse:
    """Check what a rebuild would change, then apply it as corrections with a reason."""
    scope = CorrectionScope(request.POST or None)
    report: BuildReport | None = None
    if request.method == "POST" and scope.is_valid():
        release = scope.cleaned_data["release"]
        acronym = release.acronym if release else None
        confirm = ConfirmForm(request.POST if request.POST.get("confirmed") else None)
        if not confirm.is_valid():
            # The check is build_lists without a reason: drafts are rebuilt as usual, locked
            # lists are only compared, and their differences listed.
            try:
                report = build_lists(acronym)
            except ValueError as error:  # what manage.py build_lists reports as an error
                messages.error(request, str(error))
                return redirect("manage-corrections")
            if not report.stale:
                messages.info(request, "Every frozen and published list matches a rebuild.")
                return redirect("manage-corrections")
            effect = (
                f"Apply the rebuild to {len(report.stale)} frozen or published list(s) as "
                "recorded corrections, each with a new revision, shown in the public changelog."
            )
            return confirmation(request, effect, confirm, scope, details=report.stale)
        _correct(request, acronym, confirm.cleaned_data["reason"])
        return redirect("manage-corrections")
    recent = (
        Correction.objects.select_related(
            "ranked_list__release", "ranked_list__list_type", "submission"
        )
        .prefetch_related("approved_by")
        .order_by("-created", "-id")[:50]
    )
    return render(request, "manage/corrections.html", {"scope": scope, "recent": recent})


def _correct(request: HttpRequest, acronym: str | None, reason: str) -> None:
    actor: Any = request.user
    started = timezone.now()
    try:
        with transaction.atomic():
            report = _apply_correction(acronym, reason, actor, started)
    except ValueError as error:
        messages.error(request, str(error))
        return
    for line in report.lines():
        messages.info(request, line)


def _apply_correction(acronym: str | None, reason: str, actor: Any, started: Any) -> BuildReport:
    """``build_lists --correct REASON``, and ``actor`` as the approver of what it recorded."""
    report = build_lists(acronym, correction_reason=reason)
    for correction in Correction.objects.filter(created__gte=started, reason=reason):
        correction.approved_by.add(actor)
    return report
