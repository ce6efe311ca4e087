"""Chart data for the pages (plain dicts, serialised with ``json_script``; the browser code in
``static/js/rankings.js`` turns them into plotly traces) and small table helpers."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from django.db import connection
from django.db.models import QuerySet

from ioscore.results import (
    QUANTILE_KEYS,
    QUANTILE_LABELS,
    PhasePanel,
    RankSummary,
    median_without,
    phase_latency,
    phase_panels,
    phase_spread,
    rate_scale,
    work_rates,
)
from ioscore.results import PhaseResult as LibraryPhase
from portal.templatetags.formatting import seconds, with_unit
from submissions.models import PhaseResult, Submission
from submissions.run_rows import library_phase

from .models import ListStatistic, RankedList
from .phases import PHASES, unit


def list_best(ranked_list: RankedList) -> dict[str, float]:
    """The best value of each phase on the list, stored with it (``ListStatistic``)."""
    stored = dict(
        ListStatistic.objects.filter(ranked_list=ranked_list, metric__in=PHASES).values_list(
            "metric", "list_best"
        )
    )
    return {p: value for p in PHASES if (value := stored.get(p))}


def history_best(submissions: QuerySet[Submission]) -> dict[str, float]:
    """The best value of each phase among ``submissions``: one short walk down the
    (name, value) index per phase (migration rankings 0004) until a row of ``submissions``,
    not an aggregate over every phase row of every run.

    The 12 walks are one statement, a correlated subquery per phase name: 12 ORM queries
    (or a 12-way UNION) cost more to build in Python than PostgreSQL needs to run them."""
    # Unordered: an ORDER BY inside IN makes PostgreSQL materialise every visible run.
    inner, params = submissions.order_by().values("pk").query.sql_with_params()
    table = PhaseResult._meta.db_table
    sql = (
        f"SELECT p.name, (SELECT r.value FROM {table} r WHERE r.name = p.name"
        f" AND r.value IS NOT NULL AND r.submission_id IN ({inner})"
        " ORDER BY r.value DESC NULLS LAST LIMIT 1) FROM unnest(%s::text[]) AS p(name)"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, list(PHASES)])
        found = dict(cursor.fetchall())
    return {phase: value for phase in PHASES if (value := found.get(phase))}


def radar_payload(
    series: Sequence[tuple[str, dict[str, float]]],
    list_values: dict[str, float] | None,
    history_values: dict[str, float],
    list_label: str,
) -> dict[str, Any]:
    """Raw phase values per trace plus the two references the browser may normalise to:
    the context list's best (or, in compare, the best of the compared set) and history's."""
    if list_values is None:
        list_values = (
            {p: max((v.get(p) or 0.0) for _, v in series) for p in PHASES} if series else {}
        )
        list_label = list_label or "best of this comparison"
    return {
        "phases": list(PHASES),
        "units": [unit(p) for p in PHASES],
        "traces": [
            {"name": name, "values": [values.get(p) for p in PHASES]} for name, values in series
        ],
        "references": {
            "list": {"label": list_label, "values": [list_values.get(p) for p in PHASES]},
            "history": {
                "label": "best in history",
                "values": [history_values.get(p) for p in PHASES],
            },
        },
    }


def bars_payload(
    series: Sequence[tuple[str, dict[str, float]]], scores: Sequence[dict[str, float | None]]
) -> dict[str, Any]:
    """One chart per unit: the ior phases (GiB/s), the metadata phases (kIOPS), and the
    three scores side by side, each on its own labelled axis."""

    def group(phases: Sequence[str], title: str, group_unit: str) -> dict[str, Any]:
        return {
            "phases": list(phases),
            "title": title,
            "unit": group_unit,
            "traces": [
                {"name": name, "values": [values.get(p) for p in phases]} for name, values in series
            ],
        }

    return {
        "bw": group([p for p in PHASES if unit(p) == "GiB/s"], "bandwidth (GiB/s)", "GiB/s"),
        "md": group([p for p in PHASES if unit(p) == "kIOPS"], "metadata rate (kIOPS)", "kIOPS"),
        "scores": {
            "panels": [{"metric": m, "title": metric_label(m)} for m in ("score", "bw", "md")],
            "traces": [
                {"name": name, "values": [score.get(m) for m in ("score", "bw", "md")]}
                for (name, _values), score in zip(series, scores, strict=True)
            ],
        },
    }


def inside_run_payload(phases: Iterable[PhaseResult]) -> dict[str, Any]:
    """The "inside the run" part of a result page: one panel per phase (rate over time), work
    rate per rank and the latency percentiles, from each stored phase read once into the
    library's model (a summary-form phase of 1,000 hosts is 12,000 host aggregates to
    rebuild)."""
    library = [library_phase(row) for row in phases]
    return {
        "panels": panels_payload(library),
        "spread": spread_payload(library),
        "latency": latency_rows(library),
    }


def _axis_payload(unit: str, top: float, ticks: list[float]) -> dict[str, Any]:
    """An axis with its ticks labelled as the rest of the site prints numbers (three
    significant digits and the unit), so plotly never prints a raw 1e+06 or 994.45."""
    return {
        "unit": unit,
        "range": [0, top],
        "ticks": ticks,
        "labels": [with_unit(t, unit) if t else "0" for t in ticks],
    }


def panel_payload(panel: PhasePanel) -> dict[str, Any]:
    """One phase panel for ``static/js/phase-panels.js`` and the panel's caption."""
    rate_unit, time_unit = panel.rate_axis.unit, panel.time_axis.unit
    latency = panel.latency_axis
    return {
        "phase": panel.phase,
        "source": panel.source,
        "note": panel.note,
        "t": panel.t,
        "rate": panel.rate,
        "x": _axis_payload(time_unit, panel.time_axis.top, panel.time_axis.ticks),
        "y": _axis_payload(rate_unit, panel.rate_axis.top, panel.rate_axis.ticks),
        "y2": _axis_payload(latency.unit, latency.top, latency.ticks) if latency else None,
        "marks": [
            {"kind": m.kind, "at": m.at_shown, "text": m.text, "label": m.label}
            for m in panel.marks
        ],
        "stonewall_note": panel.stonewall_note,
        "hosts": [{"host": h.host, "rate": h.rate} for h in panel.hosts],
        "hosts_not_drawn": panel.hosts_not_drawn,
        "p99_t": panel.p99_t,
        "p99": panel.p99,
        "peak": with_unit(panel.peak, rate_unit),
        "mean": with_unit(panel.mean, rate_unit),
        "duration": seconds(panel.duration_s),
    }


def panels_payload(phases: Iterable[LibraryPhase]) -> list[dict[str, Any]]:
    """A panel per phase that measured something over time (``ioscore.results.phase_panels``:
    the same panels as ``ioscore report``)."""
    return [panel_payload(panel) for panel in phase_panels(list(phases))]


def latency_rows(phases: Iterable[LibraryPhase]) -> list[dict[str, Any]]:
    """Latency percentiles per phase and operation, for the run page's table. Results with
    power-of-two buckets give p50/p90/p99 as a bucket's upper bound and no p99.9/p99.99."""
    rows = []
    for phase in phases:
        latency = phase_latency(phase)
        if latency is None or latency.ops == 0:
            continue
        rows.append(
            {
                "phase": phase.name,
                "op": latency.op or "",
                "ops": latency.ops,
                "values": [seconds(latency.quantiles[k]) for k in QUANTILE_KEYS],
                "max": seconds(latency.max),
                "log2": latency.layout == "log2",
            }
        )
    return rows


LATENCY_COLUMNS = [QUANTILE_LABELS[k] for k in QUANTILE_KEYS]


def spread_payload(phases: Iterable[LibraryPhase]) -> list[dict[str, Any]]:
    """Work rate per rank, per phase, with the library's stragglers
    (``ioscore.results.stragglers``: the rule ``ioscore report`` applies) and their reasons."""
    out = []
    for phase in phases:
        rates = work_rates(phase)
        rated = [r for r in phase.ranks if r.rank in rates]
        if not rated or max(rates.values()) <= 0:
            continue  # nothing measured per rank (e.g. the timestamp step, IO500 bash runs)
        spread = phase_spread(phase)
        scale = rate_scale(phase.unit)
        ordered = sorted(rates.values())  # the library's peers: every other rank
        out.append(
            {
                "phase": phase.name,
                "unit": phase.unit,
                "ranks": [r.rank for r in rated],
                "hosts": [r.host or "" for r in rated],
                "rate": [rates[r.rank] / scale for r in rated],
                "median": (spread.rate_median or 0.0) / scale,
                "summary": _summary_payload(phase.rank_summary, scale),
                "flags": [
                    {
                        "rank": f.rank,
                        "host": f.host or "",
                        "rate": rates[f.rank] / scale,
                        "peer_rate": _peer_median(phase, ordered, rates[f.rank]) / scale,
                        "reason": f.reason,
                    }
                    for f in spread.rank_stragglers
                ],
                "host_flags": [
                    {"host": f.host, "reason": f.reason} for f in spread.host_stragglers
                ],
            }
        )
    return out


def _peer_median(phase: LibraryPhase, ordered: list[float], rate: float) -> float:
    """The median a rank was judged against: of every other rank, or in the summary form the
    summary's median of all ranks (the library's rule, ``stragglers.rank_stragglers``)."""
    if phase.rank_summary is not None:
        return phase.rank_summary.quantiles.get("rate", {}).get("p50", 0.0)
    return median_without(ordered, rate)


def _summary_payload(summary: RankSummary | None, scale: float) -> dict[str, Any] | None:
    """A summary-form phase's distribution for the chart (a bounded payload at any rank
    count): the rate histogram and quantiles in the page's unit; None for a full-form phase."""
    if summary is None:
        return None
    rate = summary.quantiles.get("rate", {})
    return {
        "count": summary.count,
        "edges": [edge / scale for edge in summary.histogram_edges],
        "counts": summary.histogram_counts,
        "quantiles": {key: value / scale for key, value in rate.items()},
        "full_file": summary.full_file,  # where the run's archive keeps every rank, if known
    }


METRIC_UNITS = {"score": "", "bw": "GiB/s", "md": "kIOPS"}
METRIC_NAMES = {"score": "Score", "bw": "BW", "md": "MD"}


def metric_unit(metric: str) -> str:
    return METRIC_UNITS.get(metric, unit(metric) if metric in PHASES else "")


def metric_label(metric: str) -> str:
    """ "BW (GiB/s)", "mdtest-easy-write (kIOPS)", "Score": what an axis or a choice says."""
    name = METRIC_NAMES.get(metric, metric)
    return f"{name} ({metric_unit(metric)})" if metric_unit(metric) else name


def best_payload(
    sequence: list[str], best: dict[str, dict[str, Any]], gaps: dict[str, str]
) -> dict[str, Any]:
    """The best score, BW and MD of each release in ``sequence``; a release in ``gaps`` has
    None (plotly breaks the line there) and its reason, shown on the chart."""

    def values(key: str) -> list[float | None]:
        return [None if r in gaps else best.get(r, {}).get(key) for r in sequence]

    return {
        "releases": sequence,
        "gaps": [{"release": r, "reason": gaps[r]} for r in sequence if r in gaps],
        "panels": [
            {"metric": m, "title": metric_label(m), "values": values(f"best_{m}")}
            for m in ("score", "bw", "md")
        ],
    }


BOX_FIELDS = (
    "count",
    "not_drawn",
    "minimum",
    "q1",
    "median",
    "q3",
    "maximum",
    "best_submission",
    "best_name",
)


def distribution_payload(
    sequence: list[str], boxes: dict[str, ListStatistic], metric: str, gaps: dict[str, str]
) -> dict[str, Any]:
    """Per release, the box of the new entries' values (``ListStatistic``, stored with the
    list) and the best of them by name: a few numbers per release, never every value.
    Values <= 0 (failed phases) cannot sit on a log axis: they are counted (``not_drawn``)
    instead of stretching the axis to nonsense."""

    def box(release: str) -> dict[str, Any] | None:
        stat = boxes.get(release)
        if stat is None or not stat.count or release in gaps:
            return None
        return {
            "count": stat.count,
            "min": stat.minimum,
            "q1": stat.q1,
            "median": stat.median,
            "q3": stat.q3,
            "max": stat.maximum,
            "best": {"id": stat.best_submission_id, "name": stat.best_name},
        }

    drawn = {r: box(r) for r in sequence}
    return {
        "metric": metric,
        "unit": metric_unit(metric),
        "title": metric_label(metric),
        "releases": sequence,
        "boxes": [drawn[r] for r in sequence],
        "not_drawn": sum(boxes[r].not_drawn for r in sequence if r in boxes),
        "gaps": [
            {"release": r, "reason": gaps.get(r, "no new entries")}
            for r in sequence
            if drawn[r] is None
        ],
    }


def submission_label(submission: Submission) -> str:
    description = getattr(submission, "system_description", None)
    system = ""
    if description is not None and description.system:
        system = description.system
    elif submission.client_system_id:
        system = submission.client_system.name  # type: ignore[union-attr]
    return f"#{submission.pk} {system or submission.site.name} ({submission.release.acronym})"


def ratio_row(
    label: str,
    metric_unit: str,
    subs: Sequence[Submission],
    baseline: Submission | None,
    value_of: Callable[[Submission], float | None],
) -> dict[str, Any]:
    base = value_of(baseline) if baseline is not None else None
    cells = []
    for sub in subs:
        value = value_of(sub)
        ratio = value / base if value is not None and base else None
        cells.append({"value": value, "ratio": ratio})
    return {"label": label, "unit": metric_unit, "cells": cells}


DESCRIPTION_FIELDS: tuple[tuple[str, str], ...] = (
    ("institution", "Institution"),
    ("system", "System"),
    ("storage_vendor", "Storage vendor"),
    ("fs_type", "FS type"),
    ("fs_name", "FS name"),
    ("fs_version", "FS version"),
    ("client_nodes", "Client nodes"),
    ("procs_per_node", "Procs per node"),
    ("total_procs", "Total procs"),
    ("client_os", "Client OS"),
    ("client_os_version", "Client OS version"),
    ("client_kernel", "Client kernel"),
    ("md_nodes", "Metadata servers"),
    ("md_devices", "Metadata devices"),
    ("md_media_type", "Metadata media"),
    ("md_interface", "Metadata interface"),
    ("md_network", "Metadata network"),
    ("md_software_version", "Metadata software"),
    ("ds_nodes", "Data servers"),
    ("ds_devices", "Data devices"),
    ("ds_media_type", "Data media"),
    ("ds_interface", "Data interface"),
    ("ds_network", "Data network"),
    ("ds_software_version", "Data software"),
    ("storage_capacity_bytes", "Storage capacity (bytes)"),
    ("client_network_bw", "Client network (bytes/s)"),
    ("server_network_bw", "Server network (bytes/s)"),
)


def description_diff(subs: Sequence[Submission]) -> list[dict[str, Any]]:
    """System description fields side by side; ``differs`` marks rows that are not equal."""
    descriptions = [getattr(s, "system_description", None) for s in subs]
    rows = []
    for name, label in DESCRIPTION_FIELDS:
        values = [getattr(d, name) if d is not None else None for d in descriptions]
        if all(v in (None, "") for v in values):
            continue
        rows.append({"label": label, "values": values, "differs": len(set(values)) > 1})
    return rows
