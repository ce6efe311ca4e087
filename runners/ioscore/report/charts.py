"""Plotly figures of one run: a panel per phase (rate over time), per-rank rates, latency
histograms.

Pure: each function takes the model and returns a figure (or None when the data is absent).
"""

from __future__ import annotations

import html
from itertools import pairwise
from typing import Any

import plotly.graph_objects as go

from ioscore.results.model import PhaseResult, RunResult
from ioscore.results.numbers import significant
from ioscore.results.phase_panels import Axis, Mark, PhasePanel, phase_panels
from ioscore.results.stragglers import (
    host_rates,
    host_stragglers,
    phase_spread,
    rate_histogram,
    work_rates,
)
from ioscore.results.throughput import rate_scale, throughput_series

STRAGGLER_COLOUR = "#d62728"
NORMAL_COLOUR = "#1f77b4"
# A rank histogram spanning less than this fraction of its rate is drawn as one bar.
EQUAL_RANKS = 1e-3

# Above this many ranks a phase is drawn as a histogram of rank rates and one bar per host,
# not one bar per rank (Aurora's IO500 run had 62,400 processes).
MAX_RANK_BARS = 256
_LAYOUT: dict[str, Any] = {
    "template": "plotly_white",
    "margin": {"l": 60, "r": 20, "t": 50, "b": 50},
}


def throughput_figure(run: RunResult, unit: str) -> go.Figure | None:
    """Every phase in `unit` (GiB/s or kIOPS) as one line, x = seconds since phase start."""
    figure = go.Figure()
    for phase in run.phases.values():
        series = throughput_series(phase) if phase.unit == unit else None
        if series is not None:
            figure.add_trace(
                go.Scatter(x=series[0], y=series[1], mode="lines+markers", name=phase.name)
            )
    if not figure.data:
        return None
    kind = "bandwidth" if unit == "GiB/s" else "metadata rate"
    figure.update_layout(
        title=f"Aggregate {kind} over time (all ranks)",
        xaxis_title="seconds since phase start",
        yaxis_title=unit,
        height=380,
        **_LAYOUT,
    )
    return figure


def rank_rate_figure(phase: PhaseResult) -> go.Figure | None:
    """One bar per rank (in the summary form: per rank the file names, its slowest and
    fastest); stragglers in red with the reason as hover text."""
    rates = work_rates(phase)
    rated = [r for r in phase.ranks if r.rank in rates]
    if not rated or max(rates.values()) <= 0:
        return None  # e.g. the timestamp phase: nothing measured
    spread = phase_spread(phase)
    reasons = {flag.rank: flag.reason for flag in spread.rank_stragglers}
    scale = rate_scale(phase.unit)
    labels = [f"{r.rank} ({r.host})" if r.host else str(r.rank) for r in rated]
    figure = go.Figure(
        go.Bar(
            x=labels,
            y=[rates[r.rank] / scale for r in rated],
            marker_color=[STRAGGLER_COLOUR if r.rank in reasons else NORMAL_COLOUR for r in rated],
            hovertext=[reasons.get(r.rank, "") for r in rated],
            name="work rate",
        )
    )
    if spread.rate_median is not None:
        figure.add_hline(
            y=spread.rate_median / scale,
            line_dash="dot",
            annotation_text="median",
            annotation_position="top left",
        )
    flagged = ", ".join(str(rank) for rank in reasons) or "none"
    which = "slowest and fastest ranks" if phase.rank_summary else "work rate per rank"
    figure.update_layout(
        title=f"{phase.name}: {which} (stragglers in red: {flagged})",
        xaxis_title="rank (host)",
        yaxis_title=f"{phase.unit} per rank",
        xaxis_type="category",
        height=300,
        **_LAYOUT,
    )
    return figure


def latency_buckets(latency: dict[str, Any]) -> list[tuple[float, int]]:
    """(upper bound s, operations in this bucket); cumulative ("le") counts are differenced."""
    raw = [
        (float(b["le"]), int(b["count"]))
        for b in latency.get("buckets") or []
        if isinstance(b, dict) and isinstance(b.get("le"), (int, float))
    ]
    counts = [count for _, count in raw]
    ops = latency.get("ops")
    cumulative = (
        len(raw) > 1
        and all(a <= b for a, b in pairwise(counts))
        and ops is not None
        and counts[-1] == ops
        and sum(counts) != ops
    )
    if cumulative:
        counts = [counts[0]] + [b - a for a, b in pairwise(counts)]
    return [(le, count) for (le, _), count in zip(raw, counts, strict=True)]


def _seconds_label(seconds: float) -> str:
    if seconds >= 1:
        return f"≤{seconds:g} s"
    if seconds >= 1e-3:
        return f"≤{seconds * 1e3:g} ms"
    return f"≤{seconds * 1e6:g} µs"


def latency_figure(phase: PhaseResult) -> go.Figure | None:
    latency = phase.extra.get("latency")
    if not isinstance(latency, dict):
        return None
    buckets = latency_buckets(latency)
    if not buckets:
        return None
    figure = go.Figure(
        go.Bar(
            x=[_seconds_label(le) for le, _ in buckets],
            y=[count for _, count in buckets],
            name="operations",
        )
    )
    quantiles = ", ".join(
        f"{key} {_seconds_label(float(latency[key]))[1:]}"
        for key in ("p50", "p90", "p99", "p99_9", "p99_99", "max")
        if isinstance(latency.get(key), (int, float))
    )
    figure.update_layout(
        title=f"{phase.name}: latency ({latency.get('ops', '?')} ops; {quantiles})",
        xaxis_title="operation latency",
        yaxis_title="operations",
        xaxis_type="category",
        height=300,
        **_LAYOUT,
    )
    return figure


def all_figures(run: RunResult) -> list[tuple[str, go.Figure]]:
    """(section heading, figure) in reading order; empty for runs without per-rank data."""
    figures: list[tuple[str, go.Figure]] = []
    for unit in ("GiB/s", "kIOPS"):
        figure = throughput_figure(run, unit)
        if figure is not None:
            figures.append(("Throughput over time", figure))
    return figures + rank_and_latency_figures(run)


def rank_and_latency_figures(run: RunResult) -> list[tuple[str, go.Figure]]:
    figures: list[tuple[str, go.Figure]] = []
    for phase in run.phases.values():
        figures.extend(("Rate per rank", figure) for figure in rank_figures(phase))
    for phase in run.phases.values():
        figure = latency_figure(phase)
        if figure is not None:
            figures.append(("Latency", figure))
    return figures


# --- one panel per phase ----------------------------------------------------------------------

PANEL_RATE = "#1f5fa8"
PANEL_P99 = "#d9822b"
PANEL_MARK = "#5b6770"


def tick_label(value: float, unit: str) -> str:
    """A tick with three significant digits and its unit, by the rule the portal prints
    numbers with; 0 alone."""
    return "0" if value == 0 else f"{significant(value)}\u00a0{unit}"


def _panel_axis(axis: Axis, **extra: Any) -> dict[str, Any]:
    return {
        "range": [0, axis.top],
        "tickmode": "array",
        "tickvals": axis.ticks,
        "ticktext": [tick_label(t, axis.unit) for t in axis.ticks],
        "fixedrange": True,
        "zeroline": False,
        **extra,
    }


def mark_label_side(panel: PhasePanel, mark: Mark) -> str:
    """Where a mark's label goes: the stonewall's before its line, the wear-out end's after
    it unless that runs off the plot; below the stonewall's when both are on one side."""
    if mark.kind == "stonewall":
        return "top left"
    if mark.at_shown < 0.8 * panel.time_axis.top:
        return "top right"
    return "bottom left"


def panel_figure(panel: PhasePanel, hosts: bool = False) -> go.Figure:
    """One phase's panel: the rate (steps), per-host lines when asked and recorded, the p99
    latency per second on a right axis, and the stonewall and wear-out end as lines."""
    figure = go.Figure(
        go.Scatter(
            x=panel.t,
            y=panel.rate,
            mode="lines",
            name="all ranks",
            line={"shape": "hv", "color": PANEL_RATE, "width": 2},
        )
    )
    for host in panel.hosts if hosts else []:
        figure.add_trace(
            go.Scatter(
                x=panel.t,
                y=host.rate,
                mode="lines",
                name=html.escape(host.host),  # plotly reads markup in trace names
                line={"shape": "hv", "width": 1},
            )
        )
    layout: dict[str, Any] = {}
    if panel.latency_axis is not None:
        figure.add_trace(
            go.Scatter(
                x=panel.p99_t,
                y=panel.p99,
                yaxis="y2",
                mode="lines+markers",
                name="p99 latency",
                connectgaps=False,
                line={"color": PANEL_P99, "dash": "dot"},
            )
        )
        layout["yaxis2"] = _panel_axis(
            panel.latency_axis, overlaying="y", side="right", showgrid=False
        )
    for mark in panel.marks:
        figure.add_vline(
            x=mark.at_shown,
            line_dash="dash" if mark.kind == "stonewall" else "dashdot",
            line_color=PANEL_MARK,
            annotation_text=mark.kind,
            annotation_position=mark_label_side(panel, mark),
        )
    figure.update_layout(
        title=panel.phase,
        xaxis=_panel_axis(panel.time_axis),
        yaxis=_panel_axis(panel.rate_axis),
        showlegend=panel.latency_axis is not None or (hosts and bool(panel.hosts)),
        legend={"orientation": "h", "y": -0.15},
        height=260,
        template="plotly_white",
        margin={"l": 80, "r": 70 if panel.latency_axis else 20, "t": 50, "b": 40},
        **layout,
    )
    return figure


def panel_figures(run: RunResult) -> list[tuple[PhasePanel, go.Figure]]:
    """The run page's small multiples, for the report: a panel per phase that has one, with
    the per-host lines drawn where the run recorded them (a static page has no toggle)."""
    return [
        (panel, panel_figure(panel, hosts=True))
        for panel in phase_panels(list(run.phases.values()))
    ]


def host_rate_figure(phase: PhaseResult) -> go.Figure | None:
    """One bar per host (mean work rate of its ranks); straggler hosts in red. None below two
    hosts: one host has nothing to be compared with."""
    rates = host_rates(phase)
    if len(rates) < 2:
        return None
    reasons = {flag.host: flag.reason for flag in host_stragglers(phase)}
    scale = rate_scale(phase.unit)
    hosts = list(rates)
    figure = go.Figure(
        go.Bar(
            x=hosts,
            y=[rates[h] / scale for h in hosts],
            marker_color=[STRAGGLER_COLOUR if h in reasons else NORMAL_COLOUR for h in hosts],
            hovertext=[reasons.get(h, "") for h in hosts],
            name="mean work rate",
        )
    )
    flagged = ", ".join(reasons) or "none"
    figure.update_layout(
        title=f"{phase.name}: mean work rate per host (stragglers in red: {flagged})",
        xaxis_title="host",
        yaxis_title=f"{phase.unit} per rank",
        xaxis_type="category",
        height=300,
        **_LAYOUT,
    )
    return figure


def _is_large(phase: PhaseResult) -> bool:
    return phase.rank_summary is not None or len(phase.ranks) > MAX_RANK_BARS


def rank_figures(phase: PhaseResult) -> list[go.Figure]:
    """The per-rank view of a phase: one bar per rank up to MAX_RANK_BARS ranks; above that
    (or in the summary form) a histogram of the ranks' rates and one bar per host, plus, in
    the summary form, the named slowest and fastest ranks."""
    if not _is_large(phase):
        figure = rank_rate_figure(phase)
        return [figure] if figure is not None else []
    candidates = [rank_histogram_figure(phase), host_rate_figure(phase)]
    if phase.rank_summary is not None:
        candidates.append(rank_rate_figure(phase))
    return [figure for figure in candidates if figure is not None]


def rank_histogram_figure(phase: PhaseResult) -> go.Figure | None:
    """Ranks per rate bin: the summary form's histogram (of the suite's rate), else one built
    from the ranks' work rates. None when no rank measured anything."""
    summary = phase.rank_summary
    if summary is not None:
        edges, counts, count = summary.histogram_edges, summary.histogram_counts, summary.count
    else:
        histogram = rate_histogram(list(work_rates(phase).values()))
        edges, counts, count = histogram["edges"], histogram["counts"], len(phase.ranks)
    if not counts or edges[-1] <= 0:
        return None
    scale = rate_scale(phase.unit)
    flagged = [flag.rank for flag in phase_spread(phase).rank_stragglers]
    shown = ", ".join(map(str, flagged[:16])) + (" ..." if len(flagged) > 16 else "")
    title = f"{phase.name}: {count} ranks by rate (stragglers: {shown or 'none'})"
    lowest, highest = edges[0] / scale, edges[-1] / scale
    middle = (lowest + highest) / 2
    if middle > 0 and (highest - lowest) / middle < EQUAL_RANKS:
        # Bins narrower than 3 significant digits tell apart would be ticked "0.15762162":
        # one bar, an axis a few percent wide around it, and the spread said in words.
        figure = go.Figure(go.Bar(x=[middle], y=[sum(counts)], width=[middle * 0.01], name="ranks"))
        ticks = [middle * f for f in (0.98, 0.99, 1.0, 1.01, 1.02)]
        figure.update_xaxes(
            range=[middle * 0.975, middle * 1.025],
            tickvals=ticks,
            ticktext=[significant(t) for t in ticks],
        )
        title += f"; all ranks within {significant(max((highest - lowest) / middle * 100, 1e-9))} %"
    else:
        figure = go.Figure(
            go.Bar(
                x=[(low + high) / 2 / scale for low, high in pairwise(edges)],
                y=counts,
                width=[(high - low) / scale for low, high in pairwise(edges)],
                hovertext=[
                    f"{low / scale:.4g} to {high / scale:.4g} {phase.unit}"
                    for low, high in pairwise(edges)
                ],
                name="ranks",
            )
        )
    figure.update_layout(
        title=title,
        xaxis_title=f"{phase.unit} per rank",
        yaxis_title="ranks",
        height=300,
        **_LAYOUT,
    )
    return figure
