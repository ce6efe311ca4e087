"""Acceptance results: `ioscore-suite ior|mdtest` result.json -> typed tests with statistics.

Stable API (the CLI's report and the service both use it; keep it stable):

* ``load_launch(path) -> Launch``: one launch's result.json (a file or the directory holding
  it), mode "ior" or "mdtest"; ``ResultFormatError`` names the file and what is wrong.
* ``load_test(paths, test_id=None) -> AcceptanceTest``: launches that form one test (a write
  launch with -k and a later read launch are two parts of one test).
* ``find_tests(root) -> list[AcceptanceTest]``: every test below a results directory, grouped
  by the suite's ``acceptance_test.id`` when present, else by directory (``root/TEST/PART/``).
* ``AcceptanceTest.evaluate(targets) -> list[TargetOutcome]`` (also ``evaluate(test,
  targets)``): pass/fail per target with the uncertainty (rule: ``PASS_RULE``).

Units: an operation's values are canonical, bytes/s for IOR bandwidth and operations/s for
mdtest rates (and IOR transfers/s via ``Operation.stats(RATE)``). Statistics over iterations
are IOR's: mean, population standard deviation (divide by n), min, max. When the suite wrote a
per-operation ``summary`` it is used as printed; otherwise the same numbers are computed here
from the per-iteration phases, in this one place.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ioscore.acceptance.targets import (
    BANDWIDTH,
    RATE,
    UNITS,
    Target,
    TargetError,
    format_quantity,
    parse_target,
)
from ioscore.results.errors import ResultFormatError, read_text
from ioscore.results.limits import MAX_JSON_BYTES
from ioscore.results.model import PhaseResult
from ioscore.results.parse_json import (
    _validate_schema,
    load_result_document,
    phase_from_json,
    result_mode,
)
from ioscore.results.stragglers import work_rates
from ioscore.results.throughput import throughput_series

__all__ = [
    "PASS_RULE",
    "AcceptanceTest",
    "Iteration",
    "Launch",
    "Note",
    "Operation",
    "Stats",
    "TargetOutcome",
    "evaluate",
    "find_tests",
    "load_launch",
    "load_test",
]

PASS_RULE = (
    "a target passes when the mean over the iterations meets it; the margin is called "
    "'within one standard deviation' when |mean - target| <= stddev"
)
ACCEPTANCE_MODES = ("ior", "mdtest")
# The part directories `ioscore run PLAN` writes (RESULTS/TEST/PART): the role without a
# suite-written acceptance_test.
PART_ROLES = ("run", "write", "read", "create", "remove")
MAX_LAUNCHES = 10_000  # below one results directory: bounded work on a hostile tree
# The fields the acceptance launches add to result.json (checked here, see _extensions).
EXTENSION_KEYS = ("summary", "measurement_notes", "acceptance_test")

_IOR_PHASE = re.compile(r"ior-(write|readback|read|reread)-([0-9]{1,2})")
_MDTEST_PHASE = re.compile(r"mdtest-(tree|dir|file)-(write|stat|read|rename|delete)-([0-9]{1,2})")
_MDTEST_LABELS = {
    "write": "creation",
    "stat": "stat",
    "read": "read",
    "rename": "rename",
    "delete": "removal",
}
_MDTEST_OBJECTS = {"tree": "Tree", "dir": "Directory", "file": "File"}
# Units a suite summary may be printed in -> (quantity, factor to the canonical unit).
_SUMMARY_UNITS = {**UNITS, "B/s": (BANDWIDTH, 1.0), "ops/sec": (RATE, 1.0)}


@dataclass(frozen=True)
class Stats:
    """Statistics over iterations in one unit: IOR's population stddev (divisor n), or with
    ``sample`` mdtest's (divisor n - 1, 0 for one iteration)."""

    n: int
    mean: float
    stddev: float
    min: float
    max: float
    values: tuple[float, ...]

    @classmethod
    def of(cls, values: Iterable[float], *, sample: bool = False) -> Stats:
        numbers = tuple(float(v) for v in values)
        if not numbers:
            return cls(0, math.nan, math.nan, math.nan, math.nan, ())
        mean = math.fsum(numbers) / len(numbers)
        divisor = len(numbers) - 1 if sample else len(numbers)
        var = math.fsum((v - mean) ** 2 for v in numbers) / divisor if divisor else 0.0
        return cls(len(numbers), mean, math.sqrt(var), min(numbers), max(numbers), numbers)

    def scaled(self, factor: float) -> Stats:
        return Stats(
            self.n,
            self.mean * factor,
            self.stddev * factor,
            self.min * factor,
            self.max * factor,
            tuple(v * factor for v in self.values),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "mean": self.mean,
            "stddev": self.stddev,
            "min": self.min,
            "max": self.max,
            "values": list(self.values),
        }


@dataclass
class Iteration:
    """One repetition of one operation: a phase of the launch's result.json."""

    index: int
    phase: PhaseResult  # the library's model: stragglers and charts work on it
    value: float  # canonical: B/s (IOR) or ops/s (mdtest)
    ops_rate: float | None  # operations (IOR transfers) per second; None without items
    rank_rates: dict[int, float]  # rank -> work rate (stragglers.work_rates), canonical unit
    rank_hosts: dict[int, str | None]

    @property
    def valid(self) -> bool:
        return self.phase.valid

    def bandwidth_series(self) -> tuple[list[float], list[float]]:
        """(bucket start times in s, all ranks' rate per bucket in the canonical unit)."""
        series = throughput_series(self.phase)
        if series is None:
            return [], []
        scale = float(1 << 30) if self.phase.unit == "GiB/s" else 1e3
        return series[0], [rate * scale for rate in series[1]]


@dataclass
class Operation:
    """One operation of a launch over its iterations: IOR write/read/..., mdtest file-write..."""

    key: str  # "write", "read", "readback", "reread" or "<tree|dir|file>-<write|stat|read|delete>"
    label: str  # as IOR/mdtest print it: "write", "File creation", ...
    quantity: str  # BANDWIDTH (IOR) or RATE (mdtest)
    iterations: list[Iteration] = field(default_factory=list)
    summary: Stats | None = None  # the suite's own summary (canonical unit), when it wrote one
    launch_role: str | None = None  # the part of the test it came from ("write", "read", ...)

    @property
    def unit(self) -> str:
        """The canonical unit of ``values``."""
        return "B/s" if self.quantity == BANDWIDTH else "ops/s"

    @property
    def values(self) -> list[float]:
        return [it.value for it in self.iterations]

    def stats(self, quantity: str | None = None) -> Stats:
        """Statistics in the canonical unit of `quantity` (default: the operation's own).

        RATE on an IOR operation means transfers per second (IOPS).
        """
        quantity = quantity or self.quantity
        if quantity == self.quantity:
            if self.summary is not None:
                return self.summary
            # mdtest's operations (rates) carry mdtest's sample deviation
            return Stats.of(self.values, sample=self.quantity == RATE)
        if quantity == RATE:
            rates = [it.ops_rate for it in self.iterations]
            if all(r is not None for r in rates):
                return Stats.of(r for r in rates if r is not None)
        raise ValueError(f"{self.key}: no {quantity} values")

    @property
    def valid(self) -> bool:
        return all(it.valid for it in self.iterations)


@dataclass(frozen=True)
class Note:
    """What a number measured, as the suite says (e.g. 'client page cache likely')."""

    operation: str
    level: str
    text: str


@dataclass
class Launch:
    """One `ioscore-suite ior|mdtest` launch (one result.json)."""

    source: str
    result_dir: Path
    mode: str  # "ior" | "mdtest"
    command: str | None
    procs: int
    nodes: int
    hosts: list[str]
    start: str | None
    end: str | None
    valid: bool
    invalid_reasons: list[str]
    operations: dict[str, Operation]
    notes: list[Note]
    test_id: str | None  # acceptance_test.id, when the suite wrote one
    role: str | None  # this launch's part: "write", "read", ...
    parts: list[dict[str, Any]]  # acceptance_test.parts as written
    document: dict[str, Any] = field(repr=False, default_factory=dict)


@dataclass
class TargetOutcome:
    target: Target
    operation: Operation | None  # None: the test has no such operation
    stats: Stats | None  # in the target's unit
    passed: bool
    within_stddev: bool  # the mean is within one standard deviation of the threshold
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target.to_dict(),
            "operation": self.operation.key if self.operation else None,
            "stats": self.stats.to_dict() if self.stats else None,
            "passed": self.passed,
            "within_stddev": self.within_stddev,
            "rule": PASS_RULE,
            "message": self.message,
        }


@dataclass
class AcceptanceTest:
    """One test of a plan: its launches (parts) and their operations in launch order."""

    id: str
    launches: list[Launch]

    @property
    def operations(self) -> dict[str, Operation]:
        merged: dict[str, Operation] = {}
        for number, launch in enumerate(self.launches, 1):
            for key, op in launch.operations.items():
                # A repeated operation in a later part (a second write launch) keeps both.
                merged[key if key not in merged else f"{key} (part {number})"] = op
        return merged

    @property
    def notes(self) -> list[Note]:
        return [note for launch in self.launches for note in launch.notes]

    @property
    def valid(self) -> bool:
        return all(launch.valid for launch in self.launches)

    def evaluate(self, targets: Sequence[Target | str]) -> list[TargetOutcome]:
        return evaluate(self, targets)


def evaluate(test: AcceptanceTest, targets: Sequence[Target | str]) -> list[TargetOutcome]:
    """Each target judged by PASS_RULE on the test's operation; strings are parsed first
    (TargetError for a malformed one)."""
    outcomes = []
    operations = test.operations
    for item in targets:
        target = parse_target(item) if isinstance(item, str) else item
        op = operations.get(target.operation)
        if op is None:
            have = ", ".join(operations) or "none"
            outcomes.append(
                TargetOutcome(
                    target,
                    None,
                    None,
                    False,
                    False,
                    f"FAIL: {target.text}: the test has no {target.operation} results "
                    f"(operations: {have})",
                )
            )
            continue
        try:
            canonical = op.stats(target.quantity)
        except ValueError:
            raise TargetError(
                f"target {target.text!r}: {op.label} has no {target.quantity} values"
            ) from None
        stats = canonical.scaled(1.0 / UNITS[target.unit][1])
        passed = stats.n > 0 and stats.mean >= target.threshold
        near = stats.n > 0 and abs(stats.mean - target.threshold) <= stats.stddev
        shown = format_quantity(canonical.mean, target.unit)
        detail = (
            f"mean {shown} ± {format_quantity(canonical.stddev, target.unit)} "
            f"(min {format_quantity(canonical.min, target.unit)}, "
            f"max {format_quantity(canonical.max, target.unit)}, n={stats.n})"
        )
        verdict = "PASS" if passed else "FAIL"
        caveat = "; the margin is within one standard deviation" if near else ""
        if not op.valid:
            caveat += "; an iteration was invalid"
        outcomes.append(
            TargetOutcome(
                target, op, stats, passed, near, f"{verdict}: {target.text}: {detail}{caveat}"
            )
        )
    return outcomes


def _operation_of(name: str, mode: str) -> tuple[str, str, int] | None:
    """Phase name -> (operation key, printed label, iteration), None for a foreign phase."""
    if mode == "ior":
        match = _IOR_PHASE.fullmatch(name)
        if match:
            return match.group(1), match.group(1), int(match.group(2))
        return None
    match = _MDTEST_PHASE.fullmatch(name)
    if match:
        obj, action, index = match.groups()
        return f"{obj}-{action}", f"{_MDTEST_OBJECTS[obj]} {_MDTEST_LABELS[action]}", int(index)
    return None


def _canonical(phase: PhaseResult) -> float:
    return phase.value * (float(1 << 30) if phase.unit == "GiB/s" else 1e3)


def _ops_rate(phase: PhaseResult, value: float) -> float | None:
    if phase.unit != "GiB/s":
        return value
    items, size = phase.extra.get("items"), phase.extra.get("bytes")
    if not items or not size:
        return None
    return value * float(items) / float(size)


def _text(value: Any, where: str, source: str, limit: int = 4000) -> str:
    if not isinstance(value, str) or len(value) > limit:
        raise ResultFormatError(source, f"{where}: expected text of at most {limit} characters")
    return value


def _number(value: Any, where: str, source: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ResultFormatError(source, f"{where}: expected a finite number, got {value!r}")
    return float(value)


def _summary(raw: Any, source: str) -> dict[str, Stats]:
    """result.json "summary": [{"operation","unit","iterations","values",...}] -> key -> Stats
    (canonical unit). Operations are matched by key ("write", "file-write") or label."""
    if raw is None:
        return {}
    if not isinstance(raw, list):
        raise ResultFormatError(source, "summary: expected a list")
    out: dict[str, Stats] = {}
    for i, entry in enumerate(raw):
        where = f"summary[{i}]"
        if not isinstance(entry, dict):
            raise ResultFormatError(source, f"{where}: expected an object")
        name = _text(entry.get("operation"), f"{where}.operation", source, 100)
        unit = _text(entry.get("unit"), f"{where}.unit", source, 20)
        if unit not in _SUMMARY_UNITS:
            raise ResultFormatError(source, f"{where}.unit: unknown unit {unit!r}")
        values = entry.get("values")
        if not isinstance(values, list) or not 1 <= len(values) <= 10_000:
            raise ResultFormatError(source, f"{where}.values: expected 1 to 10000 numbers")
        numbers = [_number(v, f"{where}.values", source) for v in values]
        stats = Stats.of(numbers, sample=_SUMMARY_UNITS[unit][0] == RATE)
        for key in ("max", "min", "mean", "stddev"):  # printed numbers win over recomputed
            if entry.get(key) is not None:
                stats = _replace(stats, key, _number(entry[key], f"{where}.{key}", source))
        out[name.strip().lower()] = stats.scaled(_SUMMARY_UNITS[unit][1])
    return out


def _replace(stats: Stats, key: str, value: float) -> Stats:
    fields = stats.to_dict()
    fields[key] = value
    return Stats(
        stats.n, fields["mean"], fields["stddev"], fields["min"], fields["max"], stats.values
    )


def _notes(raw: Any, source: str) -> list[Note]:
    if raw is None:
        return []
    if not isinstance(raw, list) or len(raw) > 1000:
        raise ResultFormatError(source, "measurement_notes: expected a list (at most 1000)")
    notes = []
    for i, entry in enumerate(raw):
        where = f"measurement_notes[{i}]"
        if not isinstance(entry, dict):
            raise ResultFormatError(source, f"{where}: expected an object")
        notes.append(
            Note(
                operation=_text(entry.get("operation"), f"{where}.operation", source, 100),
                level=_text(entry.get("level"), f"{where}.level", source, 100),
                text=_text(entry.get("text"), f"{where}.text", source),
            )
        )
    return notes


def _acceptance_test(raw: Any, source: str) -> tuple[str | None, list[dict[str, Any]]]:
    if raw is None:
        return None, []
    if not isinstance(raw, dict):
        raise ResultFormatError(source, "acceptance_test: expected an object")
    test_id = _text(raw.get("id"), "acceptance_test.id", source, 200)
    parts = raw.get("parts") or []
    if not isinstance(parts, list) or len(parts) > 100:
        raise ResultFormatError(source, "acceptance_test.parts: expected a list (at most 100)")
    for i, part in enumerate(parts):
        if not isinstance(part, dict):
            raise ResultFormatError(source, f"acceptance_test.parts[{i}]: expected an object")
        _text(part.get("role"), f"acceptance_test.parts[{i}].role", source, 100)
    return test_id, parts


def _own_role(parts: list[dict[str, Any]], document: dict[str, Any]) -> str | None:
    """This launch's part: the one naming its result directory or timestamp, else the last."""
    for part in parts:
        for key in ("result_dir", "timestamp"):
            if part.get(key) is not None and part.get(key) == document.get(key):
                return str(part["role"])
    return str(parts[-1]["role"]) if parts else None


def _result_file(path: Path) -> Path:
    return path / "result.json" if path.is_dir() else path


def load_launch(path: Path) -> Launch:
    """One acceptance launch's result.json (or the directory holding it)."""
    file = _result_file(Path(path))
    source = str(file)
    text = read_text(file, max_bytes=MAX_JSON_BYTES, max_line=None)
    document = load_result_document(text, source)
    mode = document.get("mode")
    if mode not in ACCEPTANCE_MODES:
        raise ResultFormatError(
            source, f"mode {mode!r} is not an acceptance run (ioscore-suite ior or mdtest)"
        )
    # The acceptance fields are checked below, field by field, whether or not this
    # checkout's schema lists them yet; everything else by the schema.
    _validate_schema({k: v for k, v in document.items() if k not in EXTENSION_KEYS}, source)
    if document.get("finished") is False:
        how = "aborted by an I/O error" if document.get("aborted") else "did not finish"
        raise ResultFormatError(source, f"truncated: the launch {how}")
    summaries = _summary(document.get("summary"), source)
    test_id, parts = _acceptance_test(document.get("acceptance_test"), source)
    # The part directory `ioscore run` chose names the plan's role; else the suite's own.
    role = file.parent.name if file.parent.name in PART_ROLES else _own_role(parts, document)
    operations: dict[str, Operation] = {}
    for index, raw in enumerate(document.get("phases") or []):
        phase = phase_from_json(raw, index, source)
        known = _operation_of(phase.name, mode)
        if known is None:
            raise ResultFormatError(source, f"phase {phase.name!r} does not belong to mode {mode}")
        key, label, iteration = known
        op = operations.get(key)
        if op is None:
            quantity = BANDWIDTH if phase.unit == "GiB/s" else RATE
            op = operations[key] = Operation(key, label, quantity, launch_role=role)
        value = _canonical(phase)
        op.iterations.append(
            Iteration(
                index=iteration,
                phase=phase,
                value=value,
                ops_rate=_ops_rate(phase, value),
                rank_rates=work_rates(phase),
                rank_hosts={r.rank: r.host for r in phase.ranks},
            )
        )
    for op in operations.values():
        op.summary = summaries.get(op.key) or summaries.get(op.label.lower())
    command = (
        _first_command(operations.values())
        if not isinstance(document.get("command"), str)
        else document["command"]
    )
    hosts = document.get("hosts") or []
    return Launch(
        source=source,
        result_dir=file.parent,
        mode=str(mode),
        command=command,
        procs=int(document.get("procs") or 0),
        nodes=int(document.get("nodes") or 0),
        hosts=[str(h) for h in hosts],
        start=document.get("start"),
        end=document.get("end"),
        valid=bool(document.get("valid", True)),
        invalid_reasons=[str(r) for r in document.get("invalid_reasons") or []],
        operations=operations,
        notes=_notes(document.get("measurement_notes"), source),
        test_id=test_id,
        role=role,
        parts=parts,
        document=document,
    )


def _first_command(operations: Iterable[Operation]) -> str | None:
    for op in operations:
        for it in op.iterations:
            keys = it.phase.extra.get("result_keys") or {}
            if isinstance(keys.get("command"), str):
                return str(keys["command"])
    return None


def load_test(paths: Sequence[Path], test_id: str | None = None) -> AcceptanceTest:
    """Launches (in the given order) that form one test."""
    if not paths:
        raise ValueError("a test needs at least one launch")
    launches = [load_launch(p) for p in paths]
    name = test_id or launches[0].test_id or _result_file(Path(paths[0])).parent.name
    return AcceptanceTest(id=name, launches=launches)


def find_tests(
    root: Path,
    unreadable: list[ResultFormatError] | None = None,
    by_directory: bool = False,
) -> list[AcceptanceTest]:
    """Every acceptance test below `root`, in directory order.

    Launches sharing the suite's ``acceptance_test.id`` form one test (named after their
    directory when they share one below root); otherwise, and always with `by_directory`
    (the layout `ioscore run PLAN` writes), ``root/TEST/result.json`` is a one-launch test and
    ``root/TEST/PART/result.json`` a part of TEST. Result files of
    other modes (an IO500 run) are skipped. An unreadable or truncated acceptance file raises,
    or, when `unreadable` is a list, is appended to it and left out (a report can still show
    the other tests, and say which launch it could not read).
    """
    root = Path(root)
    if not root.is_dir():
        raise ResultFormatError(root, "not a directory")
    files = []
    for count, file in enumerate(root.rglob("result.json")):
        if count >= MAX_LAUNCHES:
            raise ResultFormatError(root, f"more than {MAX_LAUNCHES} result.json files")
        files.append(file)
    groups: dict[str, list[Launch]] = {}
    for file in sorted(files):
        mode = result_mode(file)
        if mode is not None and mode not in ACCEPTANCE_MODES:
            continue  # an IO500 run: not read whole here, whatever its size
        try:
            launch = load_launch(file)
        except ResultFormatError as exc:
            if "is not an acceptance run" in exc.reason:
                continue
            if unreadable is None:
                raise
            unreadable.append(exc)
            continue
        relative = file.parent.relative_to(root).parts
        by_dir = relative[0] if relative else root.name
        key = by_dir if by_directory else (launch.test_id or by_dir)
        groups.setdefault(key, []).append(launch)
    tests = []
    for key, launches in groups.items():
        launches.sort(key=lambda launch: launch.start or "")
        # A suite-linked test whose launches share one directory is named after it.
        dirs = {_first_dir(root, launch) for launch in launches}
        name = dirs.pop() if len(dirs) == 1 and None not in dirs else key
        tests.append(AcceptanceTest(id=name or key, launches=launches))
    return tests


def _first_dir(root: Path, launch: Launch) -> str | None:
    relative = launch.result_dir.relative_to(root).parts
    return relative[0] if len(relative) >= 2 else None
