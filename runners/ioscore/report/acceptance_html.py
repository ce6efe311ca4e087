"""The acceptance report as one self-contained HTML page (plotly.js inline once, no CDN).

Per test: the launches' command lines, pass/fail per target with the uncertainty, the
operations' statistics, what each number measured, multimodality hints, straggler findings,
then the charts the one-run report draws (time-resolved throughput, per-rank rates,
latency) for each launch, plus per-host bars.
"""

from __future__ import annotations

import html
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio

from ioscore.acceptance.report import AcceptanceReport, report_dict
from ioscore.acceptance.results import Launch
from ioscore.report.charts import all_figures, host_rate_figure
from ioscore.report.hardware import hardware_html
from ioscore.results.model import RunResult
from ioscore.results.stragglers import LATE_FRACTION, RATE_FRACTION

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 2px solid #ccc; }
h3 { font-size: 1.05em; margin-top: 1.4em; }
table { border-collapse: collapse; font-size: 0.9em; margin: 0.5em 0; }
th, td { padding: 0.25em 0.6em; border-bottom: 1px solid #ddd; text-align: right; }
th:first-child, td:first-child { text-align: left; }
td.text { text-align: left; }
.PASS { color: #fff; background: #2a7d2a; padding: 0.1em 0.5em; border-radius: 3px; }
.FAIL { color: #fff; background: #c62828; padding: 0.1em 0.5em; border-radius: 3px; }
.note { background: #fff6dd; padding: 0.4em 1em; border-left: 4px solid #e0b000; margin: 0.3em 0; }
pre { background: #f4f4f4; padding: 0.5em; white-space: pre-wrap; word-break: break-all; }
.meta { color: #555; }
"""


def _shown(value: float, quantity: str) -> str:
    if quantity == "bandwidth":
        return f"{value / (1 << 20):,.2f} MiB/s"
    return f"{value:,.1f} ops/s"


def _targets_table(test: dict[str, Any]) -> str:
    if not test["targets"]:
        return '<p class="meta">No targets for this test.</p>'
    rows = []
    for outcome in test["targets"]:
        verdict = "PASS" if outcome["passed"] else "FAIL"
        stats = outcome["stats"] or {}
        unit = outcome["target"]["unit"]
        cells = [
            f'<span class="{verdict}">{verdict}</span>',
            html.escape(outcome["target"]["text"]),
        ]
        if stats:
            cells += [
                f"{stats['mean']:,.4g} ± {stats['stddev']:,.3g} {html.escape(unit)}",
                f"{stats['min']:,.4g} .. {stats['max']:,.4g}",
                str(stats["n"]),
                "yes" if outcome["within_stddev"] else "no",
            ]
        else:
            cells += ["no results", "", "", ""]
        rows.append("<tr>" + "".join(f'<td class="text">{c}</td>' for c in cells) + "</tr>")
    head = "".join(
        f"<th>{h}</th>"
        for h in ("", "target", "mean ± stddev", "min .. max", "n", "margin within 1 stddev")
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _operations_table(test: dict[str, Any]) -> str:
    head = "".join(
        f"<th>{h}</th>" for h in ("operation", "part", "mean", "stddev", "min", "max", "n", "valid")
    )
    rows = []
    for op in test["operations"]:
        stats, quantity = op["stats"], op["quantity"]
        cells = [
            html.escape(op["label"]),
            html.escape(op["part"] or ""),
            _shown(stats["mean"], quantity),
            _shown(stats["stddev"], quantity),
            _shown(stats["min"], quantity),
            _shown(stats["max"], quantity),
            str(stats["n"]),
            "yes" if op["valid"] else "NO",
        ]
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _findings(test: dict[str, Any]) -> str:
    out = ["<h3>What each number measured</h3><ul>"]
    for op in test["operations"]:
        out.append(f"<li>{html.escape(op['measured'])}</li>")
        out += [f'<li class="note">{html.escape(n)}</li>' for n in op["notes"]]
    out.append("</ul>")
    unmatched = [
        n for n in test["notes"] if not any(n["text"] in op["notes"] for op in test["operations"])
    ]
    out += [
        f'<p class="note">{html.escape(n["operation"])}: {html.escape(n["text"])}</p>'
        for n in unmatched
    ]
    hints = [h for op in test["operations"] for h in op["multimodality"]]
    out.append("<h3>Multimodality</h3>")
    if hints:
        out += [f'<p class="note">{html.escape(h["text"])}</p>' for h in hints]
    else:
        out.append(
            '<p class="meta">No operation\'s per-rank rates or per-iteration values form '
            "separate groups (gap test: largest gap ≥ 2 &times; the wider group's range and ≥ 25 % "
            "of the median).</p>"
        )
    flags = [(op["label"], f) for op in test["operations"] for f in op["stragglers"]]
    out.append("<h3>Stragglers and imbalance</h3>")
    if flags:
        out.append("<ul>")
        for label, flag in flags:
            who = (
                f"rank {flag['rank']} ({flag.get('host')})"
                if "rank" in flag
                else (f"host {flag['host']} (ranks {', '.join(map(str, flag['ranks']))})")
            )
            out.append(
                f"<li>{html.escape(label)} iteration {flag['iteration']}: {html.escape(who)}: "
                f"{html.escape(flag['reason'])}</li>"
            )
        out.append("</ul>")
    else:
        out.append('<p class="meta">No straggler ranks or hosts.</p>')
    out.append(
        f'<p class="meta">Straggler rule (the library\'s): work rate below {RATE_FRACTION} &times; '
        f"the other ranks' median, or out of the main loop more than {LATE_FRACTION} &times; the "
        "phase time after them; hosts likewise on their ranks' mean rate.</p>"
    )
    out += _servers_section(test)
    out += _errors_section(test)
    return "\n".join(out)


def _servers_section(test: dict[str, Any]) -> list[str]:
    """Throughput per storage server, where `ioscore layout` recorded where the files are."""
    rows = [(op, found) for op in test["operations"] for found in op["servers"]]
    if not rows:
        return []
    out = [
        "<h3>Storage servers</h3>",
        "<table><tr><th>operation</th><th>iteration</th><th>server</th><th>ranks</th>"
        "<th>mean work rate of its ranks</th><th>finding</th></tr>",
    ]
    for op, found in rows:
        rate = found["mean_rate"] / (1 << 20) if op["unit"] == "B/s" else found["mean_rate"]
        unit = "MiB/s" if op["unit"] == "B/s" else op["unit"]
        out.append(
            f"<tr><td>{html.escape(op['label'])}</td><td>{found['iteration']}</td>"
            f"<td>{html.escape(found['server'])}</td><td>{len(found['ranks'])}</td>"
            f"<td>{rate:,.3g} {unit}</td><td>{html.escape(found['slow'] or '')}</td></tr>"
        )
    out.append("</table>")
    return out


def _errors_section(test: dict[str, Any]) -> list[str]:
    """I/O errors per storage server: the failed ranks, their files' servers, the one blamed."""
    rows = [(op, found) for op in test["operations"] for found in op["io_errors"]]
    if not rows:
        return []
    out = ["<h3>I/O errors per storage server</h3>"]
    for op, found in rows:
        blame = found["suspect"] or "no single server"
        out.append(
            f"<p>{html.escape(op['label'])}, iteration {found['iteration']}: "
            f"{len(found['failed'])} rank(s) failed; failed server: "
            f"<strong>{html.escape(blame)}</strong> ({html.escape(found['reason'])})</p>"
        )
        out.append(
            "<table><tr><th>rank</th><th>host</th><th>file of rank</th>"
            "<th>servers holding it</th><th>error</th></tr>"
        )
        for f in found["failed"]:
            held = ", ".join(f["servers"]) or "not probed"
            out.append(
                f"<tr><td>{f['rank']}</td><td>{html.escape(f['host'])}</td>"
                f"<td>{f['data_rank']}</td><td>{html.escape(held)}</td>"
                f"<td>{html.escape(f['error'])}</td></tr>"
            )
        out.append("</table>")
    return out


def _as_run(launch: Launch) -> RunResult:
    """A launch in the one-run report's model, so its charts are drawn by the same code."""
    phases = {it.phase.name: it.phase for op in launch.operations.values() for it in op.iterations}
    return RunResult(
        source=launch.source,
        format="ioscore-json",
        version=None,
        mode=launch.mode,
        phases=phases,
        printed=None,
        run_dir=str(launch.result_dir),
    )


def _figures(launch: Launch) -> list[tuple[str, go.Figure]]:
    figures = all_figures(_as_run(launch))
    for op in launch.operations.values():
        for it in op.iterations:
            figure = host_rate_figure(it.phase)
            if figure is not None:
                figures.append(("Rate per host", figure))
    return figures


def render_acceptance_html(report: AcceptanceReport) -> str:
    data = report_dict(report)
    title = f"ioscore acceptance report: {data['plan'] or report.root.name}"
    verdict = (
        f"{data['targets'] - data['failed']} of {data['targets']} targets pass"
        if data["targets"]
        else "no targets given"
    )
    sections = [
        f"<h1>{html.escape(title)}</h1>",
        f'<p class="meta">{html.escape(str(report.root))} · {len(data["tests"])} tests · '
        f"{html.escape(verdict)}</p>",
        f'<p class="meta">Rule: {html.escape(data["pass_rule"])}.</p>',
    ]
    sections += [
        f'<p class="note">Left out, unreadable: {html.escape(u["path"])}: '
        f"{html.escape(u['reason'])}</p>"
        for u in data["unreadable"]
    ]
    if data["hardware"] is not None:
        sections.append(hardware_html(data["hardware"], report.description_source))
    plotly_included = False
    for test_data, test in zip(data["tests"], report.tests, strict=True):
        badge = "PASS" if test_data["passed"] else "FAIL"
        sections.append(
            f'<h2 id="{html.escape(test_data["id"], quote=True)}">'
            f'<span class="{badge}">{badge}</span> {html.escape(test_data["id"])}</h2>'
        )
        for launch in test_data["launches"]:
            role = f"{launch['role']}: " if launch["role"] else ""
            sections.append(f"<pre>{html.escape(role + (launch['command'] or ''))}</pre>")
            if launch["invalid_reasons"]:
                reasons = html.escape("; ".join(launch["invalid_reasons"]))
                sections.append(f'<p class="note">invalid: {reasons}</p>')
        sections += [
            "<h3>Targets</h3>",
            _targets_table(test_data),
            "<h3>Operations</h3>",
            _operations_table(test_data),
            _findings(test_data),
        ]
        heading = None
        for launch in test.test.launches:
            for section, figure in _figures(launch):
                name = f"{section} ({launch.role or launch.result_dir.name})"
                if name != heading:
                    sections.append(f"<h3>{html.escape(name)}</h3>")
                    heading = name
                sections.append(
                    pio.to_html(figure, include_plotlyjs=not plotly_included, full_html=False)
                )
                plotly_included = True
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>"
        + "\n".join(sections)
        + "</body></html>\n"
    )
