"""The validation task: ids in, idempotent, acks_late, safe against a killed worker.

Protocol:
1. Claim: a PostgreSQL session advisory lock keyed on the submission id. The lock dies with
   the worker's database connection, so a killed worker never blocks the redelivered task,
   while a live worker keeps a duplicate delivery away (it retries later).
2. Mark ``validating`` (committed), then do all work in a private sandbox below the media dir,
   in a child process with time and memory limits (``limited``): a limit hit ends the
   submission ``validation_failed`` naming the limit.
3. Store phases, issues, scores and the final state in ONE transaction, only if the
   submission is still ``validating``. A crash before that commit leaves the submission in
   ``validating`` with the previous (complete) rows; the redelivered message starts over.
4. Bounded: an attempt that never finishes (worker killed) or fails with an error counts;
   after IOSCORE_VALIDATION_MAX_ATTEMPTS the submission ends ``validation_failed`` with the
   last reason, so neither redelivery nor the beat sweep feeds a poison upload back forever.
"""

from __future__ import annotations

import logging
import math
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from ioscore.results import Severity, storable_text
from ioscore_site.after_commit import AfterCommitTask
from submissions.models import PhaseResult, Status, Submission
from submissions.run_rows import aware, iter_phase_rows
from submissions.workflow import SYSTEM, transition

from .limited import ChildFailed, LimitExceeded, Limits, run_limited
from .models import ValidationIssue
from .pipeline import Context, IssueRow, Outcome, evaluate, scrubbed

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


def _failure(rule: str, message: str) -> Outcome:
    return Outcome(issues=[IssueRow(rule, Severity.INVALID, message)], fatal=message)


@shared_task(
    base=AfterCommitTask,
    queue_setting="IOSCORE_VALIDATION_QUEUE",
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    # Busy: another worker holds the lock. OSError: e.g. a full disk while unpacking.
    autoretry_for=(SubmissionBusy, ConnectionError, OSError),
    retry_backoff=2,
    retry_backoff_max=60,
    max_retries=10,
    # The child process has the real limits; these catch a hang anywhere else (prefork pool).
    soft_time_limit=settings.IOSCORE_VALIDATION_SOFT_TIME_LIMIT_S,
    time_limit=settings.IOSCORE_VALIDATION_HARD_TIME_LIMIT_S,
)
def validate_submission(self: Any, submission_id: int) -> str:
    """Validate one submission; returns the state it ends in (for logs)."""
    if not _try_lock(submission_id):
        raise SubmissionBusy(f"submission {submission_id} is being validated by another worker")
    try:
        return _validate_locked(submission_id)
    except SoftTimeLimitExceeded:  # prefork pool only: a hang outside the checks' child
        limit = settings.IOSCORE_VALIDATION_SOFT_TIME_LIMIT_S
        message = f"validation stopped: the task time limit of {limit:g} s was exceeded"
        return _store_or_fail(submission_id, _failure("validation-limit", message))
    except (ConnectionError, OSError) as exc:
        _remember_error(submission_id, f"{type(exc).__name__}: {exc}")
        raise  # retried; the attempt limit ends it with this reason
    finally:
        _unlock(submission_id)


def _remember_error(submission_id: int, reason: str) -> None:
    """Keep why an attempt failed, for the message when the attempts run out."""
    try:
        shown = storable_text(reason.replace(str(settings.MEDIA_ROOT), "(media)"))
        Submission.objects.filter(pk=submission_id, status=Status.VALIDATING).update(
            validation_error=shown[:1000]
        )
    except DatabaseError:
        log.exception("could not record the error of submission %s", submission_id)


def _give_up(submission: Submission) -> None:
    """The attempts ran out: end ``validation_failed`` with the last reason (lock held)."""
    last = submission.validation_error or (
        "the worker stopped before finishing each time (killed, out of memory or restarted)"
    )
    message = (
        f"validation stopped after {submission.validation_attempts} attempts that did not "
        f"finish; last reason: {last}"
    )
    _store(submission.pk, _failure("validation-attempts", message))


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
        if (
            submission.status == Status.VALIDATING
            and submission.validation_attempts >= settings.IOSCORE_VALIDATION_MAX_ATTEMPTS
        ):
            _give_up(submission)
            return None
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
    # Sandboxes of earlier attempts on this submission were left by a killed worker; the
    # lock we hold means no live task uses them.
    for leftover in sandbox_root.glob(f"sub{submission_id}-*"):
        shutil.rmtree(leftover, ignore_errors=True)
    sandbox = Path(tempfile.mkdtemp(prefix=f"sub{submission_id}-", dir=sandbox_root))
    started = time.perf_counter()
    try:
        outcome = _evaluate_limited(Path(settings.MEDIA_ROOT) / submission.archive, sandbox, ctx)
        final = _store_or_fail(submission_id, outcome)
    finally:
        shutil.rmtree(sandbox, ignore_errors=True)  # only the sandbox we created
    log.info(
        "validated submission %s -> %s in %.3f s",
        submission_id,
        final,
        time.perf_counter() - started,
    )
    return final


def validation_limits() -> Limits:
    wall = float(settings.IOSCORE_VALIDATION_TIME_LIMIT_S)
    return Limits(
        wall_s=wall,
        cpu_s=max(1, math.ceil(wall)),
        memory_bytes=int(settings.IOSCORE_VALIDATION_MEMORY_MB) << 20,
    )


def _evaluate_limited(archive: Path, sandbox: Path, ctx: Context) -> Outcome:
    """``evaluate`` in a child process; a limit or a crash becomes a failed outcome."""
    try:
        outcome: Outcome = run_limited(
            lambda: _paused(evaluate(archive, sandbox, ctx)),
            validation_limits(),
            sandbox,
            readable=(archive,),
        )
        return outcome
    except LimitExceeded as exc:
        message = f"validation stopped: {exc} (the archive is too large or too complex to check)"
        return _failure("validation-limit", message)
    except ChildFailed as exc:
        log.error("checks crashed on %s: %s", archive, exc)
        message = (
            f"the automatic checks failed unexpectedly ({exc}); "
            "the committee can see this; please contact them"
        )
        return scrubbed(_failure("checker-error", message), sandbox, archive)


def _paused(outcome: Outcome) -> Outcome:
    if settings.IOSCORE_VALIDATION_PAUSE_S:  # fault injection (tests): a kill lands here
        time.sleep(settings.IOSCORE_VALIDATION_PAUSE_S)
    return outcome


def _store_or_fail(submission_id: int, outcome: Outcome) -> str:
    """Store the outcome; a row the database refuses ends the submission failed, not stuck."""
    try:
        return _store(submission_id, outcome)
    except DatabaseError as exc:
        if not connection.is_usable():
            raise  # the database is gone: retried like a broker error
        log.exception("results of submission %s could not be stored", submission_id)
        message = (
            f"the results could not be stored ({type(exc).__name__}); "
            "the committee can see this; please contact them"
        )
        return _store(submission_id, _failure("result-storage", message))


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
        for row in iter_phase_rows(run):  # one phase's rank objects alive at a time
            PhaseResult.objects.create(submission=submission, **row)
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
    blocking = sum(1 for i in outcome.issues if i.severity == Severity.INVALID)
    transition(
        submission,
        target,
        None,
        f"automatic checks: {blocking} blocking, {len(outcome.issues) - blocking} other issue(s)",
        SYSTEM,
    )
    return str(target)


def queue_validation(*, submission_id: int, **_signal: Any) -> None:
    """Receiver of ``submissions.signals.validation_requested`` (connected in apps.py)."""
    validate_submission.enqueue_after_commit(submission_id)


@shared_task(ignore_result=True)
def requeue_stuck_validations(older_than_s: int = 600) -> int:
    """Queue validation again for stuck submissions, and remove dead sandboxes (beat runs this).

    ``validating`` with the submission's lock free means no live worker is on it (a killed
    worker's lock died with its connection): re-queued at once, without waiting for the
    broker's visibility timeout. ``submitted`` ones are re-queued after ``older_than_s`` (a
    message lost altogether). The task is idempotent, locked per submission and bounded by
    the attempt limit, so a duplicate message or a poison upload costs a bounded amount.
    """
    from datetime import timedelta

    cutoff = timezone.now() - timedelta(seconds=older_than_s)
    submitted = Submission.objects.filter(status=Status.SUBMITTED, updated__lt=cutoff)
    validating = Submission.objects.filter(status=Status.VALIDATING)
    stuck = list(submitted.values_list("pk", flat=True))
    stuck += [pk for pk in validating.values_list("pk", flat=True) if _lock_is_free(pk)]
    for pk in stuck:
        validate_submission.enqueue_after_commit(pk)
    if stuck:
        log.info("re-queued %d stuck submission(s) for validation", len(stuck))
    _remove_dead_sandboxes()
    return len(stuck)


def _lock_is_free(submission_id: int) -> bool:
    if not _try_lock(submission_id):
        return False
    _unlock(submission_id)
    return True


def _remove_dead_sandboxes() -> None:
    """Sandboxes whose submission no live task holds: left by a killed worker."""
    root = Path(settings.IOSCORE_SANDBOX_DIR)
    if not root.is_dir():
        return
    for sandbox in root.iterdir():
        number = sandbox.name[3:].split("-", 1)[0]
        if not (sandbox.name.startswith("sub") and number.isdigit() and len(number) < 18):
            continue
        if _try_lock(int(number)):  # held while deleting: no task starts on it meanwhile
            try:
                shutil.rmtree(sandbox, ignore_errors=True)
            finally:
                _unlock(int(number))
