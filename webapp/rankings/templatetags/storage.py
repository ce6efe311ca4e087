"""``{% load storage %}{% storage_servers phases %}``: the run page's per-server section."""

from __future__ import annotations

from typing import Any

from django import template

from rankings.storage_servers import server_tables

register = template.Library()


@register.inclusion_tag("portal/storage_servers.html")
def storage_servers(phases: Any) -> dict[str, Any]:
    return {"tables": server_tables(phases)}
