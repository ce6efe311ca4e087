"""Regression alerts for a site's uploaded IO500 runs: a real archive run as the base, later
runs with a 30 % lower ior-easy-read; the run where the drop starts raises one alert, its
members get one mail, and the site's history shows it beside the acceptance series."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from rest_framework.test import APIClient

from acceptance.models import AlertDelivery, AlertRule, RegressionAlert
from acceptance.tasks import mail_alert
from accounts.models import ApiToken
from submissions.models import Status
from submissions.workflow import COMMITTEE, transition

from .io500_series import DROP, PHASE, storage_system, store_series


@pytest.fixture
def queued_mail(monkeypatch: pytest.MonkeyPatch, settings: Any) -> list[int]:
    """The alert ids queued for mail (the worker's queue, as the tests without one see it);
    the test sends them itself with the locmem backend."""
    settings.IOSCORE_NOTIFICATIONS = True
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    queued: list[int] = []
    monkeypatch.setattr(mail_alert, "enqueue_after_commit", queued.append)
    return queued


def _history(user: Any, site_pk: int) -> str:
    client = Client()
    client.force_login(user)
    response = client.get(f"/acceptance/sites/{site_pk}/")
    assert response.status_code == 200
    return response.content.decode()


def _series(page: str) -> list[dict[str, Any]]:
    found = re.search(
        r'<script id="acceptance-series" type="application/json">(.*?)</script>', page, re.S
    )
    assert found is not None
    loaded: list[dict[str, Any]] = json.loads(found.group(1))
    return loaded


@pytest.mark.django_db
def test_a_thirty_percent_drop_of_a_phase_alerts_once_and_mails_once(
    cast: Any, open_release: Any, corpus_dir: Path, queued_mail: list[int]
) -> None:
    system = storage_system(cast.site)
    runs = store_series(corpus_dir, cast, open_release, system, [1.0, 1.0, 1.0, DROP, DROP])
    # another storage system of the site, far slower: never the baseline of this one
    store_series(corpus_dir, cast, open_release, storage_system(cast.site, "home"), [0.1])

    (alert,) = RegressionAlert.objects.all()
    assert (alert.submission_id, alert.run_id) == (runs[3].pk, None)
    assert (alert.test_name, alert.operation, alert.unit) == ("IO500", PHASE, "GiB/s")
    assert alert.below_median and not alert.missed_target
    assert alert.value == pytest.approx(DROP * alert.baseline)
    assert alert.baseline == pytest.approx(36.825198)  # the archive run's ior-easy-read
    assert "30% below the median of the previous runs (36.8 GiB/s)" in alert.message
    # the score fell 1 - 0.7 ** (1/8) = 4.4 %: within the default 20 %, no alert
    assert runs[3].score_total == pytest.approx(runs[0].score_total * DROP ** (1 / 8))

    # raised when the checks passed, detected again at the acceptance: queued, mailed once
    assert set(queued_mail) == {alert.pk}
    for alert_id in queued_mail:
        mail_alert.apply(args=(alert_id,))
    assert [m.to for m in mail.outbox] == [[cast.submitter.email]]
    message = mail.outbox[0]
    assert message.subject == f"[ioscore] {cast.site.name}: IO500 {PHASE} dropped"
    assert f"IO500 run {runs[3].pk} of {cast.site.name} (scratch, TST99) started a drop" in (
        message.body
    )
    assert f"/submissions/{runs[3].pk}/" in message.body
    assert f"/acceptance/sites/{cast.site.pk}/" in message.body
    assert AlertDelivery.objects.filter(alert=alert).count() == 1

    page = _history(cast.submitter, cast.site.pk)
    assert f'data-alert="{alert.pk}"' in page and f"IO500 #{runs[3].pk}" in page
    scoped = Client()
    scoped.force_login(cast.submitter)
    chart = scoped.get(f"/acceptance/sites/{cast.site.pk}/systems/{system.pk}/").content.decode()
    read = next(s for s in _series(chart) if (s["test"], s["operation"]) == ("IO500", PHASE))
    assert [p["run"] for p in read["points"]] == [r.pk for r in runs]
    assert [p["alert"] is not None for p in read["points"]] == [False, False, False, True, False]
    assert read["source"] == "submission"
    score = next(s for s in _series(chart) if s["operation"] == "score")
    assert score["unit"] == "" and all(p["alert"] is None for p in score["points"])
    assert 'data-series="IO500|ior-easy-read"' in chart
    # the API says the same, after the acceptance series (none here)
    _token, raw = ApiToken.issue(cast.submitter, cast.site)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    url = f"/api/v1/acceptance/sites/{cast.site.pk}/history/?storage_system={system.pk}"
    assert api.get(url).json() == _series(chart)


@pytest.mark.django_db
def test_thresholds_for_io500_phases_and_runs_that_do_not_count(
    cast: Any, open_release: Any, corpus_dir: Path, queued_mail: list[int]
) -> None:
    browser = Client()
    browser.force_login(cast.submitter)
    form = {"series": f"IO500|{PHASE}", "percent": "40", "enabled": "on"}
    assert browser.post(f"/acceptance/sites/{cast.site.pk}/alert-rules/", form).status_code == 302
    rule = AlertRule.objects.get(site=cast.site)
    assert (rule.test_name, rule.operation, rule.fraction) == ("IO500", PHASE, 0.4)
    system = storage_system(cast.site)
    store_series(corpus_dir, cast, open_release, system, [1.0, 1.0, 1.0, DROP])
    assert not RegressionAlert.objects.exists()  # 30 % is within this phase's 40 %

    # a run still under review counts once its checks passed (50 % is beyond 40 %); a
    # rejected one stops counting
    low = store_series(corpus_dir, cast, open_release, system, [0.5], False, first_day=4)[0]
    (alert,) = RegressionAlert.objects.all()
    assert alert.submission_id == low.pk and "50% below" in alert.message
    transition(low, Status.REJECTED, cast.reviewer, "not this system", COMMITTEE)
    page = _history(cast.submitter, cast.site.pk)
    read = next(s for s in _series(page) if (s["test"], s["operation"]) == ("IO500", PHASE))
    assert low.pk not in [p["run"] for p in read["points"]]
    # another site's members see none of it
    assert Client().get(f"/acceptance/sites/{cast.site.pk}/").status_code == 404
    other = Client()
    other.force_login(cast.other_submitter)
    assert other.get(f"/acceptance/sites/{cast.site.pk}/").status_code == 404


@pytest.mark.django_db
def test_a_run_that_drops_everywhere_sends_one_message_naming_every_drop(
    cast: Any, open_release: Any, corpus_dir: Path, queued_mail: list[int]
) -> None:
    system = storage_system(cast.site)
    runs = store_series(corpus_dir, cast, open_release, system, [1.0, 1.0, 1.0])
    slow = store_series(
        corpus_dir, cast, open_release, system, [1.0], first_day=3, every_phase=DROP
    )[0]
    alerts = list(RegressionAlert.objects.filter(submission=slow).order_by("pk"))
    # the score and each of the 12 scored phases fell 30 %
    assert len(alerts) == 13 and {a.operation for a in alerts} >= {"score", PHASE}
    assert all("30% below the median" in a.message for a in alerts)
    assert not RegressionAlert.objects.filter(submission__in=runs).exists()
    # one message for the run, queued once at the checks and once at the acceptance
    assert set(queued_mail) == {alerts[0].pk}
    for alert_id in queued_mail:
        mail_alert.apply(args=(alert_id,))
    (message,) = mail.outbox
    assert message.subject.endswith("and 12 more dropped")
    assert f"IO500 run {slow.pk} of {cast.site.name} (scratch, TST99) started 13 drops" in (
        message.body
    )
    assert all(f"  IO500 · {a.operation}: {a.message}." in message.body for a in alerts)
    assert AlertDelivery.objects.filter(alert__in=alerts).count() == 13
    assert not RegressionAlert.objects.filter(mailed__isnull=True).exists()
