"""A whole number typed by a visitor (a query value, a form button's index): ASCII digits,
with one leading sign where the caller takes one, or nothing.

``str.isdigit`` is true for "²" and "١٢" (``int`` refuses the one, reads the other), and
``lstrip("+-")`` lets "--1" through to an ``int`` that raises; a view that checks with
them answers such values with a 500. Views read numbers from requests through here."""

from __future__ import annotations

import re

_UNSIGNED = re.compile(r"[0-9]+")
_SIGNED = re.compile(r"[+-]?[0-9]+")


def whole_number(text: str, *, signed: bool = False, max_digits: int = 18) -> int | None:
    """``text`` as an ``int``, or ``None`` unless it is ASCII digits (after one ``+`` or
    ``-`` when ``signed``) and at most ``max_digits`` of them (18: any of them fits a
    PostgreSQL bigint, so a lookup by it cannot fail in the database)."""
    pattern = _SIGNED if signed else _UNSIGNED
    if pattern.fullmatch(text) is None or len(text.lstrip("+-")) > max_digits:
        return None
    return int(text)
