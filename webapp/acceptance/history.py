"""A site's acceptance history as plain data: one series per (test, operation) across runs,
and the pass/fail of every target per run. Used by the history page (plotted in the browser)
and by the read API, so both show the same numbers."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import QuerySet

from submissions.models import StorageSystem

from .models import AcceptanceOperation, AcceptanceRun, AcceptanceTarget, RegressionAlert


def of_system(runs: QuerySet[AcceptanceRun], system: StorageSystem) -> QuerySet[AcceptanceRun]:
    """The runs of a storage system, including those recorded against systems the committee
    later merged into it (a merge moves submissions, and leaves the merged row pointing at
    its survivor)."""
    ids, frontier = {system.pk}, [system.pk]
    while frontier:
        frontier = list(
            StorageSystem.objects.filter(merged_into__in=frontier)
            .exclude(pk__in=ids)
            .values_list("pk", flat=True)
        )
        ids.update(frontier)
    return runs.filter(storage_system__in=ids)


def systems_with_runs(runs: QuerySet[AcceptanceRun]) -> list[StorageSystem]:
    """The (surviving) storage systems the runs were recorded against."""
    recorded = StorageSystem.objects.filter(pk__in=runs.values("storage_system"))
    found = {system.canonical() for system in recorded}
    return sorted(found, key=lambda system: (system.name, system.pk))


def _when(run: AcceptanceRun) -> str:
    moment = run.started or run.uploaded
    return moment.isoformat().replace("+00:00", "Z")


def series(runs: QuerySet[AcceptanceRun]) -> list[dict[str, Any]]:
    """Per test and operation, the mean/stddev/min/max of each run in time order, with the
    plan's target for that operation in each run (targets may change between plans) and the
    regression alert the run raised there, if any."""
    chosen = list(runs.order_by("started", "uploaded", "id"))
    order = {run.pk: index for index, run in enumerate(chosen)}
    operations = (
        AcceptanceOperation.objects.filter(test__run__in=chosen)
        .select_related("test")
        .order_by("test__name", "order", "operation")
    )
    targets: dict[tuple[int, str, str], AcceptanceTarget] = {
        (t.run_id, t.test_name, t.operation): t
        for t in AcceptanceTarget.objects.filter(run__in=chosen)
    }
    alerts = {
        (a.run_id, a.test_name, a.operation): a.message
        for a in RegressionAlert.objects.filter(run__in=chosen)
    }
    by_key: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for op in operations:
        run = chosen[order[op.test.run_id]]
        target = targets.get((run.pk, op.test.name, op.operation))
        if target is not None and target.unit != op.unit:
            target = None  # e.g. an IOPS target on a bandwidth series: not on this chart
        by_key.setdefault((op.test.name, op.operation, op.unit), []).append(
            {
                "run": run.pk,
                "when": _when(run),
                "label": run.label,
                "mean": op.mean,
                "stddev": op.stddev,
                "min": op.minimum,
                "max": op.maximum,
                "iterations": op.iterations,
                "target": target.threshold if target is not None else None,
                "target_at_least": target.at_least if target is not None else None,
                "passed": target.passed if target is not None else None,
                "alert": alerts.get((run.pk, op.test.name, op.operation)),
            }
        )
    out = []
    for (test, operation, unit), points in by_key.items():
        points.sort(key=lambda p: order[p["run"]])
        out.append({"test": test, "operation": operation, "unit": unit, "points": points})
    return out


def target_table(runs: Iterable[AcceptanceRun]) -> dict[str, Any]:
    """Rows = (test, operation, target text), columns = runs (oldest first), cells =
    {passed, measured} or None where that run's plan did not have the target."""
    chosen = sorted(runs, key=lambda r: (r.started or r.uploaded, r.pk))
    cells: dict[tuple[str, str, str, str], dict[int, dict[str, Any]]] = {}
    for target in AcceptanceTarget.objects.filter(run__in=chosen).order_by("order", "id"):
        key = (target.test_name, target.operation, target.text, target.unit)
        cells.setdefault(key, {})[target.run_id] = {
            "passed": target.passed,
            "measured": target.measured,
            "detail": target.detail,
        }
    rows = [
        {
            "test": test,
            "operation": operation,
            "target": text,
            "unit": unit,
            "cells": [per_run.get(run.pk) for run in chosen],
        }
        for (test, operation, text, unit), per_run in cells.items()
    ]
    return {"runs": chosen, "rows": rows}


CSV_FIELDS = [
    "run",
    "when",
    "label",
    "test",
    "operation",
    "unit",
    "iterations",
    "mean",
    "stddev",
    "min",
    "max",
    "target",
    "passed",
]


def csv_rows(runs: QuerySet[AcceptanceRun]) -> list[dict[str, Any]]:
    """``series`` flattened: one row per run, test and operation (for spreadsheets)."""
    rows = []
    for line in series(runs):
        for point in line["points"]:
            rows.append(
                {
                    **{key: point[key] for key in CSV_FIELDS if key in point},
                    "test": line["test"],
                    "operation": line["operation"],
                    "unit": line["unit"],
                }
            )
    rows.sort(key=lambda row: (row["when"], row["run"], row["test"]))
    return rows
