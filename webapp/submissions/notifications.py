"""E-mail on every submission transition (LEADERBOARD-RULES §7: "notifications on every transition
and comment", a comment always travels with a transition here).

Who hears of what:
* the owner (their account e-mail) and the submitter contact from the system description
  (decrypted only to send, and only once the address is verified: ``accounts.mail``) hear of
  every transition of their submission;
* the committee (reviewers and admins with an e-mail) hears when a submission needs it:
  it reached review, or one under review was withdrawn.

Sending happens in a Celery task (``tasks.notify_transition``, an ``AfterCommitTask``) queued
after the transition's database transaction commits, so a rolled-back transition never mails
anybody. The task records each delivery
(``NotificationDelivery``: transition x recipient key, never the address itself), so a retry
after a half-failed run mails only those not reached yet.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Q
from django.urls import reverse

from accounts import mail, roles

from . import contact, fields
from .models import Status, SubmissionTransition

COMMITTEE_STATES = {Status.UNDER_REVIEW}


@dataclass(frozen=True)
class Recipient:
    key: str  # stable per person: "owner", "contact", "committee:<user id>"
    address: str


def _committee_needs_to_know(change: SubmissionTransition) -> bool:
    return change.to_status in COMMITTEE_STATES or (
        change.to_status == Status.WITHDRAWN and change.from_status == Status.UNDER_REVIEW
    )


def recipients(change: SubmissionTransition) -> list[Recipient]:
    submission = change.submission
    found: list[Recipient] = []
    owner = submission.owner
    if owner is not None and owner.email:
        found.append(Recipient("owner", owner.email))
    system = getattr(submission, "system_description", None)
    token = getattr(system, "submitter_email_encrypted", "") if system is not None else ""
    if token:
        try:
            address = contact.decrypt(token)
        except contact.ContactDecryptError:
            address = ""  # another key: nobody to write to, and nothing to leak
        if address:
            found.append(Recipient("contact", address))
    if _committee_needs_to_know(change):
        committee = (
            get_user_model()
            .objects.filter(is_active=True)
            .filter(Q(is_superuser=True) | Q(groups__name__in=[roles.REVIEWER, roles.ADMIN]))
            .exclude(email="")
            .distinct()
            .order_by("pk")
        )
        found += [Recipient(f"committee:{user.pk}", user.email) for user in committee]
    unique: dict[str, Recipient] = {}
    for recipient in found:  # one mail per address, the first key wins
        unique.setdefault(recipient.address.lower(), recipient)
    return [r for r in unique.values() if mail.is_verified(r.address)]


def compose(change: SubmissionTransition, recipient: Recipient) -> tuple[str, str]:
    """The mail for one recipient: the committee reads who took the step, the submitter the
    role (``fields.actor_name``)."""
    submission = change.submission
    page = settings.IOSCORE_SITE_URL.rstrip("/") + reverse("submission-page", args=[submission.pk])
    frm = Status(change.from_status).label if change.from_status else "new"
    to = Status(change.to_status).label
    subject = f"[ioscore] submission #{submission.pk} ({submission.site}): {frm} -> {to}"
    if change.actor is None:
        who = "the automatic checks"
    elif fields.committee_reader(recipient.key):
        who = change.actor.get_username()
    else:
        who = fields.actor_name(None, submission, change.actor)
    lines = [
        f"Submission #{submission.pk} of {submission.site} for {submission.release}",
        f"moved from {frm} to {to} ({who}, {change.created:%Y-%m-%d %H:%M} UTC).",
        "",
    ]
    if change.comment:
        lines += ["Comment:", *("  " + line for line in change.comment.splitlines()), ""]
    lines += [f"Details: {page}", "", "You get this because you submitted or review it."]
    return subject, "\n".join(lines) + "\n"
