"""`ioscore validate DIR|ARCHIVE [--release SC25] [--upload] [--json]`.

`--upload` checks the path as the service will check an upload of it: also the job script and
the job output (LEADERBOARD-RULES §9.3), which `ioscore upload` always requires.
Exit status: 0 valid, 1 invalid, 2 unreadable (or an unknown release).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ioscore.results import (
    CheckContext,
    Issue,
    ResultFormatError,
    RunResult,
    Severity,
    check,
    get_release,
    is_valid,
    job_file_issues,
    load_path,
    recompute_scores,
)
from ioscore.results.archive import unpacked

EXIT_VALID, EXIT_INVALID, EXIT_UNREADABLE = 0, 1, 2


def add_parser(sub: Any) -> None:
    parser = sub.add_parser("validate", help="check a result directory or archive")
    parser.add_argument("path", type=Path, metavar="DIR|ARCHIVE")
    add_context_arguments(parser)
    parser.add_argument(
        "--upload",
        action="store_true",
        help="check it as an upload: also require the job script and job output",
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(handler=handle)


def add_context_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--release", help="release acronym, e.g. SC25 (checks version, dates)")
    parser.add_argument(
        "--target-list",
        help="production | research | 10-node-production | 10-node-research | scc",
    )
    parser.add_argument("--nodes", type=int, help="declared client nodes")
    parser.add_argument("--ppn", type=int, help="declared processes per node")
    parser.add_argument("--scc", action="store_true", default=None, help="SCC rules (30 s)")
    parser.add_argument(
        "--fs-family",
        help="declared file-system family (Lustre, DAOS, ...): the config's API must fit it",
    )


def context_from_args(args: argparse.Namespace) -> CheckContext:
    """Raises KeyError for an unknown release (reported by the caller)."""
    release = get_release(args.release) if args.release else None
    return CheckContext(
        release=release,
        target_list=args.target_list,
        client_nodes=args.nodes,
        ppn=args.ppn,
        scc=args.scc,
        fs_family=args.fs_family,
    )


def issue_to_dict(issue: Issue) -> dict[str, Any]:
    data = asdict(issue)
    data["severity"] = issue.severity.value
    for key in ("expected", "actual"):
        if not isinstance(data[key], (str, int, float, bool, type(None), list, dict)):
            data[key] = str(data[key])
    return data


def run_report(run: RunResult, issues: list[Issue]) -> dict[str, Any]:
    scores = recompute_scores(run)
    return {
        "run_dir": run.run_dir,
        "format": run.format,
        "version": run.version,
        "mode": run.mode,
        "printed": asdict(run.printed) if run.printed else None,
        "recomputed": asdict(scores),
        "valid": is_valid(issues),
        "issues": [issue_to_dict(i) for i in issues],
    }


def _shown(value: Any) -> str:
    # Durations arrive with float noise (1.1301963329315186); six digits say it all.
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def _details(issue: dict[str, Any]) -> str:
    details = [
        f"{k} {_shown(issue[k])}" for k in ("expected", "actual") if issue.get(k) is not None
    ]
    return f" ({', '.join(details)})" if details else ""


def format_issue(issue: dict[str, Any]) -> str:
    """One line per issue: severity, rule, message, then expected/actual when known."""
    severity = str(issue.get("severity", "")).upper()
    return f"  {severity:8} {issue.get('rule')}: {issue.get('message')}{_details(issue)}"


SEVERITY_ORDER = tuple(level.value for level in Severity)  # most severe first
MARKER_RULE = "invalid-markers"


def _phase_of(issue: dict[str, Any]) -> str | None:
    """The phase an issue is about: its `phase`, or the "[phase]" ending an invalid marker's
    location ("marked invalid in <file> [phase]")."""
    if issue.get("phase"):
        return str(issue["phase"])
    message = str(issue.get("message") or "")
    if issue.get("rule") == MARKER_RULE and message.endswith("]") and " [" in message:
        return message[message.rindex(" [") + 2 : -1]
    return None


def _format_phase(phase: str, issues: list[dict[str, Any]]) -> str:
    """The issues about one phase on one line, the invalid markers of a file merged."""
    severity = min(
        (str(i.get("severity")) for i in issues),
        key=lambda s: SEVERITY_ORDER.index(s) if s in SEVERITY_ORDER else len(SEVERITY_ORDER),
    )
    parts: list[str] = []
    markers: dict[str, list[str]] = {}  # location -> marker texts
    for issue in issues:
        if issue.get("rule") == MARKER_RULE and issue.get("actual") is not None:
            where = str(issue.get("message")).removesuffix(f" [{phase}]")
            if where not in markers:
                markers[where] = []
                parts.append(where)  # placeholder, filled below
            markers[where].append(str(issue["actual"]))
        else:
            parts.append(f"{issue.get('rule')}: {issue.get('message')}{_details(issue)}")
    parts = [
        f"{MARKER_RULE}: {part}: {'; '.join(markers[part])}" if part in markers else part
        for part in parts
    ]
    return f"  {severity.upper():8} [{phase}] " + " | ".join(parts)


def issue_lines(issues: list[dict[str, Any]]) -> list[str]:
    """format_issue per issue, except that all issues about one phase share one line (a short
    write phase is one finding, not an invalid marker per check plus the runtime rule)."""
    groups: list[tuple[str | None, list[dict[str, Any]]]] = []
    by_phase: dict[str, list[dict[str, Any]]] = {}
    for issue in issues:
        phase = _phase_of(issue)
        if phase is None:
            groups.append((None, [issue]))
        elif phase in by_phase:
            by_phase[phase].append(issue)
        else:
            by_phase[phase] = [issue]
            groups.append((phase, by_phase[phase]))
    return [
        _format_phase(phase, group) if phase and len(group) > 1 else format_issue(group[0])
        for phase, group in groups
    ]


def validate_path(
    path: Path, context: CheckContext, *, as_upload: bool = False
) -> tuple[list[dict[str, Any]], bool]:
    """Load and check every run; raises ResultFormatError when something is unreadable.

    as_upload: the checks of the whole upload (job script and output anywhere in it) are
    added to every run's issues, as the service will add them.
    """
    upload_issues: list[Issue] = []
    if as_upload:
        with unpacked(path) as root:
            upload_issues = job_file_issues(root)
    reports = []
    all_valid = True
    for run in load_path(path):
        issues = [*check(run, context), *upload_issues]
        all_valid = all_valid and is_valid(issues)
        reports.append(run_report(run, issues))
    return reports, all_valid


def handle(args: argparse.Namespace) -> int:
    try:
        context = context_from_args(args)
    except KeyError as exc:
        print(f"ioscore validate: {exc.args[0]}", file=sys.stderr)
        return EXIT_UNREADABLE
    try:
        reports, valid = validate_path(args.path, context, as_upload=args.upload)
    except ResultFormatError as exc:
        if args.json:
            print(json.dumps({"valid": False, "error": str(exc), "runs": []}, indent=2))
        print(f"ioscore validate: unreadable: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    if args.json:
        print(json.dumps({"valid": valid, "runs": reports}, indent=2, default=str))
    else:
        for report in reports:
            printed = report["printed"]["total"] if report["printed"] else None
            print(
                f"{report['run_dir']}: {report['format']} version={report['version']!r} "
                f"TOTAL printed={printed} recomputed={report['recomputed']['total']:.6f} -> "
                f"{'VALID' if report['valid'] else 'INVALID'}"
            )
            for line in issue_lines(report["issues"]):
                print(line)
    return EXIT_VALID if valid else EXIT_INVALID
