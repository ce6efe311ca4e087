"""Audit lines for management actions whose models keep no history of their own (releases,
roles): Django's admin log, so the admin site shows them too."""

from __future__ import annotations

from typing import Any

from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db.models import Model, QuerySet


def record(actor: Any, target: Model, what: str, why: str) -> LogEntry:
    """One line: ``actor`` did ``what`` to ``target`` because ``why`` (now)."""
    message = f"{what}. Reason: {why.strip()}" if why.strip() else what
    entry: LogEntry = LogEntry.objects.create(
        user=actor,
        content_type=ContentType.objects.get_for_model(type(target)),
        object_id=str(target.pk),
        object_repr=str(target)[:200],
        action_flag=CHANGE,
        change_message=message,
    )
    return entry


def recent(model: type[Model], limit: int = 20) -> QuerySet[LogEntry]:
    kind = ContentType.objects.get_for_model(model)
    return (
        LogEntry.objects.filter(content_type=kind)
        .select_related("user")
        .order_by("-action_time", "-id")[:limit]
    )
