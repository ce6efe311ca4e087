"""Ranked lists, their entries and the public correction log (LEADERBOARD-RULES §2, §3, §8).

A ``RankedList`` is one list type in one release. Its ``ListEntry`` rows are a frozen snapshot:
entry score, BW, MD and the 12 scored phase values are copied when the submission first enters
the list (and carried unchanged into later releases), so a committee re-score is an explicit
``Correction`` instead of a silent change. Ranks are stored, never computed at display time.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Func, Value
from django.db.models.functions import Concat, Lower, Upper
from django.utils import timezone

from submissions.models import ListType, Release, StorageSystem, Submission

from .phases import PHASE_FIELDS


class ListState(models.TextChoices):
    DRAFT = "draft", "Draft"
    FROZEN = "frozen", "Frozen"
    PUBLISHED = "published", "Published"


class ListOrigin(models.TextChoices):
    BUILT = "built", "Built by our rules"
    IO500_WEBSITE = "io500-website", "Published by the IO500 website"


class RankedList(models.Model):
    release = models.ForeignKey(Release, on_delete=models.PROTECT, related_name="ranked_lists")
    list_type = models.ForeignKey(ListType, on_delete=models.PROTECT, related_name="ranked_lists")
    state = models.CharField(max_length=10, choices=ListState.choices, default=ListState.DRAFT)
    revision = models.PositiveIntegerField(default=1, help_text="bumped by every correction")
    built_at = models.DateTimeField(default=timezone.now)
    frozen_at = models.DateTimeField(null=True, blank=True)
    published_at = models.DateTimeField(null=True, blank=True)
    doi = models.CharField(max_length=200, blank=True)
    # A list the IO500 website published (SC17-ISC21) is a historical fact: imported as it
    # was shown, never rebuilt by our rules (the builder only carries it forward).
    origin = models.CharField(max_length=20, choices=ListOrigin.choices, default=ListOrigin.BUILT)

    class Meta:
        ordering = ["-release__release_date", "list_type__order"]
        constraints = [
            models.UniqueConstraint(fields=["release", "list_type"], name="ranked_list_unique")
        ]

    def __str__(self) -> str:
        return f"{self.list_type.name} list at {self.release.acronym}"

    @property
    def is_locked(self) -> bool:
        """Frozen and published lists change only through corrections."""
        return self.state != ListState.DRAFT


# Between the fields of ``ListEntry.search_text``: a search with a control character in it
# (listview drops them) cannot match across two fields.
SEARCH_SEPARATOR = "\n"
SEARCH_FIELDS = ("institution", "system", "storage_vendor", "fs_type", "fs_name")


def _search_text_expression() -> Lower:
    parts: list[object] = []
    for name in SEARCH_FIELDS:
        parts += [name, Value(SEARCH_SEPARATOR)]
    return Lower(Concat(*parts[:-1], output_field=models.TextField()))


def _search_key_expression() -> Func:
    """A 64-bit hash of the search text (a generated column cannot read another one)."""
    return Func(
        _search_text_expression(),
        Value(0),
        function="hashtextextended",
        output_field=models.BigIntegerField(),
    )


# The columns a list can be sorted by that no index above orders (listview.COLUMNS): the
# rank is the position, score, BW, MD and institution have their own index, and the BW and
# MD ranks are read through BW's and MD's (listview._walked_ids). No index may hold a rank:
# an accepted run changes the ranks of every entry below it, and an update that changes no
# indexed column stays in its page (HOT; rankings migration 0009). The release
# date and the reproducibility level are read one value at a time (listview._walked_ids),
# by the entries' release and level in list order: a release or level with few or no
# entries on the list is then a short range, not a walk of the whole list.
SORTED_COLUMNS = (
    "origin_release",
    "level",
    "system",
    "storage_vendor",
    "fs_type",
    "client_nodes",
    "total_procs",
    *PHASE_FIELDS,
)


class ListEntry(models.Model):
    """One submission on one list, with the numbers and ranks frozen for that list."""

    ranked_list = models.ForeignKey(RankedList, on_delete=models.CASCADE, related_name="entries")
    submission = models.ForeignKey(Submission, on_delete=models.PROTECT, related_name="entries")
    # Not the entry's number on the list but a gapped key in display order (score desc, then
    # time), so that an entry inserted later leaves the other rows' keys alone (list_order).
    position = models.PositiveBigIntegerField(
        help_text="list-order key: increasing in display order, with gaps (rankings.list_order)"
    )
    rank = models.PositiveIntegerField(help_text="competition rank by entry score")
    bw_rank = models.PositiveIntegerField()
    md_rank = models.PositiveIntegerField()
    score = models.FloatField(help_text="entry score (SCORE), frozen")
    bw = models.FloatField(help_text="GiB/s, frozen")
    md = models.FloatField(help_text="kIOPS, frozen")
    # The 12 scored phases, frozen with the score (GiB/s for ior-*, kIOPS otherwise).
    ior_easy_write = models.FloatField(null=True)
    mdtest_easy_write = models.FloatField(null=True)
    ior_hard_write = models.FloatField(null=True)
    mdtest_hard_write = models.FloatField(null=True)
    find = models.FloatField(null=True)
    ior_easy_read = models.FloatField(null=True)
    mdtest_easy_stat = models.FloatField(null=True)
    ior_hard_read = models.FloatField(null=True)
    mdtest_hard_stat = models.FloatField(null=True)
    mdtest_easy_delete = models.FloatField(null=True)
    mdtest_hard_read = models.FloatField(null=True)
    mdtest_hard_delete = models.FloatField(null=True)
    # Display columns flattened from the submission's description when the list is built, so the
    # list page reads one table (see listview); a rename is a correction (LEADERBOARD-RULES §8).
    institution = models.CharField(max_length=300, blank=True)
    system = models.CharField(max_length=200, blank=True)
    storage_vendor = models.CharField(max_length=200, blank=True)
    fs_type = models.CharField(max_length=100, blank=True)
    fs_name = models.CharField(max_length=200, blank=True)
    fs_version = models.CharField(max_length=100, blank=True)
    client_nodes = models.IntegerField(null=True)
    procs_per_node = models.IntegerField(null=True)
    total_procs = models.IntegerField(null=True)
    level = models.CharField(max_length=20, blank=True, help_text="reproducibility verdict")
    # What the list's text search matches: the display columns above, lower-cased, computed
    # by PostgreSQL on every write (the builder's inserts, a canonicalisation's UPDATE), so it
    # cannot go stale. It is carried by the list-order index below, so a search reads that
    # index only. (A pg_trgm GIN index was slower: a name made of trigrams most entries share,
    # like "cluster-0042", was slow to look up in millions of entries; bench/service_scale.)
    search_text = models.GeneratedField(
        expression=_search_text_expression(),
        output_field=models.TextField(),
        db_persist=True,
    )
    # Its hash, which the list-order index carries instead of the text: a search finds the
    # matching texts among the list's distinct ones (``list_index``), then entries by key.
    search_key = models.GeneratedField(
        expression=_search_key_expression(),
        output_field=models.BigIntegerField(),
        db_persist=True,
    )
    submitted_at = models.DateTimeField(help_text="tie-break: earlier submission first")
    carried_over = models.BooleanField(default=False)
    origin_release = models.ForeignKey(Release, on_delete=models.PROTECT, related_name="+")
    award_score = models.BooleanField(default=False)
    award_bw = models.BooleanField(default=False)
    award_md = models.BooleanField(default=False)
    pinned = models.BooleanField(default=False, help_text="kept by a committee pin")
    # De-dup bookkeeping (LEADERBOARD-RULES §3: the builder flags candidates): submissions of the
    # same storage system that this entry displaced on a de-duplicated list.
    displaced = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["ranked_list", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["ranked_list", "submission"], name="list_entry_unique_submission"
            )
        ]
        indexes = [
            # A list in display order, carrying what the filters and the search compare and
            # the id: a filtered count and the ids of a page are index-only scans of the
            # list's range, not visits to 100,000 heap rows (listview.ListRows). The search
            # is carried as its 8-byte key, not the text (the index was 488 MB with it).
            models.Index(
                fields=["ranked_list", "position"],
                include=[
                    "id",
                    "fs_type",
                    "storage_vendor",
                    "client_nodes",
                    "level",
                    "origin_release",
                    "search_key",
                ],
                name="entry_list_position",
            ),
            # The same for one file system type (a filter on it reads that type's entries
            # only), and a list sorted by institution without sorting it.
            models.Index(
                F("ranked_list"),
                Upper("fs_type"),
                F("position"),
                include=[
                    "id",
                    "fs_type",  # what the index condition is computed from: index-only
                    "storage_vendor",
                    "client_nodes",
                    "level",
                    "origin_release",
                    "search_key",
                ],
                name="entry_list_fs_position",
            ),
            models.Index(fields=["ranked_list", "institution", "position"], name="entry_list_inst"),
            # A search's entries by the keys of its matching texts (list_index): a name
            # reads its few hundred entries, not the list's 100,000.
            models.Index(
                fields=["ranked_list", "search_key"],
                include=["id", "position"],
                name="entry_list_search",
            ),
            # A list's best SCORE, BW and MD (trends) from the top of an index.
            models.Index(fields=["ranked_list", "-score"], name="entry_list_score"),
            models.Index(fields=["ranked_list", "-bw"], name="entry_list_bw"),
            models.Index(fields=["ranked_list", "-md"], name="entry_list_md"),
            # A list sorted by any other column: an ordered walk of the list's range, read
            # forward for ascending and backward (an Incremental Sort puts ties back in
            # position order) for descending, so a page reads its rows, not the list's
            # (listview.ListRows). The vendor and node-count ones also serve those filters.
            *[
                models.Index(
                    fields=["ranked_list", column, "position"],
                    # The vendor's carries the release: the vendor and year filters read
                    # only the index (no heap visit per entry of the vendor).
                    include=["id", "origin_release"] if column == "storage_vendor" else ["id"],
                    name=f"entry_sort_{column}",
                )
                for column in SORTED_COLUMNS
            ],
        ]

    def __str__(self) -> str:
        return f"#{self.rank} {self.submission_id} on {self.ranked_list_id}"


class ListSearchText(models.Model):
    """One distinct search text of a list and its key (``rankings.maintenance.list_index``)."""

    ranked_list = models.ForeignKey(RankedList, on_delete=models.CASCADE, related_name="+")
    search_key = models.BigIntegerField()
    search_text = models.TextField()
    shared = models.BooleanField(help_text="another text of the list has this key")


class ListFacet(models.Model):
    """One distinct (FS type, vendor, release) of a list: its filter choices."""

    ranked_list = models.ForeignKey(RankedList, on_delete=models.CASCADE, related_name="+")
    fs_type = models.CharField(max_length=100, blank=True)
    storage_vendor = models.CharField(max_length=200, blank=True)
    origin_release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="+")


class StoragePin(models.Model):
    """Committee decision: on lists of this type, show this submission for its storage system
    even when another of the same system scores higher (LEADERBOARD-RULES §3 de-dup)."""

    list_type = models.ForeignKey(ListType, on_delete=models.CASCADE, related_name="+")
    storage_system = models.ForeignKey(StorageSystem, on_delete=models.CASCADE, related_name="+")
    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="+")
    reason = models.TextField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["list_type", "storage_system"], name="storage_pin_unique"
            )
        ]


class CorrectionKind(models.TextChoices):
    ADDED = "added", "Entry added"
    REMOVED = "removed", "Entry removed"
    WITHDRAWN = "withdrawn", "Entry withdrawn"  # recorded without the run's values
    MOVED = "moved", "Entry moved between lists"
    SCORE = "score", "Score changed"
    RENAME = "rename", "Metadata renamed"


class Correction(models.Model):
    """A post-publication change of a list (LEADERBOARD-RULES §8), shown in the public changelog."""

    ranked_list = models.ForeignKey(
        RankedList, on_delete=models.CASCADE, related_name="corrections"
    )
    kind = models.CharField(max_length=10, choices=CorrectionKind.choices)
    submission = models.ForeignKey(
        Submission, on_delete=models.PROTECT, null=True, blank=True, related_name="corrections"
    )
    old_value = models.JSONField(null=True, blank=True)
    new_value = models.JSONField(null=True, blank=True)
    reason = models.TextField()
    approved_by = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="+")
    revision = models.PositiveIntegerField(help_text="list revision this change produced")
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created", "id"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} on {self.ranked_list} (rev {self.revision})"


class ListStatistic(models.Model):
    """What the trends chart draws for one metric of one list, stored when the list's entries
    are written (``rankings.maintenance.list_statistics``), so the page reads a few rows per release
    instead of every entry's value.

    The box describes the list's new entries (those first entered in its release) with a
    positive value, as the chart shows them on a log axis; ``not_drawn`` counts the others.
    """

    ranked_list = models.ForeignKey(RankedList, on_delete=models.CASCADE, related_name="statistics")
    metric = models.CharField(max_length=40, help_text='"score", "bw", "md" or a scored phase')
    # Over every entry, carried ones too: the best-per-release line, the radar's list reference.
    list_best = models.FloatField(null=True, help_text="highest value on the whole list")
    # For "score" (never null) this is the list's size, shown on the home and list index.
    list_count = models.PositiveIntegerField(default=0, help_text="entries with a value")
    count = models.PositiveIntegerField(help_text="new entries with a positive value")
    not_drawn = models.PositiveIntegerField(help_text="new entries with a value <= 0")
    minimum = models.FloatField(null=True)
    q1 = models.FloatField(null=True)
    median = models.FloatField(null=True)
    q3 = models.FloatField(null=True)
    maximum = models.FloatField(null=True)
    # The new entry holding ``maximum``, named as the list shows it.
    best_submission = models.ForeignKey(
        Submission, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    best_name = models.CharField(max_length=300, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["ranked_list", "metric"], name="list_statistic_unique_metric"
            )
        ]

    def __str__(self) -> str:
        return f"{self.metric} of {self.ranked_list_id}: {self.count} values"


class PendingListUpdate(models.Model):
    """A submission whose lists must be brought up to date, written in the transaction that
    changed it and deleted by the update that did it: what the sweep
    (``rankings.tasks.reconcile_lists``) re-queues when the broker lost the message."""

    submission = models.OneToOneField(
        Submission, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    since = models.DateTimeField(default=timezone.now)
