"""Read-only REST API under /api/v1/: lists, list entries, public results and their phases.

Entries use the same query parameters and the same record shape as the CSV/JSON downloads
(``listview`` + ``records``), so the API and the exports always agree; that includes the
what-if views (``edition``, ``formula``: ``whatif``), whose fields each record then carries.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import generics, serializers
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request
from rest_framework.response import Response

from ioscore.results import (
    EDITIONS,
    FORMULA_FUNCTIONS,
    MAX_FORMULA_CHARS,
    RND4K_READ,
    formula_names,
)
from ioscore_site.api_paging import BoundedLimitOffsetPagination
from ioscore_site.whole_numbers import whole_number
from submissions import public_counts, public_version
from submissions.models import PhaseResult, Submission

from . import page_cache
from .listview import COLUMNS, LEVEL_LABELS, PagedRows, ViewState, shown_rows
from .models import RankedList
from .phases import PHASES
from .records import entry_record, whatif_record
from .result_records import phase_records, result_ids, result_records
from .visibility import (
    can_see_unpublished,
    entries_without,
    hidden_submissions,
    visible_lists,
    visible_submissions,
)
from .whatif import FORMULA, Scoring


# A read view whose anonymous responses ``page_cache`` keeps under ``cache_kind`` and
# ``cache_identity()`` (by default the public-results version), rendered by the DRF view it
# is mixed into (it comes first in the bases). No docstring: the OpenAPI document would take
# it as the description of a view without one of its own.
# ``cache_params()`` is the part of the query string the response depends on (by default the
# paging parameters), so other parameters neither skip the cache nor add entries.
class _AnonymousCached:
    cache_kind: str
    cache_reads: tuple[str, ...] = ("limit", "offset")
    request: Any  # set by the DRF view

    def cache_identity(self) -> list[Any] | None:
        return [public_version.current()]

    def cache_params(self) -> str:
        return page_cache.read_params(self.request, self.cache_reads)

    def get(self, request: Request, *args: Any, **kwargs: Any) -> Any:
        view: Any = super()  # the DRF view this is mixed into (no base here to type it)
        return page_cache.serve(
            request,
            self.cache_kind,
            self.cache_identity(),
            lambda: view.finalize_response(request, view.get(request, *args, **kwargs)),
            params=self.cache_params(),
        )


class PublicListSerializer(serializers.ModelSerializer):
    release = serializers.CharField(source="release.acronym")
    release_date = serializers.DateField(source="release.release_date")
    list_type = serializers.CharField(source="list_type.slug")
    list_name = serializers.CharField(source="list_type.name")
    entries_url = serializers.SerializerMethodField()
    csv_url = serializers.SerializerMethodField()

    class Meta:
        model = RankedList
        fields = [
            "id",
            "release",
            "release_date",
            "list_type",
            "list_name",
            "state",
            "revision",
            "published_at",
            "entries_url",
            "csv_url",
        ]

    def _url(self, obj: RankedList, suffix: str) -> str:
        path = f"/lists/{obj.release.acronym}/{obj.list_type.slug}{suffix}"
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request is not None else path

    def get_entries_url(self, obj: RankedList) -> str:
        request = self.context.get("request")
        path = f"/api/v1/lists/{obj.release.acronym}/{obj.list_type.slug}/entries/"
        return request.build_absolute_uri(path) if request is not None else path

    def get_csv_url(self, obj: RankedList) -> str:
        return self._url(obj, ".csv")


class PublicEntrySerializer(serializers.Serializer):
    """The public entry record (see ``records.RECORD_FIELDS``)."""

    submission_id = serializers.IntegerField()
    rank = serializers.IntegerField()
    bw_rank = serializers.IntegerField()
    md_rank = serializers.IntegerField()
    score = serializers.FloatField()
    bw = serializers.FloatField(help_text="GiB/s")
    md = serializers.FloatField(help_text="kIOPS")
    list = serializers.CharField()
    release = serializers.CharField()
    list_revision = serializers.IntegerField()
    origin_release = serializers.CharField()
    carried_over = serializers.BooleanField()
    institution = serializers.CharField()
    system = serializers.CharField()
    storage_vendor = serializers.CharField()
    fs_type = serializers.CharField()
    fs_name = serializers.CharField()
    fs_version = serializers.CharField()
    client_nodes = serializers.IntegerField(allow_null=True)
    procs_per_node = serializers.IntegerField(allow_null=True)
    total_procs = serializers.IntegerField(allow_null=True)
    reproducibility = serializers.CharField()
    award_score = serializers.BooleanField()
    award_bw = serializers.BooleanField()
    award_md = serializers.BooleanField()
    phases = serializers.DictField(
        child=serializers.FloatField(allow_null=True),
        help_text="the 12 scored phases (GiB/s, kIOPS); under a what-if view also "
        f"{RND4K_READ}, null where the run did not measure it",
    )
    whatif_view = serializers.CharField(
        required=False, help_text="only with edition or formula: the what-if view's name"
    )
    whatif_score = serializers.FloatField(
        required=False, allow_null=True, help_text="the entry's score under the what-if view"
    )
    whatif_rank = serializers.IntegerField(
        required=False, allow_null=True, help_text="its rank under the view; null: unranked"
    )
    whatif_rank_change = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="official rank minus what-if rank: positive moved up",
    )
    whatif_unranked_reason = serializers.CharField(
        required=False, help_text="why an entry has no what-if rank"
    )

    def to_representation(self, instance: Any) -> dict[str, Any]:
        record = dict(instance)
        record["phases"] = {p: record.pop(p) for p in PHASES}
        if RND4K_READ in record:  # a what-if view's
            record["phases"][RND4K_READ] = record.pop(RND4K_READ)
        return record


class PublicPhaseSerializer(serializers.ModelSerializer):
    class Meta:
        model = PhaseResult
        fields = ["name", "order", "value", "unit", "group", "time", "valid", "invalid_reasons"]


class PublicResultSerializer(serializers.ModelSerializer):
    release = serializers.CharField(source="release.acronym")
    institution = serializers.CharField(source="site.name")
    system = serializers.SerializerMethodField()
    reproducibility = serializers.SerializerMethodField()
    phases = PublicPhaseSerializer(many=True, read_only=True)

    class Meta:
        model = Submission
        fields = [
            "id",
            "io500_id",
            "release",
            "institution",
            "system",
            "benchmark_version",
            "run_mode",
            "run_start",
            "procs",
            "score_total",
            "score_bw",
            "score_md",
            "score_valid",
            "reproducibility",
            "phases",
        ]

    def get_system(self, obj: Submission) -> str:
        description = getattr(obj, "system_description", None)
        if description is not None and description.system:
            return description.system
        return obj.client_system.name if obj.client_system_id else ""  # type: ignore[union-attr]

    def get_reproducibility(self, obj: Submission) -> str:
        questionnaire = getattr(obj, "questionnaire", None)
        return LEVEL_LABELS.get(questionnaire.assigned_level, "") if questionnaire else ""


class ListsView(generics.ListAPIView):
    """Every visible ranked list (release x list type)."""

    serializer_class = PublicListSerializer

    def get_queryset(self) -> Any:
        return visible_lists(self.request.user).order_by(
            "-release__release_date", "list_type__order"
        )


class ListDetailView(generics.RetrieveAPIView):
    serializer_class = PublicListSerializer

    def get_object(self) -> RankedList:
        return get_object_or_404(
            visible_lists(self.request.user),
            release__acronym=self.kwargs["release"],
            list_type__slug=self.kwargs["list_type"],
        )


_ENTRY_PARAMETERS = [
    OpenApiParameter("sort", OpenApiTypes.STR, enum=list(COLUMNS)),
    OpenApiParameter("dir", OpenApiTypes.STR, enum=["asc", "desc"]),
    OpenApiParameter("fs", OpenApiTypes.STR, description="FS type (case-insensitive)"),
    OpenApiParameter("vendor", OpenApiTypes.STR),
    OpenApiParameter("year", OpenApiTypes.INT, description="year of the origin release"),
    OpenApiParameter("nodes_min", OpenApiTypes.INT),
    OpenApiParameter("nodes_max", OpenApiTypes.INT),
    OpenApiParameter("level", OpenApiTypes.STR, enum=["none", *LEVEL_LABELS.keys()]),
    OpenApiParameter("q", OpenApiTypes.STR, description="text search"),
    OpenApiParameter(
        "edition",
        OpenApiTypes.STR,
        enum=[*EDITIONS, FORMULA],
        description="what-if view, never official: score and rank every entry under this "
        "scoring edition (each record gains the whatif_* fields, ordered by the what-if rank "
        "unless sort is given); 'official' is the list itself. "
        + "; ".join(f"{e.slug}: {e.explanation}" for e in EDITIONS.values()),
    ),
    OpenApiParameter(
        "formula",
        OpenApiTypes.STR,
        description=f"what-if view by your own formula (at most {MAX_FORMULA_CHARS} "
        f"characters) over the names {formula_names()}, with the functions "
        f"{', '.join(FORMULA_FUNCTIONS)}, + - * / ** and parentheses, e.g. "
        "geomean(bw, md, ior_rnd4K_easy_read); an unusable formula is a 400 naming why",
    ),
]


@extend_schema_view(get=extend_schema(parameters=_ENTRY_PARAMETERS))
class ListEntriesView(_AnonymousCached, generics.ListAPIView):
    """Entries of one list; same filters and numbers as the list page and its CSV."""

    serializer_class = PublicEntrySerializer
    cache_kind = "api-entries"

    def cache_identity(self) -> list[Any] | None:
        return self._shown_list()[1]

    def cache_params(self) -> str:
        paging = page_cache.read_params(self.request, self.cache_reads)
        return "\n".join([self._state().cache_text(paged=False), paging])

    def _state(self) -> ViewState:
        if not hasattr(self, "_view_state"):
            self._view_state = ViewState.from_query(self.request.query_params)
        return self._view_state

    def _shown_list(self) -> tuple[RankedList, list[Any] | None]:
        """The list and its ``list_identity`` (read once per request)."""
        if not hasattr(self, "_shown"):
            the_list = get_object_or_404(
                visible_lists(self.request.user),
                release__acronym=self.kwargs["release"],
                list_type__slug=self.kwargs["list_type"],
            )
            self._shown = (the_list, page_cache.list_identity(the_list, self.request.user))
        return self._shown

    def get_queryset(self) -> Any:
        the_list, identity = self._shown_list()
        hidden = hidden_submissions(self.request.user, the_list)
        state = self._state()
        if state.errors:
            raise ValidationError({"query": state.errors})
        if state.scoring.error:
            raise ValidationError({"formula": [state.scoring.error]})
        rows = shown_rows(
            entries_without(the_list, hidden),
            state,
            list_id=the_list.pk,
            version=identity,
            records=True,
            window=self._window(),
        )
        return _Records(rows, the_list, state.scoring)

    def _window(self) -> slice | None:
        """The slice the paginator will ask for after counting, so a filtered view counts
        and reads that page in one scan (``ListRows``)."""
        paginator = self.paginator
        if not isinstance(paginator, LimitOffsetPagination):
            return None
        limit = paginator.get_limit(self.request)
        offset = paginator.get_offset(self.request)
        return None if limit is None else slice(offset, offset + limit)


class _Records:
    """A lazily sliced queryset that yields public records (pagination-friendly)."""

    def __init__(self, rows: PagedRows, the_list: RankedList, scoring: Scoring) -> None:
        self.rows = rows
        self.the_list = the_list
        self.scoring = scoring

    def count(self) -> int:
        return int(self.rows.count())

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, item: slice) -> list[dict[str, Any]]:
        if not self.scoring.active:
            return [entry_record(e, self.the_list) for e in self.rows[item]]
        return [
            entry_record(e, self.the_list) | whatif_record(e, self.scoring) for e in self.rows[item]
        ]


_AFTER = OpenApiParameter(
    "after",
    OpenApiTypes.INT,
    description="only results with a greater id (then ``count`` counts those): the last id "
    "of a page gives the next page at the same cost however deep, where a deep ``offset`` "
    "walks every result before it",
)


class PublicCountPagination(BoundedLimitOffsetPagination):
    """Public results count once per public-results version (``public_counts``); the
    committee's view holds drafts too, whose changes move no version, and counts directly."""

    def get_count(self, queryset: Any) -> int:
        if can_see_unpublished(self.request.user):
            return int(super().get_count(queryset))
        if "after" not in self.request.query_params:
            return public_counts.public_results()  # the home page's count
        return public_counts.count(queryset)


@extend_schema_view(get=extend_schema(parameters=[_AFTER]))
class ResultsView(_AnonymousCached, generics.ListAPIView):
    """Public (accepted, released) submissions with their phases, in id order.

    ``count`` and the results are always current: both are kept only while the
    public-results version (which every acceptance, withdrawal and embargo end moves) is
    unchanged, so a repeat request neither counts nor reads the results again."""

    serializer_class = PublicResultSerializer  # the records' description (OpenAPI)
    pagination_class = PublicCountPagination
    cache_kind = "api-results"
    cache_reads = ("after", "limit", "offset")

    def get_queryset(self) -> Any:
        results = visible_submissions(self.request.user)
        after = self.request.query_params.get("after")
        if after is not None:
            after_id = whole_number(after)  # a bigint id, or a 400 (not a 500)
            if after_id is None:
                raise ValidationError({"after": ["must be a result id"]})
            results = results.filter(id__gt=after_id)
        return result_ids(results)

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        ids = list(self.paginate_queryset(self.get_queryset()) or [])
        records = result_records(Submission.objects.filter(pk__in=ids))
        return self.get_paginated_response(records)


class ResultDetailView(_AnonymousCached, generics.RetrieveAPIView):
    serializer_class = PublicResultSerializer
    cache_kind = "api-result"
    cache_reads = ()

    def get_queryset(self) -> Any:
        return visible_submissions(self.request.user)

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        records = result_records(self.get_queryset().filter(pk=self.kwargs["pk"]))
        if not records:
            raise Http404
        return Response(records[0])


class ResultPhasesView(generics.ListAPIView):
    serializer_class = PublicPhaseSerializer
    pagination_class = None

    def get_queryset(self) -> Any:
        return PhaseResult.objects.none()  # only for the OpenAPI document

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        visible = visible_submissions(request.user).filter(pk=self.kwargs["pk"])
        if not visible.exists():
            raise Http404
        return Response(phase_records(self.kwargs["pk"]))
