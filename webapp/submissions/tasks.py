"""Celery tasks of the submissions app: e-mail notifications (see notifications.py) and the
verification mail of a contact address; every mail goes through ``accounts.mail``."""

from __future__ import annotations

import logging
from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.db import IntegrityError
from django.utils import timezone

from accounts import mail
from ioscore_site.after_commit import MAIL_TASK

from . import contact, notifications
from .models import NotificationDelivery, SubmissionTransition, SystemDescription

log = logging.getLogger(__name__)


def queue_notification(change: SubmissionTransition) -> None:
    """Mail about ``change`` once the current transaction commits (no-op when disabled)."""
    if settings.IOSCORE_NOTIFICATIONS:
        notify_transition.enqueue_after_commit(change.pk)


@shared_task(**MAIL_TASK)
def notify_transition(self: object, transition_id: int) -> int:
    """Mail everybody who should hear of one transition; returns how many were mailed now.

    A recipient already recorded for this transition is skipped, so retries (SMTP down, worker
    killed after some mails) never mail anybody twice.
    """
    change = (
        SubmissionTransition.objects.select_related("submission__site", "submission__release")
        .filter(pk=transition_id)
        .first()
    )
    if change is None:  # the submission was deleted meanwhile
        return 0
    done = set(
        NotificationDelivery.objects.filter(transition=change).values_list("recipient", flat=True)
    )
    sent = 0
    for recipient in notifications.recipients(change):
        if recipient.key in done:
            continue
        subject, body = notifications.compose(change, recipient)
        if not mail.send(subject, body, recipient.address):
            continue
        try:
            NotificationDelivery.objects.create(transition=change, recipient=recipient.key)
        except IntegrityError:  # a concurrent duplicate of this task got there first
            log.info("notification %s/%s already recorded", transition_id, recipient.key)
        sent += 1
    return sent


@shared_task(ignore_result=True)
def resend_missing_notifications(older_than_s: int = 600, window_s: int = 2 * 86400) -> int:
    """Queue the mail of transitions that someone should have heard of and has not (beat runs
    this): the message may have been dropped while the broker was down, or its worker killed.
    Transitions older than ``window_s`` are left alone, so a recipient that can never be
    mailed stops being tried; returns how many transitions were queued."""
    if not settings.IOSCORE_NOTIFICATIONS:
        return 0
    now = timezone.now()
    changes = (
        SubmissionTransition.objects.filter(
            created__lte=now - timedelta(seconds=older_than_s),
            created__gte=now - timedelta(seconds=window_s),
        )
        .select_related("submission__site", "submission__release")
        .prefetch_related("deliveries")
        .order_by("pk")
    )
    queued = 0
    for change in changes:
        done = {delivery.recipient for delivery in change.deliveries.all()}
        if any(r.key not in done for r in notifications.recipients(change)):
            notify_transition.enqueue_after_commit(change.pk)
            queued += 1
    return queued


@shared_task(**MAIL_TASK)
def send_contact_verification(self: object, submission_id: int) -> bool:
    """Send the submission's contact address its verification link (the only mail it gets
    until confirmed); the address is read here, so the broker carries only the id."""
    system = SystemDescription.objects.filter(submission_id=submission_id).first()
    token = system.submitter_email_encrypted if system is not None else ""
    try:
        address = contact.decrypt(token)
    except contact.ContactDecryptError:
        return False
    if not address or mail.is_verified(address):
        return False
    mail.send_verification(address, f"a benchmark submission to {settings.IOSCORE_SITE_URL}")
    return True
