"""The acceptance API (``/api/v1/acceptance/``): upload a run; the site's own runs, one run,
and the site's history per test and operation. Only the site's members (and admins) see any
of it; for everyone else every id is a 404."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ioscore_site.api_paging import BoundedLimitOffsetPagination
from ioscore_site.whole_numbers import whole_number
from submissions.api import refuse_upload, site_for
from submissions.api_errors import error
from submissions.intake import IntakeError
from submissions.models import StorageSystem

from . import access, history
from .intake import delete, receive, update
from .models import AcceptanceRun
from .serializers import (
    AcceptanceUploadSerializer,
    RunChangeSerializer,
    RunDetailSerializer,
    RunPageSerializer,
    RunSerializer,
    SeriesSerializer,
    UploadAnswerSerializer,
)

ID_FILTERS = [
    OpenApiParameter("site", int, description="only this site's runs"),
    OpenApiParameter("storage_system", int, description="only this storage system's runs"),
]


def _id_param(request: Request, name: str) -> int | Response | None:
    text = request.query_params.get(name)
    if text is None or text == "":
        return None
    number = whole_number(text, max_digits=10)
    if number is None or number > 2**31 - 1:
        return error(400, f"{name} must be a positive integer id", name)
    return number


class RunListCreate(APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        operation_id="acceptance_runs_list",
        summary="The acceptance runs you may see (your sites'), newest first",
        parameters=[
            *ID_FILTERS,
            OpenApiParameter("limit", int, description="runs per page (at most 1000)"),
            OpenApiParameter("offset", int, description="runs to skip"),
        ],
        responses=RunPageSerializer,
    )
    def get(self, request: Request) -> Response:
        runs = access.visible_runs(request.user)
        for name in ("site", "storage_system"):
            wanted = _id_param(request, name)
            if isinstance(wanted, Response):
                return wanted
            if wanted is not None and name == "site":
                runs = runs.filter(site_id=wanted)
            elif wanted is not None:
                system = StorageSystem.objects.filter(pk=wanted).first()
                runs = history.of_system(runs, system.canonical()) if system else runs.none()
        paginator = BoundedLimitOffsetPagination()
        page = paginator.paginate_queryset(runs, request, view=self)
        return paginator.get_paginated_response(RunSerializer(page, many=True).data)

    @extend_schema(
        summary="Upload an acceptance run (private to the site; never ranked)",
        request={"multipart/form-data": AcceptanceUploadSerializer},
        responses={201: UploadAnswerSerializer, 200: UploadAnswerSerializer},
    )
    def post(self, request: Request) -> Response:
        refused = refuse_upload(request)
        if refused is not None:
            return refused
        form = AcceptanceUploadSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        fields = form.validated_data
        site = site_for(request, fields.get("site"))
        if isinstance(site, Response):
            return site
        if not access.may_upload(request.user, site):
            return error(403, "you are not a member of this site", "site")
        try:
            received = receive(
                user=request.user,
                site=site,
                archive=fields.get("archive"),
                results=fields.get("results"),
                report=fields.get("report"),
                storage_system=fields.get("storage_system"),
                label=fields.get("label", ""),
                notes=fields.get("notes", ""),
            )
        except IntakeError as exc:
            return error(exc.status, str(exc), exc.field)
        run = received.run
        body = {
            "id": run.pk,
            "url": request.build_absolute_uri(reverse("acceptance:run", args=[run.pk])),
            "api_url": request.build_absolute_uri(reverse("acceptance:api-run", args=[run.pk])),
            "duplicate": received.duplicate,
            "verdict": run.verdict,
            "targets_total": run.targets_total,
            "targets_failed": run.targets_failed,
            "tests": run.tests.count(),
        }
        return Response(body, status=status.HTTP_200_OK if received.duplicate else 201)


class RunDetail(APIView):
    @extend_schema(
        summary="One acceptance run: tests, operations, targets", responses=RunDetailSerializer
    )
    def get(self, request: Request, pk: int) -> Response:
        return Response(RunDetailSerializer(_detailed(request, pk)).data)

    @extend_schema(
        summary="Change a run's label, notes or storage system (site members)",
        request=RunChangeSerializer,
        responses=RunDetailSerializer,
    )
    def patch(self, request: Request, pk: int) -> Response:
        run = access.run_or_404(request.user, pk)
        if not access.may_edit(request.user, run):
            return error(403, "only the site's submitters may change its runs")
        form = RunChangeSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        try:
            update(run, dict(form.validated_data))
        except IntakeError as exc:
            return error(exc.status, str(exc), exc.field)
        return Response(RunDetailSerializer(_detailed(request, pk)).data)

    @extend_schema(
        summary="Delete a mistaken upload (its uploader or an admin)", responses={204: None}
    )
    def delete(self, request: Request, pk: int) -> Response:
        run = access.run_or_404(request.user, pk)
        if not access.may_delete(request.user, run):
            return error(403, "only the uploader or an admin may delete a run")
        delete(run)
        return Response(status=status.HTTP_204_NO_CONTENT)


def _detailed(request: Request, pk: int) -> AcceptanceRun:
    access.run_or_404(request.user, pk)
    return (
        AcceptanceRun.objects.prefetch_related("tests__operations", "targets")
        .select_related("site", "storage_system")
        .get(pk=pk)
    )


class SiteHistory(APIView):
    @extend_schema(
        summary="A site's acceptance history: per test and operation, each run's statistics "
        "and target; then its uploaded IO500 runs (test IO500: the score and each phase)",
        parameters=[ID_FILTERS[1]],
        responses=SeriesSerializer(many=True),
    )
    def get(self, request: Request, pk: int) -> Response:
        site = access.site_or_404(request.user, pk)
        runs = access.visible_runs(request.user).filter(site=site)
        wanted = _id_param(request, "storage_system")
        if isinstance(wanted, Response):
            return wanted
        uploaded = history.uploaded_runs(site)
        if wanted is not None:
            system = StorageSystem.objects.filter(site=site, pk=wanted).first()
            runs = history.of_system(runs, system.canonical()) if system else runs.none()
            uploaded = (
                history.uploaded_runs(site, system.canonical()) if system else uploaded.none()
            )
        return Response(history.series(runs) + history.io500_series(uploaded))
