"""Regression alerts on a site's history: when a stored run starts a drop in one of its series
(well below the recent median of the same storage system, or missing its target), the run
raises one alert and the site's members get one e-mail.

Two kinds of run feed the history: acceptance runs (a series per test and operation) and the
site's uploaded IO500 runs (a series for the score and each scored phase, announced by
``submissions.signals.run_measured`` once their numbers pass the checks or are accepted).
The series are the history page's own (``history.series``, ``history.io500_series``), so an
alert, the chart and the CSV always speak of the same numbers; the rule is
``ioscore.results.regressions``, with the site's thresholds (``AlertRule``) for both kinds.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ioscore.results import DEFAULT_FRACTION, Drop, Point, drops
from submissions.models import Submission

from . import history
from .models import AcceptanceRun, AlertRule, RegressionAlert
from .tasks import queue_alert_mail


def comparable_runs(run: AcceptanceRun) -> Any:
    """The runs a run is compared with: its site's, on the same storage system (merged systems
    included), or the site's runs without a system when it has none."""
    runs = AcceptanceRun.objects.filter(site=run.site)
    if run.storage_system is None:
        return runs.filter(storage_system__isnull=True)
    return history.of_system(runs, run.storage_system.canonical())


def comparable_submissions(submission: Submission) -> Any:
    """As ``comparable_runs``, for an uploaded IO500 run among its site's submissions."""
    runs = Submission.objects.filter(site=submission.site_id)
    if submission.storage_system is None:
        return runs.filter(storage_system__isnull=True)
    return history.of_system(runs, submission.storage_system.canonical())


def rules_of(site_id: int) -> dict[tuple[str, str], AlertRule]:
    return {(r.test_name, r.operation): r for r in AlertRule.objects.filter(site_id=site_id)}


def series_alerts(series: dict[str, Any], rule: AlertRule | None) -> dict[int, tuple[float, Any]]:
    """run id -> (fraction, drop) for every drop the series shows under its rule."""
    if rule is not None and not rule.enabled:
        return {}
    fraction = rule.fraction if rule is not None else DEFAULT_FRACTION
    points = series["points"]
    found = drops(
        [Point(p["mean"], p["target"], p["target_at_least"] is not False) for p in points],
        fraction=fraction,
    )
    return {points[d.index]["run"]: (fraction, d) for d in found}


def _raised(
    source: dict[str, Any], all_series: Iterable[dict[str, Any]], site_id: int, pk: int
) -> list[RegressionAlert]:
    """The alerts of the run ``pk`` (``source``: the alert's field naming it) in the series,
    each stored once: detecting again returns the same rows.

    Whether a point starts a drop depends only on the points before it, so the whole series
    can be read even when runs were uploaded after this one."""
    rules = rules_of(site_id)
    raised = []
    for series in all_series:
        found = series_alerts(series, rules.get((series["test"], series["operation"])))
        if pk not in found:
            continue
        fraction, drop = found[pk]
        alert, _ = RegressionAlert.objects.get_or_create(
            **source,
            test_name=series["test"],
            operation=series["operation"],
            defaults=_fields(series, fraction, drop),
        )
        raised.append(alert)
    return raised


def _fields(series: dict[str, Any], fraction: float, drop: Drop) -> dict[str, Any]:
    return {
        "unit": series["unit"],
        "value": drop.value,
        "baseline": drop.baseline,
        "fraction": fraction,
        "below_median": drop.below_median,
        "missed_target": drop.missed_target,
        "message": drop.explain(series["unit"]),
    }


def detect(run: AcceptanceRun) -> list[RegressionAlert]:
    """The alerts an acceptance run raises."""
    return _raised({"run": run}, history.series(comparable_runs(run)), run.site_id, run.pk)


def detect_submission(submission: Submission) -> list[RegressionAlert]:
    """The alerts an uploaded IO500 run raises (none before its numbers stand)."""
    if submission.status not in history.STANDING:
        return []
    series = history.io500_series(comparable_submissions(submission))
    return _raised({"submission": submission}, series, submission.site_id, submission.pk)


def mail(alerts: Iterable[RegressionAlert]) -> None:
    """Mail the alerts of one run not mailed yet, in one message, once the transaction
    commits (the first stands for the others: ``tasks.mail_alert``)."""
    waiting = sorted(alert.pk for alert in alerts if alert.mailed is None)
    if waiting:
        queue_alert_mail(waiting[0])


def on_run_measured(*, submission_id: int, **_signal: Any) -> None:
    """Receiver of ``submissions.signals.run_measured`` (connected in apps.py)."""
    submission = (
        Submission.objects.select_related("site", "storage_system").filter(pk=submission_id).first()
    )
    if submission is not None:
        mail(detect_submission(submission))
