"""Celery tasks of the acceptance app: mailing regression alerts (of acceptance runs and of
uploaded IO500 runs), and the sweep that mails those a lost message or a dead worker left
unmailed."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import IntegrityError, transaction
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
    members = alert.site.members.filter(is_active=True).exclude(email="")
    return sorted({m.email for m in members if mail.is_verified(m.email)})


def _page(name: str, pk: int) -> str:
    return settings.IOSCORE_SITE_URL.rstrip("/") + reverse(name, args=[pk])


def compose(alerts: list[RegressionAlert]) -> tuple[str, str]:
    """One message for the drops one run started (``alerts``: the same run, oldest first)."""
    first = alerts[0]
    site = first.site
    system = first.storage_system.name if first.storage_system else "no storage system named"
    more = f" and {len(alerts) - 1} more" if len(alerts) > 1 else ""
    subject = f"[ioscore] {site.name}: {first.test_name} {first.operation}{more} dropped"
    if first.run is not None:
        run = first.run
        what = f"Acceptance run {run.pk} of {site.name} ({system}"
        what += f", {run.label})" if run.label else ")"
        page = _page("acceptance:run", run.pk)
    else:
        submission = first.submission
        assert submission is not None  # the check constraint: a run or a submission
        what = f"IO500 run {submission.pk} of {site.name} ({system}, {submission.release.acronym})"
        page = _page("submission-page", submission.pk)
    drops = "".join(f"  {a.test_name} · {a.operation}: {a.message}.\n" for a in alerts)
    body = (
        f"{what} started {'a drop' if len(alerts) == 1 else f'{len(alerts)} drops'}:\n\n"
        f"{drops}\n"
        f"You hear of each drop once; the next alert comes after the results recover and fall "
        f"again.\n\nThe run: {page}\n"
        f"The history: {_page('acceptance:site', site.pk)}\n"
    )
    return subject, body


def same_run(alert: RegressionAlert) -> Any:
    """The alerts raised by the run (or uploaded IO500 run) that raised ``alert``."""
    return RegressionAlert.objects.filter(run=alert.run_id, submission=alert.submission_id)


@shared_task(**MAIL_TASK)
def mail_alert(self: object, alert_id: int) -> int:
    """Mail the alert and the others its run raised and nobody mailed yet, in one message,
    to the site's members; returns how many were mailed now. An address already recorded
    for every one of them is skipped, so a retry never mails anybody twice."""
    alert = (
        RegressionAlert.objects.select_related(
            "run__site", "run__storage_system", "submission__site", "submission__release"
        )
        .filter(pk=alert_id)
        .first()
    )
    if alert is None or alert.mailed is not None:  # the run was deleted, or all were mailed
        return 0
    others = same_run(alert).filter(mailed__isnull=True).exclude(pk=alert.pk)
    alerts = sorted([alert, *others], key=lambda a: a.pk)
    done: dict[str, int] = {}
    for address in AlertDelivery.objects.filter(alert__in=alerts).values_list("address", flat=True):
        done[address] = done.get(address, 0) + 1
    subject, body = compose(alerts)
    sent = 0
    for address in recipients(alert):
        if done.get(address) == len(alerts):
            continue
        if not mail.send(subject, body, address):
            continue
        for each in alerts:
            try:
                with transaction.atomic():
                    AlertDelivery.objects.create(alert=each, address=address)
            except IntegrityError:  # a concurrent duplicate of this task got there first
                log.info("alert %s to %s already recorded", each.pk, address)
        sent += 1
    RegressionAlert.objects.filter(pk__in=[a.pk for a in alerts]).update(mailed=timezone.now())
    return sent


@shared_task(ignore_result=True)
def mail_unmailed_alerts(older_than_s: int = 300) -> int:
    """Queue again the alerts of the last week still unmailed after ``older_than_s``, one
    message per run; beat runs this. Returns how many were queued."""
    now = timezone.now()
    waiting = RegressionAlert.objects.filter(
        mailed__isnull=True,
        created__lte=now - timedelta(seconds=older_than_s),
        created__gte=now - SWEEP_HORIZON,
    )
    # one message per run: the first of its alerts stands for the others (mail_alert)
    first: dict[tuple[int | None, int | None], int] = {}
    for pk, run, submission in waiting.order_by("pk").values_list("pk", "run", "submission"):
        first.setdefault((run, submission), pk)
    for pk in first.values():
        queue_alert_mail(pk)
    if first:
        log.info("re-queued the unmailed regression alerts of %d run(s)", len(first))
    return len(first)
