"""Committee actions on a submission under review (LEADERBOARD-RULES §5.2, §5.3, §7)."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from .models import LevelChange, Questionnaire, ReproducibilityLevel, Status, Submission
from .workflow import COMMITTEE, TransitionError, transition

ACTIONS = {
    "accept": Status.ACCEPTED,
    "reject": Status.REJECTED,
    "request_changes": Status.CHANGES_REQUESTED,
}


class OwnSubmissionError(TransitionError):
    """The reviewer owns the submission (403, not a state conflict)."""


@transaction.atomic
def decide(
    submission: Submission,
    reviewer: Any,
    action: str,
    comment: str,
    assigned_level: str | None = None,
    production_eligible: bool | None = None,
    ten_node_eligible: bool | None = None,
) -> Submission:
    """Apply a committee decision; the level change and the transition are both logged."""
    if action not in ACTIONS:
        raise TransitionError(f"action must be one of {', '.join(ACTIONS)}, got {action!r}")
    if submission.owner_id is not None and submission.owner_id == getattr(reviewer, "pk", None):
        # Conflict of interest: another committee member decides on a reviewer's own run.
        raise OwnSubmissionError("a reviewer may not decide on their own submission")
    if assigned_level and assigned_level not in ReproducibilityLevel.values:
        raise TransitionError(
            f"assigned_level must be one of {', '.join(ReproducibilityLevel.values)}"
        )
    transition(submission, ACTIONS[action], reviewer, comment, role=COMMITTEE)
    if assigned_level:
        record, _ = Questionnaire.objects.get_or_create(submission=submission)
        if record.assigned_level != assigned_level:
            LevelChange.objects.create(
                questionnaire=record,
                kind=LevelChange.ASSIGNED,
                old_level=record.assigned_level,
                new_level=assigned_level,
                actor=reviewer,
                comment=comment,
            )
            record.assigned_level = assigned_level
            record.save(update_fields=["assigned_level", "updated"])
    fields = []
    if production_eligible is not None:
        submission.production_eligible = production_eligible
        fields.append("production_eligible")
    if ten_node_eligible is not None:
        submission.ten_node_eligible = ten_node_eligible
        fields.append("ten_node_eligible")
    if fields:
        submission.save(update_fields=[*fields, "updated"])
    return submission
