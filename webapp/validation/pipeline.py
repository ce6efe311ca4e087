"""What one validation run computes, without touching the database.

``evaluate(archive, sandbox, context)`` unpacks the archive safely into ``sandbox``, selects the
run, parses and checks it with ``ioscore.results``, and adds the archive- and metadata-level checks
the service owns (LEADERBOARD-RULES §9: 1-3, 19, 20). The Celery task stores the ``Outcome``
atomically.
"""

from __future__ import annotations

import logging
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ioscore.results import (
    CheckContext,
    Issue,
    ResultFormatError,
    RunResult,
    Scores,
    Severity,
    check,
    find_runs,
    job_file_issues,
    load_run,
    recompute_scores,
    storable_text,
)
from submissions import archive_safety, questionnaire, system_description
from submissions.releases import to_library
from submissions.run_rows import bounded_run, json_safe

log = logging.getLogger(__name__)
# Column widths of the rows a run is stored in (submissions.models), checked before storing.
INT32_MAX = 2**31 - 1


@dataclass
class IssueRow:
    rule: str
    severity: str  # a Severity's value (the library's levels, stored as text)
    message: str
    expected: Any = None
    actual: Any = None
    phase: str = ""

    def __post_init__(self) -> None:
        self.severity = Severity(self.severity).value  # an unknown level is a bug: ValueError


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
    run: RunResult | None = None
    scores: Scores | None = None
    run_dir: str = ""
    fatal: str = ""  # the archive could not be used at all

    @property
    def blocking(self) -> bool:
        return any(issue.severity == Severity.INVALID for issue in self.issues)


def _row_from_library(issue: Issue) -> IssueRow:
    """An ``ioscore.results`` Issue as stored (``scrubbed`` takes server paths out)."""
    return IssueRow(
        rule=issue.rule,
        severity=issue.severity.value,
        message=str(issue.message),
        expected=json_safe(issue.expected),
        actual=json_safe(issue.actual),
        phase=issue.phase or "",
    )


def _metadata_issues(ctx: Context) -> list[IssueRow]:
    issues: list[IssueRow] = []
    if ctx.system is None:
        issues.append(
            IssueRow(
                "system-description",
                Severity.INVALID,
                "no system description was submitted; every upload needs one",
            )
        )
    else:
        for problem in system_description.validate(ctx.system)[:50]:
            issues.append(
                IssueRow("system-description", Severity.INVALID, str(problem), actual=problem.path)
            )
    if ctx.questionnaire is None:
        issues.append(
            IssueRow(
                "questionnaire", Severity.INVALID, "no reproducibility questionnaire was submitted"
            )
        )
    else:
        for key, message in questionnaire.problems(ctx.questionnaire):
            issues.append(IssueRow("questionnaire", Severity.INVALID, message, actual=key or None))
    return issues


def _library_context(ctx: Context) -> CheckContext:
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
        # the arithmetic needs a description the schema accepted
        system=ctx.system
        if isinstance(ctx.system, dict) and not system_description.validate(ctx.system)
        else None,
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
        issue.expected = json_safe(issue.expected)
        issue.actual = json_safe(issue.actual)
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
        outcome.issues.append(IssueRow("archive-safety", Severity.INVALID, outcome.fatal))
        return outcome
    except FileNotFoundError:
        # Other OSErrors (a full disk) propagate: the task retries them.
        outcome.fatal = "the stored archive is missing; please upload it again"
        outcome.issues.append(IssueRow("archive-missing", Severity.INVALID, outcome.fatal))
        return outcome
    outcome.issues += [_row_from_library(issue) for issue in job_file_issues(root)]
    outcome.issues += _metadata_issues(ctx)

    try:
        runs = find_runs(root)
    except ResultFormatError as exc:
        runs = []
        outcome.issues.append(IssueRow("run-selection", Severity.INVALID, str(exc)))
    relative = [str(Path(r).relative_to(root)) for r in runs]
    if ctx.run_dir:
        chosen = [r for r, rel in zip(runs, relative, strict=True) if rel == ctx.run_dir]
    else:
        chosen = list(runs)
    if not runs:
        outcome.issues.append(
            IssueRow(
                "run-selection",
                Severity.INVALID,
                "no run found: no directory with result_summary.txt or result.json",
            )
        )
        return outcome
    if len(chosen) != 1:
        outcome.issues.append(
            IssueRow(
                "run-selection",
                Severity.INVALID,
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
    except ResultFormatError as exc:
        outcome.issues.append(IssueRow("result-format", Severity.INVALID, str(exc)))
    except MemoryError:
        raise  # the memory limit: reported as such by validation.limited
    except Exception as exc:
        # A bug in a checker is not the submitter's fault, but the run cannot pass unchecked.
        log.exception("checks crashed on %s", chosen[0])
        outcome.issues.append(
            IssueRow(
                "checker-error",
                Severity.INVALID,
                f"the automatic checks failed unexpectedly ({type(exc).__name__}: {exc}); "
                "the committee can see this; please contact them",
            )
        )
    return outcome


def _check_run(outcome: Outcome, run_dir: Path, root: Path, ctx: Context) -> None:
    run = load_run(run_dir)
    for issue in check(run, _library_context(ctx)):
        outcome.issues.append(_row_from_library(issue))
    problem = unstorable(run, outcome.run_dir)
    if problem:
        outcome.issues.append(IssueRow("result-storage", Severity.INVALID, problem))
        return  # keep the issues; the run itself cannot be stored
    scores = recompute_scores(run)
    outcome.run = bounded_run(run)  # what is stored: the worker gets no more than that
    outcome.scores = scores if _finite_scores(scores) else None


def _finite_scores(scores: Scores) -> bool:
    return all(math.isfinite(v) for v in (scores.bw, scores.md, scores.total))


def unstorable(run: RunResult, run_dir: str) -> str | None:
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
