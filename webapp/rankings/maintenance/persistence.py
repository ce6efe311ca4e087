"""Writing proposed lists, so that running the builder twice changes nothing.

* a list that does not exist yet is created (published when its release date has passed,
  draft otherwise);
* a draft list is rewritten when the proposal differs from what is stored;
* a frozen or published list is never rewritten silently: a difference is reported, and only
  with ``correction_reason`` applied as ``Correction`` records with a new revision
  (LEADERBOARD-RULES §8).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from django.db import connection, transaction
from django.utils import timezone

from rankings.models import Correction, CorrectionKind, ListEntry, ListState, RankedList
from rankings.phases import PHASE_FIELDS
from submissions import public_version
from submissions.models import ListType, Release, Status, Submission

from . import list_index, list_order
from .list_statistics import EntryValues, store_statistics
from .loading import stored_entries
from .ranking import DISPLAY_FIELDS, RankedEntry


@dataclass
class BuildReport:
    created: list[str] = field(default_factory=list)
    rewritten: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    corrected: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)  # locked lists differing from a rebuild

    def lines(self) -> list[str]:
        out = [
            f"created {len(self.created)}, rewritten {len(self.rewritten)}, "
            f"unchanged {len(self.unchanged)}, corrected {len(self.corrected)}"
        ]
        out += [
            f"warning: {name} is frozen/published and differs from a rebuild; "
            "rerun with --correct REASON to record the changes as corrections"
            for name in self.stale
        ]
        return out


def entry_rows(
    ranked_list: RankedList, entries: list[RankedEntry], keys: list[int] | None = None
) -> list[ListEntry]:
    """The rows of ``entries``; their list-order keys are ``keys`` when given (else
    ``replace_entries`` sets them)."""
    rows = []
    for index, entry in enumerate(entries):
        c = entry.candidate
        phase_values = dict(zip(PHASE_FIELDS, c.phases, strict=True))
        rows.append(
            ListEntry(
                ranked_list=ranked_list,
                submission_id=c.submission_id,
                position=keys[index] if keys is not None else 0,
                rank=entry.rank,
                bw_rank=entry.bw_rank,
                md_rank=entry.md_rank,
                score=c.score,
                bw=c.bw,
                md=c.md,
                submitted_at=c.submitted_at,
                carried_over=c.carried,
                origin_release_id=c.origin_release_id,
                award_score=entry.award_score,
                award_bw=entry.award_bw,
                award_md=entry.award_md,
                pinned=entry.pinned,
                displaced=entry.displaced,
                **phase_values,
                **{f: getattr(c.display, f) for f in DISPLAY_FIELDS},
            )
        )
    return rows


def entry_values(entries: list[RankedEntry]) -> list[EntryValues]:
    """What the statistics read of each entry, straight from the ranking."""
    return [
        EntryValues._make(
            (
                c.submission_id,
                c.origin_release_id,
                c.submitted_at,
                c.display.system,
                c.display.institution,
                c.score,
                c.bw,
                c.md,
                *c.phases,
            )
        )
        for c in (entry.candidate for entry in entries)
    ]


def replace_entries(ranked_list: RankedList, rows: list[ListEntry]) -> None:
    """The list's entries replaced by ``rows`` (in display order: each gets its list-order
    key here, ``list_order.spaced``), with what is derived from them: the trends chart's
    statistics (from the rows in hand) and the search texts and filter choices
    (``list_index``). The builder and the website-list import both write whole lists here."""
    ranked_list.entries.all().delete()
    for row, key in zip(rows, list_order.spaced(len(rows)), strict=True):
        row.position = key
    ListEntry.objects.bulk_create(rows, batch_size=2000)
    store_statistics(ranked_list, rows)
    list_index.refresh([ranked_list.pk])


def write_entries(ranked_list: RankedList, entries: list[RankedEntry]) -> None:
    replace_entries(ranked_list, entry_rows(ranked_list, entries))


def _same(old: list[RankedEntry], new: list[RankedEntry]) -> bool:
    """Whether two versions of a list are equal entry by entry (stops at the first difference:
    one accepted run differs near the top of a 100,000-entry list)."""
    return len(old) == len(new) and all(
        a.signature() == b.signature() for a, b in zip(old, new, strict=True)
    )


def _ranks(entry: RankedEntry) -> tuple[int, int, int]:
    return (entry.rank, entry.bw_rank, entry.md_rank)


def _content(entry: RankedEntry) -> tuple[object, ...]:
    """Everything a row stores except its place (a phase value too, unlike signature())."""
    c = entry.candidate
    return (entry.content(), c.phases, c.submitted_at)


_TABLE = ListEntry._meta.db_table


def rewrite_entries(
    ranked_list: RankedList, old: list[RankedEntry], new: list[RankedEntry]
) -> None:
    """Store ``new`` over the stored ``old`` touching only the rows that differ.

    Rows whose content changed are replaced, and the rows of runs no longer on the list
    deleted. The rows that stay keep their list-order key (``list_order``): a new row gets
    a key between its neighbours', so one accepted run changes only the ranks of the rows
    below it, in one UPDATE that PostgreSQL makes in place (the ranks are in no index, and
    the table leaves room in its pages: rankings migration 0009). Only when the staying rows
    changed order, or two neighbours have no key left between them, are the list's keys
    renumbered, in the same UPDATE. The list's trends statistics are recomputed from
    ``new``, as ``write_entries`` does, and its search texts and filter choices follow the
    added and removed rows (``list_index.update``).
    """
    before = {e.candidate.submission_id: e for e in old}
    ids = [e.candidate.submission_id for e in new]
    stays = {
        e.candidate.submission_id
        for e in new
        if e.candidate.submission_id in before
        and _content(before[e.candidate.submission_id]) == _content(e)
    }
    gone = [sid for sid in before if sid not in stays]  # off the list, or replaced
    removed: list[list_index.Removed] = []
    if gone:
        with connection.cursor() as cursor:
            cursor.execute(
                f"DELETE FROM {_TABLE} WHERE ranked_list_id = %s AND submission_id = ANY(%s) "
                f"RETURNING {list_index.REMOVED_COLUMNS}",
                [ranked_list.pk, gone],
            )
            removed = [list_index.Removed._make(row) for row in cursor.fetchall()]
    keys = _insert_keys(ranked_list, old, ids, stays)
    renumber = keys is None
    if keys is None:  # every row of the list gets a new key
        keys = dict(zip(ids, list_order.spaced(len(ids)), strict=True))
    moved = [
        e
        for e in new
        if e.candidate.submission_id in stays
        and (renumber or _ranks(before[e.candidate.submission_id]) != _ranks(e))
    ]
    if moved:
        _update_places(ranked_list, moved, keys if renumber else None)
    replaced = [e for e in new if e.candidate.submission_id not in stays]
    replaced_keys = [keys[e.candidate.submission_id] for e in replaced]
    ListEntry.objects.bulk_create(entry_rows(ranked_list, replaced, replaced_keys), batch_size=2000)
    store_statistics(ranked_list, entry_values(new))
    list_index.update(ranked_list.pk, [e.candidate.submission_id for e in replaced], removed)


def _update_places(
    ranked_list: RankedList, moved: list[RankedEntry], keys: dict[int, int] | None
) -> None:
    """The moved rows' new ranks, and their new list-order keys when ``keys`` (a
    renumbering). Without keys the update changes no indexed column: HOT, no index written."""
    sids = [e.candidate.submission_id for e in moved]
    columns = [sids, *(list(values) for values in zip(*map(_ranks, moved), strict=True))]
    types, names, sets = "%s::bigint[], %s::int[], %s::int[], %s::int[]", "", ""
    if keys is not None:
        columns.append([keys[sid] for sid in sids])
        types, names, sets = f"{types}, %s::bigint[]", ", position", "position = v.position, "
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {_TABLE} AS e SET {sets}"
            "rank = v.rank, bw_rank = v.bw_rank, md_rank = v.md_rank "
            f"FROM unnest({types}) AS v(submission_id, rank, bw_rank, md_rank{names}) "
            "WHERE e.ranked_list_id = %s AND e.submission_id = v.submission_id",
            [*columns, ranked_list.pk],
        )


def _insert_keys(
    ranked_list: RankedList, old: list[RankedEntry], ids: list[int], stays: set[int]
) -> dict[int, int] | None:
    """The list-order keys of the entries of ``ids`` that do not stay, between their staying
    neighbours' stored keys; None when the list needs renumbering (the staying entries
    changed order, or there is no room)."""
    if [e.candidate.submission_id for e in old if e.candidate.submission_id in stays] != [
        sid for sid in ids if sid in stays
    ]:
        return None
    wanted = list_order.neighbours(ids, stays)
    stored = dict(
        ranked_list.entries.filter(submission_id__in=wanted).values_list(
            "submission_id", "position"
        )
    )
    return list_order.insert_keys(ids, stays, stored)


def record_corrections(
    ranked_list: RankedList, old: list[RankedEntry], new: list[RankedEntry], reason: str
) -> None:
    """Apply a rebuild to a locked list as correction records and a new revision
    (LEADERBOARD-RULES §8)."""
    revision = ranked_list.revision + 1
    before = {e.candidate.submission_id: e for e in old}
    after = {e.candidate.submission_id: e for e in new}
    records = []
    for sid in sorted(after.keys() - before.keys()):
        records.append(
            Correction(
                ranked_list=ranked_list,
                kind=CorrectionKind.ADDED,
                submission_id=sid,
                new_value={"score": after[sid].candidate.score},
                reason=reason,
                revision=revision,
            )
        )
    gone = sorted(before.keys() - after.keys())
    withdrawn = set(
        Submission.objects.filter(pk__in=gone, status=Status.WITHDRAWN).values_list("pk", flat=True)
    )
    for sid in gone:
        # A withdrawn run's numbers are not public any more: the log says only that it left.
        records.append(
            Correction(
                ranked_list=ranked_list,
                kind=CorrectionKind.WITHDRAWN if sid in withdrawn else CorrectionKind.REMOVED,
                submission_id=sid,
                old_value=None if sid in withdrawn else {"score": before[sid].candidate.score},
                reason=reason,
                revision=revision,
            )
        )
    for sid in sorted(before.keys() & after.keys()):
        old_display, new_display = before[sid].candidate.display, after[sid].candidate.display
        if old_display != new_display:
            changed = [
                f for f in DISPLAY_FIELDS if getattr(old_display, f) != getattr(new_display, f)
            ]
            records.append(
                Correction(
                    ranked_list=ranked_list,
                    kind=CorrectionKind.RENAME,
                    submission_id=sid,
                    old_value={f: getattr(old_display, f) for f in changed},
                    new_value={f: getattr(new_display, f) for f in changed},
                    reason=reason,
                    revision=revision,
                )
            )
        if before[sid].candidate.score != after[sid].candidate.score:
            records.append(
                Correction(
                    ranked_list=ranked_list,
                    kind=CorrectionKind.SCORE,
                    submission_id=sid,
                    old_value={"score": before[sid].candidate.score},
                    new_value={"score": after[sid].candidate.score},
                    reason=reason,
                    revision=revision,
                )
            )
    Correction.objects.bulk_create(records)
    write_entries(ranked_list, new)
    ranked_list.revision = revision
    ranked_list.save(update_fields=["revision"])


def apply(
    release: Release,
    list_type: ListType,
    stored: RankedList | None,
    entries: list[RankedEntry],
    correction_reason: str | None,
    today: date,
    report: BuildReport,
) -> list[RankedEntry]:
    name = f"{release.acronym}/{list_type.slug}"
    with transaction.atomic():
        if stored is None:
            published = release.release_date <= today
            now = timezone.now()
            stored = RankedList.objects.create(
                release=release,
                list_type=list_type,
                state=ListState.PUBLISHED if published else ListState.DRAFT,
                frozen_at=now if published else None,
                published_at=now if published else None,
            )
            write_entries(stored, entries)
            if published:  # a new tab on its sibling lists' pages, a new row on the home page
                public_version.bump()
            report.created.append(name)
            return entries
        old = stored_entries(stored)
        if _same(old, entries):
            report.unchanged.append(name)
            return old
        if not stored.is_locked:
            rewrite_entries(stored, old, entries)
            stored.built_at = timezone.now()
            stored.save(update_fields=["built_at"])
            report.rewritten.append(name)
            return entries
        if correction_reason:
            record_corrections(stored, old, entries, correction_reason)
            report.corrected.append(name)
            return entries
        report.stale.append(name)
        return old


def publish(ranked_list: RankedList) -> None:
    """A draft or frozen list becomes published as it stands (frozen now if it was not);
    from then on it changes only through corrections. The only caller is the admins'
    recorded step (``portal_manage.lists.publish``), which writes who, when and why."""
    if ranked_list.state == ListState.PUBLISHED:
        raise ValueError(f"{ranked_list} is already published")
    now = timezone.now()
    ranked_list.state = ListState.PUBLISHED
    ranked_list.frozen_at = ranked_list.frozen_at or now
    ranked_list.published_at = now
    ranked_list.save(update_fields=["state", "frozen_at", "published_at"])
    public_version.bump()  # a new public list once its release date has passed
