"""Re-apply the canonical-names table (``canonical_names``) to rows already stored.

New imports and uploads are canonical when written; this brings older rows (and every row
after the table is edited) to the same values: system descriptions from their values as
submitted, list entries' display columns, and site and storage-system names where the
canonical name is free (two rows that would merge are reported for the committee's storage
system merge, never merged here).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.db import transaction

from accounts.models import Site
from rankings.models import ListEntry
from submissions import public_version
from submissions.canonical_names import FIELDS, SUBMITTED, UNKNOWN_FS_TYPE, Table, table
from submissions.models import StorageSystem, SystemDescription

from . import list_index
from .list_statistics import refresh_all as refresh_statistics

FOLDER_KEY = "fs_type_from_archive_folder"  # set by the importer in ``SystemDescription.data``


def _described_value(names: Table, description: SystemDescription, field: str) -> str:
    current = getattr(description, field)
    raw = getattr(description, SUBMITTED[field]) or current
    if not raw:
        return ""
    folder = (description.data or {}).get(FOLDER_KEY) if field == "fs_type" else None
    if isinstance(folder, str) and folder and raw == folder:
        # The type was resolved from the directory's record or list row at import; keep
        # that unless the folder itself is now a known type.
        stated = current if current not in (folder, UNKNOWN_FS_TYPE) else ""
        return names.fs_type_of_folder(folder, stated)
    if field == "fs_type":
        return names.fs_type(raw, description.fs_name)
    return names.canonical(field, raw)


def _descriptions(names: Table, dry_run: bool) -> tuple[int, dict[tuple[int, str], str]]:
    """Canonical description columns; returns the count changed and, per (submission,
    field), the value it had (list entries copied it when their list was built)."""
    changed: list[SystemDescription] = []
    renamed: dict[tuple[int, str], str] = {}
    columns = ["submission_id", "data", "fs_name", *FIELDS, *SUBMITTED.values()]
    for description in SystemDescription.objects.only("pk", *columns).iterator(chunk_size=500):
        dirty = False
        for field in FIELDS:
            current = getattr(description, field)
            if not getattr(description, SUBMITTED[field]) and current:
                setattr(description, SUBMITTED[field], current)  # rows from before the table
                dirty = True
            wanted = _described_value(names, description, field)
            if wanted != current:
                renamed[(description.submission_id, field)] = current
                setattr(description, field, wanted)
                dirty = True
        if dirty:
            changed.append(description)
    if changed and not dry_run:
        SystemDescription.objects.bulk_update(
            changed, [*FIELDS, *SUBMITTED.values()], batch_size=500
        )
    return len(changed), renamed


def _list_entries(names: Table, renamed: dict[tuple[int, str], str], dry_run: bool) -> int:
    updated = 0
    # Entries built from a description follow its new value.
    for (submission_id, field), old in renamed.items():
        new = SystemDescription.objects.filter(submission_id=submission_id).values_list(
            field, flat=True
        )[0]
        scope = ListEntry.objects.filter(submission_id=submission_id, **{field: old})
        updated += scope.count() if dry_run else scope.update(**{field: new})
    # Entries of published lists carry the website's spelling: map each distinct value.
    for field in FIELDS:
        values = ListEntry.objects.order_by().values_list(field, flat=True).distinct()
        for value in list(values):
            if field == "fs_type" and not names.is_fs_type(value):
                continue
            wanted = names.canonical(field, value) if value else ""
            if wanted != value:
                scope = ListEntry.objects.filter(**{field: value})
                updated += scope.count() if dry_run else scope.update(**{field: wanted})
    return updated


def _entities(names: Table, dry_run: bool) -> tuple[list[str], int]:
    """Report lines and how many sites and storage systems were (or would be) renamed."""
    lines: list[str] = []
    counts: Counter[str] = Counter()
    taken = set(Site.objects.values_list("name", flat=True))
    for site in Site.objects.order_by("pk"):
        wanted = names.canonical("institution", site.name)
        if wanted == site.name:
            continue
        if wanted in taken:
            lines.append(f"site {site.name!r}: {wanted!r} exists; merge them by hand")
            continue
        taken.discard(site.name)
        taken.add(wanted)
        counts["sites renamed"] += 1
        if not dry_run:
            Site.objects.filter(pk=site.pk).update(name=wanted)
    for storage in StorageSystem.objects.order_by("pk"):
        values: dict[str, Any] = {}
        vendor = names.canonical("storage_vendor", storage.vendor)
        if vendor != storage.vendor:
            values["vendor"] = vendor
        if names.is_fs_type(storage.fs_type):
            fs_type = names.canonical("fs_type", storage.fs_type)
            if fs_type != storage.fs_type:
                values["fs_type"] = fs_type
        if not values:
            continue
        clash = (
            "fs_type" in values
            and StorageSystem.objects.filter(
                site_id=storage.site_id,
                client_system_id=storage.client_system_id,
                name=storage.name,
                fs_type=values["fs_type"],
            )
            .exclude(pk=storage.pk)
            .exists()
        )
        if clash:
            lines.append(f"storage system #{storage.pk} {storage}: same as another; merge by hand")
            values.pop("fs_type")
        if values:
            counts["storage systems updated"] += 1
            if not dry_run:
                StorageSystem.objects.filter(pk=storage.pk).update(**values)
    lines.insert(0, ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())) or "entities: none")
    return lines, sum(counts.values())


def apply_to_stored_rows(dry_run: bool = False) -> list[str]:
    """Apply the table; returns report lines (counts, then rows left for the committee)."""
    names = table()
    with transaction.atomic():
        described, renamed = _descriptions(names, dry_run)
        entries = _list_entries(names, renamed, dry_run)
        entity_lines, entities = _entities(names, dry_run)
        if entries and not dry_run:
            refresh_statistics()  # the trends chart names each list's best new entry
            list_index.refresh()  # the lists' search texts and filter choices
        if (described or entries or entities) and not dry_run:
            # Every public page and API response names these rows: none is served from
            # before the rename once it commits.
            public_version.bump()
    verb = "would change" if dry_run else "changed"
    return [
        f"system descriptions {verb}: {described}",
        f"list entries {verb}: {entries}",
        *entity_lines,
    ]
