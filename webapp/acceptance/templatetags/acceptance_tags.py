"""Numbers as an engineer reads them: four significant digits, thousands grouped."""

from __future__ import annotations

import math

from django import template

register = template.Library()


@register.filter
def num(value: object) -> str:
    """1234567.8 -> '1,234,568'; 5.10149 -> '5.101'; 0.000123456 -> '0.0001235'."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "—"
    if not math.isfinite(value):
        return "—"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.4g}" if abs(value) >= 1e-4 or value == 0 else f"{value:.3e}"
