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

from django.db import transaction
from django.utils import timezone

from submissions.models import ListType, Release

from .list_statistics import store_statistics
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


def write_entries(ranked_list: RankedList, entries: list[RankedEntry]) -> None:
    ranked_list.entries.all().delete()
    rows = _entry_rows(ranked_list, entries)
    ListEntry.objects.bulk_create(rows, batch_size=2000)
    store_statistics(ranked_list, rows)  # the trends chart's numbers, from the rows in hand


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
            report.created.append(name)
            return entries
        old = stored_entries(stored)
        if [e.signature() for e in old] == [e.signature() for e in entries]:
            report.unchanged.append(name)
            return old
        if not stored.is_locked:
            write_entries(stored, entries)
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
