"""`ioscore report`: a summary table and a self-contained HTML report of one run.

* ``summary.py``: one ``SummaryRow`` per phase (score, time, rank spread, tail, stragglers)
  and its plain-text table.
* ``charts.py``: plotly figures (time-resolved throughput, per-rank rates, latency).
* ``html.py``: the HTML page, plotly.js embedded once so it opens offline.
"""

from ioscore.report.html import render_html
from ioscore.report.summary import SummaryRow, format_table, summary_rows

__all__ = ["SummaryRow", "format_table", "render_html", "summary_rows"]
