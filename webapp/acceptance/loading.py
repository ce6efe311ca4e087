"""An uploaded results directory -> the rows the service keeps, through the results library's
acceptance loader (``ioscore.acceptance.results``: the one owner of how result.json becomes
tests, operations, statistics and target verdicts; the CLI's report uses the same).

The service adds only its bounds for synchronous intake and the display units it stores:
GiB/s for bandwidth (the site's unit, as in the IO500 lists) and ops/s for rates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from django.utils.dateparse import parse_datetime

from ioscore.acceptance import results as library
from ioscore.acceptance.modality import operation_hints
from ioscore.acceptance.report import PLAN_FILE, AcceptanceReport, build_report
from ioscore.acceptance.targets import BANDWIDTH, UNITS, Target, TargetError
from ioscore.results import ResultFormatError
from submissions.intake import IntakeError

RESULT_NAME = "result.json"
REPORT_NAME = "report.html"
MAX_RESULT_FILES = 500  # launches per upload: a plan is tens of tests, not thousands
MAX_RESULT_BYTES = 64 << 20  # one result.json (the library's own bound is the same)
# All result.json files of one upload, parsed in the request: parsing time and memory grow
# with the bytes, so this bounds the time and memory an upload takes of one web thread
# (bench/ numbers in the commit that set it).
MAX_TOTAL_RESULT_BYTES = 64 << 20

# Stored unit per quantity, and its factor from the library's canonical B/s or ops/s.
STORED_UNITS = {BANDWIDTH: ("GiB/s", float(1 << 30)), "rate": ("ops/s", 1.0)}


@dataclass
class LoadedOperation:
    operation: str
    label: str
    unit: str
    values: list[float]
    mean: float
    stddev: float
    minimum: float
    maximum: float
    hint: str = ""


@dataclass
class LoadedTest:
    name: str
    program: str
    commands: list[str]
    started: datetime | None
    ended: datetime | None
    procs: int
    nodes: int
    hosts: list[str]
    valid: bool
    invalid_reasons: list[str]
    notes: list[dict[str, str]]
    operations: list[LoadedOperation]


@dataclass
class LoadedTarget:
    test: str
    operation: str
    text: str
    threshold: float  # in the operation's stored unit
    unit: str
    at_least: bool
    measured: float | None
    passed: bool
    detail: str


@dataclass
class LoadedRun:
    plan_name: str = ""
    tests: list[LoadedTest] = field(default_factory=list)
    targets: list[LoadedTarget] = field(default_factory=list)
    report: Path | None = None

    @property
    def started(self) -> datetime | None:
        return min((t.started for t in self.tests if t.started), default=None)

    @property
    def finished(self) -> datetime | None:
        return max((t.ended for t in self.tests if t.ended), default=None)


def results_root(tree: Path) -> Path:
    """The results directory inside an unpacked upload: an archive of ``DIR/`` holds one
    top-level folder; an archive of the directory's contents holds the tests directly."""
    entries = [p for p in tree.iterdir() if not p.name.startswith(".")]
    if len(entries) == 1 and entries[0].is_dir() and not (tree / RESULT_NAME).exists():
        return entries[0]
    return tree


def _check_bounds(root: Path) -> None:
    total = 0
    for count, file in enumerate(root.rglob(RESULT_NAME), start=1):
        if count > MAX_RESULT_FILES:
            raise IntakeError("archive", f"more than {MAX_RESULT_FILES} result.json files")
        if file.is_symlink() or not file.is_file():
            continue
        size = file.stat().st_size
        total += size
        if size > MAX_RESULT_BYTES:
            where = file.relative_to(root)
            raise IntakeError("archive", f"{where}: larger than {MAX_RESULT_BYTES} bytes")
        if total > MAX_TOTAL_RESULT_BYTES:
            raise IntakeError(
                "archive", f"result.json files add up to more than {MAX_TOTAL_RESULT_BYTES} bytes"
            )


def load(tree: Path) -> LoadedRun:
    """Every acceptance test of the upload; ``IntakeError`` (400) names what is wrong."""
    root = results_root(tree)
    _check_bounds(root)
    try:
        built = build_report(root)
        _refuse_unreadable(built, tree)
        # A planned test that left no launch is no test row; its targets fail (below).
        run = LoadedRun(tests=[_test(entry.test) for entry in built.tests if entry.test.launches])
        _unique_names(run.tests)
        run.targets = _targets(built)
    except ResultFormatError as exc:
        if "no acceptance result.json" in exc.reason:  # say what the files were instead
            raise IntakeError("archive", _relative(_why_none(root), tree)) from None
        raise IntakeError("archive", _relative(str(exc), tree)) from None
    except TargetError as exc:
        raise IntakeError("archive", _relative(f"{PLAN_FILE}: {exc}", tree)) from None
    except (TypeError, AttributeError):
        # result.json is checked against its schema before anything reads it; plan.json's
        # fields are not (e.g. "targets": 5), and the library's report walks them as found.
        raise IntakeError(
            "archive", f"{PLAN_FILE}: not the plan `ioscore run PLAN` writes"
        ) from None
    if built.plan is not None:
        run.plan_name = str(built.plan.get("name") or "")[:200]
    report = root / REPORT_NAME
    if report.is_file() and not report.is_symlink():
        run.report = report
    return run


MAX_NAMED_UNREADABLE = 3


def _unique_names(tests: list[LoadedTest]) -> None:
    """Names cut to the column's 200 characters stay distinct (``name~2``, ...)."""
    seen: set[str] = set()
    for test in tests:
        name, number = test.name, 1
        while name in seen:
            number += 1
            name = f"{test.name[: 200 - len(str(number)) - 1]}~{number}"
        test.name = name
        seen.add(name)


def _refuse_unreadable(built: AcceptanceReport, tree: Path) -> None:
    """The history keeps whole runs only: a launch the library could not read (broken,
    hostile or aborted) is named, all of them up to a few, instead of being left out."""
    if not built.unreadable:
        return
    named = "; ".join(str(exc) for exc in built.unreadable[:MAX_NAMED_UNREADABLE])
    more = len(built.unreadable) - MAX_NAMED_UNREADABLE
    raise IntakeError(
        "archive",
        _relative(
            f"{len(built.unreadable)} unreadable launch(es): {named}"
            f"{f' (and {more} more)' if more > 0 else ''}. Fix them, or leave a failed launch "
            "out of the upload: its test then fails its targets for want of results",
            tree,
        ),
    )


def _why_none(root: Path) -> str:
    """Why nothing was accepted: the first result.json the library skipped, and why."""
    message = "no acceptance result.json (from ioscore-suite ior or mdtest) in the upload"
    for file in sorted(root.rglob(RESULT_NAME))[:1]:
        try:
            library.load_launch(file)
        except ResultFormatError as exc:
            return f"{message}: {exc}"
    return message


def _relative(message: str, tree: Path) -> str:
    """The library's message without the server's staging path."""
    return message.replace(str(tree) + "/", "").replace(str(tree), "")


def _stored(value: float, quantity: str) -> float:
    return value / STORED_UNITS[quantity][1]


def _when(text: str | None) -> datetime | None:
    return parse_datetime(text) if isinstance(text, str) else None


def _test(test: library.AcceptanceTest) -> LoadedTest:
    first = test.launches[0]
    operations = []
    for key, op in test.operations.items():
        stats = op.stats()
        if stats.n == 0 or not all(math.isfinite(v) for v in stats.values):
            continue
        unit, factor = STORED_UNITS[op.quantity]
        operations.append(
            LoadedOperation(
                operation=key,
                label=op.label[:60],
                unit=unit,
                values=[v / factor for v in stats.values],
                mean=stats.mean / factor,
                stddev=stats.stddev / factor,
                minimum=stats.min / factor,
                maximum=stats.max / factor,
                hint=_hint(op),
            )
        )
    return LoadedTest(
        name=test.id[:200],
        program=first.mode,
        commands=[launch.command or "" for launch in test.launches],
        started=_when(first.start),
        ended=_when(test.launches[-1].end),
        procs=max(launch.procs for launch in test.launches),
        nodes=max(launch.nodes for launch in test.launches),
        hosts=sorted({host for launch in test.launches for host in launch.hosts})[:1000],
        valid=test.valid,
        invalid_reasons=[r for launch in test.launches for r in launch.invalid_reasons],
        notes=[{"operation": n.operation, "level": n.level, "text": n.text} for n in test.notes],
        operations=operations,
    )


def _hint(op: library.Operation) -> str:
    """The library's multimodality hints (per-rank rates, per-iteration values)."""
    return "; ".join(hint.text for hint in operation_hints(op))[:2000]


def _targets(built: AcceptanceReport) -> list[LoadedTarget]:
    """The plan's targets as the library's report judges them (``build_report``: which
    targets apply to which test, ``evaluate``; a planned test without results fails them)."""
    out = []
    for entry in built.tests:
        for outcome in entry.outcomes:
            stats, unit = outcome.stats, outcome.target.unit
            measured = None
            if stats is not None and stats.n and math.isfinite(stats.mean):
                measured = _stored(stats.mean * UNITS[unit][1], outcome.target.quantity)
            detail = outcome.message
            out.append(_loaded(entry.test.id, outcome.target, measured, outcome.passed, detail))
    return out


def _loaded(
    test: str, target: Target, measured: float | None, passed: bool, detail: str
) -> LoadedTarget:
    """A verdict with the threshold in the unit the operation is stored in."""
    return LoadedTarget(
        test=test[:200],
        operation=target.operation,
        text=target.text,
        threshold=_stored(target.threshold_canonical, target.quantity),
        unit=STORED_UNITS[target.quantity][0],
        at_least=True,
        measured=measured,
        passed=passed,
        detail=detail[:2000],
    )
