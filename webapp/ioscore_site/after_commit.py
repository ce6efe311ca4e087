"""The one transaction-aware Celery task base: a task queued from a request or a transition
is sent only once the surrounding database transaction commits.

Sent earlier, a worker could pick the message up before the rows it names are visible (or
after they were rolled back), so validation would find no submission and a notification
would mail about a transition that never happened. Outside a transaction ``on_commit`` runs
at once. Each task names the setting holding its queue; it is read when the task is queued
(tests point it at their own worker).

A broker that is down does not fail the request that committed: the message is dropped with
a warning, and the beat sweeps (``requeue_stuck_validations``, ``reconcile_lists``) find what
the database says is still to do.
"""

from __future__ import annotations

import logging
import smtplib
from typing import Any

from celery import Task
from django.conf import settings
from django.db import transaction

log = logging.getLogger(__name__)
# A few quick tries, then give up: the request must not hang on a broker that is down.
PUBLISH_RETRY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5}


class AfterCommitTask(Task):  # type: ignore[misc]  # celery ships no type hints
    queue_setting: str = ""  # e.g. "IOSCORE_VALIDATION_QUEUE"

    def enqueue_after_commit(self, *args: Any) -> None:
        """``apply_async(args)`` on this task's queue once the current transaction commits."""
        queue = getattr(settings, self.queue_setting)

        def send() -> None:
            try:
                self.apply_async(args, queue=queue, retry_policy=PUBLISH_RETRY)
            except Exception:  # kombu's errors differ per transport; all mean "not sent"
                log.warning("could not queue %s%s; the sweep queues it again", self.name, args)

        transaction.on_commit(send)


# A task that sends mail: queued after the commit on the notification queue, retried with
# backoff while the mail server is away, acknowledged only when done (a killed worker's mail
# is sent again; each task skips the recipients its delivery records already name).
MAIL_TASK: dict[str, Any] = {
    "base": AfterCommitTask,
    "queue_setting": "IOSCORE_NOTIFICATION_QUEUE",
    "bind": True,
    "acks_late": True,
    "autoretry_for": (smtplib.SMTPException, OSError),
    "retry_backoff": 30,
    "retry_backoff_max": 3600,
    "max_retries": 8,
}
