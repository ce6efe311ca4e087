"""``{% load plausibility %}{% hardware_plausibility phases description reviewer %}``: the run
page's section comparing each phase with what the declared hardware can carry."""

from __future__ import annotations

from typing import Any

from django import template

from rankings.plausibility import plausibility

register = template.Library()


@register.inclusion_tag("portal/plausibility.html")
def hardware_plausibility(phases: Any, description: Any, reviewer: bool = False) -> dict[str, Any]:
    return plausibility(phases, description, bool(reviewer))
