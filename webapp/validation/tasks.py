"""The validation task: ids in, idempotent, acks_late, safe against a killed worker.

Protocol:
1. Claim: a PostgreSQL session advisory lock keyed on the submission id. The lock dies with
   the worker's database connection, so a killed worker never blocks the redelivered task,
   while a live worker keeps a duplicate delivery away (it retries later).
2. Mark ``validating`` (committed), then do all work in a private sandbox below the media dir.
3. Store phases, issues, scores and the final state in ONE transaction, only if the
   submission is still ``validating``. A crash before that commit leaves the submission in
   ``validating`` with the previous (complete) rows; the redelivered message starts over.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from submissions.models import PhaseResult, Status, Submission
from submissions.workflow import SYSTEM, transition

from .models import ValidationIssue
from .pipeline import Context, Outcome, aware, evaluate, phase_rows

log = logging.getLogger(__name__)
LOCK_NAMESPACE = 74_500  # first key of pg_try_advisory_lock(int, int): "validation"


class SubmissionBusy(Exception):
    """Another live worker holds this submission; retry later."""


def _try_lock(submission_id: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [LOCK_NAMESPACE, submission_id])
        return bool(cursor.fetchone()[0])


def _unlock(submission_id: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [LOCK_NAMESPACE, submission_id])


@shared_task(
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    # Busy: another worker holds the lock. OSError: e.g. a full disk while unpacking.
    autoretry_for=(SubmissionBusy, ConnectionError, OSError),
    retry_backoff=2,
    retry_backoff_max=60,
    max_retries=10,
)
def validate_submission(self: Any, submission_id: int) -> str:
    """Validate one submission; returns the state it ends in (for logs)."""
    if not _try_lock(submission_id):
        raise SubmissionBusy(f"submission {submission_id} is being validated by another worker")
    try:
        return _validate_locked(submission_id)
    finally:
        _unlock(submission_id)


def _start(submission_id: int) -> Submission | None:
    with transaction.atomic():
        submission = (
            Submission.objects.select_for_update()
            .select_related("release")
            .filter(pk=submission_id)
            .first()
        )
        if submission is None or submission.status not in (Status.SUBMITTED, Status.VALIDATING):
            return None  # deleted, withdrawn or already validated: nothing to do (idempotent)
        if submission.status == Status.SUBMITTED:
            transition(submission, Status.VALIDATING, None, "automatic checks started", SYSTEM)
        submission.validation_attempts += 1
        submission.validation_started = timezone.now()
        submission.save(update_fields=["validation_attempts", "validation_started", "updated"])
        return submission


def _validate_locked(submission_id: int) -> str:
    submission = _start(submission_id)
    if submission is None:
        current = Submission.objects.filter(pk=submission_id).values_list("status", flat=True)
        return current.first() or "missing"
    system = getattr(submission, "system_description", None)
    answers = getattr(submission, "questionnaire", None)
    ctx = Context(
        release=submission.release,
        target_list=submission.target_list,
        scc=submission.scc,
        system=system.data if system is not None else None,
        questionnaire=answers.answers if answers is not None else None,
        run_dir=submission.run_dir,
    )
    sandbox_root = Path(settings.IOSCORE_SANDBOX_DIR)
    sandbox_root.mkdir(parents=True, exist_ok=True)
    sandbox = Path(tempfile.mkdtemp(prefix=f"sub{submission_id}-", dir=sandbox_root))
    started = time.perf_counter()
    try:
        outcome = evaluate(Path(settings.MEDIA_ROOT) / submission.archive, sandbox, ctx)
        if settings.IOSCORE_VALIDATION_PAUSE_S:
            time.sleep(settings.IOSCORE_VALIDATION_PAUSE_S)  # fault injection (tests only)
        final = _store(submission_id, outcome)
    finally:
        shutil.rmtree(sandbox, ignore_errors=True)  # only the sandbox we created
    log.info(
        "validated submission %s -> %s in %.3f s",
        submission_id,
        final,
        time.perf_counter() - started,
    )
    return final


@transaction.atomic
def _store(submission_id: int, outcome: Outcome) -> str:
    submission = Submission.objects.select_for_update().get(pk=submission_id)
    if submission.status != Status.VALIDATING:
        return str(submission.status)  # withdrawn meanwhile: keep what is there
    submission.issues.all().delete()
    ValidationIssue.objects.bulk_create(
        ValidationIssue(
            submission=submission,
            rule=i.rule,
            severity=i.severity,
            message=i.message,
            expected=i.expected,
            actual=i.actual,
            phase=i.phase,
        )
        for i in outcome.issues
    )
    submission.phases.all().delete()
    run, scores = outcome.run, outcome.scores
    if run is not None:
        PhaseResult.objects.bulk_create(
            PhaseResult(submission=submission, **row) for row in phase_rows(run)
        )
        submission.run_format = run.format or ""
        submission.benchmark_version = run.version or ""
        submission.run_mode = run.mode or ""
        submission.run_start = aware(run.start)
        submission.run_end = aware(run.end)
        submission.procs = run.procs
        submission.printed_total = run.printed.total if run.printed else None
        submission.extended_total = run.printed_extended.total if run.printed_extended else None
        submission.config = run.config
        submission.config_hash = run.config_hash or ""
        submission.score_hash = run.score_hash or ""
    if scores is not None:
        submission.score_bw = scores.bw
        submission.score_md = scores.md
        submission.score_total = scores.total
        submission.score_valid = scores.valid
    submission.run_dir = outcome.run_dir or submission.run_dir
    submission.validation_error = outcome.fatal
    submission.validation_finished = timezone.now()
    submission.save()
    target = Status.VALIDATION_FAILED if outcome.blocking else Status.UNDER_REVIEW
    blocking = sum(1 for i in outcome.issues if i.severity == "invalid")
    transition(
        submission,
        target,
        None,
        f"automatic checks: {blocking} blocking, {len(outcome.issues) - blocking} other issue(s)",
        SYSTEM,
    )
    return str(target)


@shared_task(ignore_result=True)
def requeue_stuck_validations(older_than_s: int = 600) -> int:
    """Queue validation again for submissions stuck in submitted/validating (beat runs this).

    A killed worker's message is redelivered by the broker; this sweep covers the rarer case of
    a message lost altogether (broker data loss). The task is idempotent and locked per
    submission, so queueing one that is still being validated is harmless.
    """
    from datetime import timedelta

    from django.db.models import Q

    cutoff = timezone.now() - timedelta(seconds=older_than_s)
    stuck = Submission.objects.filter(
        Q(status=Status.SUBMITTED, updated__lt=cutoff)
        | Q(status=Status.VALIDATING, validation_started__lt=cutoff)
    ).values_list("pk", flat=True)
    count = 0
    for pk in stuck:
        validate_submission.apply_async((pk,), queue=settings.IOSCORE_VALIDATION_QUEUE)
        count += 1
    if count:
        log.info("re-queued %d stuck submission(s) for validation", count)
    return count
