"""The JSON API (``/api/v1/``): intake, status, detail, review, withdraw, releases.

The CLI's ``ioscore upload`` relies on the upload response {"id", "status", "url",
"status_url", "duplicate"} and the status response {"id", "status", "issues": [...]}.
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import generics, permissions, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import roles
from accounts.models import ApiToken, Site
from ioscore_site import ratelimit

from . import access
from .api_errors import error
from .intake import IntakeError, parse_json_field, receive_upload
from .models import Release, Status, Submission
from .review import OwnSubmissionError, decide
from .serializers import (
    ReleaseSerializer,
    ReviewSerializer,
    StatusSerializer,
    SubmissionDetailSerializer,
    SubmissionSerializer,
    UploadResponseSerializer,
    UploadSerializer,
)
from .upload_limit import upload_refusal
from .workflow import OWNER, TransitionError, transition


def status_payload(submission: Submission) -> dict[str, Any]:
    return {
        "id": submission.pk,
        "status": submission.status,
        "issues": [issue.as_dict() for issue in submission.issues.all()],
    }


def refuse_upload(request: Request) -> Response | None:
    """The answer to an upload that must stop before its fields are read (every upload
    endpoint: results and acceptance runs): no account, no submitter role, too many uploads,
    or a body over the size limit (read while streaming). None: go on."""
    if not request.user.is_authenticated:
        return error(401, "authentication required (Authorization: Token <key>)")
    if not access.can_submit(request.user):
        return error(403, "only submitters may upload")
    checks = ratelimit.upload_checks(request)
    wait = ratelimit.retry_after(checks)
    if wait is not None:
        response = error(429, ratelimit.too_many_message("uploads", wait))
        response["Retry-After"] = str(wait)
        return response
    ratelimit.record(checks)
    _ = request.data  # parsed here, so a refused body is known before validation
    refusal = upload_refusal(request)
    if refusal:
        return error(413, refusal, "archive")
    return None


def site_for(request: Request, requested: int | None) -> Site | Response:
    token = request.auth if isinstance(request.auth, ApiToken) else None
    if token is not None:
        if requested is not None and requested != token.site_id:
            return error(403, "this API token is scoped to another site", "site")
        return token.site
    sites = Site.objects.filter(members=request.user)
    if requested is not None:
        sites = sites.filter(pk=requested)
    chosen = list(sites[:2])
    if len(chosen) != 1:
        return error(400, "choose one of your sites (field 'site')", "site")
    return chosen[0]


class SubmissionListCreate(APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(responses=SubmissionSerializer(many=True))
    def get(self, request: Request) -> Response:
        queryset = access.visible_submissions(request.user).select_related("client_system")
        wanted = request.query_params.get("status")
        if wanted:
            queryset = queryset.filter(status=wanted)
        return Response(SubmissionSerializer(queryset[:500], many=True).data)

    @extend_schema(
        request=UploadSerializer,
        responses={201: UploadResponseSerializer, 200: UploadResponseSerializer},
    )
    def post(self, request: Request) -> Response:
        refused = refuse_upload(request)
        if refused is not None:
            return refused
        form = UploadSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        site = site_for(request, form.validated_data.get("site"))
        if isinstance(site, Response):
            return site
        try:
            result = receive_upload(
                form.validated_data["archive"],
                user=request.user,
                site=site,
                system=parse_json_field("system", form.validated_data.get("system")),
                questionnaire=parse_json_field(
                    "questionnaire", form.validated_data.get("questionnaire")
                ),
                target_list=form.validated_data["target_list"],
            )
        except IntakeError as exc:
            refused = error(exc.status, str(exc), exc.field)
            if exc.retry_after_s is not None:
                refused["Retry-After"] = str(exc.retry_after_s)
            return refused
        submission = result.submission
        body = {
            "id": submission.pk,
            "status": submission.status,
            "url": request.build_absolute_uri(reverse("submission-page", args=[submission.pk])),
            "status_url": request.build_absolute_uri(
                reverse("api-submission-status", args=[submission.pk])
            ),
            "duplicate": result.duplicate,
        }
        return Response(body, status=status.HTTP_200_OK if result.duplicate else 201)


def _visible_or_404(request: Request, pk: int) -> Submission:
    submission = get_object_or_404(Submission.objects.select_related("release"), pk=pk)
    if not access.can_view(request.user, submission):
        # Unreleased data must not even be confirmed to exist (LEADERBOARD-RULES §7).
        from django.http import Http404

        raise Http404
    return submission


class SubmissionDetail(APIView):
    @extend_schema(responses=SubmissionDetailSerializer)
    def get(self, request: Request, pk: int) -> Response:
        return Response(SubmissionDetailSerializer(_visible_or_404(request, pk)).data)


class SubmissionStatus(APIView):
    @extend_schema(responses=StatusSerializer)
    def get(self, request: Request, pk: int) -> Response:
        return Response(status_payload(_visible_or_404(request, pk)))


class SubmissionWithdraw(APIView):
    @extend_schema(request=None, responses=StatusSerializer)
    def post(self, request: Request, pk: int) -> Response:
        submission = _visible_or_404(request, pk)
        if not access.is_owner(request.user, submission):
            return error(403, "only the owner may withdraw a submission")
        try:
            transition(
                submission,
                Status.WITHDRAWN,
                request.user,
                str(request.data.get("comment", "")),
                role=OWNER,
            )
        except TransitionError as exc:
            return error(409, str(exc))
        return Response(status_payload(submission))


class SubmissionReview(APIView):
    @extend_schema(request=ReviewSerializer, responses=StatusSerializer)
    def post(self, request: Request, pk: int) -> Response:
        if not access.can_review(request.user):
            return error(
                403 if request.user.is_authenticated else 401,
                "only the committee (reviewers) may review",
            )
        submission = get_object_or_404(Submission, pk=pk)
        form = ReviewSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        try:
            decide(submission, request.user, **form.validated_data)
        except OwnSubmissionError as exc:
            return error(403, str(exc))
        except TransitionError as exc:
            return error(409, str(exc))
        return Response(status_payload(submission))


class ReviewQueue(APIView):
    @extend_schema(responses=SubmissionSerializer(many=True))
    def get(self, request: Request) -> Response:
        if not access.can_review(request.user):
            return error(
                403 if request.user.is_authenticated else 401,
                "only the committee (reviewers) may see the review queue",
            )
        queue = (
            Submission.objects.filter(status=Status.UNDER_REVIEW)
            .select_related("release", "site", "client_system")
            .order_by("submitted_at", "id")
        )
        return Response(SubmissionSerializer(queue, many=True).data)


class IsAdminOrReadOnly(permissions.BasePermission):
    message = "only admins may manage releases"

    def has_permission(self, request: Any, view: Any) -> bool:
        return request.method in permissions.SAFE_METHODS or roles.is_admin(request.user)


class ReleaseList(generics.ListCreateAPIView):
    queryset = Release.objects.all()
    serializer_class = ReleaseSerializer
    permission_classes = [IsAdminOrReadOnly]
    pagination_class = None


class ReleaseDetail(generics.RetrieveUpdateAPIView):
    queryset = Release.objects.all()
    serializer_class = ReleaseSerializer
    permission_classes = [IsAdminOrReadOnly]
