"""API shapes of acceptance runs (output) and of the upload request (input)."""

from __future__ import annotations

from rest_framework import serializers

from .models import AcceptanceOperation, AcceptanceRun, AcceptanceTarget, AcceptanceTest


class AcceptanceUploadSerializer(serializers.Serializer):
    archive = serializers.FileField(
        required=False, help_text="the plan's results directory as .tar.gz/.tgz/.tar/.zip"
    )
    results = serializers.ListField(
        child=serializers.FileField(),
        required=False,
        help_text="instead of an archive: result.json files, one per test (named <test>.json)",
    )
    report = serializers.FileField(required=False, help_text="the HTML report (ioscore report)")
    storage_system = serializers.IntegerField(
        required=False, min_value=1, max_value=2**31 - 1, help_text="one of the site's systems"
    )
    label = serializers.CharField(required=False, allow_blank=True, max_length=200)
    notes = serializers.CharField(required=False, allow_blank=True, max_length=20_000)
    site = serializers.IntegerField(
        required=False, min_value=1, max_value=2**31 - 1, help_text="site id (session auth only)"
    )


class RunChangeSerializer(serializers.Serializer):
    """The fields a site may change after the upload (the results never change)."""

    label = serializers.CharField(required=False, allow_blank=True, max_length=200)
    notes = serializers.CharField(required=False, allow_blank=True, max_length=20_000)
    storage_system = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=2**31 - 1
    )


class OperationSerializer(serializers.ModelSerializer):
    iterations = serializers.IntegerField()
    min = serializers.FloatField(source="minimum")
    max = serializers.FloatField(source="maximum")

    class Meta:
        model = AcceptanceOperation
        fields = [
            "operation",
            "label",
            "unit",
            "iterations",
            "values",
            "mean",
            "stddev",
            "min",
            "max",
            "hint",
        ]


class TestSerializer(serializers.ModelSerializer):
    operations = OperationSerializer(many=True)

    class Meta:
        model = AcceptanceTest
        fields = [
            "name",
            "program",
            "commands",
            "started",
            "procs",
            "nodes",
            "hosts",
            "valid",
            "invalid_reasons",
            "notes",
            "operations",
        ]


class TargetSerializer(serializers.ModelSerializer):
    class Meta:
        model = AcceptanceTarget
        fields = [
            "test_name",
            "operation",
            "text",
            "threshold",
            "unit",
            "at_least",
            "measured",
            "passed",
            "detail",
        ]


class RunSerializer(serializers.ModelSerializer):
    site = serializers.CharField(source="site.name")
    site_id = serializers.IntegerField()
    storage_system = serializers.SerializerMethodField()
    verdict = serializers.CharField()
    has_report = serializers.SerializerMethodField()

    class Meta:
        model = AcceptanceRun
        fields = [
            "id",
            "site",
            "site_id",
            "storage_system",
            "storage_system_id",
            "plan_name",
            "label",
            "notes",
            "started",
            "finished",
            "uploaded",
            "archive_sha256",
            "archive_size",
            "has_report",
            "targets_total",
            "targets_failed",
            "verdict",
        ]

    def get_storage_system(self, run: AcceptanceRun) -> str | None:
        return str(run.storage_system) if run.storage_system is not None else None

    def get_has_report(self, run: AcceptanceRun) -> bool:
        return bool(run.report)


class RunPageSerializer(serializers.Serializer):
    """One page of runs (``limit``/``offset``)."""

    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = RunSerializer(many=True)


class RunDetailSerializer(RunSerializer):
    tests = TestSerializer(many=True)
    targets = TargetSerializer(many=True)

    class Meta(RunSerializer.Meta):
        fields = [*RunSerializer.Meta.fields, "tests", "targets"]


class UploadAnswerSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.URLField()
    api_url = serializers.URLField()
    duplicate = serializers.BooleanField()
    verdict = serializers.CharField()
    targets_total = serializers.IntegerField()
    targets_failed = serializers.IntegerField()
    tests = serializers.IntegerField()


class PointSerializer(serializers.Serializer):
    run = serializers.IntegerField(
        help_text="the acceptance run's id; the submission's id in a series of source submission"
    )
    when = serializers.CharField()
    label = serializers.CharField()
    mean = serializers.FloatField()
    stddev = serializers.FloatField()
    min = serializers.FloatField()
    max = serializers.FloatField()
    iterations = serializers.IntegerField()
    target = serializers.FloatField(allow_null=True)
    target_at_least = serializers.BooleanField(allow_null=True)
    passed = serializers.BooleanField(allow_null=True)
    alert = serializers.CharField(
        allow_null=True, help_text="the regression alert this run raised here, if any"
    )


class SeriesSerializer(serializers.Serializer):
    test = serializers.CharField()
    operation = serializers.CharField()
    unit = serializers.CharField(help_text="empty for the IO500 score")
    source = serializers.ChoiceField(
        ["acceptance", "submission"],
        help_text="acceptance runs, or the site's uploaded IO500 runs (one value per run)",
    )
    points = PointSerializer(many=True)
