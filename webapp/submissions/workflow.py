"""The submission state machine (LEADERBOARD-RULES §7): allowed transitions, who may make them, the
log.

Every change of ``Submission.status`` goes through ``transition()`` so that it is checked and
logged (who, when, from, to, comment) in the same database transaction, and mailed to those
concerned once that transaction commits (tasks.queue_notification). Entering or leaving
``accepted`` also asks for the ranked lists to be updated (signals.lists_changed); entering
``under_review`` or ``accepted`` says the run's numbers stand (signals.run_measured).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from . import public_version
from .models import Status, Submission, SubmissionTransition
from .signals import announce_list_change, run_measured
from .tasks import queue_notification

OWNER = "owner"
COMMITTEE = "committee"
SYSTEM = "system"  # the validation task

# (from, to) -> who may do it
ALLOWED: dict[tuple[str, str], str] = {
    (Status.DRAFT, Status.SUBMITTED): OWNER,
    (Status.SUBMITTED, Status.VALIDATING): SYSTEM,
    (Status.VALIDATING, Status.VALIDATION_FAILED): SYSTEM,
    (Status.VALIDATING, Status.UNDER_REVIEW): SYSTEM,
    (Status.VALIDATION_FAILED, Status.DRAFT): OWNER,
    (Status.UNDER_REVIEW, Status.CHANGES_REQUESTED): COMMITTEE,
    (Status.UNDER_REVIEW, Status.ACCEPTED): COMMITTEE,
    (Status.UNDER_REVIEW, Status.REJECTED): COMMITTEE,
    (Status.CHANGES_REQUESTED, Status.SUBMITTED): OWNER,
    (Status.CHANGES_REQUESTED, Status.DRAFT): OWNER,
    (Status.DRAFT, Status.WITHDRAWN): OWNER,
    (Status.SUBMITTED, Status.WITHDRAWN): OWNER,
    (Status.UNDER_REVIEW, Status.WITHDRAWN): OWNER,
}
# Entering these states means the run's numbers passed the checks (and the committee's look).
MEASURED = {Status.UNDER_REVIEW, Status.ACCEPTED}
OWNER_EDITABLE = {Status.DRAFT, Status.VALIDATION_FAILED, Status.CHANGES_REQUESTED}


class TransitionError(Exception):
    """The requested state change is not allowed; the message says why."""


def allowed_targets(submission: Submission, role: str) -> list[str]:
    return [to for (frm, to), who in ALLOWED.items() if frm == submission.status and who == role]


@transaction.atomic
def transition(
    submission: Submission, to: str, actor: Any, comment: str = "", role: str = OWNER
) -> SubmissionTransition:
    """Move ``submission`` to ``to`` after checking the table; logs the change.

    The row is re-read under a lock, so two concurrent actions cannot both succeed from
    the same state.
    """
    locked = Submission.objects.select_for_update().get(pk=submission.pk)
    frm = locked.status
    who = ALLOWED.get((frm, to))
    if who is None:
        raise TransitionError(f"cannot go from {frm} to {to}")
    if who != role:
        raise TransitionError(f"{frm} -> {to} is a {who} action, not a {role} action")
    if role == COMMITTEE and not comment.strip():
        raise TransitionError("committee decisions need a comment")
    locked.status = to
    fields = ["status", "updated"]
    if to == Status.SUBMITTED:
        locked.submitted_at = timezone.now()
        fields.append("submitted_at")
    locked.save(update_fields=fields)
    submission.status = to
    submission.submitted_at = locked.submitted_at
    change = SubmissionTransition.objects.create(
        submission=locked,
        actor=actor if getattr(actor, "is_authenticated", False) else None,
        from_status=frm,
        to_status=to,
        comment=comment,
    )
    queue_notification(change)
    if Status.ACCEPTED in (frm, to):  # on the lists now, or no longer
        public_version.bump()  # in this transaction: no cache serves the old state after it
        announce_list_change(locked.pk)
    if to in MEASURED:
        run_measured.send(sender=None, submission_id=locked.pk)
    return change
