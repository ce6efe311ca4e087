"""The one transaction-aware Celery task base: a task queued from a request or a transition
is sent only once the surrounding database transaction commits.

Sent earlier, a worker could pick the message up before the rows it names are visible (or
after they were rolled back), so validation would find no submission and a notification
would mail about a transition that never happened. Outside a transaction ``on_commit`` runs
at once. Each task names the setting holding its queue; it is read when the task is queued
(tests point it at their own worker).
"""

from __future__ import annotations

from typing import Any

from celery import Task
from django.conf import settings
from django.db import transaction


class AfterCommitTask(Task):  # type: ignore[misc]  # celery ships no type hints
    queue_setting: str = ""  # e.g. "IOSCORE_VALIDATION_QUEUE"

    def enqueue_after_commit(self, *args: Any) -> None:
        """``apply_async(args)`` on this task's queue once the current transaction commits."""
        queue = getattr(settings, self.queue_setting)
        transaction.on_commit(lambda: self.apply_async(args, queue=queue))
