"""The trends chart's numbers per list, stored with the list (``ListStatistic``).

The trends chart shows, per release, the best score, BW and MD of the whole list and a box
of the metric among the list's new entries (those that first entered in that release; carried
rows are most of a list), naming the best of them. Sending every value made the page's
payload and time grow with the number of submissions; five quantiles per
list and metric do not. The list's best of every phase is also the result page's radar
reference (an aggregate over every entry of a list of 100,000 before).

Only accepted runs count: an entry whose run was withdrawn after its list was locked stays on
the list until a correction removes it, but leaves its statistics at once (``restate``, run by
every list update).

``store_statistics`` runs after a list's entries are written (the builder's persistence step,
the import of the website's lists), from the rows just written when the caller has them;
``fill_missing`` computes them for lists stored before this table existed (``build_lists``
calls it, and ``canonicalise_names`` refreshes every list after renaming entries).

Quartiles interpolate linearly between order statistics (the "inclusive" method: numpy's
default and plotly's ``quartilemethod: "linear"``), so a precomputed box is drawn as plotly
would have drawn it from the values.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from django.db import transaction
from django.db.models import Count, Exists, Max, OuterRef

from rankings.models import ListEntry, ListState, ListStatistic, RankedList
from rankings.phases import PHASE_FIELDS, PHASES
from submissions import public_version, visibility
from submissions.models import Submission

# Every metric the chart can show -> its ListEntry column.
METRIC_FIELDS: dict[str, str] = {
    "score": "score",
    "bw": "bw",
    "md": "md",
    **dict(zip(PHASES, PHASE_FIELDS, strict=True)),
}
_READ = (
    "submission_id",
    "origin_release_id",
    "submitted_at",
    "system",
    "institution",
    *METRIC_FIELDS.values(),
)
# The columns ``compute`` reads, without a model instance (the builder has 100,000 of them in
# hand as ranking entries; making ListEntry objects of them is the slow part).
EntryValues = namedtuple("EntryValues", _READ)  # type: ignore[misc]


def quantile(ordered: Sequence[float], fraction: float) -> float:
    """The ``fraction`` quantile of sorted, non-empty ``ordered`` (linear interpolation)."""
    at = (len(ordered) - 1) * fraction
    low = int(at)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)


def entry_name(entry: Any) -> str:
    """How the chart names an entry: its system, and the institution when there is one."""
    system, institution = entry.system or "", entry.institution or ""
    if system and institution:
        return f"{system} ({institution})"
    return system or institution or f"#{entry.submission_id}"


def compute(ranked_list: RankedList, rows: Iterable[Any]) -> list[ListStatistic]:
    """One ``ListStatistic`` per metric from ``rows`` (ListEntry or rows with its columns);
    a metric without new entries gets a row with count 0 (the chart's "no new entries")."""
    rows = list(rows)
    whole: dict[str, Whole] = {}
    for metric, field in METRIC_FIELDS.items():
        on_list = [v for r in rows if (v := getattr(r, field)) is not None]
        whole[metric] = Whole(max(on_list) if on_list else None, len(on_list))
    new = [r for r in rows if r.origin_release_id == ranked_list.release_id]
    return _statistics(ranked_list, new, whole)


class Whole(NamedTuple):
    """A metric over every entry of a list, carried ones too."""

    best: float | None
    valued: int  # entries with a value


def _statistics(
    ranked_list: RankedList, new: list[Any], whole: dict[str, Whole]
) -> list[ListStatistic]:
    """The statistics rows from the list's new entries (the box) and ``whole``."""
    out = []
    for metric, field in METRIC_FIELDS.items():
        valued = [(getattr(r, field), r) for r in new if getattr(r, field) is not None]
        drawn = sorted((v, r.submission_id, r) for v, r in valued if v > 0)
        stat = ListStatistic(
            ranked_list=ranked_list,
            metric=metric,
            count=len(drawn),
            not_drawn=len(valued) - len(drawn),
            list_best=whole[metric].best,
            list_count=whole[metric].valued,
        )
        if drawn:
            ordered = [v for v, _sid, _r in drawn]
            # The earliest-submitted of equal best values is the one ranked first.
            best_value = ordered[-1]
            best = min(
                (r for v, _sid, r in drawn if v == best_value),
                key=lambda r: (r.submitted_at, r.submission_id),
            )
            stat.minimum, stat.maximum = ordered[0], best_value
            stat.q1, stat.median, stat.q3 = (quantile(ordered, f) for f in (0.25, 0.5, 0.75))
            stat.best_submission_id = best.submission_id
            stat.best_name = entry_name(best)[:300]
        out.append(stat)
    return out


def store_statistics_changed(
    ranked_list: RankedList, new: list[Any], added: list[Any], removed: list[Any]
) -> bool:
    """Replace the list's statistics after the rows ``added`` joined it and ``removed`` left
    it, without reading the whole list: the box from ``new``, the list's new entries as
    stored now; the best and count per metric from the stored ones, and the best from the
    list's rows only for a metric whose best may have left. False, and nothing written,
    when the list has no complete stored statistics to start from."""
    stored = {s.metric: s for s in ranked_list.statistics.all()}
    if stored.keys() != METRIC_FIELDS.keys():
        return False
    whole: dict[str, Whole] = {}
    best_left = []
    for metric, field in METRIC_FIELDS.items():
        best, valued = stored[metric].list_best, stored[metric].list_count
        gone = [v for r in removed if (v := getattr(r, field)) is not None]
        came = [v for r in added if (v := getattr(r, field)) is not None]
        if best is not None and any(v >= best for v in gone):
            best_left.append(metric)
        elif came:
            best = max(came) if best is None else max(best, *came)
        whole[metric] = Whole(best, valued + len(came) - len(gone))
    if best_left:
        bests = ranked_list.entries.aggregate(
            **{metric: Max(METRIC_FIELDS[metric]) for metric in best_left}
        )
        for metric in best_left:
            whole[metric] = Whole(bests[metric], whole[metric].valued)
    stats = _statistics(ranked_list, new, whole)
    with transaction.atomic():
        ranked_list.statistics.all().delete()
        ListStatistic.objects.bulk_create(stats)
    return True


def list_sizes(list_ids: Iterable[int]) -> dict[int, int]:
    """Entries per list: stored with the statistics (counting the newest release's lists was
    most of the home page's time at scale); counted only for a list stored without them."""
    ids = set(list_ids)
    stored = dict(
        ListStatistic.objects.filter(ranked_list__in=ids, metric="score").values_list(
            "ranked_list_id", "list_count"
        )
    )
    counted = (
        ListEntry.objects.filter(ranked_list__in=ids - stored.keys())
        .order_by()
        .values_list("ranked_list")
        .annotate(n=Count("id"))
        .values_list("ranked_list", "n")
    )
    return {pk: 0 for pk in ids} | stored | dict(counted)


def store_statistics(ranked_list: RankedList, rows: Iterable[Any] | None = None) -> None:
    """Replace the list's statistics with those of ``rows`` (the entries just written), or of
    its stored entries when not given."""
    if rows is None:
        rows = (
            ranked_list.entries.filter(submission__status__in=visibility.PUBLIC_STATUSES)
            .order_by()
            .values_list(*_READ, named=True)
        )
    stats = compute(ranked_list, rows)
    with transaction.atomic():
        ranked_list.statistics.all().delete()
        ListStatistic.objects.bulk_create(stats)


def restate(submission_ids: Iterable[int]) -> int:
    """Recompute the statistics of the locked lists holding any of these runs (a draft list
    was rewritten by the update already): a run withdrawn after publication leaves them
    before the correction that removes its entry. Returns how many lists were restated; the
    public-results version moves with them, so no cached page keeps the old numbers."""
    ids = set(submission_ids)
    locked = RankedList.objects.exclude(state=ListState.DRAFT).filter(
        Exists(ListEntry.objects.filter(ranked_list=OuterRef("pk"), submission_id__in=ids))
    )
    restated = 0
    for ranked_list in locked.order_by("pk"):
        store_statistics(ranked_list)
        restated += 1
    if restated:
        public_version.bump()
    return restated


def no_longer_accepted() -> list[int]:
    """Runs still on a locked list that are not accepted any more (withdrawn, waiting for
    the correction that removes their entries): what a full build restates."""
    gone = Submission.objects.exclude(status__in=visibility.PUBLIC_STATUSES).values("id")
    entries = ListEntry.objects.exclude(ranked_list__state=ListState.DRAFT)
    return sorted(
        set(entries.filter(submission_id__in=gone).values_list("submission_id", flat=True))
    )


def fill_missing(lists: Iterable[RankedList] | None = None) -> int:
    """Compute the statistics of every list (of ``lists`` when given) that has none;
    returns how many lists were filled."""
    scope = RankedList.objects.filter(
        ~Exists(ListStatistic.objects.filter(ranked_list=OuterRef("pk")))
    )
    if lists is not None:
        scope = scope.filter(pk__in=[rl.pk for rl in lists])
    filled = 0
    for ranked_list in scope.order_by("pk"):
        store_statistics(ranked_list)
        filled += 1
    return filled


def refresh_all() -> int:
    """Recompute every list's statistics (after entries changed outside the builder)."""
    count = 0
    for ranked_list in RankedList.objects.order_by("pk"):
        store_statistics(ranked_list)
        count += 1
    return count
