"""Regression alerts on a site's acceptance history: when a stored run starts a drop in one of
its tests' operations (well below the recent median of the same storage system, or missing its
target), the run raises one alert and the site's members get one e-mail.

The series are the history page's own (``history.series``), so an alert, the chart and the CSV
always speak of the same numbers; the rule is ``ioscore.results.regressions``.
"""

from __future__ import annotations

from typing import Any

from ioscore.results import DEFAULT_FRACTION, Point, drops

from . import history
from .models import AcceptanceRun, AlertRule, RegressionAlert


def comparable_runs(run: AcceptanceRun) -> Any:
    """The runs a run is compared with: its site's, on the same storage system (merged systems
    included), or the site's runs without a system when it has none."""
    runs = AcceptanceRun.objects.filter(site=run.site)
    if run.storage_system is None:
        return runs.filter(storage_system__isnull=True)
    return history.of_system(runs, run.storage_system.canonical())


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


def detect(run: AcceptanceRun) -> list[RegressionAlert]:
    """The alerts ``run`` raises (stored once: detecting again returns the same rows).

    Whether a point starts a drop depends only on the points before it, so the whole series
    can be read even when runs were uploaded after ``run``.
    """
    rules = rules_of(run.site_id)
    raised = []
    for series in history.series(comparable_runs(run)):
        found = series_alerts(series, rules.get((series["test"], series["operation"])))
        if run.pk not in found:
            continue
        fraction, drop = found[run.pk]
        alert, _ = RegressionAlert.objects.get_or_create(
            run=run,
            test_name=series["test"],
            operation=series["operation"],
            defaults={
                "unit": series["unit"],
                "value": drop.value,
                "baseline": drop.baseline,
                "fraction": fraction,
                "below_median": drop.below_median,
                "missed_target": drop.missed_target,
                "message": drop.explain(series["unit"]),
            },
        )
        raised.append(alert)
    return raised
