"""The site's navigation (``{% load navigation %}``): header links marked on the page they
lead to, and the login link that comes back to the page afterwards."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlencode

from django import template
from django.conf import settings
from django.shortcuts import resolve_url
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html

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
