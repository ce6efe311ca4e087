"""Releases, systems and submissions (LEADERBOARD-RULES §1, §4, §5, §7).

Field names here are a contract with the rankings app (lists, entries, corrections):
keep them stable.
"""

from __future__ import annotations

from datetime import date

from django.conf import settings
from django.db import models
from django.utils import timezone

from accounts.models import Site


class Release(models.Model):
    """One list publication (a BoF): SC25, ISC26, the special SC18*."""

    acronym = models.CharField(max_length=16, unique=True)
    name = models.CharField(max_length=200, blank=True)
    release_date = models.DateField(help_text="publication date = end of the embargo")
    submission_deadline = models.DateField()
    tag_date = models.DateField(null=True, blank=True, help_text="benchmark tag announced")
    stabilization_start = models.DateField(null=True, blank=True)
    stabilization_end = models.DateField(null=True, blank=True)
    accepted_versions = models.JSONField(
        default=list, blank=True, help_text="benchmark version tags accepted for this release"
    )
    historic = models.BooleanField(default=False, help_text="imported; dates may be approximate")

    class Meta:
        ordering = ["release_date"]

    def __str__(self) -> str:
        return self.acronym

    def is_embargoed(self, today: date | None = None) -> bool:
        """True until the release date: nothing attached to it may be public yet."""
        return self.release_date > (today or timezone.now().date())

    def is_open(self) -> bool:
        return self.submission_deadline >= timezone.now().date()


class ListRule(models.TextChoices):
    """Who enters a list (rankings.maintenance.membership, LEADERBOARD-RULES §2, §3, §5)."""

    HISTORICAL = "historical", "every accepted run, carried forever"
    FULL = "full", "every valid run"
    PRODUCTION = "production", "opted-in production runs"
    RESEARCH = "research", "opted-in runs not on Production"
    IO500 = "io500", "opted-in runs (legacy IO500 list)"
    SCC = "scc", "Student Cluster Competition runs of the release"


class ListEra(models.TextChoices):
    ANY = "any", "every release"
    LEGACY = "legacy", "releases up to SC22"
    CURRENT = "current", "releases after SC22"


class ListType(models.Model):
    """Historical, Full, Production, Research, 10-node …, SCC, legacy IO500 / 10 Node Challenge.

    The rows say how each list is built (the builder reads these flags, never the slug):
    ``rule`` who enters, ``ten_node`` only runs on exactly 10 client nodes (the 10-node
    subset of the list of the same rule), ``award`` one entry per storage system and the
    release's awards marked, ``era`` which releases have the list.
    """

    slug = models.SlugField(max_length=40, unique=True)
    name = models.CharField(max_length=80)
    order = models.PositiveSmallIntegerField(default=0)
    rule = models.CharField(max_length=20, choices=ListRule.choices, default=ListRule.FULL)
    era = models.CharField(max_length=10, choices=ListEra.choices, default=ListEra.ANY)
    ten_node = models.BooleanField(default=False)
    award = models.BooleanField(default=False)

    class Meta:
        ordering = ["order", "slug"]

    def __str__(self) -> str:
        return self.name


class ClientSystem(models.Model):
    """The supercomputer the clients ran on (list column "System")."""

    site = models.ForeignKey(Site, on_delete=models.PROTECT, related_name="client_systems")
    name = models.CharField(max_length=200)

    class Meta:
        ordering = ["site__name", "name"]
        constraints = [
            models.UniqueConstraint(fields=["site", "name"], name="client_system_unique_name")
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.site})"


class StorageSystem(models.Model):
    """The unit of "best per storage system" de-duplication; an explicit, committee-edited
    entity instead of string matching. ``merged_into`` records a committee merge: the
    merged row stays (history) but ``canonical()`` resolves to the survivor."""

    site = models.ForeignKey(Site, on_delete=models.PROTECT, related_name="storage_systems")
    client_system = models.ForeignKey(
        ClientSystem,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="storage_systems",
    )
    name = models.CharField(max_length=200, help_text='file-system name ("File System Name")')
    fs_type = models.CharField(max_length=100, help_text='software ("File System Type")')
    vendor = models.CharField(max_length=200, blank=True)
    merged_into = models.ForeignKey(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="merged_from"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["site__name", "name"]
        constraints = [
            models.UniqueConstraint(
                fields=["site", "client_system", "name", "fs_type"],
                name="storage_system_unique_identity",
                nulls_distinct=False,
            )
        ]

    def __str__(self) -> str:
        system = self.client_system.name if self.client_system is not None else "?"
        return f"{self.site} / {system} / {self.name} ({self.fs_type})"

    def canonical(self) -> StorageSystem:
        node = self
        seen = {node.pk}
        while node.merged_into_id is not None and node.merged_into_id not in seen:
            seen.add(node.merged_into_id)
            node = node.merged_into  # type: ignore[assignment]
        return node


class StorageSystemChange(models.Model):
    """Audit record of a committee merge or split of storage systems."""

    MERGE = "merge"
    SPLIT = "split"
    action = models.CharField(max_length=10, choices=[(MERGE, "merge"), (SPLIT, "split")])
    source = models.ForeignKey(StorageSystem, on_delete=models.PROTECT, related_name="+")
    target = models.ForeignKey(StorageSystem, on_delete=models.PROTECT, related_name="+")
    submissions = models.JSONField(default=list, help_text="ids of the submissions moved")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, related_name="+"
    )
    reason = models.TextField()
    created = models.DateTimeField(default=timezone.now)


class ReproducibilityLevel(models.TextChoices):
    UNDEFINED = "undefined", "Undefined"
    LIMITED = "limited", "Limited"
    PROPRIETARY = "proprietary", "Proprietary"
    FULLY_REPRODUCIBLE = "fully_reproducible", "Fully Reproducible"


LEVEL_ORDER = [level.value for level in ReproducibilityLevel]


class TargetList(models.TextChoices):
    PRODUCTION = "production", "Production"
    RESEARCH = "research", "Research / test"
    SCC = "scc", "Student Cluster Competition"


class Status(models.TextChoices):
    DRAFT = "draft", "Draft"
    SUBMITTED = "submitted", "Submitted"
    VALIDATING = "validating", "Validating"
    VALIDATION_FAILED = "validation_failed", "Validation failed"
    UNDER_REVIEW = "under_review", "Under review"
    CHANGES_REQUESTED = "changes_requested", "Changes requested"
    ACCEPTED = "accepted", "Accepted"
    REJECTED = "rejected", "Rejected"
    WITHDRAWN = "withdrawn", "Withdrawn"


class Source(models.TextChoices):
    UPLOAD = "upload", "Upload"
    IO500_IMPORT = "io500-import", "Historical IO500 import"


class Submission(models.Model):
    """One benchmark run package + system description + questionnaire (LEADERBOARD-RULES §1, §7)."""

    release = models.ForeignKey(Release, on_delete=models.PROTECT, related_name="submissions")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="submissions",
    )
    site = models.ForeignKey(Site, on_delete=models.PROTECT, related_name="submissions")
    client_system = models.ForeignKey(
        ClientSystem, on_delete=models.PROTECT, null=True, blank=True, related_name="submissions"
    )
    storage_system = models.ForeignKey(
        StorageSystem,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="submissions",
    )
    status = models.CharField(
        max_length=20, choices=Status.choices, default=Status.DRAFT, db_index=True
    )
    source = models.CharField(max_length=20, choices=Source.choices, default=Source.UPLOAD)
    external_id = models.CharField(
        max_length=64,
        unique=True,
        null=True,
        blank=True,
        help_text='id in an external archive, e.g. "io500:612" for imports',
    )
    io500_id = models.PositiveIntegerField(
        null=True,
        blank=True,
        db_index=True,
        help_text="IO500 website submission id (= archive submission-<N>), shown publicly",
    )

    # The raw archive, stored unchanged (path relative to MEDIA_ROOT).
    archive = models.CharField(max_length=300, blank=True)
    archive_name = models.CharField(max_length=255, blank=True, help_text="uploaded file name")
    archive_sha256 = models.CharField(max_length=64, null=True, blank=True, db_index=True)
    archive_size = models.BigIntegerField(null=True, blank=True)

    # Run summary, filled by validation (or the importer) from ioscore.results.
    run_dir = models.CharField(max_length=500, blank=True, help_text="selected run inside archive")
    run_format = models.CharField(max_length=20, blank=True)
    benchmark_version = models.CharField(max_length=200, blank=True)
    run_mode = models.CharField(max_length=20, blank=True)
    run_start = models.DateTimeField(null=True, blank=True)
    run_end = models.DateTimeField(null=True, blank=True)
    procs = models.IntegerField(null=True, blank=True)
    score_bw = models.FloatField(null=True, blank=True, help_text="GiB/s, recomputed")
    score_md = models.FloatField(null=True, blank=True, help_text="kIOPS, recomputed")
    score_total = models.FloatField(null=True, blank=True, help_text="sqrt(BW*MD), recomputed")
    score_valid = models.BooleanField(null=True, blank=True)
    printed_total = models.FloatField(null=True, blank=True, help_text="TOTAL as printed")
    extended_total = models.FloatField(null=True, blank=True, help_text="[SCOREX] total")
    config = models.JSONField(default=dict, blank=True, help_text="section -> key -> value")
    config_hash = models.CharField(max_length=100, blank=True)
    score_hash = models.CharField(max_length=100, blank=True)

    # Submitter intent and committee decisions (LEADERBOARD-RULES §7 "acceptance records").
    target_list = models.CharField(
        max_length=12, choices=TargetList.choices, default=TargetList.RESEARCH
    )
    opt_in_ranking = models.BooleanField(default=True)
    show_submitter = models.BooleanField(default=False)
    scc = models.BooleanField(default=False)
    ten_node_eligible = models.BooleanField(null=True, blank=True)
    production_eligible = models.BooleanField(null=True, blank=True)
    late_approved = models.BooleanField(default=False)
    valid_from = models.ForeignKey(
        Release, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    valid_to = models.ForeignKey(
        Release, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    note = models.TextField(blank=True, help_text="import notes, fall-back reasons")

    # Validation bookkeeping (the Celery task owns these).
    validation_attempts = models.PositiveIntegerField(default=0)
    validation_started = models.DateTimeField(null=True, blank=True)
    validation_finished = models.DateTimeField(null=True, blank=True)
    validation_error = models.TextField(blank=True, help_text="why the archive could not be read")

    created = models.DateTimeField(default=timezone.now)
    submitted_at = models.DateTimeField(null=True, blank=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created", "-id"]
        indexes = [models.Index(fields=["release", "status"])]
        constraints = [
            # An archive is one submission per owner; another owner's identical upload is
            # their own submission (submissions.intake: the answer reveals nobody else's).
            models.UniqueConstraint(
                fields=["owner", "archive_sha256"], name="submission_unique_archive_per_owner"
            )
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.site} ({self.status})"


class SubmissionTransition(models.Model):
    """Every state change: who, when, from, to, comment (LEADERBOARD-RULES §7)."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="transitions")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    from_status = models.CharField(max_length=20, choices=Status.choices, blank=True)
    to_status = models.CharField(max_length=20, choices=Status.choices)
    comment = models.TextField(blank=True)
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created", "id"]


class NotificationDelivery(models.Model):
    """An e-mail about a transition reached one recipient (key, never the address: the
    submitter contact stays encrypted at rest). Makes the notification task idempotent."""

    transition = models.ForeignKey(
        SubmissionTransition, on_delete=models.CASCADE, related_name="deliveries"
    )
    recipient = models.CharField(max_length=40)  # "owner", "contact", "committee:<user id>"
    sent_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["transition", "recipient"], name="one_notification_per_recipient"
            )
        ]


class PhaseResult(models.Model):
    """One phase of a submission's run (all phases, scored or not)."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="phases")
    name = models.CharField(max_length=60)
    order = models.PositiveSmallIntegerField(default=0)
    value = models.FloatField()
    unit = models.CharField(max_length=10)
    group = models.CharField(max_length=4, default="none")
    time = models.FloatField(null=True, blank=True)
    valid = models.BooleanField(default=True)
    invalid_reasons = models.JSONField(default=list, blank=True)
    score_txt = models.FloatField(null=True, blank=True)
    extra = models.JSONField(default=dict, blank=True)
    # Only runs that carry them (ioscore result.json): per-rank rows and time series.
    ranks = models.JSONField(default=list, blank=True)
    # Above the suite's rank-detail threshold (result.json summary form): quantiles, the named
    # slowest/fastest ranks and per-host aggregates; ``ranks`` then holds only the named ranks.
    rank_summary = models.JSONField(null=True, blank=True)
    timeseries = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["submission", "order"]
        constraints = [
            models.UniqueConstraint(fields=["submission", "name"], name="phase_unique_name")
        ]


class SystemDescription(models.Model):
    """The structured system tree (validated JSON, LEADERBOARD-RULES §4) and its flattened list
    columns."""

    submission = models.OneToOneField(
        Submission, on_delete=models.CASCADE, related_name="system_description"
    )
    schema_version = models.CharField(max_length=40, default="ioscore-system/1")
    data = models.JSONField(default=dict)

    institution = models.CharField(max_length=300, blank=True)
    system = models.CharField(max_length=200, blank=True)
    storage_vendor = models.CharField(max_length=200, blank=True)
    fs_type = models.CharField(max_length=100, blank=True)
    # Institution, vendor and FS type above are canonical (submissions.canonical_names); what
    # the submitter or the archive gave is kept here and shown as "as submitted".
    institution_submitted = models.CharField(max_length=300, blank=True)
    storage_vendor_submitted = models.CharField(max_length=200, blank=True)
    fs_type_submitted = models.CharField(max_length=200, blank=True)
    fs_name = models.CharField(max_length=200, blank=True)
    fs_version = models.CharField(max_length=100, blank=True)
    client_nodes = models.IntegerField(null=True, blank=True)
    procs_per_node = models.IntegerField(null=True, blank=True)
    total_procs = models.IntegerField(null=True, blank=True)
    client_os = models.CharField(max_length=100, blank=True)
    client_os_version = models.CharField(max_length=100, blank=True)
    client_kernel = models.CharField(max_length=100, blank=True)
    md_nodes = models.IntegerField(null=True, blank=True)
    md_devices = models.IntegerField(null=True, blank=True)
    md_media_type = models.CharField(max_length=100, blank=True)
    md_interface = models.CharField(max_length=100, blank=True)
    md_network = models.CharField(max_length=100, blank=True)
    md_memory_bytes = models.BigIntegerField(null=True, blank=True)
    md_software_version = models.CharField(max_length=100, blank=True)
    md_os_version = models.CharField(max_length=100, blank=True)
    ds_nodes = models.IntegerField(null=True, blank=True)
    ds_devices = models.IntegerField(null=True, blank=True)
    ds_media_type = models.CharField(max_length=100, blank=True)
    ds_interface = models.CharField(max_length=100, blank=True)
    ds_network = models.CharField(max_length=100, blank=True)
    ds_memory_bytes = models.BigIntegerField(null=True, blank=True)
    ds_software_version = models.CharField(max_length=100, blank=True)
    ds_os_version = models.CharField(max_length=100, blank=True)
    storage_capacity_bytes = models.BigIntegerField(null=True, blank=True)
    client_network_bw = models.FloatField(null=True, blank=True, help_text="bytes/s")
    server_network_bw = models.FloatField(null=True, blank=True, help_text="bytes/s")
    data_center_url = models.URLField(blank=True, max_length=500)
    raw_files_url = models.URLField(blank=True, max_length=500)
    # The submitter block is kept out of ``data`` (which is shown publicly once released):
    # the e-mail only encrypted (submissions.contact), the name only when shown publicly.
    submitter_name = models.CharField(max_length=200, blank=True)
    submitter_email_encrypted = models.TextField(blank=True)


class Questionnaire(models.Model):
    """Reproducibility questionnaire (LEADERBOARD-RULES §5.1): the claim and the committee verdict
    are separate fields; every change of either is kept in ``LevelChange``."""

    submission = models.OneToOneField(
        Submission, on_delete=models.CASCADE, related_name="questionnaire"
    )
    answers = models.JSONField(default=dict, blank=True)
    claimed_level = models.CharField(
        max_length=20, choices=ReproducibilityLevel.choices, blank=True
    )
    assigned_level = models.CharField(
        max_length=20, choices=ReproducibilityLevel.choices, blank=True
    )
    updated = models.DateTimeField(auto_now=True)


class LevelChange(models.Model):
    """History of claimed and assigned reproducibility levels."""

    CLAIMED = "claimed"
    ASSIGNED = "assigned"
    questionnaire = models.ForeignKey(
        Questionnaire, on_delete=models.CASCADE, related_name="level_history"
    )
    kind = models.CharField(max_length=10, choices=[(CLAIMED, "claimed"), (ASSIGNED, "assigned")])
    old_level = models.CharField(max_length=20, blank=True)
    new_level = models.CharField(max_length=20, blank=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    comment = models.TextField(blank=True)
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created", "id"]


class PublicResultsVersion(models.Model):
    """One row whose counter moves in the same transaction as any change to what is public
    (see ``submissions.public_version``): caches of public pages key on it, and a counter
    in the database (not in the cache, which may be per process) is the same for every
    worker and never ahead of what it describes."""

    counter = models.BigIntegerField(default=0)
