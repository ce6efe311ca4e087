"""Table rows of a list page, rendered in Python.

A page shows up to 200 rows x ~13 columns. Rendering each cell through template tags (or
even ``format_html``) cost more than all the database work, so each row is built here as
one string: text values go through ``escape``; numbers are formatted by ``num`` (digits,
commas, a dot); links are built from integer ids and an escaped list key.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from portal.templatetags.formatting import num, sig

from .badges import LEVEL_MARKUP, NO_LEVEL, award_marks
from .listview import Column

# Column key -> attribute of an entry from listview.annotated_entries.
ATTRIBUTES = {"release": "origin_acronym", "vendor": "storage_vendor", "procs": "total_procs"}
LINKED = ("institution", "system")
DASH = "\u2013"  # shown for missing values


def _cell(entry: Any, key: str, numeric: bool, link: str) -> str:
    if key == "rank":
        marks = award_marks(entry)
        if entry.carried_over:
            marks += (
                f'<span class="carried" title="Carried over from '
                f'{escape(entry.origin_acronym)}">↺</span>'
            )
        return (
            f'<td class="num rank" data-col="rank"><a href="{link}" title="Submission '
            f'#{entry.submission_id}">{entry.rank}</a>{marks}</td>'
        )
    value = getattr(entry, ATTRIBUTES.get(key, key), None)
    if key in LINKED:
        return f'<td data-col="{key}"><a href="{link}">{escape(value or DASH)}</a></td>'
    if key == "level":
        return f'<td data-col="level">{LEVEL_MARKUP.get(value or "", NO_LEVEL)}</td>'
    if numeric:
        return f'<td class="num" data-col="{key}">{num(value)}</td>'
    return f'<td data-col="{key}">{escape(value or DASH)}</td>'


def _whatif_cells(placing: Any) -> str:
    """A what-if view's rank, its change against the official rank, and score; an unranked
    entry says why."""
    if placing is None or placing.rank is None:
        reason = escape(placing.reason if placing is not None else "not in this view")
        return (
            f'<td class="num whatif" data-col="whatif">{DASH}</td>'
            f'<td class="num change" data-col="whatif_change" data-change="">unranked</td>'
            f'<td class="whatif-score unranked" data-col="whatif_score">'
            f'<span class="note">unranked: {reason}</span></td>'
        )
    change = placing.change
    direction = "up" if change > 0 else ("down" if change < 0 else "same")
    if change:
        arrow = "▲" if change > 0 else "▼"
        moved = (
            f'<span aria-hidden="true">{arrow}</span> {abs(change)}'
            f'<span class="visually-hidden"> {direction}</span>'
        )
    else:
        moved = '<span aria-hidden="true">=</span><span class="visually-hidden">no change</span>'
    return (
        f'<td class="num whatif" data-col="whatif">{placing.rank}</td>'
        f'<td class="num change {direction}" data-col="whatif_change" data-change="{change}">'
        f"{moved}</td>"
        f'<td class="num whatif-score" data-col="whatif_score">{sig(placing.score)}</td>'
    )


def render_rows(
    entries: Iterable[Any], columns: Sequence[Column], list_key: str, whatif: bool = False
) -> list[SafeString]:
    """``list_key`` is "<release>/<type>": the submission page normalises its radar to it.
    ``whatif``: the entries carry a what-if placing (``listview.WhatIfRows``), shown after
    the official rank."""
    template = reverse("rankings:result", args=[0])  # "/results/0/"
    prefix, suffix = template.rsplit("0", 1)
    query = f"?list={escape(list_key)}"
    specs = [(c.key, c.numeric) for c in columns]
    rows = []
    for entry in entries:
        sid = entry.submission_id
        link = f"{prefix}{sid}{suffix}{query}"
        cells = "".join(_cell(entry, key, numeric, link) for key, numeric in specs)
        if whatif:  # after the rank, which is always the first column (ALWAYS_SHOWN)
            rank_end = cells.index("</td>") + len("</td>")
            cells = cells[:rank_end] + _whatif_cells(entry.whatif) + cells[rank_end:]
        rows.append(
            mark_safe(
                f'<tr data-submission="{sid}"><td class="pick"><input type="checkbox" '
                f'form="compare-form" name="pick" value="{sid}" id="pick-{sid}" '
                f'aria-label="Select #{sid} for comparison"></td>{cells}</tr>'
            )
        )
    return rows
