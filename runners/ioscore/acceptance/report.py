"""The acceptance report's content (plotly-free): per test, targets judged with their
uncertainty, operation statistics, what each number measured, multimodality hints and the
library's straggler findings. `ioscore report --json` prints it; the HTML renders it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ioscore import fslayout
from ioscore.acceptance.modality import operation_hints
from ioscore.acceptance.results import (
    PASS_RULE,
    AcceptanceTest,
    Launch,
    Operation,
    TargetOutcome,
    find_tests,
)
from ioscore.acceptance.targets import BANDWIDTH, Target, TargetError, parse_target
from ioscore.results import (
    PlausibilityFinding,
    ReadOfWrite,
    beyond_hardware,
    cache_findings,
    node_bytes,
    plausibility_summary,
    written_per_node,
)
from ioscore.results.errors import ResultFormatError, read_text
from ioscore.results.stragglers import phase_spread

PLAN_FILE = "plan.json"


@dataclass
class TestReport:
    test: AcceptanceTest
    outcomes: list[TargetOutcome] = field(default_factory=list)
    plan_test: dict[str, Any] | None = None  # the plan's entry for this test

    @property
    def passed(self) -> bool:
        return all(outcome.passed for outcome in self.outcomes)


@dataclass
class AcceptanceReport:
    root: Path
    plan: dict[str, Any] | None
    tests: list[TestReport]
    unreadable: list[ResultFormatError] = field(default_factory=list)  # launches left out
    # the system description the report compares the bandwidths with (`--system`), if any
    description: dict[str, Any] | None = None
    description_source: str = ""  # where it was read from, for the report's words

    @property
    def targets(self) -> int:
        return sum(len(t.outcomes) for t in self.tests)

    @property
    def failed(self) -> int:
        return sum(not o.passed for t in self.tests for o in t.outcomes)


def _plan(root: Path) -> dict[str, Any] | None:
    path = root / PLAN_FILE
    if not path.is_file():
        return None
    try:
        document = json.loads(read_text(path, max_line=None))
    except ValueError:
        raise ResultFormatError(path, "not valid JSON (written by `ioscore run PLAN`)") from None
    if not isinstance(document, dict) or not isinstance(document.get("tests"), list):
        raise ResultFormatError(path, "expected the plan written by `ioscore run PLAN`")
    return document


def _targets(entry: dict[str, Any], source: Path) -> list[Target]:
    out = []
    for item in entry.get("targets") or []:
        text = item.get("text") if isinstance(item, dict) else item
        try:
            out.append(parse_target(text if isinstance(text, str) else repr(text)))
        except TargetError as exc:
            raise ResultFormatError(source, f"test {entry.get('name')!r}: {exc}") from None
    return out


def build_report(root: Path) -> AcceptanceReport:
    """Every test below `root` (plan order when `ioscore run` wrote plan.json there)."""
    root = Path(root)
    unreadable: list[ResultFormatError] = []
    # A plan's results are laid out by test (RESULTS/TEST/PART): group by directory, even
    # when the suite linked launches of different plan tests that share files.
    tests = find_tests(root, unreadable, by_directory=(root / PLAN_FILE).is_file())
    if not tests and unreadable:
        raise unreadable[0]
    if not tests:
        raise ResultFormatError(root, "no acceptance result.json (ioscore-suite ior/mdtest) here")
    plan = _plan(root)
    by_id = {test.id: test for test in tests}
    reports = []
    if plan is not None:
        for entry in plan["tests"]:
            if not isinstance(entry, dict):
                continue
            name = str(entry.get("name"))
            # A planned test without results (its launch failed or never ran) is still judged:
            # each of its targets fails for want of results.
            test = by_id.pop(name, None) or AcceptanceTest(id=name, launches=[])
            report = TestReport(test, plan_test=entry)
            report.outcomes = test.evaluate(_targets(entry, root / PLAN_FILE))
            reports.append(report)
    reports += [TestReport(test) for test in by_id.values()]
    return AcceptanceReport(root, plan, reports, unreadable)


def drop_caches_record(launch: Launch) -> str | None:
    """What `ioscore run` recorded about the cache drop before this launch, if anything."""
    path = launch.result_dir / "drop_caches.txt"
    if not path.is_file():
        return None
    try:
        return read_text(path).strip()[:500]
    except ResultFormatError as exc:
        return f"unreadable: {exc.reason}"


def measured(op: Operation, launch: Launch) -> str:
    """In words: what the operation's number is (the suite's notes say which cache it hit)."""
    if op.quantity == BANDWIDTH:
        what = (
            f"{op.label}: aggregate bandwidth of {launch.procs} ranks on {launch.nodes} node(s), "
            "all ranks' bytes over the phase time (open to close, IOR's bw column)"
        )
    else:
        what = (
            f"{op.label}: aggregate rate of {launch.procs} ranks on {launch.nodes} node(s), "
            "all ranks' operations over the phase time (mdtest's SUMMARY rate)"
        )
    what += f"; statistics over {len(op.iterations)} iteration(s)"
    summarised = [it.phase.rank_summary for it in op.iterations if it.phase.rank_summary]
    if summarised:  # above the suite's rank-detail threshold: not every rank's numbers
        what += (
            f"; per-rank data summarised ({summarised[0].count} ranks: quantiles, rate "
            "histogram, per-host aggregates and the slowest and fastest ranks by name)"
        )
    if len(launch.parts) > 1 or launch.role not in (None, "run"):
        what += f"; part '{launch.role}' of the test, its own launch"
    drop = drop_caches_record(launch)
    if drop:
        what += f"; before this launch the cache drop {drop}"
    return what


def _stragglers(op: Operation) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for it in op.iterations:
        spread = phase_spread(it.phase)
        for flag in spread.rank_stragglers:
            found.append(
                {
                    "iteration": it.index,
                    "rank": flag.rank,
                    "host": flag.host,
                    "reason": flag.reason,
                }
            )
        for host_flag in spread.host_stragglers:
            found.append(
                {
                    "iteration": it.index,
                    "host": host_flag.host,
                    "ranks": list(host_flag.ranks),
                    "reason": host_flag.reason,
                }
            )
    return found


def server_findings(op: Operation, launch: Launch) -> list[dict[str, Any]]:
    """Throughput per storage server, from the launch's layout.json (`ioscore layout`).

    layout.json names the servers of each rank's *own* file; result.json's ``data_ranks`` says
    whose file each rank accessed. A result without it (older suites) is attributed only
    where no option shifts which file a rank reads (-C, -Q, -Z, -X)."""
    layout = fslayout.load(launch.result_dir)
    if not layout:
        return []
    own = op.key == "write" or not _shifts_files(launch.command or "")
    return [
        {
            "iteration": it.index,
            "server": found.server,
            "ranks": list(found.ranks),
            "mean_rate": found.mean_rate,
            "slow": found.slow_reason,
        }
        for it in op.iterations
        for found in fslayout.server_rates(
            it.phase, fslayout.accessed_servers(it.phase, layout, assume_own=own)
        )
    ]


def error_findings(op: Operation, launch: Launch) -> list[dict[str, Any]]:
    """I/O errors per storage server: each failed rank, its file's servers (layout.json, when
    the launch has one) and the server common to the failures."""
    layout = fslayout.load(launch.result_dir)
    found = []
    for it in op.iterations:
        errors = fslayout.error_servers(it.phase, layout)
        if errors is None:
            continue
        found.append(
            {
                "iteration": it.index,
                "failed": [
                    {
                        "rank": f.rank,
                        "host": f.host,
                        "data_rank": f.data_rank,
                        "servers": list(f.servers),
                        "error": f.error,
                    }
                    for f in errors.failed
                ],
                "common_servers": list(errors.common),
                "suspect": errors.suspect,
                "reason": errors.reason,
            }
        )
    return found


def plausibility_findings(
    test: AcceptanceTest, description: dict[str, Any]
) -> list[PlausibilityFinding]:
    """A test's bandwidth operations against what the described hardware can carry: each
    iteration's rate against the network and device ceilings (the fastest one named), the
    data written per client node against a client node's memory (writes without fsync), and
    reads that may have
    come from a cache (``ioscore.results``' plausibility rules, as the service applies them to
    IO500 runs). Each finding's phase is "TEST OPERATION"."""
    rates: dict[str, float] = {}
    writes: dict[str, float] = {}
    reads: list[ReadOfWrite] = []
    for key, op in test.operations.items():
        if op.quantity != BANDWIDTH or not op.iterations:
            continue
        name = f"{test.id} {key}"
        rates[name] = max(it.value for it in op.iterations)
        per_node = [nodes for it in op.iterations if (nodes := node_bytes(it.phase))]
        if not per_node:
            continue
        busiest = max(max(nodes.values()) for nodes in per_node)
        if key == "write":
            if not _syncs(launch_of(test, op).command or ""):
                writes[name] = busiest
        else:
            launch = launch_of(test, op)
            shifted = _shifts_files(launch.command or "") and launch.nodes > 1
            # caches dropped on the clients before the read launch: no client page cache
            # to read from, as when the data was written on another node
            dropped = (drop_caches_record(launch) or "").startswith("dropped:")
            total = max(sum(nodes.values()) for nodes in per_node)
            reads.append(ReadOfWrite(name, total, busiest, from_other_node=shifted or dropped))
    return (
        beyond_hardware(description, rates)
        + written_per_node(description, writes)
        + cache_findings(description, reads)
    )


def plausibility_dict(report: AcceptanceReport) -> dict[str, Any] | None:
    """The ceilings with their arithmetic and every test's findings; None without `--system`."""
    if report.description is None:
        return None
    findings = [f for t in report.tests for f in plausibility_findings(t.test, report.description)]
    return plausibility_summary(report.description, findings)


def _syncs(command: str) -> bool:
    """Whether IOR fsyncs the written files inside the write's time (-e, -Y)."""
    return any(w in ("-e", "-Y") or w.startswith("--fsync") for w in command.split())


def _shifts_files(command: str) -> bool:
    words = command.split()
    return any(w in ("-C", "-Z") or w.startswith(("-Q", "-X")) for w in words)


def launch_of(test: AcceptanceTest, op: Operation) -> Launch:
    return next(launch for launch in test.launches if op in launch.operations.values())


def operation_dict(test: AcceptanceTest, key: str, op: Operation) -> dict[str, Any]:
    launch = launch_of(test, op)
    stats = op.stats()
    return {
        "key": key,
        "label": op.label,
        "unit": op.unit,
        "quantity": op.quantity,
        "stats": stats.to_dict(),
        "from_suite_summary": op.summary is not None,
        "valid": op.valid,
        "part": launch.role,
        "measured": measured(op, launch),
        "notes": [
            n.text for n in launch.notes if n.operation.lower() in (op.key, op.label.lower())
        ],
        "multimodality": [h.to_dict() for h in operation_hints(op)],
        "stragglers": _stragglers(op),
        "servers": server_findings(op, launch),
        "io_errors": error_findings(op, launch),
    }


def report_dict(report: AcceptanceReport) -> dict[str, Any]:
    return {
        "results_dir": str(report.root),
        "plan": report.plan.get("name") if report.plan else None,
        "pass_rule": PASS_RULE,
        "targets": report.targets,
        "failed": report.failed,
        "unreadable": [{"path": e.path, "reason": e.reason} for e in report.unreadable],
        "hardware": plausibility_dict(report),
        "tests": [
            {
                "id": t.test.id,
                "passed": t.passed,
                "valid": t.test.valid,
                "launches": [
                    {
                        "role": launch.role,
                        "command": launch.command,
                        "result_dir": str(launch.result_dir),
                        "procs": launch.procs,
                        "nodes": launch.nodes,
                        "hosts": launch.hosts,
                        "start": launch.start,
                        "valid": launch.valid,
                        "invalid_reasons": launch.invalid_reasons,
                        "drop_caches": drop_caches_record(launch),
                    }
                    for launch in t.test.launches
                ],
                "targets": [o.to_dict() for o in t.outcomes],
                "operations": [
                    operation_dict(t.test, key, op) for key, op in t.test.operations.items()
                ],
                "notes": [
                    {"operation": n.operation, "level": n.level, "text": n.text}
                    for n in t.test.notes
                ],
            }
            for t in report.tests
        ],
    }
