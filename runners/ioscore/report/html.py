"""The self-contained HTML report: plotly.js is embedded once, inline, so it opens offline."""

from __future__ import annotations

import html
from typing import Any

import plotly.io as pio

from ioscore.report.charts import all_figures
from ioscore.report.hardware import hardware_html
from ioscore.report.summary import HEADER, SummaryRow, has_rank_data, table_cells
from ioscore.results.model import RunResult
from ioscore.results.stragglers import LATE_FRACTION, LATE_MIN_S, RATE_FRACTION

NO_RANK_DATA = (
    "Per-rank data is absent: this run is in an IO500 format (result_summary.txt / result.txt), "
    "which records only phase totals. Spread, tail and stragglers need ioscore's result.json."
)

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; }
table { border-collapse: collapse; font-size: 0.9em; }
th, td { padding: 0.25em 0.6em; border-bottom: 1px solid #ddd; text-align: right; }
th:first-child, td:first-child, td:last-child, th:last-child { text-align: left; }
tr.straggler td { background: #fde8e8; }
.note { background: #fff6dd; padding: 0.6em 1em; border-left: 4px solid #e0b000; }
.meta { color: #555; }
"""


def _table(rows: list[SummaryRow]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in HEADER)
    body = []
    for row in rows:
        cls = ' class="straggler"' if row.straggler_ranks or row.straggler_hosts else ""
        title = html.escape("; ".join(row.straggler_reasons), quote=True)
        cells = "".join(f"<td>{html.escape(c)}</td>" for c in table_cells(row))
        body.append(f'<tr{cls} title="{title}">{cells}</tr>')
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _meta(run: RunResult) -> str:
    scores = run.printed
    parts = [
        f"version {run.version or 'unknown'}",
        f"format {run.format}",
        f"procs {run.procs}" if run.procs else "",
        f"hosts {', '.join(map(str, run.extra.get('hosts') or []))}"
        if run.extra.get("hosts")
        else "",
        f"score total {scores.total:.6g} (BW {scores.bw:.6g} GiB/s, MD {scores.md:.6g} kIOPS)"
        if scores
        else "",
    ]
    return " · ".join(html.escape(p) for p in parts if p)


def render_html(
    run: RunResult, rows: list[SummaryRow], hardware: tuple[dict[str, Any], str] | None = None
) -> str:
    """The run's report; ``hardware``: (``plausibility_summary``, its description's source)."""
    title = f"ioscore report: {run.timestamp or run.run_dir or run.source}"
    sections = [
        f"<h1>{html.escape(title)}</h1>",
        f'<p class="meta">{_meta(run)}</p>',
        "<h2>Phases</h2>",
        _table(rows),
        '<p class="meta">Rates are work rates per rank in the phase unit (amount over the '
        "rank's own main loop, without the closing sync). Straggler: work rate below "
        f"{RATE_FRACTION} &times; the median of the other ranks, or out of its main loop more "
        f"than {LATE_FRACTION} &times; the phase time (and {LATE_MIN_S} s) after their median. "
        "Tail: last rank out of its main loop &minus; first one.</p>",
    ]
    if not has_rank_data(rows):
        sections.append(f'<p class="note">{html.escape(NO_RANK_DATA)}</p>')
    if hardware is not None:
        sections.append(hardware_html(*hardware))
    heading = None
    for index, (section, figure) in enumerate(all_figures(run)):
        if section != heading:
            sections.append(f"<h2>{html.escape(section)}</h2>")
            heading = section
        # The first figure carries plotly.js inline; the others reuse it.
        sections.append(pio.to_html(figure, include_plotlyjs=index == 0, full_html=False))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>"
        + "\n".join(sections)
        + "</body></html>\n"
    )
