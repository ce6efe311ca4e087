"""Template helpers for list cells and numbers."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import format_html, format_html_join

from portal.templatetags import formatting

register = template.Library()

# Column key -> attribute of an annotated ListEntry (see listview.annotated_entries).
_ATTRIBUTES = {
    "release": "origin_acronym",
    "vendor": "storage_vendor",
    "procs": "total_procs",
}


@register.filter
def cell(entry: Any, key: str) -> Any:
    return getattr(entry, _ATTRIBUTES.get(key, key), None)


@register.filter
def web_url(value: Any) -> str:
    """The URL if it is an absolute http(s) one, else "": only those become links (a
    ``javascript:`` or ``data:`` URL in a description would run in the site's origin)."""
    text = str(value or "").strip()
    scheme, _, rest = text.partition(":")
    if scheme.lower() in ("http", "https") and rest.startswith("//") and len(rest) > 2:
        return text
    return ""


# Numbers are formatted by the one formatting module; list templates load them from here too.
register.filter("num", formatting.num)
register.filter("ratio", formatting.ratio)


@register.filter
def get_item(mapping: Any, key: Any) -> Any:
    return mapping.get(key) if hasattr(mapping, "get") else None


@register.filter
def level_label(level: str) -> str:
    from rankings.listview import LEVEL_LABELS

    return LEVEL_LABELS.get(level, "")


# Row-level markup as tags, not {% include %}: a list page renders these for every row.
_AWARDS = (
    ("award_score", "award", "Award: highest score of the release", "Score award", "★"),
    (
        "award_bw",
        "award award-bw",
        "Award: highest bandwidth of the release",
        "Bandwidth award",
        "BW",
    ),
    (
        "award_md",
        "award award-md",
        "Award: highest metadata rate of the release",
        "Metadata award",
        "MD",
    ),
)


@register.simple_tag
def awards(entry: Any) -> str:
    return format_html_join(
        "",
        '<span class="{}" title="{}" aria-label="{}">{}</span>',
        (
            (css, title, label, text)
            for flag, css, title, label, text in _AWARDS
            if getattr(entry, flag, False)
        ),
    )


@register.simple_tag
def level_badge(level: str) -> str:
    from rankings.listview import LEVEL_LABELS

    if not level:
        return format_html(
            '<span class="muted" title="{}">\u2013</span>', "No reproducibility level"
        )
    return format_html(
        '<span class="badge level-{}" title="Reproducibility level (committee verdict)">{}</span>',
        level,
        LEVEL_LABELS.get(level, level),
    )
