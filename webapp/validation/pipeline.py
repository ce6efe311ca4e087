"""What one validation run computes, without touching the database.

``evaluate(archive, sandbox, context)`` unpacks the archive safely into ``sandbox``, selects
the run, parses and checks it with ``ioscore.results``, and adds the archive- and
metadata-level checks the service owns (spec §9: 1-3, 19, 20). The Celery task stores the
``Outcome`` atomically.
"""

from __future__ import annotations

import logging
import math
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from submissions import archive_safety, questionnaire, system_description

from . import results_api
from .results_api import storable_text

log = logging.getLogger(__name__)
# Column widths of the rows a run is stored in (submissions.models), checked before storing.
INT32_MAX = 2**31 - 1
INVALID = "invalid"
WARNING = "warning"
INFO = "info"


@dataclass
class IssueRow:
    rule: str
    severity: str
    message: str
    expected: Any = None
    actual: Any = None
    phase: str = ""


@dataclass
class Context:
    release: Any  # submissions.Release row
    target_list: str
    scc: bool
    system: dict[str, Any] | None
    questionnaire: dict[str, Any] | None
    run_dir: str = ""  # a run the submitter picked, relative to the archive root


@dataclass
class Outcome:
    issues: list[IssueRow] = field(default_factory=list)
    run: Any = None  # ioscore.results.RunResult
    scores: Any = None
    run_dir: str = ""
    fatal: str = ""  # the archive could not be used at all

    @property
    def blocking(self) -> bool:
        return any(issue.severity == INVALID for issue in self.issues)


def _json_safe(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)  # JSON has no inf/NaN
    if isinstance(value, str):
        return storable_text(value)
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    return str(value)


def _row_from_library(issue: Any) -> IssueRow:
    """An ``ioscore.results`` Issue as stored (``scrubbed`` takes server paths out)."""
    return IssueRow(
        rule=issue.rule,
        severity=getattr(issue.severity, "value", str(issue.severity)),
        message=str(issue.message),
        expected=_json_safe(issue.expected),
        actual=_json_safe(issue.actual),
        phase=issue.phase or "",
    )


def _metadata_issues(ctx: Context) -> list[IssueRow]:
    issues: list[IssueRow] = []
    if ctx.system is None:
        issues.append(
            IssueRow(
                "system-description",
                INVALID,
                "no system description was submitted (spec §4 is required)",
            )
        )
    else:
        for problem in system_description.validate(ctx.system)[:50]:
            issues.append(
                IssueRow("system-description", INVALID, str(problem), actual=problem.path)
            )
    if ctx.questionnaire is None:
        issues.append(
            IssueRow("questionnaire", INVALID, "no reproducibility questionnaire was submitted")
        )
    else:
        for key, message in questionnaire.problems(ctx.questionnaire):
            issues.append(IssueRow("questionnaire", INVALID, message, actual=key or None))
    return issues


def _library_context(ctx: Context) -> Any:
    from ioscore.results import CheckContext
    from submissions.releases import to_library

    run = (ctx.system or {}).get("run") or {}
    nodes = run.get("client_nodes") if isinstance(run.get("client_nodes"), int) else None
    ppn = run.get("procs_per_node") if isinstance(run.get("procs_per_node"), int) else None
    family = run.get("fs_family") if isinstance(run.get("fs_family"), str) else None
    return CheckContext(
        release=to_library(ctx.release),
        target_list=ctx.target_list,
        client_nodes=nodes,
        ppn=ppn,
        scc=ctx.scc,
        fs_family=family,
    )


def evaluate(archive: Path, sandbox: Path, ctx: Context) -> Outcome:
    """The outcome, with server paths taken out and every string storable."""
    outcome = _evaluate(archive, sandbox, ctx)
    return scrubbed(outcome, sandbox, archive)


def scrubbed(outcome: Outcome, sandbox: Path, archive: Path) -> Outcome:
    """Messages as the submitter may see them: paths inside the archive, no server paths."""
    root = sandbox / "archive"
    replacements = [
        (str(root) + os.sep, ""),
        (str(root), "."),
        (str(sandbox), "(sandbox)"),
        (str(archive), "the stored archive"),
        (str(archive.parent), "(archives)"),
    ]

    def clean(text: str) -> str:
        for server_path, shown in replacements:
            text = text.replace(server_path, shown)
        return storable_text(text)

    for issue in outcome.issues:
        issue.message = clean(issue.message)
        issue.phase = clean(issue.phase)[:60]
        issue.expected = _json_safe(issue.expected)
        issue.actual = _json_safe(issue.actual)
        if isinstance(issue.actual, str):
            issue.actual = clean(issue.actual)
    outcome.fatal = clean(outcome.fatal)
    outcome.run_dir = storable_text(outcome.run_dir)
    return outcome


def _evaluate(archive: Path, sandbox: Path, ctx: Context) -> Outcome:
    outcome = Outcome()
    root = sandbox / "archive"
    limits = archive_safety.Limits.from_settings()
    try:
        archive_safety.extract(archive, root, limits)
    except archive_safety.UnsafeArchive as exc:
        outcome.fatal = f"archive rejected: {exc}"
        outcome.issues.append(IssueRow("archive-safety", INVALID, outcome.fatal))
        return outcome
    except FileNotFoundError:
        # Other OSErrors (a full disk) propagate: the task retries them.
        outcome.fatal = "the stored archive is missing; please upload it again"
        outcome.issues.append(IssueRow("archive-missing", INVALID, outcome.fatal))
        return outcome
    job_file_issues = results_api.library_function("job_file_issues")
    outcome.issues += [_row_from_library(issue) for issue in job_file_issues(root)]
    outcome.issues += _metadata_issues(ctx)

    format_error = results_api.result_format_error()
    try:
        runs = results_api.find_runs(root)
    except format_error as exc:
        runs = []
        outcome.issues.append(IssueRow("run-selection", INVALID, str(exc)))
    relative = [str(Path(r).relative_to(root)) for r in runs]
    if ctx.run_dir:
        chosen = [r for r, rel in zip(runs, relative, strict=True) if rel == ctx.run_dir]
    else:
        chosen = list(runs)
    if not runs:
        outcome.issues.append(
            IssueRow(
                "run-selection",
                INVALID,
                "no run found: no directory with result_summary.txt or result.json",
            )
        )
        return outcome
    if len(chosen) != 1:
        outcome.issues.append(
            IssueRow(
                "run-selection",
                INVALID,
                "several runs found; pick one"
                if not ctx.run_dir
                else f"the selected run {ctx.run_dir!r} is not in the archive",
                expected="exactly one run directory",
                actual=relative,
            )
        )
        return outcome
    outcome.run_dir = str(Path(chosen[0]).relative_to(root))
    try:
        _check_run(outcome, Path(chosen[0]), root, ctx)
    except format_error as exc:
        outcome.issues.append(IssueRow("result-format", INVALID, str(exc)))
    except MemoryError:
        raise  # the memory limit: reported as such by validation.limited
    except Exception as exc:
        # A bug in a checker is not the submitter's fault, but the run cannot pass unchecked.
        log.exception("checks crashed on %s", chosen[0])
        outcome.issues.append(
            IssueRow(
                "checker-error",
                INVALID,
                f"the automatic checks failed unexpectedly ({type(exc).__name__}: {exc}); "
                "the committee can see this; please contact them",
            )
        )
    return outcome


def _check_run(outcome: Outcome, run_dir: Path, root: Path, ctx: Context) -> None:
    run = results_api.load_run(run_dir)
    check = results_api.library_function("check")
    for issue in check(run, _library_context(ctx)):
        outcome.issues.append(_row_from_library(issue))
    problem = unstorable(run, outcome.run_dir)
    if problem:
        outcome.issues.append(IssueRow("result-storage", INVALID, problem))
        return  # keep the issues; the run itself cannot be stored
    scores = results_api.recompute_scores(run)
    outcome.run = run
    outcome.scores = scores if _finite_scores(scores) else None


def _finite_scores(scores: Any) -> bool:
    return all(math.isfinite(v) for v in (scores.bw, scores.md, scores.total))


def unstorable(run: Any, run_dir: str) -> str | None:
    """Why the run's summary does not fit the rows it is stored in, or None."""
    texts = [
        ("the run directory name", run_dir, 500),
        ("the format", run.format or "", 20),
        ("the version", run.version or "", 200),
        ("the mode", run.mode or "", 20),
        ("the config hash", run.config_hash or "", 100),
        ("the score hash", run.score_hash or "", 100),
    ]
    texts += [(f"phase name {name[:60]!r}", name, 60) for name in run.phases]
    texts += [(f"the unit of {p.name[:60]}", p.unit, 10) for p in run.phases.values()]
    for what, text, width in texts:
        if len(text) > width:
            return f"{what} is longer than {width} characters"
        if storable_text(text) != text:
            return f"{what} is not valid UTF-8 text"
    if len(run.phases) > 1000:
        return f"{len(run.phases)} phases (at most 1000)"
    if run.procs is not None and not 0 <= run.procs <= INT32_MAX:
        return f"procs = {run.procs} is out of range"
    for phase in run.phases.values():
        for value in (phase.value, phase.time, phase.score_txt):
            if value is not None and not math.isfinite(value):
                return f"{phase.name}: {value} is not a finite number"
    printed = [run.printed, run.printed_extended]
    if any(s is not None and not _finite_scores(s) for s in printed):
        return "a printed score is not a finite number"
    return None


def aware(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def phase_rows(run: Any) -> list[dict[str, Any]]:
    rows = []
    for order, (name, phase) in enumerate(run.phases.items()):
        rows.append(
            {
                "name": name,
                "order": order,
                "value": phase.value,
                "unit": phase.unit,
                "group": getattr(phase.group, "value", str(phase.group)),
                "time": phase.time,
                "valid": phase.valid,
                "invalid_reasons": list(phase.invalid_reasons),
                "score_txt": phase.score_txt,
                "extra": _json_safe(phase.extra),
                "ranks": [_json_safe(vars(rank)) for rank in phase.ranks],
                "timeseries": _json_safe(phase.timeseries),
            }
        )
    return rows
