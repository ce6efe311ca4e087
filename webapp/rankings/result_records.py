"""The public result records of the API (``/api/v1/results/``): built from the few columns
they show, in a fixed number of queries.

``api.PublicResultSerializer`` describes these records (the OpenAPI document) and is their
reference: the API tests compare the two. Serialising model instances through it cost a model per
phase (every JSON column decoded, the per-rank ``ranks``/``rank_summary``/``timeseries`` included)
and a DRF field call per value, nearly all of the page's time in Python. Here a page is three
queries of plain rows (its ids; the submissions with their release, site, system and level; their
phases) whatever its size.
"""

from __future__ import annotations

import json
from typing import Any

from django.db.models import OuterRef, QuerySet, Subquery, TextField
from django.db.models.functions import Cast
from rest_framework.fields import DateTimeField

from submissions.models import PhaseResult, Questionnaire, Submission, SystemDescription

from .listview import LEVEL_LABELS

# The record's field -> the column it comes from (joined through the submission).
_RESULT_COLUMNS = {
    "id": "id",
    "io500_id": "io500_id",
    "release": "release__acronym",
    "institution": "site__name",
    "benchmark_version": "benchmark_version",
    "run_mode": "run_mode",
    "run_start": "run_start",
    "procs": "procs",
    "score_total": "score_total",
    "score_bw": "score_bw",
    "score_md": "score_md",
    "score_valid": "score_valid",
}
_SYSTEM = "described_system"
_CLIENT_SYSTEM = "client_system__name"
_LEVEL = "assigned_level"
RESULT_FIELDS = [
    *list(_RESULT_COLUMNS)[:4],
    "system",
    *list(_RESULT_COLUMNS)[4:],
    "reproducibility",
    "phases",
]
PHASE_FIELDS = ["name", "order", "value", "unit", "group", "time", "valid", "invalid_reasons"]
# DRF's own formatting of a timestamp (time zone, "Z"), so the records read as they did.
_TIMESTAMP = DateTimeField()


def result_ids(submissions: QuerySet[Submission]) -> QuerySet[Submission, int]:
    """What the API pages through: ids alone, in id order (the primary key serves it, and
    the count stays on the submissions and their releases)."""
    return submissions.order_by("id").values_list("id", flat=True)


def result_records(submissions: QuerySet[Submission]) -> list[dict[str, Any]]:
    """The records of ``submissions`` (a page of them, or one), in id order."""
    columns = [*_RESULT_COLUMNS.values(), _SYSTEM, _CLIENT_SYSTEM, _LEVEL]
    # Per-row lookups on their unique submission index rather than joins: joined, a small
    # table (10,000 descriptions) is scanned whole for a page of 100.
    of_row = {"submission_id": OuterRef("id")}
    rows = list(
        submissions.order_by("id")
        .annotate(
            **{
                _SYSTEM: Subquery(SystemDescription.objects.filter(**of_row).values("system")),
                _LEVEL: Subquery(Questionnaire.objects.filter(**of_row).values("assigned_level")),
            }
        )
        .values(*columns)
    )
    phases: dict[int, list[dict[str, Any]]] = {row["id"]: [] for row in rows}
    for submission_id, *phase in phase_rows(list(phases)):
        phases[submission_id].append(_phase(*phase))
    return [_record(row, phases[row["id"]]) for row in rows]


def phase_rows(submission_ids: list[int]) -> QuerySet[PhaseResult, tuple[Any, ...]]:
    """The phases of these submissions as tuples (submission id, then ``PHASE_FIELDS``), only
    the columns a record shows (never the per-rank JSON), ordered by the submission's own key
    so no other table is joined. The reasons come as JSON text: nearly always "[]", which
    then needs no decoding (decoding per phase was a third of a 1,000-result page)."""
    return (
        PhaseResult.objects.filter(submission_id__in=submission_ids)
        .order_by("submission_id", "order", "name")
        .annotate(reasons_text=Cast("invalid_reasons", TextField()))
        .values_list("submission_id", *PHASE_FIELDS[:-1], "reasons_text")
    )


def phase_records(submission_id: int) -> list[dict[str, Any]]:
    return [_phase(*phase) for _, *phase in phase_rows([submission_id])]


def _phase(
    name: str,
    order: int,
    value: float,
    unit: str,
    group: str,
    time: float | None,
    valid: bool,
    reasons: str,
) -> dict[str, Any]:
    return {
        "name": name,
        "order": order,
        "value": value,
        "unit": unit,
        "group": group,
        "time": time,
        "valid": valid,
        "invalid_reasons": [] if reasons == "[]" else json.loads(reasons),
    }


def _record(row: dict[str, Any], phases: list[dict[str, Any]]) -> dict[str, Any]:
    record = {field: row[column] for field, column in _RESULT_COLUMNS.items()}
    if record["run_start"] is not None:
        record["run_start"] = _TIMESTAMP.to_representation(record["run_start"])
    # The described system's name, else the client system's (as the result page shows).
    record["system"] = row[_SYSTEM] or row[_CLIENT_SYSTEM] or ""
    record["reproducibility"] = LEVEL_LABELS.get(row[_LEVEL], "")
    record["phases"] = phases
    return {field: record[field] for field in RESULT_FIELDS}
