"""The award marks and reproducibility-level badges of the public pages, as markup strings.

One owner for both the list rows (``rows.py``, built as strings for speed) and the template
tags ``awards`` and ``level_badge`` (the result page), so the two cannot drift apart."""

from __future__ import annotations

from typing import Any

from django.utils.html import escape

from .listview import LEVEL_LABELS

# (entry flag, CSS class, title, accessible label, text shown)
AWARDS = (
    ("award_score", "award", "Award: highest score of the release", "Score award", "\u2605"),
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
AWARD_MARKUP = tuple(
    (flag, f'<span class="{css}" title="{title}" aria-label="{label}">{text}</span>')
    for flag, css, title, label, text in AWARDS
)
NO_LEVEL = '<span class="muted" title="No reproducibility level">\u2013</span>'


def award_marks(entry: Any) -> str:
    """The marks of the awards ``entry`` holds (its ``award_*`` flags), in a fixed order."""
    return "".join(markup for flag, markup in AWARD_MARKUP if getattr(entry, flag, False))


def level_badge(level: str) -> str:
    """A level's badge; a dash for none; an unknown level shown as it is, escaped."""
    if not level:
        return NO_LEVEL
    return (
        f'<span class="badge level-{escape(level)}" title="Reproducibility level (committee '
        f'verdict)">{escape(LEVEL_LABELS.get(level, level))}</span>'
    )


LEVEL_MARKUP = {level: level_badge(level) for level in LEVEL_LABELS}
