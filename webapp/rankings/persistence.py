"""Writing proposed lists, so that running the builder twice changes nothing.

* a list that does not exist yet is created (published when its release date has passed,
  draft otherwise);
* a draft list is rewritten when the proposal differs from what is stored;
* a frozen or published list is never rewritten silently: a difference is reported, and only
  with ``correction_reason`` applied as ``Correction`` records with a new revision (spec §8).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from django.db import connection, transaction
from django.utils import timezone

from submissions import public_version
from submissions.models import ListType, Release

from . import list_index
from .list_statistics import EntryValues, store_statistics
from .loading import stored_entries
from .models import Correction, CorrectionKind, ListEntry, ListState, RankedList
from .phases import PHASE_FIELDS
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


def _entry_rows(ranked_list: RankedList, entries: list[RankedEntry]) -> list[ListEntry]:
    rows = []
    for entry in entries:
        c = entry.candidate
        phase_values = dict(zip(PHASE_FIELDS, c.phases, strict=True))
        rows.append(
            ListEntry(
                ranked_list=ranked_list,
                submission_id=c.submission_id,
                position=entry.position,
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


def _values(entries: list[RankedEntry]) -> list[EntryValues]:
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
    """The list's entries replaced by ``rows``, with what is derived from them: the trends
    chart's statistics (from the rows in hand) and the search texts and filter choices
    (``list_index``). The builder and the website-list import both write whole lists here."""
    ranked_list.entries.all().delete()
    ListEntry.objects.bulk_create(rows, batch_size=2000)
    store_statistics(ranked_list, rows)
    list_index.refresh([ranked_list.pk])


def write_entries(ranked_list: RankedList, entries: list[RankedEntry]) -> None:
    replace_entries(ranked_list, _entry_rows(ranked_list, entries))


def _same(old: list[RankedEntry], new: list[RankedEntry]) -> bool:
    """Whether two versions of a list are equal entry by entry (stops at the first difference:
    one accepted run differs near the top of a 100,000-entry list)."""
    return len(old) == len(new) and all(
        a.signature() == b.signature() for a, b in zip(old, new, strict=True)
    )


def _placing(entry: RankedEntry) -> tuple[int, int, int, int]:
    return (entry.position, entry.rank, entry.bw_rank, entry.md_rank)


def _content(entry: RankedEntry) -> tuple[object, ...]:
    """Everything a row stores except its placing (a phase value too, unlike signature())."""
    c = entry.candidate
    return (entry.content(), c.phases, c.submitted_at)


def rewrite_entries(
    ranked_list: RankedList, old: list[RankedEntry], new: list[RankedEntry]
) -> None:
    """Store ``new`` over the stored ``old`` touching only the rows that differ.

    One accepted run moves every entry below it down by one: those rows get their new placing
    in one UPDATE (re-inserting every row through the ORM was most of update_lists' time at
    100,000 submissions); rows whose content changed are replaced, and the rows of runs no
    longer on the list deleted. The list's trends statistics are recomputed from ``new``, as
    ``write_entries`` does.
    """
    before = {e.candidate.submission_id: e for e in old}
    kept = {e.candidate.submission_id for e in new}
    replaced: list[RankedEntry] = []
    moved: list[RankedEntry] = []
    for entry in new:
        was = before.get(entry.candidate.submission_id)
        if was is None or _content(was) != _content(entry):
            replaced.append(entry)
        elif _placing(was) != _placing(entry):
            moved.append(entry)
    gone = [sid for sid in before if sid not in kept]
    gone += [e.candidate.submission_id for e in replaced if e.candidate.submission_id in before]
    if gone:
        ranked_list.entries.filter(submission_id__in=gone).delete()
    if moved:
        columns = [[e.candidate.submission_id for e in moved]]
        columns += [list(values) for values in zip(*(_placing(e) for e in moved), strict=True)]
        with connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {ListEntry._meta.db_table} AS e SET position = v.position, "
                "rank = v.rank, bw_rank = v.bw_rank, md_rank = v.md_rank "
                "FROM unnest(%s::bigint[], %s::int[], %s::int[], %s::int[], %s::int[]) "
                "AS v(submission_id, position, rank, bw_rank, md_rank) "
                "WHERE e.ranked_list_id = %s AND e.submission_id = v.submission_id",
                [*columns, ranked_list.pk],
            )
    ListEntry.objects.bulk_create(_entry_rows(ranked_list, replaced), batch_size=2000)
    store_statistics(ranked_list, _values(new))
    if gone or replaced:  # a move changes no text or choice
        list_index.refresh([ranked_list.pk])


def record_corrections(
    ranked_list: RankedList, old: list[RankedEntry], new: list[RankedEntry], reason: str
) -> None:
    """Apply a rebuild to a locked list as correction records and a new revision (spec §8)."""
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
    for sid in sorted(before.keys() - after.keys()):
        records.append(
            Correction(
                ranked_list=ranked_list,
                kind=CorrectionKind.REMOVED,
                submission_id=sid,
                old_value={"score": before[sid].candidate.score},
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
