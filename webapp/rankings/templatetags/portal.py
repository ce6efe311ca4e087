"""Site-wide template pieces: navigation links and the run-page partials shared by the public
result page and the submitter's run page (``{% load portal %}``)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlencode

from django import template
from django.conf import settings
from django.shortcuts import resolve_url
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html

from ioscore.results import RANK_DETAIL_THRESHOLD
from rankings import run_page

register = template.Library()


def _current(path: str, url: str, exact: bool, also: str) -> bool:
    if exact:
        return path == url
    return path.startswith(url) or bool(also and re.match(also, path))


@register.simple_tag(takes_context=True)
def nav_link(context: Any, name: str, label: str, exact: bool = False, also: str = "") -> str:
    """``<li><a>`` to a named URL, marked ``aria-current="page"`` on the page it leads to (or
    below it; ``also`` is a pattern of other paths in the same section, e.g. a run's page)."""
    try:
        url = reverse(name)
    except NoReverseMatch:  # an app not mounted in this URLconf (tests mount subsets)
        return ""
    request = context.get("request")
    path = getattr(request, "path", "")
    if _current(path, url, exact, also):
        return format_html('<li><a href="{}" aria-current="page">{}</a></li>', url, label)
    return format_html('<li><a href="{}">{}</a></li>', url, label)


def login_url(request: Any) -> str:
    """The login page, coming back to ``request``'s page afterwards."""
    base = resolve_url(settings.LOGIN_URL)
    path = getattr(request, "path", "")
    if not path or path == base:
        return base
    return f"{base}?{urlencode({'next': path})}"


@register.simple_tag(takes_context=True)
def login_link(context: Any) -> str:
    return format_html('<li><a href="{}">Log in</a></li>', login_url(context.get("request")))


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
