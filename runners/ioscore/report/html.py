"""The self-contained HTML report: plotly.js is embedded once, inline, so it opens offline."""

from __future__ import annotations

import html
from typing import Any

import plotly.io as pio

from ioscore.report.charts import panel_figures, rank_and_latency_figures
from ioscore.report.hardware import hardware_html
from ioscore.report.summary import HEADER, SummaryRow, has_rank_data, table_cells
from ioscore.results.latency import QUANTILE_KEYS, QUANTILE_LABELS, format_seconds, phase_latency
from ioscore.results.model import RunResult
from ioscore.results.numbers import significant
from ioscore.results.phase_panels import PhasePanel
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
.panels { display: grid; grid-template-columns: repeat(auto-fill, minmax(340px, 1fr)); gap: 0.8em; }
.panels figure { margin: 0; border: 1px solid #ddd; padding: 0.3em; }
.panels figcaption { font-size: 0.8em; color: #555; }
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
    sections.append(_latency_table(run))
    # The first figure carries plotly.js inline; the others reuse it.
    first = True
    panels = panel_figures(run)
    if panels:
        sections.append("<h2>Each phase over time</h2>")
        figures = []
        for panel, figure in panels:
            drawn = pio.to_html(figure, include_plotlyjs=first, full_html=False)
            first = False
            caption = _panel_caption(panel)
            figures.append(
                f'<figure data-phase-panel="{html.escape(panel.phase, quote=True)}">'
                f"{drawn}<figcaption>{html.escape(caption)}</figcaption></figure>"
            )
        sections.append(f'<div class="panels">{"".join(figures)}</div>')
    heading = None
    for section, figure in rank_and_latency_figures(run):
        if section != heading:
            sections.append(f"<h2>{html.escape(section)}</h2>")
            heading = section
        sections.append(pio.to_html(figure, include_plotlyjs=first, full_html=False))
        first = False
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>"
        + "\n".join(sections)
        + "</body></html>\n"
    )


def _panel_caption(panel: PhasePanel) -> str:
    marks = "".join(f"; {m.kind} at {m.label}" for m in panel.marks)
    note = f"; {panel.stonewall_note}" if panel.stonewall_note else ""
    return f"{significant(panel.duration_s)} s{marks}{note}. {panel.note}."


def _latency_table(run: RunResult) -> str:
    """The latency percentiles per phase and operation ('' when no phase timed any)."""
    rows = []
    log2 = False
    for phase in run.phases.values():
        lat = phase_latency(phase)
        if lat is None or lat.ops == 0:
            continue
        log2 = log2 or lat.layout == "log2"
        cells = [phase.name, lat.op or "-", f"{lat.ops:,}"]
        cells += [format_seconds(lat.quantiles[k]) for k in QUANTILE_KEYS]
        cells.append(format_seconds(lat.max))
        rows.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
    if not rows:
        return ""
    head = ["phase", "op", "ops", *(QUANTILE_LABELS[k] for k in QUANTILE_KEYS), "max"]
    header = "".join(f"<th>{h}</th>" for h in head)
    note = (
        '<p class="meta">Power-of-two buckets (older results): p50, p90 and p99 are a bucket\'s '
        "upper bound, up to twice the true value; p99.9 and p99.99 were not recorded.</p>"
        if log2
        else ""
    )
    return (
        "<h2>Operation latency</h2>"
        f'<table id="latency"><thead><tr>{header}</tr></thead><tbody>{"".join(rows)}'
        f"</tbody></table>{note}"
    )
