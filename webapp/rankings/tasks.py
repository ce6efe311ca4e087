"""Celery task of the rankings app: bring the lists up to date after an acceptance.

``submissions`` sends ``lists_changed`` when a submission enters or leaves ``accepted`` (or
an accepted one is edited); ``queue_list_update`` (connected in apps.py) queues
``update_lists_of`` once that transaction commits. The task takes ids, not objects: it reads
the submissions as they are when it runs, so a duplicate or late message brings the lists to
the same state (``update_lists`` writes nothing when they already are). Concurrent updates
and full builds take turns (``list_lock``).

Nothing is lost when the broker is down: the receiver records a ``PendingListUpdate`` in the
transaction that changed the submission, the update deletes it, and beat's
``reconcile_lists`` queues again what is still pending after a while.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import DatabaseError
from django.utils import timezone

from ioscore_site.after_commit import AfterCommitTask

from .maintenance.builder import update_lists
from .models import PendingListUpdate

log = logging.getLogger(__name__)


def queue_list_update(*, submission_id: int, **_signal: Any) -> None:
    """Receiver of ``submissions.signals.lists_changed`` (no-op when list updates are off)."""
    if settings.IOSCORE_LIST_UPDATES:
        PendingListUpdate.objects.update_or_create(
            submission_id=submission_id, defaults={"since": timezone.now()}
        )
        update_lists_of.enqueue_after_commit([submission_id])


@shared_task(
    base=AfterCommitTask,
    queue_setting="IOSCORE_LISTS_QUEUE",
    bind=True,
    acks_late=True,
    # A lost connection or a deadlock is worth another try; a defect is not retried.
    autoretry_for=(DatabaseError, OSError),
    retry_backoff=10,
    retry_backoff_max=300,
    max_retries=5,
)
def update_lists_of(self: object, submission_ids: list[int]) -> list[str]:
    """Update the lists these submissions concern; returns the report's lines."""
    started = timezone.now()
    lines = update_lists(submission_ids).lines()
    # A change recorded after this update started still needs its own.
    PendingListUpdate.objects.filter(submission_id__in=submission_ids, since__lte=started).delete()
    log.info("lists updated for submissions %s: %s", submission_ids, "; ".join(lines))
    return lines


@shared_task(ignore_result=True)
def reconcile_lists(older_than_s: int = 300) -> int:
    """Queue again the list updates still pending after ``older_than_s`` (a message the
    broker never got or lost); beat runs this. Returns how many submissions were queued."""
    from datetime import timedelta

    cutoff = timezone.now() - timedelta(seconds=older_than_s)
    pending = sorted(
        PendingListUpdate.objects.filter(since__lte=cutoff).values_list("submission_id", flat=True)
    )
    if pending:
        update_lists_of.enqueue_after_commit(pending)
        log.info("re-queued the list update of %d submission(s)", len(pending))
    return len(pending)
