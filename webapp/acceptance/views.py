"""Acceptance pages: the sites' histories, one run, its report and archive, the upload form.

All private to the site's members and admins (``access``); anyone else gets a 404, and a
visitor who is not logged in the site's "private, log in" page (also a 404).
"""

from __future__ import annotations

import csv
from pathlib import Path

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Max, Q
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.http.response import HttpResponseBase
from django.shortcuts import redirect, render, resolve_url
from django.views.decorators.http import require_POST

from accounts import roles
from ioscore.results import DEFAULT_FRACTION
from ioscore_site import ratelimit
from portal.templatetags.navigation import login_url
from rankings.records import csv_cell
from submissions.intake import IntakeError
from submissions.models import StorageSystem
from submissions.upload_limit import upload_refusal

from . import access, history
from .forms import AcceptanceUploadForm, AlertRuleForm, RunEditForm
from .intake import delete, receive, update
from .models import AcceptanceRun, AlertRule, RegressionAlert

# The user's HTML report is shown only inside a frame of the report page, sandboxed twice
# (the iframe's sandbox attribute and this policy's sandbox), with an opaque origin: its
# scripts (the report's own inline plotly) may draw, but cannot reach this site's cookies,
# pages or API, load anything, submit forms, open windows or navigate the page around it
# (no allow-top-navigation, no allow-popups). Any fetch that is not a frame's (a tab opened
# on the content URL, an old browser that does not say) gets the file as an attachment, so
# the report never runs as a top-level page that could navigate its own tab.
REPORT_SANDBOX = "allow-scripts"
REPORT_POLICY = "; ".join(
    [
        f"sandbox {REPORT_SANDBOX}",
        "default-src 'none'",
        "script-src 'unsafe-inline'",
        "style-src 'unsafe-inline'",
        "img-src data: blob:",
        "font-src data:",
        "connect-src 'none'",
        "form-action 'none'",
        "base-uri 'none'",
        "frame-ancestors 'self'",
    ]
)


PAGE_RUNS = 60  # the newest runs drawn on a history page; the API pages through all of them
PAGE_ALERTS = 20  # the newest regression alerts listed on a history page


def _private(request: HttpRequest) -> HttpResponse:
    """As the submissions' private page: a 404 for every id, existing or not; a visitor who is
    not logged in is told what the page is and where to log in."""
    if request.user.is_authenticated:
        raise Http404("not found")
    return render(request, "acceptance/private.html", {"login_url": login_url(request)}, status=404)


def index(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return _private(request)
    sites = (
        access.visible_sites(request.user)
        .annotate(runs=Count("acceptance_runs"), last=Max("acceptance_runs__started"))
        .order_by("name")
    )
    return render(request, "acceptance/index.html", {"sites": sites})


def site_history(request: HttpRequest, pk: int, system: int | None = None) -> HttpResponse:
    try:
        site = access.site_or_404(request.user, pk)
    except Http404:
        return _private(request)
    runs = access.visible_runs(request.user).filter(site=site)
    # the site's own uploaded IO500 runs: its members hear of their drops too
    uploaded = history.uploaded_runs(site)
    systems = sorted(
        set(history.systems_with_runs(runs)) | set(history.systems_with_runs(uploaded)),
        key=lambda s: (s.name, s.pk),
    )
    chosen = None
    if system is not None:
        found = StorageSystem.objects.filter(site=site, pk=system).first()
        if found is None:
            raise Http404("no such storage system")
        chosen = found.canonical()
        runs = history.of_system(runs, chosen)
        uploaded = history.uploaded_runs(site, chosen)
    total = runs.count()
    shown = runs.filter(pk__in=list(runs.values_list("pk", flat=True)[:PAGE_RUNS]))
    io500 = history.io500_series(uploaded)
    io500_ids = {p["run"] for s in io500 for p in s["points"]}
    context = {
        "site": site,
        "system": chosen,
        "systems": systems,
        "runs": shown.annotate(test_count=Count("tests")),
        "total": total,
        "page_runs": PAGE_RUNS,
        "table": history.target_table(shown),
        "series": history.series(shown) + io500,
        "alerts": RegressionAlert.objects.filter(
            Q(run__in=shown) | Q(submission__in=io500_ids)
        ).select_related("run", "submission")[:PAGE_ALERTS],
        "rules": [
            {
                "test_name": r.test_name,
                "operation": r.operation,
                "enabled": r.enabled,
                "percent": round(r.fraction * 100),
            }
            for r in AlertRule.objects.filter(site=site)
        ],
        "default_percent": round(DEFAULT_FRACTION * 100),
        "io500_test": history.IO500_TEST,
        "may_set_rules": access.may_upload(request.user, site),
    }
    return render(request, "acceptance/history.html", context)


@require_POST
def alert_rule(request: HttpRequest, pk: int) -> HttpResponse:
    """Set one test's alert threshold (the site's submitters; others get the 404 of a site
    they cannot see, or a 403 when they may only read it)."""
    site = access.site_or_404(request.user, pk)
    if not access.may_upload(request.user, site):
        raise PermissionDenied("only the site's submitters may set its alert thresholds")
    form = AlertRuleForm(request.POST)
    if not form.is_valid():
        return HttpResponseBadRequest(
            "; ".join(f"{k}: {' '.join(map(str, v))}" for k, v in form.errors.items())
        )
    data = form.cleaned_data
    AlertRule.objects.update_or_create(
        site=site,
        test_name=data["test_name"],
        operation=data["operation"],
        defaults={"fraction": data["percent"] / 100, "enabled": data["enabled"]},
    )
    return redirect(resolve_url("acceptance:site", site.pk) + "#h-alerts")


def history_csv(request: HttpRequest, pk: int, system: int | None = None) -> HttpResponse:
    """Every run of the site (or storage system): one row per run, test and operation."""
    site = access.site_or_404(request.user, pk)
    runs = access.visible_runs(request.user).filter(site=site)
    if system is not None:
        found = StorageSystem.objects.filter(site=site, pk=system).first()
        if found is None:
            raise Http404("no such storage system")
        runs = history.of_system(runs, found.canonical())
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    name = f"acceptance-site-{site.pk}" + (f"-system-{system}" if system is not None else "")
    response["Content-Disposition"] = f'attachment; filename="{name}.csv"'
    writer = csv.DictWriter(response, fieldnames=history.CSV_FIELDS)
    writer.writeheader()
    for row in history.csv_rows(runs):
        writer.writerow({key: csv_cell(value) for key, value in row.items()})
    return response


def run_page(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        run = access.run_or_404(request.user, pk)
    except Http404:
        return _private(request)
    edit = None
    if access.may_edit(request.user, run):
        initial = {"label": run.label, "notes": run.notes, "storage_system": run.storage_system}
        edit = RunEditForm(request.POST or None, initial=initial, site=run.site)
    if request.method == "POST":
        if edit is None:
            raise PermissionDenied("only the site's submitters may change its runs")
        if edit.is_valid():
            system = edit.cleaned_data["storage_system"]
            changes = {**edit.cleaned_data, "storage_system": system.pk if system else None}
            try:
                update(run, changes)
            except IntakeError as exc:
                edit.add_error(exc.field if exc.field in edit.fields else None, str(exc))
            else:
                return redirect("acceptance:run", pk=run.pk)
    context = {
        "run": run,
        "tests": run.tests.prefetch_related("operations"),
        "targets": run.targets.all(),
        "edit": edit,
        "may_delete": access.may_delete(request.user, run),
    }
    return render(
        request, "acceptance/run.html", context, status=400 if edit and edit.errors else 200
    )


@require_POST
def run_delete(request: HttpRequest, pk: int) -> HttpResponse:
    run = access.run_or_404(request.user, pk)
    if not access.may_delete(request.user, run):
        raise PermissionDenied("only the uploader or an admin may delete a run")
    if request.POST.get("confirm") != "yes":
        return HttpResponseBadRequest("tick the box to confirm the deletion")
    site = run.site_id
    delete(run)
    return redirect("acceptance:site", pk=site)


def _stored(relative: str) -> Path:
    root = Path(settings.MEDIA_ROOT).resolve()
    path = (root / relative).resolve()
    if not relative or root not in path.parents or not path.is_file():
        raise Http404("file missing")
    return path


def report(request: HttpRequest, pk: int) -> HttpResponseBase:
    """The page framing the uploaded HTML report (``?download=1``: the file as an attachment)."""
    run = access.run_or_404(request.user, pk)
    if not run.report:
        raise Http404("this run has no report")
    if request.GET.get("download") == "1":
        return _report_file(run, attachment=True)
    return render(request, "acceptance/report.html", {"run": run, "sandbox": REPORT_SANDBOX})


def report_content(request: HttpRequest, pk: int) -> FileResponse:
    """The report's bytes: inline only into a frame (``Sec-Fetch-Dest: iframe``), else as an
    attachment."""
    run = access.run_or_404(request.user, pk)
    if not run.report:
        raise Http404("this run has no report")
    framed = request.headers.get("Sec-Fetch-Dest") == "iframe"
    response = _report_file(run, attachment=not framed)
    response["X-Frame-Options"] = "SAMEORIGIN"  # the report page frames it; nobody else
    return response


def _report_file(run: AcceptanceRun, *, attachment: bool) -> FileResponse:
    response = FileResponse(
        _stored(run.report).open("rb"),
        as_attachment=attachment,
        filename=f"acceptance-run-{run.pk}-report.html",
        content_type="text/html; charset=utf-8",
    )
    response["Content-Security-Policy"] = REPORT_POLICY
    response["Cross-Origin-Resource-Policy"] = "same-origin"
    response["Cache-Control"] = "private, no-store"
    return response


def archive(request: HttpRequest, pk: int) -> FileResponse:
    run = access.run_or_404(request.user, pk)
    path = _stored(run.archive)
    return FileResponse(path.open("rb"), as_attachment=True, filename=run.archive_name or path.name)


@login_required
def upload(request: HttpRequest) -> HttpResponse:
    sites = access.visible_sites(request.user)  # admins may upload for any site
    if not roles.is_submitter(request.user) or not sites.exists():
        raise PermissionDenied("only submitters who are members of a site may upload")
    if request.method == "POST":
        checks = ratelimit.upload_checks(request)
        wait = ratelimit.retry_after(checks)
        if wait is not None:
            form = AcceptanceUploadForm(sites=sites)
            context = {"form": form, "refusal": ratelimit.too_many_message("uploads", wait)}
            response = render(request, "acceptance/upload.html", context, status=429)
            response["Retry-After"] = str(wait)
            return response
        ratelimit.record(checks)
    form = AcceptanceUploadForm(request.POST or None, request.FILES or None, sites=sites)
    refusal = upload_refusal(request) if request.method == "POST" else None
    if refusal:
        form.is_valid()
        form.errors["archive"] = form.error_class([refusal])  # the body was not read
        return render(request, "acceptance/upload.html", {"form": form}, status=413)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        system = data.get("storage_system")
        try:
            received = receive(
                user=request.user,
                site=data["site"],
                archive=data["archive"],
                report=data.get("report"),
                storage_system=system.pk if system is not None else None,
                label=data.get("label", ""),
                notes=data.get("notes", ""),
            )
        except IntakeError as exc:
            form.add_error(exc.field if exc.field in form.fields else None, str(exc))
            return render(request, "acceptance/upload.html", {"form": form}, status=exc.status)
        return redirect("acceptance:run", pk=received.run.pk)
    return render(request, "acceptance/upload.html", {"form": form})
