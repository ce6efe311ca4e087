"""The report's "Against the declared hardware" part (`ioscore report --system FILE`): the
ceilings the system description gives, with their arithmetic, and each finding, in text and
HTML, for IO500 runs and acceptance runs alike (``ioscore.results.plausibility_summary``)."""

from __future__ import annotations

import html
from typing import Any

BEYOND = "beyond-hardware"


def hardware_lines(hardware: dict[str, Any], source: str) -> list[str]:
    lines = [f"against the declared hardware ({source}):"]
    lines += [f"  {c['name']}: {c['arithmetic']} = {c['rate']}" for c in hardware["ceilings"]]
    if not hardware["ceilings"]:
        lines.append("  the description declares no network or device speed: nothing to compare")
    for finding in hardware["findings"]:
        word = "WARNING" if finding["kind"] == BEYOND else "note"
        lines.append(f"  {word}: {finding['message']}")
    if hardware["ceilings"] and not hardware["findings"]:
        lines.append("  every bandwidth is within what the declared hardware can carry")
    return lines


def hardware_html(hardware: dict[str, Any], source: str) -> str:
    rows = "".join(
        f"<tr><td>{html.escape(c['name'])}</td><td>{html.escape(c['arithmetic'])}</td>"
        f'<td class="num">{html.escape(c["rate"])}</td></tr>'
        for c in hardware["ceilings"]
    )
    out = [
        '<h2 id="hardware">Against the declared hardware</h2>',
        f'<p class="meta">System description: {html.escape(source)}. No phase can move data '
        "faster than the client nodes' links together, the storage servers' links together or "
        "the storage devices together.</p>",
        "<table><tr><th>Ceiling</th><th>From the description</th><th>Can carry</th></tr>"
        f"{rows}</table>"
        if rows
        else '<p class="note">The description declares no network or device speed.</p>',
    ]
    for finding in hardware["findings"]:
        beyond = finding["kind"] == BEYOND
        word = "<strong>Warning</strong>" if beyond else "Note"
        out.append(
            f'<p class="note" data-hardware="{html.escape(finding["kind"])}">'
            f"{word}: {html.escape(finding['message'])}</p>"
        )
    if rows and not hardware["findings"]:
        out.append('<p class="meta">Every bandwidth is within what the hardware can carry.</p>')
    return "\n".join(out)
