"""Regression alerts on a site's acceptance history: real `ioscore-suite ior|mdtest` results
uploaded run after run; a 30 % drop raises one alert and one e-mail per member (sent by a real
Celery worker), the history page, chart data and API show it, thresholds are per test, and a
lost mail message is found by the sweep."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from acceptance.models import AcceptanceRun, AlertDelivery, AlertRule, RegressionAlert
from acceptance.tasks import mail_unmailed_alerts
from accounts.models import ApiToken

from .acceptance_helpers import acceptance_results, pack, result_files
from .test_acceptance_intake import upload
from .test_notifications import _mails

pytestmark = [pytest.mark.mpi]
DROP = 0.7  # the fourth run writes at 70 % of what the first three wrote


@pytest.fixture(scope="module")
def results() -> Iterator[Path]:
    with acceptance_results("ioscore-webapp-alerts-") as path:
        yield path


def scaled_write(results: Path, factor: float) -> dict[str, bytes]:
    """ior-fpp's result.json with every write iteration and the write summary scaled by
    ``factor``: the same run on a slower storage system, as the service sees it."""
    path = result_files(results)["ior-fpp"]
    document = json.loads(path.read_text())
    for phase in document["phases"]:
        if phase["name"].startswith("ior-write-"):
            phase["score"] *= factor
    (write,) = [e for e in document["summary"] if e["operation"].lower() == "write"]
    write["values"] = [v * factor for v in write["values"]]
    for key in ("max", "min", "mean", "stddev"):
        if write.get(key) is not None:
            write[key] *= factor
    return {str(path.relative_to(results)): json.dumps(document).encode()}


def upload_series(client: APIClient, results: Path, factors: list[float]) -> list[int]:
    """One upload per factor, in time order (distinct bytes, so none is a duplicate)."""
    ids = []
    for index, factor in enumerate(factors):
        archive = pack(
            results,
            {**scaled_write(results, factor), "n.txt": str(index).encode()},
        )
        response = upload(client, archive)
        assert response.status_code == 201, response.content
        ids.append(response.json()["id"])
    return ids


def api_client(cast: Any) -> APIClient:
    _token, raw = ApiToken.issue(cast.submitter, cast.site)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    return api


def write_alerts() -> list[RegressionAlert]:
    return list(RegressionAlert.objects.filter(test_name="ior-fpp", operation="write"))


@pytest.mark.celery
@pytest.mark.django_db(transaction=True)
def test_a_thirty_percent_drop_alerts_once_and_mails_each_member(
    cast: Any, media_root: Path, results: Path, validation_queue: Any
) -> None:
    cast.site.members.add(cast.reviewer)  # two members with addresses
    client = api_client(cast)
    ids = upload_series(client, results, [1.0, 1.0, 1.0, DROP, DROP])
    alerts = write_alerts()
    assert [a.run_id for a in alerts] == [ids[3]]  # the drop starts there; run 5 stays low
    alert = alerts[0]
    assert alert.below_median and not alert.missed_target
    assert alert.value == pytest.approx(DROP * alert.baseline)
    assert "30% below the median of the previous runs" in alert.message

    validation_queue.wait_idle()
    mails = _mails(
        validation_queue.mail_dir,
        "ior-fpp write dropped",
        expected=2,
        body=f"Acceptance run {ids[3]} ",
    )
    assert sorted(m["To"] for m in mails) == ["reviewer@example.org", "submitter@example.org"]
    body = mails[0].get_payload()
    assert f"Acceptance run {ids[3]} of Test University" in body
    assert f"/acceptance/runs/{ids[3]}/" in body
    alert.refresh_from_db()
    assert alert.mailed is not None and AlertDelivery.objects.filter(alert=alert).count() == 2

    # The plan's read target of 1,000 TB/s is missed from the first run on: one alert, there.
    read = RegressionAlert.objects.get(test_name="ior-fpp", operation="read")
    assert read.run_id == ids[0] and read.missed_target and read.baseline is None

    history = client.get(f"/api/v1/acceptance/sites/{cast.site.pk}/history/").json()
    write = next(s for s in history if (s["test"], s["operation"]) == ("ior-fpp", "write"))
    assert [p["alert"] is not None for p in write["points"]] == [False, False, False, True, False]
    browser = Client()
    browser.force_login(cast.submitter)
    page = browser.get(f"/acceptance/sites/{cast.site.pk}/").content.decode()
    assert f'data-alert="{alert.pk}"' in page and "30% below the median" in page


@pytest.mark.django_db
def test_thresholds_are_per_test_and_set_by_the_sites_submitters(
    cast: Any, media_root: Path, results: Path
) -> None:
    browser = Client()
    browser.force_login(cast.submitter)
    url = f"/acceptance/sites/{cast.site.pk}/alert-rules/"
    form = {"series": "ior-fpp|write", "percent": "40", "enabled": "on"}
    response = browser.post(url, form)
    assert response.status_code == 302 and response["Location"].endswith("#h-alerts")
    rule = AlertRule.objects.get(site=cast.site)
    assert (rule.test_name, rule.operation, rule.fraction, rule.enabled) == (
        "ior-fpp",
        "write",
        0.4,
        True,
    )
    upload_series(api_client(cast), results, [1.0, 1.0, 1.0, DROP])
    assert write_alerts() == []  # a 30 % fall is within this test's 40 %

    assert browser.post(url, {**form, "percent": "0"}).status_code == 400
    assert browser.post(url, {**form, "series": "no-operation"}).status_code == 400
    other = Client()
    other.force_login(cast.other_submitter)
    assert other.post(url, form).status_code == 404  # another site's: not even its existence
    reviewer = Client()
    reviewer.force_login(cast.reviewer)
    assert reviewer.post(url, form).status_code == 404
    assert AlertRule.objects.count() == 1


@pytest.mark.django_db
def test_the_pages_write_the_drop_as_the_alert_does(
    cast: Any, media_root: Path, results: Path
) -> None:
    """The alert, the targets table and the run page print a value alike: three significant
    digits, as the rest of the site (1.70 GiB/s, not 1.695 beside 1.70)."""
    ids = upload_series(api_client(cast), results, [1.0, 1.0, 1.0, DROP])
    (alert,) = write_alerts()
    value = re.match(r"([\d.,]+) GiB/s is 30% below", alert.message)
    assert value is not None, alert.message
    browser = Client()
    browser.force_login(cast.submitter)
    history = browser.get(f"/acceptance/sites/{cast.site.pk}/").content.decode()
    assert f"<small>{value.group(1)} GiB/s</small>" in history
    cells = [c for c in re.findall(r"<small>([^<]*)</small>", history) if c.endswith("/s")]
    assert cells and all(re.fullmatch(r"[\d,]+(\.\d+)? (GiB/s|ops/s)", c) for c in cells), cells
    # a number with decimals has three significant digits (an integer keeps all of its own)
    decimals = [c.split()[0] for c in cells if "." in c]
    assert all(len(re.sub(r"\D", "", n).lstrip("0")) == 3 for n in decimals), cells
    page = browser.get(f"/acceptance/runs/{ids[3]}/").content.decode()
    assert f'<td class="num">{value.group(1)} GiB/s</td>' in page


@pytest.mark.django_db
def test_a_disabled_rule_raises_nothing_and_detecting_twice_stores_once(
    cast: Any, media_root: Path, results: Path
) -> None:
    from acceptance import alerts

    AlertRule.objects.create(
        site=cast.site, test_name="ior-fpp", operation="write", fraction=0.2, enabled=False
    )
    ids = upload_series(api_client(cast), results, [1.0, 1.0, 1.0, DROP])
    assert write_alerts() == []
    AlertRule.objects.filter(site=cast.site).update(enabled=True)
    latest = AcceptanceRun.objects.get(pk=ids[-1])
    first = [a.pk for a in alerts.detect(latest) if a.operation == "write"]
    again = [a.pk for a in alerts.detect(latest) if a.operation == "write"]
    assert len(first) == 1 and first == again
    assert [a.pk for a in write_alerts()] == first


@pytest.mark.celery
@pytest.mark.django_db(transaction=True)
def test_the_sweep_mails_an_alert_whose_message_was_lost(
    cast: Any, media_root: Path, results: Path, validation_queue: Any, settings: Any
) -> None:
    settings.IOSCORE_NOTIFICATIONS = False  # the broker "loses" the mail of the upload
    upload_series(api_client(cast), results, [1.0, 1.0, 1.0, DROP])
    (alert,) = write_alerts()
    assert alert.mailed is None
    assert mail_unmailed_alerts(older_than_s=300) == 0  # too young to be called lost
    RegressionAlert.objects.update(created=timezone.now() - timedelta(minutes=10))
    settings.IOSCORE_NOTIFICATIONS = True
    assert mail_unmailed_alerts(older_than_s=300) == 2  # the write drop and the read target
    validation_queue.wait_idle()
    mails = _mails(
        validation_queue.mail_dir,
        "ior-fpp write dropped",
        expected=1,
        body=f"Acceptance run {alert.run_id} ",
    )
    assert [m["To"] for m in mails] == ["submitter@example.org"]
    validation_queue.wait_idle()
    alert.refresh_from_db()
    assert alert.mailed is not None
    assert mail_unmailed_alerts(older_than_s=300) == 0  # mailed: never again
