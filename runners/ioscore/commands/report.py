"""`ioscore report RESULT_DIR [--html FILE] [--json]`: phase table, rank spread, stragglers.

Prints the summary table (or JSON with --json) and writes a self-contained HTML report
(default RESULT_DIR/report.html). Exit status: 0 written, 2 unreadable input or unwritable
output (one line on stderr, never a traceback).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ioscore.report import format_table, render_html, summary_rows
from ioscore.report.html import NO_RANK_DATA
from ioscore.report.summary import has_rank_data
from ioscore.results import ResultFormatError, RunResult, find_runs, load_run

EXIT_OK, EXIT_UNREADABLE = 0, 2


def add_parser(sub: Any) -> None:
    parser = sub.add_parser("report", help="summary table and HTML report of one run")
    parser.add_argument("result_dir", type=Path, metavar="RESULT_DIR")
    parser.add_argument("--html", type=Path, help="HTML output (default RESULT_DIR/report.html)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.set_defaults(handler=handle)


def load_one(path: Path) -> tuple[RunResult, str | None]:
    """The run in `path`, or the newest run below it (with a note naming the others)."""
    if not path.is_dir():
        raise ResultFormatError(path, "not a directory")
    runs = find_runs(path)
    if not runs:
        raise ResultFormatError(path, "no result.json or result_summary.txt in this directory")
    if path in runs or len(runs) == 1:
        return load_run(path if path in runs else runs[0]), None
    chosen = sorted(runs)[-1]
    return load_run(chosen), f"{len(runs)} runs below {path}; reporting the newest, {chosen}"


def handle(args: argparse.Namespace) -> int:
    try:
        run, note = load_one(args.result_dir)
    except ResultFormatError as exc:
        print(f"ioscore report: unreadable: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    if note:
        print(f"ioscore report: {note}", file=sys.stderr)
    rows = summary_rows(run)
    run_dir = Path(run.run_dir or args.result_dir)
    target = args.html if args.html is not None else run_dir / "report.html"
    try:
        target.write_text(render_html(run, rows), encoding="utf-8")
    except OSError as exc:
        print(f"ioscore report: cannot write {target}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    if args.json:
        document = {
            "run_dir": str(run_dir),
            "format": run.format,
            "per_rank_data": has_rank_data(rows),
            "html": str(target),
            "phases": [row.to_dict() for row in rows],
        }
        print(json.dumps(document, indent=2))
        return EXIT_OK
    print(f"{run_dir}: {run.format} version={run.version!r}")
    print(format_table(rows))
    if not has_rank_data(rows):
        print(NO_RANK_DATA)
    print(f"HTML report: {target}")
    return EXIT_OK
