"""A site's acceptance history as plain data: one series per (test, operation) across runs,
and the pass/fail of every target per run. Used by the history page (plotted in the browser)
and by the read API, so both show the same numbers."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import QuerySet
from django.db.models.functions import Coalesce

from ioscore.results import SCORED_PHASES
from submissions.models import PhaseResult, Status, StorageSystem, Submission

from .models import AcceptanceOperation, AcceptanceRun, AcceptanceTarget, RegressionAlert

# The series of a site's uploaded IO500 runs are named as one test of the history, whose
# operations are the score and the scored phases.
IO500_TEST = "IO500"
SCORE = "score"
# An uploaded run counts once its numbers passed the automatic checks, until it is rejected or
# withdrawn.
STANDING = (Status.UNDER_REVIEW, Status.CHANGES_REQUESTED, Status.ACCEPTED)


def of_system(runs: QuerySet[Any], system: StorageSystem) -> QuerySet[Any]:
    """The runs (acceptance runs or submissions) of a storage system, including those recorded
    against systems the committee later merged into it (a merge moves submissions, and leaves
    the merged row pointing at its survivor)."""
    ids, frontier = {system.pk}, [system.pk]
    while frontier:
        frontier = list(
            StorageSystem.objects.filter(merged_into__in=frontier)
            .exclude(pk__in=ids)
            .values_list("pk", flat=True)
        )
        ids.update(frontier)
    return runs.filter(storage_system__in=ids)


def systems_with_runs(runs: QuerySet[Any]) -> list[StorageSystem]:
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
        out.append(
            {
                "test": test,
                "operation": operation,
                "unit": unit,
                "source": "acceptance",
                "points": points,
            }
        )
    return out


def uploaded_runs(site: Any, system: StorageSystem | None = None) -> QuerySet[Submission]:
    """The site's uploaded IO500 runs (of ``system`` and the systems merged into it)."""
    runs = Submission.objects.filter(site=site)
    return runs if system is None else of_system(runs, system)


def _submitted_when(submission: Submission) -> str:
    moment = submission.run_start or submission.created
    return moment.isoformat().replace("+00:00", "Z")


def io500_series(submissions: QuerySet[Submission]) -> list[dict[str, Any]]:
    """The score and each scored phase of the standing IO500 runs among ``submissions``, in
    time order, shaped as ``series`` (one value per run: no spread, no target), with the
    regression alert each run raised there."""
    chosen = list(
        submissions.filter(status__in=STANDING, score_total__isnull=False)
        .select_related("release")
        .order_by(Coalesce("run_start", "created"), "id")
    )
    values: dict[str, dict[int, tuple[float, str]]] = {
        SCORE: {s.pk: (s.score_total, "") for s in chosen if s.score_total is not None}
    }
    for row in PhaseResult.objects.filter(submission__in=chosen, name__in=SCORED_PHASES).values(
        "submission_id", "name", "value", "unit"
    ):
        values.setdefault(row["name"], {})[row["submission_id"]] = (row["value"], row["unit"])
    alerts = {
        (a.submission_id, a.operation): a.message
        for a in RegressionAlert.objects.filter(submission__in=chosen, test_name=IO500_TEST)
    }
    out = []
    for operation in (SCORE, *SCORED_PHASES):
        of_runs = values.get(operation, {})
        points = [
            {
                "run": s.pk,
                "when": _submitted_when(s),
                "label": s.release.acronym,
                "mean": of_runs[s.pk][0],
                "stddev": 0.0,
                "min": of_runs[s.pk][0],
                "max": of_runs[s.pk][0],
                "iterations": 1,
                "target": None,
                "target_at_least": None,
                "passed": None,
                "alert": alerts.get((s.pk, operation)),
            }
            for s in chosen
            if s.pk in of_runs
        ]
        if points:
            unit = next(iter(of_runs.values()))[1]
            out.append(
                {
                    "test": IO500_TEST,
                    "operation": operation,
                    "unit": unit,
                    "source": "submission",
                    "points": points,
                }
            )
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
