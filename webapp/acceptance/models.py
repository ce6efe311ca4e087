"""Acceptance runs: a site's private history of its storage acceptance tests.

Never ranked and never in a public list or API: every query goes through ``access``. One run is
one upload of a plan's results (one or more tests, each one or more launches of
``ioscore-suite ior|mdtest``); per test and operation the statistics over its iterations are
kept in columns so the history pages can plot them across runs without reparsing files.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from accounts.models import Site
from submissions.models import StorageSystem, Submission


class AcceptanceRun(models.Model):
    site = models.ForeignKey(Site, on_delete=models.PROTECT, related_name="acceptance_runs")
    storage_system = models.ForeignKey(
        StorageSystem,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="acceptance_runs",
        help_text="the storage system tested (one of the site's)",
    )
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    uploaded = models.DateTimeField(auto_now_add=True)
    plan_name = models.CharField(max_length=200, blank=True)
    label = models.CharField(max_length=200, blank=True, help_text="e.g. 'after OSS firmware 2.4'")
    notes = models.TextField(blank=True, help_text="the uploader's notes on this run")
    started = models.DateTimeField(null=True, blank=True, help_text="earliest test start")
    finished = models.DateTimeField(null=True, blank=True, help_text="latest test end")
    archive = models.CharField(max_length=300, blank=True, help_text="path under MEDIA_ROOT")
    archive_name = models.CharField(max_length=255, blank=True)
    archive_sha256 = models.CharField(max_length=64)
    archive_size = models.BigIntegerField(default=0)
    report = models.CharField(max_length=300, blank=True, help_text="path under MEDIA_ROOT")
    report_size = models.BigIntegerField(default=0)
    targets_total = models.PositiveIntegerField(default=0)
    targets_failed = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-started", "-id"]
        constraints = [
            # The same bytes uploaded again by the site resolve to the run already stored.
            models.UniqueConstraint(
                fields=["site", "archive_sha256"], name="acceptance_run_unique_upload"
            )
        ]
        indexes = [models.Index(fields=["site", "storage_system", "started"])]

    def __str__(self) -> str:
        return f"acceptance run {self.pk} ({self.site})"

    @property
    def verdict(self) -> str:
        """PASS / FAIL over the plan's targets, or '' when the plan had none."""
        if not self.targets_total:
            return ""
        return "FAIL" if self.targets_failed else "PASS"


class AcceptanceTest(models.Model):
    """One test of the plan: an IOR or mdtest command line, possibly in several launches."""

    run = models.ForeignKey(AcceptanceRun, on_delete=models.CASCADE, related_name="tests")
    name = models.CharField(max_length=200, help_text="the plan's test id")
    program = models.CharField(max_length=10, help_text="ior or mdtest")
    commands = models.JSONField(default=list, help_text="command line of each launch")
    started = models.DateTimeField(null=True, blank=True)
    procs = models.PositiveIntegerField(default=0)
    nodes = models.PositiveIntegerField(default=0)
    hosts = models.JSONField(default=list)
    valid = models.BooleanField(default=True)
    invalid_reasons = models.JSONField(default=list)
    notes = models.JSONField(
        default=list, help_text="what was measured: [{operation, level, text}]"
    )
    order = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["run", "order", "id"]
        constraints = [
            models.UniqueConstraint(fields=["run", "name"], name="acceptance_test_unique_name")
        ]

    def __str__(self) -> str:
        return self.name


class AcceptanceOperation(models.Model):
    """Statistics of one operation of one test over its iterations (IOR -i, mdtest -i)."""

    test = models.ForeignKey(AcceptanceTest, on_delete=models.CASCADE, related_name="operations")
    operation = models.CharField(max_length=40, help_text="write, read, file-write, ...")
    label = models.CharField(max_length=60, blank=True, help_text='as printed: "File creation"')
    unit = models.CharField(max_length=16)
    values = models.JSONField(default=list, help_text="one value per iteration")
    mean = models.FloatField()
    stddev = models.FloatField()
    minimum = models.FloatField()
    maximum = models.FloatField()
    hint = models.TextField(blank=True, help_text="multimodality hint")
    order = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["test", "order", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["test", "operation"], name="acceptance_operation_unique"
            )
        ]

    @property
    def iterations(self) -> int:
        return len(self.values)


class AcceptanceTarget(models.Model):
    """One target of the plan ("write >= 700 GB/s") judged against this run."""

    run = models.ForeignKey(AcceptanceRun, on_delete=models.CASCADE, related_name="targets")
    test_name = models.CharField(max_length=200)
    operation = models.CharField(max_length=40)
    text = models.CharField(max_length=200, help_text="the target as the plan states it")
    threshold = models.FloatField(help_text="in the operation's unit")
    unit = models.CharField(max_length=16)
    at_least = models.BooleanField(default=True, help_text="False: the value must stay below")
    measured = models.FloatField(null=True, blank=True)
    passed = models.BooleanField()
    detail = models.TextField(blank=True, help_text="why, with the uncertainty")
    order = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["run", "order", "id"]


class AlertRule(models.Model):
    """How far a test's operation may fall below its recent median before the site hears of it
    (``ioscore.results.regressions``); without a rule the default fraction applies."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="alert_rules")
    test_name = models.CharField(max_length=200)
    operation = models.CharField(max_length=40)
    fraction = models.FloatField(help_text="a fall of more than this below the median alerts")
    enabled = models.BooleanField(default=True)

    class Meta:
        ordering = ["site", "test_name", "operation"]
        constraints = [
            models.UniqueConstraint(
                fields=["site", "test_name", "operation"], name="acceptance_alert_rule_unique"
            ),
            models.CheckConstraint(
                condition=models.Q(fraction__gt=0, fraction__lt=1),
                name="acceptance_alert_rule_fraction",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.test_name} · {self.operation}: {self.fraction:.0%}"


class RegressionAlert(models.Model):
    """One drop of one series, raised by the run where it started (once per drop): an
    acceptance run's test and operation, or an uploaded IO500 run's phase or score (test
    ``IO500_TEST``, operation the phase's name or ``score``)."""

    run = models.ForeignKey(
        AcceptanceRun, on_delete=models.CASCADE, related_name="alerts", null=True, blank=True
    )
    submission = models.ForeignKey(
        Submission,
        on_delete=models.CASCADE,
        related_name="regression_alerts",
        null=True,
        blank=True,
        help_text="the uploaded IO500 run that raised it (instead of an acceptance run)",
    )
    test_name = models.CharField(max_length=200)
    operation = models.CharField(max_length=40)
    unit = models.CharField(max_length=16)
    value = models.FloatField()
    baseline = models.FloatField(null=True, blank=True, help_text="median of earlier runs")
    fraction = models.FloatField(help_text="the rule's fraction when the alert was raised")
    below_median = models.BooleanField()
    missed_target = models.BooleanField()
    message = models.TextField()
    created = models.DateTimeField(auto_now_add=True)
    mailed = models.DateTimeField(
        null=True, blank=True, help_text="when every member had been mailed; null: still to do"
    )

    class Meta:
        ordering = ["-created", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "test_name", "operation"], name="acceptance_alert_unique"
            ),
            models.UniqueConstraint(
                fields=["submission", "test_name", "operation"],
                name="acceptance_alert_unique_submission",
            ),
            models.CheckConstraint(
                condition=models.Q(run__isnull=False, submission__isnull=True)
                | models.Q(run__isnull=True, submission__isnull=False),
                name="acceptance_alert_one_source",
            ),
        ]

    def __str__(self) -> str:
        source = f"run {self.run_id}" if self.run_id else f"submission {self.submission_id}"
        return f"alert {self.pk}: {self.test_name} · {self.operation} ({source})"

    @property
    def site(self) -> Site:
        source = self.run if self.run is not None else self.submission
        assert source is not None  # the check constraint: exactly one
        return source.site

    @property
    def storage_system(self) -> StorageSystem | None:
        source = self.run if self.run is not None else self.submission
        assert source is not None
        return source.storage_system


class AlertDelivery(models.Model):
    """An alert mailed to one address: retries never mail anybody twice."""

    alert = models.ForeignKey(RegressionAlert, on_delete=models.CASCADE, related_name="deliveries")
    address = models.EmailField()
    sent = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["alert", "address"], name="acceptance_alert_mailed_once"
            )
        ]
