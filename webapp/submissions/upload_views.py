"""The upload and edit pages: the archive, the system description and the questionnaire as
guided forms (``guided``), stored through the same intake as the API (``intake``).

A post without the guided form's marker (a script posting the JSON fields, as the API takes
them) is still accepted and checked by the validation pipeline, as before.
"""

from __future__ import annotations

from contextlib import suppress
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import DataError, transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from accounts.refusals import RoleRequired
from accounts.roles import SUBMITTER
from ioscore.results import Severity
from ioscore_site import ratelimit

from . import access, admission, archive_guide, contact, guided
from .forms import MetadataForm, UploadForm
from .intake import (
    UNSTORABLE,
    IntakeError,
    enqueue_validation,
    parse_json_field,
    receive_upload,
    save_metadata,
)
from .models import Status, Submission
from .upload_limit import upload_refusal
from .views import viewable
from .workflow import OWNER, TransitionError, transition


def _page(
    request: HttpRequest,
    template: str,
    form: Any,
    forms: guided.Guided,
    status: int = 200,
    **extra: Any,
) -> HttpResponse:
    context = {
        "form": form,
        "guided": forms,
        "system_root": forms.system.root,
        "must_hold": archive_guide.must_hold(),
        "server_checks": archive_guide.server_checks(),
        **extra,
    }
    return render(request, template, context, status=status)


@login_required
def upload(request: HttpRequest) -> HttpResponse:
    if not access.can_submit(request.user):
        raise RoleRequired(SUBMITTER, "upload runs")
    page = "submissions/upload.html"
    if request.method == "POST" and not guided.changes_form_only(request):
        checks = ratelimit.upload_checks(request)
        wait = ratelimit.retry_after(checks)
        if wait is not None:
            refused = ratelimit.too_many_message("uploads", wait)
            response = _page(
                request,
                page,
                UploadForm(user=request.user),
                guided.kept(request),
                status=429,
                refusal=refused,
            )
            response["Retry-After"] = str(wait)
            return response
        ratelimit.record(checks)
    form = UploadForm(request.POST or None, request.FILES or None, user=request.user)
    refusal = upload_refusal(request) if request.method == "POST" else None
    if refusal:
        form.is_valid()
        form.errors["archive"] = form.error_class([refusal])  # the body was not read
        return _page(request, page, form, guided.unbound(None, None), status=413)
    if not guided.is_guided(request):
        forms = guided.unbound(None, None)
        if request.method == "POST" and form.is_valid():
            return _store_json_upload(request, form, forms)
        return _page(request, page, form, forms)
    forms = guided.from_post(request)
    if not forms.stores:  # only the form changed: show it again, nothing to complain about
        kept = {name: request.POST.get(name) for name in ("site", "target_list")}
        again = UploadForm(initial=kept, user=request.user)
        return _page(request, page, again, forms, status=400 if forms.paste_error else 200)
    ok = all([form.is_valid(), forms.system.check(), forms.questionnaire.check()])
    if not ok:
        return _page(request, page, form, forms, status=400)
    return _receive(request, form, forms, forms.system.tree(), forms.questionnaire.answers())


def _store_json_upload(
    request: HttpRequest, form: UploadForm, forms: guided.Guided
) -> HttpResponse:
    data = form.cleaned_data
    try:
        system = parse_json_field("system", data["system"])
        answers = parse_json_field("questionnaire", data["questionnaire"])
    except IntakeError as exc:
        form.add_error(exc.field if exc.field in form.fields else None, str(exc))
        return _page(request, "submissions/upload.html", form, forms, status=exc.status)
    return _receive(request, form, forms, system, answers)


def _receive(
    request: HttpRequest,
    form: UploadForm,
    forms: guided.Guided,
    system: dict[str, Any] | None,
    answers: dict[str, Any] | None,
) -> HttpResponse:
    data = form.cleaned_data
    try:
        result = receive_upload(
            data["archive"],
            user=request.user,
            site=data["site"],
            system=system,
            questionnaire=answers,
            target_list=data["target_list"],
        )
    except IntakeError as exc:
        form.add_error(exc.field if exc.field in form.fields else None, str(exc))
        page = _page(request, "submissions/upload.html", form, forms, status=exc.status)
        if exc.retry_after_s is not None:
            page["Retry-After"] = str(exc.retry_after_s)
        return page
    if result.duplicate:
        messages.info(request, "This archive was uploaded before; showing the existing submission.")
    return redirect("submission-page", pk=result.submission.pk)


def _stored_tree(submission: Submission) -> dict[str, Any] | None:
    """The stored description with the owner's private contact put back for editing."""
    system = getattr(submission, "system_description", None)
    if system is None:
        return None
    tree = dict(system.data)
    submitter = dict(tree.get("submitter") or {})
    if system.submitter_name:
        submitter["name"] = system.submitter_name
    if system.submitter_email_encrypted:
        # unreadable: left out here (the stored one is kept unless the owner types a new one)
        with suppress(contact.ContactDecryptError):
            submitter["email"] = contact.decrypt(system.submitter_email_encrypted)
    tree["submitter"] = submitter
    return tree


@login_required
def edit(request: HttpRequest, pk: int) -> HttpResponse:
    submission = viewable(request, pk)
    if not access.can_edit(request.user, submission):
        raise PermissionDenied(
            "only the owner may edit, and only in draft, validation failed or changes requested"
        )
    page = "submissions/edit.html"
    questionnaire = getattr(submission, "questionnaire", None)
    stored_answers = questionnaire.answers if questionnaire else None
    extra = {
        "submission": submission,
        "change_request": _change_request(submission),
        "blocking": submission.issues.filter(severity=Severity.INVALID.value)
        if submission.status == Status.VALIDATION_FAILED
        else [],
    }
    if not guided.is_guided(request):
        return _edit_json(request, submission, stored_answers, extra)
    form = MetadataForm(request.POST)
    form.is_valid()
    forms = guided.from_post(request)
    if not forms.stores:
        status = 400 if forms.paste_error else 200
        return _page(request, page, MetadataForm(), forms, status=status, **extra)
    submit_now = bool(form.cleaned_data.get("submit_now"))
    complete = all([forms.system.check(), forms.questionnaire.check()])
    if submit_now and not complete:
        return _page(request, page, form, forms, status=400, **extra)
    if not forms.system.fields_ok or not forms.questionnaire.fields_ok:
        return _page(request, page, form, forms, status=400, **extra)
    if _save(request, form, submission, forms.system.tree(), forms.questionnaire.answers()):
        if not complete:
            messages.warning(request, "Saved as a draft; the fields marked below still need work.")
            return _page(request, page, form, forms, **extra)
        return redirect("submission-page", pk=submission.pk)
    return _page(request, page, form, forms, status=400, **extra)


def _edit_json(
    request: HttpRequest,
    submission: Submission,
    stored_answers: Any,
    extra: dict[str, Any],
) -> HttpResponse:
    """The edit page shown for a GET, and the JSON-field post of scripts."""
    tree = _stored_tree(submission)
    stored = tree is not None or stored_answers is not None
    forms = guided.checked(tree, stored_answers) if stored else guided.unbound(None, None)
    form = MetadataForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            system = parse_json_field("system", form.cleaned_data["system"])
            answers = parse_json_field("questionnaire", form.cleaned_data["questionnaire"])
        except IntakeError as exc:
            form.add_error(exc.field, str(exc))
        else:
            if _save(request, form, submission, system, answers):
                return redirect("submission-page", pk=submission.pk)
    return _page(request, "submissions/edit.html", form, forms, **extra)


def _save(
    request: HttpRequest,
    form: MetadataForm,
    submission: Submission,
    system: Any,
    answers: Any,
) -> bool:
    """Store the metadata (and resubmit when asked); False with the reason on the form."""
    try:
        _save_and_maybe_submit(
            request, submission, system, answers, bool(form.cleaned_data.get("submit_now"))
        )
    except TransitionError as exc:
        form.add_error(None, str(exc))
    except IntakeError as exc:
        form.add_error(exc.field if exc.field in form.fields else None, str(exc))
    except DataError:
        form.add_error("system", UNSTORABLE)
    else:
        return True
    return False


def _save_and_maybe_submit(
    request: HttpRequest,
    submission: Submission,
    system_data: object,
    answers: object,
    submit_now: bool,
) -> None:
    with transaction.atomic():
        # The page read the run unlocked: ask again on the locked row, as a review or a
        # resubmission may have taken it out of the owner's hands since.
        submission = Submission.objects.select_for_update().get(pk=submission.pk)
        if not access.can_edit(request.user, submission):
            raise TransitionError(
                f"this submission is {submission.get_status_display().lower()} now "
                "and can no longer be edited"
            )
        # A resubmission costs a validation, as an upload does: the same budget.
        checks = ratelimit.upload_checks(request) if submit_now else []
        wait = ratelimit.retry_after(checks)
        if wait is not None:
            raise TransitionError(ratelimit.too_many_message("uploads and resubmissions", wait))
        refused = (
            admission.refusal(request.user, submission.site, lock=True) if submit_now else None
        )
        if refused is not None:
            raise TransitionError(refused.message)
        save_metadata(submission, system_data, answers, request.user)  # type: ignore[arg-type]
        if submit_now:
            ratelimit.record(checks)
            if submission.status == Status.VALIDATION_FAILED:
                transition(submission, Status.DRAFT, request.user, "edited", role=OWNER)
            transition(submission, Status.SUBMITTED, request.user, "resubmitted", role=OWNER)
            enqueue_validation(submission.pk)


def _change_request(submission: Submission) -> Any:
    """The committee's latest request for changes, shown above the form."""
    if submission.status != Status.CHANGES_REQUESTED:
        return None
    return (
        submission.transitions.filter(to_status=Status.CHANGES_REQUESTED)
        .select_related("actor")
        .last()
    )
