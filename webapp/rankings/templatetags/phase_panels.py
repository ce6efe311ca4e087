"""The run page's phase panels and latency table (``{% load phase_panels %}``), fed by
``rankings.charts.inside_run_payload``."""

from __future__ import annotations

from typing import Any

from django import template

from rankings.charts import LATENCY_COLUMNS
from submissions.models import Source

register = template.Library()


@register.inclusion_tag("portal/latency_table.html")
def latency_table(rows: Any) -> dict[str, Any]:
    rows = rows or []
    return {
        "rows": rows,
        "columns": LATENCY_COLUMNS,
        "any_log2": any(r.get("log2") for r in rows),
    }


@register.simple_tag
def any_host_lines(panels: Any) -> bool:
    """Whether a panel carries a line per host (the page then offers the toggle)."""
    return any(p.get("hosts") for p in panels or [])


@register.inclusion_tag("portal/published_only.html")
def published_only_note(submission: Any, phases: Any) -> dict[str, Any]:
    """For an entry of IO500's published lists whose run left no files in the archive: say
    that only the published numbers exist (the website's phase values, or only the list's
    scores), instead of empty charts."""
    return {
        "published_only": published_only(submission),
        "has_phases": bool(phases),
    }


def published_only(submission: Any) -> bool:
    return bool(submission.source == Source.IO500_IMPORT and not submission.run_dir)
