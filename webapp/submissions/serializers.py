"""API representations (output) and request validation (input) for submissions."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from .models import (
    PhaseResult,
    Release,
    ReproducibilityLevel,
    Submission,
    TargetList,
)
from .review import ACTIONS


class UploadSerializer(serializers.Serializer):
    archive = serializers.FileField(help_text=".tar.gz/.tgz/.zip results archive")
    system = serializers.CharField(required=False, allow_blank=True, help_text="JSON")
    questionnaire = serializers.CharField(required=False, allow_blank=True, help_text="JSON")
    target_list = serializers.ChoiceField(
        TargetList.choices, required=False, default=TargetList.RESEARCH
    )
    site = serializers.IntegerField(required=False, help_text="site id (session auth only)")


class UploadResponseSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()
    url = serializers.URLField()
    status_url = serializers.URLField()
    duplicate = serializers.BooleanField()


class IssueSerializer(serializers.Serializer):
    rule = serializers.CharField()
    severity = serializers.CharField()
    message = serializers.CharField()
    expected = serializers.JSONField(allow_null=True)
    actual = serializers.JSONField(allow_null=True)
    phase = serializers.CharField(allow_null=True)


class StatusSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()
    issues = IssueSerializer(many=True)


class PhaseSerializer(serializers.ModelSerializer):
    class Meta:
        model = PhaseResult
        fields = [
            "name",
            "value",
            "unit",
            "group",
            "time",
            "valid",
            "invalid_reasons",
            "score_txt",
            "extra",
        ]


class SubmissionSerializer(serializers.ModelSerializer):
    release = serializers.CharField(source="release.acronym")
    institution = serializers.CharField(source="site.name")
    system = serializers.CharField(source="client_system.name", default=None)
    storage_system = serializers.IntegerField(source="storage_system_id", allow_null=True)

    class Meta:
        model = Submission
        fields = [
            "id",
            "status",
            "release",
            "institution",
            "system",
            "storage_system",
            "source",
            "benchmark_version",
            "run_format",
            "run_mode",
            "run_start",
            "procs",
            "score_bw",
            "score_md",
            "score_total",
            "target_list",
            "created",
            "submitted_at",
        ]


class SubmissionDetailSerializer(SubmissionSerializer):
    phases = PhaseSerializer(many=True)

    class Meta(SubmissionSerializer.Meta):
        fields = [
            *SubmissionSerializer.Meta.fields,
            "phases",
            "archive_sha256",
            "archive_size",
            "config_hash",
            "score_hash",
        ]


class ReviewSerializer(serializers.Serializer):
    action = serializers.ChoiceField(list(ACTIONS))
    comment = serializers.CharField()
    assigned_level = serializers.ChoiceField(ReproducibilityLevel.values, required=False)
    production_eligible = serializers.BooleanField(required=False, allow_null=True, default=None)
    ten_node_eligible = serializers.BooleanField(required=False, allow_null=True, default=None)


class ReleaseSerializer(serializers.ModelSerializer):
    class Meta:
        model = Release
        fields = [
            "id",
            "acronym",
            "name",
            "release_date",
            "submission_deadline",
            "tag_date",
            "stabilization_start",
            "stabilization_end",
            "accepted_versions",
            "historic",
        ]

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        deadline = attrs.get("submission_deadline")
        published = attrs.get("release_date")
        if deadline and published and deadline > published:
            raise serializers.ValidationError(
                {"submission_deadline": "must not be after the release date"}
            )
        return attrs
