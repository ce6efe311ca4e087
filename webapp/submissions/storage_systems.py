"""Committee edits of storage systems (LEADERBOARD-RULES §1): merge two into one, split one into
two.

Both move submissions between storage systems and leave an audit record; nothing is deleted
(a merged system stays, pointing at its survivor through ``merged_into``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import transaction

from .models import StorageSystem, StorageSystemChange, Submission


class StorageSystemError(Exception):
    """The requested merge or split makes no sense; the message says why."""


@transaction.atomic
def merge(source: StorageSystem, target: StorageSystem, actor: Any, reason: str) -> int:
    """Move every submission of ``source`` to ``target``; returns how many moved."""
    if not reason.strip():
        raise StorageSystemError("a merge needs a reason")
    target = target.canonical()
    if source.pk == target.pk:
        raise StorageSystemError("cannot merge a storage system into itself")
    moved = list(Submission.objects.filter(storage_system=source).values_list("pk", flat=True))
    Submission.objects.filter(pk__in=moved).update(storage_system=target)
    StorageSystem.objects.filter(merged_into=source).update(merged_into=target)
    source.merged_into = target
    source.save(update_fields=["merged_into"])
    StorageSystemChange.objects.create(
        action=StorageSystemChange.MERGE,
        source=source,
        target=target,
        submissions=moved,
        actor=actor,
        reason=reason,
    )
    return len(moved)


@transaction.atomic
def split(
    source: StorageSystem,
    submission_ids: Iterable[int],
    name: str,
    fs_type: str,
    actor: Any,
    reason: str,
    vendor: str = "",
) -> StorageSystem:
    """Move the given submissions of ``source`` to a new (or existing) storage system of the
    same site and client system, named ``name`` / ``fs_type``."""
    if not reason.strip():
        raise StorageSystemError("a split needs a reason")
    wanted = set(submission_ids)
    owned = set(
        Submission.objects.filter(storage_system=source, pk__in=wanted).values_list("pk", flat=True)
    )
    if not wanted or owned != wanted:
        raise StorageSystemError(
            f"submissions {sorted(wanted - owned)} do not belong to storage system {source.pk}"
        )
    target, _ = StorageSystem.objects.get_or_create(
        site=source.site,
        client_system=source.client_system,
        name=name,
        fs_type=fs_type,
        defaults={"vendor": vendor or source.vendor},
    )
    if target.pk == source.pk:
        raise StorageSystemError("the new storage system must differ from the old one")
    Submission.objects.filter(pk__in=owned).update(storage_system=target)
    StorageSystemChange.objects.create(
        action=StorageSystemChange.SPLIT,
        source=source,
        target=target,
        submissions=sorted(owned),
        actor=actor,
        reason=reason,
    )
    return target
