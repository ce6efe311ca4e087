"""`ioscore report RESULT_DIR [--html FILE] [--json] [--system FILE]`: phase table, rank
spread, stragglers; with `--system`, each bandwidth against what the described hardware can
carry (the service's `hardware-plausible` rule, with its arithmetic).

Prints the summary table (or JSON with --json) and writes a self-contained HTML report
(default RESULT_DIR/report.html). Exit status: 0 written, 2 unreadable input or unwritable
output (one line on stderr, never a traceback).

An acceptance results directory (written by `ioscore run PLAN.toml`, or any directory holding
`ioscore-suite ior|mdtest` result.json files) gets the acceptance report instead: pass/fail
per target with its uncertainty, per test; exit status 1 when a target fails.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ioscore import system_description
from ioscore.acceptance.modality import operation_hints
from ioscore.acceptance.report import (
    PLAN_FILE,
    AcceptanceReport,
    build_report,
    error_findings,
    launch_of,
    plausibility_dict,
    report_dict,
    server_findings,
)
from ioscore.acceptance.results import PASS_RULE
from ioscore.report import format_table, render_html, summary_rows
from ioscore.report.acceptance_html import render_acceptance_html
from ioscore.report.hardware import hardware_lines
from ioscore.report.html import NO_RANK_DATA
from ioscore.report.summary import has_rank_data
from ioscore.results import (
    ResultFormatError,
    RunResult,
    find_runs,
    load_run,
    plausibility_summary,
    run_findings,
)
from ioscore.results.latency import format_latency_table, phase_latency
from ioscore.results.parse_rankcsv import attach_rank_csvs

EXIT_OK, EXIT_TARGET_FAILED, EXIT_UNREADABLE = 0, 1, 2


def add_parser(sub: Any) -> None:
    parser = sub.add_parser("report", help="summary table and HTML report of one run")
    parser.add_argument("result_dir", type=Path, metavar="RESULT_DIR")
    parser.add_argument("--html", type=Path, help="HTML output (default RESULT_DIR/report.html)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument(
        "--system",
        type=Path,
        metavar="FILE",
        help="system description (ioscore-system/1 JSON, as `ioscore sysinfo` writes and "
        "`ioscore upload --system` sends): compare each bandwidth with its hardware",
    )
    parser.set_defaults(handler=handle)


class DescriptionError(Exception):
    """The --system file cannot be used; the message says why, naming the file."""


def load_description(path: Path) -> dict[str, Any]:
    """The system description in ``path``, checked against the schema the service uses."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise DescriptionError(f"--system {path}: cannot read: {reason}") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise DescriptionError(f"--system {path}: not JSON: {exc}") from None
    problems = system_description.validate(data)
    if problems:
        shown = "; ".join(str(p) for p in problems[:5])
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        raise DescriptionError(f"--system {path}: not a valid system description: {shown}{more}")
    loaded: dict[str, Any] = data
    return loaded


def load_one(path: Path) -> tuple[RunResult, str | None]:
    """The run in `path`, or the newest run below it (with a note naming the others); an
    IO500-format run gets its per-rank CSVs (``<phase>.csv``) as rank data."""
    if not path.is_dir():
        raise ResultFormatError(path, "not a directory")
    runs = find_runs(path)
    if not runs:
        raise ResultFormatError(path, "no result.json or result_summary.txt in this directory")
    note = None
    if path in runs or len(runs) == 1:
        chosen = path if path in runs else runs[0]
    else:
        chosen = sorted(runs)[-1]
        note = f"{len(runs)} runs below {path}; reporting the newest, {chosen}"
    run = load_run(chosen)
    if run.format != "ioscore-json":
        attach_rank_csvs(run, Path(run.run_dir or chosen))
    return run, note


def handle_acceptance(args: argparse.Namespace, report: AcceptanceReport) -> int:
    target = args.html if args.html is not None else report.root / "report.html"
    try:
        target.write_text(render_acceptance_html(report), encoding="utf-8")
    except OSError as exc:
        print(f"ioscore report: cannot write {target}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    status = EXIT_TARGET_FAILED if report.failed else EXIT_OK
    if args.json:
        print(json.dumps({**report_dict(report), "html": str(target)}, indent=2))
        return status
    for problem in report.unreadable:
        print(f"left out, unreadable: {problem}")
    for test in report.tests:
        verdict = "PASS" if test.passed else "FAIL"
        print(f"{verdict} {test.test.id}")
        for outcome in test.outcomes:
            print(f"  {outcome.message}")
        for key, op in test.test.operations.items():
            unit, scale = ("MiB/s", float(1 << 20)) if op.unit == "B/s" else (op.unit, 1.0)
            stats = op.stats().scaled(1 / scale)
            print(
                f"  {key:<12} mean {stats.mean:,.2f} {unit} ± {stats.stddev:,.2f} "
                f"(min {stats.min:,.2f}, max {stats.max:,.2f}, n={stats.n})"
            )
            if not op.valid:
                reasons = [r for it in op.iterations for r in it.phase.invalid_reasons]
                print(f"  {key} INVALID: {'; '.join(dict.fromkeys(reasons))}")
            for hint in operation_hints(op):
                print(f"    multimodal: {hint.text}")
            launch = launch_of(test.test, op)
            for found in server_findings(op, launch):
                if found["slow"]:
                    print(f"    slow storage server {found['server']}: {found['slow']}")
            for errors in error_findings(op, launch):
                print(f"    I/O errors per storage server (iteration {errors['iteration']}):")
                for failed in errors["failed"]:
                    held = ", ".join(failed["servers"]) or "layout not recorded"
                    print(
                        f"      rank {failed['rank']} ({failed['host']}), file of rank "
                        f"{failed['data_rank']} on {held}: {failed['error']}"
                    )
                blame = errors["suspect"] or "no single server"
                print(f"      failed server: {blame} ({errors['reason']})")
    hardware = plausibility_dict(report)
    if hardware is not None:
        print("\n".join(hardware_lines(hardware, report.description_source)))
    print(f"{report.targets - report.failed} of {report.targets} targets pass ({PASS_RULE})")
    print(f"HTML report: {target}")
    return status


def acceptance_report(path: Path) -> AcceptanceReport | None:
    """The acceptance report of `path`, or None when it holds no acceptance launches."""
    if not path.is_dir():
        return None
    try:
        return build_report(path)
    except ResultFormatError as exc:
        if "no acceptance result.json" in exc.reason and not (path / PLAN_FILE).is_file():
            return None
        raise


def handle(args: argparse.Namespace) -> int:
    description = None
    if args.system is not None:
        try:
            description = load_description(args.system)
        except DescriptionError as exc:
            print(f"ioscore report: {exc}", file=sys.stderr)
            return EXIT_UNREADABLE
    try:
        acceptance = acceptance_report(args.result_dir)
    except ResultFormatError as exc:
        print(f"ioscore report: unreadable: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    if acceptance is not None:
        acceptance.description = description
        acceptance.description_source = str(args.system or "")
        return handle_acceptance(args, acceptance)
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
    hardware = (
        None
        if description is None
        else plausibility_summary(description, run_findings(run, description))
    )
    try:
        target.write_text(
            render_html(run, rows, None if hardware is None else (hardware, str(args.system))),
            encoding="utf-8",
        )
    except OSError as exc:
        print(f"ioscore report: cannot write {target}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    if args.json:
        document = {
            "run_dir": str(run_dir),
            "format": run.format,
            "per_rank_data": has_rank_data(rows),
            "html": str(target),
            "hardware": hardware,
            "phases": [row.to_dict() for row in rows],
            "latency": {
                phase.name: lat.to_dict()
                for phase in run.phases.values()
                if (lat := phase_latency(phase)) is not None
            },
        }
        print(json.dumps(document, indent=2))
        return EXIT_OK
    print(f"{run_dir}: {run.format} version={run.version!r}")
    print(format_table(rows))
    latency = format_latency_table(list(run.phases.values()))
    if latency:
        print(f"\noperation latency (merged over ranks)\n{latency}")
    if not has_rank_data(rows):
        print(NO_RANK_DATA)
    if hardware is not None:
        print("\n".join(hardware_lines(hardware, str(args.system))))
    print(f"HTML report: {target}")
    return EXIT_OK
