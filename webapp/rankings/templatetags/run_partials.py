"""The run-page partials shared by the public result page and the submitter's run page
(``{% load run_partials %}``); the site's navigation is ``portal.templatetags.navigation``."""

from __future__ import annotations

from typing import Any

from django import template

from ioscore.results import RANK_DETAIL_THRESHOLD
from rankings import run_page

register = template.Library()


# --- run-page partials (one markup for the public result page and the submitter's page) ------


@register.inclusion_tag("portal/phases.html")
def phase_tables(phases: Any) -> dict[str, Any]:
    return run_page.phase_tables(phases)


@register.inclusion_tag("portal/description.html")
def description_table(description: Any) -> dict[str, Any]:
    return {"groups": run_page.description_groups(description)}


@register.inclusion_tag("portal/questionnaire.html")
def questionnaire_answers(questionnaire: Any, user: Any) -> dict[str, Any]:
    return run_page.questionnaire_view(questionnaire, user)


@register.inclusion_tag("portal/rule_checks.html")
def rule_checks(issues: Any, pending: bool = False) -> dict[str, Any]:
    return {"checks": [run_page.plain_issue(i) for i in issues], "pending": pending}


@register.simple_tag
def any_stragglers(spread: Any) -> bool:
    return any(s.get("flags") or s.get("host_flags") for s in spread or [])


@register.simple_tag
def any_summary(spread: Any) -> bool:
    """Whether a phase of the rank chart is in the summary form (charts.spread_payload)."""
    return any(s.get("summary") for s in spread or [])


@register.simple_tag
def summary_full_files(spread: Any) -> list[str]:
    """The files of the run's archive that hold every rank of its summarised phases."""
    files = {(s.get("summary") or {}).get("full_file") for s in spread or []}
    return sorted(f for f in files if f)


@register.simple_tag
def rank_detail_threshold() -> str:
    return f"{RANK_DETAIL_THRESHOLD:,}"
