"""The one owner of how the portal prints dates, numbers and units (``{% load formatting %}``).

Every page uses these filters, so a value reads the same on the list, the result page, the
submitter's run page and the review queue:

* dates are ISO 8601 (``2025-11-18``), times are UTC and say so (``2025-11-18 14:03 UTC``);
* a measurement keeps three significant digits (never fewer integer digits than it has), so
  ``0.00003075599670410156`` s reads ``30.8 µs`` and 123456.7 kIOPS reads ``123,457 kIOPS``;
* every measured value carries its unit; a missing value is an en dash.
"""

from __future__ import annotations

import math
from datetime import UTC, date, datetime
from typing import Any

from django import template

from ioscore.results import SIGNIFICANT, whole_or_significant
from ioscore.results import significant as significant_number

register = template.Library()

DASH = "\u2013"
_BYTE_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")
_RATE_UNITS = ("B/s", "kB/s", "MB/s", "GB/s", "TB/s", "PB/s")


def _number(value: Any) -> float | None:
    """A finite float, or None for missing, non-numeric, NaN and infinite values."""
    if value is None or value == "" or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def significant(value: Any, digits: int = SIGNIFICANT) -> str:
    """``digits`` significant digits by the library's one rule (``ioscore.results.significant``);
    an en dash for a missing or non-finite value."""
    number = _number(value)
    return DASH if number is None else significant_number(number, digits)


def with_unit(value: Any, unit: str, digits: int = SIGNIFICANT) -> str:
    text = significant(value, digits)
    return text if text == DASH or not unit else f"{text}\u00a0{unit}"


@register.filter
def sig(value: Any, digits: int = SIGNIFICANT) -> str:
    """A plain measured number (e.g. a score): three significant digits."""
    return significant(value, digits)


@register.filter
def gibs(value: Any) -> str:
    return with_unit(value, "GiB/s")


@register.filter
def kiops(value: Any) -> str:
    return with_unit(value, "kIOPS")


@register.filter
def measured(value: Any, unit: str) -> str:
    """A value in its own unit ("GiB/s", "kIOPS", ...): ``{{ p.value|measured:p.unit }}``."""
    return with_unit(value, unit or "")


@register.filter
def seconds(value: Any) -> str:
    """A duration in s, ms or µs, whichever keeps it readable."""
    number = _number(value)
    if number is None:
        return DASH
    if number == 0:
        return "0\u00a0s"
    if abs(number) < 1e-3:
        return with_unit(number * 1e6, "µs")
    if abs(number) < 1:
        return with_unit(number * 1e3, "ms")
    return with_unit(number, "s")


def _scaled(number: float, step: float, units: tuple[str, ...]) -> str:
    index = 0
    while abs(number) >= step and index < len(units) - 1:
        number /= step
        index += 1
    return with_unit(number, units[index])


@register.filter
def bytes_iec(value: Any) -> str:
    """A size in bytes as KiB/MiB/GiB/... (storage capacities, archive sizes)."""
    number = _number(value)
    return DASH if number is None else _scaled(number, 1024.0, _BYTE_UNITS)


@register.filter
def bytes_per_second(value: Any) -> str:
    """A network rate in bytes/s with decimal prefixes (as vendors quote links)."""
    number = _number(value)
    return DASH if number is None else _scaled(number, 1000.0, _RATE_UNITS)


@register.filter
def count(value: Any) -> str:
    """An integer count with thousands separators (nodes, processes, files)."""
    number = _number(value)
    if number is None:
        return DASH
    return whole_or_significant(number)


@register.filter
def num(value: Any, digits: int = 2) -> str:
    """Fixed decimals with thousands separators (list columns, where decimals must line up);
    an integer stays an integer; a dash for missing values."""
    if value is None or value == "":
        return DASH
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    number = _number(value)
    if number is None:
        return str(value) if isinstance(value, str) else DASH
    return f"{number:,.{int(digits)}f}"


@register.filter
def ratio(value: Any) -> str:
    """A ratio to three significant digits and a times sign: 0.00123, 1.23, 1,614."""
    number = _number(value)
    return DASH if number is None else f"{significant_number(number)}\u00d7"


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


@register.filter
def iso_date(value: Any) -> str:
    """YYYY-MM-DD (a datetime is taken in UTC first)."""
    if isinstance(value, datetime):
        return _utc(value).strftime("%Y-%m-%d")
    if isinstance(value, date):
        return value.isoformat()
    return DASH if value in (None, "") else str(value)


@register.filter
def iso_datetime(value: Any) -> str:
    """YYYY-MM-DD HH:MM UTC."""
    if isinstance(value, datetime):
        return _utc(value).strftime("%Y-%m-%d %H:%M UTC")
    return iso_date(value)
