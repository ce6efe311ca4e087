"""How the CLI prints issues: one line per finding, a short write phase on one line."""

from __future__ import annotations

from ioscore.commands.validate import format_issue, issue_lines

RUN = "2026.11.23-18.46.07/result.json"


def _marker(phase: str, text: str) -> dict[str, object]:
    return {
        "rule": "invalid-markers",
        "severity": "invalid",
        "message": f"marked invalid in {RUN} [{phase}]",
        "expected": "no invalid marker",
        "actual": text,
        "phase": None,
    }


def test_a_short_write_phase_is_one_line() -> None:
    issues = [
        {
            "rule": "invalid-markers",
            "severity": "invalid",
            "message": f"marked invalid in {RUN}",
            "expected": "no invalid marker",
            "actual": "stonewall-time is 3s; a valid run needs 300s",
            "phase": None,
        },
        _marker("ior-easy-write", "write time 1.126 s is below the stonewall time 3 s"),
        _marker("ior-easy-write", "phase time 1.130 s is below the stonewall time 3 s"),
        _marker("mdtest-easy-write", "phase time 0.602 s is below the stonewall time 3 s"),
        {
            "rule": "write-phase-min-runtime",
            "severity": "invalid",
            "message": "ior-easy-write ran 1.130 s, less than 300 s",
            "expected": ">= 300",
            "actual": 1.1301963329315186,
            "phase": "ior-easy-write",
        },
        {
            "rule": "write-phase-min-runtime",
            "severity": "invalid",
            "message": "mdtest-easy-write ran 0.602 s, less than 300 s",
            "expected": ">= 300",
            "actual": 0.6022160053253174,
            "phase": "mdtest-easy-write",
        },
    ]
    lines = issue_lines(issues)
    assert len(lines) == 3  # the run-wide marker, then one line per phase
    assert lines[0] == format_issue(issues[0])
    assert lines[1] == (
        "  INVALID  [ior-easy-write] invalid-markers: marked invalid in "
        f"{RUN}: write time 1.126 s is below the stonewall time 3 s; phase time 1.130 s is "
        "below the stonewall time 3 s | write-phase-min-runtime: ior-easy-write ran 1.130 s, "
        "less than 300 s (expected >= 300, actual 1.1302)"
    )
    assert lines[2].startswith("  INVALID  [mdtest-easy-write] invalid-markers: ")
    assert "(expected >= 300, actual 0.602216)" in lines[2]


def test_the_worst_severity_leads_a_phase_line_and_lone_issues_stay_as_they_are() -> None:
    warning = {
        "rule": "phase-pause",
        "severity": "warning",
        "message": "long pause",
        "phase": "ior-hard-read",
    }
    invalid = {**warning, "rule": "phase-time", "severity": "invalid", "message": "too short"}
    lone = {**warning, "phase": "find"}
    lines = issue_lines([warning, lone, invalid])
    assert lines == [
        "  INVALID  [ior-hard-read] phase-pause: long pause | phase-time: too short",
        format_issue(lone),
    ]
