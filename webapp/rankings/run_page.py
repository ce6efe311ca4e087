"""What a run's page shows, as plain data for the templates: the phases split by the library's
phase model, the system description as labelled groups, the questionnaire with its questions
and level explanations, rule results in plain words, and the timeline of states.

Used by the public result page and the submitter's run page (through ``{% load run_partials %}``),
so both say the same thing the same way.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from ioscore import system_description
from ioscore.results import SCORED_PHASES
from ioscore_site.finite_json import finite
from portal.templatetags import formatting
from submissions import fields
from submissions.models import ReproducibilityLevel, Status
from submissions.questionnaire import LEVEL_KEY, OPTIONAL, QUESTIONS

# --- phases ---------------------------------------------------------------------------------


def phase_tables(phases: Iterable[Any]) -> dict[str, Any]:
    """The 12 scored phases in the suite's order; other phases that measured something (the
    extended mode's); and the names of steps without a measurement (``timestamp`` only creates
    find's reference file; a disabled extended phase did not run), not shown as a 0.000 rate."""
    rows = list(phases)
    by_name = {p.name: p for p in rows}
    scored = [by_name[name] for name in SCORED_PHASES if name in by_name]
    others = [p for p in rows if p.name not in SCORED_PHASES]
    return {
        "scored": scored,
        "extended": [p for p in others if p.value],
        "steps": [p.name for p in others if not p.value],
    }


# --- system description ---------------------------------------------------------------------

SECTION_TITLES = {
    "site": "Site",
    "client_system": "Client system",
    "client_node_groups": "Client nodes",
    "run": "This run",
    "storage_system": "Storage system",
    "fs_component": "File system",
    "server_groups": "Storage servers",
}
# The description's private part (name, e-mail) is stored apart; the rest is not shown here.
HIDDEN_SECTIONS = {"submitter", "schema"}
WORDS = {
    "os": "OS",
    "fs": "FS",
    "url": "URL",
    "rdma": "RDMA",
    "md": "metadata",
    "ds": "data",
    "dne": "DNE",
    "procs": "processes",
    "bw": "bandwidth",
}


def human_label(key: str) -> str:
    """``os_distribution`` -> "OS distribution"."""
    words = [WORDS.get(word, word) for word in str(key).replace("-", "_").split("_") if word]
    text = " ".join(words)
    return text[:1].upper() + text[1:]


def _is_quantity(value: Any) -> bool:
    return isinstance(value, dict) and set(value) <= {"value", "unit"} and "value" in value


def human_value(value: Any) -> str:
    """A description value as a person reads it: quantities with their unit, yes/no."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if _is_quantity(value):
        return formatting.with_unit(value["value"], str(value.get("unit") or ""))
    if isinstance(value, int | float):
        return formatting.count(value) if float(value).is_integer() else formatting.sig(value)
    if isinstance(value, list):
        return ", ".join(human_value(v) for v in value) or formatting.DASH
    if value is None or value == "":
        return formatting.DASH
    return str(value)


@functools.cache
def _schema() -> dict[str, Any]:
    return system_description.schema()


def _node(schema: dict[str, Any] | None) -> dict[str, Any]:
    """The object schema behind a property: ``$ref`` resolved, arrays to their items."""
    if not isinstance(schema, dict):
        return {}
    if "$ref" in schema:
        name = str(schema["$ref"]).rsplit("/", 1)[-1]
        return _node(_schema().get("$defs", {}).get(name))
    if schema.get("type") == "array":
        return _node(schema.get("items"))
    return schema


def _in_schema_order(data: dict[str, Any], schema: dict[str, Any]) -> list[tuple[str, Any]]:
    """The stored tree's keys in the schema's order (PostgreSQL's jsonb does not keep the
    submitter's); keys the schema does not name come last, alphabetically."""
    order = {key: index for index, key in enumerate(schema.get("properties") or {})}
    return sorted(data.items(), key=lambda item: (order.get(item[0], len(order)), item[0]))


def _rows(data: dict[str, Any], schema: dict[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    """Flatten nested objects into "Processor > Frequency" rows (shown with a single right
    angle quote); lists of objects are numbered."""
    rows: list[tuple[str, str]] = []
    for key, value in _in_schema_order(data, schema):
        label = f"{prefix}{human_label(key)}"
        inner = _node((schema.get("properties") or {}).get(key))
        if isinstance(value, dict) and not _is_quantity(value):
            rows += _rows(value, inner, f"{label} \u203a ")
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for index, item in enumerate(value, 1):
                name = f"{label} {index}" if len(value) > 1 else label
                rows += _rows(item, inner, f"{name} \u203a ")
        else:
            rows.append((label, human_value(value)))
    return rows


def _group_title(section: str, item: dict[str, Any], index: int, count: int) -> str:
    base = SECTION_TITLES.get(section, human_label(section))
    name = item.get("role") or item.get("name")
    if name:
        return f"{base}: {name}"
    return f"{base} {index}" if count > 1 else base


# Flattened columns (all an imported IO500 run may have) that need their unit.
_COLUMN_FORMATS = {
    "storage_capacity_bytes": ("Storage capacity", formatting.bytes_iec),
    "client_network_bw": ("Client network", formatting.bytes_per_second),
    "server_network_bw": ("Server network", formatting.bytes_per_second),
}


def _column_group(description: Any) -> list[dict[str, Any]]:
    from .charts import DESCRIPTION_FIELDS

    rows = []
    for name, label in DESCRIPTION_FIELDS:
        value = getattr(description, name, None)
        if value in (None, ""):
            continue
        label, shown = _COLUMN_FORMATS.get(name, (label, human_value))
        rows.append((label, shown(value)))
    return [{"title": "Summary", "rows": rows}] if rows else []


def description_groups(description: Any) -> list[dict[str, Any]]:
    """[{title, rows: [(label, value)]}] from the stored description tree, in schema order;
    the flattened columns when there is no tree (runs imported from the IO500 archive)."""
    if description is None:
        return []
    data = getattr(description, "data", None)
    if not isinstance(data, dict) or not data:
        return _column_group(description)
    groups = []
    top = _schema()
    for section, value in _in_schema_order(data, top):
        if section in HIDDEN_SECTIONS:
            continue
        schema = _node((top.get("properties") or {}).get(section))
        if isinstance(value, dict):
            rows = _rows(value, schema)
            if rows:
                title = SECTION_TITLES.get(section, human_label(section))
                groups.append({"title": title, "rows": rows})
        elif isinstance(value, list):
            items = [v for v in value if isinstance(v, dict)]
            for index, item in enumerate(items, 1):
                title = _group_title(section, item, index, len(items))
                groups.append({"title": title, "rows": _rows(item, schema)})
        elif value not in (None, ""):
            groups.append({"title": human_label(section), "rows": [("Value", human_value(value))]})
    return groups


# --- questionnaire --------------------------------------------------------------------------

LEVEL_EXPLANATIONS = {
    ReproducibilityLevel.UNDEFINED: "client and/or server metadata missing.",
    ReproducibilityLevel.LIMITED: (
        "metadata largely present; questionnaire insufficient or missing."
    ),
    ReproducibilityLevel.PROPRIETARY: (
        "complete metadata and questionnaire; the system is not openly or commercially "
        "obtainable. Eligible for the Research lists."
    ),
    ReproducibilityLevel.FULLY_REPRODUCIBLE: (
        "complete, and hardware and software are obtainable by anyone (open source, free or "
        "commercial). Eligible for the Production lists when the system is in production use."
    ),
}


def _level(value: str) -> dict[str, str] | None:
    if value not in ReproducibilityLevel.values:
        return None
    level = ReproducibilityLevel(value)
    return {"value": value, "label": level.label, "explanation": LEVEL_EXPLANATIONS[level]}


def questionnaire_view(questionnaire: Any, user: Any) -> dict[str, Any]:
    """Answers under their questions (in the questionnaire's order; those ``user`` may read,
    ``submissions.fields``), the claimed and the assigned level with what each means."""
    if questionnaire is None:
        return {"questionnaire": None}
    given = questionnaire.answers if isinstance(questionnaire.answers, dict) else {}
    answers = fields.answers(user, questionnaire.submission, given)
    labels = {**QUESTIONS, **OPTIONAL}
    ordered = [k for k in labels if k in answers]
    ordered += sorted(k for k in answers if k not in labels and k != LEVEL_KEY)
    return {
        "questionnaire": questionnaire,
        "answers": [(labels.get(k) or human_label(k), human_value(answers[k])) for k in ordered],
        "claimed": _level(questionnaire.claimed_level or given.get(LEVEL_KEY) or ""),
        "assigned": _level(questionnaire.assigned_level or ""),
        "levels": [_level(v) for v in ReproducibilityLevel.values],
    }


# --- rule results ---------------------------------------------------------------------------

SEVERITY_WORDS = {
    "invalid": "Blocks the submission",
    "warning": "Needs a reviewer's look",
    "info": "Note",
}


def plain_value(value: Any) -> str:
    """Expected/actual values of a rule as words; "" when there is nothing to say (None, [],
    {}), so the page never prints "Expected: []"."""
    if value is None or value == "" or value == [] or value == {}:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return formatting.sig(value) if not float(value).is_integer() else formatting.count(value)
    if isinstance(value, list):
        return ", ".join(filter(None, (plain_value(v) for v in value)))
    if isinstance(value, dict):
        parts = (f"{human_label(k)} {plain_value(v)}" for k, v in value.items())
        return "; ".join(p for p in parts if p.strip())
    return str(value)


def plain_issue(issue: Any) -> dict[str, str]:
    return {
        "severity": issue.severity,
        "verdict": SEVERITY_WORDS.get(issue.severity, issue.severity),
        "rule": issue.rule,
        "title": human_label(issue.rule),
        "phase": issue.phase or "",
        "message": issue.message,
        "expected": plain_value(issue.expected),
        "actual": plain_value(issue.actual),
    }


# --- timeline -------------------------------------------------------------------------------

STATE_WORDS = {
    Status.DRAFT: "Saved as a draft",
    Status.SUBMITTED: "Submitted",
    Status.VALIDATING: "Automatic checks started",
    Status.VALIDATION_FAILED: "Automatic checks failed",
    Status.UNDER_REVIEW: "Checks passed; waiting for the committee",
    Status.CHANGES_REQUESTED: "Committee asked for changes",
    Status.ACCEPTED: "Accepted by the committee",
    Status.REJECTED: "Rejected by the committee",
    Status.WITHDRAWN: "Withdrawn",
}


def timeline(submission: Any, transitions: Iterable[Any], user: Any) -> list[dict[str, Any]]:
    """The submission's states in order: uploaded, then every recorded transition (who and
    why as ``user`` may read them, ``submissions.fields``)."""
    uploaded = {"state": "uploaded", "label": "Uploaded", "when": submission.created}
    steps = [{**uploaded, "who": "", "comment": ""}]
    for change in transitions:
        steps.append(
            {
                "state": change.to_status,
                "label": STATE_WORDS.get(change.to_status, change.to_status),
                "when": change.created,
                "who": fields.actor_name(user, submission, change.actor),
                "comment": fields.comment(user, submission, change.comment),
            }
        )
    return steps


# --- charts ---------------------------------------------------------------------------------


def run_charts(submission: Any, phases: list[Any], user: Any) -> dict[str, Any]:
    """The result page's charts for a run that is on no list yet (the submitter's page): the
    radar against the best published value of each phase (or this run's, where it is higher),
    time series and rank spread."""
    from . import charts
    from .visibility import visible_submissions

    published = charts.history_best(visible_submissions(user).exclude(pk=submission.pk))
    scored = {p.name: p.value for p in phases if p.name in SCORED_PHASES}
    # Where this run beats everything published (or nothing is), it is its own reference.
    best = {
        name: max(published.get(name) or 0.0, scored.get(name) or 0.0) for name in SCORED_PHASES
    }
    return finite(
        {
            "radar": charts.radar_payload(
                [(f"#{submission.pk}", scored)], best, best, "best published value"
            ),
            **charts.inside_run_payload(phases),
        }
    )
