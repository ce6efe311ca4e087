"""Who may see which field of a run, in one place: the pages, the API, the exports and the
e-mails ask here and decide nothing of their own.

Which runs a user sees at all is ``access``/``visibility``'s; this module is about the fields
of a run they do see:

* the submitter's name: the committee, the owner, and anyone once the submitter chose to be
  shown (``Submission.show_submitter``);
* who took a step (user names of reviewers, of the owner): the committee only; everyone else
  reads what role took it ("the submitter", "the committee", "automatic");
* the comments of steps (review decisions, level changes): the committee and the owner;
* answers offered as a note to the committee (the questionnaire's free feedback): the
  committee and the owner.

Exports and the lists carry none of these fields; a new one that is not public goes here.
"""

from __future__ import annotations

from typing import Any

from accounts import roles

from .models import Submission

# Questionnaire answers written to the committee, not to the public.
COMMITTEE_ANSWERS = frozenset({"feedback"})

SUBMITTER = "the submitter"
COMMITTEE = "the committee"
AUTOMATIC = "automatic"


def _committee(user: Any) -> bool:
    return roles.is_reviewer(user)


def _owner(user: Any, submission: Submission) -> bool:
    return bool(getattr(user, "is_authenticated", False) and submission.owner_id == user.pk)


def sees_private_notes(user: Any, submission: Submission) -> bool:
    """Comments of steps and answers meant for the committee."""
    return _owner(user, submission) or _committee(user)


def sees_submitter(user: Any, submission: Submission) -> bool:
    return submission.show_submitter or sees_private_notes(user, submission)


def submitter_name(user: Any, submission: Submission, system: Any) -> str:
    return getattr(system, "submitter_name", "") if sees_submitter(user, submission) else ""


def actor_name(user: Any, submission: Submission, actor: Any) -> str:
    """Who took a step, as ``user`` may read it."""
    if actor is None:
        return AUTOMATIC
    if _committee(user):
        return str(actor.get_username())
    return SUBMITTER if actor.pk == submission.owner_id else COMMITTEE


def comment(user: Any, submission: Submission, text: str) -> str:
    return text if sees_private_notes(user, submission) else ""


def answers(user: Any, submission: Submission, given: dict[str, Any]) -> dict[str, Any]:
    """The questionnaire answers ``user`` may read."""
    if sees_private_notes(user, submission):
        return dict(given)
    return {k: v for k, v in given.items() if k not in COMMITTEE_ANSWERS}


def committee_reader(key: str) -> bool:
    """Whether a notification recipient (``notifications.Recipient.key``) is the committee."""
    return key.startswith("committee:")
