"""The lists the IO500 website published (SC17-ISC21) as frozen historical lists.

They are facts, not proposals: membership, order, rank and score exactly as the site showed
them (SC18* with its corrected scores), whatever our rules would decide today. Rows the site
no longer displayed (``displayed=0``) are left out, as its pages did. The malformed ISC21 full
and historical lists showed some submissions twice (``dup=1``, the second copy ranked right
after the first): each submission appears once, and the ranks keep the site's numbering, so
the skipped number marks where the copy stood. ``io500archive.records`` counts both kinds.

Each entry is one of our submissions (the run when the archive has it, else the website
record or the list row), so every entry links to its submission page.

Re-importing rewrites a list only when its rows differ, so a second import changes nothing.
A published list that already held entries is never rewritten silently: each difference is
recorded as a ``Correction`` (a new revision, shown in the release's public changelog), as the
builder's corrections are.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from django.utils import timezone

from io500archive.records import RECORD_PHASES, PublishedLists, PublishedRow, number
from rankings.maintenance.persistence import replace_entries
from rankings.maintenance.ranking import metric_ranks
from rankings.models import Correction, CorrectionKind, ListEntry, ListOrigin, ListState, RankedList
from rankings.phases import field_name
from submissions import canonical_names
from submissions.models import ListType, Release, Submission, SystemDescription


def _entries(
    ranked_list: RankedList,
    rows: list[PublishedRow],
    submissions: dict[int, Submission],
    records: dict[int, dict[str, str]],
    release_of: Callable[[str], Release],
) -> list[ListEntry]:
    bw_ranks = metric_ranks([r.bw or 0.0 for r in rows])
    md_ranks = metric_ranks([r.md or 0.0 for r in rows])
    names = canonical_names.table()
    # A row whose FS type is no known type (an archive folder name like nrsv) shows the type
    # the importer settled on for the submission ("unknown" when nothing states one).
    fs_types = dict(
        SystemDescription.objects.filter(
            submission_id__in=[submissions[row.web_id].pk for row in rows]
        ).values_list("submission_id", "fs_type")
    )
    entries = []
    for index, row in enumerate(rows):
        submission = submissions[row.web_id]
        record = records.get(row.web_id, {})
        origin = release_of(row.web_release) if row.web_release else submission.release
        phases = {
            field_name(phase): number(record.get(column)) for phase, column in RECORD_PHASES.items()
        }
        entries.append(
            ListEntry(
                ranked_list=ranked_list,
                submission=submission,
                position=0,  # the list-order key: set by replace_entries
                rank=row.rank,
                bw_rank=bw_ranks[index],
                md_rank=md_ranks[index],
                score=row.score,
                bw=row.bw if row.bw is not None else 0.0,
                md=row.md if row.md is not None else 0.0,
                submitted_at=submission.submitted_at or submission.created,
                carried_over=origin.pk != ranked_list.release_id,
                origin_release=origin,
                # Display names canonical like every other list's (submissions.canonical_names).
                institution=names.canonical("institution", row.institution),
                system=row.system,
                storage_vendor=names.canonical("storage_vendor", row.storage_vendor),
                fs_type=names.canonical("fs_type", row.filesystem)
                if names.is_fs_type(row.filesystem) or submission.pk not in fs_types
                else fs_types[submission.pk],
                fs_name=record.get("information_filesystem_name", ""),
                fs_version=record.get("information_filesystem_version", ""),
                client_nodes=row.client_nodes,
                procs_per_node=None,
                total_procs=None,
                **phases,
            )
        )
    return entries


# Compared in list order (the stored list-order keys are replace_entries' own).
_COMPARED = ("submission_id", "rank", "score", "bw", "md", "institution", "system")
_SCORES = ("score", "bw", "md")
_NAMES = ("institution", "system")
IMPORT_REASON = "the IO500 website's published list, imported again, differs from the stored one"


def record_import_corrections(
    ranked_list: RankedList, stored: list[tuple[object, ...]], wanted: list[tuple[object, ...]]
) -> int:
    """Record how the import changes a published list's entries (added, removed, score or
    name changed) as corrections of one new revision; returns how many were recorded."""
    before = {int(str(row[0])): dict(zip(_COMPARED, row, strict=True)) for row in stored}
    after = {int(str(row[0])): dict(zip(_COMPARED, row, strict=True)) for row in wanted}
    revision = ranked_list.revision + 1

    def record(kind: str, sid: Any, old: Any = None, new: Any = None) -> Correction:
        return Correction(
            ranked_list=ranked_list,
            kind=kind,
            submission_id=sid,
            old_value=old,
            new_value=new,
            reason=IMPORT_REASON,
            revision=revision,
        )

    records = [
        record(CorrectionKind.ADDED, sid, new={"score": after[sid]["score"]})
        for sid in sorted(after.keys() - before.keys())
    ]
    records += [
        record(CorrectionKind.REMOVED, sid, old={"score": before[sid]["score"]})
        for sid in sorted(before.keys() - after.keys())
    ]
    for sid in sorted(before.keys() & after.keys()):
        for kind, fields in ((CorrectionKind.SCORE, _SCORES), (CorrectionKind.RENAME, _NAMES)):
            changed = [f for f in fields if before[sid][f] != after[sid][f]]
            if changed:
                records.append(
                    record(
                        kind,
                        sid,
                        old={f: before[sid][f] for f in changed},
                        new={f: after[sid][f] for f in changed},
                    )
                )
    if records:
        Correction.objects.bulk_create(records)
        ranked_list.revision = revision
        ranked_list.save(update_fields=["revision"])
    return len(records)


def import_published_lists(
    published: PublishedLists,
    submissions: dict[int, Submission],
    records: dict[int, dict[str, str]],
    release_of: Callable[[str], Release],
) -> list[str]:
    """Write every published list; returns report lines (one per list, plus problems).
    ``release_of`` gives the release row of an acronym (the importer's, created on demand)."""
    types = {t.slug: t for t in ListType.objects.all()}

    grouped: dict[tuple[str, str], list[PublishedRow]] = defaultdict(list)
    lines: list[str] = []
    for row in published.rows:
        if row.web_id not in submissions:
            lines.append(f"published {row.release}/{row.slug} line {row.line}: no submission")
            continue
        grouped[(row.release, row.slug)].append(row)
    lines.append(
        f"published lists: {len(grouped)} lists, {sum(map(len, grouped.values()))} entries; "
        f"left out: {published.hidden} rows the site did not display, "
        f"{published.duplicates} second copies of an entry (ISC21 full/historical)"
    )
    for (acronym, slug), rows in grouped.items():
        release = release_of(acronym)
        ranked_list, _ = RankedList.objects.get_or_create(
            release=release,
            list_type=types[slug],
            defaults={"state": ListState.PUBLISHED},
        )
        when = datetime.combine(release.release_date, datetime.min.time(), tzinfo=UTC)
        meta = {
            "origin": ListOrigin.IO500_WEBSITE,
            "state": ListState.PUBLISHED,
            "frozen_at": when,
            "published_at": when,
        }
        if any(getattr(ranked_list, k) != v for k, v in meta.items()):
            for key, value in meta.items():
                setattr(ranked_list, key, value)
            ranked_list.built_at = timezone.now()
            ranked_list.save()
        entries = _entries(ranked_list, rows, submissions, records, release_of)
        stored = list(ranked_list.entries.order_by("position").values_list(*_COMPARED))
        wanted = [tuple(getattr(e, k) for k in _COMPARED) for e in entries]
        if stored != wanted:
            corrected = record_import_corrections(ranked_list, stored, wanted) if stored else 0
            replace_entries(ranked_list, entries)
            lines.append(
                f"published {acronym}/{slug}: {len(entries)} entries written"
                + (f", {corrected} corrections recorded" if corrected else "")
            )
        else:
            lines.append(f"published {acronym}/{slug}: {len(entries)} entries unchanged")
    return lines
