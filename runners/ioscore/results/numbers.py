"""How a measured number is written for people: three significant digits with thousands
separators, integer digits never rounded away (12,345.6 -> "12,346"), no scientific notation
unless rounding would leave nothing. The portal's pages and `ioscore report` both print this
way, so a number reads the same in both."""

from __future__ import annotations

import math

SIGNIFICANT = 3


def significant(number: float, digits: int = SIGNIFICANT) -> str:
    """``number`` at ``digits`` significant digits, as described above; 0 is "0"."""
    if number == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(number)))
    decimals = max(0, int(digits) - 1 - magnitude)
    text = f"{number:,.{decimals}f}"
    if text.lstrip("-").strip("0.,") == "":  # rounding left nothing: say how small it is
        return f"{number:.{digits}g}"
    return text


def whole_or_significant(number: float) -> str:
    """A whole number in full with thousands separators (1,160 ranks; a configured 300 s
    stonewall), any other by ``significant``."""
    return f"{round(number):,}" if float(number).is_integer() else significant(number)
