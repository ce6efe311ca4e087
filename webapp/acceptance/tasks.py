"""Celery tasks of the acceptance app: mailing regression alerts, and the sweep that mails
those a lost message or a dead worker left unmailed."""

from __future__ import annotations

import logging
from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.db import IntegrityError
from django.urls import reverse
from django.utils import timezone

from accounts import mail
from ioscore_site.after_commit import MAIL_TASK

from .models import AlertDelivery, RegressionAlert

log = logging.getLogger(__name__)
# Alerts older than this are not mailed by the sweep: news of a week-old drop is history.
SWEEP_HORIZON = timedelta(days=7)


def queue_alert_mail(alert_id: int) -> None:
    """Mail ``alert_id`` once the current transaction commits (no-op when mail is off)."""
    if settings.IOSCORE_NOTIFICATIONS:
        mail_alert.enqueue_after_commit(alert_id)


def recipients(alert: RegressionAlert) -> list[str]:
    """The site's active members with a verified address (``accounts.mail``), each once."""
    members = alert.run.site.members.filter(is_active=True).exclude(email="")
    return sorted({m.email for m in members if mail.is_verified(m.email)})


def _page(name: str, pk: int) -> str:
    return settings.IOSCORE_SITE_URL.rstrip("/") + reverse(name, args=[pk])


def compose(alert: RegressionAlert) -> tuple[str, str]:
    run = alert.run
    system = run.storage_system.name if run.storage_system else "no storage system named"
    subject = f"[ioscore] {run.site.name}: {alert.test_name} {alert.operation} dropped"
    body = (
        f"Acceptance run {run.pk} of {run.site.name} ({system}"
        f"{', ' + run.label if run.label else ''}) started a drop:\n\n"
        f"  {alert.test_name} · {alert.operation}: {alert.message}.\n\n"
        f"You hear of this drop once; the next alert comes after the results recover and fall "
        f"again.\n\nThe run: {_page('acceptance:run', run.pk)}\n"
        f"The history: {_page('acceptance:site', run.site_id)}\n"
    )
    return subject, body


@shared_task(**MAIL_TASK)
def mail_alert(self: object, alert_id: int) -> int:
    """Mail one alert to the site's members; returns how many were mailed now. An address
    already recorded is skipped, so a retry never mails anybody twice."""
    alert = (
        RegressionAlert.objects.select_related("run__site", "run__storage_system")
        .filter(pk=alert_id)
        .first()
    )
    if alert is None or alert.mailed is not None:  # the run was deleted, or all were mailed
        return 0
    done = set(AlertDelivery.objects.filter(alert=alert).values_list("address", flat=True))
    subject, body = compose(alert)
    sent = 0
    for address in recipients(alert):
        if address in done:
            continue
        if not mail.send(subject, body, address):
            continue
        try:
            AlertDelivery.objects.create(alert=alert, address=address)
        except IntegrityError:  # a concurrent duplicate of this task got there first
            log.info("alert %s to %s already recorded", alert_id, address)
        sent += 1
    RegressionAlert.objects.filter(pk=alert.pk).update(mailed=timezone.now())
    return sent


@shared_task(ignore_result=True)
def mail_unmailed_alerts(older_than_s: int = 300) -> int:
    """Queue again the alerts of the last week still unmailed after ``older_than_s``; beat
    runs this. Returns how many were queued."""
    now = timezone.now()
    waiting = RegressionAlert.objects.filter(
        mailed__isnull=True,
        created__lte=now - timedelta(seconds=older_than_s),
        created__gte=now - SWEEP_HORIZON,
    ).values_list("pk", flat=True)
    ids = sorted(waiting)
    for pk in ids:
        queue_alert_mail(pk)
    if ids:
        log.info("re-queued %d unmailed regression alert(s)", len(ids))
    return len(ids)
