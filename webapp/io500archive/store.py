"""Batched, idempotent writes of imported IO500 submissions.

The importer turns each run / website record / list row into a ``SubmissionRows`` (field
values by column name, phase rows, system description); ``write_submissions`` stores them all
in a fixed number of queries: existing rows are read once, compared, and only differences are
written (``bulk_create`` / ``bulk_update``). A second import of the same data writes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from accounts.models import Site
from submissions import public_version
from submissions.models import (
    ClientSystem,
    PhaseResult,
    Status,
    StorageSystem,
    Submission,
    SubmissionTransition,
    SystemDescription,
)

BATCH = 500


@dataclass
class SubmissionRows:
    external_id: str
    values: dict[str, Any]  # Submission columns by attname (``release_id``, ``score_total``...)
    phases: list[dict[str, Any]]
    system: dict[str, Any]  # SystemDescription columns
    submission: Submission | None = None
    created: bool = False


class Entities:
    """Sites, client systems and storage systems, read once and created when missing."""

    def __init__(self) -> None:
        self.sites = {s.name: s for s in Site.objects.all()}
        self.client_systems = {(c.site_id, c.name): c for c in ClientSystem.objects.all()}
        self.storage = {
            (s.site_id, s.client_system_id, s.name, s.fs_type): s
            for s in StorageSystem.objects.all()
        }

    def site(self, name: str) -> Site:
        if name not in self.sites:
            self.sites[name] = Site.objects.create(name=name)
        return self.sites[name]

    def client_system(self, site: Site, name: str) -> ClientSystem:
        key = (site.pk, name)
        if key not in self.client_systems:
            self.client_systems[key] = ClientSystem.objects.create(site=site, name=name)
        return self.client_systems[key]

    def storage_system(
        self, site: Site, client_system: ClientSystem, name: str, fs_type: str, vendor: str
    ) -> StorageSystem:
        key = (site.pk, client_system.pk, name, fs_type)
        storage = self.storage.get(key)
        if storage is None:
            storage = StorageSystem.objects.create(
                site=site, client_system=client_system, name=name, fs_type=fs_type, vendor=vendor
            )
            self.storage[key] = storage
        elif vendor and not storage.vendor:  # learnt from a later row of the same system
            storage.vendor = vendor
            storage.save(update_fields=["vendor"])
        return storage


def _differs(obj: Any, values: dict[str, Any]) -> list[str]:
    return [key for key, value in values.items() if getattr(obj, key) != value]


def _upsert(
    model: Any, existing: dict[Any, Any], wanted: dict[Any, dict[str, Any]], **fixed: Any
) -> dict[Any, Any]:
    """Create the missing rows, update the changed ones; returns every row by key."""
    new, changed, fields = [], [], set()
    rows = {}
    for key, values in wanted.items():
        row = existing.get(key)
        if row is None:
            row = model(**values, **fixed)
            new.append(row)
        elif diff := _differs(row, values):
            for name in diff:
                setattr(row, name, values[name])
            changed.append(row)
            fields.update(diff)
        rows[key] = row
    model.objects.bulk_create(new, batch_size=BATCH)
    if changed:
        model.objects.bulk_update(changed, sorted(fields), batch_size=BATCH)
    return rows


def write_submissions(items: list[SubmissionRows]) -> None:
    existing = {
        s.external_id: s
        for s in Submission.objects.filter(external_id__in=[i.external_id for i in items])
    }
    rows = _upsert(
        Submission,
        existing,
        {i.external_id: {"external_id": i.external_id, **i.values} for i in items},
    )
    for item in items:
        item.submission = rows[item.external_id]
        item.created = item.external_id not in existing
    SubmissionTransition.objects.bulk_create(
        [
            SubmissionTransition(
                submission=i.submission,
                from_status="",
                to_status=Status.ACCEPTED,
                comment=f"imported from the IO500 archive ({i.external_id})",
                created=i.submission.created,
            )
            for i in items
            if i.created and i.submission is not None
        ],
        batch_size=BATCH,
    )
    _write_phases(items)
    public_version.bump()  # bulk writes send no signals
    ids = [i.submission.pk for i in items if i.submission is not None]
    _upsert(
        SystemDescription,
        {d.submission_id: d for d in SystemDescription.objects.filter(submission_id__in=ids)},
        {
            i.submission.pk: {"submission_id": i.submission.pk, **i.system}
            for i in items
            if i.submission is not None
        },
    )


def _write_phases(items: list[SubmissionRows]) -> None:
    """Phases updated in place (same rows, same ids on a re-import); stale ones removed."""
    ids = [i.submission.pk for i in items if i.submission is not None]
    stored: dict[tuple[int, str], PhaseResult] = {}
    for phase in PhaseResult.objects.filter(submission_id__in=ids):
        stored[(phase.submission_id, phase.name)] = phase
    wanted: dict[tuple[int, str], dict[str, Any]] = {}
    for item in items:
        assert item.submission is not None
        for row in item.phases:
            wanted[(item.submission.pk, row["name"])] = {"submission_id": item.submission.pk, **row}
    stale = [phase.pk for key, phase in stored.items() if key not in wanted]
    if stale:
        PhaseResult.objects.filter(pk__in=stale).delete()
    # Per-rank data (up to thousands of ranks per phase) is written one row at a time: in a
    # bulk insert psycopg escapes it element by element into an array, 10x slower.
    ranks = {key: values.pop("ranks", []) for key, values in wanted.items()}
    rows = _upsert(PhaseResult, stored, wanted)
    for key, phase_ranks in ranks.items():
        if rows[key].ranks != phase_ranks:
            PhaseResult.objects.filter(pk=rows[key].pk).update(ranks=phase_ranks)
