"""Template helpers for list cells and numbers."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import mark_safe

from portal.templatetags import formatting
from rankings import badges

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


# Row-level markup as tags, not {% include %}: one owner, ``rankings.badges``.
@register.simple_tag
def awards(entry: Any) -> str:
    return mark_safe(badges.award_marks(entry))


@register.simple_tag
def level_badge(level: str) -> str:
    return mark_safe(badges.level_badge(level))
