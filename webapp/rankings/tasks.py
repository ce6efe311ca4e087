"""Celery task of the rankings app: bring the lists up to date after an acceptance.

``submissions`` sends ``lists_changed`` when a submission enters or leaves ``accepted`` (or
an accepted one is edited); ``queue_list_update`` (connected in apps.py) queues
``update_lists_of`` once that transaction commits. The task takes ids, not objects: it reads
the submissions as they are when it runs, so a duplicate or late message brings the lists to
the same state (``update_lists`` writes nothing when they already are). Concurrent updates
and full builds take turns (``list_lock``).
"""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import DatabaseError

from ioscore_site.after_commit import AfterCommitTask

from .builder import update_lists

log = logging.getLogger(__name__)


def queue_list_update(*, submission_id: int, **_signal: Any) -> None:
    """Receiver of ``submissions.signals.lists_changed`` (no-op when list updates are off)."""
    if settings.IOSCORE_LIST_UPDATES:
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
    lines = update_lists(submission_ids).lines()
    log.info("lists updated for submissions %s: %s", submission_ids, "; ".join(lines))
    return lines
