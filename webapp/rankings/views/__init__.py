"""Public pages, one module per page: home and list index, ranked lists and their downloads,
the result page, compare and trends.

Views are thin: visibility comes from ``visibility``, list rows from ``listview``, chart data
from ``charts``; the templates render and ``static/js/rankings.js`` draws the plotly charts.
The URL table names the views through this package.
"""

from .compare import compare
from .home import home, list_index
from .lists import changelog, export_csv, export_json, ranked_list
from .result import io500_result, submission_archive, submission_page
from .run import run_status_page
from .trends import trends

__all__ = [
    "changelog",
    "compare",
    "export_csv",
    "export_json",
    "home",
    "io500_result",
    "list_index",
    "ranked_list",
    "run_status_page",
    "submission_archive",
    "submission_page",
    "trends",
]
